"""The management (out-of-band) network of a plan: every server BMC and every switch management port cabled to a
management switch, and the addresses of the BMCs and of the management switches in the MGMT class's subnet.

Pure and deterministic, like the rest of the planner. Each cable end and address is an allocation under a stable key,
pinned by ``previous``: ``port:oob:bmc:<server id>``, ``port:oob:spine:<id>``, ``port:oob:leaf:<id>`` (value
``<switch number>:<port>``), ``mgmt:bmc:<server id>`` and ``mgmt:oob:<switch number>`` (an address with the
network's prefix length). A device prefers the slot its stable id and the maximums give (switches first, then
servers), so a fabric grows without moving a cable; a taken or missing slot falls back to the first free one.

The addresses live in the management network's own subnet: where the MGMT class is carved into rack subnets (routed
and MLAG designs) its top block, which no rack subnet covers (``racks.oob_block``); in the EVPN design the class's one
subnet. The gateway is that network's first host. A pinned address that can no longer stay (inside a rack subnet, on
a gateway or SVI, outside the network) is given anew with a released-pin warning, never moved silently.
"""

import math
from collections.abc import Iterable, Mapping, Sequence

import netaddr

from netbox_aifabric.planner.errors import PoolExhaustedError, SpecError
from netbox_aifabric.planner.previous import released_pin
from netbox_aifabric.planner.racks import holds_oob_block, oob_block, rack_prefixlen
from netbox_aifabric.planner.result import NodePlan, OobLink, OobPlan, OobSwitch, PlanWarning, RackSubnet, VlanPlan
from netbox_aifabric.planner.spec import FabricSpec, ManagementSwitch, TrafficClass

__all__ = (
    'OOB_ADDRESS_KEYS',
    'OOB_OVERLAPS_RACK',
    'SWITCH_ADDRESS_SLOTS',
    'check_management_switch',
    'oob_keys',
    'oob_network',
    'plan_oob',
)

OOB_ADDRESS_KEYS = ('mgmt:bmc:', 'mgmt:oob:')  # the management network's addresses (BMCs, management switches)

SWITCH_ADDRESS_SLOTS = 8  # addresses kept at the subnet's top for management switches, before the BMCs'
OOB_OVERLAPS_RACK = 'oob-overlaps-rack'  # the warning code of a pinned rack subnet inside the management network


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


def oob_network(spec: FabricSpec, tc: TrafficClass) -> netaddr.IPNetwork:
    """The management network's subnet in the MGMT class ``tc``: its own block where the class is carved into rack
    subnets, else the class's subnet."""
    network = netaddr.IPNetwork(tc.subnet or '').cidr
    if not holds_oob_block(spec, tc):
        return network
    index = next(i for i, t in enumerate(spec.traffic_classes) if t.vlan == tc.vlan)
    field = f'traffic_classes[{index}].subnet'
    return oob_block(spec, field, network, rack_prefixlen(spec, field, network, tc.rack_prefixlen, True))


def _held_addresses(
    tc: TrafficClass, nodes: Iterable[NodePlan], vlans: Iterable[VlanPlan], gateway: str | None
) -> dict[int, str]:
    """``{address: what holds it}`` of every address the plan already gives: switch management addresses, gateways,
    switch SVIs, and every address of the class's rack subnets (a rack's hosts, not the management network's)."""
    held: dict[int, str] = {
        int(netaddr.IPNetwork(n.management).ip): f'{n.name} management' for n in nodes if n.management
    }
    for vlan in vlans:
        for rack in vlan.racks if vlan.vid == tc.vlan else ():
            subnet = netaddr.IPNetwork(rack.subnet)
            held.update(dict.fromkeys(range(subnet.first, subnet.last + 1), f'rack {rack.rack} subnet {subnet.cidr}'))
        for g in [vlan.gateway, *(r.gateway for r in vlan.racks)]:
            if g:
                held[int(netaddr.IPNetwork(g).ip)] = f'gateway {g} of {vlan.name}'
        for name, address in vlan.switch_addresses:
            held[int(netaddr.IPNetwork(address).ip)] = f'SVI {address} of {name}'
    if gateway:
        held.setdefault(int(netaddr.IPAddress(gateway)), f'management gateway {gateway}')
    return held


def _keep_free(switch: ManagementSwitch, network: netaddr.IPNetwork) -> dict[int, str]:
    """The addresses of ``network`` the ``keep_free`` prefixes (jump hosts) hold."""
    taken: dict[int, str] = {}
    for prefix in switch.keep_free:
        keep = netaddr.IPNetwork(prefix)
        if keep.first <= network.last and keep.last >= network.first:
            first, last = max(keep.first, network.first), min(keep.last, network.last)
            taken.update(dict.fromkeys(range(first, last + 1), f'keep_free {prefix}'))
    return taken


def _pinned_addresses(
    network: netaddr.IPNetwork, requests: Sequence[tuple[str, int]], taken: dict[int, str], pinned: Mapping[str, str]
) -> tuple[dict[str, str], list[PlanWarning]]:
    """The pinned addresses that stay (a host of ``network``, not ``taken``, same prefix length) and a released-pin
    warning for every other pinned one: a management address is never moved silently."""
    given: dict[str, str] = {}
    released: list[PlanWarning] = []
    for key, _ in requests:
        value = pinned.get(key)
        if not value:
            continue
        address = netaddr.IPNetwork(value)
        ip = int(address.ip)
        if ip in taken:  # first: a rack subnet says more than "outside"
            reason = f'held by {taken[ip]}'
        elif not network.first < ip < network.last:
            reason = f'outside the management network {network}'
        elif address.prefixlen != network.prefixlen:
            reason = f'the management network is {network} now'
        else:
            given[key] = value
            taken[ip] = key
            continue
        released.append(released_pin(key, f'{key.split(":", 1)[1]} {value}: {reason}; it gets a new address'))
    return given, released


