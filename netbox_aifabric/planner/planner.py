"""The allocation core: a validated spec (and optionally the previous plan) in, a deterministic plan out."""

from collections import defaultdict
from collections.abc import Mapping

import netaddr

from .errors import PoolExhaustedError
from .requirements import PoolNeed, pool_needs
from .result import Attachment, LeafCapacity, Link, NodePlan, Plan, PoolUsage, VlanPlan, VrfPlan
from .spec import FabricSpec
from .validate import server_slot, validate_spec

__all__ = ('plan_fabric',)

POOL_OF_KIND = {'loopback': 'loopback', 'vtep': 'vtep', 'uplink': 'p2p', 'mlag': 'mlag_peer', 'asn': 'leaf_asn'}


class _Blocks:
    """Numbered blocks handed out by index: a new item takes its preferred index (computed from stable ids and
    maximums) when that block is free; when a pinned allocation already holds it, the first free block.

    Subclasses set ``size`` (blocks), ``skip`` (leading blocks never used), ``field`` and ``description`` (for
    errors) and implement ``pin``.
    """

    skip = 0

    def __init__(self):
        self.used: dict[int, str] = {}
        self.needed = 0
        self._scan = self.skip

    def take(self, key: str, preferred: int, node: str) -> int:
        if self.skip <= preferred < self.size and preferred not in self.used:
            index = preferred
        else:
            while self._scan < self.size and self._scan in self.used:
                self._scan += 1
            if self._scan >= self.size:
                raise PoolExhaustedError(
                    self.field,
                    f'{self.description} is exhausted: {self.needed} {self.unit} needed, '
                    f'{self.size - self.skip} available; first failed for {node}',
                    node,
                )
            index = self._scan
        self.used[index] = key
        return index

    def usage(self) -> PoolUsage:
        size, used = self.size - self.skip, len(self.used)
        return PoolUsage(self.name, self.prefix, self.unit, size, used, size - used, _percent(used, size))


class _Pool(_Blocks):
    """Blocks of one prefix length inside a pool network. Pinned values outside the network (the pool changed since
    they were allocated) occupy no block here; they are kept as they are."""

    def __init__(self, name: str, network: netaddr.IPNetwork, need: PoolNeed):
        self.name = name
        self.network = network
        self.prefix = str(network)
        self.field = f'pools.{name}'
        self.description = f'pool {network}'
        self.unit = need.unit
        self.prefixlen = need.prefixlen
        self.shift = 32 - need.prefixlen
        self.skip = need.first_index
        self.size = need.size_of(network.prefixlen)
        super().__init__()

    def pin(self, key: str, value: str):
        block = netaddr.IPNetwork(value)
        if block in self.network:
            self.used[(block.first - self.network.first) >> self.shift] = key

    def address(self, index: int) -> str:
        return f'{netaddr.IPAddress(self.network.first + (index << self.shift))}/{self.prefixlen}'


class _AsnPool(_Blocks):
    """The leaf ASN range, handed out like a pool: ASN = start + (leaf id − 1) unless pinned elsewhere."""

    name = 'leaf_asn'
    field = 'leaf_asn_range'
    unit = 'ASNs'

    def __init__(self, start: int, end: int):
        self.start, self.end = start, end
        self.size = end - start + 1
        self.prefix = f'{start}-{end}'
        self.description = f'ASN range {start}–{end}'
        super().__init__()

    def pin(self, key: str, value: str):
        asn = int(value)
        if self.start <= asn <= self.end:
            self.used[asn - self.start] = key


def _percent(used: int, size: int) -> float:
    return round(100 * used / size, 1) if size else 0.0


def _previous_allocations(previous) -> dict[str, str]:
    if previous is None:
        return {}
    if isinstance(previous, Plan):
        return dict(previous.allocations)
    if isinstance(previous, Mapping):
        allocations = previous.get('allocations', previous)
        return {str(k): str(v) for k, v in allocations.items()}
    raise TypeError('previous must be a Plan or the dict of a plan')


