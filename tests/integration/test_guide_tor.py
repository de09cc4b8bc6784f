"""The guide's own cluster on the hardware it implies: 4 GPU servers and a storage node, 2 x 25G bonded +
1 x 100G RDMA each, one leaf pair, two spines, planned on every shipped 48 x 25G + 8 x 100G ToR device type (EOS,
Cumulus, SONiC). An RDMA NIC takes a port on the leaf it lands on only: 3 + 2 RDMA ports, not 5 + 5. The plan is a
reviewed golden per device type; the counts and port names are derived from the input (the device type's YAML and
the fabric's nodes), never from the plan."""

import os
from collections import Counter
from pathlib import Path

import pytest

from dcim.models import DeviceType
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.facts.catalog import device_type_seed
from netbox_aifabric.facts.hardware import natural_key, type_speed
from netbox_aifabric.intake.cli import format_table
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.intake.spec import fabric_spec
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import fit_uplinks
from netbox_aifabric.planner.guide import GUIDE_SHAPE
from tests.integration.test_hardware import SPINE, load

pytestmark = pytest.mark.netbox

GOLDEN = Path(__file__).parent / 'golden'


def data_ports(entry):
    """``[(name, speed)]`` of a device type's YAML entry: its data interfaces in natural order."""
    ports = [(i['name'], type_speed(i['type'])) for i in entry['interfaces'] if not i.get('mgmt_only')]
    return sorted(((name, speed[0]) for name, speed in ports if speed), key=lambda p: natural_key(p[0]))


def guide_tors():
    """The shipped leaf device types with 48 ports at 25G and 8 at 100G, by slug."""
    tors = {}
    for entry in device_type_seed():
        ports = data_ports(entry)
        if Counter(speed for _, speed in ports) == {25: 48, 100: 8}:
            tors[entry['slug']] = ports
    return tors


TORS = guide_tors()


class GuideClusterOnTheToRTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        load()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_every_nos_has_a_guide_tor(self):
        self.assertGreaterEqual(len(TORS), 3, sorted(TORS))
        self.assertIn('arista-dcs-7050sx3-48yc8', TORS)

    def fabric_on(self, slug):
        fabric = Fabric.objects.get(pk=self.fabric.pk)
        fabric.leaf_device_type = DeviceType.objects.get(slug=slug)
        fabric.spine_device_type = DeviceType.objects.get(slug=SPINE)
        # the guide's cluster as it is (its storage node included); the maximums as fit_uplinks derives them
        ports = TORS[slug]
        fit = fit_uplinks([speed for _, speed in ports], GUIDE_SHAPE['uplink_speed'], rdma=3, rdma_speed=100)
        fabric.max_spines, fabric.max_parallel_uplinks = fit.spines, fit.parallel_uplinks
        self.assertEqual((fit.spines, fit.parallel_uplinks), (2, 1))
        self.assertEqual((fabric.spine_count, fabric.server_count, fabric.storage_count), (2, 4, 1))
        fabric.full_clean()
        fabric.save()
        return fabric

    def test_the_guide_cluster_plans_on_each_shipped_tor(self):
        for slug, ports in TORS.items():
            with self.subTest(slug):
                fabric = self.fabric_on(slug)
                spec = fabric_spec(fabric)
                plan = plan_of(fabric)
                hundred = [name for name, speed in ports if speed == 100]
                # the documented default split of the 8 x 100G: peer link the last two, uplinks the two before,
                # RDMA the first four
                rdma_block, uplinks, peer = hundred[:4], hundred[4:6], hundred[6:]
                leaf_ids = sorted(leaf.id for leaf in spec.leaves)
                names = {leaf.id: leaf.name for leaf in spec.leaves}
                expected = Counter(names[leaf_ids[(s.id - 1) % 2]] for s in spec.servers)  # alternating by id
                used = {}
                for link in plan.links:
                    if link.kind == 'rdma':
                        used.setdefault(link.a_node, []).append(link.a_interface)
                self.assertEqual(sorted(expected.values()), [2, 3])
                self.assertEqual({leaf: len(p) for leaf, p in used.items()}, dict(expected))
                for leaf, count in expected.items():
                    self.assertEqual(sorted(used[leaf], key=natural_key), rdma_block[:count])
                by_kind = {}
                for link in plan.links:
                    if link.kind in ('uplink', 'mlag-peer'):
                        node, port = (link.b_node, link.b_interface) if link.kind == 'uplink' else (None, None)
                        if link.kind == 'mlag-peer':
                            by_kind.setdefault('peer', set()).update({link.a_interface, link.b_interface})
                        else:
                            by_kind.setdefault('uplink', set()).add(port)
                self.assertEqual(by_kind, {'uplink': set(uplinks), 'peer': set(peer)})
                servers = {lk.a_interface for lk in plan.links if lk.kind == 'server'}
                self.assertLessEqual(servers, {name for name, speed in ports if speed == 25})
                self.assertEqual(len([lk for lk in plan.links if lk.kind == 'server']), 2 * len(spec.servers))
                text = format_table(plan)
                path = GOLDEN / f'guide-tor-{slug}.txt'
                if os.environ.get('UPDATE_GOLDEN'):
                    path.parent.mkdir(exist_ok=True)
                    path.write_text(text)
                self.assertEqual(text, path.read_text())

    def test_a_sixth_rdma_nic_on_leaf1_is_named(self):
        # 6 GPU servers and the storage node: leaf1 carries 4 RDMA NICs (gpu1, 3, 5, storage1) - still fits; 8
        # GPU servers put 5 on leaf1: one too many for the 4 RDMA ports, named with the leaf, the speed, the count
        fabric = self.fabric_on('arista-dcs-7050sx3-48yc8')
        fabric.server_count = 6
        fabric.full_clean()
        fabric.server_count = 8
        from django.core.exceptions import ValidationError

        with self.assertRaises(ValidationError) as caught:
            fabric.full_clean()
        message = caught.exception.message_dict['port_map'][0]
        self.assertIn('ai-lab-fabric-leaf1 needs 5 RDMA ports at 100G', message)
        self.assertIn('has 4 for them', message)
