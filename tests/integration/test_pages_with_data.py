"""Every page of every plugin model renders with data present: one object of each model, then every view
the plugin registers for it (NetBox's registry: list, detail and its tabs, add, edit, delete, bulk import, bulk edit,
bulk delete, changelog, journal), the list with every column of its table shown and its exports, as NetBox's
ViewTestCases request them. The pages are read from the registry, so a view added later is walked too.

The acceptance results list was a 500 (``NoReverseMatch 'acceptanceresult_edit'``) as soon as one result existed:
its table's actions column linked an edit view the model does not have."""

import pytest
from django.apps import apps
from django.urls import reverse

from dcim.models import Device, DeviceRole, DeviceType, Manufacturer
from netbox.registry import registry
from utilities.testing import TestCase

from netbox_aifabric import tables
from netbox_aifabric.acceptance.store import store_lab_run
from netbox_aifabric.models import (
    AcceptanceResult,
    AcceptanceRun,
    ComplianceFinding,
    ComplianceRun,
    ConfigBackup,
    EVPNTenant,
    Fabric,
    FabricNode,
    TrafficClass,
    TrafficFlow,
)
from netbox_aifabric.models.ownership import OwnedObject
from tests.integration import base
from tests.integration.base import FABRIC_SHAPE, make_world

pytestmark = pytest.mark.netbox

APP = 'netbox_aifabric'
# Views that answer a GET with a redirect: the apply and run buttons (POST) send a GET to their tab
GET_STATUS = {'apply': 302, 'compliance_run': 302, 'lab_run': 302}
# Bulk views NetBox reaches by POST (the selected pks) and answers with a confirmation page
POSTED = ('bulk_edit', 'bulk_delete')
# the ownership index: no pages of its own (NetBox registers a change-log view for every change-logged model, and
# ownership is change-logged for NetBox Branching; the plugin routes no URL to it)
WITHOUT_VIEWS = {OwnedObject}
TABLES = {
    'trafficclass': tables.TrafficClassTable,
    'qosprofile': tables.QoSProfileTable,
    'evpntenant': tables.EVPNTenantTable,
    'fabric': tables.FabricTable,
    'fabricnode': tables.FabricNodeTable,
    'trafficflow': tables.TrafficFlowTable,
    'compliancerun': tables.ComplianceRunTable,
    'compliancefinding': tables.ComplianceFindingTable,
    'acceptancerun': tables.AcceptanceRunTable,
    'acceptanceresult': tables.AcceptanceResultTable,
    'configbackup': tables.ConfigBackupTable,
}


def one_of_each():
    """One object of each plugin model (the fabric's nodes come with it), with its relations set."""
    world = make_world()
    p = world['prefixes']
    profile = base.make_qos_profiles()[0]
    rdma = TrafficClass.objects.create(name='RDMA', slug='rdma', purpose='rdma', vid=40, lossless=True)
    tenant = EVPNTenant.objects.create(name='T', slug='t', l3vni=50001, anycast_gateway_mac='02:00:00:00:00:aa')
    fabric = Fabric.objects.create(
        name='Walk',
        slug='walk',
        site=world['sites'][0],
        **FABRIC_SHAPE,
        loopback_pool=p['10.255.0.0/24'],
        p2p_pool=p['10.255.2.0/24'],
        mlag_peer_pool=p['10.255.3.0/28'],
        leaf_asn_range=world['asn_ranges']['leaves'],
        spine_asn=65100,
        qos_profile=profile,
    )
    fabric.traffic_classes.set([rdma])
    fabric.tenants.set([tenant])
    TrafficFlow.objects.create(fabric=fabric, source_group='gpu', source_class=rdma, destination_group='gpu', gbps=100)
    node = fabric.nodes.order_by('pk').first()
    run = ComplianceRun.objects.create(fabric=fabric, status='failed', rules=1, failed=1, finding_count=1)
    ComplianceFinding.objects.create(
        run=run, rule='fabric-rule', title='A rule', family='fabric', severity='error', object_repr=str(node),
        object_type_id=None, expected='x', found='y',
    )  # fmt: skip
    AcceptanceRun.objects.create(fabric=fabric, kind='manual', description='by hand')
    vendor = Manufacturer.objects.create(name='Walk', slug='walk')
    device = Device.objects.create(
        name='walk-leaf1',
        site=fabric.site,
        device_type=DeviceType.objects.create(manufacturer=vendor, model='Walk ToR', slug='walk-tor'),
        role=DeviceRole.objects.create(name='Walk leaf', slug='walk-leaf'),
    )
    ConfigBackup.objects.create(
        fabric=fabric, device=device, source='upload', content='hostname walk-leaf1\n', sha256='0' * 64, size=20
    )
    check = {'name': 'bgp leaf1 -> spine1', 'kind': 'bgp', 'status': 'failed', 'expected': 'E', 'seen': 'A'}
    store_lab_run(fabric, None, {'checks': [check], 'log': ['one line']})


class EveryPageWithDataTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        one_of_each()

    def setUp(self):
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    def models(self):
        return [m for m in apps.get_app_config(APP).get_models() if m not in WITHOUT_VIEWS]

    def test_there_is_an_object_of_every_model(self):
        empty = [m._meta.model_name for m in self.models() if not m.objects.exists()]
        self.assertEqual(empty, [])
        registered = set(registry['views'][APP]) - {m._meta.model_name for m in WITHOUT_VIEWS}
        self.assertEqual(sorted(registered), sorted(m._meta.model_name for m in self.models()), 'models with pages')
        for model in (FabricNode, AcceptanceResult, ComplianceFinding):
            self.assertTrue(model.objects.exists())

    def test_every_registered_page_renders(self):
        walked = []
        for model in self.models():
            name = model._meta.model_name
            obj = model.objects.order_by('pk').first()
            for view in registry['views'][APP][name]:
                url_name = f'plugins:{APP}:{name}_{view["name"]}' if view['name'] else f'plugins:{APP}:{name}'
                if view['detail']:
                    url = reverse(url_name, kwargs={'pk': obj.pk})
                else:
                    url = reverse(url_name)
                if view['name'] in POSTED:
                    response = self.client.post(url, {'pk': [obj.pk]})
                    expected = 200
                else:
                    response = self.client.get(url)
                    expected = GET_STATUS.get(view['name'], 200)
                walked.append(url_name)
                if view['name'] == 'delete' and response.status_code == 302:
                    # NetBox's answer for an object others protect (the traffic flow's class): back to the object
                    self.assertEqual(response.url, obj.get_absolute_url(), url_name)
                    continue
                self.assertEqual(
                    response.status_code, expected, f'{url_name} ({url}): {response.content[:3000].decode()}'
                )
        # the pages NetBox's ViewTestCases request, for every model that has them
        for required in ('', 'list', 'changelog', 'journal', 'delete', 'bulk_delete'):
            for model in self.models():
                name = model._meta.model_name
                self.assertIn(f'plugins:{APP}:{name}_{required}' if required else f'plugins:{APP}:{name}', walked)

    def test_every_list_renders_every_column_and_exports(self):
        """Each list page with all the columns of its table turned on (as a user's table configuration does), and
        its CSV and table exports."""
        self.assertEqual(sorted(TABLES), sorted(m._meta.model_name for m in self.models()))
        for name, table in TABLES.items():
            columns = [c for c in table.base_columns if c not in ('pk', 'actions')]
            self.user.config.set(f'tables.{table.__name__}.columns', columns, commit=True)
            url = reverse(f'plugins:{APP}:{name}_list')
            for query in ('', '?export=table', '?export'):
                response = self.client.get(url + query)
                self.assertEqual(response.status_code, 200, f'{url}{query}: {response.content[:3000].decode()}')
            obj = apps.get_model(APP, name).objects.order_by('pk').first()
            self.assertContains(self.client.get(url), f'value="{obj.pk}"')  # the row's checkbox: the object is listed
