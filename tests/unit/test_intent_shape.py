"""The typed intent (facts/intent.py) is the shape the contexts are built from: the registry's traffic-class fields,
and the demo's intent as tests/render_fixtures builds it (which tests/integration/test_guide_intent.py holds equal to
the real ``intent_of``), key for key and type for type."""

import types
import typing

import pytest

from netbox_aifabric.facts.intent import FabricIntent, TrafficClassIntent
from netbox_aifabric.planner import registry
from tests.render_fixtures import guide_intent

pytestmark = pytest.mark.pure


def mismatches(value, hint, path='intent') -> list[str]:
    """Where ``value`` departs from the type ``hint``: missing or extra TypedDict keys, wrong scalar types."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any:
        return []
    if origin in (typing.Union, types.UnionType):
        found = [mismatches(value, arg, path) for arg in args]
        return [] if any(not f for f in found) else found[0]
    if typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return [f'{path}: {type(value).__name__}, not a dict']
        hints = typing.get_type_hints(hint)
        problems = [f'{path}.{key}: missing' for key in hint.__required_keys__ - value.keys()]
        problems += [f'{path}.{key}: not declared' for key in value.keys() - hints.keys()]
        for key in hints.keys() & value.keys():
            problems += mismatches(value[key], hints[key], f'{path}.{key}')
        return problems
    if origin is list:
        if not isinstance(value, list):
            return [f'{path}: {type(value).__name__}, not a list']
        return [p for i, item in enumerate(value) for p in mismatches(item, args[0], f'{path}[{i}]')]
    if origin is dict:
        if not isinstance(value, dict):
            return [f'{path}: {type(value).__name__}, not a dict']
        return [p for k, item in value.items() for p in mismatches(item, args[1], f'{path}[{k!r}]')]
    if hint is type(None):
        return [] if value is None else [f'{path}: {value!r}, not None']
    if hint is int and isinstance(value, bool):
        return [f'{path}: {value!r}, not an int']
    return [] if isinstance(value, hint) else [f'{path}: {value!r}, not {hint.__name__}']


def test_the_traffic_class_keys_are_the_registrys_intent_fields():
    assert set(typing.get_type_hints(TrafficClassIntent)) == {f.intent for f in registry.intent_fields()}


@pytest.mark.parametrize('design', ('evpn-vxlan', 'mlag', 'routed'))
def test_the_demo_intent_has_the_declared_shape(design):
    assert mismatches(guide_intent(design), FabricIntent) == []


def test_a_departure_from_the_shape_is_named():
    """Negative control: a missing key, an undeclared one and a wrong type are each named."""
    intent = guide_intent('evpn-vxlan')
    del intent['fabric']['slug']
    intent['extra'] = 1
    intent['fabric']['mtu'] = '9216'
    intent['traffic_classes'][0]['lossless'] = 'yes'
    assert sorted(mismatches(intent, FabricIntent)) == [
        'intent.extra: not declared',
        "intent.fabric.mtu: '9216', not int",
        'intent.fabric.slug: missing',
        "intent.traffic_classes[0].lossless: 'yes', not bool",
    ]
