"""Typed request bodies of the fabric actions (plan, apply, render-config, avd): a bad body or id is a 4xx naming the
field and writes nothing, "false" is false, and the OpenAPI schema declares the bodies and responses."""

import json

import hypothesis.extra.django
import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.settings import api_settings

from core.models import Job, ObjectChange
from dcim.models import Cable, Device, Interface
from ipam.models import ASN, VLAN, IPAddress, Prefix
from utilities.testing import APITestCase
from vpn.models import L2VPN

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric, OwnedObject
from tests.integration import test_apply

pytestmark = pytest.mark.netbox

PERMISSIONS = [
    *test_apply.APPLY_PERMISSIONS,
    'dcim.view_device',
    'dcim.render_config_device',
    'extras.view_configtemplate',
]
ACTIONS = ('plan', 'apply', 'render-config')
BOOLEAN_FIELDS = {'plan': ['confirm_delete'], 'apply': ['confirm_delete', 'background'], 'render-config': []}


def snapshot():
    """What a request could write: the objects an apply makes, the change log and jobs."""
    models = (Device, Interface, Cable, Prefix, IPAddress, VLAN, ASN, L2VPN, OwnedObject, ObjectChange, Job)
    return {m._meta.label: m.objects.count() for m in models}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=5,
)
bodies = st.one_of(
    st.dictionaries(
        st.sampled_from(['confirm_delete', 'background', 'config_template_id', 'greeting']), json_values, max_size=3
    ),
    json_values,
)


class FabricActionTestCase(APITestCase):
    """The demo fabric, applied; the user may plan, apply and render it."""

    user_permissions = PERMISSIONS

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)  # a re-apply of the unchanged fabric writes nothing

    def url(self, action, pk=None):
        return reverse(f'plugins-api:netbox_aifabric-api:fabric-{action}', kwargs={'pk': pk or self.fabric.pk})

    def post(self, action, body, pk=None):
        """``body`` is sent as it is, JSON-encoded (a list or a string too)."""
        return self.client.post(
            self.url(action, pk), data=json.dumps(body), content_type='application/json', **self.header
        )


