"""Against the real NetBox: every fabric the planner would refuse is refused at save, whatever its status
(a draft too: its pools and ASNs are the planner's rule; a property test compares the planner with
``Fabric.full_clean()``, the REST API and the form on generated fabrics), format characters are refused in names,
names NetBox cannot store are refused at plan time, a plan above ``plan_max_nodes`` is refused by name, a failed
background apply says why in the job's ``error``, and the OpenAPI schema says null wherever a response has one."""

import copy
import json
from decimal import Decimal

import hypothesis.extra.django
import pytest
from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.test import override_settings
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from core.models import Job
from users.constants import TOKEN_PREFIX
from users.models import Token, User
from utilities.testing import APITestCase

from netbox_aifabric.apply.jobs import ApplyFabricJob
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.choices import FabricStatusChoices
from netbox_aifabric.intake.spec import fabric_spec
from netbox_aifabric.models import Fabric, FabricNode, TrafficClass
from netbox_aifabric.planner import PlanError, plan_fabric
from tests.integration.base import FABRIC_SHAPE, make_world
from tests.integration.test_api_fuzz import SCALE
from tests.integration.test_pages_with_data import one_of_each
from tests.integration.test_validation import form_payload

pytestmark = pytest.mark.netbox

API = '/api/plugins/aifabric/'
POOL_FIELDS = ('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool')


def plugin_setting(**values):
    plugins = copy.deepcopy(settings.PLUGINS_CONFIG)
    plugins.setdefault('netbox_aifabric', {}).update(values)
    return override_settings(PLUGINS_CONFIG=plugins)


def evpn_body(world, **changes):
    """An EVPN/VXLAN fabric with MLAG pairing and every pool but the MLAG peer pool its pairs need."""
    p = world['prefixes']
    return {
        'name': 'EVPN',
        'slug': 'evpn',
        'site': world['sites'][0].pk,
        **FABRIC_SHAPE,
        'design_option': 'evpn-vxlan',
        'leaf_pairing': 'mlag',
        'loopback_pool': p['10.255.0.0/24'].pk,
        'vtep_pool': p['10.255.1.0/24'].pk,
        'p2p_pool': p['10.255.2.0/24'].pk,
        'leaf_asn_range': world['asn_ranges']['leaves'].pk,
        'spine_asn': 65100,
        'anycast_gateway_mac': '02:00:00:00:00:aa',
        **changes,
    }


class RefusedAtSaveTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        cls.world = make_world()

    def setUp(self):
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    def test_an_evpn_fabric_without_its_peer_pool_is_refused_in_every_status(self):
        for status in FabricStatusChoices.values():
            with self.subTest(status=status):
                body = evpn_body(self.world, status=status)
                response = self.client.post(f'{API}fabrics/', body, format='json', **self.header)
                self.assertHttpStatus(response, 400)
                # the planner's own message, on the pool's field
                self.assertEqual(response.data, {'mlag_peer_pool': ['the MLAG peer pool is required for this design']})
        self.assertFalse(Fabric.objects.exists())
        pool = self.world['prefixes']['10.255.3.0/28'].pk
        response = self.client.post(
            f'{API}fabrics/', evpn_body(self.world, mlag_peer_pool=pool), format='json', **self.header
        )
        self.assertHttpStatus(response, 201)
        pk = response.data['id']
        self.assertHttpStatus(self.client.post(f'{API}fabrics/{pk}/plan/', {}, format='json', **self.header), 200)
        # and the pool cannot be taken away again, in a draft neither
        body = {'status': 'draft', 'mlag_peer_pool': None}
        response = self.client.patch(f'{API}fabrics/{pk}/', body, format='json', **self.header)
        self.assertHttpStatus(response, 400)
        self.assertIn('mlag_peer_pool', response.data)
        self.assertEqual(Fabric.objects.get(pk=pk).mlag_peer_pool_id, pool)

    def test_format_characters_are_refused_in_names(self):
        for char in ('\u202e', '\u2066', '\u200b', '\ufeff'):
            body = {'name': f'RDMA{char}', 'slug': 'rdma', 'purpose': 'rdma'}
            response = self.client.post(f'{API}traffic-classes/', body, format='json', **self.header)
            self.assertHttpStatus(response, 400)
            self.assertIn(f'U+{ord(char):04X}', response.data['name'][0])
            response = self.client.post(
                f'{API}fabrics/', evpn_body(self.world, name=f'ai{char}lab'), format='json', **self.header
            )
            self.assertHttpStatus(response, 400)
            self.assertIn('Unicode format characters', response.data['name'][0])
        self.assertFalse(TrafficClass.objects.exists() or Fabric.objects.exists())


class PlanTimeNamesAndBoundsTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def setUp(self):
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    def plan(self):
        return self.client.post(f'{API}fabrics/{self.fabric.pk}/plan/', {}, format='json', **self.header)

    def test_a_vlan_name_netbox_cannot_store_is_refused_at_plan_time(self):
        self.assertHttpStatus(self.plan(), 200)
        rdma = self.fabric.traffic_classes.get(purpose='rdma')
        long_name = 'R' * 65  # TrafficClass.name takes 100; the VLAN it names, 64
        response = self.client.patch(f'{API}traffic-classes/{rdma.pk}/', {'name': long_name}, **self.header)
        self.assertHttpStatus(response, 200)
        response = self.plan()
        self.assertHttpStatus(response, 400)
        (field,) = response.data  # the REST plan names the spec's field: traffic_classes[<index>].name
        self.assertRegex(field, r'^traffic_classes\[\d+\]\.name$')
        (message,) = response.data[field]
        self.assertEqual(
            message, f'traffic class (its VLAN) name "{long_name}" has 65 characters; NetBox takes at most 64'
        )

    def test_a_plan_above_the_setting_is_refused_naming_it(self):
        nodes = 2 + 2 + 4 + 1  # the demo: spines, leaves, GPU servers, storage
        with plugin_setting(plan_max_nodes=nodes):
            self.assertHttpStatus(self.plan(), 200)
        with plugin_setting(plan_max_nodes=nodes - 1):
            response = self.plan()
            self.assertHttpStatus(response, 400)
            self.assertEqual(response.data['setting'], 'plan_max_nodes')
            expected = f"has {nodes} nodes, above PLUGINS_CONFIG['netbox_aifabric']['plan_max_nodes'] = {nodes - 1}"
            self.assertIn(expected, response.data['detail'])
            self.client.force_login(self.user)  # the tab is a UI page: a session, not the token
            tab = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk}))
            self.assertContains(tab, 'plan_max_nodes')
            self.assertContains(tab, 'Apply in the background')  # the apply stays reachable, as a job
        with plugin_setting(plan_max_nodes=None):
            self.assertHttpStatus(self.plan(), 200)

    def test_an_apply_above_the_setting_is_queued_without_a_preview(self):
        """The apply of such a fabric does not plan in the request either: it is queued, and the job plans, checks
        and applies it."""
        with plugin_setting(plan_max_nodes=1):
            response = self.client.post(f'{API}fabrics/{self.fabric.pk}/apply/', {}, format='json', **self.header)
            self.assertHttpStatus(response, 202)
            job = Job.objects.get(pk=response.data['job']['id'])
            self.assertEqual(self.fabric.owned_objects.count(), 0)
            ApplyFabricJob.handle(job)  # what the RQ worker does
        job.refresh_from_db()
        self.assertEqual((job.status, job.error), ('completed', ''))
        self.assertEqual(Fabric.objects.get(pk=self.fabric.pk).status, 'applied')

    def test_a_failed_background_apply_says_why_in_error(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(loopback_pool=None)
        job = ApplyFabricJob.enqueue(instance=self.fabric, user=self.user)
        ApplyFabricJob.handle(job)  # what the RQ worker does
        job = Job.objects.get(pk=job.pk)
        self.assertEqual(job.status, 'failed')
        self.assertTrue(job.error.startswith('pools.loopback: '), job.error)  # the planner's named error
        data = self.client.get(f'/api/core/jobs/{job.pk}/', **self.header).json()
        self.assertEqual(data['error'], job.error)


def resolved(schema, components):
    """``(schema, nullable)``: ``$ref`` and single-member ``allOf`` resolved; nullable if any level on the way says so
    (drf-spectacular writes a nullable reference as ``{"allOf": [{"$ref": …}], "nullable": true}``)."""
    nullable = False
    while True:
        nullable = nullable or bool(schema.get('nullable'))
        if '$ref' in schema:
            schema = components[schema['$ref'].rsplit('/', 1)[1]]
        elif len(schema.get('allOf', ())) == 1:
            schema = schema['allOf'][0]
        else:
            return schema, nullable


def nulls_the_schema_refuses(value, schema, components, path='$'):
    """Paths of ``value`` where it is null but its OpenAPI 3 schema does not say ``nullable``."""
    schema, nullable = resolved(schema, components)
    if value is None:
        return [] if nullable or 'oneOf' in schema or 'anyOf' in schema else [path]
    found = []
    if isinstance(value, dict) and 'properties' in schema:
        for key, item in value.items():
            if key in schema['properties']:
                found += nulls_the_schema_refuses(item, schema['properties'][key], components, f'{path}.{key}')
    elif isinstance(value, list) and 'items' in schema:
        for index, item in enumerate(value):
            found += nulls_the_schema_refuses(item, schema['items'], components, f'{path}[{index}]')
    return found


class OpenAPINullsTestCase(APITestCase):
    """Every object of every plugin endpoint, read back, has nulls only where /api/schema/ allows them (the schema
    said ``last_applied_by`` is never null; it is until the first apply)."""

    @classmethod
    def setUpTestData(cls):
        one_of_each()

    def test_responses_match_the_schema_nullability(self):
        self.user.is_superuser = True
        self.user.save()
        document = json.loads(self.client.get('/api/schema/?format=json', **self.header).content)
        components = document['components']['schemas']
        checked = 0
        for path, operations in document['paths'].items():
            if not (path.startswith(API) and path.endswith('/{id}/') and 'get' in operations):
                continue
            schema = operations['get']['responses']['200']['content']['application/json']['schema']
            listing = self.client.get(path.replace('{id}/', ''), **self.header).json()
            for row in listing['results']:
                data = self.client.get(path.replace('{id}', str(row['id'])), **self.header).json()
                self.assertEqual(nulls_the_schema_refuses(data, schema, components), [], path)
                checked += 1
        self.assertGreaterEqual(checked, 10)
        fabric = Fabric.objects.first()
        self.assertIsNone(self.client.get(f'{API}fabrics/{fabric.pk}/', **self.header).json()['last_applied_by'])


# Generated fabrics: whenever the planner refuses one, Fabric.full_clean(), the REST API and the form refuse it too,
# whatever its status (a draft too), naming a field, and nothing is written

fabrics = st.fixed_dictionaries(
    {
        'status': st.sampled_from(FabricStatusChoices.values()),
        'design_option': st.sampled_from(('routed', 'mlag', 'evpn-vxlan')),
        'leaf_pairing': st.sampled_from(('mlag', 'evpn-mh')),
        'underlay': st.sampled_from(('ebgp', 'ospf')),
        'spine_count': st.integers(0, 3),
        'max_spines': st.integers(0, 4),
        'leaf_count': st.integers(1, 5),
        'max_leaves': st.integers(1, 8),
        'server_count': st.integers(0, 6),
        'storage_count': st.integers(0, 2),
        'pools': st.sets(st.sampled_from(POOL_FIELDS)),
        'asns': st.booleans(),
        'oversubscription_target': st.sampled_from((None, Decimal('1'), Decimal('3'))),
    }
)


class SaveAgreesWithThePlannerTestCase(hypothesis.extra.django.TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.world = make_world()

    def values(self, drawn):
        """The drawn fabric as model values (related objects)."""
        p = self.world['prefixes']
        prefixes = dict(zip(POOL_FIELDS, ('10.255.0.0/24', '10.255.1.0/24', '10.255.2.0/24', '10.255.3.0/28')))
        shape = {k: v for k, v in FABRIC_SHAPE.items() if k not in drawn}
        values = {'name': 'Gen', 'slug': 'gen', 'site': self.world['sites'][0], 'bmc_attachment': 'oob', **shape}
        values.update({k: v for k, v in drawn.items() if k not in ('pools', 'asns')})
        values.update({field: p[prefixes[field]] for field in drawn['pools']})
        if drawn['asns']:
            values.update(leaf_asn_range=self.world['asn_ranges']['leaves'], spine_asn=65100)
        return values

    def refusals(self, drawn):
        """``{path: the fields its refusal names}`` for full_clean(), a REST POST and a form POST of the fabric
        (``set()``: saved)."""
        refused = {}
        try:
            Fabric(**self.values(drawn)).full_clean()
            refused['full_clean'] = set()
        except ValidationError as e:
            refused['full_clean'] = set(e.message_dict)
        body = {k: str(v) if isinstance(v, Decimal) else getattr(v, 'pk', v) for k, v in self.values(drawn).items()}
        user = User.objects.create_user('generator', is_superuser=True)
        token = Token.objects.create(user=user, write_enabled=True)
        header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        response = self.client.post(f'{API}fabrics/', body, content_type='application/json', **header)
        refused['api'] = set(response.json()) if response.status_code == 400 else set()
        self.client.force_login(user)
        response = self.client.post(reverse('plugins:netbox_aifabric:fabric_add'), form_payload(body))
        refused['form'] = set(response.context['form'].errors) if response.status_code == 200 else set()
        return refused

    @hypothesis_settings(
        max_examples=max(1, int(60 * SCALE)), deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(drawn=fabrics)
    def test_a_fabric_the_planner_refuses_is_refused_at_save(self, drawn):
        try:
            plan_fabric(fabric_spec(Fabric(**self.values(drawn)), pending=True))
            return  # planned: nothing to compare (clean has rules of its own, e.g. an even max_leaves for MLAG)
        except PlanError as e:
            planner_error = e
        for path, fields in self.refusals(drawn).items():
            self.assertTrue(
                fields - {NON_FIELD_ERRORS},
                f'{drawn}: {path} names no field, though the planner refuses {planner_error!r}',
            )
        self.assertEqual((Fabric.objects.count(), FabricNode.objects.count()), (0, 0))

    def test_the_issue_case_a_draft_without_its_peer_pool_is_refused_by_each_path(self):
        """The issue's fabric, as a draft: the guide's EVPN/VXLAN fabric, MLAG-paired, without its peer pool."""
        drawn = {'status': 'draft', 'design_option': 'evpn-vxlan', 'leaf_pairing': 'mlag', 'underlay': 'ebgp',
                 'pools': {'loopback_pool', 'vtep_pool', 'p2p_pool'}, 'asns': True}  # fmt: skip
        with self.assertRaises(PlanError) as raised:
            plan_fabric(fabric_spec(Fabric(**self.values(drawn)), pending=True))
        self.assertEqual(raised.exception.field, 'pools.mlag_peer')
        self.assertEqual(self.refusals(drawn), dict.fromkeys(('full_clean', 'api', 'form'), {'mlag_peer_pool'}))
        self.assertFalse(Fabric.objects.exists())
