"""Spec checks, run before anything is allocated. Each raises :class:`SpecError` naming field, node and numbers."""

import unicodedata
from collections import Counter
from collections.abc import Iterable, Set

import netaddr

from netbox_aifabric.planner.asns import PRIVATE_TEXT, first_reserved
from netbox_aifabric.planner.errors import SpecError
from netbox_aifabric.planner.labels import at_most, field_label
from netbox_aifabric.planner.ports import BLOCKS, PORTS_MAX, check_platform, port_names
from netbox_aifabric.planner.requirements import asn_need, pool_needs, required_inputs
from netbox_aifabric.planner.spec import (
    BGP_UNDERLAYS,
    BMC_ATTACHMENTS,
    DESIGNS,
    PURPOSES,
    UNDERLAYS,
    FabricSpec,
    Server,
)

__all__ = (
    'DEVICE_NAME_MAX',
    'INTERFACE_NAME_MAX',
    'MTU_MAX',
    'MTU_MIN',
    'VLAN_NAME_MAX',
    'VNI_MAX',
    'VNI_MIN',
    'VRF_NAME_MAX',
    'management_gateway',
    'server_slot',
    'validate_spec',
)

VNI_MIN, VNI_MAX = 1, 16_777_215
RD_NUMBER_MAX = 65_535  # the assigned number of a type-1 route distinguisher (IPv4:number) and of a type-2 RT
ASN_MIN, ASN_MAX = 1, 4_294_967_295


def _duplicates[T: (int, str)](values: Iterable[T]) -> list[T]:
    """The values that occur more than once, sorted."""
    return sorted(v for v, n in Counter(values).items() if n > 1)


def _room(role: str, maximum: int) -> str:
    """``at most 8 leaves (max leaves)``: what the declared maximum of ``role`` leaves room for."""
    return f'{at_most(maximum, role)} ({field_label(f"maximums.{role}")})'


def _check_nodes(spec: FabricSpec) -> None:
    for role, nodes, maximum in (
        ('spines', spec.spines, spec.maximums.spines),
        ('leaves', spec.leaves, spec.maximums.leaves),
    ):
        if dup := _duplicates(n.id for n in nodes):
            raise SpecError(role, f'duplicate node id {dup[0]} among the {role}')
        if len(nodes) > maximum:
            raise SpecError(role, f'{len(nodes)} {role} declared; the numbering has room for {_room(role, maximum)}')
        for index, node in enumerate(nodes):
            if not 1 <= node.id <= maximum:
                raise SpecError(
                    f'{role}[{index}].id',
                    f'id {node.id} is outside 1–{maximum}: the numbering has room for {_room(role, maximum)}; raise '
                    'it first',
                    node.name,
                )
    if dup := _duplicates(n.id for n in spec.servers):
        raise SpecError('servers', f'duplicate server id {dup[0]}')
    names = [n.name for n in (*spec.spines, *spec.leaves)] + [s.name for s in spec.servers]
    if dup_names := _duplicates(names):
        raise SpecError('nodes', f'duplicate node name "{dup_names[0]}"', dup_names[0])


# The NetBox columns the names of the plan become (a longer name passed the planner and failed only at apply, issue
# 27): dcim.Device.name and dcim.Interface.name take 64 characters, ipam.VLAN.name 64, ipam.VRF.name 100
DEVICE_NAME_MAX = INTERFACE_NAME_MAX = VLAN_NAME_MAX = 64
VRF_NAME_MAX = 100


def _format_character(value: str) -> str | None:
    """The first Unicode format (Cf: bidi controls such as U+202E, zero-width characters) or control character
    (Cc: newline, NUL, …) of ``value`` as ``U+XXXX``, or None: neither belongs in a hostname or a config line."""
    for char in value:
        if unicodedata.category(char) in ('Cf', 'Cc') or char in '\u2028\u2029':
            return f'U+{ord(char):04X} {unicodedata.name(char, "control character")}'
    return None


def _check_name(field: str, name: str, limit: int, what: str, node: str | None = None) -> None:
    if len(name) > limit:
        raise SpecError(field, f'{what} "{name}" has {len(name)} characters; NetBox takes at most {limit}', node)
    if found := _format_character(name):
        raise SpecError(field, f'{what} {name!r} contains {found}: not allowed in a name', node)


