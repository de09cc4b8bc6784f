"""Real port names from a NetBox device type: the fabric's port map onto the device type's interface templates.

Pure (no Django): the caller reads the interface templates (``name``, ``type``, ``mgmt_only``) and the fabric.

A switch role's ports are its non-management interface templates whose type names a speed (``25gbase-x-sfp28`` →
25G), in the device type's order. Each use of a port — ``server``, ``rdma``, ``uplink``, ``peer_link``, ``bmc``
(leaf) and ``downlink`` (spine) — is either stated in the fabric's ``port_map`` (a list of names, ``A..B`` for every
port from A to B in the device type's order) or derived:

- the **fixed** uses take ports at their speed from the end: the peer link the last two at the uplink speed, the
  uplinks the ones before them (as many as the declared maximums need: max spines × max parallel uplinks); a
  spine's downlinks take every free port at the uplink speed;
- the **per-server** uses (server ports, RDMA ports, BMC ports) share what is left: each takes the free ports at its
  speed (else those that can run it, e.g. a 25G SFP28 port for a 1G BMC); uses that land on the same ports split
  them in consecutive blocks, in the order server, RDMA, BMC.

How many servers a leaf can take (the planner's ``servers_per_leaf``) follows from the blocks. Too few ports is a
named :class:`~netbox_aifabric.planner.SpecError` on ``port_map.<role>.<use>`` with the device type, the speed, and
how many ports are needed and available.
"""

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from netbox_aifabric.facts.platform_ports import offered_mode
from netbox_aifabric.planner import SpecError

__all__ = (
    'BREAKOUT',
    'LOWER_SPEEDS',
    'PORT_USES',
    'Breakout',
    'HardwarePort',
    'RoleNeeds',
    'apply_breakouts',
    'assign_ports',
    'breakout_names',
    'check_port_map_shape',
    'held_uses',
    'natural_key',
    'type_speed',
)

PORT_USES = {'leaf': ('server', 'rdma', 'uplink', 'peer_link', 'bmc'), 'spine': ('downlink',)}
BREAKOUT = 'breakout'  # a port-map key of either role: ["swp1..swp8:4x25G"] splits those ports before any use
USE_LABELS = {
    'server': 'server ports',
    'rdma': 'RDMA ports',
    'uplink': 'uplinks',
    'peer_link': 'the MLAG peer link',
    'bmc': 'BMC ports',
    'downlink': 'downlinks',
}
# Lower speeds a cage also runs, by form factor (the shipped models' data sheets: SFP28 cages take 1G/10G optics,
# QSFP28 cages 40G); a port's highest speed comes from its type
LOWER_SPEEDS = {
    'sfp28': (10, 1),
    'sfpp': (1,),
    'sfp56': (25, 10),
    'qsfp28': (40,),
    'qsfp56': (100, 40),
    'qsfpdd': (200, 100),
    'osfp': (200, 100),
}
_SPEED = re.compile(r'^(\d+(?:\.\d+)?)(g|t)?base-')
_BREAKOUT = re.compile(r'^(?P<ports>[^:]+):(?P<count>[248])x(?P<speed>[1-9]\d*)G$')
_RANGE = '..'


def type_speed(type_: str) -> tuple[int, tuple[int, ...]] | None:
    """``(speed, lower speeds)`` in Gbit/s of a NetBox interface type, or None when it names no whole-Gbit/s
    Ethernet speed (virtual, LAG, 100base-tx, 2.5gbase-t, InfiniBand, wireless…)."""
    match = _SPEED.match(type_ or '')
    if not match:
        return None
    value = float(match.group(1)) * {'g': 1, 't': 1000, None: 0.001}[match.group(2)]
    if value < 1 or value != int(value):
        return None
    form_factor = type_.rsplit('-', 1)[-1]
    return int(value), LOWER_SPEEDS.get(form_factor, ())


def natural_key(name: str) -> list[int | str]:
    """``Ethernet2`` before ``Ethernet10``, ``Ethernet49/1`` before ``Ethernet49/2``."""
    return [int(part) if part.isdigit() else part for part in re.split(r'(\d+)', name)]


@dataclass(frozen=True)
class HardwarePort:
    name: str
    speed: int
    speeds: tuple[int, ...] = ()

    def runs(self, speed: int) -> bool:
        return speed == self.speed or speed in self.speeds


@dataclass(frozen=True)
class RoleNeeds:
    """What one switch role needs of its device type: the speed of each use, how many ports the fixed uses need,
    and how many ports one server takes of each per-server use (0: the use is absent)."""

    speeds: dict[str, int]
    fixed: dict[str, int]
    per_server: dict[str, int]
    reasons: dict[str, str] | None = None


