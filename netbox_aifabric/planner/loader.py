"""Build a :class:`FabricSpec` from plain data (a dict parsed from YAML or JSON), rejecting what it does not know.

Unknown keys, wrong types and missing required keys raise :class:`SpecError` naming the path of the key; nothing is
silently dropped.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from netbox_aifabric.planner.errors import SpecError
from netbox_aifabric.planner.spec import (
    FabricSpec,
    ManagementSwitch,
    Maximums,
    NicLayout,
    Node,
    Platform,
    Pools,
    PortRange,
    RailGroup,
    Server,
    Tenant,
    TrafficClass,
)

__all__ = ('load_spec',)

# A field's converter: (the key's path for errors, the raw value) → the checked value, or SpecError
type Converter = Callable[[str, Any], Any]


def _shown(value: object) -> str:
    """A wrong value as an error message shows it: scalars as written (shortened), containers by their kind only
    (their repr may be huge, or endless for YAML aliases)."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(10**20) < value < 10**20:
        return f'an integer of {value.bit_length()} bits'
    if value is None or isinstance(value, str | int | float):
        text = repr(value)
        return text if len(text) <= 60 else f'{text[:60]}…'
    return type(value).__name__


def _mapping(path: str, value: object) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise SpecError(path, f'expected a mapping, got {type(value).__name__}')
    return value


def _list(path: str, value: object) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise SpecError(path, f'expected a list, got {type(value).__name__}')
    return value


