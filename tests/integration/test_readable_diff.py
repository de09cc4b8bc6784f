"""The diff a person reads: verbose type names, per-type rows that expand to the objects with their links
and "old → new" field changes, no Python reprs, and a new device's own attributes (primary IPv4, context) counted
with its creation instead of as updates of a device that does not exist yet. Every object on a device is named with
it ("leaf1 › Ethernet8"), a cable by its two ends, and a device's context update lists what changed per section,
old → new, instead of "set → the plan's context"."""

import re

import pytest
from django.urls import reverse

from dcim.models import Device, Interface
from utilities.testing import TestCase

from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.permissions import HIDDEN
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric
from netbox_aifabric.ui.context_diff import MAX_LINES
from netbox_aifabric.ui.diff import readable_diff
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

PYTHON_REPR = re.compile(r"\{'|': None|\[\]|<[A-Z]\w+: ")  # a dict, None in a dict, an empty list, a model repr
CONTEXT = 'config context (aifabric)'


def diff_of(response):
    return response.content.decode().split('id="apply-diff"')[1].split('id="apply-diff-end"')[0]


class ReadableDiffTestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_fabric', 'dcim.view_interface', 'dcim.view_device']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def plan_tab(self):
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk}))
        self.assertHttpStatus(response, 200)
        return response

    def test_before_the_first_apply_devices_are_created_not_updated(self):
        groups = {g.label: g for g in readable_diff(diff_fabric(self.fabric)[1])}
        devices = groups['dcim.device']
        self.assertEqual(devices.verbose_name, 'Devices')
        self.assertEqual(devices.counts['create'], self.fabric.nodes.count())
        self.assertEqual(devices.counts['update'], 0)  # primary IPv4 and context belong to the creation
        self.assertEqual(sorted(r.name for r in devices.rows), sorted(n.name for n in self.fabric.nodes.all()))

        response = self.plan_tab()
        diff = response.content.decode().split('id="apply-diff"')[1].split('id="apply-diff-end"')[0]
        self.assertNotRegex(diff, PYTHON_REPR)
        self.assertIn('data-model="dcim.device"', diff)
        self.assertIn('>Devices</a>', response.content.decode())

    def test_an_update_shows_old_and_new_with_a_link(self):
        apply_fabric(self.fabric)
        old, new = self.fabric.mtu, self.fabric.mtu - 216
        Fabric.objects.filter(pk=self.fabric.pk).update(mtu=new)
        self.fabric.refresh_from_db()
        groups = {g.label: g for g in readable_diff(diff_fabric(self.fabric)[1])}
        interfaces = groups['dcim.interface']
        changed = Interface.objects.filter(device__name__startswith=f'{self.fabric.slug}-', mtu=old)
        self.assertEqual(interfaces.counts['update'], changed.count())
        row = interfaces.rows[0]
        self.assertIn(('MTU', str(old), str(new)), row.fields)
        self.assertTrue(row.url.startswith('/dcim/interfaces/'))
        # the devices themselves are updated once each (their context), not once per attribute
        devices = groups['dcim.device']
        self.assertEqual(
            devices.counts['update'] + devices.counts['keep'],
            Device.objects.filter(name__startswith=f'{self.fabric.slug}-').count(),
        )

        body = self.plan_tab().content.decode()
        self.assertIn(
            f'<td class="font-monospace text-muted">{old}</td><td>→</td><td class="font-monospace">{new}</td>', body
        )
        self.assertIn(f'href="{row.url}"', body)
        self.assertNotRegex(body.split('id="apply-diff"')[1].split('id="apply-diff-end"')[0], PYTHON_REPR)

    def test_objects_on_a_device_are_named_with_it(self):
        changes = {c.key: c for c in diff_fabric(self.fabric)[1]}
        interfaces = [c for c in changes.values() if c.model == 'dcim.interface']
        self.assertTrue(interfaces)
        for change in interfaces:  # the key names the device and the interface: interface:<device>:<name>
            device, name = change.key.split(':', 2)[1:]
            self.assertEqual((change.device, change.label), (device, f'{device} › {name}'))
            self.assertEqual(change.to_dict()['label'], f'{device} › {name}')
        # an address on an interface: the interface's label, then the address
        on_interfaces = [c for c in changes.values() if c.model == 'ipam.ipaddress' and c.where]
        self.assertTrue(on_interfaces)
        for change in on_interfaces:
            self.assertIn(change.where, {c.label for c in interfaces})
            self.assertEqual(change.label, f'{change.where} › {change.object}')
        cables = [c for c in changes.values() if c.model == 'dcim.cable']
        self.assertTrue(cables)
        for change in cables:  # cable:<a device>:<a interface>:<b device>:<b interface>
            a, a_port, b, b_port = change.key.split(':')[1:]
            self.assertEqual(change.label, f'{a} › {a_port} ↔ {b} › {b_port}')
        fabric_wide = [c for c in changes.values() if c.model in ('ipam.vlan', 'ipam.prefix', 'ipam.asn')]
        self.assertTrue(fabric_wide)
        self.assertFalse([c for c in fabric_wide if c.device or c.label != c.object])

        diff = diff_of(self.plan_tab())
        for change in interfaces + cables:
            self.assertIn(f'<td>{change.label}</td>', diff)

    def test_after_the_apply_updates_and_deletions_name_the_device(self):
        apply_fabric(self.fabric)
        interface = Interface.objects.filter(device__name=f'{self.fabric.slug}-leaf1', cable__isnull=False).first()
        Interface.objects.filter(pk=interface.pk).update(mtu=1234)
        groups = {g.label: g for g in readable_diff(diff_fabric(self.fabric)[1])}
        (row,) = groups['dcim.interface'].rows
        device = str(interface.device)
        self.assertEqual((row.action, row.name, row.device), ('update', f'{device} › {interface}', device))
        # an address the plan no longer has, deleted: named on its interface's device when it is an interface
        self.fabric.nodes.filter(role='gpu', node_id=4).delete()
        Fabric.objects.filter(pk=self.fabric.pk).update(server_count=self.fabric.server_count - 1)
        self.fabric.refresh_from_db()
        deleted = [c for c in diff_fabric(self.fabric, confirm_delete=True)[1] if c.action == 'delete']
        gone = [c for c in deleted if c.model == 'dcim.interface']
        self.assertTrue(gone)
        for change in gone:
            device, name = change.key.split(':', 2)[1:]
            self.assertEqual(change.label, f'{device} › {name}')
        self.assertTrue([c for c in deleted if c.model in ('dcim.device', 'ipam.ipaddress', 'dcim.cable')])

    def test_a_context_update_lists_its_sections_old_to_new(self):
        apply_fabric(self.fabric)
        old, new = self.fabric.mtu, self.fabric.mtu - 216
        Fabric.objects.filter(pk=self.fabric.pk).update(mtu=new)
        self.fabric.refresh_from_db()
        groups = {g.label: g for g in readable_diff(diff_fabric(self.fabric)[1])}
        devices = {r.name: r for r in groups['dcim.device'].rows}
        leaf = Device.objects.get(name=f'{self.fabric.slug}-leaf1')
        fields = devices[leaf.name].fields
        # the fabric's MTU is in the context's fabric section: one line, old → new
        self.assertIn((f'{CONTEXT} › fabric.mtu', str(old), str(new)), fields)
        self.assertNotIn("the plan's context", [new for _label, _old, new in fields])
        # every interface of the context at the fabric MTU changes: the first MAX_LINES, then the count of the rest
        at_old = [i['name'] for i in leaf.local_context_data['aifabric']['interfaces'] if i['mtu'] == old]
        shown = [label for label, *_ in fields if label.startswith(f'{CONTEXT} › interfaces[')]
        self.assertEqual(shown, [f'{CONTEXT} › interfaces[{name}].mtu' for name in at_old[:MAX_LINES]])
        self.assertGreater(len(at_old), MAX_LINES)  # the demo's leaves have more: the cap shows
        self.assertIn((f'{CONTEXT} › interfaces', '', f'… {len(at_old) - MAX_LINES} more'), fields)

        diff = diff_of(self.plan_tab())
        self.assertIn(f'<td>{CONTEXT} › fabric.mtu</td><td class="font-monospace text-muted">{old}</td>', diff)
        self.assertNotIn('the plan&#x27;s context', diff)
        self.assertNotRegex(diff, PYTHON_REPR)

    def test_a_hand_edited_context_that_is_no_mapping_shows_as_before(self):
        apply_fabric(self.fabric)
        leaf = Device.objects.get(name=f'{self.fabric.slug}-leaf1')
        Device.objects.filter(pk=leaf.pk).update(local_context_data={'aifabric': 'edited by hand'})
        groups = {g.label: g for g in readable_diff(diff_fabric(self.fabric)[1])}
        (row,) = groups['dcim.device'].rows
        self.assertEqual((row.name, row.fields), (leaf.name, [(CONTEXT, 'set', "the plan's context")]))

    def test_objects_the_user_may_not_view_keep_their_names_hidden(self):
        apply_fabric(self.fabric)
        Interface.objects.filter(device__name=f'{self.fabric.slug}-leaf1').update(mtu=1234)
        self.remove_permissions('dcim.view_interface')
        groups = {g.label: g for g in self.plan_tab().context['diff_groups']}
        rows = groups['dcim.interface'].rows
        self.assertTrue(rows)
        self.assertEqual({(r.name, tuple(r.fields)) for r in rows}, {(HIDDEN, ())})


class WizardPreviewTestCase(WizardBase):
    def test_the_preview_names_objects_and_addresses(self):
        self.walk()
        response = self.client.get(url('preview'))
        self.assertEqual(response.status_code, 200)
        plan = response.context['plan']
        body = response.content.decode()
        self.assertIn('id="wizard-topology"', body)
        self.assertIn('<svg', body.split('id="wizard-topology"')[1])
        self.assertIn('id="allocations-nodes"', body)
        for node in plan.nodes:  # every switch by name with its loopback
            self.assertIn(f'<td>{node.name}</td>', body)
            self.assertIn(str(node.loopback), body)
        links = [link for link in plan.links if link.subnet]
        self.assertTrue(links)
        self.assertIn(str(links[0].subnet), body)
        groups = {g.label: g for g in response.context['diff_groups']}
        devices = {r.name for r in groups['dcim.device'].rows}
        shape = self.steps['topology']
        counts = ('spine_count', 'leaf_count', 'server_count', 'storage_count')
        self.assertEqual(len(devices), sum(shape[c] for c in counts))
        self.assertLessEqual({n.name for n in plan.nodes}, devices)
