"""The planner's input: a fabric spec as frozen, typed dataclasses.

Every node carries a **stable id** (an integer ≥ 1 per role); every allocation derives from that id and the
declared maximums, never from how many nodes exist, so a fabric grows without renumbering.
"""

from dataclasses import dataclass, field

from netbox_aifabric.planner.registry import DESIGNS, EVPN_DESIGNS

__all__ = (
    'BMC_ATTACHMENTS',
    'DESIGNS',
    'NON_DATA_PURPOSES',
    'PURPOSES',
    'UNDERLAYS',
    'FabricSpec',
    'ManagementSwitch',
    'Maximums',
    'NicLayout',
    'Node',
    'Platform',
    'Pools',
    'PortRange',
    'RailGroup',
    'Server',
    'Tenant',
    'TrafficClass',
)

UNDERLAYS = ('ebgp', 'ebgp-unnumbered', 'ospf')
# eBGP on the fabric links: numbered (a /31 per link) or unnumbered (RFC 5549: the links' IPv6 link-local addresses
# carry the sessions and the IPv4 routes' next hops, so the links take no addresses)
BGP_UNDERLAYS = ('ebgp', 'ebgp-unnumbered')
UNNUMBERED_UNDERLAYS = ('ebgp-unnumbered',)
# where a server's BMC (baseboard management controller) port goes: a management switch outside the fabric (``oob``)
# or an access port of its first leaf in the management class's VLAN (``leaf``)
BMC_ATTACHMENTS = ('oob', 'leaf')
# classes that never ride a server's data bond: root on a GPU node must not be able to tag its way into them
NON_DATA_PURPOSES = ('management', 'telemetry')
PURPOSES = ('management', 'user-access', 'storage', 'rdma', 'telemetry', 'backup', 'other')


@dataclass(frozen=True)
class PortRange:
    """A block of front-panel ports of one use (server, RDMA, uplink, downlink), all at ``speed`` Gbit/s.

    The ports are ``names`` when given (e.g. breakout lanes ``Ethernet49/1``…``Ethernet49/4`` or a device type's
    interface names), else ``count`` ports numbered from ``first`` and named by ``interface`` (or the platform's
    pattern). ``speeds`` lists further speeds the ports can run (e.g. 10 on a 25G port); ``speed`` is the highest.
    """

    first: int = 1
    count: int = 0
    speed: int = 0
    names: tuple[str, ...] = ()
    interface: str | None = None
    speeds: tuple[int, ...] = ()

    def port(self, index: int) -> int:
        """Port number of the ``index``-th port of the range (0-based)."""
        return self.first + index

    @property
    def size(self) -> int:
        """How many ports the block has."""
        return len(self.names) if self.names else self.count

    def runs(self, speed: int) -> bool:
        """Whether a port of this block can run at ``speed`` Gbit/s."""
        return speed == self.speed or speed in self.speeds


@dataclass(frozen=True)
class Platform:
    """Port naming and port blocks of one switch model.

    ``interface`` is formatted with ``port`` (e.g. ``Ethernet{port}`` → ``Ethernet49``); ``lag`` names a
    port-channel from its number. A leaf has ``server_ports`` (bonded server NICs), ``rdma_ports`` (RDMA NICs;
    without them RDMA NICs use ``server_ports``), ``uplink_ports``, ``peer_link_ports`` and ``bmc_ports`` (servers'
    BMC ports when they attach to the leaves); a spine has ``downlink_ports``.
    """

    name: str = 'generic'
    interface: str = 'Ethernet{port}'
    lag: str = 'Port-Channel{number}'
    server_ports: PortRange | None = None
    uplink_ports: PortRange | None = None
    downlink_ports: PortRange | None = None
    rdma_ports: PortRange | None = None
    bmc_ports: PortRange | None = None
    peer_link_ports: tuple[int, ...] = ()
    peer_link_speed: int = 100
    peer_link_names: tuple[str, ...] = ()

    def interface_name(self, port: int) -> str:
        """The interface name of port number ``port``."""
        return self.interface.format(port=port)

    def names_of(self, block: PortRange | None) -> tuple[str, ...]:
        """The interface names of a port block, in port order."""
        if block is None:
            return ()
        if block.names:
            return block.names
        pattern = block.interface or self.interface
        return tuple(pattern.format(port=block.port(i)) for i in range(block.count))

    def peer_link_interfaces(self) -> tuple[str, ...]:
        """The interface names of the MLAG peer-link members."""
        return self.peer_link_names or tuple(self.interface_name(port) for port in self.peer_link_ports)


@dataclass(frozen=True)
class Node:
    """A spine or leaf: its stable id (≥ 1, unique per role) and hostname."""

    id: int
    name: str


@dataclass(frozen=True)
class Server:
    """A GPU server or storage node.

    Attributes:
        id: stable id (≥ 1); the server's port on each leaf derives from it.
        leaves: the leaf ids its bonded NICs attach to (two for a bond across an MLAG pair or two leaves).
        kind: ``gpu`` or ``storage``.
        rail_group: index into ``FabricSpec.rail_groups`` for its RDMA NICs (rail-optimized back end), else None:
            RDMA NICs then attach to the same leaves as the bond, one NIC per leaf in turn.
    """

    id: int
    name: str
    leaves: tuple[int, ...]
    kind: str = 'gpu'
    rail_group: int | None = None


