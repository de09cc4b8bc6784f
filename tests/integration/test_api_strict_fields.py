"""Unknown and read-only fields are a 400 naming them on every plugin endpoint that takes a body (a tenant
POST with ``import_targets`` answered 201 without route targets; DRF drops such keys silently), and nothing is
written. NetBox's identity and timestamp keys (``id``, ``url``, ``display``, ``created``, …) stay accepted, so a GET
body sent back works. A hypothesis fuzz adds arbitrary unknown keys and every read-only key to valid POST and PATCH
bodies of every writable endpoint; a control sends the same bodies without the extra key and sees them written."""

import json

import hypothesis.extra.django
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipam.models import Prefix
from users.models import User
from utilities.testing import APITestCase

from netbox_aifabric.api.serializers import ECHOED_FIELDS
from netbox_aifabric.api.urls import router
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import AcceptanceRun, EVPNTenant, Fabric, TrafficFlow
from tests.integration.base import OWN_POOLS
from tests.integration.test_api_fuzz import READ_ONLY, SCALE, read_only_fields, snapshot, writable

pytestmark = pytest.mark.netbox

API = '/api/plugins/aifabric/'
VIEWSETS = {prefix: viewset for prefix, viewset, _basename in router.registry}
WRITABLE = ('traffic-classes', 'qos-profiles', 'evpn-tenants', 'fabrics', 'fabric-nodes', 'traffic-flows',
            'acceptance-runs')  # fmt: skip
NEW = {'name': 'Strict', 'slug': 'strict', 'node_id': 77}  # a create's unique keys, where the model has them


def fields(prefix):
    """``(writable, read-only)`` field names of the endpoint's serializer."""
    declared = VIEWSETS[prefix].serializer_class().fields
    return (
        {name for name, f in declared.items() if not f.read_only},
        {name for name, f in declared.items() if f.read_only},
    )


def body_of(prefix, data):
    """A GET representation as a request body of its writable fields (test_api_fuzz's, every read-only key left out)."""
    return writable(data, READ_ONLY | read_only_fields(prefix))


class StrictFieldsTestCase(hypothesis.extra.django.TestCase, APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        TrafficFlow.objects.create(fabric=cls.fabric, source_group='gpu', destination_group='storage', gbps=10)
        AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual')

    def setUp(self):
        User.objects.filter(username='testuser').delete()  # hypothesis: one transaction per example, not per test
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    def send(self, method, url, body):
        return getattr(self.client, method)(url, data=json.dumps(body), content_type='application/json', **self.header)

    def existing(self, prefix):
        model = VIEWSETS[prefix].queryset.model
        objects = model.objects.filter(role='gpu') if prefix == 'fabric-nodes' else model.objects  # ids up to 99
        return objects.order_by('pk').first()

    def template(self, prefix, create):
        """A valid body: the first object's writable fields; for a create, with free unique keys (the demo fabric's
        pools are its own: a new fabric gets pools of its own, as save refuses a fabric without the ones it needs)."""
        obj = self.existing(prefix)
        body = body_of(prefix, self.client.get(f'{API}{prefix}/{obj.pk}/', **self.header).json())
        if create:
            body.update({k: v for k, v in NEW.items() if k in body})
            if prefix == 'fabrics':  # the demo fabric's pools and management network are its own
                own = {
                    field: Prefix.objects.get_or_create(prefix=f'10.160.{4 * i}.0/{length}', vrf=None)[0].pk
                    for i, (field, length) in enumerate(OWN_POOLS)
                }
                unset = dict.fromkeys(('management_pool', 'jump_host_prefix', 'management_gateway'), None)
                body.update({**own, **unset, 'status': 'draft'})
            if prefix == 'fabric-nodes':
                body['name'] = 'strict-node'
        return obj, body

    def refused(self, method, url, body, key):
        before = snapshot()
        response = self.send(method, url, body)
        what = f'{method.upper()} {url} {body!r}'
        self.assertEqual(response.status_code, 400, f'{what}: {response.content[:1500]!r}')
        self.assertIn(str(key), response.json(), f'{what}: the 400 does not name {key!r}')
        self.assertEqual(snapshot(), before, f'{what} answered 400 but wrote')

    def test_the_issue_case_a_tenant_post_with_import_targets(self):
        _obj, body = self.template('evpn-tenants', create=True)
        self.refused('post', f'{API}evpn-tenants/', {**body, 'import_targets': [1]}, 'import_targets')
        response = self.send('post', f'{API}evpn-tenants/', body)  # control: the same body without the key
        self.assertEqual(response.status_code, 201, response.content)
        self.assertEqual(EVPNTenant.objects.filter(slug='strict').count(), 1)

    def test_every_template_is_valid_without_the_extra_key(self):
        """The control of the fuzz: the bodies it adds keys to are written (POST 201, PATCH 200) as they are."""
        for prefix in WRITABLE:
            with self.subTest(prefix=prefix):
                obj, body = self.template(prefix, create=False)
                response = self.send('patch', f'{API}{prefix}/{obj.pk}/', body)
                self.assertEqual(response.status_code, 200, f'{prefix}: {response.content[:1500]!r}')
                _obj, body = self.template(prefix, create=True)
                response = self.send('post', f'{API}{prefix}/', body)
                self.assertEqual(response.status_code, 201, f'{prefix}: {response.content[:1500]!r}')

    def test_identity_keys_of_a_get_are_accepted_back(self):
        obj = self.existing('traffic-classes')
        data = self.client.get(f'{API}traffic-classes/{obj.pk}/', **self.header).json()
        body = {**body_of('traffic-classes', data), **{k: data[k] for k in ECHOED_FIELDS if k in data}}
        self.assertEqual(self.send('put', f'{API}traffic-classes/{obj.pk}/', body).status_code, 200)

    def test_action_bodies_refuse_unknown_keys(self):
        for action in ('plan', 'apply'):
            url = f'{API}fabrics/{self.fabric.pk}/{action}/'
            self.refused('post', url, {'confirm_deletes': True}, 'confirm_deletes')
        run = AcceptanceRun.objects.get(kind='manual')
        body = {'tool': 'ping', 'output': 'x', 'subject': 'a', 'colour': 'red'}
        self.refused('post', f'{API}acceptance-runs/{run.pk}/upload/', body, 'colour')

    @settings(
        max_examples=max(1, int(60 * SCALE)), deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(data=st.data())
    def test_fuzz_unknown_and_read_only_keys(self, data):
        prefix = data.draw(st.sampled_from(WRITABLE), label='endpoint')
        create = data.draw(st.booleans(), label='create')
        obj, body = self.template(prefix, create)
        writable, read_only = fields(prefix)
        unknown = st.text(min_size=1, max_size=12).filter(lambda k: k not in writable | read_only)
        extra = sorted(read_only - ECHOED_FIELDS)  # traffic classes have none
        key = data.draw(st.one_of(unknown, st.sampled_from(extra)) if extra else unknown, label='key')
        value = data.draw(
            st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2))
        )
        body = {**body, key: value}
        if create:
            self.refused('post', f'{API}{prefix}/', body, key)
        else:
            self.refused('patch', f'{API}{prefix}/{obj.pk}/', body, key)
