"""Build the planner's :class:`~netbox_aifabric.planner.FabricSpec` from a :class:`~netbox_aifabric.models.Fabric`.

The nodes are the fabric's :class:`~netbox_aifabric.models.FabricNode` rows (as its counts say: see
``Fabric.planned_nodes``): spines and leaves keep their stable ids and names. Leaves with the same ``pair`` form a
leaf pair, a rack, in every design: an MLAG pair with its peer link (``mlag_pairs``), or, with the fabric's
``leaf_pairing`` = ``evpn-mh``, an EVPN multihoming pair (``mh_pairs``: no peer link, a VTEP and ASN per leaf). A
leaf alone in its pair is a rack of its own; a "pair" of three or more leaves goes to the planner as it is, which
names the error. GPU server k sits on its leaf pair (``pair``: new servers are balanced over the pairs by
``Fabric.planned_nodes``) at port ``(k − 1) mod (SERVERS_PER_LEAF − STORAGE_SLOTS) + 1``; storage node k takes port
``SERVERS_PER_LEAF − STORAGE_SLOTS + ((k − 1) mod STORAGE_SLOTS) + 1`` of its pair, so adding GPU servers or storage
nodes never moves an existing one. A leaf alone in its pair takes both bonded NICs of its servers. Switch port
blocks follow the declared maximums and the fabric's link speeds. Traffic classes carry their prefix whether routed
or not (a class that is not routed gets no gateway), and the fabric's oversubscription target becomes the planner's,
which warns about the leaves above it.
"""

import re

from netbox_aifabric.choices import BmcAttachmentChoices, LeafPairingChoices
from netbox_aifabric.facts.hardware import (
    BREAKOUT,
    USE_LABELS,
    HardwarePort,
    RoleNeeds,
    apply_breakouts,
    assign_ports,
    held_uses,
    natural_key,
    type_speed,
)
from netbox_aifabric.facts.platform_ports import breakout_modes, port_facts
from netbox_aifabric.planner import (
    FabricSpec,
    Maximums,
    NicLayout,
    Node,
    Platform,
    Pools,
    PortRange,
    Server,
    SpecError,
    Tenant,
    TrafficClass,
    leaf_port_demand,
    registry,
)
from netbox_aifabric.planner.spec import ManagementSwitch
from netbox_aifabric.validators import m2m_members

__all__ = (
    'SERVERS_PER_LEAF',
    'check_leaf_ports',
    'device_type_ports',
    'fabric_spec',
    'hardware_platforms',
    'management_switch',
    'role_ports',
)

SERVERS_PER_LEAF = 48
STORAGE_SLOTS = 8  # the last server ports of the first leaf pair are kept for storage nodes
BMC_SPEED = 1  # Gbit/s: a BMC's port (and the leaf ports BMCs land on when they attach to the leaves)


def _prefix(prefix):
    return str(prefix.prefix) if prefix is not None else None


