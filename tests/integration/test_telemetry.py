"""Telemetry intent through NetBox: the fabric form and the REST API take the collectors, GraphQL and the
filter expose them, ``intent_of`` hands them to the contexts; and a property test: arbitrary values in the telemetry
fields, through the form and the REST API, end in a field error (the form shown again; HTTP 400) and nothing written,
or in a fabric whose stored values are valid (IPv4 addresses, within the size, a valid user and rate)."""

import json

import netaddr
import pytest
from django.test import TestCase
from django.urls import reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from core.models import ObjectChange
from dcim.models import Site
from users.constants import TOKEN_PREFIX
from users.models import Token, User

from netbox_aifabric.facts.telemetry import DEFAULT_SFLOW_SAMPLING_RATE, DEFAULT_SNMP_USER, NOTHING_OBSERVABLE
from netbox_aifabric.intake.intent import intent_of
from netbox_aifabric.models import Fabric, FabricNode
from netbox_aifabric.models.fabrics import COLLECTOR_FIELDS
from netbox_aifabric.validators import SNMP_USER
from tests.integration.base import FABRIC_SHAPE, make_world, own_pools

pytestmark = pytest.mark.netbox

EXAMPLES = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
SIZES = {'syslog_servers': 4, 'ntp_servers': 4, 'snmp_managers': 4, 'sflow_collectors': 2, 'streaming_collectors': 4}
ADDRESS = st.one_of(
    st.ip_addresses(v=4).map(str),
    st.ip_addresses(v=6).map(str),
    st.sampled_from(
        ['10.50.0.300', '10.50.0.0/24', '', ' ', 'collector', '10.50.0', '1e3', '０.0.0.1', '10.50.0.10\n']
    ),
    st.text(max_size=20),
    st.integers(-5, 2**33),
)
ADDRESSES = st.lists(ADDRESS, max_size=6)
FIELDS = {
    **dict.fromkeys(COLLECTOR_FIELDS, ADDRESSES),
    'snmp_version': st.sampled_from(['v3', 'v2c', 'v1', 'V3', '', None, 3]),
    'snmp_user': st.one_of(st.text(max_size=40), st.sampled_from(['nocwatch', 'abc', 'a' * 33, 'no watch', 'x@y'])),
    'sflow_sampling_rate': st.one_of(
        st.integers(-10, 2**24), st.sampled_from([255, 256, 8388608, 8388609, '4096', '1e4', '', None]), st.floats()
    ),
}


@st.composite
def fuzzed(draw):
    names = draw(st.lists(st.sampled_from(sorted(FIELDS)), min_size=1, max_size=4, unique=True))
    return {name: draw(FIELDS[name]) for name in names}


# what the add form preselects for the fields the payload leaves out (a browser posts them)
FORM_DEFAULTS = {
    'bmc_attachment': 'oob',
    'snmp_version': 'v3',
    'snmp_user': DEFAULT_SNMP_USER,
    'sflow_sampling_rate': DEFAULT_SFLOW_SAMPLING_RATE,
}


def written():
    return Fabric.objects.count(), FabricNode.objects.count(), ObjectChange.objects.count()


def assert_valid(fabric):
    for field, size in SIZES.items():
        values = getattr(fabric, field)
        assert len(values) <= size, field
        for value in values:
            assert netaddr.IPAddress(value).version == 4, (field, value)
    assert SNMP_USER.fullmatch(fabric.snmp_user)
    assert fabric.snmp_version in ('v3', 'v2c')
    assert 256 <= fabric.sflow_sampling_rate <= 8388608


class TelemetryFuzzTestCase(HypothesisTestCase):
    @classmethod
    def setUpTestData(cls):
        cls.site = Site.objects.create(name='Fuzz', slug='fuzz')
        cls.user = User.objects.create_user(username='fuzz', is_superuser=True)
        token = Token.objects.create(user=cls.user)
        cls.header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        # every pool and ASN the shape needs (the save refuses a fabric without them, as the planner does)
        cls.pools = {field: getattr(value, 'pk', value) for field, value in own_pools(make_world(), 1).items()}

    def setup_example(self):
        super().setup_example()
        self.client.force_login(self.user)

    def payload(self, values):
        return {'name': 'Fuzzed', 'slug': 'fuzzed', 'site': self.site.pk, **FABRIC_SHAPE, **self.pools, **values}

    def form_data(self, values):
        """The payload as the form posts it: lists comma-separated, the choices the page preselects."""
        data = {**FORM_DEFAULTS, **self.payload(values)}
        return {
            k: ','.join(str(x) for x in v) if isinstance(v, list) else str(v) for k, v in data.items() if v is not None
        }

    def outcome(self, before, accepted):
        event('accepted' if accepted else 'rejected')
        if accepted:
            assert_valid(Fabric.objects.get(slug='fuzzed'))
        else:
            self.assertEqual(written(), before)

    @EXAMPLES
    @given(values=fuzzed())
    def test_form(self, values):
        data = self.form_data(values)
        before = written()
        response = self.client.post(reverse('plugins:netbox_aifabric:fabric_add'), data)
        self.assertIn(response.status_code, (200, 302), response.content[:2000])
        if response.status_code == 200:
            self.assertTrue(response.context['form'].errors, 'shown again without an error')
        self.outcome(before, response.status_code == 302)

    @EXAMPLES
    @given(values=fuzzed())
    def test_rest_api(self, values):
        before = written()
        response = self.client.post(
            reverse('plugins-api:netbox_aifabric-api:fabric-list'),
            json.dumps(self.payload(values), default=str),
            content_type='application/json',
            **self.header,
        )
        self.assertIn(response.status_code, (201, 400), response.content[:2000])
        if response.status_code == 400:
            errors = response.json()
            self.assertTrue(set(errors) & set(values), f'the 400 names none of the fuzzed fields: {errors}')
        self.outcome(before, response.status_code == 201)


