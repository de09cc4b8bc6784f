"""Check an earlier plan's allocations before they are pinned, so a damaged ``--previous`` file is a named error
(``previous.allocations.<key>``) instead of a traceback or an address nobody asked for.

An allocation key is ``<kind>:<what>`` (``loopback:leaf:3``, ``uplink:leaf:3:spine:1:1``); its value must be what
that kind allocates. A new kind is one line in ``VALUE_CHECKS``.
"""

import re
from collections.abc import Callable, Mapping
from typing import Any

import netaddr

from .errors import SpecError
from .result import Plan

__all__ = ('KNOWN_KINDS', 'VALUE_CHECKS', 'check_previous')

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
}
KNOWN_KINDS = tuple(VALUE_CHECKS)


def check_previous(previous: object) -> dict[str, str]:
    """The allocations of an earlier plan as ``{key: value}``, every key and value checked.

    ``previous`` is None (no earlier plan), a :class:`Plan`, a plan's dict (``Plan.to_dict()`` or its JSON: a
    mapping with an ``allocations`` mapping) or the allocations mapping itself (every key ``<kind>:…``, as the
    NetBox apply passes them). Integer values (an ASN written as a number) come back as strings.

    Raises:
        SpecError: ``previous`` is not a plan, or an allocation has an unknown kind or a value its kind cannot hold.
    """
    if previous is None:
        return {}
    if isinstance(previous, Plan):
        return dict(previous.allocations)  # made by the planner itself
    return {key: _checked_value(key, value) for key, value in _allocations_of(previous).items()}


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
