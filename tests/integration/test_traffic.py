"""Traffic flows in NetBox (views, REST, GraphQL), the fabric's Traffic tab and the ``bom``/``traffic`` REST actions,
with NetBox's permissions and object constraints."""

import csv
import io
import re
from collections import Counter
from decimal import Decimal

import pytest
from django.test import TestCase as DjangoTestCase
from django.test import override_settings
from django.urls import reverse

from core.models import ObjectType
from users.models import ObjectPermission
from utilities.testing import APITestCase, TestCase, ViewTestCases

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.filtersets import TrafficFlowFilterSet
from netbox_aifabric.graphql.types import TrafficFlowType
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.intake.traffic import fabric_bom
from netbox_aifabric.models import Fabric, TrafficClass, TrafficFlow
from netbox_aifabric.planner.bom import management_ports
from tests.integration import base
from tests.integration.base import FABRIC_SHAPE, make_world, own_pools
from tests.integration.test_filtersets import PluginFilterSetTests
from tests.integration.test_hardware import HardwareFabricBase

pytestmark = pytest.mark.netbox


def constrain(user, slug):
    """View permission on fabrics, limited to the one with ``slug``."""
    permission = ObjectPermission.objects.create(name=f'fabrics {slug}', actions=['view'], constraints={'slug': slug})
    permission.object_types.add(ObjectType.objects.get_for_model(Fabric))
    permission.users.add(user)


def make_fabrics():
    world = make_world()
    fabrics = [
        Fabric(name=f'F{i}', slug=f'f{i}', site=world['sites'][0], **FABRIC_SHAPE, **own_pools(world, i))
        for i in (1, 2)
    ]
    for fabric in fabrics:
        fabric.full_clean()
        fabric.save()
    classes = TrafficClass.objects.bulk_create(
        [
            TrafficClass(name='USERS', slug='users', purpose='user-access', vid=20),
            TrafficClass(name='STORAGE', slug='storage', purpose='storage', vid=30),
        ]
    )
    return fabrics, classes


class TrafficFlowViewTestCase(
    ViewTestCases.GetObjectViewTestCase,
    ViewTestCases.GetObjectChangelogViewTestCase,
    ViewTestCases.CreateObjectViewTestCase,
    ViewTestCases.EditObjectViewTestCase,
    ViewTestCases.DeleteObjectViewTestCase,
    ViewTestCases.ListObjectsViewTestCase,
    ViewTestCases.BulkImportObjectsViewTestCase,
    ViewTestCases.BulkEditObjectsViewTestCase,
    ViewTestCases.BulkDeleteObjectsViewTestCase,
):
    model = TrafficFlow

    def _get_base_url(self):
        return 'plugins:netbox_aifabric:trafficflow_{}'

    @classmethod
    def setUpTestData(cls):
        (f1, f2), (users, storage) = make_fabrics()
        flows = TrafficFlow.objects.bulk_create(
            [
                TrafficFlow(fabric=f1, source_group='gpu', destination_group='storage', gbps=10),
                TrafficFlow(fabric=f1, source_group='gpu', destination_group='gpu', gbps=50, burstiness='bursty'),
                TrafficFlow(fabric=f2, source_group='all', destination_group='storage', gbps=1, source_class=users),
            ]
        )
        cls.form_data = {
            'fabric': f2.pk,
            'source_group': 'gpu',
            'source_class': storage.pk,
            'destination_group': 'storage',
            'destination_class': storage.pk,
            'gbps': Decimal('12.5'),
            'burstiness': 'sustained',
            'description': 'checkpoints',
            'tags': [],
        }
        cls.csv_data = (
            'fabric,source_group,destination_group,gbps,burstiness,source_class',
            'f1,gpu,storage,5,bursty,STORAGE',
            'f1,all,gpu,1,sustained,',
            'f2,storage,gpu,2,,USERS',
        )
        cls.csv_update_data = ('id,gbps,description', *(f'{flow.pk},{i + 1},row {i}' for i, flow in enumerate(flows)))
        cls.bulk_edit_data = {'description': 'edited', 'gbps': Decimal('7'), 'burstiness': 'bursty'}


