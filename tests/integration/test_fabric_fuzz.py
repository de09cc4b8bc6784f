"""Property: arbitrary sizes, speeds, MTU, oversubscription target, design and pairing through the fabric form and
the REST API never cause a server error. Each submission is either accepted, or answered with field errors (the form
shown again; HTTP 400) and nothing written: no fabric, no node, no change-log entry.

Every example hits the database, so the example count is kept small; each runs in a savepoint rolled back after it.
"""

import json
from decimal import Decimal

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from core.models import ObjectChange
from dcim.models import Site
from users.constants import TOKEN_PREFIX
from users.models import Token, User

from netbox_aifabric.models import Fabric, FabricNode
from tests.integration.base import FABRIC_SHAPE, make_world, own_pools

pytestmark = pytest.mark.netbox

EXAMPLES = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

WEIRD = st.sampled_from(['', 'four', '1.5', '1e3', '-0', '０', ' 7 ', 'null', '[]', '9' * 30])
# Counts that create nodes stay small when valid (a valid 20,000 would write 20,000 nodes); the rest is anything
COUNT = st.one_of(st.integers(-5, 60), st.sampled_from([32767, 32768, 40000, -32769, 2**63]), WEIRD)
MAXIMUM = st.one_of(st.integers(-5, 40000), st.sampled_from([32768, 2**31, -1]), WEIRD)
SPEED = st.one_of(st.sampled_from([0, 1, 7, 10, 25, 100, 400, 800, 1600, -100]), st.floats(), WEIRD)
MTU = st.one_of(st.integers(-100, 100000), st.sampled_from([67, 68, 9216, 9217, 2**31]), st.floats(), WEIRD)
TARGET = st.one_of(
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(['1', '1.00', '3', '100', '100.01', '0.99', '1.125', 'nan', 'inf', '-inf', '1e2', '1E-3']),
    st.integers(-10, 1000),
    WEIRD,
    st.none(),
)
PAIRING = st.sampled_from(['mlag', 'evpn-mh', 'esi-lag', 'MLAG', '', None, 1])
DESIGN = st.sampled_from(['routed', 'mlag', 'evpn-vxlan', 'clos', ''])

FIELDS = {
    'design_option': DESIGN,
    'leaf_pairing': PAIRING,
    'spine_count': COUNT,
    'max_spines': MAXIMUM,
    'leaf_count': COUNT,
    'max_leaves': MAXIMUM,
    'uplinks_per_spine': COUNT,
    'max_parallel_uplinks': MAXIMUM,
    'server_count': COUNT,
    'storage_count': COUNT,
    'server_nic_count': COUNT,
    'rdma_nic_count': COUNT,
    'uplink_speed': SPEED,
    'server_nic_speed': SPEED,
    'rdma_nic_speed': SPEED,
    'mtu': MTU,
    'oversubscription_target': TARGET,
}


@st.composite
def fuzzed(draw):
    """A few fields of the (valid) guide's cluster replaced by arbitrary values: none (accepted), one or several."""
    names = draw(st.lists(st.sampled_from(sorted(FIELDS)), max_size=4, unique=True))
    return {name: draw(FIELDS[name]) for name in names}


def written():
    return Fabric.objects.count(), FabricNode.objects.count(), ObjectChange.objects.count()


class FabricFuzzTestCase(HypothesisTestCase):
    """(Hypothesis runs each example between Django's per-test setup and teardown, so the user, its token and the
    site are class data, and each example logs in afresh.)"""

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

    def check_rejected_wrote_nothing(self, before, accepted):
        event('accepted' if accepted else 'rejected')
        if accepted:
            fabric = Fabric.objects.get(slug='fuzzed')
            self.assertEqual(fabric.nodes.count(), sum(1 for _ in fabric.planned_nodes()[0]))
            self.assertGreaterEqual(fabric.oversubscription_target or Decimal(1), Decimal(1))
        else:
            self.assertEqual(written(), before)

    @EXAMPLES
    @given(values=fuzzed())
    def test_form(self, values):
        data = {k: str(v) for k, v in self.payload(values).items() if v is not None}
        before = written()
        response = self.client.post(reverse('plugins:netbox_aifabric:fabric_add'), data)
        self.assertIn(response.status_code, (200, 302), response.content[:2000])
        if response.status_code == 200:
            self.assertTrue(response.context['form'].errors, 'shown again without an error')
        self.check_rejected_wrote_nothing(before, response.status_code == 302)

    @EXAMPLES
    @given(values=fuzzed())
    def test_rest_api(self, values):
        data = self.payload(values)
        before = written()
        response = self.client.post(
            reverse('plugins-api:netbox_aifabric-api:fabric-list'),
            json.dumps(data, default=str),
            content_type='application/json',
            **self.header,
        )
        self.assertIn(response.status_code, (201, 400), response.content[:2000])
        if response.status_code == 400:
            self.assertTrue(response.json(), 'a 400 names its fields')
        self.check_rejected_wrote_nothing(before, response.status_code == 201)

    def test_the_shape_itself_is_accepted(self):
        """The base of every example is valid: a rejection comes from the fuzzed values."""
        self.client.force_login(self.user)
        response = self.client.post(
            reverse('plugins-api:netbox_aifabric-api:fabric-list'),
            json.dumps(self.payload({})),
            content_type='application/json',
            **self.header,
        )
        self.assertEqual(response.status_code, 201, response.content)