def plan_fabric(spec: FabricSpec, previous: Plan | Mapping | None = None, release: bool = False) -> Plan:
    """Number a fabric.

    Args:
        spec: the fabric spec.
        previous: an earlier plan (or its ``to_dict()``/JSON form). Every allocation in it is pinned: it is kept
            even when maximums or pools changed, and new items take free space around it.
        release: free what the previous plan allocated to nodes no longer in the spec. Without it such
            allocations stay reserved (listed in ``Plan.reserved``) so a removed node's addresses are not reused.

    Returns:
        The :class:`Plan`; the same spec and previous plan always give an identical plan.

    Raises:
        SpecError: the spec is invalid (checked before anything is allocated).
        PoolExhaustedError: pinned allocations leave no room for a new item.
    """
    networks = validate_spec(spec)
    m = spec.maximums
    needs = pool_needs(m.spines, m.leaves, m.parallel_uplinks)
    pools: dict[str, _Pool | _AsnPool] = {name: _Pool(name, net, needs[name]) for name, net in networks.items()}
    if spec.underlay == 'ebgp':
        pools['leaf_asn'] = _AsnPool(*spec.leaf_asn_range)

    spines = sorted(spec.spines, key=lambda n: n.id)
    leaves = sorted(spec.leaves, key=lambda n: n.id)
    leaf_by_id = {leaf.id: leaf for leaf in leaves}
    primary_of = {}
    for a, b in spec.mlag_pairs:
        primary, secondary = min(a, b), max(a, b)
        primary_of[primary] = primary
        primary_of[secondary] = primary

    # Every item to allocate: (key, pool, preferred index, node name). Secondaries of an MLAG pair share the
    # primary's VTEP and ASN, so only primaries ask for them.
    requests = []
    for spine in spines:
        requests.append((f'loopback:spine:{spine.id}', 'loopback', spine.id, spine.name))
    for leaf in leaves:
        requests.append((f'loopback:leaf:{leaf.id}', 'loopback', m.spines + leaf.id, leaf.name))
        is_primary = primary_of.get(leaf.id, leaf.id) == leaf.id
        if spec.evpn and is_primary:
            requests.append((f'vtep:leaf:{leaf.id}', 'vtep', leaf.id, leaf.name))
        if spec.underlay == 'ebgp' and is_primary:
            requests.append((f'asn:leaf:{leaf.id}', 'leaf_asn', leaf.id - 1, leaf.name))
        for spine in spines:
            for n in range(1, spec.uplinks_per_spine + 1):
                index = (leaf.id - 1) * m.spines * m.parallel_uplinks + (spine.id - 1) * m.parallel_uplinks + n - 1
                requests.append((f'uplink:leaf:{leaf.id}:spine:{spine.id}:{n}', 'p2p', index, leaf.name))
    for primary in sorted({p for p in primary_of.values()}):
        requests.append((f'mlag:leaf:{primary}', 'mlag_peer', primary - 1, leaf_by_id[primary].name))

    pinned = _previous_allocations(previous)
    current = {key for key, *_ in requests}
    reserved = tuple(sorted(key for key in pinned if key not in current)) if not release else ()
    for key in sorted(pinned):
        if key in current or not release:
            pool = pools.get(POOL_OF_KIND.get(key.split(':', 1)[0], ''))
            if pool is not None:
                pool.pin(key, pinned[key])
    for _, pool_name, _, _ in requests:
        pools[pool_name].needed += 1

    values: dict[str, str] = {}
    indexes: dict[str, int] = {}
    for key, pool_name, preferred, node in requests:
        pool = pools[pool_name]
        if key in pinned:
            values[key] = pinned[key]
            continue
        index = pool.take(key, preferred, node)
        indexes[key] = index
        values[key] = str(pool.start + index) if pool_name == 'leaf_asn' else pool.address(index)

    def ends(key: str) -> tuple[str, str, str]:
        """The /31 of a link and its two addresses (even end first); new blocks skip re-parsing their string."""
        if key in indexes:
            pool = pools['p2p' if key.startswith('uplink:') else 'mlag_peer']
            first, length = pool.network.first + (indexes[key] << pool.shift), pool.prefixlen
        else:
            network = netaddr.IPNetwork(values[key])
            first, length = network.first, network.prefixlen
        low = netaddr.IPAddress(first)
        return f'{low}/{length}', f'{low}/{length}', f'{netaddr.IPAddress(first + 1)}/{length}'

    nodes, links = _nodes(spec, spines, leaves, primary_of, values), []
    links.extend(_uplinks(spec, spines, leaves, ends))
    links.extend(_peer_links(spec, leaf_by_id, ends))
    server_links, attachments = _servers(spec, leaf_by_id)
    links.extend(server_links)
    vlans, vrfs = _overlay(spec, nodes)

    return Plan(
        fabric=spec.name,
        design=spec.design,
        underlay=spec.underlay,
        nodes=tuple(nodes),
        links=tuple(links),
        attachments=tuple(attachments),
        vlans=tuple(vlans),
        vrfs=tuple(vrfs),
        capacity=tuple(_capacity(leaves, links)),
        pools=tuple(pools[name].usage() for name in sorted(pools)),
        summary=_summary(spec, links, vlans, vrfs),
        allocations=tuple(sorted({**{k: pinned[k] for k in reserved}, **values}.items())),
        reserved=reserved,
    )


def _nodes(spec, spines, leaves, primary_of, values):
    nodes = []
    for spine in spines:
        asn = spec.spine_asn if (spec.underlay == 'ebgp' or spec.evpn) else None
        nodes.append(NodePlan('spine', spine.id, spine.name, asn, values[f'loopback:spine:{spine.id}']))
    names = {leaf.id: leaf.name for leaf in leaves}
    peer_of = {}
    for a, b in spec.mlag_pairs:
        peer_of[a], peer_of[b] = b, a
    for leaf in leaves:
        primary = primary_of.get(leaf.id, leaf.id)
        if spec.underlay == 'ebgp':
            asn = int(values[f'asn:leaf:{primary}'])
        else:
            asn = spec.spine_asn if spec.evpn else None  # iBGP EVPN overlay over an OSPF underlay
        peer = peer_of.get(leaf.id)
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
            )
        )
    return nodes


