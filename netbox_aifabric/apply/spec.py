"""Build the planner's :class:`~netbox_aifabric.planner.FabricSpec` from a :class:`~netbox_aifabric.models.Fabric`.

Until fabric members are stored as their own objects, the nodes are derived from the fabric's counts: spines and
leaves get ids 1..count (``<fabric>-spine1``, ``<fabric>-leaf1``, …); for the MLAG and EVPN/VXLAN designs leaves are
paired (1, 2), (3, 4), …; GPU server k fills the leaf pairs in blocks of ``SERVERS_PER_LEAF − STORAGE_SLOTS`` ports
and storage node k takes port ``SERVERS_PER_LEAF − STORAGE_SLOTS + k`` of the first pair, so adding GPU servers or
storage nodes never moves an existing one. Switch port blocks follow the declared maximums
and the fabric's link speeds.
"""

from ..planner import FabricSpec, Maximums, NicLayout, Node, Platform, Pools, PortRange, Server, Tenant, TrafficClass

__all__ = ('SERVERS_PER_LEAF', 'fabric_spec')

SERVERS_PER_LEAF = 48
STORAGE_SLOTS = 8  # the last server ports of the first leaf pair are kept for storage nodes


def _prefix(prefix):
    return str(prefix.prefix) if prefix is not None else None


def fabric_spec(fabric) -> FabricSpec:
    """The planner spec of ``fabric`` (reads its pools, traffic classes, tenants and QoS-relevant settings)."""
    slug = fabric.slug
    nics = fabric.server_nic_count
    paired = fabric.design_option != 'routed' and fabric.leaf_count % 2 == 0
    leaves = tuple(Node(i, f'{slug}-leaf{i}') for i in range(1, fabric.leaf_count + 1))
    groups = [(i, i + 1) for i in range(1, fabric.leaf_count, 2)] or [(1,)]
    servers = []
    gpu_per_group = SERVERS_PER_LEAF - STORAGE_SLOTS
    for k in range(1, fabric.server_count + 1):
        group_index, slot = divmod(k - 1, gpu_per_group)
        group = groups[min(group_index, len(groups) - 1)]
        servers.append(Server(group_index * SERVERS_PER_LEAF + slot + 1, f'{slug}-gpu{k}', group[:nics], 'gpu'))
    for k in range(1, fabric.storage_count + 1):
        servers.append(Server(gpu_per_group + k, f'{slug}-storage{k}', groups[0][:nics], 'storage'))

    per_leaf_rdma = -(-fabric.rdma_nic_count // max(fabric.server_nic_count, 1))
    uplink_ports = fabric.max_spines * fabric.max_parallel_uplinks
    rdma_first = SERVERS_PER_LEAF + 1
    uplink_first = rdma_first + SERVERS_PER_LEAF * per_leaf_rdma
    leaf_platform = Platform(
        name=f'{slug} leaf',
        server_ports=PortRange(1, SERVERS_PER_LEAF, fabric.server_nic_speed),
        rdma_ports=PortRange(rdma_first, SERVERS_PER_LEAF * per_leaf_rdma, fabric.rdma_nic_speed),
        uplink_ports=PortRange(uplink_first, uplink_ports, fabric.uplink_speed),
        peer_link_ports=(uplink_first + uplink_ports, uplink_first + uplink_ports + 1) if paired else (),
        peer_link_speed=fabric.uplink_speed,
    )
    spine_platform = Platform(
        name=f'{slug} spine',
        downlink_ports=PortRange(1, fabric.max_leaves * fabric.max_parallel_uplinks, fabric.uplink_speed),
    )

    classes = [tc for tc in fabric.traffic_classes.all() if tc.vid is not None]
    fabric_vids = {tc.vid for tc in classes}
    tenants = []
    for tenant in fabric.tenants.all():
        vids = [vid for vid in tenant.get_member_vids() if vid in fabric_vids]
        tenants.append(
            Tenant(
                tenant.name,
                tenant.vrf.name if tenant.vrf else tenant.name,
                tenant.l3vni,
                tuple(vids),
                tenant.l2vni_base,
            )
        )
    asn_range = fabric.leaf_asn_range
    return FabricSpec(
        name=slug,
        design=fabric.design_option,
        underlay=fabric.underlay,
        maximums=Maximums(
            fabric.max_spines, fabric.max_leaves, fabric.max_parallel_uplinks, servers_per_leaf=SERVERS_PER_LEAF
        ),
        pools=Pools(
            loopback=_prefix(fabric.loopback_pool) or '',
            p2p=_prefix(fabric.p2p_pool),
            vtep=_prefix(fabric.vtep_pool),
            mlag_peer=_prefix(fabric.mlag_peer_pool),
        ),
        spines=tuple(Node(i, f'{slug}-spine{i}') for i in range(1, fabric.spine_count + 1)),
        leaves=leaves,
        servers=tuple(servers),
        uplinks_per_spine=fabric.uplinks_per_spine,
        mlag_pairs=tuple(groups) if paired else (),
        spine_asn=fabric.spine_asn,
        leaf_asn_range=(asn_range.start, asn_range.end) if asn_range else None,
        l2vni_base=fabric.l2vni_base,
        anycast_gateway_mac=fabric.anycast_gateway_mac or None,
        traffic_classes=tuple(
            TrafficClass(
                tc.name,
                tc.vid,
                tc.vrf.name if tc.vrf else None,
                _prefix(tc.prefix) if tc.routed else None,
                tc.lossless,
                tc.mtu,
            )
            for tc in classes
        ),
        tenants=tuple(tenants),
        nics=NicLayout(fabric.server_nic_count, fabric.server_nic_speed, fabric.rdma_nic_count, fabric.rdma_nic_speed),
        leaf_platform=leaf_platform,
        spine_platform=spine_platform,
        mtu=fabric.mtu,
    )
