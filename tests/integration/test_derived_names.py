"""The names an apply derives from a fabric's slug and name fit NetBox's columns and stay unique: a slug
that made device names longer than 64 characters was a 500 at save, two fabric names sharing their first 90
characters gave two tags (and a long name two L2VPNs) the same name at apply. And an object the apply would create
whose unique name another object holds is a 409 conflict, not a failure halfway."""

import json

import pytest
from django.urls import reverse

from core.models import ObjectChange
from dcim.models import Device
from extras.models import Tag
from ipam.models import ASNRange, Prefix
from utilities.testing import APITestCase
from vpn.models import L2VPN

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.constants import FABRIC_NAME_MAX, FABRIC_SLUG_MAX
from netbox_aifabric.models import Fabric, FabricNode, OwnedObject

pytestmark = pytest.mark.netbox

OTHER_POOLS = {
    'loopback_pool': '10.99.0.0/24',
    'vtep_pool': '10.99.1.0/24',
    'p2p_pool': '10.99.2.0/24',
    'mlag_peer_pool': '10.99.3.0/28',
}


class DerivedNamesTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.demo = Fabric.objects.get(slug='ai-lab-fabric')

    def setUp(self):
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    def post(self, url, body):
        return self.client.post(url, data=json.dumps(body), content_type='application/json', **self.header)

    def patch(self, url, body):
        return self.client.patch(url, data=json.dumps(body), content_type='application/json', **self.header)

    def other_fabric(self, **fields):
        """A second EVPN fabric like the demo, with its own pools."""
        body = {
            'site': self.demo.site_id,
            'design_option': 'evpn-vxlan',
            'leaf_asn_range': ASNRange.objects.get_or_create(
                slug='other-leaves',
                defaults={'name': 'Other leaves', 'rir': self.demo.leaf_asn_range.rir, 'start': 65201, 'end': 65299},
            )[0].pk,
            'spine_asn': 65100,
            'anycast_gateway_mac': '02:00:00:00:00:aa',
            'traffic_classes': list(self.demo.traffic_classes.values_list('pk', flat=True)),
            **{field: Prefix.objects.get_or_create(prefix=prefix)[0].pk for field, prefix in OTHER_POOLS.items()},
            **fields,
        }
        return self.post(reverse('plugins-api:netbox_aifabric-api:fabric-list'), body)

    def apply(self, fabric_id):
        return self.post(reverse('plugins-api:netbox_aifabric-api:fabric-apply', kwargs={'pk': fabric_id}), {})

    def test_a_slug_too_long_for_the_device_names_is_a_400(self):
        # 60 characters: "<slug>-storage1" overflowed FabricNode.name (64) in the save: a 500 (DataError)
        for length in (FABRIC_SLUG_MAX + 1, 60, 100):
            fabrics, nodes = Fabric.objects.count(), FabricNode.objects.count()
            response = self.other_fabric(name='Other', slug='s' * length)
            self.assertHttpStatus(response, 400)
            (message,) = response.data['slug']
            self.assertEqual(
                message,
                f'At most 51 characters (got {length}): the devices are named <slug>-storage<id>, and NetBox takes 64.',
            )
            self.assertEqual((Fabric.objects.count(), FabricNode.objects.count()), (fabrics, nodes))

    def test_a_name_too_long_for_the_tag_and_l2vpns_is_a_400(self):
        url = reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.demo.pk})
        for length in (FABRIC_NAME_MAX + 1, 95, 100):
            response = self.patch(url, {'name': 'N' * length})
            self.assertHttpStatus(response, 400)
            self.assertIn(f'At most 87 characters (got {length})', response.data['name'][0])
        self.assertEqual(Fabric.objects.get(pk=self.demo.pk).name, 'AI Lab fabric')

    def test_two_fabrics_at_the_limits_apply_with_their_own_names(self):
        """Names of 87 characters sharing the first 86, slugs of 51: both apply; every derived name fits and none is
        shared (tags, L2VPNs, devices)."""
        url = reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.demo.pk})
        first = {'name': 'N' * (FABRIC_NAME_MAX - 1) + 'A', 'slug': 'a' * FABRIC_SLUG_MAX}
        self.assertHttpStatus(self.patch(url, first), 200)
        self.assertHttpStatus(self.apply(self.demo.pk), 200)
        response = self.other_fabric(name='N' * (FABRIC_NAME_MAX - 1) + 'B', slug='b' * FABRIC_SLUG_MAX)
        self.assertHttpStatus(response, 201)
        other = Fabric.objects.get(pk=response.data['id'])
        other.tenants.set(self.demo.tenants.all())  # two L2VNIs and an L3VNI of its own: VNIs of the same numbers
        response = self.apply(other.pk)
        self.assertHttpStatus(response, 200)
        tags = set(Tag.objects.filter(slug__startswith='aifabric-').values_list('name', flat=True))
        self.assertEqual(tags, {f'AI fabric {first["name"]}', f'AI fabric {other.name}'})
        l2vpns = list(L2VPN.objects.values_list('name', flat=True))
        self.assertEqual(len(l2vpns), len(set(l2vpns)))
        self.assertGreater(len(l2vpns), 2)
        self.assertTrue(all(len(name) <= 100 for name in l2vpns))
        self.assertTrue(Device.objects.filter(name=f'{"b" * FABRIC_SLUG_MAX}-storage1').exists())

    def test_a_tag_name_taken_by_hand_is_a_409_conflict(self):
        # before: the apply's Tag.full_clean() raised "Tag with this Name already exists." halfway: a 500
        Tag.objects.create(name='AI fabric AI Lab fabric', slug='made-by-hand')
        before = (Device.objects.count(), OwnedObject.objects.count(), ObjectChange.objects.count())
        response = self.apply(self.demo.pk)
        self.assertHttpStatus(response, 409)
        (conflict,) = [c for c in response.data['changes'] if c['key'] == 'tag']
        self.assertEqual(conflict['action'], 'conflict')
        self.assertIn('its name "AI fabric AI Lab fabric" is taken', conflict['reason'])
        self.assertEqual((Device.objects.count(), OwnedObject.objects.count(), ObjectChange.objects.count()), before)
