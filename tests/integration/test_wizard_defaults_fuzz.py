"""Property: arbitrary input in the wizard's newer fields — the NOS per role (``leaf_nos``,
``spine_nos``), the jump-host subnet with its "leave management open" acknowledgement (``jump_host_prefix``,
``open_management``), the management switch type (``management_device_type``: the shipped one, a type without
copper ports, an unknown id or text), the intent step's telemetry collectors and settings (the fabric form's fields,
fuzzed as ``test_telemetry`` fuzzes that form) and the preview form's submission token (``submission``) — never causes
a server error. A step either moves on or answers with errors only at these fields, and writes nothing; a preview
warns for exactly the services left empty; a token that is not the wizard's is a named error with nothing written, a
well-formed one creates the fabric once.

Each example runs in a savepoint rolled back after it (``tests/hypothesis_profiles.py`` scales the counts)."""

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from core.models import ObjectChange
from dcim.models import Device, DeviceType
from ipam.models import ASNRange, Prefix

from netbox_aifabric.apply.seed import load_device_types
from netbox_aifabric.facts.catalog import MANAGEMENT_DEVICE_TYPE
from netbox_aifabric.facts.nos import NOS_REGISTRY
from netbox_aifabric.models import Fabric, FabricNode
from netbox_aifabric.models.fabrics import COLLECTOR_FIELDS
from tests.hypothesis_profiles import examples
from tests.integration.test_telemetry import fuzzed as fuzzed_telemetry
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

TEXT = st.one_of(st.text(max_size=40), st.sampled_from(['', ' ', '\x00', 'x' * 3000, 'on', 'off', 'true', '0']))
NOS = st.one_of(st.sampled_from([t.platform_slug for t in NOS_REGISTRY] + ['', 'SONIC', 'none', 'junos']), TEXT)
PREFIX = st.one_of(
    st.sampled_from(['192.0.2.16/28', '192.0.2.17/28', '10.0.0.0/8', '::/0', '192.0.2.16', '0.0.0.0/0', '']),
    st.builds(lambda a, b: f'{a}/{b}', st.ip_addresses(v=4).map(str), st.integers(-1, 40)),
    TEXT,
)
# 'shipped': the shipped management switch; 'leaf': a shipped type without 1000BASE-T ports (a named plan error)
MANAGEMENT_TYPE = st.one_of(st.sampled_from(['', 'shipped', 'leaf']), st.integers(-2, 10**12).map(str), TEXT)
# the preview's service of each collector field (checks/observability.py)
SERVICE_OF = dict(zip(COLLECTOR_FIELDS, ('syslog', 'ntp', 'snmp', 'sflow', 'streaming'), strict=True))
# besides test_telemetry's fuzz (mostly refused), valid collector lists: the accepted ones reach the preview
VALID_COLLECTORS = st.fixed_dictionaries(
    {}, optional={field: st.lists(st.ip_addresses(v=4).map(str), max_size=2, unique=True) for field in COLLECTOR_FIELDS}
)
TELEMETRY = st.one_of(fuzzed_telemetry(), VALID_COLLECTORS)
TOKEN = st.one_of(st.text(alphabet='0123456789abcdef', min_size=30, max_size=34), st.uuids().map(str), TEXT)


def as_posted(values):
    """Field values as a browser posts them: lists comma-separated, a missing value (None) not sent."""
    return {k: ','.join(map(str, v)) if isinstance(v, list) else str(v) for k, v in values.items() if v is not None}


def written():
    return tuple(model.objects.count() for model in (Fabric, FabricNode, Prefix, ASNRange, Device, ObjectChange))


class WizardDefaultsFuzzTestCase(HypothesisTestCase, WizardBase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        load_device_types()
        cls.device_types = {
            'shipped': DeviceType.objects.get(slug=MANAGEMENT_DEVICE_TYPE).pk,
            'leaf': DeviceType.objects.get(slug='arista-dcs-7050sx3-48yc8').pk,
        }

    def setUp(self):
        pass  # each example logs in afresh: its session is rolled back with it

    def post_step(self, step, fields, named):
        before = written()
        response = self.client.post(url(step), fields)
        self.assertLess(response.status_code, 500)
        if response.status_code == 200:
            errors = set(response.context['form'].errors)
            event(f'{step}: refused at {sorted(errors)}')
            self.assertTrue(errors, 'answered 200 without an error')
            self.assertLessEqual(errors, named, repr(fields))
        self.assertEqual(written(), before, f'the {step} step wrote')
        return response.status_code == 302

    @settings(max_examples=examples(60), deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(leaf_nos=NOS, spine_nos=NOS, jump=PREFIX, ack=TEXT, mgmt=MANAGEMENT_TYPE)
    def test_nos_and_management_fields_end_in_a_named_error_or_move_on(self, leaf_nos, spine_nos, jump, ack, mgmt):
        self.client.force_login(self.user)
        self.walk(until='design')
        topology = {**self.steps['topology'], 'leaf_nos': leaf_nos, 'spine_nos': spine_nos}
        if not self.post_step('topology', topology, {'leaf_nos', 'spine_nos'}):
            return
        pools = {**self.steps['pools'], 'jump_host_prefix': jump, 'open_management': ack}
        pools['management_device_type'] = self.device_types.get(mgmt, mgmt)
        if not ack:
            del pools['open_management']  # an unticked box is not sent
        named = {'jump_host_prefix', 'open_management', 'management_device_type'}
        if not self.post_step('pools', pools, named):
            return
        self.client.post(url('intent'), self.steps['intent'])
        before = written()
        response = self.client.get(url('preview'))
        self.assertLess(response.status_code, 500)
        self.assertEqual(written(), before, 'the preview wrote')
        if response.status_code == 200:
            event(f'preview: {sorted(r["code"] for r in response.context["apply_reasons"])}')

    @settings(max_examples=examples(30), deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(values=TELEMETRY)
    def test_telemetry_fields_end_in_a_named_error_or_warn_for_what_is_left_empty(self, values):
        self.client.force_login(self.user)
        self.walk(until='pools')
        posted = as_posted(values)
        if not self.post_step('intent', {**self.steps['intent'], **posted}, set(values)):
            return
        before = written()
        response = self.client.get(url('preview'))
        self.assertEqual(response.status_code, 200)
        self.assertEqual(written(), before, 'the preview wrote')
        empty = [SERVICE_OF[field] for field in COLLECTOR_FIELDS if not posted.get(field)]
        event(f'preview: {len(empty)} services without a collector')
        warning = response.context['observability']
        self.assertEqual(warning['missing'] if warning else [], empty, repr(posted))

    @settings(max_examples=examples(40), deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(token=TOKEN)
    def test_a_submission_token_is_the_wizards_or_a_named_error(self, token):
        self.client.force_login(self.user)
        self.walk()
        before = written()
        response = self.client.post(url('preview'), {'_create': '1', 'submission': token}, follow=True)
        self.assertLess(response.status_code, 500)
        created = Fabric.objects.filter(slug=self.steps['design']['slug']).count()
        well_formed = len(token) == 32 and all(c in '0123456789abcdef' for c in token)
        if token and not well_formed:
            event('refused')
            self.assertContains(response, 'submission: not a token of this wizard; nothing was written.')
            self.assertEqual(written(), before)
        else:
            event('created' if token else 'created without a token')
            self.assertEqual(created, 1)