def check_port_map_shape(value: object) -> list[str]:
    """Messages for a port map that is not ``{role: {use: [names]}}`` with the known roles and uses."""
    if value in (None, {}):
        return []
    if not isinstance(value, dict):
        return ['the port map is an object: {"leaf": {"uplink": ["Ethernet53/1", …]}, "spine": {…}}']
    errors: list[str] = []
    for role, uses in value.items():
        if role not in PORT_USES:
            errors.append(f'unknown role "{role}" (known: {", ".join(PORT_USES)})')
            continue
        if not isinstance(uses, dict):
            errors.append(f'{role}: a mapping of use to port names, e.g. {{"uplink": ["Ethernet53/1"]}}')
            continue
        for use, names in uses.items():
            if use == BREAKOUT:
                if not isinstance(names, list) or not all(isinstance(n, str) and _BREAKOUT.match(n) for n in names):
                    errors.append(f'{role}.{BREAKOUT}: a list of "<ports>:<lanes>x<speed>G", e.g. "swp1..swp8:4x25G"')
            elif use not in PORT_USES[role]:
                errors.append(f'{role}.{use}: unknown use (a {role} has {", ".join(PORT_USES[role])})')
            elif not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
                errors.append(f'{role}.{use}: a list of interface names ("A..B" for a run of ports)')
    return errors


def _expand(field: str, entries: Iterable[str], order: Mapping[str, int], device_type: str) -> list[str]:
    names: list[str] = []
    for entry in entries:
        if _RANGE in entry:
            first, last = (part.strip() for part in entry.split(_RANGE, 1))
            for end in (first, last):
                if end not in order:
                    raise SpecError(field, f'{end} is not a port of the device type {device_type}')
            a, b = order[first], order[last]
            if b < a:
                raise SpecError(field, f'{entry}: {last} comes before {first} on the device type {device_type}')
            names.extend(list(order)[a : b + 1])
        else:
            if entry not in order:
                raise SpecError(field, f'{entry} is not a port of the device type {device_type}')
            names.append(entry)
    return names


def _speeds_text(ports: Iterable[HardwarePort]) -> str:
    counts: dict[int, int] = {}
    for port in ports:
        counts[port.speed] = counts.get(port.speed, 0) + 1
    return ', '.join(f'{n} at {speed}G' for speed, n in sorted(counts.items(), reverse=True)) or 'no data ports'


def assign_ports(
    role: str,
    device_type: str,
    ports: list[HardwarePort],
    needs: RoleNeeds,
    stated: Mapping[str, Sequence[str]],
    held: Mapping[str, str] | None = None,
) -> dict[str, tuple[str, ...]]:
    """``{use: (names, speed)}`` for a role's device type: the stated uses as they are, the others derived (see the
    module docstring). ``held`` (:func:`held_uses`): ``{port: use}`` of the ports the last apply cabled; a derived
    use keeps the ports it holds and takes the rest around them, so raising a maximum (more uplinks from the end)
    never turns a cabled RDMA port into an uplink. Raises SpecError on ``port_map.<role>.<use>`` when a use gets
    too few ports."""
    assigned, owner = _stated_uses(role, device_type, ports, needs, stated or {})
    kept = _kept_ports(ports, needs, assigned, owner, held or {})

    def free(speed: int, exact: bool = True) -> list[HardwarePort]:
        return [p for p in ports if p.name not in owner and (p.speed == speed if exact else p.runs(speed))]

    for use, count in needs.fixed.items():
        if use in assigned or not count and use != 'downlink':
            continue
        speed, mine = needs.speeds[use], kept.get(use, [])
        candidates, missing = free(speed), max(count - len(mine), 0)
        take = candidates if use == 'downlink' else candidates[len(candidates) - missing :] if missing else []
        if len(candidates) < missing:
            raise SpecError(
                f'port_map.{role}.{use}',
                f'the {role} device type {device_type} has {len(candidates) + len(mine)} free ports at {speed}G for '
                f'{USE_LABELS[use]} ({_speeds_text(ports)} in all, {_taken_text(owner, ports, speed)}): '
                f'{count} needed ({(needs.reasons or {}).get(use, "the declared maximums")})',
            )
        _assign(assigned, owner, ports, use, [*mine, *(p.name for p in take)])
    _per_server_uses(role, device_type, ports, needs, assigned, owner, kept, free)
    return {use: tuple(names) for use, names in assigned.items()}