def _check_names(spec: FabricSpec) -> None:
    """Every name the plan hands NetBox fits its column and carries no control or format character: hostnames
    (Device.name), switch ports (Interface.name), VLANs (a traffic class's name) and tenant VRFs."""
    hostnames = {
        'spines': [n.name for n in spec.spines],
        'leaves': [n.name for n in spec.leaves],
        'servers': [s.name for s in spec.servers],
    }
    for role, names in hostnames.items():
        for index, name in enumerate(names):
            _check_name(f'{role}[{index}].name', name, DEVICE_NAME_MAX, 'hostname', name)
    for role in ('leaf_platform', 'spine_platform'):
        platform = getattr(spec, role)
        for block, ports in port_names(platform).items():
            for port in ports:
                _check_name(f'{role}.{block}', port, INTERFACE_NAME_MAX, f'{platform.name} port name')
    for index, tc in enumerate(spec.traffic_classes):
        _check_name(f'traffic_classes[{index}].name', tc.name, VLAN_NAME_MAX, 'traffic class (its VLAN) name')
    for index, tenant in enumerate(spec.tenants):
        _check_name(f'tenants[{index}].vrf', tenant.vrf, VRF_NAME_MAX, f'VRF of tenant {tenant.name}')


def _network(field: str, value: str) -> netaddr.IPNetwork:
    try:
        network = netaddr.IPNetwork(value)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise SpecError(field, f'"{value}" is not a prefix') from None
    if network.version != 4:
        raise SpecError(field, f'pool {network} is IPv{network.version}; this pool must be IPv4')
    if network.ip != network.network:
        raise SpecError(field, f'{value} has host bits set; use {network.cidr}')
    return network


def _required(spec: FabricSpec) -> tuple[str, ...]:
    return required_inputs(
        spines=len(spec.spines),
        max_spines=spec.maximums.spines,
        evpn=spec.evpn,
        mlag_pairs=bool(spec.mlag_pairs),
        underlay=spec.underlay,
    )


def _check_pools(spec: FabricSpec) -> dict[str, netaddr.IPNetwork]:
    needs = pool_needs(spec.maximums.spines, spec.maximums.leaves, spec.maximums.parallel_uplinks)
    inputs = _required(spec)
    wanted = {name: f'pools.{name}' in inputs for name in ('loopback', 'p2p', 'vtep', 'mlag_peer')}
    networks: dict[str, netaddr.IPNetwork] = {}
    for name, required in wanted.items():
        value = getattr(spec.pools, name)
        if not value:  # None, or '' (a loopback pool left empty: the spec's loopback is a string)
            if required:
                raise SpecError(f'pools.{name}', f'the {field_label(f"pools.{name}")} is required for this design')
            continue
        network = _network(f'pools.{name}', value)
        need = needs[name]
        size = need.size_of(network.prefixlen)
        if size < need.span:
            raise SpecError(
                f'pools.{name}',
                f'pool {network} is too small for the declared maximums: {need.blocks} {need.unit} needed'
                + (f' (plus {need.first_index} unused at the start)' if need.first_index else '')
                + f', {max(size - need.first_index, 0)} available',
            )
        for other, other_network in networks.items():
            if network in other_network or other_network in network:
                raise SpecError(
                    f'pools.{name}', f'pool {network} overlaps the {field_label(f"pools.{other}")} {other_network}'
                )
        networks[name] = network
    return networks


