"""Both ends of every planned link as typed, NOS-neutral device facts: each device's cabled ports by real name, the
LAGs they are members of (server bonds, the MLAG peer link), and the BGP sessions the links carry.

Pure (the planner's plan in, frozen dataclasses out), computed once per plan and read by the apply (the NetBox
interfaces, their LAGs, modes and descriptions) and by the ``aifabric`` context (``facts/context.py``), so the two
cannot disagree on a name or a membership. NOS-specific spelling (``Port-Channel1000`` → ``PortChannel1000``,
``peerlink``) stays in the templates' per-NOS naming table (``render/filters.py``).
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import netaddr

from netbox_aifabric.planner.result import Link, Plan

Facts = Mapping[str, Any]  # a port's platform facts or breakout, as the context carries them
RoleFacts = Mapping[str, Mapping[str, Facts]]  # role -> interface name -> facts
Mode = tuple[str, int | None, tuple[int, ...]]

__all__ = (
    'PEER_LINK_LAG',
    'SERVER_BOND',
    'DeviceCabling',
    'LagFacts',
    'NeighborFacts',
    'PortFacts',
    'VlanMode',
    'cabling_facts',
    'server_port_modes',
)

PEER_LINK_LAG = 'Port-Channel1000'  # the MLAG peer-link bundle on both leaves of a pair (the planner's LAGs are < 1000)
SERVER_BOND = 'bond0'  # a server's bond of its data NICs


@dataclass(frozen=True)
class VlanMode:
    """An 802.1Q mode: ``access`` with its VLAN, or ``tagged`` with the VLANs it carries."""

    mode: str
    untagged: int | None
    tagged: tuple[int, ...]


@dataclass(frozen=True)
class PortFacts:
    """One cabled port of a device: its real name, the link kind and speed, its /31 (none on the peer link), the far
    end by reference, the LAG it is a member of, its VLAN mode and the platform's per-port facts (SONiC lanes)."""

    name: str
    kind: str
    speed: int
    address: str | None
    peer_device: str
    peer_interface: str
    lag: str | None
    mode: VlanMode | None
    hardware: Facts | None
    breakout: Facts | None = None  # a lane port of a broken-out port: its parent, lane count, speed and mode

    @property
    def description(self) -> str:
        return f'{self.peer_device} {self.peer_interface}'


@dataclass(frozen=True)
class LagFacts:
    """A LAG of a device: the MLAG peer link (with its /31) or a bond toward a server or the leaves, its members in
    cabling order, its VLAN mode and, on an EVPN multihoming pair, its Ethernet segment (type-3 ESI)."""

    name: str
    peer_link: bool
    peer_device: str
    address: str | None
    members: tuple[str, ...]
    mode: VlanMode | None
    esi: str | None
    # a server bond with members on both leaves of its pair (an MLAG interface or an Ethernet segment); a bond on
    # one leaf is a LAG of that switch alone
    dual_homed: bool = False


@dataclass(frozen=True)
class NeighborFacts:
    """A BGP session a link carries: the far end's address and ASN, and the local interface (the peer-link LAG for
    the MLAG peer). An unnumbered uplink's session has no address: it runs on the interface's IPv6 link-local one."""

    address: str | None
    remote_asn: int | None
    peer: str
    interface: str
    kind: str


@dataclass(frozen=True)
class DeviceCabling:
    """A device's cabled ports, LAGs and link-borne BGP sessions, in the plan's link order."""

    ports: tuple[PortFacts, ...] = ()
    lags: tuple[LagFacts, ...] = ()
    neighbors: tuple[NeighborFacts, ...] = ()

    @property
    def peer_link(self) -> LagFacts | None:
        return next((lag for lag in self.lags if lag.peer_link), None)


def server_port_modes(plan: Plan) -> dict[tuple[str, str], Mode]:
    """``{(leaf, interface): (mode, untagged VID, tagged VIDs)}`` of the leaves' server-facing ports: each server
    bond (or single member port) is an 802.1Q trunk of the server's data VLANs; each RDMA port is an access port in
    the (first) lossless VLAN; a BMC port on a leaf is an access port in the management VLAN."""
    lossless = [v.vid for v in plan.vlans if v.lossless]
    modes: dict[tuple[str, str], Mode] = {}
    for attachment in plan.attachments:
        tagged = tuple(vid for vid in attachment.vlans if vid not in lossless)
        for leaf, port in attachment.members:
            modes[leaf, attachment.lag or port] = ('tagged', None, tagged)
        for leaf, port in attachment.rdma:
            if lossless:
                modes[leaf, port] = ('access', lossless[0], ())
        if attachment.bmc and attachment.bmc_vlan:
            modes[attachment.bmc] = ('access', attachment.bmc_vlan, ())
    return modes


def _vlan_mode(mode: Mode | None) -> VlanMode | None:
    return None if mode is None else VlanMode(mode[0], mode[1], tuple(mode[2]))


