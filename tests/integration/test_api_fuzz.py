"""A fuzz test over every REST endpoint of the plugin: list, create, bulk update/delete, detail
read/update/delete of every model, and the fabric actions (plan, apply, render-config, avd), with arbitrary JSON
bodies, query parameters and path ids. Never a 5xx, and a 4xx writes nothing: the plugin's rows (every column, the
many-to-many tables too) and the counts of the NetBox objects an apply writes are the same before and after.

hypothesis drives it (not schemathesis): the bodies are built from the plugin's serializers and from real objects
mutated a field or two at a time, so that they get past the field checks into the models' ``clean()`` and the
planner, where the 500s were; each example runs in its own transaction, rolled back after it. The endpoint list is
checked against the OpenAPI schema (``/api/schema/``), so a new endpoint without fuzzing fails
``test_every_plugin_endpoint_is_fuzzed``. See docs/development.md.
"""

import json
import os
from urllib.parse import quote, urlencode

import hypothesis.extra.django
import pytest
from django.apps import apps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import Job, ObjectChange
from dcim.models import Cable, Device, DeviceRole, DeviceType, Interface, Manufacturer
from extras.models import Tag, TaggedItem
from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix, RouteTarget, VLANGroup
from users.models import User
from utilities.testing import APITestCase
from vpn.models import L2VPN, L2VPNTermination

from netbox_aifabric.acceptance.store import store_lab_run
from netbox_aifabric.api.urls import router
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import (
    AcceptanceResult,
    AcceptanceRun,
    ConfigBackup,
    EVPNTenant,
    Fabric,
    FabricNode,
    QoSProfile,
    TrafficClass,
    TrafficFlow,
)
from tests.integration import test_compliance_runs as compliance_runs

pytestmark = pytest.mark.netbox

API = '/api/plugins/aifabric/'
ENDPOINTS = {  # URL prefix: model
    'traffic-classes': TrafficClass,
    'qos-profiles': QoSProfile,
    'evpn-tenants': EVPNTenant,
    'fabrics': Fabric,
    'fabric-nodes': FabricNode,
    'traffic-flows': TrafficFlow,
    'acceptance-runs': AcceptanceRun,
    'acceptance-results': AcceptanceResult,
    'config-backups': ConfigBackup,
}
READ_ONLY_ENDPOINTS = {'acceptance-results'}  # results come from the lab or an upload: GET only
NEVER_EDITED = {'config-backups'}  # a backup is what a switch ran: read, uploaded, deleted, never updated
# detail actions of fabrics: (action, method)
ACTIONS = (
    ('plan', 'post'),
    ('apply', 'post'),
    ('render-config', 'post'),
    ('avd', 'get'),
    ('compliance', 'get'),
    ('compliance', 'post'),
    ('lab', 'get'),
    ('lab', 'post'),
    ('bom', 'get'),
    ('cabling', 'get'),
    ('traffic', 'get'),
)
LIST_METHODS = ('get', 'post', 'put', 'patch', 'delete')  # the list URL: list, create, bulk update, bulk delete
DETAIL_METHODS = ('get', 'put', 'patch', 'delete')
NETBOX_MODELS = (  # what an apply (or a write through the plugin) can create in NetBox
    Device,
    DeviceType,
    DeviceRole,
    Manufacturer,
    Interface,
    Cable,
    Prefix,
    IPAddress,
    VLAN,
    VLANGroup,
    VRF,
    RouteTarget,
    ASN,
    L2VPN,
    L2VPNTermination,
    Tag,
    TaggedItem,
    ObjectChange,
    Job,
)
# AIFABRIC_FUZZ_SCALE=10 runs ten times the examples (a longer hunt; the default keeps the module under a minute)
SCALE = float(os.environ.get('AIFABRIC_FUZZ_SCALE', '1'))
READ_ONLY = {'id', 'url', 'display_url', 'display', 'created', 'last_updated', 'node_count', 'fabric_count'}


def examples(n):
    return settings(
        max_examples=max(1, int(n * SCALE)), deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )


def snapshot():
    """Every row of the plugin's tables (the many-to-many ones too) and the counts of the NetBox objects."""
    state = {}
    for model in apps.get_app_config('netbox_aifabric').get_models(include_auto_created=True):
        state[model._meta.label] = list(model.objects.order_by('pk').values())
    for model in NETBOX_MODELS:
        state[model._meta.label] = model.objects.count()
    return state