class TrafficFlowAPITestCase(base.PluginAPITestCase):
    model = TrafficFlow
    brief_fields = ['description', 'display', 'gbps', 'id', 'url']
    type_class = TrafficFlowType
    graphql_base_name = 'netbox_aifabric_traffic_flow'
    bulk_update_data = {'description': 'bulk'}
    bulk_update_invalid_data = {'gbps': -1}

    @classmethod
    def setUpTestData(cls):
        (f1, f2), (users, storage) = make_fabrics()
        TrafficFlow.objects.bulk_create(
            [
                TrafficFlow(fabric=f1, source_group='gpu', destination_group='storage', gbps=10),
                TrafficFlow(fabric=f1, source_group='gpu', destination_group='gpu', gbps=50),
                TrafficFlow(fabric=f2, source_group='all', destination_group='storage', gbps=1),
            ]
        )
        cls.create_data = [
            {'fabric': f1.pk, 'source_group': 'gpu', 'destination_group': 'storage', 'gbps': 3},
            {'fabric': f2.pk, 'source_group': 'storage', 'destination_group': 'gpu', 'gbps': 2},
            {
                'fabric': f2.pk,
                'source_group': 'all',
                'destination_group': 'all',
                'gbps': 1,
                'burstiness': 'bursty',
                'source_class': users.pk,
                'destination_class': storage.pk,
            },
        ]


class DemoMixin:
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.servers = cls.fabric.server_count
        TrafficFlow.objects.create(fabric=cls.fabric, source_group='gpu', destination_group='storage', gbps=10)
        users = TrafficClass.objects.get(name='USERS')
        mgmt = TrafficClass.objects.get(name='MGMT')
        TrafficFlow.objects.create(
            fabric=cls.fabric,
            source_group='gpu',
            destination_group='gpu',
            gbps=1,
            source_class=users,
            destination_class=mgmt,
        )


class TrafficTabTestCase(DemoMixin, TestCase):
    def url(self):
        return reverse('plugins:netbox_aifabric:fabric_traffic', kwargs={'pk': self.fabric.pk})

    def test_the_tab_shows_loads_warnings_and_the_bom(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        storage = self.fabric.storage_count
        # every GPU server sends 10G into the storage node(s): its bond receives servers × 10 / storage nodes
        self.assertContains(response, f'<td>{self.servers * 10 // storage}</td>')
        self.assertContains(response, 'data-warning-code="forbidden-flow"')  # USERS may not reach MGMT
        self.assertContains(response, '<code>flows[1]</code>')
        self.assertContains(response, 'id="utilisation-chart"')
        leaves = sum(1 for n in plan_of(self.fabric).nodes if n.role == 'leaf')
        self.assertGreaterEqual(
            response.content.decode().count('class="bar"'), leaves
        )  # a bar per loaded leaf at least
        self.assertContains(response, reverse('plugins:netbox_aifabric:fabric_bom', kwargs={'pk': self.fabric.pk}))

    def test_the_plan_tab_shows_the_matrix_warnings(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        url = reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk})
        self.assertContains(self.client.get(url), 'data-warning-code="forbidden-flow"')
        TrafficFlow.objects.filter(source_class__name='USERS').delete()  # negative control: the flow gone, no warning
        self.assertNotContains(self.client.get(url), 'data-warning-code="forbidden-flow"')

    def test_the_tab_needs_the_fabrics_view_permission_with_its_constraints(self):
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url() + query), 403)
        constrain(self.user, 'another-fabric')
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url() + query), 404)
        constrain(self.user, self.fabric.slug)
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url() + query), 200)

    def test_the_loads_csv_names_a_flow_it_cannot_place(self):
        """A flow the matrix cannot place: the export is a 400 naming the flow's field, as REST's, never a 500."""
        self.add_permissions('netbox_aifabric.view_fabric')
        TrafficFlow.objects.create(fabric=self.fabric, source_group='storage', destination_group='storage', gbps=1)
        response = self.client.get(self.url() + '?export=csv')
        self.assertHttpStatus(response, 400)
        self.assertIn(b'flows[2].destination_group', response.content)


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def bom_lines(text):
    """The BOM CSV's lines: every row but the last, which is the guide's tier (category ``tier``, no quantities)."""
    *lines, tier = csv_rows(text)
    assert (tier['category'], tier['quantity']) == ('tier', ''), tier
    return lines