COLLECTORS = {
    'syslog_servers': ['10.50.0.10'],
    'ntp_servers': ['10.50.0.11', '10.50.0.12'],
    'snmp_managers': ['10.50.0.13'],
    'snmp_user': 'nocwatch',
    'sflow_collectors': ['10.50.0.14'],
    'sflow_sampling_rate': 4096,
    'streaming_collectors': ['10.50.0.13'],
}


class TelemetryAPITestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.site = Site.objects.create(name='Tel', slug='tel')
        cls.admin = User.objects.create_user(username='tel', is_superuser=True)
        token = Token.objects.create(user=cls.admin)
        cls.header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        # every pool and ASN the shape needs (the save refuses a fabric without them, as the planner does)
        cls.pools = {field: getattr(value, 'pk', value) for field, value in own_pools(make_world(), 1).items()}

    def create(self, **values):
        return self.client.post(
            reverse('plugins-api:netbox_aifabric-api:fabric-list'),
            json.dumps({'name': 'Tel', 'slug': 'tel', 'site': self.site.pk, **FABRIC_SHAPE, **self.pools, **values}),
            content_type='application/json',
            **self.header,
        )

    def test_defaults_no_collector(self):
        response = self.create()
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        self.assertEqual([body[f] for f in COLLECTOR_FIELDS], [[]] * len(COLLECTOR_FIELDS))
        self.assertEqual(
            (body['snmp_version']['value'], body['snmp_user'], body['sflow_sampling_rate']),
            ('v3', DEFAULT_SNMP_USER, DEFAULT_SFLOW_SAMPLING_RATE),
        )
        telemetry = intent_of(Fabric.objects.get(slug='tel'))['telemetry']
        self.assertEqual(telemetry['syslog'], [])
        self.assertIn('nothing is observable', NOTHING_OBSERVABLE)

    def test_collectors_round_trip_filter_and_intent(self):
        response = self.create(**COLLECTORS)
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        for field, value in COLLECTORS.items():
            self.assertEqual(body[field], value, field)
        fabric = Fabric.objects.get(slug='tel')
        telemetry = intent_of(fabric)['telemetry']
        self.assertEqual(
            (
                telemetry['syslog'],
                telemetry['ntp'],
                telemetry['snmp_managers'],
                telemetry['sflow'],
                telemetry['streaming'],
            ),
            (['10.50.0.10'], ['10.50.0.11', '10.50.0.12'], ['10.50.0.13'], ['10.50.0.14'], ['10.50.0.13']),
        )
        url = reverse('plugins-api:netbox_aifabric-api:fabric-list')
        observable = self.client.get(f'{url}?observable=true', **self.header).json()
        blind = self.client.get(f'{url}?observable=false', **self.header).json()
        self.assertEqual(([r['slug'] for r in observable['results']], blind['count']), (['tel'], 0))

    def test_too_many_and_bad_addresses_are_field_errors(self):
        response = self.create(sflow_collectors=['10.0.0.1', '10.0.0.2', '10.0.0.3'], syslog_servers=['2001:db8::1'])
        self.assertEqual(response.status_code, 400, response.content)
        self.assertEqual(set(response.json()), {'sflow_collectors', 'syslog_servers'})
        self.assertFalse(Fabric.objects.filter(slug='tel').exists())

    def test_graphql_exposes_the_collectors(self):
        self.create(**COLLECTORS)
        self.client.force_login(self.admin)
        query = '{ netbox_aifabric_fabric_list { slug syslog_servers sflow_collectors snmp_version snmp_user } }'
        response = self.client.post(reverse('graphql'), json.dumps({'query': query}), content_type='application/json')
        data = json.loads(response.content)
        self.assertNotIn('errors', data, data)
        self.assertEqual(
            data['data']['netbox_aifabric_fabric_list'],
            [
                {
                    'slug': 'tel',
                    'syslog_servers': ['10.50.0.10'],
                    'sflow_collectors': ['10.50.0.14'],
                    'snmp_version': 'v3',
                    'snmp_user': 'nocwatch',
                }
            ],
        )

    def test_form_takes_comma_separated_addresses(self):
        self.client.force_login(self.admin)
        data = {
            'name': 'Tel',
            'slug': 'tel',
            'site': self.site.pk,
            **{k: str(v) for k, v in {**FORM_DEFAULTS, **FABRIC_SHAPE, **self.pools}.items()},
            'syslog_servers': '10.50.0.10',
            'ntp_servers': '10.50.0.11,10.50.0.12',
            'snmp_version': 'v2c',
            'snmp_user': 'aifabric',
            'sflow_sampling_rate': '4096',
        }
        response = self.client.post(reverse('plugins:netbox_aifabric:fabric_add'), data)
        self.assertEqual(response.status_code, 302, response.context['form'].errors if response.context else '')
        fabric = Fabric.objects.get(slug='tel')
        self.assertEqual((fabric.ntp_servers, fabric.snmp_version), (['10.50.0.11', '10.50.0.12'], 'v2c'))
