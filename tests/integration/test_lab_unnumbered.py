"""The guide's cluster (the NetBox demo, EVPN/VXLAN) with the unnumbered eBGP underlay (RFC 5549): seeded, set to
``ebgp-unnumbered``, applied, then proven by the lab through the NetBox job the Lab tab, the REST action and
``netbox aifabric_lab`` share (the devices' contexts -> rendered frr.conf -> network namespaces with FRR -> the run
stored as an acceptance run of kind lab).

Every check passes or is "not verified" naming the kernel feature the host lacks, never failed; every uplink session
of the applied contexts is a check on its port, Established on a link-local address. The negative control: one
uplink's neighbour removed from leaf1's applied context leaves its spine's session on that link down, and every
failure is a consequence of that one link (leaf1 and that spine, or convergence).

Needs root, network namespaces and Debian's FRR: skipped with the reason otherwise.
"""

import re

import pytest

from dcim.models import Device
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.lab.jobs import FabricLabJob
from netbox_aifabric.lab.netns import unavailable_reason
from netbox_aifabric.models import AcceptanceRun, Fabric

pytestmark = [
    pytest.mark.netbox,
    pytest.mark.lab,
    pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}'),
]

KERNEL_FEATURES = ('bonding', 'vrf', '8021q')  # what this machine kind's kernel lacks (docs/lab.md)


def contexts_of(fabric):
    return {d.name: d.get_config_context()['aifabric'] for d in Device.objects.filter(name__startswith=fabric.slug)}


def uplinks(contexts):
    """(switch, peer, local port) of every uplink session of the applied contexts."""
    return {
        (name, n['peer'], n['interface'])
        for name, ctx in contexts.items()
        for n in (ctx.get('bgp') or {}).get('neighbors') or []
        if n['kind'] == 'uplink'
    }


class UnnumberedLabTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        Fabric.objects.filter(pk=cls.fabric.pk).update(underlay='ebgp-unnumbered')
        cls.fabric.refresh_from_db()
        apply_fabric(cls.fabric)

    def run_lab(self, timeout):
        job = FabricLabJob.enqueue(instance=self.fabric, user=self.user, immediate=True, timeout=timeout)
        job.refresh_from_db()
        return job, AcceptanceRun.objects.get(pk=job.data['acceptance_run'])

    def test_the_applied_unnumbered_fabric_passes_every_check_it_can_build(self):
        contexts = contexts_of(self.fabric)
        switches = {n: c for n, c in contexts.items() if c.get('role') in ('spine', 'leaf')}
        planned = uplinks(switches)
        self.assertEqual(len(planned), 2 * self.fabric.spine_count * self.fabric.leaf_count)
        self.assertTrue(all(c['bgp']['unnumbered'] for c in switches.values()))
        self.assertTrue(all(n['address'] is None for c in switches.values() for n in c['bgp']['neighbors']
                            if n['kind'] == 'uplink'))  # fmt: skip
        job, run = self.run_lab(timeout=40)
        self.assertEqual((job.status, run.kind, run.fabric), ('completed', 'lab', self.fabric), job.data)
        results = list(run.results.all())
        self.assertEqual([r.name for r in results if r.status == 'failed'], [])
        for r in results:
            if r.status == 'not-verified':
                self.assertTrue(any(f in r.seen for f in KERNEL_FEATURES), f'{r.name}: {r.seen}')
        by_name = {r.name: r for r in results}
        for switch, peer, port in planned:
            result = by_name[f'bgp {switch} -> {peer} {port} (uplink, unnumbered)']
            self.assertEqual(result.status, 'passed')
            self.assertRegex(result.seen, r'^Established, .* on fe80::[0-9a-f:]+ \(link-local\)')
            self.assertIn(f'router id {switches[peer]["router_id"]}', result.seen)
        overlay = [r for r in results if r.name.endswith('(evpn)')]
        evpn_peers = sum(len(c['bgp']['evpn_peers']) for c in switches.values())
        self.assertEqual((len(overlay), {r.status for r in overlay}), (evpn_peers, {'passed'}))
        pings = [r for r in results if 'ping' in r.name]
        self.assertTrue(pings and {r.status for r in pings} == {'passed'})
        self.assertIsNotNone(run.convergence_seconds)

    def test_negative_control_one_uplink_neighbour_removed(self):
        leaf1 = Device.objects.get(name=f'{self.fabric.slug}-leaf1')
        context = leaf1.get_config_context()
        neighbors = context['aifabric']['bgp']['neighbors']
        removed = next(n for n in neighbors if n['kind'] == 'uplink')
        context['aifabric']['bgp']['neighbors'] = [n for n in neighbors if n is not removed]
        leaf1.local_context_data = context
        leaf1.save()
        spine = removed['peer']
        back = next(port for switch, peer, port in uplinks(contexts_of(self.fabric)) if (switch, peer) == (spine,
                    leaf1.name))  # fmt: skip
        job, run = self.run_lab(timeout=15)
        self.assertEqual((job.status, run.status), ('failed', 'failed'))
        failed = sorted(run.results.filter(status='failed').values_list('name', flat=True))
        self.assertIn(f'bgp {spine} -> {leaf1.name} {back} (uplink, unnumbered)', failed)
        self.assertIn('convergence', failed)
        rid = contexts_of(self.fabric)[spine]['router_id']
        self.assertIn(f'route {leaf1.name} -> {spine} {rid}/32', failed)
        # every failure is that link's: between leaf1 and the spine (the overlay session rides on it), or convergence
        pair = re.compile(rf'.*\b({re.escape(leaf1.name)}\b.*\b{re.escape(spine)}|{re.escape(spine)}\b.*'
                          rf'\b{re.escape(leaf1.name)})\b.*')  # fmt: skip
        self.assertEqual([name for name in failed if name != 'convergence' and not pair.fullmatch(name)], [])
