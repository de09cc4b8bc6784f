"""The management (out-of-band) network of a plan: every server BMC and every switch management port cabled to a
management switch, and the addresses of the BMCs and of the management switches in the MGMT class's subnet.

Pure and deterministic, like the rest of the planner. Each cable end and address is an allocation under a stable key,
pinned by ``previous``: ``port:oob:bmc:<server id>``, ``port:oob:spine:<id>``, ``port:oob:leaf:<id>`` (value
``<switch number>:<port>``), ``mgmt:bmc:<server id>`` and ``mgmt:oob:<switch number>`` (an address with the subnet's
prefix length). A device prefers the slot its stable id and the maximums give (switches first, then servers), so a
fabric grows without moving a cable; a taken or missing slot falls back to the first free one.
"""

import math
from collections.abc import Iterable, Mapping, Sequence

import netaddr

from .errors import PoolExhaustedError, SpecError
from .result import NodePlan, OobLink, OobPlan, OobSwitch, VlanPlan
from .spec import FabricSpec, ManagementSwitch, TrafficClass

__all__ = ('SWITCH_ADDRESS_SLOTS', 'check_management_switch', 'oob_keys', 'plan_oob')

SWITCH_ADDRESS_SLOTS = 8  # addresses kept at the subnet's top for management switches, before the BMCs'


def _devices(spec: FabricSpec) -> list[tuple[str, str, int, int]]:
    """``(port key, kind, id, preferred slot)`` of every device the management switches take, in slot order."""
    m = spec.maximums
    devices = [(f'port:oob:spine:{n.id}', 'spine', n.id, n.id - 1) for n in sorted(spec.spines, key=lambda n: n.id)]
    devices += [
        (f'port:oob:leaf:{n.id}', 'leaf', n.id, m.spines + n.id - 1) for n in sorted(spec.leaves, key=lambda n: n.id)
    ]
    if spec.bmc == 'oob':
        devices += [
            (f'port:oob:bmc:{s.id}', 'bmc', s.id, m.spines + m.leaves + s.id - 1)
            for s in sorted(spec.servers, key=lambda s: s.id)
        ]
    return devices


def _pinned_port(value: str | None, switch: ManagementSwitch) -> tuple[int, str] | None:
    """``(switch number, port)`` of a pinned ``<n>:<port>`` value the switch model still has, else None."""
    number, _, port = (value or '').partition(':')
    if number.isdigit() and int(number) >= 1 and port in switch.ports:
        return int(number), port
    return None


def _switch_count(spec: FabricSpec, switch: ManagementSwitch, pinned: Mapping[str, str]) -> int:
    """Enough switches for every device, and at least as many as the pinned ports use."""
    devices = _devices(spec)
    count = math.ceil(len(devices) / len(switch.ports)) if devices else 0
    for key, *_ in devices:
        found = _pinned_port(pinned.get(key), switch)
        if found is not None:
            count = max(count, found[0])
    return count


def _mgmt_class(spec: FabricSpec) -> TrafficClass | None:
    """The management class with a subnet (the guide's VLAN 10 / MGMT), None without one."""
    return next((tc for tc in spec.traffic_classes if tc.purpose == 'management' and tc.subnet), None)


def check_management_switch(switch: ManagementSwitch) -> None:
    """A :class:`SpecError` on ``management_switch.<field>``: no port, a port named twice or empty, a hostname
    pattern without ``{n}`` (every switch would have the same name) or with other fields, a ``keep_free`` entry that
    is not an IPv4 prefix."""
    field = 'management_switch'
    if not switch.ports:
        raise SpecError(f'{field}.ports', 'a management switch needs at least one port for BMCs and management ports')
    if len(set(switch.ports)) != len(switch.ports) or not all(port.strip() for port in switch.ports):
        raise SpecError(f'{field}.ports', 'the port names must be unique and not empty')
    try:
        names = {switch.name.format(n=1), switch.name.format(n=2)}
    except (KeyError, IndexError, ValueError, AttributeError) as e:
        raise SpecError(f'{field}.name', f'{switch.name!r} is not a hostname pattern with {{n}}: {e}') from None
    if len(names) != 2 or not all(name.strip() for name in names):
        raise SpecError(f'{field}.name', f'{switch.name!r} must contain {{n}}, the switch number (e.g. "oob{{n}}")')
    for i, prefix in enumerate(switch.keep_free):
        try:
            if netaddr.IPNetwork(prefix).version != 4:
                raise ValueError(prefix)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise SpecError(f'{field}.keep_free[{i}]', f'{prefix!r} is not an IPv4 prefix') from None


def oob_keys(spec: FabricSpec, pinned: Mapping[str, str]) -> set[str]:
    """The allocation keys the management network of ``spec`` holds (so the planner does not take them for a
    removed node's). Checks the management switch model first (:func:`check_management_switch`)."""
    switch = spec.management_switch
    if switch is None:
        return set()
    check_management_switch(switch)
    keys = {key for key, *_ in _devices(spec)}
    if _mgmt_class(spec) is not None:
        keys.update(f'mgmt:bmc:{s.id}' for s in spec.servers if spec.bmc == 'oob')
        keys.update(f'mgmt:oob:{n}' for n in range(1, _switch_count(spec, switch, pinned) + 1))
    return keys


