"""Hardware from NetBox: the shipped device types load idempotently (counts from their YAML files), a fabric's leaf and
spine device types give the plan, the devices and the contexts their real port names (by the documented default or
the fabric's port map), and a device type with too few ports is a named error at plan time."""

import io
import json
import re
from collections import Counter

import pytest
import yaml
from django.core.exceptions import ValidationError
from django.core.management import call_command

from dcim.models import ConsolePortTemplate, Device, DeviceType, Interface, InterfaceTemplate, Manufacturer
from utilities.testing import TestCase

from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.facts.catalog import device_type_seed
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import PlanError
from tests.unit.templates.helpers import render
from tests.unit.templates.sonic_refs import violations as reference_violations
from tests.unit.templates.sonic_yang import violations
from tests.unit.test_device_types import DATASHEET

pytestmark = pytest.mark.netbox

LEAF, SPINE = 'arista-dcs-7050sx3-48yc8', 'arista-dcs-7060cx-32s'


def load(**kwargs):
    out = io.StringIO()
    call_command('aifabric_load_device_types', stdout=out, **kwargs)
    return out.getvalue()


def seed_names(slug, mgmt=False):
    entry = next(e for e in device_type_seed() if e['slug'] == slug)
    return [i['name'] for i in entry['interfaces'] if bool(i.get('mgmt_only')) == mgmt]


def ports(plan, kind, role):
    """The interfaces the plan's links of ``kind`` use on switches of ``role``."""
    roles = {n.name: n.role for n in plan.nodes}
    return {
        interface
        for link in plan.links
        if link.kind == kind
        for node, interface in ((link.a_node, link.a_interface), (link.b_node, link.b_interface))
        if roles.get(node) == role
    }


class LoadDeviceTypesTestCase(TestCase):
    def test_load_is_idempotent_and_counts_follow_the_yaml(self):
        seed = device_type_seed()
        templates = sum(len(e['interfaces']) for e in seed)
        consoles = sum(len(e.get('console-ports', ())) for e in seed)
        manufacturers = {e['manufacturer'] for e in seed}
        first = load()
        self.assertEqual(DeviceType.objects.count(), len(seed))
        self.assertEqual(InterfaceTemplate.objects.count(), templates)
        self.assertEqual(ConsolePortTemplate.objects.count(), consoles)
        self.assertEqual(Manufacturer.objects.count(), len(manufacturers))
        self.assertIn(f'interface templates: {templates} created', first)
        self.assertIn(f'console-port templates: {consoles} created', first)
        for entry in seed:
            device_type = DeviceType.objects.get(slug=entry['slug'])
            self.assertEqual(device_type.model, entry['model'])
            # NetBox holds the datasheet facts (tests/unit/test_device_types.py): part number, ports per type
            part_number, data_ports, management, console_ports = DATASHEET[entry['slug']]
            self.assertEqual(device_type.part_number, part_number)
            per_type = Counter(device_type.interfacetemplates.filter(mgmt_only=False).values_list('type', flat=True))
            self.assertEqual(per_type, data_ports)
            self.assertEqual(device_type.consoleporttemplates.count(), console_ports)
            mgmt = {i['name'] for i in entry['interfaces'] if i.get('mgmt_only')}
            self.assertTrue(mgmt, f'{entry["slug"]} has a management port')
            self.assertEqual(
                set(device_type.interfacetemplates.filter(mgmt_only=True).values_list('name', flat=True)), mgmt
            )
        second = load()
        self.assertNotIn('created', second)
        self.assertIn(f'interface templates: {templates} present', second)
        self.assertEqual(InterfaceTemplate.objects.count(), templates)
        # an edited device type is kept, then reset with --force
        DeviceType.objects.filter(slug=LEAF).update(comments='local')
        self.assertIn('edited locally, kept', load())
        self.assertIn('reset to shipped values', load(force=True))


