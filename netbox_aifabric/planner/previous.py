"""Check an earlier plan's allocations before they are pinned, so a damaged ``--previous`` file is a named error
(``previous.allocations.<key>``) instead of a traceback or an address nobody asked for.

An allocation key is ``<kind>:<what>`` (``loopback:leaf:3``, ``uplink:leaf:3:spine:1:1``); its value must be what
that kind allocates. A new kind is one line in ``VALUE_CHECKS``.

What a pin must also be: of this fabric (a plan names its fabric: another fabric's plan is
``previous.fabric``), unique (one value held twice, such as one ESI on two segments or one address on two links, is
``previous.allocations.<key>``; LAG numbers are unique per leaf: :func:`check_lag_numbers`), and still possible
after a design change: a port in no block any more (removed, or broken out into lanes) or in a block of another use
(the port map gave it another use), a port whose own breakout lane another pin holds (:func:`broken_out`), or a
switch address outside its current subnet, is released with a ``released-pin`` warning (:func:`stale_port`,
:func:`stale_svi`) and allocated anew. Never kept silently. Growth moves no block under a cabled port: the NetBox
side derives a device type's blocks around the ports the last apply cabled (``apply/hardware.assign_ports``).
"""

import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, cast

import netaddr

from netbox_aifabric.planner.errors import SpecError
from netbox_aifabric.planner.result import Plan, PlanWarning

__all__ = (
    'KNOWN_KINDS',
    'RELEASED_PIN',
    'VALUE_CHECKS',
    'broken_out',
    'check_lag_numbers',
    'check_previous',
    'released_pin',
    'stale_port',
    'stale_svi',
)

_ESI = re.compile(r'[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){9}')
_DECIMAL = re.compile(r'[0-9]{1,10}')


def _ipv4(value: str, prefixlen: int | None = None) -> bool:
    """An IPv4 prefix written as the planner writes it: ``a.b.c.d/len``, no host bits set."""
    try:
        network = netaddr.IPNetwork(value)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return False
    return (
        network.version == 4
        and str(network) == value
        and network.ip == network.network
        and (prefixlen is None or network.prefixlen == prefixlen)
    )


def _ipv4_host(value: str) -> bool:
    """An IPv4 host address with the prefix length of its network (``a.b.c.d/len``), not the network address."""
    try:
        network = netaddr.IPNetwork(value)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return False
    return network.version == 4 and str(network) == value and network.first < int(network.ip) < network.last


def _number(value: str, low: int, high: int) -> bool:
    return bool(_DECIMAL.fullmatch(value)) and low <= int(value) <= high


# kind → (check of the value as a string, what the value must be)
VALUE_CHECKS: dict[str, tuple[Callable[[str], bool], str]] = {
    'loopback': (lambda v: _ipv4(v, 32), 'an IPv4 /32 address'),
    'vtep': (lambda v: _ipv4(v, 32), 'an IPv4 /32 address'),
    'uplink': (lambda v: _ipv4(v, 31), 'an IPv4 /31 prefix'),
    'mlag': (lambda v: _ipv4(v, 31), 'an IPv4 /31 prefix'),
    'asn': (lambda v: _number(v, 1, 4_294_967_295), 'an ASN (1–4294967295)'),
    'port': (lambda v: bool(v.strip()), 'a port name'),
    'lag': (lambda v: _number(v, 1, 4094), 'a LAG number (1–4094)'),
    'esi': (lambda v: bool(_ESI.fullmatch(v)), 'an ESI (10 colon-separated hex bytes)'),
    'subnet': (lambda v: _ipv4(v) and int(v.rsplit('/', 1)[1]) <= 30, 'an IPv4 rack subnet of /30 or shorter'),
    'mgmt': (_ipv4_host, 'an IPv4 host address with its prefix length'),
    'svi': (_ipv4_host, 'an IPv4 host address with its prefix length'),
    'host': (_ipv4_host, 'an IPv4 host address with its prefix length'),
}
KNOWN_KINDS = tuple(VALUE_CHECKS)
# kinds whose values are unique among the keys of one scope: the whole plan, or (ports) one switch
UNIQUE_KINDS = ('loopback', 'vtep', 'uplink', 'mlag', 'asn', 'esi', 'subnet', 'mgmt', 'svi', 'host', 'port')
RELEASED_PIN = 'released-pin'  # the warning code of a pin a design change made impossible


