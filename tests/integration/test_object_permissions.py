"""NetBox's object-level permissions on what the apply and the wizard write: ObjectPermissions constrained to one
site allow an apply there and nowhere else, adopting needs the change permission of the adopted objects, and the
wizard needs the add permissions of the pools, RIR and ASN range it creates. A denial writes nothing."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from core.models import ObjectChange, ObjectType
from dcim.models import Device, DeviceRole, DeviceType, Interface, Manufacturer, Site
from ipam.models import RIR, ASNRange, IPAddress, Prefix
from users.models import ObjectPermission
from utilities.permissions import resolve_permission_type
from utilities.testing import APITestCase

from netbox_aifabric.apply.permissions import HIDDEN
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import Fabric, FabricNode, OwnedObject
from tests.integration.test_apply import APPLY_PERMISSIONS, counts
from tests.integration.test_wizard import WizardBase, url, written

pytestmark = pytest.mark.netbox


def written_all():
    return (*counts(), Device.objects.count(), Interface.objects.count(), ObjectChange.objects.count())


def constrained(user, name, actions, models, constraints):
    """An ObjectPermission ``name`` for ``actions`` on ``models`` (``app.model``) limited by ``constraints``."""
    permission = ObjectPermission.objects.create(name=name, actions=actions, constraints=constraints)
    for label in models:
        app_label, model = label.split('.')
        permission.object_types.add(ObjectType.objects.get(app_label=app_label, model=model))
    permission.users.add(user)
    return permission


class ApplyObjectPermissionsTestCase(APITestCase):
    """A user whose device and interface permissions are constrained to one site."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.other_site = Site.objects.create(name='Site B', slug='site-b')

    def post(self, action, data=None):
        url = reverse(f'plugins-api:netbox_aifabric-api:fabric-{action}', kwargs={'pk': self.fabric.pk})
        return self.client.post(url, data or {}, format='json', **self.header)

    def grant(self, site):
        """Every apply permission; devices and interfaces only at ``site``."""
        limited = ('dcim.add_device', 'dcim.change_device', 'dcim.add_interface')
        self.add_permissions(*[p for p in APPLY_PERMISSIONS if p not in limited])
        constrained(self.user, 'devices', ['add', 'change'], ['dcim.device'], {'site__slug': site.slug})
        constrained(self.user, 'interfaces', ['add'], ['dcim.interface'], {'device__site__slug': site.slug})

    def test_constrained_to_another_site_writes_nothing(self):
        self.grant(self.other_site)
        before = written_all()
        response = self.post('apply')
        self.assertHttpStatus(response, 403)
        self.assertIn('dcim.device', str(response.data['detail']))
        self.assertEqual(written_all(), before)

    def test_constrained_to_the_fabric_site_applies(self):
        self.grant(self.fabric.site)
        response = self.post('apply')
        self.assertHttpStatus(response, 200)
        self.assertEqual(Device.objects.filter(site=self.fabric.site).count(), 9)

    def test_the_apply_view_writes_nothing_either(self):
        self.grant(self.other_site)
        self.client.force_login(self.user)
        before = written_all()
        response = self.client.post(
            reverse('plugins:netbox_aifabric:fabric_apply', kwargs={'pk': self.fabric.pk}), follow=True
        )
        self.assertContains(response, 'your permissions do not allow to add dcim.device')
        self.assertEqual(written_all(), before)

    def test_the_apply_view_names_missing_permissions(self):
        self.add_permissions(*[p for p in APPLY_PERMISSIONS if p != 'ipam.add_prefix'])
        self.client.force_login(self.user)
        before = written_all()
        response = self.client.post(
            reverse('plugins:netbox_aifabric:fabric_apply', kwargs={'pk': self.fabric.pk}), follow=True
        )
        self.assertContains(response, 'Applying this fabric needs these permissions: ipam.add_prefix.')
        self.assertEqual(written_all(), before)