TRICKY_STRINGS = (
    '',
    ' ',
    '0',
    '-1',
    '1.5',
    '1e9',
    'abc',
    'null',
    'true',
    '²',  # str.isdigit(), but int() refuses it
    '٣',  # an Arabic-Indic 3: int() takes it
    '01',
    '9' * 30,
    'a\nb',
    '\x00',
    '../',
    '%',
    '🙂',
    'x' * 101,
    'a-' * 60,
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-2, max_value=70_000),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(TRICKY_STRINGS),
    st.text(max_size=8),
    st.text(alphabet='abcdefghijklmnopqrstuvwxyz0123456789-', min_size=40, max_size=130),
)
keys = st.one_of(st.text(max_size=5), st.sampled_from(('0', '3', '7', '8', 'id', 'name', '²', '٣', '-1', '01')))
json_values = st.recursive(
    scalars, lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3), max_leaves=6
)
field_values = st.one_of(
    json_values,
    st.integers(min_value=0, max_value=40),  # small numbers: counts, and ids of objects that exist
    st.builds(lambda pk: {'id': pk}, st.integers(min_value=-1, max_value=40)),
    st.lists(st.integers(min_value=-1, max_value=70), max_size=4),
    st.dictionaries(keys, st.integers(min_value=-1, max_value=200) | scalars, max_size=4),  # DWRR weights and such
)
# Values aimed at what a field means (lengths around the columns and the names derived from them, counts beyond the
# ports, tricky traffic-class keys), drawn as often as the arbitrary ones
FIELD_VALUES = {
    'name': st.text(min_size=1, max_size=110) | st.builds(lambda tail: 'N' * 90 + tail, st.text(max_size=10)),
    'slug': st.text(alphabet='abcxyz0123456789-_', min_size=1, max_size=110),
    'dwrr_weights': st.dictionaries(keys, st.integers(min_value=-1, max_value=101) | scalars, max_size=3),
    'l2vni_base': st.integers(min_value=-1, max_value=2**24 + 1),
    **dict.fromkeys(
        ('server_count', 'storage_count', 'leaf_count', 'spine_count', 'rdma_nic_count', 'server_nic_count'),
        st.integers(min_value=0, max_value=400),
    ),
}
path_ids = st.one_of(
    st.integers(min_value=-3, max_value=60),
    st.integers(min_value=2**31 - 2, max_value=2**70),
    st.sampled_from(('abc', '0x1', '1.5', ' 1', '1 ', '٣', '²', '-0', '1e3', "1'", '%00', '..')),
)
query_params = st.lists(
    st.tuples(
        st.sampled_from(
            (
                'id',
                'id__n',
                'id__gt',
                'q',
                'name',
                'slug',
                'limit',
                'offset',
                'ordering',
                'brief',
                'fields',
                'omit',
                'exclude',
                'tag',
                'site_id',
                'fabric_id',
                'device_id',
                'vid',
                'mode',
                'role',
                'status',
                'design_option',
                'l3vni',
                'created__gte',
                'last_updated',
                'cf_x',
                'format',
            )
        ),
        st.one_of(
            st.sampled_from(TRICKY_STRINGS),
            st.text(max_size=6),
            st.integers(min_value=-(2**70), max_value=2**70).map(str),
            st.sampled_from(('name', '-name', 'id', 'display', 'pk', 'api', 'json')),
        ),
    ),
    max_size=3,
)


def read_only_fields(prefix):
    """The read-only fields of an endpoint's serializer: sent, they are a 400 of their own, so the
    templates leave them out to reach the models' ``clean()`` and the planner."""
    viewset = next(v for p, v, _b in router.registry if p == prefix)
    return {name for name, field in viewset.serializer_class().fields.items() if field.read_only}


def writable(data, read_only=READ_ONLY):
    """A GET response as a request body: nested objects as their ids, choices as their values, read-only keys
    dropped."""
    body = {}
    for key, value in data.items():
        if key in read_only:
            continue
        if isinstance(value, dict) and 'value' in value and 'label' in value:
            value = value['value']
        elif isinstance(value, dict) and 'id' in value:
            value = value['id']
        elif isinstance(value, list) and value and all(isinstance(v, dict) and 'id' in v for v in value):
            value = [v['id'] for v in value]
        body[key] = value
    return body


