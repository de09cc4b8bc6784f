"""The planner's output: a plan as frozen dataclasses, in a stable order (by role, id, name)."""

from dataclasses import asdict, dataclass
from typing import Any

from netbox_aifabric.planner.labels import field_label, pool_label

__all__ = (
    'Attachment',
    'HostAddress',
    'LeafCapacity',
    'Link',
    'NodePlan',
    'OobLink',
    'OobPlan',
    'OobSwitch',
    'Plan',
    'PlanWarning',
    'PoolUsage',
    'RackSubnet',
    'VlanPlan',
    'VrfPlan',
)


@dataclass(frozen=True)
class NodePlan:
    """One switch: role (spine/leaf), stable id, hostname, ASN, router-id loopback, VTEP, its MLAG peer and role or
    its EVPN multihoming peer (``mh_peer``), and its management address (``management``: address/prefix length on the
    out-of-band management network, None without one)."""

    role: str
    id: int
    name: str
    asn: int | None
    loopback: str
    vtep: str | None = None
    mlag_peer: str | None = None
    mlag_role: str | None = None
    mh_peer: str | None = None
    management: str | None = None


@dataclass(frozen=True)
class Link:
    """A cable: both ends with interface names, the /31 and addresses where routed, speed and kind.

    ``kind`` is ``uplink`` (leaf–spine), ``mlag-peer``, ``server`` (bonded server NIC), ``rdma`` (RDMA NIC on the
    bond leaves), ``rail`` (RDMA NIC n to leaf n of its rail group) or ``bmc`` (a server's BMC port on a leaf).
    """

    kind: str
    a_node: str
    a_interface: str
    b_node: str
    b_interface: str
    speed: int
    subnet: str | None = None
    a_address: str | None = None
    b_address: str | None = None


@dataclass(frozen=True)
class HostAddress:
    """A server's address in one traffic class: the server interface it sits on (``bond0.<vid>`` for a data class of
    the bond, ``rdma<n>`` for RDMA NIC n in the first lossless class), the class's VLAN, the address with the
    subnet's prefix length, and that subnet's gateway (with its prefix length; None for a class that is not routed).
    In the EVPN/VXLAN design the subnet is the class's own, in the routed and MLAG designs the rack subnet of the leaf
    the interface is cabled to."""

    interface: str
    vid: int
    address: str
    gateway: str | None


@dataclass(frozen=True)
class Attachment:
    """How one server attaches: its bond (LAG members on the leaves and the VLANs: the data classes only), its RDMA
    NICs, on an EVPN multihoming pair the bond's Ethernet segment identifier (``esi``: type 3, ``03`` + the pair's
    system MAC + a 3-byte local discriminator, colon-separated hex), and its BMC port (``bmc``: leaf and port, an
    access port in ``bmc_vlan``) when BMCs attach to the leaves; ``addresses``: the server's own address per class
    (:class:`HostAddress`: the bond's VLANs by VID, then the RDMA NICs)."""

    server: str
    kind: str
    lag: str | None
    members: tuple[tuple[str, str], ...]
    rdma: tuple[tuple[str, str], ...]
    vlans: tuple[int, ...]
    esi: str | None = None
    bmc: tuple[str, str] | None = None
    bmc_vlan: int | None = None
    addresses: tuple[HostAddress, ...] = ()


@dataclass(frozen=True)
class RackSubnet:
    """A routed class's subnet in one rack (routed and MLAG designs): the rack's id (lowest leaf id), its leaves, the
    subnet and its gateway address (on those leaves only)."""

    rack: int
    leaves: tuple[str, ...]
    subnet: str
    gateway: str


