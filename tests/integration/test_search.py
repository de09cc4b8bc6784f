import pytest
from django.core.management import call_command
from django.urls import reverse

from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass

pytestmark = pytest.mark.netbox


class GlobalSearchTestCase(TestCase):
    user_permissions = [
        'netbox_aifabric.view_trafficclass',
        'netbox_aifabric.view_qosprofile',
        'netbox_aifabric.view_fabric',
        'netbox_aifabric.view_evpntenant',
    ]

    def test_intent_objects_are_found_by_global_search(self):
        """Each query's result links to the object's own page (the list URLs are in the navigation menu of every
        page, so finding those would prove nothing); a query that matches nothing links to none of them."""
        load_demo()
        call_command('reindex', 'netbox_aifabric', verbosity=0)
        cases = (
            ('RDMA', TrafficClass.objects.get(name='RDMA')),
            ('sonic-default', QoSProfile.objects.get(slug='sonic-default')),
            ('50001', EVPNTenant.objects.get(l3vni=50001)),
            ('AI Lab fabric', Fabric.objects.get(name='AI Lab fabric')),
        )
        for query, obj in cases:
            with self.subTest(query=query):
                response = self.client.get(reverse('search'), {'q': query})
                self.assertEqual(response.status_code, 200)
                self.assertContains(response, f'href="{obj.get_absolute_url()}"')
        response = self.client.get(reverse('search'), {'q': 'no-such-object-anywhere'})
        for _query, obj in cases:
            self.assertNotContains(response, f'href="{obj.get_absolute_url()}"')