@st.composite
def mutated(draw, template):
    """``template`` with one to three fields set to arbitrary values (or dropped)."""
    body = dict(template)
    for key in draw(st.lists(st.sampled_from(sorted(template)), min_size=1, max_size=3, unique=True)):
        if draw(st.integers(min_value=0, max_value=9)) == 0:
            body.pop(key)
        elif key in FIELD_VALUES and draw(st.booleans()):
            body[key] = draw(FIELD_VALUES[key])
        else:
            body[key] = draw(field_values)
    return body


class APIFuzzTestCase(hypothesis.extra.django.TestCase, APITestCase):
    """The demo fabric, applied, and a superuser (so that permissions refuse nothing and every code path runs)."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)
        TrafficFlow.objects.create(fabric=cls.fabric, source_group='gpu', destination_group='storage', gbps=10)
        AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual')
        lab = {'checks': [{'name': 'bgp a -> b', 'kind': 'bgp', 'status': 'failed', 'expected': 'E', 'seen': 'A'}]}
        store_lab_run(cls.fabric, None, lab)
        leaf = Device.objects.filter(name__contains='leaf').order_by('name').first()
        ConfigBackup.objects.create(
            fabric=cls.fabric, device=leaf, source='upload', content=f'hostname {leaf}\n', sha256='0' * 64, size=9
        )
        cls.ids = {prefix: list(model.objects.values_list('pk', flat=True)) for prefix, model in ENDPOINTS.items()}

    def setUp(self):
        # hypothesis wraps each example, not each test, in a transaction: the user of the test before is still there
        User.objects.filter(username='testuser').delete()
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    def request(self, method, url, body=None, params=None):
        if params:
            url = f'{url}?{urlencode(params)}'
        kwargs = {}
        if body is not None and method != 'get':  # the test client sends a GET's data as its query string
            kwargs = {'data': json.dumps(body), 'content_type': 'application/json'}
        return getattr(self.client, method)(url, **kwargs, **self.header)

    def assert_sound(self, method, url, body=None, params=None):
        """The request answers below 500, and writes nothing when it answers a 4xx. Returns the response."""
        before = snapshot()
        response = self.request(method, url, body, params)
        what = f'{method.upper()} {url} params={params!r} body={body!r}'
        self.assertLess(response.status_code, 500, f'{what}: {response.status_code} {response.content[:2000]!r}')
        if 400 <= response.status_code < 500:
            self.assertEqual(snapshot(), before, f'{what} answered {response.status_code} but wrote')
        return response

    def template(self, prefix, data, new=None):
        """A valid body of ``prefix`` from an existing object; for a create, with a name/slug/node id not taken."""
        pk = data.draw(st.sampled_from(self.ids[prefix]))
        body = writable(self.request('get', f'{API}{prefix}/{pk}/').json(), READ_ONLY | read_only_fields(prefix))
        if data.draw(st.booleans(), label='as a new object') if new is None else new:
            body.update({k: v for k, v in {'name': 'Fuzz', 'slug': 'fuzz', 'node_id': 99}.items() if k in body})
            if prefix == 'fabrics':  # the demo fabric's pools belong to it
                body.update(dict.fromkeys(('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool'), None))
        return pk, body

    @examples(150)
    @given(prefix=st.sampled_from(sorted(ENDPOINTS)), data=st.data())
    def test_fuzz_models(self, prefix, data):
        """List, create, bulk update/delete and detail read/update/delete of every model."""
        pk, template = self.template(prefix, data)
        body = data.draw(st.one_of(mutated(template), st.dictionaries(st.sampled_from(sorted(template)), field_values)))
        kind = data.draw(st.sampled_from(('list', 'detail', 'bulk', 'anything')), label='kind')
        if kind == 'list':
            method = data.draw(st.sampled_from(('get', 'post')), label='method')
            params = data.draw(query_params, label='params') if method == 'get' else None
            self.assert_sound(method, f'{API}{prefix}/', None if method == 'get' else body, params)
        elif kind == 'detail':
            method = data.draw(st.sampled_from(DETAIL_METHODS), label='method')
            target = data.draw(st.one_of(st.just(pk), path_ids), label='id')
            self.assert_sound(method, f'{API}{prefix}/{quote(str(target), safe="")}/', body)
        elif kind == 'bulk':
            method = data.draw(st.sampled_from(('post', 'put', 'patch', 'delete')), label='method')
            target = data.draw(st.one_of(st.just(pk), path_ids, json_values), label='id')
            self.assert_sound(method, f'{API}{prefix}/', [{**body, 'id': target}, *data.draw(st.lists(json_values))])
        else:
            method = data.draw(st.sampled_from(LIST_METHODS), label='method')
            self.assert_sound(method, f'{API}{prefix}/', data.draw(json_values, label='body'))

    @examples(40)
    @given(
        action=st.sampled_from(ACTIONS),
        target=st.one_of(st.none(), path_ids),
        body=st.one_of(
            json_values,
            st.dictionaries(
                st.sampled_from(('confirm_delete', 'background', 'config_template_id', 'greeting')), json_values
            ),
        ),
        params=query_params,
    )
    def test_fuzz_fabric_actions(self, action, target, body, params):
        """plan, apply, render-config, avd, compliance and lab with arbitrary ids, bodies and query parameters."""
        (name, method), target = action, self.fabric.pk if target is None else target
        url = f'{API}fabrics/{quote(str(target), safe="")}/{name}/'
        self.assert_sound(method, url, None if method == 'get' else body, params)

    @examples(25)
    @given(data=st.data())
    def test_fuzz_fabric_changes_then_plan_and_apply(self, data):
        """A fabric change the API accepts is one the planner accepts: PATCH the applied demo fabric with a field or
        two changed, then plan (200: the planner takes what the save took, a pool or ASN left empty included, since
        the save refuses what the planner refuses) and apply (never a 5xx)."""
        _pk, template = self.template('fabrics', data, new=False)
        body = data.draw(mutated(template), label='body')
        response = self.assert_sound('patch', f'{API}fabrics/{self.fabric.pk}/', body)
        if response.status_code != 200:
            return
        plan = self.assert_sound('post', f'{API}fabrics/{self.fabric.pk}/plan/', {})
        self.assertEqual(plan.status_code, 200, f'PATCH {body!r} saved, but the plan refuses it: {plan.data}')
        self.assert_sound('post', f'{API}fabrics/{self.fabric.pk}/apply/', {'confirm_delete': True})


class EndpointCoverageTestCase(APITestCase):
    def test_every_plugin_endpoint_is_fuzzed(self):
        """Every path and method of the plugin in the OpenAPI schema is one the fuzz sends requests to."""
        self.user.is_superuser = True
        self.user.save()
        response = self.client.get('/api/schema/?format=json', **self.header)
        self.assertHttpStatus(response, 200)
        schema = json.loads(response.content)['paths']
        published = {
            (path, method)
            for path, operations in schema.items()
            if path.startswith(API)
            for method in operations
            if method in ('get', 'post', 'put', 'patch', 'delete')
        }
        fuzzed = set()
        for prefix in ENDPOINTS:
            list_methods, detail_methods = LIST_METHODS, DETAIL_METHODS
            if prefix in READ_ONLY_ENDPOINTS:
                list_methods = detail_methods = ('get',)
            elif prefix in NEVER_EDITED:
                list_methods, detail_methods = ('get', 'post', 'delete'), ('get', 'delete')
            fuzzed.update((f'{API}{prefix}/', method) for method in list_methods)
            fuzzed.update((f'{API}{prefix}/{{id}}/', method) for method in detail_methods)
        fuzzed.add((f'{API}acceptance-runs/{{id}}/upload/', 'post'))  # tests/integration/test_acceptance_fuzz.py
        fuzzed.update((f'{API}fabrics/{{id}}/{action}/', method) for action, method in ACTIONS)
        for prefix in compliance_runs.FUZZED_ENDPOINTS:  # read-only, fuzzed in test_compliance_runs
            fuzzed.update({(f'{API}{prefix}/', 'get'), (f'{API}{prefix}/{{id}}/', 'get')})
        self.assertEqual(published - fuzzed, set(), 'endpoints the fuzz does not send requests to')
        self.assertEqual(fuzzed - published, set(), 'endpoints the fuzz expects but the schema does not publish')
