"""The allocation core: a validated spec (and optionally the previous plan) in, a deterministic plan out.

Everything a plan hands out is an allocation under a stable key, pinned by ``previous``: addresses (``loopback:``,
``vtep:``, ``uplink:``, ``mlag:``, ``subnet:``), leaf ASNs (``asn:``), switch ports (``port:``), LAG numbers
(``lag:``), Ethernet segment identifiers (``esi:``) and the servers' own addresses (``host:``, planner/hosts.py).
"""

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, cast

import netaddr

from netbox_aifabric.planner.errors import SpecError
from netbox_aifabric.planner.hosts import allocate_host_addresses, host_keys
from netbox_aifabric.planner.labels import rack_pool_name
from netbox_aifabric.planner.oob import OOB_ADDRESS_KEYS, oob_keys, plan_oob
from netbox_aifabric.planner.pools import AsnPool, ManagementPool, Pool
from netbox_aifabric.planner.ports import PortInventory, check_nic_speed, lane_parent, link_speed, port_names
from netbox_aifabric.planner.previous import (
    broken_out,
    check_lag_numbers,
    check_previous,
    released_pin,
    stale_port,
    stale_svi,
)
from netbox_aifabric.planner.racks import (
    Rack,
    check_pairs,
    holds_oob_block,
    oob_block,
    rack_index,
    rack_prefixlen,
    racks_of,
)
from netbox_aifabric.planner.requirements import PoolNeed, pool_needs, required_inputs
from netbox_aifabric.planner.result import (
    Attachment,
    LeafCapacity,
    Link,
    NodePlan,
    OobPlan,
    Plan,
    PlanWarning,
    RackSubnet,
    VlanPlan,
    VrfPlan,
)
from netbox_aifabric.planner.spec import (
    BGP_UNDERLAYS,
    NON_DATA_PURPOSES,
    UNNUMBERED_UNDERLAYS,
    FabricSpec,
    Node,
    Server,
    TrafficClass,
)
from netbox_aifabric.planner.validate import management_gateway, server_slot, validate_spec
from netbox_aifabric.planner.warnings import oversubscription_target, spec_warnings

__all__ = ('design_pools', 'leaf_port_demand', 'plan_fabric')

# (key, pool name, preferred index, node name)
type AddressRequest = tuple[str, str, int, str]
# (key, role, node id, use, preferred index)
type PortRequest = tuple[str, str, int, str, int]
# (key, class, vid, leaf id, rack id or None, host index)
type SviRequest = tuple[str, TrafficClass, int, int, int | None, int]
type AddressPool = Pool | ManagementPool | AsnPool

POOL_OF_KIND = {
    'loopback': 'loopback',
    'vtep': 'vtep',
    'uplink': 'p2p',
    'mlag': 'mlag_peer',
    'asn': 'leaf_asn',
    'mgmt': 'management',
}
ADDRESS_KINDS = ('loopback', 'vtep', 'uplink', 'mlag', 'subnet')
LAG_NUMBERS = (1, 999)  # server bonds; Port-Channel1000 is the MLAG peer link
ESI_SYSTEM_MAC = '02:ae:00:00:{high:02x}:{low:02x}'  # locally administered, one per EVPN multihoming pair
ESI_LOCAL_IDS = (1, 16_777_215)  # the 3-byte local discriminator (FRR's es-id range)


@dataclass
class _State:
    """What one planning run hands out: the pinned allocations and the values given so far."""

    pinned: dict[str, str]
    values: dict[str, str] = field(default_factory=dict)
    names: dict[tuple[str, int], str] = field(default_factory=dict)  # (role, node id) -> hostname
    # new addresses: key -> (pool, block index); the /31s of links come from a Pool
    blocks: dict[str, tuple[Pool | ManagementPool, int]] = field(default_factory=dict)
    released: list[PlanWarning] = field(default_factory=list)  # pins a design change made impossible

    def release(self, key: str, reason: str) -> None:
        """Drop the pin of ``key`` (it is allocated anew) and say so in the plan's warnings."""
        del self.pinned[key]
        self.released.append(released_pin(key, reason))

    def give(self, key: str, allocate: Callable[[], str]) -> str:
        """The pinned value of ``key``, else ``allocate()``; recorded in ``values``."""
        value = self.pinned[key] if key in self.pinned else allocate()
        self.values[key] = value
        return value


def plan_fabric(
    spec: FabricSpec, previous: Plan | Mapping[str, Any] | None = None, release: bool = False, taken: Iterable[str] = ()
) -> Plan:
    """Number a fabric.

    Args:
        spec: the fabric spec.
        previous: an earlier plan (or its ``to_dict()``/JSON form). Every allocation in it is pinned: it is kept
            even when maximums or pools changed, and new items take free space around it.
        release: free what the previous plan allocated to nodes no longer in the spec. Without it such
            allocations stay reserved (listed in ``Plan.reserved``) so a removed node's addresses are not reused.
        taken: addresses (``a.b.c.d`` or with a prefix length) used outside the fabric, e.g. another fabric's servers
            in a traffic class both share: no new server address takes one (a pinned one stays).

    Returns:
        The :class:`Plan`; the same spec and previous plan always give an identical plan.

    Raises:
        SpecError: the spec is invalid (checked before anything is allocated).
        PoolExhaustedError: pinned allocations leave no room for a new item.
    """
    networks = validate_spec(spec)
    check_pairs(spec)
    ports = PortInventory(spec)
    _check_speeds(spec)
    racks = racks_of(spec)
    pinned = check_previous(previous, spec.name)
    pins, homes = rdma_pins(pinned), home_pins(pinned)
    address_requests, port_requests = list(_address_requests(spec)), list(_port_requests(spec, pins, homes))
    keys = _current_keys(spec, racks, address_requests, port_requests) | oob_keys(spec, pinned)
    check_lag_numbers({f'lag:server:{server.id}': leaves for server, leaves in _bonds(spec)}, pinned)
    released = _release_stale_ports(spec, ports, pinned, port_requests)
    reserved = tuple(sorted(key for key in pinned if key not in keys)) if not release else ()
    held = {key: value for key, value in pinned.items() if key in keys or not release}
    state = _State({key: value for key, value in pinned.items() if key in keys}, names=_node_names(spec))
    state.released = released

    pools = _address_pools(spec, networks, held, set(reserved), address_requests)
    _allocate_addresses(state, pools, address_requests)
    ports.reserved.update(reserved)
    _pin_ports(state.names, ports, held, port_requests)
    ports.check_demand()
    rack_pools = _rack_pools(spec, racks, held, set(reserved))
    subnets = _allocate_rack_subnets(spec, state, racks, rack_pools)
    svis = _allocate_svis(spec, state, racks, subnets, held)

    spines = sorted(spec.spines, key=lambda n: n.id)
    leaves = sorted(spec.leaves, key=lambda n: n.id)
    leaf_by_id = {leaf.id: leaf for leaf in leaves}
    primary_of = _mlag_primaries(spec)
    nodes = _nodes(spec, spines, leaves, primary_of, state.values)
    links = list(_uplinks(spec, spines, leaves, state, ports))
    links.extend(_peer_links(spec, leaf_by_id, state, ports))
    server_links, attachments = _servers(spec, leaf_by_id, state, ports, held, (pins, homes))
    links.extend(server_links)
    vlans, vrfs = _overlay(spec, nodes, subnets, svis)
    attachments, host_values, host_released = allocate_host_addresses(
        spec, attachments, vlans, state.pinned, held, taken
    )
    state.values.update(host_values)
    state.released.extend(host_released)
    capacity = tuple(_capacity(leaves, links))
    all_pools = {**pools, **{pool.name: pool for pool in rack_pools.values()}}
    gateway = str(management_gateway(spec, networks['management'])) if 'management' in networks else None
    oob, oob_allocations, oob_released = plan_oob(spec, nodes, vlans, gateway, pinned)

    return Plan(
        fabric=spec.name,
        design=spec.design,
        underlay=spec.underlay,
        nodes=tuple(nodes),
        links=tuple(links),
        attachments=tuple(attachments),
        vlans=tuple(vlans),
        vrfs=tuple(vrfs),
        capacity=capacity,
        pools=tuple(all_pools[name].usage() for name in sorted(all_pools)),
        summary=_summary(spec, links, vlans, vrfs),
        allocations=tuple(sorted({**{k: pinned[k] for k in reserved}, **state.values, **oob_allocations}.items())),
        reserved=reserved,
        warnings=(
            *state.released,
            *oob_released,
            *spec_warnings(spec),
            *_warnings(spec, capacity, racks),
            *_jump_hosts_outside_block(spec, oob),
        ),
        management_gateway=gateway,
        oob=oob,
    )


