"""The management network in NetBox: a fabric that chooses a management switch type gets the management switch, a
cable from each server BMC and each switch management port to it, and the BMC addresses in the MGMT class's subnet
(the jump-host subnet kept free); its BOM on the shipped device types is the guide's "Balanced" with the management
switch and the part numbers. A fabric without one creates none, and its BOM still lists one, not planned."""

import io

import netaddr
import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from dcim.models import Cable, Device, DeviceType, Interface
from utilities.testing import TestCase

from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.intake.traffic import fabric_bom
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import PlanError

pytestmark = pytest.mark.netbox

LEAF, SPINE, OOB = 'arista-dcs-7050sx3-48yc8', 'arista-dcs-7060cx-32s', 'arista-dcs-7010tx-48'


class ManagementNetworkTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        call_command('aifabric_load_device_types', stdout=io.StringIO())
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def fabric_with(self, management=OOB, **changes):
        fabric = Fabric.objects.get(pk=self.fabric.pk)
        fabric.leaf_device_type = DeviceType.objects.get(slug=LEAF)
        fabric.spine_device_type = DeviceType.objects.get(slug=SPINE)
        fabric.management_device_type = DeviceType.objects.get(slug=management) if management else None
        # what a 48x25G + 8x100G leaf holds today: 2 spines x 1 uplink and the peer link leave 4 RDMA ports
        for name, value in {'max_spines': 2, 'max_parallel_uplinks': 1, 'storage_count': 0, **changes}.items():
            setattr(fabric, name, value)
        fabric.full_clean()
        fabric.save()
        return fabric

    def test_the_apply_creates_the_management_switch_and_every_cable(self):
        fabric = self.fabric_with()
        plan = plan_of(fabric)
        servers = [a.server for a in plan.attachments]
        switches = list(plan.nodes)
        self.assertEqual(len(plan.oob.links), len(servers) + len(switches))
        apply_fabric(fabric)
        oob = Device.objects.get(site=fabric.site, name='ai-lab-fabric-oob1')
        self.assertEqual(oob.device_type.slug, OOB)
        self.assertEqual(oob.status, 'planned')
        mgmt = netaddr.IPNetwork(fabric.traffic_classes.get(purpose='management').prefix.prefix)
        jump_hosts = netaddr.IPNetwork(str(fabric.jump_host_prefix.prefix))
        for name in servers:
            bmc = Interface.objects.get(device__name=name, name='bmc')
            self.assertTrue(bmc.mgmt_only)
            peer = bmc.link_peers[0]
            self.assertEqual(peer.device, oob)
            self.assertIn(peer.name, [f'Ethernet{i}' for i in range(1, 49)])
            address = Device.objects.get(name=name).oob_ip
            self.assertIsNotNone(address, name)
            self.assertIn(address.address.ip, mgmt)
            self.assertNotIn(address.address.ip, jump_hosts)
        for node in switches:
            port = Interface.objects.get(device__name=node.name, name='Management1')
            self.assertEqual(port.link_peers[0].device, oob)
        ends = [(c.a_terminations[0].device.name, c.a_terminations[0].name) for c in Cable.objects.all()]
        self.assertEqual(len(ends), len(set(ends)))  # no port cabled twice
        # once applied, nothing changes on the next diff
        _plan, changes = diff_fabric(Fabric.objects.get(pk=fabric.pk))
        self.assertEqual([c for c in changes if c.action in ('create', 'update', 'delete')], [])

    def test_the_guides_cluster_bom_is_balanced_with_a_management_switch_and_part_numbers(self):
        fabric = self.fabric_with()
        bom = fabric_bom(fabric)
        self.assertEqual(bom.tier.name, 'Balanced')
        by_item = {line.item: line for line in bom.lines}
        management = by_item['Management switch (out of band): Arista DCS-7010TX-48']
        self.assertEqual((management.quantity, management.part_number), (1, 'DCS-7010TX-48'))
        self.assertIn('planned: the apply creates it', management.note)
        leaf = by_item['Leaf switch (top of rack): Arista DCS-7050SX3-48YC8']
        self.assertEqual(leaf.part_number, 'DCS-7050SX3-48YC8')
        self.assertEqual(by_item['Spine switch: Arista DCS-7060CX-32S'].part_number, 'DCS-7060CX-32S')
        self.assertIn('100GBASE-SR4 QSFP28 optic', by_item)

    def test_without_a_management_switch_type_none_is_created_but_the_bom_lists_one(self):
        fabric = self.fabric_with(management=None)
        self.assertIsNone(plan_of(fabric).oob)
        apply_fabric(fabric)
        self.assertFalse(Device.objects.filter(name__startswith='ai-lab-fabric-oob').exists())
        line = next(line for line in fabric_bom(fabric).lines if line.item.startswith('Management switch'))
        self.assertIn('not planned', line.note)

    def test_a_management_type_without_copper_ports_is_refused_at_save_by_name(self):
        fabric = Fabric.objects.get(pk=self.fabric.pk)
        fabric.management_device_type = DeviceType.objects.get(slug=SPINE)  # 32x100G: no 1000BASE-T port
        with self.assertRaises(ValidationError) as error:
            fabric.full_clean()
        self.assertIn('has no 1000BASE-T ports', str(error.exception.message_dict['management_device_type']))
        self.assertIsNone(Fabric.objects.get(pk=fabric.pk).management_device_type)  # nothing written
        with self.assertRaises(PlanError) as planned:  # and the planner names it the same way
            plan_of(fabric)
        self.assertEqual(planned.exception.field, 'management_device_type')

    def test_the_bom_tab_names_no_setting(self):
        fabric = self.fabric_with()
        self.user.is_superuser = True
        self.user.save()
        response = self.client.get(f'/plugins/aifabric/fabrics/{fabric.pk}/bom/')
        self.assertEqual(response.status_code, 200)
        text = response.content.decode()
        self.assertIn('DCS-7010TX-48', text)
        self.assertIn('What decided it', text)
        for internal in ('bom_reach', 'rack-to-rack', 'same-rack', 'mlag-peer'):
            self.assertNotIn(internal, text)