class HardwareFabricBase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        load()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def use_hardware(self, save=True, **changes):
        fabric = Fabric.objects.get(pk=self.fabric.pk)
        for role, default in (('leaf', LEAF), ('spine', SPINE)):
            slug = changes.pop(role, default)
            setattr(fabric, f'{role}_device_type', DeviceType.objects.get(slug=slug) if slug else None)
        # what a 48x25G + 8x100G leaf can hold: 2 spines x 1 uplink and the peer link leave 4 RDMA ports at 100G,
        # for the RDMA NICs that land on each leaf (the guide's cluster, its storage node included: 3 + 2)
        values = {'max_spines': 2, 'max_parallel_uplinks': 1, **changes}
        for name, value in values.items():
            setattr(fabric, name, value)
        if save:
            fabric.full_clean()
            fabric.save()
        return fabric


class HardwarePortsTestCase(HardwareFabricBase):
    def test_real_port_names_land_in_the_plan_the_devices_and_the_contexts(self):
        fabric = self.use_hardware()
        plan = plan_of(fabric)
        leaf_ports, spine_ports = seed_names(LEAF), seed_names(SPINE)
        switch_names = {n.name: n.role for n in plan.nodes}
        used = {}
        for link in plan.links:
            for node, interface in ((link.a_node, link.a_interface), (link.b_node, link.b_interface)):
                if node in switch_names:
                    used.setdefault(switch_names[node], set()).add(interface)
                    self.assertIn(interface, leaf_ports if switch_names[node] == 'leaf' else spine_ports)
        # the documented default: the peer link the last two 100G ports, the uplinks the two before, RDMA the rest
        self.assertEqual(ports(plan, 'uplink', 'leaf'), {'Ethernet53/1', 'Ethernet54/1'})
        self.assertEqual(ports(plan, 'uplink', 'spine'), {'Ethernet1/1', 'Ethernet2/1'})
        self.assertEqual(ports(plan, 'mlag-peer', 'leaf'), {'Ethernet55/1', 'Ethernet56/1'})
        rdma = ports(plan, 'rdma', 'leaf')
        self.assertTrue(rdma and rdma <= {'Ethernet49/1', 'Ethernet50/1', 'Ethernet51/1', 'Ethernet52/1'}, rdma)
        servers = ports(plan, 'server', 'leaf')
        self.assertTrue(servers and servers <= {f'Ethernet{i}' for i in range(1, 49)}, servers)

        apply_fabric(fabric)
        leaf = Device.objects.get(name='ai-lab-fabric-leaf1')
        self.assertEqual(leaf.device_type.slug, LEAF)
        names = set(leaf.interfaces.values_list('name', flat=True))
        # the apply took over the template interfaces: no port twice, none invented
        physical = names - {'Loopback0', 'Loopback1', 'Port-Channel1000'} - {n for n in names if n.startswith('Port')}
        self.assertEqual(physical, set(leaf_ports) | {'Management1'})
        self.assertTrue(Interface.objects.get(device=leaf, name='Ethernet53/1').cable)
        self.assertEqual(Interface.objects.get(device=leaf, name='Ethernet53/1').type, '100gbase-x-qsfp28')
        self.assertTrue(Interface.objects.get(device=leaf, name='Management1').mgmt_only)
        self.assertEqual(str(leaf.oob_ip.assigned_object.name), 'Management1')
        context = leaf.get_config_context()['aifabric']
        text = repr(context)
        for name in ('Ethernet53/1', 'Ethernet55/1', 'Ethernet49/1'):
            self.assertIn(name, text)
        self.assertNotIn("'Ethernet57'", text)
        spine = Device.objects.get(name='ai-lab-fabric-spine1')
        self.assertEqual(
            set(spine.interfaces.filter(cable__isnull=False).values_list('name', flat=True)),
            {'Ethernet1/1', 'Ethernet2/1'},
        )
        # a second apply changes nothing
        _, changes = diff_fabric(fabric)
        self.assertEqual([c for c in changes if c.action not in ('keep', 'use')], [])

    def test_the_interface_templates_are_read_once_per_role_for_plan_and_contexts(self):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from netbox_aifabric.facts.context import build_contexts
        from netbox_aifabric.intake.intent import intent_of

        fabric = self.use_hardware()
        fabric = Fabric.objects.get(pk=fabric.pk)  # a fresh instance, as a request loads it
        with CaptureQueriesContext(connection) as queries:
            build_contexts(plan_of(fabric), intent_of(fabric))
        reads = [q['sql'] for q in queries if 'FROM "dcim_interfacetemplate"' in q['sql']]
        self.assertEqual(len(reads), 2, reads)  # one per role with a device type: the leaf's and the spine's

    def test_a_stated_port_map_wins(self):
        fabric = self.use_hardware(
            port_map={'leaf': {'uplink': ['Ethernet49/1..Ethernet50/1'], 'server': ['Ethernet25..Ethernet48']}}
        )
        plan = plan_of(fabric)
        self.assertEqual(ports(plan, 'uplink', 'leaf'), {'Ethernet49/1', 'Ethernet50/1'})
        servers = ports(plan, 'server', 'leaf')
        self.assertTrue(servers and servers <= {f'Ethernet{i}' for i in range(25, 49)}, servers)
        rdma = ports(plan, 'rdma', 'leaf')
        self.assertTrue(rdma and rdma <= {'Ethernet51/1', 'Ethernet52/1', 'Ethernet53/1', 'Ethernet54/1'}, rdma)

    def test_other_nos_families_name_their_ports(self):
        for leaf, spine, uplink, downlink in (
            ('msn2410-bb2fc', 'sn2700', 'swp53', 'swp1'),
            ('arista-dcs-7050sx3-48yc8-sonic', '7726-32x-o', 'Ethernet64', 'Ethernet0'),
        ):
            with self.subTest(leaf=leaf):
                plan = plan_of(self.use_hardware(leaf=leaf, spine=spine))
                self.assertIn(uplink, ports(plan, 'uplink', 'leaf'))
                self.assertIn(downlink, ports(plan, 'uplink', 'spine'))