class BomTabTestCase(DemoMixin, TestCase):
    def url(self, query=''):
        return reverse('plugins:netbox_aifabric:fabric_bom', kwargs={'pk': self.fabric.pk}) + query

    def test_the_tab_shows_the_bom_and_the_tier(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        # the demo: the guide's cluster, EVPN/VXLAN with two spines on one leaf pair
        self.assertContains(response, "The guide's tier: Balanced")
        self.assertContains(response, '2 spines: the guide puts two spines on its first design')
        self.assertContains(response, '?export=csv')
        plan = plan_of(self.fabric)
        cables = len(plan.links) + sum(management_ports(plan))  # a patch cable per BMC and management port
        self.assertEqual(sum(int(r['quantity']) for r in self.csv('') if r['category'] == 'cable'), cables)

    def csv(self, query):
        response = self.client.get(self.url('?export=csv' + query))
        self.assertHttpStatus(response, 200)
        self.assertEqual(response['Content-Type'], 'text/csv; charset=utf-8')
        self.assertIn(f'{self.fabric.slug}-bom.csv', response['Content-Disposition'])
        return bom_lines(response.content.decode())

    def test_csv_export_follows_the_spares_and_names_a_bad_value(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        for row in self.csv('&spares_percent=50'):
            expected = 0 if row['category'] == 'licence' else -(-int(row['quantity']) // 2)
            self.assertEqual(int(row['spares']), expected)
        bad = self.client.get(self.url('?export=csv&spares_percent=200'))
        self.assertHttpStatus(bad, 400)
        self.assertIn(b'spares_percent', bad.content)
        for raw in ('abc', 'nan', '-1', '1e999'):  # the tab names the field instead of failing
            response = self.client.get(self.url(f'?spares_percent={raw}'))
            self.assertContains(response, 'is not a percentage between 0 and 100')

    def test_reach_settings_turn_dacs_into_optics(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        plan = plan_of(self.fabric)
        servers = sum(1 for link in plan.links if link.kind == 'server')
        uplinks = sum(1 for link in plan.links if link.kind == 'uplink')
        optics = sum(int(r['quantity']) for r in self.csv('') if r['category'] == 'optic')
        self.assertEqual(optics, 2 * uplinks)
        config = {'netbox_aifabric': {'bom_reach_fabrics': {self.fabric.slug: {'server': 'rack-to-rack'}}}}
        with override_settings(PLUGINS_CONFIG=config):
            optics = sum(int(r['quantity']) for r in self.csv('') if r['category'] == 'optic')
            self.assertEqual(optics, 2 * (uplinks + servers))
            self.assertContains(self.client.get(self.url()), 'server bond links: across the room (up to 100 m)')
        with override_settings(PLUGINS_CONFIG={'netbox_aifabric': {'bom_reach': {'server': 'far'}}}):
            self.assertContains(self.client.get(self.url()), 'reach.server')  # a named error, not a 500
        with override_settings(PLUGINS_CONFIG={'netbox_aifabric': {'bom_reach': ['server']}}):
            self.assertContains(self.client.get(self.url()), 'bom_reach')

    def test_the_tab_and_its_export_need_the_view_permission_with_constraints(self):
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url(query)), 403)
        constrain(self.user, 'another-fabric')
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url(query)), 404)
        constrain(self.user, self.fabric.slug)
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url(query)), 200)