def check_previous(previous: object, fabric: str | None = None) -> dict[str, str]:
    """The allocations of an earlier plan as ``{key: value}``, every key and value checked.

    ``previous`` is None (no earlier plan), a :class:`Plan`, a plan's dict (``Plan.to_dict()`` or its JSON: a
    mapping with an ``allocations`` mapping) or the allocations mapping itself (every key ``<kind>:…``, as the
    NetBox apply passes them, from the fabric's own record). Integer values (an ASN written as a number) come back
    as strings. With ``fabric`` (the spec's name), a plan must be that fabric's (its ``fabric`` field).

    Raises:
        SpecError: ``previous`` is not a plan, is another fabric's (``previous.fabric``), or an allocation has an
            unknown kind, a value its kind cannot hold or a value another key holds too.
    """
    if previous is None:
        return {}
    if isinstance(previous, Plan):
        _check_fabric(previous.fabric, fabric)
        return dict(previous.allocations)  # made by the planner itself
    raw = _allocations_of(previous)
    if raw is not previous:  # a plan, not the bare allocations of the NetBox side's record
        _check_fabric(cast(Mapping[str, Any], previous).get('fabric'), fabric)
    allocations = {key: _checked_value(key, value) for key, value in raw.items()}
    _check_unique(allocations)
    return allocations


def _check_fabric(named: object, fabric: str | None) -> None:
    """A plan is pinned only for the fabric it numbered: another fabric's addresses and ports would be kept here."""
    if fabric is None:
        return
    if not isinstance(named, str):
        shown = 'no fabric' if named is None else f'a {type(named).__name__} as its fabric'
        raise SpecError('previous.fabric', f'the previous plan names {shown}: a plan names the fabric it numbered')
    if named != fabric:
        shown = named if len(named) <= 60 else f'{named[:60]}…'
        raise SpecError(
            'previous.fabric',
            f'the previous plan is of fabric "{shown}", not of "{fabric}": its allocations are not '
            "this fabric's to keep",
        )


def _scope(key: str, kind: str) -> str:
    """Where a value must be unique: a port on its switch (``port:leaf:3:…`` → ``leaf:3``), the rest in the plan."""
    if kind == 'port':
        return ':'.join(key.split(':')[1:3])
    return ''


def _check_unique(allocations: Mapping[str, str]) -> None:
    """One value held by two keys (one ESI on two segments, one /31 on two links, one port cabled twice) is a
    damaged plan: the planner never hands a value out twice."""
    holder: dict[tuple[str, str, str], str] = {}
    for key in sorted(allocations):
        kind = key.split(':', 1)[0]
        if kind not in UNIQUE_KINDS:
            continue
        value = allocations[key]
        other = holder.setdefault((kind, _scope(key, kind), value), key)
        if other != key:
            raise SpecError(
                f'previous.allocations.{key}',
                f'"{value}" is held by {other} too: a previous plan gives each {kind} value to one allocation only',
            )


def check_lag_numbers(bonds: Mapping[str, tuple[int, ...]], pinned: Mapping[str, str]) -> None:
    """``bonds``: ``{lag key: leaf ids}`` of the spec's bonds. Two bonds pinned to one LAG number on a leaf they
    share would be one port-channel: a named error on the second key."""
    holder: dict[tuple[int, str], str] = {}
    for key in sorted(bonds):
        if key not in pinned:
            continue
        for leaf in bonds[key]:
            other = holder.setdefault((leaf, pinned[key]), key)
            if other != key:
                raise SpecError(
                    f'previous.allocations.{key}',
                    f'LAG number {pinned[key]} is pinned for {other} too, on leaf id {leaf}: a LAG number is one bond '
                    'on each leaf',
                )


