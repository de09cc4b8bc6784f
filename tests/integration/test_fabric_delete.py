"""Deleting an applied fabric deletes what its apply created: the confirmation lists those objects, one
DELETE (UI or API) removes them in one transaction, change-logged under its request, and a new fabric on the same
pools plans without a conflict. A user who may not delete one of them deletes nothing."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from core.models import ObjectChange
from dcim.models import Device
from ipam.models import ASN, IPAddress, Prefix
from utilities.testing import APITestCase

from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.removal import objects_to_delete
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.forms.wizard_pools import free_pool_defaults
from netbox_aifabric.models import Fabric, OwnedObject

pytestmark = pytest.mark.netbox


class FabricDeleteTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def owned(self):
        """``{(content type id, object id)}`` of what the apply created, as its records say."""
        return set(OwnedObject.objects.filter(fabric=self.fabric).values_list('object_type_id', 'object_id'))

    def existing(self, owned):
        found = set()
        for type_id, object_id in owned:
            model = ContentType.objects.get_for_id(type_id).model_class()
            if model.objects.filter(pk=object_id).exists():
                found.add((type_id, object_id))
        return found

    def api_delete(self):
        url = reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.fabric.pk})
        return self.client.delete(url, **self.header)

    def test_the_confirmation_lists_what_is_deleted(self):
        self.add_permissions('netbox_aifabric.delete_fabric')
        self.client.force_login(self.user)
        url = reverse('plugins:netbox_aifabric:fabric_delete', kwargs={'pk': self.fabric.pk})
        page = self.client.get(url).content.decode()
        devices = list(Device.objects.filter(name__startswith='ai-lab-fabric-').order_by('name'))
        assert devices
        for device in devices:
            assert device.name in page
        grouped = objects_to_delete(self.fabric)
        assert sum(map(len, grouped.values())) == OwnedObject.objects.filter(fabric=self.fabric).count()
        assert 'owned objects' not in page.lower()
        # the device names are on the page through the fabric's nodes too: an owned /31 is listed only as an object
        # the deletion deletes (with objects_to_delete listing nothing, the devices' names alone passed)
        prefix_type = ContentType.objects.get_for_model(Prefix)
        owned_prefixes = OwnedObject.objects.filter(fabric=self.fabric, object_type=prefix_type).values('object_id')
        link = Prefix.objects.filter(pk__in=owned_prefixes, prefix__net_mask_length=31).order_by('prefix').first()
        assert link is not None and str(link.prefix) in page

    def test_one_api_delete_removes_every_owned_object_change_logged(self):
        owned = self.owned()
        assert len(owned) == 174  # the demo's apply (test_apply_concurrency.py counts the same)
        self.add_permissions(
            'netbox_aifabric.delete_fabric', *(f'{app}.delete_{model}' for app, model in self._owned_models())
        )
        response = self.api_delete()
        self.assertHttpStatus(response, 204)
        assert not Fabric.objects.filter(pk=self.fabric.pk).exists()
        assert self.existing(owned) == set()
        assert not Device.objects.filter(name__startswith='ai-lab-fabric-').exists()
        request_ids = set(
            ObjectChange.objects.filter(action='delete', changed_object_type__model='device').values_list(
                'request_id', flat=True
            )
        )
        fabric_deletion = ObjectChange.objects.get(action='delete', changed_object_type__model='fabric')
        assert request_ids == {fabric_deletion.request_id}

    def test_a_new_fabric_on_the_same_pools_plans_no_conflict(self):
        self.add_permissions('netbox_aifabric.delete_fabric', *(f'{a}.delete_{m}' for a, m in self._owned_models()))
        pools = {f: getattr(self.fabric, f) for f in ('loopback_pool', 'p2p_pool', 'mlag_peer_pool')}
        self.assertHttpStatus(self.api_delete(), 204)
        assert IPAddress.objects.count() == 0 and ASN.objects.filter(asn__gte=65000).count() == 0
        assert all(Prefix.objects.filter(pk=p.pk).exists() for p in pools.values())  # the pools are intent: kept
        load_demo()
        again = Fabric.objects.get(slug='ai-lab-fabric')
        assert {f: getattr(again, f) for f in pools} == pools
        _, changes = diff_fabric(again)
        assert [c for c in changes if c.action == 'conflict'] == []

    def test_without_the_delete_permission_of_an_owned_model_nothing_is_deleted(self):
        owned = self.owned()
        models = [m for m in self._owned_models() if m != ('dcim', 'device')]
        self.add_permissions('netbox_aifabric.delete_fabric', *(f'{a}.delete_{m}' for a, m in models))
        response = self.api_delete()
        self.assertHttpStatus(response, 400)
        assert 'dcim.device' in response.json()['detail']
        assert Fabric.objects.filter(pk=self.fabric.pk).exists()
        assert self.existing(owned) == owned
        assert OwnedObject.objects.filter(fabric=self.fabric).count() == len(owned)

    def _owned_models(self):
        return sorted(
            set(
                OwnedObject.objects.filter(fabric=self.fabric).values_list(
                    'object_type__app_label', 'object_type__model'
                )
            )
        )


class FreePoolProposalTestCase(APITestCase):
    """What the wizard proposes for a new fabric (``pools.free_pool_defaults``): blocks and ASNs free in NetBox."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def test_blocks_and_asns_in_use_are_not_proposed(self):
        proposal = free_pool_defaults()
        # the demo fabric's pools are 10.255.x, its ASNs 65100–65199: the next free ones
        assert (proposal['loopback_pool'], proposal['spine_asn']) == ('10.254.0.0/24', 65200)
        # an address and an ASN that no fabric owns (left behind, or made by hand) block their blocks too
        IPAddress.objects.create(address='10.254.2.7/32')
        rir = ASN.objects.first().rir
        ASN.objects.create(asn=65250, rir=rir)
        proposal = free_pool_defaults()
        assert (proposal['loopback_pool'], proposal['p2p_pool'], proposal['spine_asn']) == (
            '10.253.0.0/24',
            '10.253.2.0/24',
            65300,
        )

    def test_a_deleted_fabrics_blocks_are_proposed_again(self):
        self.fabric.delete()  # a shell delete (no user): its objects go with it
        proposal = free_pool_defaults()
        assert (proposal['loopback_pool'], proposal['mlag_peer_pool'], proposal['spine_asn']) == (
            '10.255.0.0/24',
            '10.255.3.0/28',
            65100,
        )
