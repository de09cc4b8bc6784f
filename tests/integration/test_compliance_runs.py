"""Stored compliance runs: the job stores a ComplianceRun with its findings as rows, derived from the same result the
engine gives; the REST endpoints, list views and object permissions; the Compliance tab's history and the device
panel."""

import pytest
from django.contrib.contenttypes.models import ContentType

from core.models import Job
from dcim.models import Device, Interface
from utilities.testing import TestCase

from netbox_aifabric.apply.engine import apply_fabric
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.engine import FAMILIES
from netbox_aifabric.checks.job import ComplianceJob
from netbox_aifabric.checks.runs import record_run, run_score
from netbox_aifabric.models import ComplianceFamilyChoices, ComplianceFinding, ComplianceRun, Fabric
from netbox_aifabric.seed import load_demo

from .test_compliance import LEAF1, break_by_hand

pytestmark = pytest.mark.netbox


class StoredRunTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def test_the_families_choices_are_the_engines(self):
        self.assertEqual(set(ComplianceFamilyChoices.values()), set(FAMILIES))

    def test_a_run_stores_every_finding_as_a_row_with_its_object_and_device(self):
        port = break_by_hand(self.fabric, self.user)
        result = run_compliance(self.fabric)
        run = record_run(self.fabric, result, user=self.user)
        counts = result.counts
        self.assertEqual(
            (run.rules, run.passed, run.failed, run.skipped, run.errored, run.finding_count),
            (counts['rules'], counts['pass'], counts['fail'], counts['skip'], counts['error'], counts['findings']),
        )
        self.assertEqual((run.status, run.user, run.fabric), ('failed', self.user, self.fabric))
        self.assertEqual(run.score, round(100 * counts['pass'] / (counts['rules'] - counts['skip'])))
        self.assertEqual(set(run.rule_results), {r.rule.id for r in result.results})
        self.assertEqual(run.rule_results['drift-edited']['findings'], 1)
        (row,) = ComplianceFinding.objects.filter(run=run)
        self.assertEqual((row.rule, row.family, row.severity), ('drift-edited', 'drift', 'error'))
        self.assertEqual((row.object_type, row.object_id), (ContentType.objects.get_for_model(Interface), port.pk))
        self.assertEqual(row.object, port)
        self.assertEqual(row.device_ids, [Device.objects.get(name=LEAF1).pk])
        self.assertEqual((row.expected, row.found), (f'mtu={self.fabric.mtu}', f'mtu={port.mtu}'))
        self.assertEqual(row.fix, result.results[0].rule.fix)

    def test_a_clean_run_passes_with_no_findings(self):
        run = record_run(self.fabric, run_compliance(self.fabric))
        self.assertEqual((run.status, run.failed, run.finding_count, run.user), ('passed', 0, 0, None))
        self.assertEqual(run.score, 100)
        self.assertFalse(run.findings.exists())

    def test_the_job_stores_a_run_by_its_user(self):
        job = ComplianceJob.enqueue(instance=self.fabric, user=self.user)
        break_by_hand(self.fabric, self.user)
        ComplianceJob.handle(job)  # what the RQ worker does
        job.refresh_from_db()
        self.assertEqual(job.status, 'completed')
        run = ComplianceRun.objects.get(pk=job.data['run'])
        self.assertEqual((run.fabric, run.user, run.job, run.failed), (self.fabric, self.user, job, 1))
        self.assertEqual(list(run.findings.values_list('rule', flat=True)), ['drift-edited'])
        self.assertEqual(Job.objects.get(pk=job.pk).data['counts']['findings'], run.finding_count)


def test_score_counts_only_the_rules_that_ran():
    assert run_score({'pass': 3, 'fail': 1, 'error': 0, 'skip': 5}) == 75
    assert run_score({'pass': 0, 'fail': 0, 'error': 0, 'skip': 5}) is None
    assert run_score({'pass': 2, 'fail': 0, 'error': 1, 'skip': 0}) == 67