@dataclass(frozen=True)
class VlanPlan:
    """A VLAN (traffic class). EVPN/VXLAN: ``subnet`` with one anycast ``gateway`` on every leaf. Routed and MLAG
    designs: ``subnet`` is the class's prefix, ``gateway`` None, and ``racks`` holds each rack's own subnet and
    gateway. A class that is not routed has neither gateway nor rack subnets. ``switch_addresses``: each leaf's own
    address in its gateway subnet (leaf name → address/prefix length), next to the shared gateway: in the EVPN/VXLAN
    design on every leaf, in the routed and MLAG designs on the two leaves of a pair's rack (a single leaf's gateway is
    its own address)."""

    vid: int
    name: str
    vrf: str | None
    l2vni: int | None
    tenant: str | None
    subnet: str | None
    gateway: str | None
    lossless: bool
    routed: bool = True
    racks: tuple[RackSubnet, ...] = ()
    switch_addresses: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class VrfPlan:
    name: str
    tenant: str
    l3vni: int
    route_target: str
    route_distinguishers: tuple[tuple[str, str], ...]
    anycast_gateway_mac: str | None


@dataclass(frozen=True)
class LeafCapacity:
    """Downlink vs uplink capacity of one leaf (Gbit/s) and the oversubscription ratio (downlink / uplink)."""

    leaf: str
    downlink: int
    uplink: int
    ratio: float | None


@dataclass(frozen=True)
class PoolUsage:
    name: str
    prefix: str
    unit: str
    size: int
    used: int
    free: int
    percent: float

    @property
    def label(self) -> str:
        """The pool as a person calls it (``leaf_asn`` → ``leaf ASN range``; the name stays the machines')."""
        return pool_label(self.name)


@dataclass(frozen=True)
class PlanWarning:
    """A design concern that does not stop the plan: ``code`` names the kind (``oversubscription``, ``public-asn``,
    ``unrouted-class-across-racks``, …), ``field`` the spec field it is about, ``message`` says what and why."""

    code: str
    field: str
    message: str

    @property
    def field_label(self) -> str:
        """The field as the form says it (``oversubscription_target`` → ``oversubscription target``)."""
        return field_label(self.field)


@dataclass(frozen=True)
class OobSwitch:
    """A management (out-of-band) switch: its number (1, 2, …), hostname and own address in the MGMT class subnet."""

    id: int
    name: str
    address: str | None = None


@dataclass(frozen=True)
class OobLink:
    """A copper cable on the management network: ``kind`` ``bmc`` (a server's BMC, ``device_interface`` ``bmc``) or
    ``switch-management`` (a spine's or leaf's management port: ``device_interface`` None, the port its device type
    marks management-only); the management switch port it lands on; the device's address there (BMCs: in the MGMT
    class subnet; switches: their management address, when the plan has a management network)."""

    kind: str
    switch: str
    interface: str
    device: str
    device_interface: str | None
    address: str | None = None


@dataclass(frozen=True)
class OobPlan:
    """The management network: its switches, every cable to them, the MGMT class's VLAN, and the management
    network's subnet (the class's own block where it is carved into rack subnets) and gateway (its first host)."""

    switches: tuple[OobSwitch, ...]
    links: tuple[OobLink, ...]
    vlan: int | None = None
    subnet: str | None = None
    gateway: str | None = None


@dataclass(frozen=True)
class Plan:
    """A complete, deterministic allocation for one fabric spec.

    ``allocations`` maps a stable key (``loopback:leaf:3``, ``uplink:leaf:3:spine:1:1``, ``asn:leaf:3``, …) to the
    value allocated; feed it back as ``previous`` to pin everything on the next run.
    """

    fabric: str
    design: str
    underlay: str
    nodes: tuple[NodePlan, ...]
    links: tuple[Link, ...]
    attachments: tuple[Attachment, ...]
    vlans: tuple[VlanPlan, ...]
    vrfs: tuple[VrfPlan, ...]
    capacity: tuple[LeafCapacity, ...]
    pools: tuple[PoolUsage, ...]
    summary: tuple[tuple[str, int], ...]
    allocations: tuple[tuple[str, str], ...]
    reserved: tuple[str, ...] = ()
    warnings: tuple[PlanWarning, ...] = ()
    management_gateway: str | None = None
    oob: OobPlan | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists); ``oob`` only when the plan has a management network."""
        data = asdict(self)
        if self.oob is None:
            del data['oob']
        data['summary'] = dict(self.summary)
        data['allocations'] = dict(self.allocations)
        return data
