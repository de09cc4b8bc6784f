"""Names that reach device configs refuse control characters (a newline in a fabric name rendered a second
``router bgp``). Through each model's ``full_clean()``, the UI form and the REST API; the demo's and the guide's
names still pass."""

import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.test import TestCase as DjangoTestCase
from django.urls import reverse
from rest_framework import status

from dcim.models import Device, DeviceRole, DeviceType, Manufacturer
from users.constants import TOKEN_PREFIX
from users.models import Token
from utilities.testing import TestCase

from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass
from tests.integration.base import FABRIC_SHAPE, LOSSLESS, make_world, own_pools

pytestmark = pytest.mark.netbox

INJECTION = 'AI Lab\nrouter bgp 666\n neighbor 192.0.2.66 remote-as 666'
MESSAGE = 'Control characters are not allowed'
DATA_DIR = Path(__file__).resolve().parents[2] / 'netbox_aifabric' / 'data'
HOSTILE = ['a\nb', 'a\rb', 'a\x00b', 'a\tb', 'a\x1bb', 'a\x7fb', 'a\x85b', 'a\u2028b', INJECTION]


class ModelFullCleanTestCase(DjangoTestCase):
    """``full_clean()`` names the field of every name that reaches a config."""

    @classmethod
    def setUpTestData(cls):
        cls.world = make_world()
        cls.fabric = Fabric.objects.create(name='F', slug='f', site=cls.world['sites'][0], **FABRIC_SHAPE)
        cls.pools = own_pools(cls.world, 1)  # a fabric the planner accepts: only its name can be refused

    def objects(self, name):
        fabric = Fabric(name=name, slug='x', site=self.world['sites'][0], **FABRIC_SHAPE, **self.pools)
        return {
            'Fabric.name': (fabric, 'name'),
            'FabricNode.name': (FabricNode(fabric=self.fabric, role='gpu', node_id=9, name=name), 'name'),
            'TrafficClass.name': (TrafficClass(name=name, slug='x', purpose='rdma'), 'name'),
            'EVPNTenant.name': (EVPNTenant(name=name, slug='x', l3vni=50010), 'name'),
            'QoSProfile.name': (QoSProfile(name=name, slug='x', **LOSSLESS), 'name'),
            'QoSProfile.preset': (QoSProfile(name='X', slug='x', preset=name, **LOSSLESS), 'preset'),
        }

    def test_control_characters_are_refused(self):
        for value in HOSTILE:
            for what, (obj, field) in self.objects(value).items():
                with self.subTest(what=what, value=value), self.assertRaises(ValidationError) as raised:
                    obj.full_clean()
                self.assertIn(field, raised.exception.message_dict)
                self.assertTrue(any(MESSAGE in m for m in raised.exception.message_dict[field]))

    def test_printable_names_pass(self):
        for value in ('AI Lab', 'ai-lab-leaf1', 'RDMA', 'Tenant A/B: "x" {y} #1 - é', 'NVIDIA Cumulus lossless'):
            for what, (obj, field) in self.objects(value).items():
                with self.subTest(what=what, value=value):
                    obj.full_clean(exclude=[f for f in ('fabric', 'slug') if what != 'FabricNode.name'])

    def test_the_demo_and_guide_names_pass(self):
        """The seed data's traffic classes and QoS presets (what the demo and the guide load) are valid names."""
        classes = json.loads((DATA_DIR / 'traffic_classes.json').read_text())
        presets = json.loads((DATA_DIR / 'qos_presets.json').read_text())
        names = [tc['name'] for tc in classes] + [p['name'] for p in presets] + [p['slug'] for p in presets]
        names += ['AI Lab', 'ai-lab-spine1', 'ai-lab-leaf4', 'ai-lab-gpu12', 'ai-lab-storage1']
        for name in names:
            for field in ('name', 'preset'):
                QoSProfile._meta.get_field(field).run_validators(name)
            for model in (Fabric, FabricNode, TrafficClass, EVPNTenant):
                model._meta.get_field('name').run_validators(name)


class AdoptedDeviceTestCase(DjangoTestCase):
    def test_an_adopted_device_name_with_a_newline_is_refused(self):
        world = make_world()
        fabric = Fabric.objects.create(name='F', slug='f', site=world['sites'][0], **FABRIC_SHAPE)
        manufacturer = Manufacturer.objects.create(name='M', slug='m')
        device = Device.objects.create(
            name='leaf9\nrouter bgp 666',
            site=world['sites'][0],
            device_type=DeviceType.objects.create(manufacturer=manufacturer, model='T', slug='t'),
            role=DeviceRole.objects.create(name='R', slug='r'),
        )
        node = FabricNode(fabric=fabric, role='gpu', node_id=9, name='gpu9', device=device)
        with self.assertRaises(ValidationError) as raised:
            node.full_clean()
        self.assertIn(MESSAGE, ' '.join(raised.exception.message_dict['device']))
        with self.assertRaises(ValidationError):
            fabric.adopt_devices([device], 'gpu')
        self.assertFalse(FabricNode.objects.filter(device=device).exists())


class FormAndAPITestCase(TestCase):
    """The UI form and the REST API answer with the field error, and write nothing."""

    user_permissions = [
        'netbox_aifabric.add_trafficclass',
        'netbox_aifabric.add_fabric',
        'dcim.view_site',
        'ipam.view_prefix',
    ]

    @classmethod
    def setUpTestData(cls):
        cls.world = make_world()

    def setUp(self):
        super().setUp()
        self.token = Token.objects.create(user=self.user)
        self.header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{self.token.key}.{self.token.token}'}

    def data(self, model):
        return {
            TrafficClass: {'name': INJECTION, 'slug': 'x', 'purpose': 'rdma', 'routed': True},
            Fabric: {'name': INJECTION, 'slug': 'x', 'site': self.world['sites'][0].pk, **FABRIC_SHAPE},
        }[model]

    def test_form_refuses_a_name_with_a_newline(self):
        for model in (Fabric, TrafficClass):
            with self.subTest(model=model.__name__):
                payload = {k: v for k, v in self.data(model).items() if v is not None}
                payload['routed'] = 'on'
                response = self.client.post(reverse(f'plugins:netbox_aifabric:{model._meta.model_name}_add'), payload)
                self.assertEqual(response.status_code, 200)
                errors = response.context['form'].errors
                self.assertIn('name', errors, errors.as_data())
                self.assertTrue(any(MESSAGE in e for e in errors['name']), errors['name'])
                self.assertFalse(model.objects.filter(slug='x').exists())

    def test_api_refuses_a_name_with_a_newline(self):
        for model in (Fabric, TrafficClass):
            with self.subTest(model=model.__name__):
                url = reverse(f'plugins-api:netbox_aifabric-api:{model._meta.model_name}-list')
                response = self.client.post(url, self.data(model), content_type='application/json', **self.header)
                self.assertEqual(response.status_code, status.HTTP_400_BAD_REQUEST, response.content)
                body = response.json()
                self.assertIn('name', body, body)
                self.assertTrue(any(MESSAGE in m for m in body['name']), body)
                self.assertFalse(model.objects.filter(slug='x').exists())

    def test_api_accepts_the_same_name_without_it(self):
        url = reverse('plugins-api:netbox_aifabric-api:trafficclass-list')
        data = {**self.data(TrafficClass), 'name': 'AI Lab router bgp 666'}
        response = self.client.post(url, data, content_type='application/json', **self.header)
        self.assertEqual(response.status_code, status.HTTP_201_CREATED, response.content)