def fabric_spec(fabric, pending: bool = False, nodes=None) -> FabricSpec:
    """The planner spec of ``fabric`` (reads its nodes, pools, traffic classes, tenants and QoS-relevant settings);
    with ``pending``, the traffic classes and tenants a form or serializer is about to save (see ``m2m_members``);
    ``nodes``: ``fabric.planned_nodes()[0]`` when the caller has read them."""
    members = sorted(fabric.planned_nodes()[0] if nodes is None else nodes, key=lambda n: (n.group, n.node_id))
    leaf_nodes = [n for n in members if n.group == 'leaf']
    pairs = _leaf_groups(leaf_nodes)
    leaf_pairs = tuple(ids for ids in pairs.values() if len(ids) > 1)
    evpn_mh = fabric.leaf_pairing == LeafPairingChoices.EVPN_MH
    mlag_pairs = () if evpn_mh else leaf_pairs
    servers = _servers(members, pairs, fabric.server_nic_count)
    leaf_platform, spine_platform, servers_per_leaf, hardware_leaf = _platforms(
        fabric, servers, leaf_nodes, mlag_pairs, evpn_mh
    )
    classes, tenants = _overlay(fabric, pending)
    asn_range = fabric.leaf_asn_range
    spec = FabricSpec(
        name=fabric.slug,
        design=fabric.design_option,
        underlay=fabric.underlay,
        maximums=Maximums(
            fabric.max_spines, fabric.max_leaves, fabric.max_parallel_uplinks, servers_per_leaf=servers_per_leaf
        ),
        pools=_pools(fabric),
        management_gateway=str(fabric.management_gateway) if fabric.management_gateway else None,
        bmc=fabric.bmc_attachment,
        management_switch=management_switch(fabric),
        spines=tuple(Node(n.node_id, n.name) for n in members if n.group == 'spine'),
        leaves=tuple(Node(n.node_id, n.name) for n in leaf_nodes),
        servers=tuple(servers),
        uplinks_per_spine=fabric.uplinks_per_spine,
        mlag_pairs=mlag_pairs,
        mh_pairs=leaf_pairs if evpn_mh else (),
        spine_asn=fabric.spine_asn,
        leaf_asn_range=(asn_range.start, asn_range.end) if asn_range else None,
        l2vni_base=fabric.l2vni_base,
        anycast_gateway_mac=fabric.anycast_gateway_mac or None,
        traffic_classes=classes,
        tenants=tenants,
        nics=NicLayout(
            fabric.server_nic_count, fabric.server_nic_speed, fabric.rdma_nic_count, fabric.rdma_nic_speed, BMC_SPEED
        ),
        leaf_platform=leaf_platform,
        spine_platform=spine_platform,
        mtu=fabric.mtu,
        oversubscription_target=(
            float(fabric.oversubscription_target) if fabric.oversubscription_target is not None else None
        ),
    )
    if hardware_leaf:
        check_leaf_ports(spec)
    return spec


def held_ports(fabric, role) -> dict[str, str]:
    """``{port name: use}`` of the role's ports the fabric's last apply cabled (:func:`~.hardware.held_uses`); none
    when the record is not the fabric's own (the plan refuses it, naming the field)."""
    try:
        return held_uses(fabric.applied_pins(), role)
    except SpecError:
        return {}


def _generic_leaf_blocks(fabric, per_leaf_rdma, bmc_on_leaf, paired, held) -> dict[str, list[int]]:
    """``{use: port numbers}`` of the generic leaf (no device type): server ports from 1, then the RDMA ports, the
    uplinks (as many as the maximums need), the two peer-link ports (kept even without a pair, so pairing later
    moves nothing) and the BMC ports. A raised maximum shifts the blocks after the uplinks; the ports the last apply
    cabled (``held``) keep their use, and what a block loses to them it takes after the last port in use."""
    uplinks = fabric.max_spines * fabric.max_parallel_uplinks
    rdma_first = SERVERS_PER_LEAF + 1
    uplink_first = rdma_first + SERVERS_PER_LEAF * per_leaf_rdma
    after = uplink_first + uplinks
    fresh = {
        'server': range(1, SERVERS_PER_LEAF + 1),
        'rdma': range(rdma_first, uplink_first),
        'uplink': range(uplink_first, after),
        'peer_link': range(after, after + 2) if paired else range(0),
        'bmc': range(after + 2, after + 2 + SERVERS_PER_LEAF) if bmc_on_leaf else range(0),
    }
    numbers = {int(match[1]): use for name, use in held.items() if (match := re.fullmatch(r'Ethernet(\d+)', name))}
    numbers = {n: use for n, use in numbers.items() if n >= 1 and len(fresh.get(use, ()))}
    blocks = {}
    for use, ports in fresh.items():
        mine = sorted(n for n, held_use in numbers.items() if held_use == use)[: len(ports)]
        blocks[use] = [*mine, *[n for n in ports if n not in numbers][: len(ports) - len(mine)]]
    # what a block lost to ports held by another use: the fresh ports no block took, then ports after the last
    taken = {n for block in blocks.values() for n in block} | set(numbers)
    spare = iter([n for ports in fresh.values() for n in ports if n not in taken])
    beyond = iter(range(max([after + 2 + SERVERS_PER_LEAF, *taken]) + 1, 10**6))
    for use, ports in fresh.items():
        missing = len(ports) - len(blocks[use])
        blocks[use] = sorted([*blocks[use], *(next(spare, None) or next(beyond) for _ in range(missing))])
    return blocks