def _check_links(spec: FabricSpec) -> None:
    m = spec.maximums
    if not 1 <= spec.uplinks_per_spine <= m.parallel_uplinks:
        raise SpecError(
            'uplinks_per_spine',
            f'{spec.uplinks_per_spine} uplinks per spine, outside 1–{m.parallel_uplinks} (max parallel uplinks)',
        )
    leaf, spine = spec.leaf_platform, spec.spine_platform
    if m.spines:
        if leaf.uplink_ports is None or leaf.uplink_ports.size < m.spines * m.parallel_uplinks:
            have = leaf.uplink_ports.size if leaf.uplink_ports else 0
            raise SpecError(
                'leaf_platform.uplink_ports',
                f'{m.spines} spines × {m.parallel_uplinks} parallel uplinks need {m.spines * m.parallel_uplinks} '
                f'uplink ports per leaf; {leaf.name} has {have}',
            )
        if spine.downlink_ports is None or spine.downlink_ports.size < m.leaves * m.parallel_uplinks:
            have = spine.downlink_ports.size if spine.downlink_ports else 0
            raise SpecError(
                'spine_platform.downlink_ports',
                f'{m.leaves} leaves × {m.parallel_uplinks} parallel uplinks need {m.leaves * m.parallel_uplinks} '
                f'downlink ports per spine; {spine.name} has {have}',
            )
    if spec.servers:
        ports = leaf.server_ports.size if leaf.server_ports else 0
        if ports < m.servers_per_leaf:
            raise SpecError(
                'maximums.servers_per_leaf',
                f'{m.servers_per_leaf} servers per leaf declared; {leaf.name} has {ports} server ports',
            )
    if spec.mlag_pairs and not (leaf.peer_link_ports or leaf.peer_link_names):
        raise SpecError('leaf_platform.peer_link_ports', 'MLAG pairs need at least one peer-link port per leaf')


def _check_mlag(spec: FabricSpec, leaf_ids: Set[int]) -> dict[int, int]:
    paired: dict[int, int] = {}
    for index, pair in enumerate(spec.mlag_pairs):
        if len(pair) != 2:
            raise SpecError(f'mlag_pairs[{index}]', f'an MLAG group needs exactly two leaves, got {len(pair)}')
        for leaf in pair:
            if leaf not in leaf_ids:
                raise SpecError(f'mlag_pairs[{index}]', f'leaf id {leaf} is not a declared leaf')
            if leaf in paired:
                raise SpecError(f'mlag_pairs[{index}]', f'leaf id {leaf} is already in mlag_pairs[{paired[leaf]}]')
            paired[leaf] = index
        if pair[0] == pair[1]:
            raise SpecError(f'mlag_pairs[{index}]', f'leaf id {pair[0]} cannot pair with itself')
    if spec.design == 'mlag':
        unpaired = sorted(set(leaf_ids) - set(paired))
        if unpaired:
            raise SpecError('mlag_pairs', f'MLAG dual-ToR pairs every leaf; leaf id {unpaired[0]} has no peer')
    return paired


def _check_servers(spec: FabricSpec, leaf_ids: Set[int]) -> None:
    nics = spec.nics
    for index, server in enumerate(spec.servers):
        field = f'servers[{index}]'
        if server.id < 1:
            raise SpecError(f'{field}.id', f'server id {server.id} must be ≥ 1', server.name)
        if server.kind not in ('gpu', 'storage'):
            raise SpecError(f'{field}.kind', f'kind "{server.kind}" is not gpu or storage', server.name)
        # a one-NIC server may list its leaf pair: the planner puts the NIC on one of them (alternating by id)
        if len(server.leaves) not in (1, nics.count) and not (nics.count == 1 and len(server.leaves) == 2):
            raise SpecError(
                f'{field}.leaves',
                f'{len(server.leaves)} leaves listed for {nics.count} bonded NICs (nics.count): list one leaf per '
                'NIC, or one leaf for all of them (a bond on a single leaf)',
                server.name,
            )
        for leaf in server.leaves:
            if leaf not in leaf_ids:
                raise SpecError(f'{field}.leaves', f'leaf id {leaf} is not a declared leaf', server.name)
        if server.rail_group is not None:
            if not 0 <= server.rail_group < len(spec.rail_groups):
                raise SpecError(f'{field}.rail_group', f'rail group {server.rail_group} is not declared', server.name)
    _check_server_ports(spec)
    for index, group in enumerate(spec.rail_groups):
        if len(group.leaves) != nics.rdma_count:
            raise SpecError(
                f'rail_groups[{index}].leaves',
                f'{len(group.leaves)} rail leaves for {nics.rdma_count} RDMA NICs per server (nics.rdma_count); '
                'lists must match',
            )
        for leaf in group.leaves:
            if leaf not in leaf_ids:
                raise SpecError(f'rail_groups[{index}].leaves', f'leaf id {leaf} is not a declared leaf')


