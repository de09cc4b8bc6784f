"""Design options and traffic-class fields, declared once.

Pure (no Django): the planner reads it, and so do the NetBox layer (``choices.DesignOptionChoices``, the wizard's
advice, ``intake/spec.py``, ``intake.intent.intent_of``) and the tests (``tests/render_fixtures.guide_intent``).
Adding a design option or a traffic-class field starts here; docs/development.md lists the few places left to touch.
"""

from dataclasses import dataclass
from typing import Any, Literal

__all__ = (
    'DESIGNS',
    'DESIGN_OPTIONS',
    'EVPN_DESIGNS',
    'TRAFFIC_CLASS_FIELDS',
    'DesignOption',
    'FieldKind',
    'TrafficClassField',
    'design_option',
    'intent_fields',
    'plain_value',
    'spec_fields',
)


@dataclass(frozen=True)
class DesignOption:
    """One fabric design: its stored ``value``, its ``label`` and badge ``color`` (NetBox's ChoiceSet), whether it
    runs an EVPN/VXLAN overlay, and the guide's one-line ``advice`` (the wizard shows it beside the choice)."""

    value: str
    label: str
    color: str
    evpn: bool
    advice: str


DESIGN_OPTIONS: tuple[DesignOption, ...] = (
    DesignOption(
        'mlag',
        'MLAG dual-ToR',
        'blue',
        evpn=False,
        advice='The easiest design for one rack: servers bond to two switches. Expansion across racks becomes '
        'vendor-specific and fragile if Layer 2 grows too far.',
    ),
    DesignOption(
        'routed',
        'Routed leaf-spine',
        'green',
        evpn=False,
        advice='VLANs local to each rack: a strong default when workloads stay in one rack or failure domain; '
        'predictable ECMP, simple troubleshooting, less broadcast.',
    ),
    DesignOption(
        'evpn-vxlan',
        'EVPN/VXLAN',
        'purple',
        evpn=True,
        advice='When workloads move between racks, tenants need separation or you want one model for VRFs and '
        'stretched segments; engineers must know VTEPs, VNIs, route targets and anycast gateways.',
    ),
)
DESIGNS: tuple[str, ...] = tuple(option.value for option in DESIGN_OPTIONS)
EVPN_DESIGNS: frozenset[str] = frozenset(option.value for option in DESIGN_OPTIONS if option.evpn)


def design_option(value: str) -> DesignOption:
    """The design option stored as ``value`` (KeyError names an unknown one)."""
    for option in DESIGN_OPTIONS:
        if option.value == value:
            return option
    raise KeyError(f'{value!r} is not a design option: one of {", ".join(DESIGNS)}')


# How a field's model value becomes plain data: ``value`` as it is; ``list`` a list (an empty one for None);
# ``prefix`` an ipam.Prefix → its CIDR string (None when unset); ``name`` a related object → its name (None when
# unset); ``names`` a many-to-many → the sorted names of its members.
FieldKind = Literal['value', 'list', 'prefix', 'name', 'names']


@dataclass(frozen=True)
class TrafficClassField:
    """One field of the TrafficClass model as the rest of the plugin reads it.

    ``field`` is the model field (and the key in ``data/traffic_classes.json``); ``intent`` its key in the class
    dicts of ``intent_of`` (the contexts' input), ``None`` when the configs do not need it; ``spec`` the planner's
    ``planner.spec.TrafficClass`` attribute, ``None`` when the planner does not need it; ``kind`` how its value
    becomes plain data (:data:`FieldKind`).
    """

    field: str
    intent: str | None = None
    spec: str | None = None
    kind: FieldKind = 'value'


# In the order of the intent's class dicts and of the planner's TrafficClass arguments.
TRAFFIC_CLASS_FIELDS: tuple[TrafficClassField, ...] = (
    TrafficClassField('name', intent='name', spec='name'),
    TrafficClassField('purpose', intent='purpose', spec='purpose'),
    TrafficClassField('vid', intent='vid', spec='vlan'),
    TrafficClassField('vrf', spec='vrf', kind='name'),
    TrafficClassField('dscp', intent='dscp', kind='list'),
    TrafficClassField('switch_priority', intent='priority'),
    TrafficClassField('queue', intent='queue'),
    TrafficClassField('lossless', intent='lossless', spec='lossless'),
    TrafficClassField('ecn', intent='ecn'),
    TrafficClassField('mtu', intent='mtu', spec='mtu'),
    TrafficClassField('prefix', intent='prefix', spec='subnet', kind='prefix'),
    TrafficClassField('routed', spec='routed'),
    TrafficClassField('reachability', intent='reachability'),
    TrafficClassField('reachable_from', intent='reachable_from', kind='names'),
)


def intent_fields() -> tuple[TrafficClassField, ...]:
    """The traffic-class fields the contexts need (``intent_of``'s class dicts), in their order."""
    return tuple(f for f in TRAFFIC_CLASS_FIELDS if f.intent is not None)


def spec_fields() -> tuple[TrafficClassField, ...]:
    """The traffic-class fields the planner needs (``planner.spec.TrafficClass``), in their order."""
    return tuple(f for f in TRAFFIC_CLASS_FIELDS if f.spec is not None)


def plain_value(record: Any, field: TrafficClassField) -> Any:
    """``record``'s ``field`` (a TrafficClass model instance's, read by attribute) as plain data, by its kind."""
    value = getattr(record, field.field)
    if field.kind == 'list':
        return list(value or [])
    if field.kind == 'prefix':
        return str(value.prefix) if value is not None else None
    if field.kind == 'name':
        return value.name if value is not None else None
    if field.kind == 'names':
        return sorted(other.name for other in value.all())
    return value
