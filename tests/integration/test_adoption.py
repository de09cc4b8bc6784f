"""Brownfield: existing devices adopted as fabric nodes keep their identity and the addresses that fit the pools;
addresses that do not fit are conflicts; adopted objects are released, never deleted."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test import TestCase
from django.urls import reverse

from core.models import ObjectChange
from dcim.models import Device, DeviceRole, DeviceType, Interface, Manufacturer, Site
from ipam.models import IPAddress
from users.models import User

from netbox_aifabric.apply.diff import ApplyConflictError, diff_fabric
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric, FabricNode, OwnedObject

pytestmark = pytest.mark.netbox


class AdoptionTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        manufacturer = Manufacturer.objects.create(name='Vendor', slug='vendor')
        cls.device_type = DeviceType.objects.create(manufacturer=manufacturer, model='TOR-32', slug='tor-32')
        cls.role = DeviceRole.objects.create(name='Existing ToR', slug='existing-tor')

    def existing_switch(self, name, loopback):
        device = Device.objects.create(name=name, site=self.fabric.site, device_type=self.device_type, role=self.role)
        lo = Interface.objects.create(device=device, name='Loopback0', type='virtual')
        uplink = Interface.objects.create(device=device, name='Ethernet97', type='100gbase-x-qsfp28', mtu=1500)
        address = IPAddress.objects.create(
            address=loopback,
            assigned_object_type=ContentType.objects.get_for_model(Interface),
            assigned_object_id=lo.pk,
        )
        return device, lo, uplink, address

    def adopt(self, role, node_id, device):
        node = FabricNode.objects.get(fabric=self.fabric, role=role, node_id=node_id)
        node.device = device
        node.full_clean()
        node.save()
        return node

    def test_adopted_leaf_keeps_its_identity_and_loopback(self):
        device, lo, uplink, address = self.existing_switch('rack1-tor-a', '10.255.0.77/32')
        node = self.adopt('leaf', 1, device)
        self.assertEqual(node.name, 'rack1-tor-a')

        plan, changes = diff_fabric(self.fabric)
        self.assertEqual(dict(plan.allocations)['loopback:leaf:1'], '10.255.0.77/32')
        adopted = {c.key: c for c in changes if c.action == 'adopt'}
        self.assertEqual(
            sorted(adopted),
            [
                'device:rack1-tor-a',
                'interface:rack1-tor-a:Ethernet97',
                'interface:rack1-tor-a:Loopback0',
                'ip:loopback:leaf:1',
            ],
        )
        self.assertEqual(adopted['interface:rack1-tor-a:Ethernet97'].fields['mtu'], 9216)

        apply_fabric(self.fabric)
        device.refresh_from_db()
        self.assertEqual((device.device_type, device.role), (self.device_type, self.role))  # not changed
        self.assertEqual(Device.objects.filter(site=self.fabric.site).count(), 9)  # 8 new + the adopted one
        self.assertFalse(Device.objects.filter(name='ai-lab-fabric-leaf1').exists())
        uplink.refresh_from_db()
        self.assertEqual(uplink.mtu, 9216)
        self.assertEqual([str(ip) for ip in uplink.ip_addresses.all()], ['10.255.2.1/31'])
        self.assertEqual(uplink.link_peers[0].device.name, 'ai-lab-fabric-spine1')
        self.assertEqual(IPAddress.objects.get(pk=address.pk).assigned_object, lo)
        self.assertEqual(Device.objects.get(pk=device.pk).primary_ip4_id, address.pk)
        records = OwnedObject.objects.filter(fabric=self.fabric, adopted=True)
        self.assertEqual(records.count(), 4)

        # a second apply writes nothing
        changes_before = ObjectChange.objects.count()
        apply_fabric(self.fabric)
        self.assertEqual(ObjectChange.objects.count(), changes_before)

    def test_adopted_objects_are_released_not_deleted(self):
        device = Device.objects.create(
            name='old-nas', site=self.fabric.site, device_type=self.device_type, role=self.role
        )
        nic = Interface.objects.create(device=device, name='nic1', type='25gbase-x-sfp28')
        self.adopt('storage', 1, device)
        apply_fabric(self.fabric)
        self.assertTrue(OwnedObject.objects.filter(key='interface:old-nas:nic1', adopted=True).exists())
        self.fabric.refresh_from_db()
        self.fabric.storage_count = 0
        self.fabric.save()
        _plan, changes = diff_fabric(self.fabric, confirm_delete=True)
        released = {c.key: c.reason for c in changes if c.action == 'delete'}
        self.assertEqual(released['device:old-nas'], 'released (adopted, not deleted)')
        apply_fabric(self.fabric, confirm_delete=True)
        self.assertTrue(Device.objects.filter(pk=device.pk).exists())
        self.assertTrue(Interface.objects.filter(pk=nic.pk).exists())
        self.assertFalse(Interface.objects.filter(device=device, name='bond0').exists())  # the fabric's own: gone
        self.assertFalse(OwnedObject.objects.filter(key__contains='old-nas').exists())

    def test_loopback_outside_the_pool_is_a_conflict(self):
        device, *_ = self.existing_switch('rack1-tor-b', '192.0.2.1/32')
        self.adopt('leaf', 2, device)
        _plan, changes = diff_fabric(self.fabric)
        conflicts = [(c.object, c.reason) for c in changes if c.action == 'conflict']
        self.assertIn(
            ('rack1-tor-b', 'its router-id address 192.0.2.1/32 is outside the loopback pool 10.255.0.0/24'), conflicts
        )
        before = (Device.objects.count(), IPAddress.objects.count(), ObjectChange.objects.count())
        with self.assertRaises(ApplyConflictError):
            apply_fabric(self.fabric)
        self.assertEqual((Device.objects.count(), IPAddress.objects.count(), ObjectChange.objects.count()), before)


class AdoptViewTestCase(TestCase):
    """Picking existing devices by site and role in the UI."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        manufacturer = Manufacturer.objects.create(name='Vendor', slug='vendor')
        device_type = DeviceType.objects.create(manufacturer=manufacturer, model='TOR-32', slug='tor-32')
        cls.role = DeviceRole.objects.create(name='Existing ToR', slug='existing-tor')
        other_site = Site.objects.create(name='Elsewhere', slug='elsewhere')
        for name, site in (('rack1-tor-b', cls.fabric.site), ('rack1-tor-a', cls.fabric.site), ('x', other_site)):
            Device.objects.create(name=name, site=site, device_type=device_type, role=cls.role)

    def test_adopt_by_site_and_role(self):
        self.client.force_login(User.objects.create_user(username='admin', is_superuser=True))
        url = reverse('plugins:netbox_aifabric:fabric_adopt', kwargs={'pk': self.fabric.pk})
        self.assertContains(self.client.get(url), 'Adopt as')
        response = self.client.post(url, {'device_role': self.role.pk, 'role': 'leaf'})
        self.assertRedirects(
            response,
            reverse('plugins:netbox_aifabric:fabric_nodes', kwargs={'pk': self.fabric.pk}),
            fetch_redirect_response=False,
        )
        leaves = self.fabric.nodes.filter(role='leaf').order_by('node_id')
        self.assertEqual(
            [(n.node_id, n.name, n.device.name) for n in leaves],
            [(1, 'rack1-tor-a', 'rack1-tor-a'), (2, 'rack1-tor-b', 'rack1-tor-b')],
        )
        # again: nothing more is adopted, the count stays
        self.client.post(url, {'device_role': self.role.pk, 'role': 'leaf'})
        self.fabric.refresh_from_db()
        self.assertEqual((self.fabric.leaf_count, self.fabric.nodes.filter(role='leaf').count()), (2, 2))

    def test_needs_change_permission(self):
        self.client.force_login(User.objects.create_user(username='nobody'))
        url = reverse('plugins:netbox_aifabric:fabric_adopt', kwargs={'pk': self.fabric.pk})
        self.assertIn(self.client.post(url, {'device_role': self.role.pk, 'role': 'leaf'}).status_code, (403, 404))
        self.assertFalse(self.fabric.nodes.filter(device__isnull=False).exists())