def server_slot(spec: FabricSpec, server_id: int) -> int:
    """The server's port index on each of its leaves: a function of its id and the declared maximum only."""
    return (server_id - 1) % spec.maximums.servers_per_leaf


def _check_server_ports(spec: FabricSpec) -> None:
    """No leaf carries more servers than its declared maximum. Which port each takes is the planner's allocation
    (ports.py): the preferred (id − 1) mod servers_per_leaf, else the first free one."""
    leaf_names = {leaf.id: leaf.name for leaf in spec.leaves}
    per_leaf: dict[int, list[Server]] = {}
    for server in sorted(spec.servers, key=lambda s: s.id):
        leaves = set(server.leaves)
        if server.rail_group is not None:
            leaves.update(spec.rail_groups[server.rail_group].leaves)
        for leaf in sorted(leaves):
            per_leaf.setdefault(leaf, []).append(server)
    limit = spec.maximums.servers_per_leaf
    for leaf, servers in sorted(per_leaf.items()):
        if len(servers) > limit:
            raise SpecError(
                'servers',
                f'{len(servers)} servers attach to leaf {leaf_names[leaf]}; it has ports for {limit} '
                f'({field_label("maximums.servers_per_leaf")})',
                leaf_names[leaf],
            )


def _check_asns(spec: FabricSpec) -> None:
    required = _required(spec)
    if 'spine_asn' in required and spec.spine_asn is None:
        raise SpecError('spine_asn', f'the {spec.underlay} underlay needs a spine ASN')
    if spec.spine_asn is not None and not ASN_MIN <= spec.spine_asn <= ASN_MAX:
        raise SpecError('spine_asn', f'ASN {spec.spine_asn} is outside {ASN_MIN}–{ASN_MAX}')
    if 'leaf_asn_range' in required:
        if spec.leaf_asn_range is None:
            raise SpecError('leaf_asn_range', 'the eBGP underlay needs a leaf ASN range')
        start, end = spec.leaf_asn_range
        if not ASN_MIN <= start <= end <= ASN_MAX:
            raise SpecError('leaf_asn_range', f'{start}–{end} is not a valid ASN range')
        size, need = end - start + 1, asn_need(spec.maximums.leaves)
        if size < need:
            raise SpecError(
                'leaf_asn_range',
                f'ASN range {start}–{end} holds {size} ASNs; the declared maximum of {need} leaves needs {need}',
            )
        if spec.spine_asn is not None and start <= spec.spine_asn <= end:
            raise SpecError('spine_asn', f'spine ASN {spec.spine_asn} lies inside the leaf ASN range {start}–{end}')


