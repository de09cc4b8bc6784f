"""The fabric's Cabling tab, its CSV export and ``GET …/fabrics/{id}/cabling/``: one row per planned cable of the demo
(the guide's cluster), ends where NetBox racks a device the user may view, and NetBox's permissions with object
constraints on the fabric."""

import csv
import io

import hypothesis.extra.django
import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import ObjectType
from dcim.models import Cable, Device, DeviceRole, DeviceType, Interface, Manufacturer, Rack
from users.models import ObjectPermission
from utilities.testing import APITestCase, TestCase

from netbox_aifabric.apply.desired_devices import MANAGEMENT_INTERFACE
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.facts.cabling_plan import MANAGEMENT_PORT
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric
from netbox_aifabric.views.cabling import fabric_cabling
from tests.integration.test_oob_apply import LEAF, OOB, SPINE

pytestmark = pytest.mark.netbox


def constrain(user, model, **constraints):
    """View permission on ``model``, limited by ``constraints``."""
    permission = ObjectPermission.objects.create(
        name=f'{model.__name__} {constraints}', actions=['view'], constraints=constraints
    )
    permission.object_types.add(ObjectType.objects.get_for_model(model))
    permission.users.add(user)


def planned_ends(fabric):
    """(kind, A device, A port, B device, B port) of every cable the plan makes: its links, then its management
    network's (none in the demo unless it plans one)."""
    plan = plan_of(fabric)
    cables = [(lk.kind, lk.a_node, lk.a_interface, lk.b_node, lk.b_interface) for lk in plan.links]
    return sorted(cables), plan


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


class CablingMixin:
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.fabric.management_device_type = None  # the demo may plan a management switch: keep to the plan's links
        cls.fabric.save()

    def leaves(self):
        return [n.name for n in plan_of(self.fabric).nodes if n.role == 'leaf']

    def rack_leaf(self, name, position):
        """The leaf racked in NetBox at ``position``: the plan's device by name in the fabric's site."""
        manufacturer = Manufacturer.objects.create(name='Cabling test', slug='cabling-test')
        device_type = DeviceType.objects.create(manufacturer=manufacturer, model='1U switch', slug='cabling-1u')
        role = DeviceRole.objects.create(name='Cabling leaf', slug='cabling-leaf')
        rack = Rack.objects.create(name='R101', site=self.fabric.site)
        Device.objects.create(
            name=name,
            site=self.fabric.site,
            rack=rack,
            position=position,
            face='front',
            device_type=device_type,
            role=role,
        )

    def check_rows(self, rows):
        """The rows are the plan's cables, one each, labels unique and naming both ends."""
        expected, _plan = planned_ends(self.fabric)
        got = sorted((r['kind'], r['a_device'], r['a_port'], r['b_device'], r['b_port']) for r in rows)
        self.assertEqual(got, expected)
        self.assertEqual(len({r['label'] for r in rows}), len(rows))
        for r in rows:
            self.assertIn(f'{r["a_device"]}:{r["a_port"]} {r["b_device"]}:{r["b_port"]}', r['label'])


class AppliedCableLabelsTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        call_command('aifabric_load_device_types', stdout=io.StringIO())

    def test_the_apply_labels_every_cable_as_the_cabling_plan(self):
        """The guide's cluster with a management switch on shipped device types: every cable the apply creates
        carries its row's label (the management ports named by the device types)."""
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        for field, slug in (('leaf_device_type', LEAF), ('spine_device_type', SPINE), ('management_device_type', OOB)):
            setattr(fabric, field, DeviceType.objects.get(slug=slug))
        for name, value in {'max_spines': 2, 'max_parallel_uplinks': 1, 'storage_count': 0}.items():
            setattr(fabric, name, value)
        fabric.full_clean()
        fabric.save()
        rows = fabric_cabling(fabric).rows
        self.assertTrue({'oob-bmc', 'oob-management'} <= {r.kind for r in rows})
        apply_fabric(fabric)
        cables = Cable.objects.filter(terminations__cable_end='A').values_list(
            'label', 'terminations___device__name', 'terminations__termination_id'
        )
        ports = dict(Interface.objects.values_list('pk', 'name'))
        applied = {label: (device, ports[port]) for label, device, port in cables}
        self.assertEqual(applied, {r.label: (r.a.device, r.a.port) for r in rows})