class TrafficAPITestCase(DemoMixin, APITestCase):
    def url(self, name, pk=None):
        return reverse(f'plugins-api:netbox_aifabric-api:fabric-{name}', kwargs={'pk': pk or self.fabric.pk})

    def test_bom_counts_are_the_plans(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get(self.url('bom') + '?spares_percent=50', **self.header)
        self.assertHttpStatus(response, 200)
        plan = plan_of(self.fabric)
        roles = Counter(n.role for n in plan.nodes)
        lines = response.data['lines']
        management = sum(management_ports(plan))
        switches = sum(roles.values()) + -(-management // 48)  # and the management switch, 48 ports each
        self.assertEqual(sum(x['quantity'] for x in lines if x['category'] == 'switch'), switches)
        self.assertEqual(sum(x['quantity'] for x in lines if x['category'] == 'cable'), len(plan.links) + management)
        self.assertTrue(all(x['spares'] == -(-x['quantity'] // 2) for x in lines if x['category'] != 'licence'))
        self.assertEqual(response.data['tier']['name'], 'Balanced')
        self.assertTrue(any(r.startswith('2 spines') for r in response.data['tier_reasons']))
        self.assertTrue(response.data['tier_rule'].startswith('Expandable when any of'))
        as_csv = self.client.get(self.url('bom') + '?spares_percent=50&format=csv', **self.header)
        self.assertHttpStatus(as_csv, 200)
        self.assertTrue(as_csv['Content-Type'].startswith('text/csv'))
        self.assertEqual(
            [(r['item'], int(r['total'])) for r in bom_lines(as_csv.content.decode())],
            [(x['item'], x['total']) for x in lines],
        )
        bad_csv = self.client.get(self.url('bom') + '?spares_percent=-1&format=csv', **self.header)
        self.assertHttpStatus(bad_csv, 400)
        self.assertIn(b'spares_percent', bad_csv.content)
        bad = self.client.get(self.url('bom') + '?spares_percent=nan', **self.header)
        self.assertHttpStatus(bad, 400)
        self.assertIn('spares_percent', bad.data)

    def test_traffic_loads_add_up_to_the_flows(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get(self.url('traffic'), **self.header)
        self.assertHttpStatus(response, 200)
        sent = sum(f['total_gbps'] for f in response.data['flows'])
        self.assertEqual(sent, self.servers * 10 + self.servers * 1)
        ports = [x for x in response.data['loads'] if x['kind'] == 'server-port']
        self.assertAlmostEqual(sum(x['up'] for x in ports), sent)
        self.assertEqual([w['code'] for w in response.data['warnings']], ['forbidden-flow'])

    def test_a_lossless_incast_is_a_pfc_headroom_warning(self):
        """Every GPU sends into the storage RDMA NICs, lossless, at one more than their share of those NICs."""
        self.add_permissions('netbox_aifabric.view_fabric')
        plan = plan_of(self.fabric)
        storage = [a for a in plan.attachments if a.kind == 'storage']
        ports = {(leaf, port) for a in storage for leaf, port in a.rdma}
        capacity = sum(link.speed for link in plan.links if (link.a_node, link.a_interface) in ports)
        gpus = sum(1 for a in plan.attachments if a.kind == 'gpu')
        self.assertGreater(capacity, 0)  # the demo's storage has RDMA NICs: the check is not vacuous
        lossless = TrafficClass.objects.get(name='RDMA', lossless=True)
        TrafficFlow.objects.create(
            fabric=self.fabric,
            source_group='gpu',
            destination_group='storage',
            gbps=capacity / len(storage) / gpus + 1,
            source_class=lossless,
        )
        response = self.client.get(self.url('traffic'), **self.header)
        fields = {w['field'] for w in response.data['warnings'] if w['code'] == 'pfc-headroom'}
        self.assertEqual({f'server-port:{a.server} RDMA' for a in storage} - fields, set())

    def test_the_plan_json_carries_the_matrix_warnings(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        url = reverse('plugins-api:netbox_aifabric-api:fabric-plan', kwargs={'pk': self.fabric.pk})
        response = self.client.post(url, {}, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(
            [(w['code'], w['field']) for w in response.data['traffic_warnings']], [('forbidden-flow', 'flows[1]')]
        )
        TrafficFlow.objects.filter(source_class__name='USERS').delete()  # negative control
        response = self.client.post(url, {}, format='json', **self.header)
        self.assertEqual(response.data['traffic_warnings'], [])

    def test_permissions_and_constraints(self):
        for name in ('bom', 'traffic'):
            self.assertHttpStatus(self.client.get(self.url(name), **self.header), 403)
        constrain(self.user, 'another-fabric')
        for name in ('bom', 'traffic'):
            self.assertHttpStatus(self.client.get(self.url(name), **self.header), 404)
            self.assertHttpStatus(self.client.get(self.url(name, pk=999999), **self.header), 404)
        constrain(self.user, self.fabric.slug)
        for name in ('bom', 'traffic'):
            self.assertHttpStatus(self.client.get(self.url(name), **self.header), 200)


class TrafficFlowFilterSetTestCase(PluginFilterSetTests, DjangoTestCase):
    queryset = TrafficFlow.objects.all()
    filterset = TrafficFlowFilterSet

    @classmethod
    def setUpTestData(cls):
        (f1, f2), (users, storage) = make_fabrics()
        cls.fabrics, cls.classes = (f1, f2), (users, storage)
        TrafficFlow.objects.bulk_create(
            [
                TrafficFlow(fabric=f1, source_group='gpu', destination_group='storage', gbps=10, source_class=users),
                TrafficFlow(fabric=f1, source_group='gpu', destination_group='gpu', gbps=50, burstiness='bursty'),
                TrafficFlow(fabric=f2, source_group='all', destination_group='storage', gbps=1, description='backup'),
            ]
        )

    def count(self, **params):
        return self.filterset(params, self.queryset).qs.count()

    def test_filters(self):
        f1, f2 = self.fabrics
        self.assertEqual(self.count(fabric_id=[f1.pk]), 2)
        self.assertEqual(self.count(fabric=['f2']), 1)
        self.assertEqual(self.count(source_group=['gpu']), 2)
        self.assertEqual(self.count(destination_group=['storage']), 2)
        self.assertEqual(self.count(burstiness=['bursty']), 1)
        self.assertEqual(self.count(source_class_id=[self.classes[0].pk]), 1)
        self.assertEqual(self.count(q='backup'), 1)
        self.assertEqual(self.count(q='USERS'), 1)


class BomBreakoutTestCase(HardwareFabricBase):
    def test_a_broken_out_leaf_buys_breakout_cables_not_lane_dacs(self):
        """SN2700 leaves with swp1-swp8 broken out 4x25G (the port map): the servers' 25G links on lane ports swpNsK
        need one 4x25G breakout DAC per parent in use, instead of one DAC per lane."""
        fabric = self.use_hardware(leaf='sn2700', spine='sn2700', port_map={'leaf': {'breakout': ['swp1..swp8:4x25G']}})
        plan = plan_of(fabric)
        leaves = {n.name for n in plan.nodes if n.role == 'leaf'}
        lane = re.compile(r'(swp\d+)s\d')  # Cumulus names lane K of swpN swpNsK
        on_lanes = [link for link in plan.links if link.a_node in leaves and lane.fullmatch(link.a_interface)]
        parents = {(link.a_node, lane.fullmatch(link.a_interface)[1]) for link in on_lanes}
        self.assertTrue(on_lanes)
        bom = fabric_bom(fabric, plan=plan)
        item = '4x25G breakout DAC, QSFP28 to 4x SFP28, in the rack (up to 3 m)'  # the SN2700's swpN are QSFP28
        breakout = [line.quantity for line in bom.lines if line.item == item]
        self.assertEqual(breakout, [len(parents)])
        cables = sum(line.quantity for line in bom.lines if line.category == 'cable')
        patch = sum(management_ports(plan))
        self.assertEqual(cables, len(plan.links) - len(on_lanes) + len(parents) + patch)