def _check_overlay(spec: FabricSpec) -> None:
    vlans: dict[int, str] = {}
    for index, tc in enumerate(spec.traffic_classes):
        if not 1 <= tc.vlan <= 4094:
            raise SpecError(f'traffic_classes[{index}].vlan', f'VLAN {tc.vlan} is outside 1–4094')
        if tc.vlan in vlans:
            raise SpecError(
                f'traffic_classes[{index}].vlan', f'VLAN {tc.vlan} is used by {vlans[tc.vlan]} and {tc.name}'
            )
        vlans[tc.vlan] = tc.name
        if tc.subnet is not None:
            _subnet(f'traffic_classes[{index}].subnet', tc.subnet)
    owner: dict[int, str] = {}
    vnis: dict[int, str] = {}

    def claim(vni: int, field: str, what: str) -> None:
        if not VNI_MIN <= vni <= VNI_MAX:
            raise SpecError(field, f'VNI {vni} ({what}) is outside {VNI_MIN}–{VNI_MAX}')
        if vni > RD_NUMBER_MAX:
            raise SpecError(
                field,
                f'VNI {vni} ({what}) is above {RD_NUMBER_MAX}: the route distinguisher (router-id:VNI) and route '
                f'target (VNI:VNI) carry it as a 16-bit number',
            )
        if vni in vnis:
            raise SpecError(field, f'VNI {vni} is used twice: {vnis[vni]} and {what}')
        vnis[vni] = what

    if not VNI_MIN <= spec.l2vni_base <= VNI_MAX:
        raise SpecError('l2vni_base', f'VNI {spec.l2vni_base} (L2VNI base) is outside {VNI_MIN}–{VNI_MAX}')
    vrfs = Counter(t.vrf for t in spec.tenants)
    for index, tenant in enumerate(spec.tenants):
        field = f'tenants[{index}]'
        if vrfs[tenant.vrf] > 1:
            raise SpecError(f'{field}.vrf', f'VRF {tenant.vrf} belongs to more than one tenant')
        claim(tenant.l3vni, f'{field}.l3vni', f'L3VNI of tenant {tenant.name}')
        base = spec.l2vni_base if tenant.l2vni_base is None else tenant.l2vni_base
        for vid in tenant.vlans:
            if vid not in vlans:
                raise SpecError(f'{field}.vlans', f'VLAN {vid} of tenant {tenant.name} is not a traffic class VLAN')
            if vid in owner:
                raise SpecError(f'{field}.vlans', f'VLAN {vid} belongs to tenants {owner[vid]} and {tenant.name}')
            owner[vid] = tenant.name
            claim(base + vid, f'{field}.vlans', f'L2VNI of tenant {tenant.name} (VLAN {vid})')
    if spec.evpn:
        for vid, name in vlans.items():
            if vid not in owner:
                claim(spec.l2vni_base + vid, 'l2vni_base', f'L2VNI of {name} (VLAN {vid})')
        gateways = [tc.name for tc in spec.traffic_classes if tc.subnet and tc.vlan in owner]
        if gateways and not spec.anycast_gateway_mac:
            raise SpecError(
                'anycast_gateway_mac', f'EVPN anycast gateways for {", ".join(gateways)} need an anycast gateway MAC'
            )
    if spec.anycast_gateway_mac:
        try:
            netaddr.EUI(spec.anycast_gateway_mac, version=48)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise SpecError('anycast_gateway_mac', f'"{spec.anycast_gateway_mac}" is not a MAC address') from None


def _subnet(field: str, value: str) -> netaddr.IPNetwork:
    try:
        return netaddr.IPNetwork(value)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise SpecError(field, f'"{value}" is not a prefix') from None


# The MTU bounds (the NetBox models use them through constants.py): 68 is the smallest MTU IPv4 allows (RFC 791),
# 9216 the largest jumbo frame common switches take
MTU_MIN, MTU_MAX = 68, 9216


def _at_least(field: str, value: float, minimum: float, what: str, unit: str = '') -> None:
    if value < minimum:
        raise SpecError(
            field, f'{what} {value}{unit} is below {minimum}{unit}' if minimum else f'{what} {value} is negative'
        )


