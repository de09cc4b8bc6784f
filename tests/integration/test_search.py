from django.core.management import call_command
from django.urls import reverse

from utilities.testing import TestCase

from netbox_aifabric.seed import load_demo


class GlobalSearchTestCase(TestCase):
    user_permissions = [
        'netbox_aifabric.view_trafficclass',
        'netbox_aifabric.view_qosprofile',
        'netbox_aifabric.view_fabric',
        'netbox_aifabric.view_evpntenant',
    ]

    def test_intent_objects_are_found_by_global_search(self):
        load_demo()
        call_command('reindex', 'netbox_aifabric', verbosity=0)
        for query, expected in (
            ('RDMA', '/plugins/aifabric/traffic-classes/'),
            ('sonic-default', '/plugins/aifabric/qos-profiles/'),
            ('50001', '/plugins/aifabric/evpn-tenants/'),
            ('AI Lab fabric', '/plugins/aifabric/fabrics/'),
        ):
            with self.subTest(query=query):
                response = self.client.get(reverse('search'), {'q': query})
                self.assertEqual(response.status_code, 200)
                self.assertContains(response, expected)