class AdoptionPermissionsTestCase(APITestCase):
    """Adopting a device takes over its interfaces (MTU, description, tags): that is a change of each of them."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        manufacturer = Manufacturer.objects.create(name='Vendor', slug='vendor')
        device_type = DeviceType.objects.create(manufacturer=manufacturer, model='TOR-32', slug='tor-32')
        role = DeviceRole.objects.create(name='Existing ToR', slug='existing-tor')
        device = Device.objects.create(name='rack1-tor-a', site=cls.fabric.site, device_type=device_type, role=role)
        lo = Interface.objects.create(device=device, name='Loopback0', type='virtual')
        cls.uplink = Interface.objects.create(device=device, name='Ethernet97', type='100gbase-x-qsfp28', mtu=1500)
        IPAddress.objects.create(
            address='10.255.0.77/32',
            assigned_object_type=ContentType.objects.get_for_model(Interface),
            assigned_object_id=lo.pk,
        )
        node = FabricNode.objects.get(fabric=cls.fabric, role='leaf', node_id=1)
        node.device = device
        node.full_clean()
        node.save()

    def post(self):
        url = reverse('plugins-api:netbox_aifabric-api:fabric-apply', kwargs={'pk': self.fabric.pk})
        return self.client.post(url, {}, format='json', **self.header)

    def test_adoption_needs_the_change_interface_permission(self):
        self.add_permissions(*APPLY_PERMISSIONS, 'ipam.change_ipaddress')
        before = written_all()
        response = self.post()
        self.assertHttpStatus(response, 403)
        self.assertIn('dcim.change_interface', str(response.data['detail']))
        self.assertEqual(written_all(), before)
        self.uplink.refresh_from_db()
        self.assertEqual(self.uplink.mtu, 1500)

    def test_adoption_within_the_change_interface_constraints(self):
        self.add_permissions(*APPLY_PERMISSIONS, 'ipam.change_ipaddress')
        other = constrained(
            self.user, 'interfaces', ['change'], ['dcim.interface'], {'device__site__slug': 'elsewhere'}
        )
        before = written_all()
        response = self.post()
        self.assertHttpStatus(response, 403)
        self.assertIn('change dcim.interface', str(response.data['detail']))
        self.assertEqual(written_all(), before)
        other.constraints = {'device__site__slug': self.fabric.site.slug}
        other.save()
        response = self.post()
        self.assertHttpStatus(response, 200)
        self.uplink.refresh_from_db()
        self.assertEqual(self.uplink.mtu, 9216)
        self.assertTrue(OwnedObject.objects.filter(key='interface:rack1-tor-a:Ethernet97', adopted=True).exists())

    def test_the_plan_hides_objects_the_user_may_not_view(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        url = reverse('plugins-api:netbox_aifabric-api:fabric-plan', kwargs={'pk': self.fabric.pk})
        response = self.client.post(url, {}, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        adopted = {c['key']: c for c in response.data['changes']}['interface:rack1-tor-a:Ethernet97']
        self.assertEqual((adopted['action'], adopted['object'], adopted['fields']), ('adopt', HIDDEN, {}))
        self.add_permissions('dcim.view_interface')
        response = self.client.post(url, {}, format='json', **self.header)
        adopted = {c['key']: c for c in response.data['changes']}['interface:rack1-tor-a:Ethernet97']
        self.assertNotEqual(adopted['object'], HIDDEN)
        self.assertEqual(adopted['fields']['mtu'], 9216)


def wizard_written():
    return (*written(), RIR.objects.count(), ObjectChange.objects.count())


class WizardAddPermissionsTestCase(WizardBase):
    """The wizard creates the fabric's pools (Prefix), ASN range (ASNRange) and, when none is private, an RIR."""

    def setUp(self):
        from users.models import User

        self.user = User.objects.create_user(username='planner')
        self.client.force_login(self.user)
        constrained(self.user, 'fabrics', ['add', 'view', 'apply'], ['netbox_aifabric.fabric'], {})

    def test_without_the_ipam_add_permissions(self):
        self.walk()
        before = wizard_written()
        response = self.client.get(url('preview'))
        self.assertRedirects(response, url('pools'), fetch_redirect_response=False)
        response = self.client.get(url('pools'))
        self.assertContains(
            response, 'creating this fabric needs these permissions: ipam.add_asnrange, ipam.add_prefix'
        )
        self.client.post(url('preview'), {'_create': '1'})
        self.assertEqual(wizard_written(), before)
        self.assertFalse(Fabric.objects.filter(slug='wizard-cluster').exists())

    def test_rir_needed_when_none_is_private(self):
        for rir in RIR.objects.filter(is_private=True):
            RIR.objects.filter(pk=rir.pk).update(is_private=False, name=f'Public {rir.pk}', slug=f'public-{rir.pk}')
        constrained(self.user, 'ipam', ['add'], ['ipam.prefix', 'ipam.asnrange'], {})
        self.walk()
        before = wizard_written()
        self.client.post(url('preview'), {'_create': '1'})
        response = self.client.get(url('pools'))
        self.assertContains(response, 'ipam.add_rir')
        self.assertEqual(wizard_written(), before)

    def test_prefix_constraints(self):
        constrained(self.user, 'asns', ['add'], ['ipam.asnrange', 'ipam.rir'], {})
        prefixes = constrained(
            self.user, 'prefixes', ['add'], ['ipam.prefix'], {'prefix__net_contained': '10.1.0.0/16'}
        )
        self.walk()
        before = wizard_written()
        self.client.post(url('preview'), {'_create': '1'})
        response = self.client.get(url('pools'))
        self.assertContains(response, 'your permissions do not allow to add ipam.prefix')
        self.assertEqual(wizard_written(), before)
        prefixes.constraints = {'prefix__net_contained': '10.254.0.0/16'}
        prefixes.save()
        self.client.post(url('preview'), {'_create': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertEqual(str(fabric.loopback_pool.prefix), '10.254.0.0/24')
        self.assertEqual(ASNRange.objects.filter(start=65201).count(), 1)
        self.assertEqual(Prefix.objects.filter(prefix__net_contained='10.254.0.0/16').count(), 4)


class WizardApplyConstraintsTestCase(WizardBase):
    """ "Create and apply" with the apply's devices outside the user's constraints: neither the fabric, nor its pools,
    nor any applied object is left."""

    def setUp(self):
        from users.models import User

        self.user = User.objects.create_user(username='constrained')
        self.client.force_login(self.user)
        constrained(self.user, 'fabrics', ['add', 'view', 'apply'], ['netbox_aifabric.fabric'], {})
        limited = ('dcim.add_device', 'dcim.change_device', 'dcim.add_interface')
        for name in APPLY_PERMISSIONS:
            if name not in limited:
                object_type, action = resolve_permission_type(name)
                permission = ObjectPermission.objects.create(name=name, actions=[action])
                permission.object_types.add(object_type)
                permission.users.add(self.user)
        constrained(self.user, 'ipam', ['add'], ['ipam.prefix', 'ipam.asnrange', 'ipam.vrf', 'ipam.rir'], {})
        constrained(self.user, 'devices', ['add', 'change'], ['dcim.device'], {'site__slug': 'elsewhere'})
        constrained(self.user, 'interfaces', ['add'], ['dcim.interface'], {'device__site__slug': 'elsewhere'})

    def test_create_and_apply_writes_nothing(self):
        self.walk()
        before = wizard_written()
        response = self.client.post(url('preview'), {'_apply': '1'}, follow=True)
        self.assertContains(response, 'your permissions do not allow to add dcim.device')
        self.assertEqual(wizard_written(), before)
        self.assertFalse(Fabric.objects.filter(slug='wizard-cluster').exists())
