"""tests/render_fixtures.py builds the demo fabric's intent without a database (``guide_intent``) for the pure
template tests. This holds that copy equal to the real ``intent_of`` (intake/intent.py) of the seeded demo, so a
traffic-class or QoS field added to one and not the other fails here, naming the field."""

import pytest
from django.test import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.facts.intent import FabricIntent
from netbox_aifabric.intake.intent import intent_of
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import registry
from tests.render_fixtures import guide_intent
from tests.unit.test_intent_shape import mismatches

pytestmark = pytest.mark.netbox


class GuideIntentTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_traffic_classes_qos_and_management_equal_the_real_intent(self):
        real = intent_of(self.fabric)
        copy = guide_intent(self.fabric.design_option, self.fabric.underlay)
        for key in ('traffic_classes', 'qos', 'management', 'telemetry'):
            with self.subTest(key=key):
                self.assertEqual(copy[key], real[key])

    def test_the_real_intent_has_the_typed_shape_with_every_key(self):
        """facts/intent.py's FabricIntent, the keys a spec-file intent may leave out included."""
        real = intent_of(self.fabric)
        self.assertEqual(mismatches(real, FabricIntent), [])
        self.assertEqual(set(real), set(FabricIntent.__annotations__))

    def test_the_fabric_keys_the_templates_read_are_equal(self):
        real, copy = intent_of(self.fabric)['fabric'], guide_intent(self.fabric.design_option)['fabric']
        for key in ('design', 'underlay', 'mtu'):
            with self.subTest(key=key):
                self.assertEqual(copy[key], real[key])


class NewTrafficClassFieldTestCase(TestCase):
    """A traffic-class field declared in planner/registry.py reaches intent_of and its database-free copy alike."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_a_declared_field_reaches_both_intents(self):
        fields = (*registry.TRAFFIC_CLASS_FIELDS, registry.TrafficClassField('description', intent='description'))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(registry, 'TRAFFIC_CLASS_FIELDS', fields)
            real = intent_of(self.fabric)['traffic_classes']
            copy = guide_intent(self.fabric.design_option, self.fabric.underlay)['traffic_classes']
        self.assertEqual(copy, real)
        expected = dict(self.fabric.traffic_classes.values_list('name', 'description'))
        self.assertEqual({tc['name']: tc['description'] for tc in real}, expected)
        self.assertTrue(all(tc['description'] for tc in real))