def _check_numbers(spec: FabricSpec) -> None:
    """Counts, speeds, port numbers and MTUs: nothing later makes sense with a zero speed or a negative count."""
    nics = spec.nics
    _at_least('nics.count', nics.count, 1, 'bonded NIC count')
    _at_least('nics.rdma_count', nics.rdma_count, 0, 'RDMA NIC count')
    _at_least('nics.speed', nics.speed, 1, 'NIC speed', ' Gbit/s')
    _at_least('nics.rdma_speed', nics.rdma_speed, 1, 'RDMA NIC speed', ' Gbit/s')
    _at_least('nics.bmc_speed', nics.bmc_speed, 1, 'BMC port speed', ' Gbit/s')
    for role in ('leaf_platform', 'spine_platform'):
        platform = getattr(spec, role)
        for block in BLOCKS:
            ports = getattr(platform, block)
            if ports is not None:
                _at_least(f'{role}.{block}.first', ports.first, 0, 'first port')
                _at_least(f'{role}.{block}.count', ports.count, 0, 'port count')
                if ports.size > PORTS_MAX:
                    raise SpecError(
                        f'{role}.{block}.count',
                        f'port count {ports.size} is above {PORTS_MAX}: no switch has that many ports',
                    )
                _at_least(f'{role}.{block}.speed', ports.speed, 1, 'port speed', ' Gbit/s')
        for index, port in enumerate(platform.peer_link_ports):
            _at_least(f'{role}.peer_link_ports[{index}]', port, 0, 'peer-link port')
        _at_least(f'{role}.peer_link_speed', platform.peer_link_speed, 1, 'peer-link speed', ' Gbit/s')
    if not MTU_MIN <= spec.mtu <= MTU_MAX:
        raise SpecError('mtu', f'MTU {spec.mtu} is outside {MTU_MIN}–{MTU_MAX}')
    for index, tc in enumerate(spec.traffic_classes):
        if tc.mtu is None:
            continue
        # (above the fabric MTU is a warning, see warnings.py: NetBox's Plan tab shows it and still plans)
        if not MTU_MIN <= tc.mtu <= MTU_MAX:
            raise SpecError(
                f'traffic_classes[{index}].mtu', f'MTU {tc.mtu} of {tc.name} is outside {MTU_MIN}–{MTU_MAX}'
            )
    for index, tenant in enumerate(spec.tenants):
        if tenant.l2vni_base is not None and not VNI_MIN <= tenant.l2vni_base <= VNI_MAX:
            raise SpecError(
                f'tenants[{index}].l2vni_base',
                f'VNI {tenant.l2vni_base} (L2VNI base of tenant {tenant.name}) is outside {VNI_MIN}–{VNI_MAX}',
            )


def _check_reserved_asns(spec: FabricSpec) -> None:
    """IANA reserved and documentation ASNs (see asns.py) cannot be configured; only the ASNs the plan uses count."""
    if spec.spine_asn is not None and (spec.underlay in BGP_UNDERLAYS or spec.evpn) and 0 <= spec.spine_asn <= ASN_MAX:
        if hit := first_reserved(spec.spine_asn, spec.spine_asn):
            raise SpecError('spine_asn', f'ASN {hit[0]} is {hit[1]}; use a private ASN: {PRIVATE_TEXT}')
    if spec.leaf_asn_range is not None and spec.underlay in BGP_UNDERLAYS:
        start, end = spec.leaf_asn_range
        if 0 <= start <= end <= ASN_MAX and (hit := first_reserved(start, end)):
            raise SpecError(
                'leaf_asn_range',
                f'ASN range {start}–{end} contains ASN {hit[0]}, {hit[1]}; use a private range: {PRIVATE_TEXT}',
            )


def _check_class_subnets(spec: FabricSpec, pools: dict[str, netaddr.IPNetwork]) -> None:
    """A gateway subnet is a real network: aligned, room for the gateway and hosts, apart from the fabric's own
    pools and from the other classes' subnets."""
    seen: list[tuple[int, str, netaddr.IPNetwork]] = []
    for index, tc in enumerate(spec.traffic_classes):
        if tc.purpose not in PURPOSES:
            raise SpecError(f'traffic_classes[{index}].purpose', f'"{tc.purpose}" is not one of {", ".join(PURPOSES)}')
        if tc.subnet is None:
            continue
        field = f'traffic_classes[{index}].subnet'
        network = _subnet(field, tc.subnet)
        if network.ip != network.network:
            raise SpecError(field, f'subnet {tc.subnet} of {tc.name} has host bits set; use {network.cidr}')
        longest = 30 if network.version == 4 else 126
        if network.prefixlen > longest:
            raise SpecError(
                field, f'subnet {network} of {tc.name} has no room for a gateway and hosts: needs /{longest} or shorter'
            )
        for name, pool in pools.items():
            # switch management addresses may share a class's subnet only where the planner puts no gateway
            if name == 'management' and not tc.routed:
                continue
            if _overlap(network, pool):
                raise SpecError(
                    field, f'subnet {network} of {tc.name} overlaps the {field_label(f"pools.{name}")} {pool}'
                )
        for other_index, other_name, other in seen:
            if _overlap(network, other):
                raise SpecError(
                    field,
                    f'subnet {network} of {tc.name} overlaps subnet {other} of {other_name} '
                    f'(traffic_classes[{other_index}])',
                )
        seen.append((index, tc.name, network))