def _ports(
    spec: FabricSpec, switch: ManagementSwitch, count: int, pinned: Mapping[str, str]
) -> tuple[dict[str, tuple[int, str]], dict[str, str]]:
    """``({port key: (switch number, port)}, {key: value})``: pinned ports first, then each device's preferred
    slot, else the first free one."""
    per_switch = len(switch.ports)
    slots: list[str | None] = [None] * (count * per_switch)
    given: dict[str, tuple[int, str]] = {}
    devices = _devices(spec)
    for key, *_ in devices:
        found = _pinned_port(pinned.get(key), switch)
        if found is not None:
            slot = (found[0] - 1) * per_switch + switch.ports.index(found[1])
            if slots[slot] is None:
                slots[slot], given[key] = key, found
    for key, _kind, _id, preferred in devices:
        if key in given:
            continue
        slot = preferred if preferred < len(slots) and slots[preferred] is None else slots.index(None)
        slots[slot], given[key] = key, (slot // per_switch + 1, switch.ports[slot % per_switch])
    return given, {key: f'{n}:{port}' for key, (n, port) in given.items()}


def _held_addresses(nodes: Iterable[NodePlan], vlans: Iterable[VlanPlan], gateway: str | None) -> set[int]:
    """Every address the plan already gives: switch management addresses, gateways, switch SVIs."""
    held = {netaddr.IPNetwork(n.management).ip for n in nodes if n.management}
    for vlan in vlans:
        held.update(netaddr.IPNetwork(g).ip for g in [vlan.gateway, *(r.gateway for r in vlan.racks)] if g)
        held.update(netaddr.IPNetwork(address).ip for _, address in vlan.switch_addresses)
    if gateway:
        held.add(netaddr.IPAddress(gateway))
    return {int(address) for address in held}


def _addresses(
    tc: TrafficClass,
    switch: ManagementSwitch,
    requests: Sequence[tuple[str, int]],
    held: set[int],
    pinned: Mapping[str, str],
) -> dict[str, str]:
    """``{key: address}`` in the class's subnet, counted down from its last host (index ``i`` = broadcast − i): the
    pinned one, else the preferred index, else the highest free host. The first host (the BMC network's gateway),
    the ``keep_free`` prefixes and ``held`` addresses are never given."""
    network = netaddr.IPNetwork(tc.subnet or '')
    taken = set(held) | {network.first + 1}
    for prefix in switch.keep_free:
        keep = netaddr.IPNetwork(prefix)
        if keep.first <= network.last and keep.last >= network.first:
            taken.update(range(max(keep.first, network.first), min(keep.last, network.last) + 1))
    given: dict[str, str] = {}
    for key, _ in requests:
        value = pinned.get(key)
        if value and netaddr.IPNetwork(value).ip in network and int(netaddr.IPNetwork(value).ip) not in taken:
            given[key] = value
            taken.add(int(netaddr.IPNetwork(value).ip))
    free = [a for a in range(network.last - 1, network.first, -1) if a not in taken]
    for key, preferred in requests:
        if key in given:
            continue
        address = network.last - preferred
        if not (network.first < address < network.last) or address in taken:
            if not free:
                raise PoolExhaustedError(
                    f'traffic_classes.{tc.name}.subnet',
                    f'the MGMT subnet {network} has no free address left for {key.split(":", 1)[1]} '
                    f'({len(requests)} BMC and management-switch addresses needed)',
                )
            address = free[0]
        taken.add(address)
        free = [a for a in free if a != address]
        given[key] = f'{netaddr.IPAddress(address)}/{network.prefixlen}'
    return given


def plan_oob(
    spec: FabricSpec,
    nodes: Sequence[NodePlan],
    vlans: Sequence[VlanPlan],
    management_gateway: str | None,
    pinned: Mapping[str, str],
) -> tuple[OobPlan | None, dict[str, str]]:
    """The management network of the plan and its allocations; ``(None, {})`` without a management switch model.

    Raises:
        PoolExhaustedError: the MGMT class's subnet has no address left for a BMC or a management switch.
    """
    switch = spec.management_switch
    if switch is None:
        return None, {}
    check_management_switch(switch)
    count = _switch_count(spec, switch, pinned)
    ports, allocations = _ports(spec, switch, count, pinned)
    tc = _mgmt_class(spec)
    addresses: dict[str, str] = {}
    if tc is not None:
        requests = [(f'mgmt:oob:{n}', n) for n in range(1, count + 1)]
        requests += [
            (f'mgmt:bmc:{s.id}', SWITCH_ADDRESS_SLOTS + s.id)
            for s in sorted(spec.servers, key=lambda s: s.id)
            if spec.bmc == 'oob'
        ]
        addresses = _addresses(tc, switch, requests, _held_addresses(nodes, vlans, management_gateway), pinned)
    names = {n: switch.name.format(n=n) for n in range(1, count + 1)}
    node_by = {(n.role, n.id): n for n in nodes}
    server_name = {s.id: s.name for s in spec.servers}
    links = []
    for key, kind, id_, _ in _devices(spec):
        number, port = ports[key]
        if kind == 'bmc':
            links.append(OobLink('bmc', names[number], port, server_name[id_], 'bmc', addresses.get(f'mgmt:bmc:{id_}')))
        else:
            node = node_by[(kind, id_)]
            links.append(OobLink('switch-management', names[number], port, node.name, None, node.management))
    switches = tuple(OobSwitch(n, names[n], addresses.get(f'mgmt:oob:{n}')) for n in range(1, count + 1))
    oob = OobPlan(switches, tuple(links), tc.vlan if tc else None, tc.subnet if tc else None)
    return oob, {**allocations, **addresses}