def _addresses(
    tc: TrafficClass,
    network: netaddr.IPNetwork,
    requests: Sequence[tuple[str, int]],
    taken: dict[int, str],
    pinned: Mapping[str, str],
) -> tuple[dict[str, str], list[PlanWarning]]:
    """``{key: address}`` in ``network``, counted down from its last host (index ``i`` = broadcast − i): the pinned
    one, else the preferred index, else the highest free host; and the warnings of released pins. The first host
    (the management network's gateway) and ``taken`` addresses are never given."""
    taken = {**taken, network.first + 1: f"the management network's gateway {network.ip + 1}"}
    given, released = _pinned_addresses(network, requests, taken, pinned)
    free = [a for a in range(network.last - 1, network.first, -1) if a not in taken]
    for key, preferred in requests:
        if key in given:
            continue
        address = network.last - preferred
        if not (network.first < address < network.last) or address in taken:
            if not free:
                raise PoolExhaustedError(
                    f'traffic_classes.{tc.name}.subnet',
                    f'the management network {network} (MGMT class {tc.subnet}) has no free address left for '
                    f'{key.split(":", 1)[1]} ({len(requests)} BMC and management-switch addresses needed): '
                    'use a larger MGMT subnet or lower max leaves',
                )
            address = free[0]
        taken[address] = key
        free = [a for a in free if a != address]
        given[key] = f'{netaddr.IPAddress(address)}/{network.prefixlen}'
    return given, released


def _overlapping_racks(tc: TrafficClass, network: netaddr.IPNetwork, vlans: Iterable[VlanPlan]) -> list[RackSubnet]:
    """The class's rack subnets inside the management network's block: only a rack subnet pinned by a plan made
    before the block existed can be there."""
    return [
        rack
        for vlan in vlans
        if vlan.vid == tc.vlan
        for rack in vlan.racks
        if netaddr.IPNetwork(rack.subnet).first <= network.last and network.first <= netaddr.IPNetwork(rack.subnet).last
    ]


def _overlap_warnings(
    spec: FabricSpec, tc: TrafficClass, network: netaddr.IPNetwork, racks: Iterable[RackSubnet]
) -> list[PlanWarning]:
    """A warning per rack subnet in the block: its addresses stay apart from the management network's, but a BMC's
    netmask covers the rack's hosts."""
    index = next(i for i, t in enumerate(spec.traffic_classes) if t.vlan == tc.vlan)
    return [
        PlanWarning(
            OOB_OVERLAPS_RACK,
            f'traffic_classes[{index}].subnet',
            f'rack {rack.rack} subnet {rack.subnet} of {tc.name}, kept from the previous plan, lies in the management '
            f"network {network}: no management address is given in it, but the BMCs' netmask covers its hosts",
        )
        for rack in racks
    ]


def _covered(
    error: PoolExhaustedError, tc: TrafficClass, network: netaddr.IPNetwork, racks: Sequence[RackSubnet]
) -> PoolExhaustedError:
    """``error`` saying that rack subnets an earlier plan pinned fill the block: no spec change frees them (pinned
    subnets stay where they are), only renumbering those racks' subnets."""
    keys = ', '.join(f'subnet:{tc.vlan}:rack:{rack.rack} {rack.subnet}' for rack in racks)
    return PoolExhaustedError(
        error.field,
        f'the management network {network} (MGMT class {tc.subnet}) has no free address left: the previous plan, '
        f'made before the management network had its own block, pins rack subnets of {tc.name} in it ({keys}); it '
        f"fits only once those racks' {tc.name} subnets are renumbered (drop these pins from the previous plan; the "
        'class may need a larger subnet for both)',
        error.node,
    )


def plan_oob(
    spec: FabricSpec,
    nodes: Sequence[NodePlan],
    vlans: Sequence[VlanPlan],
    management_gateway: str | None,
    pinned: Mapping[str, str],
) -> tuple[OobPlan | None, dict[str, str], list[PlanWarning]]:
    """The management network of the plan, its allocations and its warnings (released address pins, rack subnets
    an earlier plan put in its block); ``(None, {}, [])`` without a management switch model.

    Raises:
        PoolExhaustedError: the management network has no address left for a BMC or a management switch.
    """
    switch = spec.management_switch
    if switch is None:
        return None, {}, []
    check_management_switch(switch)
    count = _switch_count(spec, switch, pinned)
    ports, allocations = _ports(spec, switch, count, pinned)
    tc = _mgmt_class(spec)
    network = oob_network(spec, tc) if tc is not None else None
    addresses: dict[str, str] = {}
    warnings: list[PlanWarning] = []
    if tc is not None and network is not None:
        requests = [(f'mgmt:oob:{n}', n) for n in range(1, count + 1)]
        requests += [
            (f'mgmt:bmc:{s.id}', SWITCH_ADDRESS_SLOTS + s.id)
            for s in sorted(spec.servers, key=lambda s: s.id)
            if spec.bmc == 'oob'
        ]
        taken = {**_held_addresses(tc, nodes, vlans, management_gateway), **_keep_free(switch, network)}
        overlapping = _overlapping_racks(tc, network, vlans)
        try:
            addresses, warnings = _addresses(tc, network, requests, taken, pinned)
        except PoolExhaustedError as error:
            raise (_covered(error, tc, network, overlapping) if overlapping else error) from None
        warnings += _overlap_warnings(spec, tc, network, overlapping)
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
    gateway = f'{network.ip + 1}/{network.prefixlen}' if network is not None else None
    oob = OobPlan(switches, tuple(links), tc.vlan if tc else None, str(network) if network else None, gateway)
    return oob, {**allocations, **addresses}, warnings