def stale_port(name: str, node: str, use: str, current: Collection[str], now: str | None) -> str | None:
    """Why a pinned port ``name`` of switch ``node`` cannot stay the port of its ``use`` link, or None when it can.
    ``current``: the switch's ports for ``use`` now; ``now``: the block that holds the port now (None: no block). A
    port in another use's block is released even at the link's speed: the block is that use's, and keeping the
    cable would leave it a port short (a new link of the use would find it taken)."""
    if name in current:
        return None
    block = 'peer_link' if use == 'peer_link' else f'{use}_ports'
    where = f'a port of {now} now' if now else 'in no port block now (removed, or broken out into lanes)'
    return f'{node} {name} was its {use.replace("_", " ")} port and is {where}: the link moves to a free {block} port'


def broken_out(node: str, parent: str, use: str, lane: str, lane_key: str) -> str:
    """Why a pinned port is released when a pinned link holds one of its own breakout lanes."""
    block = 'peer_link' if use == 'peer_link' else f'{use}_ports'
    return (
        f'{node} {parent} was its {use.replace("_", " ")} port and its breakout lane {lane} carries {lane_key}: a port '
        f'and its own lanes are never both cabled; the link moves to a free {block} port'
    )


def stale_svi(value: str, network: netaddr.IPNetwork) -> str | None:
    """Why a pinned switch address ``value`` cannot stay on a gateway subnet ``network`` (another prefix length,
    outside it, or the gateway itself), or None when it can."""
    address = netaddr.IPNetwork(value)
    if address.cidr != network.cidr:
        return f'{value} is not an address of its subnet {network.cidr} now: it takes a free address of it'
    if int(address.ip) in (network.first, network.first + 1, network.last):
        return f'{value} is the network, gateway or broadcast address of {network.cidr}: it takes a free address'
    return None


def released_pin(key: str, reason: str) -> PlanWarning:
    """The warning of a pin released by a design change (the apply then moves the object: a cable or an address)."""
    return PlanWarning(RELEASED_PIN, f'previous.allocations.{key}', f'released: {reason}')


def _allocations_of(previous: object) -> Mapping[Any, Any]:
    if not isinstance(previous, Mapping):
        raise SpecError(
            'previous', f'expected a plan (a mapping with an allocations mapping), got {type(previous).__name__}'
        )
    if 'allocations' in previous:
        allocations = previous['allocations']
        if not isinstance(allocations, Mapping):
            raise SpecError(
                'previous.allocations',
                f'expected a mapping of allocation key to value, got {type(allocations).__name__}',
            )
        return allocations
    if all(isinstance(key, str) and ':' in key for key in previous):
        return previous
    raise SpecError('previous', 'not a plan: it has no allocations mapping')


def _checked_value(key: object, value: object) -> str:
    field = f'previous.allocations.{key}'
    if not isinstance(key, str):
        raise SpecError(field, f'an allocation key is a string, got {type(key).__name__}')
    kind = key.split(':', 1)[0]
    if ':' not in key:
        raise SpecError(field, f'"{key}" is not an allocation key (<kind>:<what>, like loopback:leaf:1)')
    if kind not in VALUE_CHECKS:
        raise SpecError(field, f'unknown allocation kind "{kind}" (known: {", ".join(KNOWN_KINDS)})')
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise SpecError(field, f'expected a string or an integer, got {type(value).__name__}')
    accepts, expected = VALUE_CHECKS[kind]
    if isinstance(value, int) and not -(10**20) < value < 10**20:
        raise SpecError(field, f'an integer of {value.bit_length()} bits is not {expected}')
    text = str(value)
    if not accepts(text):
        shown = text if len(text) <= 60 else f'{text[:60]}…'
        raise SpecError(field, f'"{shown}" is not {expected}')
    return text