class RenderedPortNamesTestCase(HardwareFabricBase):
    """The demo (the guide's cluster) on each NOS family's shipped device types: every physical port a NOS template
    configures is a port of the switch's device type, and exactly the ports the apply cabled; SONiC's config_db
    passes the sonic-port.yang map in full (lanes included)."""

    @staticmethod
    def configured_ports(template, text):
        if template.startswith('eos/'):
            return set(re.findall(r'^interface (Ethernet\S+)$', text, re.M))
        if template.startswith('cumulus/'):
            names = yaml.safe_load(text)[0]['set']['interface']
            return {name for name in names if re.fullmatch(r'swp\d+(s\d+)?', name)}
        if template.startswith('sonic/'):
            return set(json.loads(text)['PORT'])
        return set(re.findall(r'^interface (Ethernet\d+)$', text, re.M))

    def check(self, template, leaf, spine):
        fabric = self.use_hardware(leaf=leaf, spine=spine)
        apply_fabric(fabric)
        switches = Device.objects.filter(name__in=[n.name for n in plan_of(fabric).nodes])
        self.assertEqual(switches.count(), len(plan_of(fabric).nodes))
        for device in switches:
            text = render(template, device.get_config_context()['aifabric'])
            configured = self.configured_ports(template, text)
            hardware = set(device.device_type.interfacetemplates.values_list('name', flat=True))
            cabled = set(device.interfaces.filter(cable__isnull=False).values_list('name', flat=True))
            self.assertLessEqual(configured, hardware, device.name)
            if template.startswith('frr/'):
                # FRR names only the ports OSPF or EVPN-MH run on (none with this eBGP underlay: addresses live in
                # SONiC's config_db), so a subset of the cabled ones
                self.assertLessEqual(configured, cabled, device.name)
            else:
                self.assertEqual(configured, cabled, device.name)
                self.assertTrue(configured, device.name)
            if template.startswith('sonic/'):
                db = json.loads(text)
                self.assertEqual(violations(db), [], device.name)
                # every YANG reference resolves (sonic_refs.py), the buffer chain included: the shipped device types
                # carry the platform facts (hwsku, buffer) through a real apply
                self.assertEqual(reference_violations(db), [], device.name)
                self.assertIn('BUFFER_PROFILE', db, device.name)
                self.assertTrue(db['DEVICE_METADATA']['localhost']['hwsku'], device.name)

    def test_eos_on_arista(self):
        self.check('eos/eos.cfg.j2', LEAF, SPINE)

    def test_nvue_on_nvidia(self):
        self.check('cumulus/startup.yaml.j2', 'msn2410-bb2fc', 'sn2700')

    def test_sonic_on_sonic_platforms(self):
        self.check('sonic/config_db.json.j2', 'arista-dcs-7050sx3-48yc8-sonic', '7726-32x-o')

    def test_frr_on_sonic_platforms(self):
        self.check('frr/frr.conf.j2', 'arista-dcs-7050sx3-48yc8-sonic', '7726-32x-o')

    def test_a_32x100g_leaf_with_breakouts_for_25g_servers(self):
        """SN2700 leaves (32x100G) with swp1-swp8 broken out 4x25G: the servers' 25G NICs land on the lane ports,
        which the apply creates on the device and cables, and NVUE breaks out exactly those parents."""
        fabric = self.use_hardware(leaf='sn2700', spine='sn2700', port_map={'leaf': {'breakout': ['swp1..swp8:4x25G']}})
        lanes = {f'swp{n}s{i}' for n in range(1, 9) for i in range(4)}
        plan = plan_of(fabric)
        self.assertTrue(ports(plan, 'server', 'leaf'))
        self.assertLessEqual(ports(plan, 'server', 'leaf'), lanes)
        apply_fabric(fabric)
        leaf = Device.objects.get(name='ai-lab-fabric-leaf1')
        cabled = set(leaf.interfaces.filter(cable__isnull=False).values_list('name', flat=True))
        used_lanes = cabled & lanes
        self.assertEqual(used_lanes, ports(plan, 'server', 'leaf') & {i.name for i in leaf.interfaces.all()})
        self.assertEqual(Interface.objects.get(device=leaf, name=sorted(used_lanes)[0]).type, '25gbase-x-sfp28')
        text = render('cumulus/startup.yaml.j2', leaf.get_config_context()['aifabric'])
        interfaces = yaml.safe_load(text)[0]['set']['interface']
        parents = {name[: name.rindex('s')] for name in used_lanes}
        broken = {name for name, body in interfaces.items() if (body.get('link') or {}).get('breakout')}
        self.assertEqual(broken, parents)
        for parent in parents:
            self.assertEqual(interfaces[parent]['link']['breakout'], {'4x': {}})
        configured = {n for n in interfaces if re.fullmatch(r'swp\d+(s\d+)?', n)} - parents
        self.assertEqual(configured, cabled)

    def test_sonic_breakouts_split_the_lanes(self):
        """A 7726-32X-O leaf with Ethernet0-Ethernet28 broken out 4x25G: each lane port is named by its first lane,
        carries one of the parent's lanes, and the config_db passes the YANG map with BREAKOUT_CFG per parent."""
        fabric = self.use_hardware(
            leaf='7726-32x-o', spine='7726-32x-o', port_map={'leaf': {'breakout': ['Ethernet0..Ethernet28:4x25G']}}
        )
        apply_fabric(fabric)
        leaf = Device.objects.get(name='ai-lab-fabric-leaf1')
        db = json.loads(render('sonic/config_db.json.j2', leaf.get_config_context()['aifabric']))
        self.assertEqual(violations(db), [])
        lane_ports = {name: port for name, port in db['PORT'].items() if port['speed'] == '25000'}
        self.assertTrue(lane_ports)
        parent_lanes = {f'Ethernet{4 * i}': {str(4 * i + k) for k in range(1, 5)} for i in range(8)}  # port_config.ini
        for name, port in lane_ports.items():
            number = int(name.removeprefix('Ethernet'))
            parent = f'Ethernet{number - number % 4}'
            self.assertEqual(port['lanes'], str(number + 1))  # lane numbers start at 1, port names at 0
            self.assertIn(port['lanes'], parent_lanes[parent])
            self.assertEqual(db['BREAKOUT_CFG'][parent], {'brkout_mode': '4x25G'})
            # platform.json of the AS7726-32X: front-panel port P in 4x25G is EthP/1(PortP) .. EthP/4(PortP)
            front, lane = number // 4 + 1, number % 4 + 1
            self.assertEqual(port['alias'], f'Eth{front}/{lane}(Port{front})')