def _int(path: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(path, f'expected an integer, got {_shown(value)}')
    return value


def _str(path: str, value: object) -> str:
    if not isinstance(value, str):
        raise SpecError(path, f'expected a string, got {_shown(value)}')
    return value


def _number(path: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecError(path, f'expected a number, got {value!r}')
    return float(value)


def _bool(path: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise SpecError(path, f'expected true or false, got {_shown(value)}')
    return value


def _ints(path: str, value: object) -> tuple[int, ...]:
    return tuple(_int(f'{path}[{i}]', v) for i, v in enumerate(_list(path, value)))


def _optional(kind: Converter) -> Converter:
    def convert(path: str, value: object) -> Any:
        return None if value is None else kind(path, value)

    return convert


def _record[T](
    path: str, data: object, cls: Callable[..., T], fields: Mapping[str, Converter], required: Sequence[str] = ()
) -> T:
    """``cls(**converted)`` from ``data`` with ``fields = {key: converter}``; unknown and missing keys are errors."""
    mapping = _mapping(path, data)
    unknown = sorted(set(mapping) - set(fields), key=str)  # YAML keys may be numbers or null, too
    if unknown:
        key = unknown[0] if isinstance(unknown[0], str) and unknown[0] else repr(unknown[0])  # '' must show
        raise SpecError(f'{path}.{key}' if path else key, f'unknown key (known: {", ".join(fields)})')
    missing = [key for key in required if key not in mapping]
    if missing:
        raise SpecError(f'{path}.{missing[0]}' if path else missing[0], 'required key is missing')
    return cls(
        **{
            key: convert(f'{path}.{key}' if path else key, mapping[key])
            for key, convert in fields.items()
            if key in mapping
        }
    )


def _each(kind: Converter) -> Converter:
    def convert(path: str, value: object) -> tuple[Any, ...]:
        return tuple(kind(f'{path}[{i}]', item) for i, item in enumerate(_list(path, value)))

    return convert


def _strs(path: str, value: object) -> tuple[str, ...]:
    return tuple(_str(f'{path}[{i}]', v) for i, v in enumerate(_list(path, value)))


def _port_range(path: str, data: object) -> PortRange:
    """A port block: ``first``/``count`` numbered ports, or explicit ``names``; ``speed`` always."""
    block = _record(
        path,
        data,
        PortRange,
        {'first': _int, 'count': _int, 'speed': _int, 'names': _strs, 'interface': _optional(_str), 'speeds': _ints},
        ('speed',),
    )
    if not block.names and 'count' not in _mapping(path, data):
        raise SpecError(f'{path}.count', 'required key is missing (or give the ports as names)')
    return block


def _platform(path: str, data: object) -> Platform:
    return _record(
        path,
        data,
        Platform,
        {
            'name': _str,
            'interface': _str,
            'lag': _str,
            'server_ports': _optional(_port_range),
            'uplink_ports': _optional(_port_range),
            'downlink_ports': _optional(_port_range),
            'rdma_ports': _optional(_port_range),
            'bmc_ports': _optional(_port_range),
            'peer_link_ports': _ints,
            'peer_link_speed': _int,
            'peer_link_names': _strs,
        },
    )


def _node(path: str, data: object) -> Node:
    return _record(path, data, Node, {'id': _int, 'name': _str}, ('id', 'name'))


def _server(path: str, data: object) -> Server:
    return _record(
        path,
        data,
        Server,
        {'id': _int, 'name': _str, 'leaves': _ints, 'kind': _str, 'rail_group': _optional(_int)},
        ('id', 'name', 'leaves'),
    )


def _traffic_class(path: str, data: object) -> TrafficClass:
    return _record(
        path,
        data,
        TrafficClass,
        {
            'name': _str,
            'vlan': _int,
            'vrf': _optional(_str),
            'subnet': _optional(_str),
            'lossless': _bool,
            'mtu': _optional(_int),
            'routed': _bool,
            'rack_prefixlen': _optional(_int),
            'purpose': _str,
        },
        ('name', 'vlan'),
    )


def _tenant(path: str, data: object) -> Tenant:
    return _record(
        path,
        data,
        Tenant,
        {'name': _str, 'vrf': _str, 'l3vni': _int, 'vlans': _ints, 'l2vni_base': _optional(_int)},
        ('name', 'vrf', 'l3vni'),
    )


def _asn_range(path: str, value: object) -> tuple[int, ...]:
    values = _ints(path, value)
    if len(values) != 2:
        raise SpecError(path, f'expected [first, last], got {len(values)} values')
    return values


def _pairs(path: str, value: object) -> tuple[tuple[int, ...], ...]:
    return tuple(_ints(f'{path}[{i}]', pair) for i, pair in enumerate(_list(path, value)))


FIELDS: dict[str, Converter] = {
    'name': _str,
    'design': _str,
    'underlay': _str,
    'maximums': lambda p, d: _record(
        p,
        d,
        Maximums,
        {'spines': _int, 'leaves': _int, 'parallel_uplinks': _int, 'servers_per_leaf': _int},
        ('spines', 'leaves', 'parallel_uplinks'),
    ),
    'pools': lambda p, d: _record(
        p,
        d,
        Pools,
        {
            'loopback': _str,
            'p2p': _optional(_str),
            'vtep': _optional(_str),
            'mlag_peer': _optional(_str),
            'management': _optional(_str),
        },
        ('loopback',),
    ),
    'spines': _each(_node),
    'leaves': _each(_node),
    'servers': _each(_server),
    'uplinks_per_spine': _int,
    'mlag_pairs': _pairs,
    'mh_pairs': _pairs,
    'rail_groups': _each(lambda p, d: _record(p, d, RailGroup, {'leaves': _ints}, ('leaves',))),
    'spine_asn': _optional(_int),
    'leaf_asn_range': _optional(_asn_range),
    'l2vni_base': _int,
    'anycast_gateway_mac': _optional(_str),
    'traffic_classes': _each(_traffic_class),
    'tenants': _each(_tenant),
    'nics': lambda p, d: _record(
        p, d, NicLayout, {'count': _int, 'speed': _int, 'rdma_count': _int, 'rdma_speed': _int, 'bmc_speed': _int}
    ),
    'leaf_platform': _platform,
    'spine_platform': _platform,
    'mtu': _int,
    'oversubscription_target': _optional(_number),
    'management_gateway': _optional(_str),
    'bmc': _str,
    'management_switch': _optional(
        lambda p, d: _record(p, d, ManagementSwitch, {'ports': _strs, 'name': _str, 'keep_free': _strs}, ('ports',))
    ),
}


REQUIRED = ('name', 'design', 'maximums', 'pools')


def load_spec(data: object) -> FabricSpec:
    """Convert plain data to a :class:`FabricSpec` (see ``docs/planner.md`` and ``docs/fabric-spec.schema.json``).

    Raises:
        SpecError: unknown key, wrong type or missing required key (``name``, ``design``, ``maximums``, ``pools``).
    """
    _check_document(data)
    return _record('', data, FabricSpec, FIELDS, REQUIRED)


def _check_document(data: object) -> None:
    """The whole spec must be a mapping; an empty file (YAML and JSON ``null``) says so in words."""
    wanted = f'a mapping with {", ".join(REQUIRED[:-1])} and {REQUIRED[-1]}'
    if data is None:
        raise SpecError('spec', f'the spec is empty: expected {wanted}')
    if not isinstance(data, Mapping):
        raise SpecError('spec', f'expected {wanted}, got {type(data).__name__}')