class FabricActionInputTestCase(FabricActionTestCase):
    def assert_refused(self, action, body, field, status=400):
        before = snapshot()
        response = self.post(action, body)
        self.assertHttpStatus(response, status)
        self.assertIn(field, response.data, f'{action} {body!r}: {response.data}')
        self.assertEqual(snapshot(), before, f'{action} {body!r} wrote something')
        return response

    def test_false_strings_do_not_confirm_deletions(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(spine_count=1)  # spine2 and its uplinks are to be deleted
        # deletions of NetBox objects (the fabric's own spine2 node goes with the spine count, confirmed or not)
        deleted = ObjectChange.objects.filter(action='delete').exclude(changed_object_type__app_label='netbox_aifabric')
        for value in ('false', 'no', 'off', '0', 0, False):
            before, deletions = snapshot(), deleted.count()
            response = self.post('apply', {'confirm_delete': value})
            self.assertHttpStatus(response, 200)
            self.assertTrue(Device.objects.filter(name='ai-lab-fabric-spine2').exists())
            after = snapshot()
            # the unconfirmed apply may log updates (as in test_apply's shrink), but no object is deleted
            self.assertEqual(after | {'core.ObjectChange': 0}, before | {'core.ObjectChange': 0}, value)
            self.assertEqual(deleted.count(), deletions, value)
        response = self.post('apply', {'confirm_delete': 'true'})  # and "true" is true
        self.assertHttpStatus(response, 200)
        self.assertFalse(Device.objects.filter(name='ai-lab-fabric-spine2').exists())

    def test_false_string_does_not_queue_a_job(self):
        for value in ('false', 'no', '0'):
            jobs = Job.objects.count()
            response = self.post('apply', {'background': value})
            self.assertHttpStatus(response, 200)
            self.assertTrue(response.data['applied'])
            self.assertEqual(Job.objects.count(), jobs)

    def test_invalid_booleans_are_a_400_naming_the_field(self):
        for action, fields in BOOLEAN_FIELDS.items():
            for field in fields:
                for value in ('maybe', 2, None, [], {'a': 1}):
                    self.assert_refused(action, {field: value}, field)

    def test_body_that_is_not_an_object_is_a_400(self):
        for action in ACTIONS:
            for body in ([], [{'confirm_delete': True}], 'confirm_delete', 3, None):
                self.assert_refused(action, body, api_settings.NON_FIELD_ERRORS_KEY)  # '__all__' in NetBox

    def test_config_template_id_of_the_wrong_type_is_a_400(self):
        for value in ({'id': 1}, [1], 'one', 1.5, -1, 10**30, True):
            self.assert_refused('render-config', {'config_template_id': value}, 'config_template_id')

    def test_unknown_keys_are_a_400_naming_them(self):
        # an unknown key was silently ignored; now it is refused by name and nothing is written
        # (render-config is not strict: as NetBox's own render-config, its other keys are the templates' context)
        for action in ('plan', 'apply'):
            self.assert_refused(action, {'confirm': True, 'confirm_delete': False}, 'confirm')

    def test_non_numeric_fabric_id_is_a_404(self):
        for action in ACTIONS:
            before = snapshot()
            self.assertHttpStatus(self.post(action, {}, pk='abc'), 404)
            self.assertEqual(snapshot(), before)
        url = reverse('plugins-api:netbox_aifabric-api:fabric-avd', kwargs={'pk': 'abc'})
        self.assertHttpStatus(self.client.get(url, **self.header), 404)


class FabricActionFuzzTestCase(hypothesis.extra.django.TestCase, FabricActionTestCase):
    """Random bodies (objects with the known keys and others, lists, strings, numbers, null): never a 5xx, and a 4xx
    writes nothing. Each example runs in its own transaction, rolled back after it."""

    @settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(action=st.sampled_from(ACTIONS), body=bodies)
    def test_fuzz_bodies(self, action, body):
        before = snapshot()
        response = self.post(action, body)
        self.assertLess(response.status_code, 500, f'{action} {body!r}: {response.status_code}')
        if 400 <= response.status_code < 500:
            self.assertEqual(snapshot(), before, f'{action} {body!r} answered {response.status_code} but wrote')


class FabricActionSchemaTestCase(APITestCase):
    def test_actions_declare_request_bodies_and_responses(self):
        self.user.is_superuser = True
        self.user.save()
        response = self.client.get('/api/schema/?format=json', **self.header)
        self.assertHttpStatus(response, 200)
        paths = json.loads(response.content)['paths']
        for action in ('plan', 'apply', 'render-config'):
            operation = paths[f'/api/plugins/aifabric/fabrics/{{id}}/{action}/']['post']
            self.assertIn('requestBody', operation, action)
            body = operation['requestBody']['content']['application/json']['schema']
            self.assertIn('$ref', body, action)
            ok = operation['responses']['200']['content']['application/json']['schema']
            self.assertIn('$ref', ok, f'{action}: {ok}')  # a named component, not a bare object
        apply = paths['/api/plugins/aifabric/fabrics/{id}/apply/']['post']['responses']
        self.assertIn('202', apply)
        self.assertIn('409', apply)
        avd = paths['/api/plugins/aifabric/fabrics/{id}/avd/']['get']['responses']['200']
        self.assertIn('$ref', avd['content']['application/json']['schema'])


class NestedObjectInputTestCase(APITestCase):
    """A related object given as attributes of the wrong type is a 400 on its field, not a 500."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_related_object_attributes_of_the_wrong_type_are_a_400(self):
        # POST …/fabric-nodes/ with {"device": {"id": ""}} was a 500: NetBox's queryset.get(id='') raised ValueError
        self.user.is_superuser = True
        self.user.save()
        node = self.fabric.nodes.first()
        for url, field in (
            (reverse('plugins-api:netbox_aifabric-api:fabricnode-list'), 'device'),
            (reverse('plugins-api:netbox_aifabric-api:fabricnode-detail', kwargs={'pk': node.pk}), 'fabric'),
            (reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.fabric.pk}), 'site'),
            (reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.fabric.pk}), 'qos_profile'),
        ):
            for value in ({'id': ''}, {'id': 'x'}, {'id': [1]}, {'id': {'id': 1}}):
                before = snapshot()
                method = self.client.post if url.endswith('-nodes/') else self.client.patch
                # a node's own fields for the node endpoints only: on the fabric they are unknown (a 400 of their own)
                node_fields = {'fabric': self.fabric.pk, 'role': 'gpu', 'node_id': 99, 'name': 'n99'}
                body = {**(node_fields if '/fabric-nodes/' in url else {}), field: value}
                response = method(url, data=json.dumps(body), content_type='application/json', **self.header)
                self.assertHttpStatus(response, 400)
                self.assertIn(field, response.data, f'{url} {field}={value!r}: {response.data}')
                self.assertEqual(snapshot(), before)