class CablingTabTestCase(CablingMixin, TestCase):
    def url(self, query=''):
        return reverse('plugins:netbox_aifabric:fabric_cabling', kwargs={'pk': self.fabric.pk}) + query

    def test_the_tab_lists_every_cable_by_rack_with_a_print_stylesheet(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        expected, plan = planned_ends(self.fabric)
        self.assertContains(response, f'{len(expected)} cables')
        for kind, a, a_port, b, b_port in expected:
            self.assertContains(response, f'{a}:{a_port} {b}:{b_port}</td>')
        self.assertContains(response, '<tbody data-rack="rack1">')
        self.assertContains(response, '@media print')
        self.assertContains(response, 'break-before: page')
        self.assertContains(response, '?export=csv')
        self.assertContains(response, reverse('plugins:netbox_aifabric:fabric_cabling', kwargs={'pk': self.fabric.pk}))

    def csv(self):
        response = self.client.get(self.url('?export=csv'))
        self.assertHttpStatus(response, 200)
        self.assertEqual(response['Content-Type'], 'text/csv; charset=utf-8')
        self.assertIn(f'{self.fabric.slug}-cabling.csv', response['Content-Disposition'])
        return csv_rows(response.content.decode())

    def test_the_csv_download_is_the_plans_cables_with_netbox_racks_the_user_may_see(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        leaf1, leaf2 = self.leaves()
        self.rack_leaf(leaf1, 20)
        rows = self.csv()
        self.check_rows(rows)
        ends = [(r['a_device'], r['a_rack'], r['a_position']) for r in rows]
        # the user may not view devices: the plan's rack, no U
        self.assertEqual({(rack, u) for name, rack, u in ends if name == leaf1}, {('rack1', '')})
        self.add_permissions('dcim.view_device')
        ends = [(r['a_device'], r['a_rack'], r['a_position']) for r in self.csv()]
        self.assertEqual({(rack, u) for name, rack, u in ends if name == leaf1}, {('R101', '20')})
        self.assertEqual({(rack, u) for name, rack, u in ends if name == leaf2}, {('rack1', '')})

    def test_a_bad_reach_setting_is_named(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        with override_settings(PLUGINS_CONFIG={'netbox_aifabric': {'bom_reach': {'server': 'far'}}}):
            self.assertContains(self.client.get(self.url()), 'reach.server')
            bad = self.client.get(self.url('?export=csv'))
            self.assertHttpStatus(bad, 400)
            self.assertIn(b'reach.server', bad.content)

    def test_the_tab_and_its_export_need_the_view_permission_with_constraints(self):
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url(query)), 403)
        constrain(self.user, Fabric, slug='another-fabric')
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url(query)), 404)
        constrain(self.user, Fabric, slug=self.fabric.slug)
        for query in ('', '?export=csv'):
            self.assertHttpStatus(self.client.get(self.url(query)), 200)

    def test_the_default_management_port_is_the_applys(self):
        self.assertEqual(MANAGEMENT_PORT, MANAGEMENT_INTERFACE)


class CablingAPITestCase(CablingMixin, APITestCase):
    def url(self, pk=None):
        return reverse('plugins-api:netbox_aifabric-api:fabric-cabling', kwargs={'pk': pk or self.fabric.pk})

    def test_rows_as_json_and_csv(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'dcim.view_device')
        leaf2 = self.leaves()[1]
        self.rack_leaf(leaf2, 30)
        response = self.client.get(self.url(), **self.header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(response.data['fabric'], self.fabric.pk)
        rows = response.data['rows']
        self.check_rows(rows)
        self.assertEqual({(r['b_rack'], r['b_position']) for r in rows if r['b_device'] == leaf2}, {('R101', 30.0)})
        self.assertEqual([r['name'] for r in response.data['racks']], ['rack1'])
        as_csv = self.client.get(self.url() + '?format=csv', **self.header)
        self.assertHttpStatus(as_csv, 200)
        self.assertTrue(as_csv['Content-Type'].startswith('text/csv'))
        parsed = csv_rows(as_csv.content.decode())
        self.assertEqual([r['label'] for r in parsed], [r['label'] for r in rows])

    def test_a_bad_reach_setting_is_a_400_naming_it(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        with override_settings(PLUGINS_CONFIG={'netbox_aifabric': {'bom_reach': {'server': 'far'}}}):
            response = self.client.get(self.url(), **self.header)
            self.assertHttpStatus(response, 400)
            self.assertIn('reach.server', response.data)

    def test_permissions_and_constraints(self):
        self.assertHttpStatus(self.client.get(self.url(), **self.header), 403)
        self.assertHttpStatus(self.client.get(self.url() + '?format=csv', **self.header), 403)
        constrain(self.user, Fabric, slug='another-fabric')
        self.assertHttpStatus(self.client.get(self.url(), **self.header), 404)
        self.assertHttpStatus(self.client.get(self.url() + '?format=csv', **self.header), 404)
        self.assertHttpStatus(self.client.get(self.url(pk=999999), **self.header), 404)
        constrain(self.user, Fabric, slug=self.fabric.slug)
        self.assertHttpStatus(self.client.get(self.url(), **self.header), 200)

    def test_the_schema_publishes_the_endpoint(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get('/api/schema/?format=json', **self.header)
        self.assertHttpStatus(response, 200)
        operation = response.json()['paths']['/api/plugins/aifabric/fabrics/{id}/cabling/']['get']
        self.assertEqual(operation['operationId'], 'plugins_aifabric_fabrics_cabling_retrieve')


class CablingAPIFuzzTestCase(CablingMixin, hypothesis.extra.django.TestCase, APITestCase):
    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(
        target=st.one_of(st.none(), st.integers(-1, 10**12)),
        params=st.dictionaries(
            st.sampled_from(('format', 'spares_percent', 'q', 'limit', 'x')),
            st.one_of(st.sampled_from(('csv', 'json', 'api', 'xml')), st.text(max_size=10)),
            max_size=3,
        ),
    )
    def test_fuzz_ids_and_query_parameters_never_fail(self, target, params):
        """Arbitrary fabric ids and query parameters: rows, a 404 (no such fabric, no such format), never a 5xx."""
        self.add_permissions('netbox_aifabric.view_fabric')
        pk = self.fabric.pk if target is None else target
        url = f'/api/plugins/aifabric/fabrics/{pk}/cabling/'
        response = self.client.get(url, params, **self.header)
        self.assertIn(response.status_code, (200, 404), (url, params, response.content[:300]))
        if response.status_code == 200 and params.get('format') != 'csv':
            self.assertEqual(len(response.data['rows']), len(planned_ends(self.fabric)[0]))