def _port_range(numbers, speed, first) -> PortRange:
    """A block of the generic leaf: numbered from its first port when consecutive (``first`` when empty), else by
    name."""
    if not numbers:
        return PortRange(first, 0, speed)
    if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        return PortRange(numbers[0], len(numbers), speed)
    return PortRange(names=tuple(f'Ethernet{n}' for n in numbers), speed=speed)


def management_switch(fabric) -> ManagementSwitch | None:
    """The fabric's management switch model for the planner (``planner/oob.py``): the 1G copper ports of its
    management device type, hostnames ``<fabric slug>-oob<n>``, the jump-host subnet kept free of BMC addresses.
    None when the fabric chooses no management switch type (the BOM then lists one the fabric does not plan)."""
    device_type = getattr(fabric, 'management_device_type', None)
    if device_type is None:
        return None
    ports = tuple(port.name for port in device_type_ports(device_type) if port.speed == BMC_SPEED)
    if not ports:
        raise SpecError(
            'management_device_type', f'{device_type} has no 1000BASE-T ports for the BMCs and management ports'
        )
    keep_free = (str(fabric.jump_host_prefix.prefix),) if fabric.jump_host_prefix_id else ()
    return ManagementSwitch(ports, f'{fabric.slug}-oob{{n}}', keep_free)


def _leaf_groups(leaf_nodes) -> dict:
    """``{pair number: leaf ids}``: the leaves of each pair (a leaf without a pair is its own group)."""
    by_pair = {}
    for n in leaf_nodes:
        by_pair.setdefault(n.pair or n.node_id, []).append(n.node_id)
    return {number: tuple(ids) for number, ids in sorted(by_pair.items())}


def _servers(members, pairs, nics) -> list[Server]:
    """The GPU servers and storage nodes with their port index and leaves: GPU servers fill a pair's first server
    ports, storage nodes the last ``STORAGE_SLOTS`` (so adding GPU servers never moves a storage node). A one-NIC
    server lists its whole pair: the planner picks the leaf (alternating by id, pinned), as for its RDMA NICs."""
    listed = 2 if nics == 1 else nics  # leaves listed per server: one per bonded NIC, the pair for a single NIC
    fallback = next(iter(pairs.values()), (1,))
    gpu_per_group = SERVERS_PER_LEAF - STORAGE_SLOTS
    servers = []
    for n in members:
        if n.group == 'gpu':
            pair = n.pair or (n.node_id - 1) // gpu_per_group + 1
            slot = (n.node_id - 1) % gpu_per_group
            group = pairs.get(pair, fallback)
            servers.append(Server((pair - 1) * SERVERS_PER_LEAF + slot + 1, n.name, group[:listed], 'gpu'))
        elif n.group == 'storage':
            group = pairs.get(n.pair or 1, fallback)
            port = gpu_per_group + (n.node_id - 1) % STORAGE_SLOTS + 1  # a pair holds STORAGE_SLOTS of them
            servers.append(Server(((n.pair or 1) - 1) * SERVERS_PER_LEAF + port, n.name, group[:listed], 'storage'))
    return servers