def _uplinks(spec, spines, leaves, ends):
    m, leaf_p, spine_p = spec.maximums, spec.leaf_platform, spec.spine_platform
    speed = min(leaf_p.uplink_ports.speed, spine_p.downlink_ports.speed) if spines else 0
    for leaf in leaves:
        for spine in spines:
            for n in range(1, spec.uplinks_per_spine + 1):
                subnet, spine_address, leaf_address = ends(f'uplink:leaf:{leaf.id}:spine:{spine.id}:{n}')
                yield Link(
                    'uplink',
                    spine.name,
                    spine_p.interface_name(spine_p.downlink_ports.port((leaf.id - 1) * m.parallel_uplinks + n - 1)),
                    leaf.name,
                    leaf_p.interface_name(leaf_p.uplink_ports.port((spine.id - 1) * m.parallel_uplinks + n - 1)),
                    speed,
                    subnet,
                    spine_address,
                    leaf_address,
                )


def _peer_links(spec, leaf_by_id, ends):
    platform = spec.leaf_platform
    for a, b in sorted(tuple(sorted(pair)) for pair in spec.mlag_pairs):
        subnet, primary_address, secondary_address = ends(f'mlag:leaf:{a}')
        for number, port in enumerate(platform.peer_link_ports):
            # The peer link's /31 is carried on its first member (it lives on the peer-link LAG / SVI)
            first = number == 0
            yield Link(
                'mlag-peer',
                leaf_by_id[a].name,
                platform.interface_name(port),
                leaf_by_id[b].name,
                platform.interface_name(port),
                platform.peer_link_speed,
                subnet if first else None,
                primary_address if first else None,
                secondary_address if first else None,
            )


def _servers(spec, leaf_by_id):
    platform, nics, m = spec.leaf_platform, spec.nics, spec.maximums
    bond_vlans = tuple(sorted(tc.vlan for tc in spec.traffic_classes if not tc.lossless))
    links, attachments = [], []
    for server in sorted(spec.servers, key=lambda s: s.id):
        slot = server_slot(spec, server.id)
        members = []
        for k, leaf_id in enumerate(server.leaves):
            leaf = leaf_by_id[leaf_id]
            interface = platform.interface_name(platform.server_ports.port(slot))
            links.append(Link('server', leaf.name, interface, server.name, f'nic{k + 1}', nics.speed))
            members.append((leaf.name, interface))
        rdma = []
        if nics.rdma_count:
            group = spec.rail_groups[server.rail_group].leaves if server.rail_group is not None else None
            for r in range(nics.rdma_count):
                if group is not None:
                    leaf, port = leaf_by_id[group[r]], platform.rdma_ports.port(slot)
                else:
                    # Spread RDMA NICs over the bond leaves, alternating by server id so both leaves carry RDMA
                    n = len(server.leaves)
                    leaf = leaf_by_id[server.leaves[(server.id - 1 + r) % n]]
                    port = platform.rdma_ports.port(slot + (r // n) * m.servers_per_leaf)
                interface = platform.interface_name(port)
                kind = 'rail' if group is not None else 'rdma'
                links.append(Link(kind, leaf.name, interface, server.name, f'rdma{r + 1}', nics.rdma_speed))
                rdma.append((leaf.name, interface))
        lag = platform.lag.format(number=slot + 1) if len(members) > 1 else None
        attachments.append(Attachment(server.name, server.kind, lag, tuple(members), tuple(rdma), bond_vlans))
    return links, attachments


def _overlay(spec, nodes):
    owner = {vid: tenant for tenant in spec.tenants for vid in tenant.vlans}
    vlans = []
    for tc in sorted(spec.traffic_classes, key=lambda t: t.vlan):
        tenant = owner.get(tc.vlan)
        base = tenant.l2vni_base if tenant and tenant.l2vni_base is not None else spec.l2vni_base
        gateway = None
        if tc.subnet:
            network = netaddr.IPNetwork(tc.subnet)
            gateway = f'{network[1]}/{network.prefixlen}'
        vlans.append(
            VlanPlan(
                tc.vlan,
                tc.name,
                tenant.vrf if tenant else tc.vrf,
                base + tc.vlan if spec.evpn else None,
                tenant.name if tenant else None,
                str(netaddr.IPNetwork(tc.subnet).cidr) if tc.subnet else None,
                gateway,
                tc.lossless,
            )
        )
    vrfs = []
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


def _capacity(leaves, links):
    down, up = defaultdict(int), defaultdict(int)
    for link in links:
        if link.kind == 'uplink':
            up[link.b_node] += link.speed
        elif link.kind in ('server', 'rdma', 'rail'):
            down[link.a_node] += link.speed
    for leaf in leaves:
        d, u = down[leaf.name], up[leaf.name]
        yield LeafCapacity(leaf.name, d, u, round(d / u, 2) if u else None)


def _summary(spec, links, vlans, vrfs):
    kinds = defaultdict(int)
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