def held_uses(allocations: Mapping[str, Any], role: str) -> dict[str, str]:
    """``{port name: use}`` of the role's ports in an apply's allocations (``port:leaf:3:rdma:7:1`` → the leaves'
    port gets ``rdma``); a name held for two uses (on two switches, after a port-map change) is left out."""
    uses: dict[str, str] = {}
    twice: set[str] = set()
    for key, name in allocations.items():
        parts = key.split(':')
        if len(parts) < 4 or parts[0] != 'port' or parts[1] != role or parts[3] not in PORT_USES[role]:
            continue
        if uses.setdefault(name, parts[3]) != parts[3]:
            twice.add(name)
    return {name: use for name, use in uses.items() if name not in twice}


def _stated_uses(
    role: str, device_type: str, ports: Sequence[HardwarePort], needs: RoleNeeds, stated: Mapping[str, Sequence[str]]
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """``(assigned, owner)`` of the uses the port map states: ``{use: names}`` and ``{port: use}``."""
    order = {port.name: i for i, port in enumerate(ports)}
    by_name = {port.name: port for port in ports}
    assigned: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    for use, entries in stated.items():
        if use not in needs.speeds:
            continue
        field = f'port_map.{role}.{use}'
        names = _expand(field, entries, order, device_type)
        speed = needs.speeds[use]
        for name in names:
            if name in owner:
                raise SpecError(field, f'{name} is in port_map.{role}.{owner[name]} too: a port can have one use only')
            owner[name] = use
            if not by_name[name].runs(speed):
                raise SpecError(
                    field, f'{name} runs {by_name[name].speed}G; the {role} {USE_LABELS[use]} run at {speed}G'
                )
        assigned[use] = names
    return assigned, owner


def _kept_ports(
    ports: Sequence[HardwarePort],
    needs: RoleNeeds,
    assigned: Mapping[str, list[str]],
    owner: dict[str, str],
    held: Mapping[str, str],
) -> dict[str, list[str]]:
    """``{use: names}`` of the held ports a derived use keeps (marked in ``owner``): a port still on the device type,
    stated for no use, of a use the role still has and at a speed it runs."""
    kept: dict[str, list[str]] = {}
    for port in ports:
        use = held.get(port.name)
        if use is None or port.name in owner or use not in needs.speeds or use in assigned:
            continue
        active = use == 'downlink' or needs.fixed.get(use) or needs.per_server.get(use)
        if active and port.runs(needs.speeds[use]):
            kept.setdefault(use, []).append(port.name)
            owner[port.name] = use
    return kept


def _assign(
    assigned: dict[str, list[str]], owner: dict[str, str], ports: Sequence[HardwarePort], use: str, names: Iterable[str]
) -> None:
    """``use`` gets ``names``, in the device type's order."""
    chosen = set(names)
    assigned[use] = [p.name for p in ports if p.name in chosen]
    for name in assigned[use]:
        owner[name] = use


def _per_server_uses(
    role: str,
    device_type: str,
    ports: Sequence[HardwarePort],
    needs: RoleNeeds,
    assigned: dict[str, list[str]],
    owner: dict[str, str],
    kept: Mapping[str, list[str]],
    free: Callable[..., list[HardwarePort]],
) -> None:
    """The per-server uses: grouped by the ports they land on, each group split in blocks of ``units`` per server,
    consecutive in the device type's order; a use's held ports count in its block."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for use, units in needs.per_server.items():
        if use in assigned or not units:
            continue
        speed = needs.speeds[use]
        candidates = free(speed) or free(speed, exact=False)
        if not candidates and not kept.get(use):
            raise SpecError(
                f'port_map.{role}.{use}',
                f'the {role} device type {device_type} has no free port that runs {speed}G for {USE_LABELS[use]} '
                f'({_speeds_text(ports)} in all, {_taken_text(owner, ports, None)})',
            )
        groups.setdefault(tuple(p.name for p in candidates), []).append(use)
    for key, uses in groups.items():
        per_server = sum(needs.per_server[use] for use in uses)
        n = (len(key) + sum(len(kept.get(use, ())) for use in uses)) // per_server
        rest = list(key)
        for use in uses:
            mine = kept.get(use, [])
            extra = rest[: max(n * needs.per_server[use] - len(mine), 0)]
            rest = rest[len(extra) :]
            _assign(assigned, owner, ports, use, [*mine, *extra])


def _taken_text(owner: Mapping[str, str], ports: Sequence[HardwarePort], speed: int | None) -> str:
    used: dict[str, int] = {}
    for port in ports:
        use = owner.get(port.name)
        if use and (speed is None or port.speed == speed):
            used[use] = used.get(use, 0) + 1
    if not used:
        return 'none of them in use'
    return ', '.join(f'{n} for {USE_LABELS[use]}' for use, n in used.items())


@dataclass(frozen=True)
class Breakout:
    """One lane group of a broken-out port: its parent port, how many lanes the parent splits into and their speed."""

    parent: str
    count: int
    speed: int
    position: int = 0  # which lane group of the parent, from 0

    @property
    def mode(self) -> str:
        return f'{self.count}x{self.speed}G'


def breakout_names(name: str, count: int, lanes: str | None = None) -> list[str] | None:
    """The names a NOS gives the ``count`` ports of a broken-out ``name``: EOS ``Ethernet49/1`` → ``Ethernet49/1``…
    ``/4``; Cumulus ``swp49`` → ``swp49s0``…``s3``; SONiC ``Ethernet48`` with lanes ``49,50,51,52`` → ``Ethernet48``…
    ``Ethernet51`` (one name per lane group, numbered by its first lane). None when the naming is unknown."""
    if match := re.fullmatch(r'(\D+)(\d+)/1', name):
        return [f'{match[1]}{match[2]}/{i}' for i in range(1, count + 1)]
    if re.fullmatch(r'swp\d+', name):
        return [f'{name}s{i}' for i in range(count)]
    if (match := re.fullmatch(r'Ethernet(\d+)', name)) and lanes and len(lanes.split(',')) % count == 0:
        step = len(lanes.split(',')) // count
        return [f'Ethernet{int(match[1]) + i * step}' for i in range(count)]
    return None


def apply_breakouts(
    role: str,
    device_type: str,
    ports: list[HardwarePort],
    entries: Iterable[object] | None,
    facts: Mapping[str, Mapping[str, Any]] | None = None,
    modes: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
) -> tuple[list[HardwarePort], dict[str, Breakout]]:
    """``(ports, {child name: Breakout})``: ``ports`` with each port the port map breaks out replaced, in place, by
    its lane ports at the breakout speed. A named SpecError on ``port_map.<role>.breakout`` for an entry that is not
    ``<ports>:<count>x<speed>G``, a port missing from the device type, lanes faster than the port, or a port whose
    lane names the plugin cannot derive, or a mode the platform does not offer (``modes``: SONiC's platform.json
    breakout modes per port, when shipped)."""
    field = f'port_map.{role}.{BREAKOUT}'
    order = {port.name: i for i, port in enumerate(ports)}
    by_name = {port.name: port for port in ports}
    split: dict[str, list[tuple[str, Breakout]]] = {}
    for entry in entries or ():
        match = _BREAKOUT.match(entry) if isinstance(entry, str) else None
        if not match:
            raise SpecError(field, f'{entry!r}: write "<ports>:<lanes>x<speed>G", e.g. "swp1..swp8:4x25G"')
        count, speed = int(match['count']), int(match['speed'])
        for name in _expand(field, [match['ports'].strip()], order, device_type):
            parent = by_name[name]
            if count * speed > parent.speed:
                raise SpecError(field, f'{name} runs {parent.speed}G: {count} lanes at {speed}G need {count * speed}G')
            _check_offered(field, name, device_type, f'{count}x{speed}G', (modes or {}).get(name))
            children = breakout_names(name, count, ((facts or {}).get(name) or {}).get('lanes'))
            if children is None:
                raise SpecError(field, f'{name}: the lane names of a breakout are known for EOS (…/1), Cumulus (swpN) '
                                       'and SONiC ports with lanes data')  # fmt: skip
            split[name] = [(child, Breakout(name, count, speed, i)) for i, child in enumerate(children)]
    result: list[HardwarePort] = []
    breakouts: dict[str, Breakout] = {}
    for port in ports:
        for child, breakout in split.get(port.name, [(None, None)]):
            if child is None or breakout is None:  # both None together: a port not broken out
                result.append(port)
            else:
                result.append(HardwarePort(child, breakout.speed))
                breakouts[child] = breakout
    return result, breakouts


def _check_offered(
    field: str, name: str, device_type: str, mode: str, modes: Mapping[str, Sequence[str]] | None
) -> None:
    """A named error for a mode the platform's breakout modes (SONiC's platform.json) do not list for the port."""
    if modes is not None and offered_mode(mode, modes) is None:
        raise SpecError(field, f'{name} on {device_type} does not break out into {mode}: the platform offers '
                               f'{", ".join(modes)}')  # fmt: skip
