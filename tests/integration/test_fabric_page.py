"""The fabric page renders its traffic-class and EVPN-tenant tables with the page (no second request), showing only
the members the user may view."""

import pytest

from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import Fabric

pytestmark = pytest.mark.netbox


class FabricPageTablesTestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_fabric', 'netbox_aifabric.view_trafficclass']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_member_tables_come_with_the_page(self):
        response = self.client.get(self.fabric.get_absolute_url())
        self.assertHttpStatus(response, 200)
        body = response.content.decode()
        classes = list(self.fabric.traffic_classes.all())
        self.assertTrue(classes)
        for tc in classes:
            self.assertIn(f'href="{tc.get_absolute_url()}"', body)
        self.assertNotIn('hx-get="/plugins/aifabric/traffic-classes/', body)  # not fetched afterwards
        # tenants: the user may not view them, so none is listed (as NetBox's views restrict)
        for tenant in self.fabric.tenants.all():
            self.assertNotIn(f'href="{tenant.get_absolute_url()}"', body)
        self.add_permissions('netbox_aifabric.view_evpntenant')
        body = self.client.get(self.fabric.get_absolute_url()).content.decode()
        for tenant in self.fabric.tenants.all():
            self.assertIn(f'href="{tenant.get_absolute_url()}"', body)