def _lag_of(
    kind: str, device: str, interface: str, switch: bool, member_lag: dict[tuple[str, str], str | None]
) -> str | None:
    """The LAG a link end is a member of: the peer link on a switch, a server bond on either end."""
    if kind == 'mlag-peer' and switch:
        return PEER_LINK_LAG
    if not switch and kind == 'server':
        return SERVER_BOND
    return member_lag.get((device, interface))


def _ends(link: Link) -> Iterator[tuple[str, str, str | None, str, str, str | None]]:
    """(device, interface, address, peer, peer interface, peer address) for each end of a link."""
    yield link.a_node, link.a_interface, link.a_address, link.b_node, link.b_interface, link.b_address
    yield link.b_node, link.b_interface, link.b_address, link.a_node, link.a_interface, link.a_address


def cabling_facts(
    plan: Plan,
    hardware: RoleFacts | None = None,
    ebgp: bool = True,
    breakouts: RoleFacts | None = None,
    unnumbered: bool = False,
) -> dict[str, DeviceCabling]:
    """``{device: DeviceCabling}`` for every switch and server of the plan. ``hardware``: role → {interface name:
    platform facts} of the switches' device types; ``ebgp``: the underlay runs eBGP on the fabric links (else only
    the MLAG peer session is link-borne); ``breakouts``: role → {lane port: its breakout}; ``unnumbered``: the eBGP
    sessions of the uplinks run on the interfaces (RFC 5549), not on addresses."""
    roles = {n.name: n.role for n in plan.nodes}
    asns = {n.name: n.asn for n in plan.nodes}
    modes = server_port_modes(plan)
    member_lag = {(leaf, port): a.lag for a in plan.attachments for leaf, port in a.members}
    esi_of = {(leaf, a.lag): a.esi for a in plan.attachments if a.esi for leaf, _ in a.members}
    dual = {(leaf, a.lag) for a in plan.attachments if len({m[0] for m in a.members}) > 1 for leaf, _ in a.members}
    ports: dict[str, list[PortFacts]] = {}
    lags: dict[str, dict[str, dict[str, Any]]] = {}
    neighbors: dict[str, list[NeighborFacts]] = {}
    for link in plan.links:
        for me, my_if, my_addr, peer, peer_if, peer_addr in _ends(link):
            switch = me in roles
            lag = _lag_of(link.kind, me, my_if, switch, member_lag)
            platform = (hardware or {}).get(roles[me], {}).get(my_if) if switch else None
            breakout = (breakouts or {}).get(roles[me], {}).get(my_if) if switch else None
            address = my_addr if link.kind != 'mlag-peer' else None
            mode = _vlan_mode(modes.get((me, my_if)))
            port = PortFacts(my_if, link.kind, link.speed, address, peer, peer_if, lag, mode, platform, breakout)
            ports.setdefault(me, []).append(port)
            if lag:
                entry = lags.setdefault(me, {}).setdefault(
                    lag, {'peer': peer, 'address': my_addr, 'link': link.kind == 'mlag-peer', 'members': []}
                )
                entry['members'].append(my_if)
            interface = (lag or my_if) if link.kind == 'mlag-peer' else my_if
            ends = (my_addr, peer_addr)
            session = _session(link.kind, interface, ends, peer, asns, ebgp, unnumbered) if switch else None
            if session is not None:
                neighbors.setdefault(me, []).append(session)
    devices = [n.name for n in plan.nodes] + [a.server for a in plan.attachments]
    return {
        device: DeviceCabling(
            tuple(ports.get(device, ())),
            tuple(
                _lag_facts(device, name, entry, modes, esi_of, (device, name) in dual)
                for name, entry in lags.get(device, {}).items()
            ),
            tuple(neighbors.get(device, ())),
        )
        for device in devices
    }


def _session(
    kind: str,
    interface: str,
    addresses: tuple[str | None, str | None],
    peer: str,
    asns: Mapping[str, int | None],
    ebgp: bool,
    unnumbered: bool,
) -> NeighborFacts | None:
    """The BGP session a switch's end of a link carries, if any: on the MLAG peer link (over its LAG) always; on an
    uplink with an eBGP underlay, by the far end's address or, unnumbered, by the local interface."""
    my_addr, peer_addr = addresses
    if peer not in asns:
        return None
    if kind == 'uplink' and ebgp and unnumbered:
        return NeighborFacts(None, asns[peer], peer, interface, kind)
    if my_addr and peer_addr and (ebgp or kind == 'mlag-peer'):
        return NeighborFacts(str(netaddr.IPNetwork(peer_addr).ip), asns[peer], peer, interface, kind)
    return None


def _lag_facts(
    device: str,
    name: str,
    entry: Mapping[str, Any],
    modes: Mapping[tuple[str, str], Mode],
    esi_of: Mapping[tuple[str, str | None], str | None],
    dual_homed: bool = False,
) -> LagFacts:
    """One LAG's facts from the members gathered while walking the links."""
    return LagFacts(
        name=name,
        peer_link=entry['link'],
        peer_device=entry['peer'],
        address=entry['address'] if entry['link'] else None,
        members=tuple(entry['members']),
        mode=_vlan_mode(modes.get((device, name))),
        esi=esi_of.get((device, name)),
        dual_homed=dual_homed,
    )
