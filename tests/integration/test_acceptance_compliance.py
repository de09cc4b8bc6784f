"""The compliance rule ``automation-acceptance`` on the applied demo in NetBox: it reads the stored acceptance runs
(``checks.compliance.acceptance_facts``) and the fabric's last apply."""

from datetime import timedelta

import pytest
from django.utils import timezone

from utilities.testing import TestCase

from netbox_aifabric.acceptance.store import store_lab_run
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.models import AcceptanceRun, Fabric
from tests.integration.test_compliance import applied_demo

pytestmark = pytest.mark.netbox

RULE = 'automation-acceptance'


def lab_result(*statuses):
    return {
        'checks': [
            {'name': f'bgp leaf1 -> spine{n} x (uplink)', 'kind': 'bgp', 'status': s, 'expected': 'E', 'seen': 'S'}
            for n, s in enumerate(statuses, 1)
        ]
    }


class AcceptanceRuleTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()  # with a passed lab run

    def outcome(self):
        result = {r.rule.id: r for r in run_compliance(Fabric.objects.get(pk=self.fabric.pk)).results}[RULE]
        return result.status, [(tuple(o.name for o in f.objects), f.expected, f.found) for f in result.findings]

    def test_the_applied_demo_with_a_passed_lab_run_passes(self):
        self.assertEqual(self.outcome(), ('pass', []))

    def test_a_failed_lab_run_after_it_is_the_finding_linked_to_the_run(self):
        run = store_lab_run(self.fabric, None, lab_result('passed', 'failed', 'not-verified-here'))
        status, findings = self.outcome()
        self.assertEqual(status, 'fail')
        self.assertEqual(
            findings, [((str(run),), 'the latest lab run passed', 'failed: 1 passed, 1 failed, 1 not verified')]
        )
        result = run_compliance(self.fabric).to_dict()
        (found,) = next(r for r in result['results'] if r['id'] == RULE)['findings']
        self.assertEqual((found['objects'][0]['id'], found['objects'][0]['url']), (run.pk, run.get_absolute_url()))

    def test_an_apply_after_the_last_run_asks_for_a_new_one(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(last_applied=timezone.now() + timedelta(seconds=1))
        status, findings = self.outcome()
        self.assertEqual(status, 'fail')
        ((objects, expected, found),) = findings
        self.assertEqual(objects, (self.fabric.name,))
        result = run_compliance(Fabric.objects.get(pk=self.fabric.pk)).to_dict()
        (linked,) = next(r for r in result['results'] if r['id'] == RULE)['findings']
        self.assertEqual(linked['objects'][0]['url'], self.fabric.get_absolute_url())
        self.assertTrue(expected.startswith('a lab or acceptance run since the last apply ('), expected)
        self.assertTrue(found.startswith('none (older: lab '), found)

    def test_no_run_at_all(self):
        AcceptanceRun.objects.filter(fabric=self.fabric).delete()
        self.assertEqual(self.outcome(), ('fail', [((self.fabric.name,), 'a lab or acceptance run', 'none')]))
