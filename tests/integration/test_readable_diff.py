"""The diff a person reads: verbose type names, per-type rows that expand to the objects with their links
and "old → new" field changes, no Python reprs, and a new device's own attributes (primary IPv4, context) counted
with its creation instead of as updates of a device that does not exist yet."""

import re

import pytest
from django.urls import reverse

from dcim.models import Device, Interface
from utilities.testing import TestCase

from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric
from netbox_aifabric.ui.diff import readable_diff
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

PYTHON_REPR = re.compile(r"\{'|': None|\[\]|<[A-Z]\w+: ")  # a dict, None in a dict, an empty list, a model repr


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
