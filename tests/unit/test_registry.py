"""planner/registry.py declares the design options and the traffic-class fields once; these hold every reader to it
(the choices, the planner's spec and its EVPN flag, the model, the seed data, the database-free intent copy)."""

import dataclasses
import json

import pytest

from netbox_aifabric.choices import DesignOptionChoices
from netbox_aifabric.models import TrafficClass as TrafficClassModel
from netbox_aifabric.planner import TrafficClass, load_spec, registry
from netbox_aifabric.planner.registry import DESIGN_OPTIONS, DESIGNS, TRAFFIC_CLASS_FIELDS, TrafficClassField
from tests.render_fixtures import DATA, guide_intent, guide_spec

pytestmark = pytest.mark.pure
SEED_CLASSES = json.loads((DATA / 'traffic_classes.json').read_text())


def test_every_design_choice_is_in_the_registry_and_back():
    assert [(value, str(label), color) for value, label, color in DesignOptionChoices.CHOICES] == [
        (option.value, option.label, option.color) for option in DESIGN_OPTIONS
    ]
    assert len(set(DESIGNS)) == len(DESIGNS)


@pytest.mark.parametrize('option', DESIGN_OPTIONS, ids=lambda option: option.value)
def test_the_planners_evpn_flag_is_the_registrys(option):
    assert load_spec(guide_spec('routed') | {'design': option.value}).evpn is option.evpn
    assert option.advice and option.label


def test_every_field_is_a_model_field_and_a_seed_key():
    for field in TRAFFIC_CLASS_FIELDS:
        TrafficClassModel._meta.get_field(field.field)  # FieldDoesNotExist names a stale entry
    keys = set().union(*SEED_CLASSES)
    assert {f.field for f in TRAFFIC_CLASS_FIELDS if f.intent} <= keys


def test_spec_fields_are_the_planners_traffic_class():
    attributes = [f.spec for f in registry.spec_fields()]
    assert len(set(attributes)) == len(attributes)
    required = {f.name for f in dataclasses.fields(TrafficClass) if f.default is dataclasses.MISSING}
    assert required <= set(attributes) <= {f.name for f in dataclasses.fields(TrafficClass)}


def test_the_intent_copy_has_exactly_the_registrys_keys():
    for tc in guide_intent('routed')['traffic_classes']:
        assert list(tc) == [f.intent for f in registry.intent_fields()]


def test_a_new_field_flows_into_the_intent_copy(monkeypatch):
    """Declaring a field is all the database-free intent needs (tests/integration/test_guide_intent.py: intent_of)."""
    fields = (*TRAFFIC_CLASS_FIELDS, TrafficClassField('description', intent='description'))
    monkeypatch.setattr(registry, 'TRAFFIC_CLASS_FIELDS', fields)
    by_vid = {tc['vid']: tc['description'] for tc in SEED_CLASSES}
    classes = guide_intent('mlag')['traffic_classes']
    assert [tc['description'] for tc in classes] == [by_vid[tc['vid']] for tc in classes]
