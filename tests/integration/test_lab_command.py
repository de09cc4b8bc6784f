"""``netbox aifabric_lab <fabric>`` on the demo fabric applied in NetBox: the configs rendered from the devices'
contexts, booted, checked (root, network namespaces and FRR needed: skipped with the reason otherwise)."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from utilities.testing import TestCase

from netbox_aifabric.lab.netns import unavailable_reason
from netbox_aifabric.models import AcceptanceRun
from tests.integration.test_render_configs import demo_fabric

pytestmark = pytest.mark.netbox


@pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}')
class LabCommandTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = demo_fabric()

    def test_demo_fabric_passes_with_json_and_is_stored(self):
        out = io.StringIO()
        call_command('aifabric_lab', self.fabric.slug, '--json', '--timeout', '30', stdout=out)
        result = json.loads(out.getvalue())
        self.assertTrue(result['ok'])
        # stored as a lab run, as the Job and the REST action store theirs: every check one result
        run = AcceptanceRun.objects.get(pk=result['acceptance_run'])
        self.assertEqual((run.fabric, run.kind, run.status), (self.fabric, 'lab', 'passed'))
        self.assertEqual(run.results.count(), len(result['checks']))
        self.assertEqual(run.passed, result['counts']['passed'])
        self.assertEqual(run.convergence_seconds, result['convergence_seconds'])
        self.assertEqual(result['counts']['failed'], 0)
        self.assertEqual(len(result['namespaces']), 4)
        sessions = [c for c in result['checks'] if c['kind'] == 'bgp' and c['status'] == 'passed']
        self.assertEqual(len(sessions), 16)  # the demo is the EVPN design: 8 underlay and 8 overlay sessions
        self.assertTrue(any(c['kind'] == 'evpn' and c['status'] == 'passed' for c in result['checks']))

    def test_no_store_stores_nothing(self):
        out = io.StringIO()
        call_command('aifabric_lab', self.fabric.slug, '--no-store', '--timeout', '30', stdout=out)
        self.assertFalse(AcceptanceRun.objects.exists())
        self.assertNotIn('Stored as acceptance run', out.getvalue())
        self.assertIn('0 failed', out.getvalue())

    def test_unknown_fabric(self):
        with self.assertRaisesMessage(CommandError, "No fabric with the slug or name 'nope'"):
            call_command('aifabric_lab', 'nope', stdout=io.StringIO())