@dataclass(frozen=True)
class NicLayout:
    """Server NICs: ``count`` × ``speed`` bonded general-traffic NICs, ``rdma_count`` × ``rdma_speed`` RDMA NICs and
    the BMC port at ``bmc_speed``."""

    count: int = 2
    speed: int = 25
    rdma_count: int = 1
    rdma_speed: int = 100
    bmc_speed: int = 1


@dataclass(frozen=True)
class RailGroup:
    """A rail-optimized scalable unit: RDMA NIC n of every member server goes to ``leaves[n]``."""

    leaves: tuple[int, ...]


@dataclass(frozen=True)
class Maximums:
    """The explicit maximums every allocation is computed from (never the current counts)."""

    spines: int
    leaves: int
    parallel_uplinks: int
    servers_per_leaf: int = 48


@dataclass(frozen=True)
class Pools:
    """IPv4 pools (CIDR strings). ``vtep`` is needed for EVPN/VXLAN, ``mlag_peer`` when leaves are paired.
    ``management`` is the out-of-band network of the switches' management ports: each switch gets an address in it
    (with its prefix length), counted down from its last address, so the first hosts stay free for the gateway and
    jump hosts."""

    loopback: str
    p2p: str | None = None
    vtep: str | None = None
    mlag_peer: str | None = None
    management: str | None = None


@dataclass(frozen=True)
class TrafficClass:
    """A traffic class with its VLAN and ``subnet``.

    ``purpose`` is the class's role (``management``, ``user-access``, ``storage``, ``rdma``, ``telemetry``, ``backup``,
    ``other``): classes of a purpose in :data:`NON_DATA_PURPOSES` never ride a server's data bond.

    ``routed`` classes get a gateway on the leaves: in the EVPN/VXLAN and MLAG designs one anycast gateway for the
    subnet; in the routed design one subnet of ``/rack_prefixlen`` per rack (a leaf pair or a single leaf), carved
    from ``subnet`` (default: the longest prefix that still gives every possible rack a subnet). A class that is not
    routed gets no gateway and is never advertised.
    """

    name: str
    vlan: int
    vrf: str | None = None
    subnet: str | None = None
    lossless: bool = False
    mtu: int | None = None
    routed: bool = True
    rack_prefixlen: int | None = None
    purpose: str = 'other'


@dataclass(frozen=True)
class Tenant:
    """An EVPN tenant: a VRF with its L3VNI; L2VNI = ``l2vni_base`` (or the fabric's) + VLAN id of each member."""

    name: str
    vrf: str
    l3vni: int
    vlans: tuple[int, ...] = ()
    l2vni_base: int | None = None


@dataclass(frozen=True)
class ManagementSwitch:
    """The out-of-band management switch model a fabric plans (``planner/oob.py``): its copper access ports in
    order (``ports``: they take the servers' BMCs and the switches' management ports), the hostname pattern of each
    switch (``name``, formatted with ``n`` = 1, 2, …) and prefixes whose addresses are never handed out
    (``keep_free``, e.g. the jump-host subnet)."""

    ports: tuple[str, ...] = tuple(f'Ethernet{i}' for i in range(1, 49))
    name: str = 'oob{n}'
    keep_free: tuple[str, ...] = ()


@dataclass(frozen=True)
class FabricSpec:
    """Everything the planner needs to number one fabric.

    ``mlag_pairs`` are MLAG leaf pairs (any design); ``mh_pairs`` EVPN multihoming pairs (EVPN/VXLAN only). A rack is
    a pair or a single leaf, and a server bonds to one rack. ``oversubscription_target`` is the downlink:uplink ratio
    per leaf above which the plan warns (None: no check). ``management_gateway`` is the default gateway of the
    management network (default: its first host); ``bmc`` says where servers' BMC ports attach
    (:data:`BMC_ATTACHMENTS`). ``management_switch``: the out-of-band switch model the plan cables every BMC (with
    ``bmc`` ``oob``) and every switch management port to (None: the plan has no management network).
    """

    name: str
    design: str
    maximums: Maximums
    pools: Pools
    spines: tuple[Node, ...] = ()
    leaves: tuple[Node, ...] = ()
    servers: tuple[Server, ...] = ()
    underlay: str = 'ebgp'
    uplinks_per_spine: int = 1
    mlag_pairs: tuple[tuple[int, ...], ...] = ()
    mh_pairs: tuple[tuple[int, ...], ...] = ()
    rail_groups: tuple[RailGroup, ...] = ()
    spine_asn: int | None = None
    leaf_asn_range: tuple[int, int] | None = None
    l2vni_base: int = 10000
    anycast_gateway_mac: str | None = None
    traffic_classes: tuple[TrafficClass, ...] = ()
    tenants: tuple[Tenant, ...] = ()
    nics: NicLayout = field(default_factory=NicLayout)
    leaf_platform: Platform = field(
        default_factory=lambda: Platform(
            name='generic-leaf',
            server_ports=PortRange(1, 48, 25),
            rdma_ports=PortRange(49, 8, 100),
            uplink_ports=PortRange(57, 8, 100),
            peer_link_ports=(65, 66),
        )
    )
    spine_platform: Platform = field(
        default_factory=lambda: Platform(name='generic-spine', downlink_ports=PortRange(1, 32, 100))
    )
    mtu: int = 9216
    oversubscription_target: float | None = None
    management_gateway: str | None = None
    bmc: str = 'oob'
    management_switch: ManagementSwitch | None = None

    @property
    def evpn(self) -> bool:
        """The design runs an EVPN/VXLAN overlay (planner/registry.py: the design option's ``evpn``)."""
        return self.design in EVPN_DESIGNS