def _check_speeds(spec: FabricSpec) -> None:
    """Server NICs must run at a speed their leaf ports run; uplinks need a speed both ends run."""
    leaf, spine = spec.leaf_platform, spec.spine_platform
    if spec.servers:
        check_nic_speed('nics.speed', leaf.server_ports, spec.nics.speed, 'a bonded server NIC')
        if spec.bmc == 'leaf':
            check_nic_speed('nics.bmc_speed', leaf.bmc_ports, spec.nics.bmc_speed, 'a BMC port')
        if spec.nics.rdma_count:
            check_nic_speed('nics.rdma_speed', leaf.rdma_ports, spec.nics.rdma_speed, 'an RDMA NIC')
    if spec.spines and leaf.uplink_ports and spine.downlink_ports:
        link_speed('spine_platform.downlink_ports', leaf.uplink_ports, spine.downlink_ports, 'leaf-spine uplinks')


def _mlag_primaries(spec: FabricSpec) -> dict[int, int]:
    """``{leaf id: primary leaf id}`` of MLAG pairs (the lower id is the primary)."""
    primary_of: dict[int, int] = {}
    for pair in spec.mlag_pairs:
        primary = min(pair)
        for leaf in pair:
            primary_of[leaf] = primary
    return primary_of


def _uplink_index(spec: FabricSpec, leaf: int, spine: int, n: int) -> int:
    m = spec.maximums
    return (leaf - 1) * m.spines * m.parallel_uplinks + (spine - 1) * m.parallel_uplinks + n - 1


def _address_requests(spec: FabricSpec) -> Iterator[AddressRequest]:
    """Every address/ASN to allocate: (key, pool, preferred index, node name). Secondaries of an MLAG pair share the
    primary's VTEP and ASN, so only primaries ask for them."""
    m, primary_of = spec.maximums, _mlag_primaries(spec)
    leaf_name = {leaf.id: leaf.name for leaf in spec.leaves}
    for spine in sorted(spec.spines, key=lambda n: n.id):
        yield f'loopback:spine:{spine.id}', 'loopback', spine.id, spine.name
    for leaf in sorted(spec.leaves, key=lambda n: n.id):
        yield f'loopback:leaf:{leaf.id}', 'loopback', m.spines + leaf.id, leaf.name
        is_primary = primary_of.get(leaf.id, leaf.id) == leaf.id
        if spec.evpn and is_primary:
            yield f'vtep:leaf:{leaf.id}', 'vtep', leaf.id, leaf.name
        if spec.underlay in BGP_UNDERLAYS and is_primary:
            yield f'asn:leaf:{leaf.id}', 'leaf_asn', leaf.id - 1, leaf.name
        if spec.underlay in UNNUMBERED_UNDERLAYS:
            continue  # unnumbered links take no /31s
        for spine in sorted(spec.spines, key=lambda n: n.id):
            for n in range(1, spec.uplinks_per_spine + 1):
                key = f'uplink:leaf:{leaf.id}:spine:{spine.id}:{n}'
                yield key, 'p2p', _uplink_index(spec, leaf.id, spine.id, n), leaf.name
    for primary in sorted(set(primary_of.values())):
        yield f'mlag:leaf:{primary}', 'mlag_peer', primary - 1, leaf_name[primary]
    if spec.pools.management is not None:
        for spine in sorted(spec.spines, key=lambda n: n.id):
            yield f'mgmt:spine:{spine.id}', 'management', spine.id, spine.name
        for leaf in sorted(spec.leaves, key=lambda n: n.id):
            yield f'mgmt:leaf:{leaf.id}', 'management', m.spines + leaf.id, leaf.name


def _current_keys(
    spec: FabricSpec,
    racks: tuple[Rack, ...],
    address_requests: Iterable[AddressRequest],
    port_requests: Iterable[PortRequest],
) -> set[str]:
    """The keys this spec allocates (a previous plan's other keys belong to removed nodes)."""
    keys = {key for key, *_ in address_requests}
    keys.update(key for key, *_ in port_requests)
    for server, _ in _bonds(spec):
        keys.add(f'lag:server:{server.id}')
    for server, rack in _mh_bonds(spec):
        keys.add(f'esi:server:{server.id}')
    for tc in _rack_classes(spec):
        keys.update(f'subnet:{tc.vlan}:rack:{rack.id}' for rack in racks)
    keys.update(key for key, *_ in _svi_requests(spec, racks))
    keys.update(host_keys(spec))
    return keys