def _platforms(fabric, servers, leaf_nodes, mlag_pairs, evpn_mh):
    """``(leaf platform, spine platform, servers per leaf, the leaf platform is a device type's)``: the device
    types' real ports where the fabric names device types (``hardware_platforms``), else the generic port blocks."""
    per_leaf_rdma = -(-fabric.rdma_nic_count // max(fabric.server_nic_count, 1))
    bmc_on_leaf = fabric.bmc_attachment == BmcAttachmentChoices.LEAF
    hardware, servers_per_leaf = hardware_platforms(
        fabric, servers, per_leaf_rdma, bmc_on_leaf, evpn_mh, {n.node_id: n.name for n in leaf_nodes}
    )
    blocks = _generic_leaf_blocks(fabric, per_leaf_rdma, bmc_on_leaf, bool(mlag_pairs), held_ports(fabric, 'leaf'))
    speeds = {'server': fabric.server_nic_speed, 'rdma': fabric.rdma_nic_speed, 'uplink': fabric.uplink_speed}
    first = {'server': 1, 'rdma': SERVERS_PER_LEAF + 1, 'uplink': SERVERS_PER_LEAF * (1 + per_leaf_rdma) + 1}
    leaf_platform = Platform(
        name=f'{fabric.slug} leaf',
        **{f'{use}_ports': _port_range(blocks[use], speed, first[use]) for use, speed in speeds.items()},
        peer_link_ports=tuple(blocks['peer_link']),
        peer_link_speed=fabric.uplink_speed,
        bmc_ports=_port_range(blocks['bmc'], BMC_SPEED, 0) if bmc_on_leaf else None,
    )
    spine_platform = Platform(
        name=f'{fabric.slug} spine',
        downlink_ports=PortRange(1, fabric.max_leaves * fabric.max_parallel_uplinks, fabric.uplink_speed),
    )
    return (
        hardware.get('leaf', leaf_platform),
        hardware.get('spine', spine_platform),
        servers_per_leaf,
        'leaf' in hardware,
    )


def _overlay(fabric, pending):
    """The fabric's traffic classes with a VLAN and its EVPN tenants (with the VLANs of theirs the fabric carries),
    as saved or, with ``pending``, as a form or serializer is about to save them (Fabric.clean() plans first)."""
    if pending:
        classes, members = m2m_members(fabric, 'traffic_classes'), m2m_members(fabric, 'tenants')
    else:
        # the prefix and VRF the planner reads of each class, with the classes (not one query per class)
        classes, members = fabric.traffic_classes.select_related('prefix', 'vrf'), fabric.tenants.all()
    classes = [tc for tc in classes if tc.vid is not None]
    fabric_vids = {tc.vid for tc in classes}
    tenants = tuple(
        Tenant(
            tenant.name,
            tenant.vrf.name if tenant.vrf else tenant.name,
            tenant.l3vni,
            tuple(vid for vid in tenant.get_member_vids() if vid in fabric_vids),
            tenant.l2vni_base,
        )
        for tenant in members
    )
    # the fields the planner reads, as planner/registry.py declares them
    traffic_classes = tuple(
        TrafficClass(**{f.spec: registry.plain_value(tc, f) for f in registry.spec_fields()}) for tc in classes
    )
    return traffic_classes, tenants


def _pools(fabric) -> Pools:
    return Pools(
        loopback=_prefix(fabric.loopback_pool) or '',
        p2p=_prefix(fabric.p2p_pool),
        vtep=_prefix(fabric.vtep_pool),
        mlag_peer=_prefix(fabric.mlag_peer_pool),
        management=_prefix(fabric.management_pool),
    )


def device_type_ports(device_type) -> list[HardwarePort]:
    """The data ports of a NetBox device type: its interface templates that are not management-only and whose type
    names a speed, in natural name order (``Ethernet2`` before ``Ethernet10``)."""
    from dcim.models import InterfaceTemplate

    ports = []
    for name, type_ in InterfaceTemplate.objects.filter(device_type=device_type, mgmt_only=False).values_list(
        'name', 'type'
    ):
        speed = type_speed(type_)
        if speed is not None:
            ports.append(HardwarePort(name, *speed))
    return sorted(ports, key=lambda p: natural_key(p.name))


def role_ports(fabric, role):
    """``(data ports, {lane port: Breakout})`` of the role's device type after the port map's breakouts (``[], {}``
    without a device type); a bad breakout entry is a named SpecError on ``port_map.<role>.breakout``."""
    device_type = getattr(fabric, f'{role}_device_type')
    if device_type is None:
        return [], {}
    entries = ((fabric.port_map or {}).get(role) or {}).get(BREAKOUT)
    # The spec and intent_of both need them: read the interface templates once per fabric instance (a fresh
    # instance, as each request and job loads, reads them anew); keyed by what the answer depends on.
    memo = fabric.__dict__.setdefault('_aifabric_role_ports', {})
    key = (role, device_type.pk, repr(entries))
    if key not in memo:
        memo[key] = apply_breakouts(
            role,
            str(device_type),
            device_type_ports(device_type),
            entries,
            port_facts(device_type.slug),
            breakout_modes(device_type.slug),
        )
    ports, split = memo[key]
    return list(ports), dict(split)


def hardware_platforms(fabric, servers, per_leaf_rdma, bmc_on_leaf, evpn_mh, leaf_names=None):
    """``({role: Platform}, servers_per_leaf)``: the leaf and spine platforms of the fabric's device types that have
    data ports (a role without one keeps the generic blocks), their ports assigned by the fabric's ``port_map``
    (see :mod:`.hardware`). A leaf device type sets how many servers a leaf can take (its server ports); the ports
    each leaf really takes are checked once the spec is built (:func:`check_leaf_ports`). ``servers`` and
    ``leaf_names`` are no longer read (kept for callers)."""
    port_map = fabric.port_map or {}
    platforms, servers_per_leaf = {}, SERVERS_PER_LEAF
    uplink_need = fabric.max_spines * fabric.max_parallel_uplinks
    peer_need = 2 if not evpn_mh and fabric.max_leaves >= 2 else 0
    roles = {
        'leaf': RoleNeeds(
            speeds={
                'peer_link': fabric.uplink_speed,
                'uplink': fabric.uplink_speed,
                'server': fabric.server_nic_speed,
                'rdma': fabric.rdma_nic_speed,
                'bmc': BMC_SPEED,
            },
            fixed={'peer_link': peer_need, 'uplink': uplink_need},
            per_server={'server': 1, 'rdma': per_leaf_rdma if fabric.rdma_nic_count else 0, 'bmc': int(bmc_on_leaf)},
            reasons={
                'peer_link': 'two per leaf of an MLAG pair',
                'uplink': f'max spines {fabric.max_spines} × max parallel uplinks {fabric.max_parallel_uplinks}',
            },
        ),
        'spine': RoleNeeds(
            speeds={'downlink': fabric.uplink_speed},
            fixed={'downlink': fabric.max_leaves * fabric.max_parallel_uplinks},
            per_server={},
            reasons={
                'downlink': f'max leaves {fabric.max_leaves} × max parallel uplinks {fabric.max_parallel_uplinks}'
            },
        ),
    }
    for role, needs in roles.items():
        device_type = getattr(fabric, f'{role}_device_type')
        if device_type is None:
            continue
        ports, _ = role_ports(fabric, role)
        if not ports:
            continue
        blocks = assign_ports(role, str(device_type), ports, needs, port_map.get(role) or {}, held_ports(fabric, role))

        def block(use, blocks=blocks, needs=needs):
            names = blocks.get(use)
            return PortRange(names=names, speed=needs.speeds[use]) if names else None

        if role == 'spine':
            platforms[role] = Platform(name=str(device_type), downlink_ports=block('downlink'))
            continue
        platforms[role] = Platform(
            name=str(device_type),
            server_ports=block('server'),
            rdma_ports=block('rdma'),
            uplink_ports=block('uplink'),
            peer_link_names=blocks.get('peer_link', ()),
            peer_link_speed=fabric.uplink_speed,
            bmc_ports=block('bmc'),
        )
        # a leaf takes as many servers as it has server ports; the single-homed uses are counted per leaf
        servers_per_leaf = min(SERVERS_PER_LEAF, len(blocks.get('server', ())) or SERVERS_PER_LEAF)
    return platforms, servers_per_leaf


def check_leaf_ports(spec: FabricSpec) -> None:
    """A leaf device type with too few ports for a use on some leaf is a named error on ``port_map.leaf.<use>``:
    the leaf, the use, the speed and the counts. The planner counts the ports each leaf really takes
    (:func:`~netbox_aifabric.planner.leaf_port_demand`: an RDMA NIC on one leaf of a pair takes no port on the
    other)."""
    platform = spec.leaf_platform
    names = {leaf.id: leaf.name for leaf in spec.leaves}
    for (leaf, use), count in sorted(leaf_port_demand(spec).items()):
        block = getattr(platform, f'{use}_ports', None) if use in PER_SERVER_USES else None
        if block is None or count <= block.size:
            continue
        raise SpecError(
            f'port_map.leaf.{use}',
            f'{names.get(leaf, leaf)} needs {count} {USE_LABELS[use]} at {block.speed}G ({PER_SERVER_USES[use]}); '
            f'the leaf device type {platform.name} has {block.size} for them',
            names.get(leaf),
        )


PER_SERVER_USES = {
    'server': 'one per bonded NIC that lands on it',
    'rdma': 'one per RDMA NIC that lands on it',
    'bmc': 'one per BMC that lands on it',
}