def _overlap(a: netaddr.IPNetwork, b: netaddr.IPNetwork) -> bool:
    return a.version == b.version and (a in b or b in a)


def validate_spec(spec: FabricSpec) -> dict[str, netaddr.IPNetwork]:
    """Check ``spec``; return the parsed pools. Raises :class:`SpecError` on the first problem found."""
    if spec.design not in DESIGNS:
        raise SpecError('design', f'"{spec.design}" is not one of {", ".join(DESIGNS)}')
    if spec.underlay not in UNDERLAYS:
        raise SpecError('underlay', f'"{spec.underlay}" is not one of {", ".join(UNDERLAYS)}')
    for name in ('spines', 'leaves', 'parallel_uplinks', 'servers_per_leaf'):
        if getattr(spec.maximums, name) < (0 if name == 'spines' else 1):
            raise SpecError(f'maximums.{name}', f'{getattr(spec.maximums, name)} is not a valid maximum')
    _check_numbers(spec)
    for role in ('leaf_platform', 'spine_platform'):
        check_platform(role, getattr(spec, role))  # name patterns and overlapping port blocks, before any name is made
    _check_names(spec)
    _check_nodes(spec)
    leaf_ids = {leaf.id for leaf in spec.leaves}
    _check_mlag(spec, leaf_ids)
    _check_links(spec)
    _check_servers(spec, leaf_ids)
    _check_reserved_asns(spec)
    _check_asns(spec)
    _check_overlay(spec)
    pools = _check_pools(spec)
    _check_management(spec, pools)
    _check_class_subnets(spec, pools)
    _check_bmc(spec)
    return pools


def management_gateway(spec: FabricSpec, network: netaddr.IPNetwork) -> netaddr.IPAddress:
    """The management network's gateway: ``management_gateway``, else the network's first host."""
    return netaddr.IPAddress(spec.management_gateway) if spec.management_gateway else network.ip + 1


def _check_management(spec: FabricSpec, pools: dict[str, netaddr.IPNetwork]) -> None:
    """The management network: IPv4, apart from the fabric's pools, room for a gateway and one address per switch
    the maximums allow; the gateway a host of it. Adds it to ``pools`` as ``management``."""
    if spec.management_gateway is not None and spec.pools.management is None:
        raise SpecError('management_gateway', 'a management gateway needs a management network (pools.management)')
    if spec.pools.management is None:
        return
    field = 'pools.management'
    network = _network(field, spec.pools.management)  # IPv4, no host bits set
    switches = spec.maximums.spines + spec.maximums.leaves
    hosts = max(network.size - 2, 0)
    if hosts < switches + 1:
        raise SpecError(
            field,
            f'management network {network} has {hosts} host addresses; the gateway and {switches} switches '
            '(max spines + max leaves) need '
            f'{switches + 1}',
        )
    for name, other in pools.items():
        if _overlap(network, other):
            raise SpecError(field, f'management network {network} overlaps the {field_label(f"pools.{name}")} {other}')
    try:
        gateway = management_gateway(spec, network)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise SpecError('management_gateway', f'"{spec.management_gateway}" is not an IPv4 address') from None
    if gateway.version != 4 or not network.first < int(gateway) < network.last:
        raise SpecError('management_gateway', f'gateway {gateway} is not a host address of {network}')
    pools['management'] = network


def _check_bmc(spec: FabricSpec) -> None:
    """BMC ports on the leaves need a leaf port block for them, at a speed the BMC runs, and a management class
    (the VLAN they sit in)."""
    if spec.bmc not in BMC_ATTACHMENTS:
        raise SpecError('bmc', f'"{spec.bmc}" is not one of {", ".join(BMC_ATTACHMENTS)}')
    if spec.bmc != 'leaf' or not spec.servers:
        return
    if spec.leaf_platform.bmc_ports is None:
        raise SpecError('leaf_platform.bmc_ports', 'BMC ports on the leaves (bmc: leaf) need a block of leaf ports')
    if not any(tc.purpose == 'management' for tc in spec.traffic_classes):
        raise SpecError(
            'bmc', 'BMC ports on the leaves (bmc: leaf) need a traffic class of purpose management for their VLAN'
        )