def _address_pools(
    spec: FabricSpec,
    networks: dict[str, netaddr.IPNetwork],
    held: dict[str, str],
    reserved: set[str],
    address_requests: Iterable[AddressRequest],
) -> dict[str, AddressPool]:
    """The pools of the spec's networks the design numbers from (:func:`design_pools`: no VTEP pool outside
    EVPN/VXLAN, even when one is given) and the leaf ASN range, held allocations pinned, each told its need."""
    m = spec.maximums
    needs = pool_needs(m.spines, m.leaves, m.parallel_uplinks)
    used = design_pools(spec)
    pools: dict[str, AddressPool] = {
        name: Pool(name, net, needs[name]) for name, net in networks.items() if name in used
    }
    if 'management' in networks:
        network = networks['management']
        pools['management'] = ManagementPool(network, management_gateway(spec, network))
    if spec.underlay in BGP_UNDERLAYS and spec.leaf_asn_range is not None:  # validate_spec: eBGP has a range
        pools['leaf_asn'] = AsnPool(*spec.leaf_asn_range)
    _hold(pools, held, reserved)
    for _, pool_name, *_ in address_requests:
        pools[pool_name].needed += 1
    return pools


def design_pools(spec: FabricSpec) -> frozenset[str]:
    """The address pools the spec's design numbers from: its required pools (``requirements.required_inputs``: the
    loopback pool; the point-to-point pool for numbered links with spines or room for them; the VTEP pool for
    EVPN/VXLAN; the MLAG peer pool for MLAG pairs). A pool given beyond them is not a pool of the plan."""
    inputs = required_inputs(
        spines=len(spec.spines),
        max_spines=spec.maximums.spines,
        evpn=spec.evpn,
        mlag_pairs=bool(spec.mlag_pairs),
        underlay=spec.underlay,
    )
    return frozenset(name.removeprefix('pools.') for name in inputs if name.startswith('pools.'))


def _hold(pools: dict[str, AddressPool], held: dict[str, str], reserved: set[str]) -> None:
    """Pin each held allocation in its own pool and hold the blocks any pinned address overlaps in every other pool."""
    addresses: list[tuple[str, netaddr.IPNetwork]] = []
    for key in sorted(held):
        kind = key.split(':', 1)[0]
        pool = pools.get(POOL_OF_KIND.get(kind, ''))
        if pool is not None:
            pool.pin(key, held[key])
        if kind in ADDRESS_KINDS:
            addresses.append((key, netaddr.IPNetwork(held[key])))
    for pool in pools.values():
        pool.reserved = reserved
        if isinstance(pool, Pool):  # the management network is apart from every pool (validate_spec)
            for key, network in addresses:
                pool.reserve(key, network)


def _allocate_addresses(
    state: _State, pools: dict[str, AddressPool], address_requests: Iterable[AddressRequest]
) -> None:
    """Give each requested address or ASN: pinned, else its preferred block, else the first free one."""
    for key, pool_name, preferred, node in address_requests:
        pool = pools[pool_name]

        def allocate(pool: AddressPool = pool, key: str = key, preferred: int = preferred, node: str = node) -> str:
            index = pool.take(key, preferred, node)
            if isinstance(pool, AsnPool):  # the leaf_asn pool
                return str(pool.start + index)
            state.blocks[key] = (pool, index)
            return pool.address(index)

        state.give(key, allocate)


def _rack_leaves(server: Server) -> tuple[int, ...]:
    """The distinct leaves of a server's bond, in the order listed (one leaf for a bond on a single leaf)."""
    return tuple(dict.fromkeys(server.leaves))


type RdmaPins = Mapping[tuple[int, int], int]
type HomePins = Mapping[tuple[str, int], int]


def home_pins(pinned: Mapping[str, str]) -> dict[tuple[str, int], int]:
    """``{(use, server id): leaf id}`` of the single-homed ports an earlier plan gave: ``server`` (the bond's first
    port on a leaf, ``port:leaf:<leaf>:server:<id>``) and ``bmc``; a one-NIC server and a BMC keep their leaf."""
    homes: dict[tuple[str, int], int] = {}
    for key in sorted(pinned):
        parts = key.split(':')
        if len(parts) == 5 and parts[:2] == ['port', 'leaf'] and parts[3] in ('server', 'bmc'):
            if parts[2].isdigit() and parts[4].isdigit():
                homes.setdefault((parts[3], int(parts[4])), int(parts[2]))
    return homes


def _home_leaf(server: Server, pinned: int | None) -> int:
    """The leaf of a single-homed port (a one-NIC server's NIC, a BMC on a leaf) of a server listed on a pair: the
    leaf an earlier plan gave it while the server still lists it, else the pair's leaves in turn by server id (as
    the RDMA NICs), so both leaves of a pair carry their half."""
    leaves = _rack_leaves(server)
    return pinned if pinned in leaves else leaves[(server.id - 1) % len(leaves)]


def _bond_members(spec: FabricSpec, server: Server, homes: HomePins) -> list[tuple[int, str, int]]:
    """``(leaf id, key, preferred port index)`` of each bonded NIC: NIC k to ``leaves[k]``, or every NIC to the one
    leaf listed (a bond on a single leaf); a one-NIC server listed on a pair takes a port on one leaf only
    (:func:`_home_leaf`). A leaf's first member of the bond keeps the key and the preferred port
    (id − 1) mod servers_per_leaf; further members on the same leaf take the next ports."""
    if spec.nics.count == 1 and len(server.leaves) > 1:
        leaves = [_home_leaf(server, homes.get(('server', server.id)))]
    elif len(server.leaves) == spec.nics.count:
        leaves = list(server.leaves)
    else:
        leaves = list(server.leaves[:1]) * spec.nics.count
    on_leaf = {leaf: leaves.count(leaf) for leaf in leaves}
    slot = server_slot(spec, server.id)
    seen: dict[int, int] = defaultdict(int)
    members: list[tuple[int, str, int]] = []
    for leaf in leaves:
        m = seen[leaf]
        seen[leaf] += 1
        key = f'port:leaf:{leaf}:server:{server.id}' + (f':{m + 1}' if m else '')
        members.append((leaf, key, slot * on_leaf[leaf] + m))
    return members


def rdma_pins(pinned: Mapping[str, str]) -> dict[tuple[int, int], int]:
    """``{(server id, NIC index): leaf id}`` of the RDMA ports an earlier plan gave: a NIC keeps its leaf."""
    pins: dict[tuple[int, int], int] = {}
    for key in pinned:
        parts = key.split(':')
        if len(parts) == 6 and parts[:2] == ['port', 'leaf'] and parts[3] == 'rdma':
            if parts[2].isdigit() and parts[4].isdigit() and parts[5].isdigit():
                pins[int(parts[4]), int(parts[5]) - 1] = int(parts[2])
    return pins