class HardwareErrorsTestCase(HardwareFabricBase):
    def use_hardware(self, **changes):
        return super().use_hardware(save=False, **changes)

    def assertPlanError(self, fabric, field, *parts):
        """The planner refuses ``fabric`` naming ``field``, and so does its save, with the planner's message on the
        port map (nothing written)."""
        with self.assertRaises(PlanError) as caught:
            plan_of(fabric)
        self.assertEqual(caught.exception.field, field)
        for part in parts:
            self.assertIn(part, caught.exception.message)
        with self.assertRaises(ValidationError) as refused:
            fabric.full_clean()
        self.assertEqual(refused.exception.message_dict['port_map'], [caught.exception.message])
        return caught.exception

    def test_too_few_uplink_ports(self):
        # the demo's maximums (4 spines x 2 parallel uplinks) ask for 8 uplinks; the peer link took 2 of the 8 100G
        fabric = self.use_hardware(max_spines=4, max_parallel_uplinks=2)
        self.assertPlanError(
            fabric, 'port_map.leaf.uplink', 'DCS-7050SX3-48YC8', '6 free ports at 100G', '8 needed', 'max spines 4'
        )

    def test_too_few_rdma_ports_for_the_servers_on_a_leaf(self):
        # 8 GPU servers and the storage node: gpu1, 3, 5, 7 and storage1 land their RDMA NICs on leaf1
        fabric = self.use_hardware(server_count=8)
        self.assertPlanError(fabric, 'port_map.leaf.rdma', 'leaf1 needs 5 RDMA ports at 100G', 'has 4 for them')

    def test_too_few_downlinks_on_the_spine(self):
        # 8 leaves x 5 parallel uplinks need 40 of the spine's 32 100G ports (the leaves stay generic)
        fabric = self.use_hardware(leaf=None, max_parallel_uplinks=5)
        self.assertPlanError(fabric, 'port_map.spine.downlink', 'DCS-7060CX-32S', '32 free ports at 100G', '40 needed')

    def test_a_port_map_naming_a_port_the_device_type_lacks(self):
        fabric = self.use_hardware(port_map={'leaf': {'uplink': ['Ethernet57/1']}})
        self.assertPlanError(fabric, 'port_map.leaf.uplink', 'Ethernet57/1 is not a port of the device type')

    def test_a_port_map_with_a_port_at_the_wrong_speed(self):
        fabric = self.use_hardware(port_map={'leaf': {'uplink': ['Ethernet1', 'Ethernet2']}})
        self.assertPlanError(fabric, 'port_map.leaf.uplink', 'Ethernet1 runs 25G', 'at 100G')

    def test_the_port_map_shape_is_validated_on_save(self):
        from django.core.exceptions import ValidationError

        fabric = Fabric.objects.get(pk=self.fabric.pk)
        fabric.port_map = {'leaf': {'uplinks': ['Ethernet49/1']}, 'core': {}}
        with self.assertRaises(ValidationError) as caught:
            fabric.full_clean()
        message = ' '.join(caught.exception.message_dict['port_map'])
        self.assertIn('leaf.uplinks: unknown use', message)
        self.assertIn('unknown role "core"', message)
