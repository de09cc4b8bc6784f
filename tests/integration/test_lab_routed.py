"""The guide's cluster in the routed design as a NetBox demo: seeded (the demo, its design set from base.py's
``FABRIC_SHAPE``: routed, eBGP, MLAG pairs), applied, then proven by the lab through the NetBox job the Lab tab, the
REST action and ``netbox aifabric_lab`` share (the devices' contexts -> rendered frr.conf -> network namespaces with
FRR -> the run stored as an acceptance run of kind lab).

Every check passes or is "not verified" naming the kernel feature the host lacks (bonding, vrf, 802.1Q), never
failed. The negative control: one wrong remote-as in leaf1's applied context fails exactly that session (both ends),
what only it carries (the spine's loopback route from leaf1) and convergence.

(The EVPN design as a NetBox demo is proven by test_lab_command.py and test_lab_ui_api.py: the demo is EVPN.)

Needs root, network namespaces and Debian's FRR: skipped with the reason otherwise.
"""

import pytest

from dcim.models import Device
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.lab.jobs import FabricLabJob
from netbox_aifabric.lab.netns import unavailable_reason
from netbox_aifabric.models import AcceptanceRun, Fabric
from tests.integration import base

pytestmark = [
    pytest.mark.netbox,
    pytest.mark.lab,
    pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}'),
]

DESIGN = ('design_option', 'underlay', 'leaf_pairing')
KERNEL_FEATURES = ('bonding', 'vrf', '8021q')  # what this machine kind's kernel lacks (docs/lab.md)


def contexts_of(fabric):
    return {d.name: d.get_config_context()['aifabric'] for d in Device.objects.filter(name__startswith=fabric.slug)}


class RoutedDesignLabTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        Fabric.objects.filter(pk=cls.fabric.pk).update(**{k: base.FABRIC_SHAPE[k] for k in DESIGN})
        cls.fabric.refresh_from_db()
        assert cls.fabric.design_option == 'routed' and not cls.fabric.is_evpn
        apply_fabric(cls.fabric)

    def run_lab(self, timeout):
        job = FabricLabJob.enqueue(instance=self.fabric, user=self.user, immediate=True, timeout=timeout)
        job.refresh_from_db()
        return job, AcceptanceRun.objects.get(pk=job.data['acceptance_run'])

    def test_the_applied_routed_fabric_passes_every_check_it_can_build(self):
        contexts = contexts_of(self.fabric)
        switches = {n: c for n, c in contexts.items() if c.get('role') in ('spine', 'leaf')}
        self.assertEqual(len(switches), self.fabric.spine_count + self.fabric.leaf_count)
        self.assertTrue(all(not c['bgp'].get('evpn_peers') for c in switches.values()))  # no overlay: routed
        job, run = self.run_lab(timeout=30)
        self.assertEqual((job.status, run.kind, run.fabric, run.user), ('completed', 'lab', self.fabric, self.user))
        results = list(run.results.all())
        self.assertEqual(len(results), len(job.data['checks']))
        self.assertEqual([r.name for r in results if r.status == 'failed'], [])
        for r in results:
            if r.status == 'not-verified':
                self.assertTrue(any(f in r.seen for f in KERNEL_FEATURES), f'{r.name}: {r.seen}')
        self.assertEqual({r.status for r in results}, {'passed', 'not-verified'})
        # every BGP session of every switch's context is a check: Established, or over the peer-link LAG not verified
        neighbors = {(n, x['address']) for n, c in switches.items() for x in c['bgp']['neighbors']}
        bgp = {r.name.split()[1]: r for r in results if r.category == 'bgp'}
        self.assertEqual(len([r for r in results if r.category == 'bgp']), len(neighbors))
        self.assertTrue(set(bgp) <= set(switches))
        passed = [r for r in results if r.category == 'bgp' and r.status == 'passed']
        uplinks = {
            (n, x['address']) for n, c in switches.items() for x in c['bgp']['neighbors'] if x['kind'] == 'uplink'
        }
        self.assertEqual(len(passed), len(uplinks))
        self.assertTrue(all(r.seen.startswith('Established') for r in passed))
        self.assertEqual(
            (run.status, run.failed, run.passed), ('passed', 0, len([r for r in results if r.status == 'passed']))
        )
        self.assertIsNotNone(run.convergence_seconds)

    def test_negative_control_one_wrong_remote_as_fails_exactly_that_session(self):
        leaf1 = Device.objects.get(name=f'{self.fabric.slug}-leaf1')
        context = leaf1.local_context_data
        neighbor = next(n for n in context['aifabric']['bgp']['neighbors'] if n['kind'] == 'uplink')
        neighbor['remote_asn'] += 1000
        leaf1.local_context_data = context
        leaf1.save()
        job, run = self.run_lab(timeout=10)
        self.assertEqual((job.status, run.status), ('failed', 'failed'))
        failed = {r.name: r for r in run.results.filter(status='failed')}
        peer = contexts_of(self.fabric)[neighbor['peer']]
        back = next(n for n in peer['bgp']['neighbors'] if n['peer'] == leaf1.name and n['kind'] == 'uplink')
        loopback = peer['router_id'].split('/')[0]
        expected = {
            f'bgp {leaf1.name} -> {neighbor["peer"]} {neighbor["address"]} (uplink)',
            f'bgp {neighbor["peer"]} -> {leaf1.name} {back["address"]} (uplink)',
            f'route {leaf1.name} -> {neighbor["peer"]} {loopback}/32',
            'convergence',
        }
        self.assertEqual(set(failed), expected)
        seen = failed[f'bgp {leaf1.name} -> {neighbor["peer"]} {neighbor["address"]} (uplink)'].seen
        self.assertIn(f'remote AS {neighbor["remote_asn"]}', seen)