def _rdma_ports(spec: FabricSpec, server: Server, pins: RdmaPins) -> list[tuple[int, int, int]]:
    """``(r, leaf id, preferred port index)`` of each RDMA NIC. An RDMA NIC is single-homed: it takes a port on its
    own leaf only. In a rail group NIC r goes to leaf r of the group; otherwise to the leaf an earlier plan gave it
    (``pins``) while that leaf still carries the server's bond, else the bond's leaves in turn, alternating by
    server id so both leaves of a pair carry RDMA. The preferred port counts only the NICs that land on the leaf:
    NIC r of slot s prefers index (s × rdma_count + r) // leaves, so a pair's two leaves fill their RDMA ports from
    the first, each with its half."""
    slot = server_slot(spec, server.id)
    out: list[tuple[int, int, int]] = []
    group = spec.rail_groups[server.rail_group].leaves if server.rail_group is not None else None
    leaves = _rack_leaves(server)
    n, count = len(leaves), spec.nics.rdma_count
    for r in range(count):
        if group is not None:
            out.append((r, group[r], slot))
            continue
        pinned = pins.get((server.id, r))
        leaf = pinned if pinned in leaves else leaves[(server.id - 1 + r) % n]
        out.append((r, leaf, (slot * count + r) // n))
    return out


def _uplink_ports(spec: FabricSpec, leaf: int, spine: int, n: int) -> Iterator[PortRequest]:
    """The leaf and spine port requests of uplink ``n`` between ``leaf`` and ``spine``."""
    p = spec.maximums.parallel_uplinks
    yield f'port:leaf:{leaf}:uplink:{spine}:{n}', 'leaf', leaf, 'uplink', (spine - 1) * p + n - 1
    yield f'port:spine:{spine}:downlink:{leaf}:{n}', 'spine', spine, 'downlink', (leaf - 1) * p + n - 1


def _port_requests(spec: FabricSpec, pins: RdmaPins, homes: HomePins) -> Iterator[PortRequest]:
    """Every switch port to allocate: (key, role, node id, use, preferred index), in a fixed order."""
    spines = sorted(spec.spines, key=lambda n: n.id)
    for leaf in sorted(spec.leaves, key=lambda n: n.id):
        for spine in spines:
            for n in range(1, spec.uplinks_per_spine + 1):
                yield from _uplink_ports(spec, leaf.id, spine.id, n)
    members = len(spec.leaf_platform.peer_link_interfaces())
    for pair in sorted(tuple(sorted(pair)) for pair in spec.mlag_pairs):
        for leaf_id in pair:
            for k in range(members):
                yield f'port:leaf:{leaf_id}:peer_link:{k + 1}', 'leaf', leaf_id, 'peer_link', k
    for server in sorted(spec.servers, key=lambda s: s.id):
        for leaf_id, key, preferred in _bond_members(spec, server, homes):
            yield key, 'leaf', leaf_id, 'server', preferred
        for r, leaf_id, preferred in _rdma_ports(spec, server, pins):
            yield f'port:leaf:{leaf_id}:rdma:{server.id}:{r + 1}', 'leaf', leaf_id, 'rdma', preferred
        if spec.bmc == 'leaf':
            leaf_id = _bmc_leaf(server, homes)
            yield _bmc_key(server, leaf_id), 'leaf', leaf_id, 'bmc', server_slot(spec, server.id)


def leaf_port_demand(spec: FabricSpec, previous: Plan | Mapping[str, Any] | None = None) -> dict[tuple[int, str], int]:
    """``{(leaf id, use): ports}``: how many ports of each use (``server``, ``rdma``, ``bmc``, ``uplink``,
    ``peer_link``) each leaf takes in the plan of ``spec``, counted from the plan's own port requests. A
    single-homed NIC counts on its own leaf only; ``previous`` pins the leaf of an RDMA NIC, of a one-NIC server and
    of a BMC as the plan does."""
    pinned = check_previous(previous)
    pins, homes = rdma_pins(pinned), home_pins(pinned)
    demand: dict[tuple[int, str], int] = defaultdict(int)
    for _key, role, node_id, use, _preferred in _port_requests(spec, pins, homes):
        if role == 'leaf':
            demand[node_id, use] += 1
    return dict(demand)


def _bmc_leaf(server: Server, homes: HomePins) -> int:
    """The leaf of a server's BMC (``bmc: leaf``): a single-homed port, placed as a one-NIC server's NIC."""
    return _home_leaf(server, homes.get(('bmc', server.id)))


def _bmc_key(server: Server, leaf_id: int) -> str:
    """A server's BMC port: an access port of ``leaf_id``, one of its leaves."""
    return f'port:leaf:{leaf_id}:bmc:{server.id}'


def _node_names(spec: FabricSpec) -> dict[tuple[str, int], str]:
    return {**{('spine', n.id): n.name for n in spec.spines}, **{('leaf', n.id): n.name for n in spec.leaves}}


def _release_stale_ports(
    spec: FabricSpec, ports: PortInventory, pinned: dict[str, str], port_requests: Iterable[PortRequest]
) -> list[PlanWarning]:
    """Drop the pinned ports that cannot stay (``previous.stale_port``, ``previous.broken_out``), with a warning."""
    names = _node_names(spec)
    warnings = []
    for key, role, node_id, use, _ in port_requests:
        if key not in pinned:
            continue
        node, name = names[role, node_id], pinned[key]
        block = ports.block(node, role, use)
        platform = spec.leaf_platform if role == 'leaf' else spec.spine_platform
        now = next((b for b, held in sorted(port_names(platform).items()) if name in held), None)
        reason = stale_port(name, node, use, block.index, now)
        if reason is not None:
            del pinned[key]
            warnings.append(released_pin(key, reason))
    return warnings + _release_broken_out_parents(ports, pinned, port_requests, names)


def _release_broken_out_parents(
    ports: PortInventory,
    pinned: dict[str, str],
    port_requests: Iterable[PortRequest],
    names: Mapping[tuple[str, int], str],
) -> list[PlanWarning]:
    """A pinned port and a pinned lane of its own (both in the inventory now) are one piece of hardware: the port's
    pin is released (it moves one cable; keeping the port would move every lane's)."""
    held: dict[tuple[str, str], tuple[str, str, str]] = {}  # (node, port) -> (key, role, use)
    for key, role, node_id, use, _ in port_requests:
        if key in pinned:
            held[names[role, node_id], pinned[key]] = (key, role, use)
    warnings = []
    for (node, name), (lane_key, role, _use) in sorted(held.items()):
        parent = lane_parent(name)
        if parent is None or parent not in ports.family(role).get(name, ()) or (node, parent) not in held:
            continue
        key, _role, use = held.pop((node, parent))
        if key in pinned:
            del pinned[key]
            warnings.append(released_pin(key, broken_out(node, parent, use, name, lane_key)))
    return warnings


def _pin_ports(
    names: dict[tuple[str, int], str], ports: PortInventory, held: dict[str, str], port_requests: Iterable[PortRequest]
) -> None:
    """Pinned ports are taken first, so new link ends go around them; removed links' ports stay held (reserved)."""
    for key in sorted(held):
        parts = key.split(':')
        if parts[0] != 'port' or len(parts) < 3 or not parts[2].isdigit():
            continue
        node = names.get((parts[1], int(parts[2])))
        if node is not None:
            ports.pin(node, key, held[key])
    for _, role, node_id, use, _ in port_requests:
        ports.block(names[role, node_id], role, use).needed += 1


def _port(state: _State, ports: PortInventory, key: str, role: str, node_id: int, use: str, preferred: int) -> str:
    """The switch port for ``key``: pinned, else taken from the node's block for ``use``."""
    node = state.names[role, node_id]
    return state.give(key, lambda: ports.block(node, role, use).take(key, preferred))


def _bonds(spec: FabricSpec) -> Iterator[tuple[Server, tuple[int, ...]]]:
    """Servers with a bond of more than one member (they get a LAG number): ``(server, its distinct leaf ids)``; a
    bond on a single leaf is a LAG of that leaf alone."""
    if spec.nics.count < 2:
        return
    for server in sorted(spec.servers, key=lambda s: s.id):
        yield server, _rack_leaves(server)


def _mh_bonds(spec: FabricSpec) -> Iterator[tuple[Server, tuple[int, ...]]]:
    """Bonds across both leaves of an EVPN multihoming pair (they get an Ethernet segment): ``(server, pair)``. A
    bond on one leaf of the pair is local to it: no segment."""
    pairs = {leaf: tuple(sorted(pair)) for pair in spec.mh_pairs for leaf in pair}
    for server, leaves in _bonds(spec):
        if len(leaves) > 1 and leaves[0] in pairs:
            yield server, pairs[leaves[0]]


def _allocate_lags(spec: FabricSpec, state: _State, held: dict[str, str]) -> dict[int, str]:
    """``{server id: LAG name}``: the number is the same on each of the bond's leaves and unique on each leaf."""
    used: dict[int, set[int]] = defaultdict(set)  # leaf id -> numbers in use
    bonds = list(_bonds(spec))
    leaves_of = {server.id: leaves for server, leaves in bonds}
    every_leaf = tuple(leaf.id for leaf in spec.leaves)
    for key in sorted(held):
        if key.startswith('lag:server:'):
            # a removed server's number (reserved until --release) is held on every leaf: its leaves are not known
            server_id = int(key.rsplit(':', 1)[1])
            for leaf in leaves_of.get(server_id, every_leaf):
                used[leaf].add(int(held[key]))
    low, high = LAG_NUMBERS
    names: dict[int, str] = {}
    for server, leaves in bonds:
        preferred = server_slot(spec, server.id) + 1

        def allocate(leaves: tuple[int, ...] = leaves, preferred: int = preferred, server: Server = server) -> str:
            taken: set[int] = set().union(*(used[leaf] for leaf in leaves))
            number = preferred if low <= preferred <= high and preferred not in taken else None
            if number is None:
                number = next((n for n in range(low, high + 1) if n not in taken), None)
            if number is None:
                raise SpecError(
                    'servers', f'no free LAG number ({low}–{high}) on the leaves of {server.name}', server.name
                )
            return str(number)

        number = int(state.give(f'lag:server:{server.id}', allocate))
        for leaf in leaves:
            used[leaf].add(number)
        names[server.id] = spec.leaf_platform.lag.format(number=number)
    return names


def _esi(primary: int, local_id: int) -> str:
    """A type 3 ESI: the pair's system MAC and a 3-byte local id."""
    mac = ESI_SYSTEM_MAC.format(high=(primary >> 8) & 0xFF, low=primary & 0xFF)
    return ':'.join(
        ['03', mac, f'{local_id >> 16 & 0xFF:02x}', f'{local_id >> 8 & 0xFF:02x}', f'{local_id & 0xFF:02x}']
    )


def _allocate_esis(spec: FabricSpec, state: _State, held: dict[str, str]) -> dict[int, str]:
    """``{server id: ESI}`` for bonds on EVPN multihoming pairs: type 3 (the pair's system MAC and a local id that
    prefers the server id), unique and pinned like every allocation."""
    used: set[str] = {held[key] for key in held if key.startswith('esi:')}
    low, high = ESI_LOCAL_IDS
    esis: dict[int, str] = {}
    for server, pair in _mh_bonds(spec):

        def allocate(server: Server = server, pair: tuple[int, ...] = pair) -> str:
            preferred = _esi(pair[0], server.id)
            if preferred not in used:
                return preferred
            return next(e for e in (_esi(pair[0], n) for n in range(low, high + 1)) if e not in used)

        esi = state.give(f'esi:server:{server.id}', allocate)
        used.add(esi)
        esis[server.id] = esi
    return esis


def _rack_classes(spec: FabricSpec) -> list[TrafficClass]:
    """The classes that get one subnet per rack: routed classes with a subnet, outside the EVPN/VXLAN design."""
    if spec.evpn:
        return []
    return [tc for tc in sorted(spec.traffic_classes, key=lambda t: t.vlan) if tc.routed and tc.subnet]


def _rack_pools(spec: FabricSpec, racks: tuple[Rack, ...], held: dict[str, str], reserved: set[str]) -> dict[int, Pool]:
    """``{vid: pool}`` of the rack subnets of each routed class, held subnets pinned; the MGMT class's block of the
    management network is never a rack's (a rack taking it would share addresses with the BMCs)."""
    pools: dict[int, Pool] = {}
    for tc in _rack_classes(spec):
        index = next(i for i, t in enumerate(spec.traffic_classes) if t.vlan == tc.vlan)
        field = f'traffic_classes[{index}].subnet'
        network = netaddr.IPNetwork(tc.subnet)
        oob = holds_oob_block(spec, tc)
        length = rack_prefixlen(spec, field, network, tc.rack_prefixlen, oob)
        pool = Pool(rack_pool_name(tc.name), network, PoolNeed(len(racks), length, f'rack /{length} subnets'), field)
        pool.description = f'{tc.name} prefix {network}'
        pool.needed = len(racks)
        own = {k: v for k, v in held.items() if k.startswith(f'subnet:{tc.vlan}:')}
        for key in sorted(own):
            pool.pin(key, own[key])
        pool.reserved = reserved
        if oob:
            pool.reserve('oob:block', oob_block(spec, field, network, length))
        pools[tc.vlan] = pool
    return pools


def _allocate_rack_subnets(
    spec: FabricSpec, state: _State, racks: tuple[Rack, ...], pools: dict[int, Pool]
) -> dict[tuple[int, int], str]:
    """``{(vid, rack id): subnet}``; a class too small for its racks says how many fit."""
    subnets: dict[tuple[int, int], str] = {}
    for vid, pool in pools.items():
        oob = sum(1 for key in pool.used.values() if key == 'oob:block')
        if len(racks) > pool.size - oob:
            block = f" (and {oob} for the management network's own block)" if oob else ''
            raise SpecError(
                pool.field,
                f'{pool.network} holds {pool.size - oob} rack subnets of /{pool.prefixlen}{block}; the fabric has '
                f'{len(racks)} racks (leaf pairs and single leaves), each needs one: use a shorter prefix or a longer '
                'rack prefix length',
            )
        for rack in racks:
            key = f'subnet:{vid}:rack:{rack.id}'

            def allocate(pool: Pool = pool, key: str = key, rack: Rack = rack) -> str:
                return pool.address(pool.take(key, rack_index(spec, rack), f'rack {rack.id}'))

            subnets[vid, rack.id] = state.give(key, allocate)
    return subnets


def _svi_requests(spec: FabricSpec, racks: tuple[Rack, ...]) -> Iterator[SviRequest]:
    """Each leaf's own address in a gateway subnet, next to the shared gateway (NVIDIA's VRR needs a unique address
    per switch on the SVI): ``(key, class, vid, leaf id, rack id or None, host index)``, the host index counted from
    the subnet's first host (the gateway is host 0; a negative index counts from the last host). In a rack subnet of
    a leaf pair the primary (lower id) takes the 2nd host, the secondary the 3rd; a single leaf's gateway is its own
    address and needs none. In an EVPN anycast subnet leaf id n takes the last host − (n − 1)."""
    if spec.evpn:
        for tc in sorted(spec.traffic_classes, key=lambda t: t.vlan):
            if tc.routed and tc.subnet:
                for leaf in sorted(spec.leaves, key=lambda n: n.id):
                    yield f'svi:{tc.vlan}:leaf:{leaf.id}', tc, tc.vlan, leaf.id, None, -leaf.id
        return
    for tc in _rack_classes(spec):
        for rack in racks:
            if len(rack.leaves) == 2:
                for n, leaf_id in enumerate(rack.leaves, 1):
                    yield f'svi:{tc.vlan}:leaf:{leaf_id}', tc, tc.vlan, leaf_id, rack.id, n


def _allocate_svis(
    spec: FabricSpec,
    state: _State,
    racks: tuple[Rack, ...],
    subnets: dict[tuple[int, int], str],
    held: Mapping[str, str],
) -> dict[tuple[int, int], str]:
    """``{(vid, leaf id): address/prefix length}``: :func:`_svi_requests`, pinned like every allocation. A new SVI
    address avoids those an earlier plan gave the management network (BMCs, management switches: in the EVPN design
    they live in the MGMT class's subnet, counted down from its top as the SVIs are); a rack subnet of a class with
    the management network's own block does not. A subnet without room for the gateway and every switch address it
    must hold is a named error."""
    field_of = {tc.vlan: f'traffic_classes[{i}].subnet' for i, tc in enumerate(spec.traffic_classes)}
    oob = {netaddr.IPNetwork(value).ip for key, value in held.items() if key.startswith(OOB_ADDRESS_KEYS)}
    # A class with the management network's own block keeps its rack subnets for the racks: a management address an
    # earlier plan put in one is stale (oob.py releases it with a warning), the rack's switch addresses come first.
    own_block = {tc.vlan for tc in spec.traffic_classes if holds_oob_block(spec, tc)}
    used: dict[int, set[netaddr.IPAddress]] = {
        tc.vlan: set() if tc.vlan in own_block else set(oob) for tc in spec.traffic_classes
    }
    # a new switch address never takes one a server holds (planner/hosts.py counts those up from the gateway)
    for key, value in held.items():
        if key.startswith('host:') and int(key.split(':')[1]) in used:
            used[int(key.split(':')[1])].add(netaddr.IPNetwork(value).ip)
    for key, tc, vid, leaf, rack, _n in _svi_requests(spec, racks):
        if key in state.pinned:
            network = netaddr.IPNetwork(subnets[vid, rack] if rack is not None else tc.subnet).cidr
            reason = stale_svi(state.pinned[key], network)
            if reason is None:
                used[vid].add(netaddr.IPNetwork(state.pinned[key]).ip)
            else:
                state.release(key, f'{state.names.get(("leaf", leaf), leaf)}: {reason}')
    svis: dict[tuple[int, int], str] = {}
    for key, tc, vid, leaf, rack, n in _svi_requests(spec, racks):
        network = netaddr.IPNetwork(subnets[vid, rack] if rack is not None else tc.subnet).cidr
        hosts = max(network.size - 2, 0)
        if rack is not None and hosts < 3:
            raise SpecError(
                field_of[vid],
                f'rack subnet {network} of {tc.name} has {hosts} host addresses; the gateway and the two switch '
                'addresses of a leaf pair need 3: use a shorter rack prefix length',
            )
        if rack is None and hosts < spec.maximums.leaves + 1:
            raise SpecError(
                field_of[vid],
                f'subnet {network} of {tc.name} has {hosts} host addresses; the anycast gateway and a switch '
                f'address per leaf (max leaves {spec.maximums.leaves}) need {spec.maximums.leaves + 1}',
            )

        def allocate(
            network: netaddr.IPNetwork = network,
            vid: int = vid,
            n: int = n,
            name: str = state.names.get(('leaf', leaf), str(leaf)),
        ) -> str:
            last = network.size - 3  # the last host's index, counted from the gateway (host 0)
            preferred = n if n > 0 else last + 1 + n
            for index in chain((preferred,), range(last, 0, -1)):
                address = network[index + 1]
                if address not in used[vid]:
                    used[vid].add(address)
                    return f'{address}/{network.prefixlen}'
            message = f'subnet {network} has no free switch address left for {name}'
            held_oob = sum(1 for address in used[vid] & oob if address in network)
            if held_oob:
                message += f': {held_oob} of its addresses are BMC or management-switch addresses an earlier plan gave'
            raise SpecError(field_of[vid], message)

        svis[vid, leaf] = state.give(key, allocate)
    return svis


def _nodes(
    spec: FabricSpec, spines: list[Node], leaves: list[Node], primary_of: dict[int, int], values: dict[str, str]
) -> list[NodePlan]:
    """The switches of the plan with their allocated loopbacks, ASNs, VTEPs, peers and management addresses."""
    nodes: list[NodePlan] = []
    for spine in spines:
        asn = spec.spine_asn if (spec.underlay in BGP_UNDERLAYS or spec.evpn) else None
        loopback = values[f'loopback:spine:{spine.id}']
        management = values.get(f'mgmt:spine:{spine.id}')
        nodes.append(NodePlan('spine', spine.id, spine.name, asn, loopback, management=management))
    names = {leaf.id: leaf.name for leaf in leaves}
    mlag_peer: dict[int, int] = {}
    mh_peer: dict[int, int] = {}
    for pairs, peer_of in ((spec.mlag_pairs, mlag_peer), (spec.mh_pairs, mh_peer)):
        for a, b in pairs:
            peer_of[a], peer_of[b] = b, a
    for leaf in leaves:
        primary = primary_of.get(leaf.id, leaf.id)
        if spec.underlay in BGP_UNDERLAYS:
            asn = int(values[f'asn:leaf:{primary}'])
        else:
            asn = spec.spine_asn if spec.evpn else None  # iBGP EVPN overlay over an OSPF underlay
        peer = mlag_peer.get(leaf.id)
        nodes.append(
            NodePlan(
                'leaf',
                leaf.id,
                leaf.name,
                asn,
                values[f'loopback:leaf:{leaf.id}'],
                vtep=values[f'vtep:leaf:{primary}'] if spec.evpn else None,
                mlag_peer=names[peer] if peer else None,
                mlag_role=('primary' if primary == leaf.id else 'secondary') if peer else None,
                mh_peer=names[mh_peer[leaf.id]] if leaf.id in mh_peer else None,
                management=values.get(f'mgmt:leaf:{leaf.id}'),
            )
        )
    return nodes


def _ends(state: _State, key: str) -> tuple[str, str, str]:
    """The /31 of a link and its two addresses (even end first). A block allocated in this run is computed from its
    index; a pinned one is parsed (a test holds both paths equal)."""
    if key in state.blocks:
        block, index = state.blocks[key]
        pool = cast(Pool, block)  # uplink and peer-link keys are /31s of a Pool
        first, length = pool.network.first + (index << pool.shift), pool.prefixlen
    else:
        network = netaddr.IPNetwork(state.values[key])
        first, length = network.first, network.prefixlen
    low = f'{netaddr.IPAddress(first)}/{length}'
    return low, low, f'{netaddr.IPAddress(first + 1)}/{length}'


def _uplinks(
    spec: FabricSpec, spines: list[Node], leaves: list[Node], state: _State, ports: PortInventory
) -> Iterator[Link]:
    """The leaf-spine links with their /31s (none with an unnumbered underlay) and ports."""
    numbered = spec.underlay not in UNNUMBERED_UNDERLAYS
    uplink_ports, downlink_ports = spec.leaf_platform.uplink_ports, spec.spine_platform.downlink_ports
    speed = 0  # no spines, no uplinks; with spines validate_spec made sure both port blocks exist
    if spines and uplink_ports and downlink_ports:
        speed = link_speed('spine_platform.downlink_ports', uplink_ports, downlink_ports, '')
    for leaf in leaves:
        for spine in spines:
            for n in range(1, spec.uplinks_per_spine + 1):
                key = f'uplink:leaf:{leaf.id}:spine:{spine.id}:{n}'
                subnet, spine_address, leaf_address = _ends(state, key) if numbered else (None, None, None)
                leaf_port, spine_port = (
                    _port(state, ports, *request) for request in _uplink_ports(spec, leaf.id, spine.id, n)
                )
                yield Link(
                    'uplink', spine.name, spine_port, leaf.name, leaf_port, speed, subnet, spine_address, leaf_address
                )


def _peer_links(spec: FabricSpec, leaf_by_id: dict[int, Node], state: _State, ports: PortInventory) -> Iterator[Link]:
    """The MLAG peer-link members of each pair, the pair's /31 on the first."""
    members = len(spec.leaf_platform.peer_link_interfaces())
    for a, b in sorted(tuple(sorted(pair)) for pair in spec.mlag_pairs):
        subnet, primary_address, secondary_address = _ends(state, f'mlag:leaf:{a}')
        for k in range(members):
            # The peer link's /31 is carried on its first member (it lives on the peer-link LAG / SVI)
            first = k == 0
            a_port = _port(state, ports, f'port:leaf:{a}:peer_link:{k + 1}', 'leaf', a, 'peer_link', k)
            b_port = _port(state, ports, f'port:leaf:{b}:peer_link:{k + 1}', 'leaf', b, 'peer_link', k)
            yield Link(
                'mlag-peer',
                leaf_by_id[a].name,
                a_port,
                leaf_by_id[b].name,
                b_port,
                spec.leaf_platform.peer_link_speed,
                subnet if first else None,
                primary_address if first else None,
                secondary_address if first else None,
            )


def _servers(
    spec: FabricSpec,
    leaf_by_id: dict[int, Node],
    state: _State,
    ports: PortInventory,
    held: dict[str, str],
    pins: tuple[RdmaPins, HomePins],
) -> tuple[list[Link], list[Attachment]]:
    """The server links (bond, RDMA, BMC) and each server's attachment; ``pins`` the leaves an earlier plan gave
    the single-homed ports (:func:`rdma_pins`, :func:`home_pins`)."""
    rdma_leaves, homes = pins
    nics = spec.nics
    lags = _allocate_lags(spec, state, held)
    esis = _allocate_esis(spec, state, held)
    bond_vlans = tuple(
        sorted(tc.vlan for tc in spec.traffic_classes if not tc.lossless and tc.purpose not in NON_DATA_PURPOSES)
    )
    bmc_vlan = next((tc.vlan for tc in spec.traffic_classes if tc.purpose == 'management'), None)
    links: list[Link] = []
    attachments: list[Attachment] = []
    for server in sorted(spec.servers, key=lambda s: s.id):
        slot = server_slot(spec, server.id)
        members: list[tuple[str, str]] = []
        for k, (leaf_id, key, preferred) in enumerate(_bond_members(spec, server, homes)):
            leaf = leaf_by_id[leaf_id]
            interface = _port(state, ports, key, 'leaf', leaf_id, 'server', preferred)
            links.append(Link('server', leaf.name, interface, server.name, f'nic{k + 1}', nics.speed))
            members.append((leaf.name, interface))
        rdma: list[tuple[str, str]] = []
        kind = 'rail' if server.rail_group is not None else 'rdma'
        for r, leaf_id, preferred in _rdma_ports(spec, server, rdma_leaves):
            key = f'port:leaf:{leaf_id}:rdma:{server.id}:{r + 1}'
            interface = _port(state, ports, key, 'leaf', leaf_id, 'rdma', preferred)
            leaf = leaf_by_id[leaf_id]
            links.append(Link(kind, leaf.name, interface, server.name, f'rdma{r + 1}', nics.rdma_speed))
            rdma.append((leaf.name, interface))
        bmc: tuple[str, str] | None = None
        if spec.bmc == 'leaf':
            leaf = leaf_by_id[_bmc_leaf(server, homes)]
            interface = _port(state, ports, _bmc_key(server, leaf.id), 'leaf', leaf.id, 'bmc', slot)
            links.append(Link('bmc', leaf.name, interface, server.name, 'bmc', nics.bmc_speed))
            bmc = (leaf.name, interface)
        attachments.append(
            Attachment(
                server.name,
                server.kind,
                lags.get(server.id),
                tuple(members),
                tuple(rdma),
                bond_vlans,
                esis.get(server.id),
                bmc,
                bmc_vlan if bmc else None,
            )
        )
    return links, attachments


def _overlay(
    spec: FabricSpec, nodes: list[NodePlan], subnets: dict[tuple[int, int], str], svis: dict[tuple[int, int], str]
) -> tuple[list[VlanPlan], list[VrfPlan]]:
    """The plan's VLANs (VNIs, subnets, gateways, SVIs) and, in EVPN, its tenant VRFs."""
    owner = {vid: tenant for tenant in spec.tenants for vid in tenant.vlans}
    leaf_names = {n.id: n.name for n in nodes if n.role == 'leaf'}
    racks = racks_of(spec)
    vlans: list[VlanPlan] = []
    for tc in sorted(spec.traffic_classes, key=lambda t: t.vlan):
        tenant = owner.get(tc.vlan)
        base = tenant.l2vni_base if tenant and tenant.l2vni_base is not None else spec.l2vni_base
        subnet = str(netaddr.IPNetwork(tc.subnet).cidr) if tc.subnet else None
        rack_subnets = tuple(
            RackSubnet(rack.id, tuple(leaf_names[leaf] for leaf in rack.leaves), value, _gateway(value))
            for rack in racks
            if (value := subnets.get((tc.vlan, rack.id)))
        )
        anycast = spec.evpn and tc.routed and subnet is not None
        vlans.append(
            VlanPlan(
                tc.vlan,
                tc.name,
                tenant.vrf if tenant else tc.vrf,
                base + tc.vlan if spec.evpn else None,
                tenant.name if tenant else None,
                subnet,
                _gateway(subnet) if anycast and subnet is not None else None,
                tc.lossless,
                tc.routed,
                rack_subnets,
                tuple((leaf_names[leaf], value) for (vid, leaf), value in sorted(svis.items()) if vid == tc.vlan),
            )
        )
    vrfs: list[VrfPlan] = []
    if spec.evpn:
        leaves = [n for n in nodes if n.role == 'leaf']
        mac = (
            str(netaddr.EUI(spec.anycast_gateway_mac, dialect=netaddr.mac_unix_expanded))
            if spec.anycast_gateway_mac
            else None
        )
        for tenant in sorted(spec.tenants, key=lambda t: t.name):
            rds = tuple((leaf.name, f'{leaf.loopback.split("/")[0]}:{tenant.l3vni}') for leaf in leaves)
            vrfs.append(VrfPlan(tenant.vrf, tenant.name, tenant.l3vni, f'{tenant.l3vni}:{tenant.l3vni}', rds, mac))
    return vlans, vrfs


def _gateway(subnet: str) -> str:
    """The subnet's first host, the gateway, with the prefix length."""
    network = netaddr.IPNetwork(subnet)
    return f'{network[1]}/{network.prefixlen}'


def _jump_hosts_outside_block(spec: FabricSpec, oob: OobPlan | None) -> list[PlanWarning]:
    """Where the MGMT class is carved into rack subnets and the management network has its own block, jump hosts
    outside that block sit where rack subnets are carved (a rack's now, or after growth): the switches would admit
    that rack's MGMT hosts as jump hosts."""
    switch = spec.management_switch
    mgmt = next((tc for tc in spec.traffic_classes if tc.purpose == 'management' and tc.subnet), None)
    if switch is None or mgmt is None or oob is None or oob.subnet is None or not holds_oob_block(spec, mgmt):
        return []
    block = netaddr.IPNetwork(oob.subnet)
    return [
        PlanWarning(
            'jump-hosts-in-rack-subnets',
            f'management_switch.keep_free[{i}]',
            f"the jump-host subnet {prefix} lies where {mgmt.subnet} (MGMT) is carved into rack subnets: a rack's "
            f"MGMT hosts there would reach the switches' management plane as jump hosts; put the jump hosts inside "
            f"the management network's own block {block}",
        )
        for i, prefix in enumerate(switch.keep_free)
        if netaddr.IPNetwork(prefix) not in block
    ]


def _warnings(spec: FabricSpec, capacity: Iterable[LeafCapacity], racks: tuple[Rack, ...]) -> Iterator[PlanWarning]:
    """Design concerns as data: oversubscription above the target, classes that are not routed across racks."""
    target, defaulted = oversubscription_target(spec, len(racks))
    if target is not None:
        why = ' (the default of a multi-rack fabric with a lossless class; set oversubscription_target to change it)'
        for c in capacity:
            if c.ratio is not None and c.ratio > target:
                yield PlanWarning(
                    'oversubscription',
                    'oversubscription_target',
                    f'{c.leaf}: {c.downlink}G to servers over {c.uplink}G of uplinks is {c.ratio}:1, above the '
                    f'target of {target:g}:1' + (why if defaulted else ''),
                )
    rack_of = {leaf: rack.id for rack in racks for leaf in rack.leaves}
    served = {rack_of[leaf] for server in spec.servers for leaf in server.leaves}
    if not spec.evpn and len(served) > 1:
        for index, tc in enumerate(spec.traffic_classes):
            if not tc.routed:
                yield PlanWarning(
                    'unrouted-class-across-racks',
                    f'traffic_classes[{index}].routed',
                    f'{tc.name} (VLAN {tc.vlan}) is not routed, but servers in {len(served)} racks carry it and the '
                    f'racks share no L2 in the {spec.design} design: hosts in different racks cannot reach each other '
                    'in it',
                )


def _capacity(leaves: list[Node], links: list[Link]) -> Iterator[LeafCapacity]:
    """Each leaf's server-facing and uplink bandwidth and their ratio."""
    down: defaultdict[str, int] = defaultdict(int)
    up: defaultdict[str, int] = defaultdict(int)
    for link in links:
        if link.kind == 'uplink':
            up[link.b_node] += link.speed
        elif link.kind in ('server', 'rdma', 'rail'):
            down[link.a_node] += link.speed
    for leaf in leaves:
        d, u = down[leaf.name], up[leaf.name]
        yield LeafCapacity(leaf.name, d, u, round(d / u, 2) if u else None)


def _summary(
    spec: FabricSpec, links: list[Link], vlans: list[VlanPlan], vrfs: list[VrfPlan]
) -> tuple[tuple[str, int], ...]:
    """The plan's counts by kind, in a fixed order."""
    kinds: defaultdict[str, int] = defaultdict(int)
    for link in links:
        kinds[link.kind] += 1
    return (
        ('spines', len(spec.spines)),
        ('leaves', len(spec.leaves)),
        ('gpu_servers', sum(1 for s in spec.servers if s.kind == 'gpu')),
        ('storage_nodes', sum(1 for s in spec.servers if s.kind == 'storage')),
        ('uplinks', kinds['uplink']),
        ('mlag_peer_links', kinds['mlag-peer']),
        ('server_links', kinds['server']),
        ('rdma_links', kinds['rdma']),
        ('rail_links', kinds['rail']),
        ('vlans', len(vlans)),
        ('vrfs', len(vrfs)),
    )
