"""A switch's routing as typed facts: loopbacks, BGP (underlay neighbours by reference, EVPN overlay peers), OSPF,
its L3VNI VRFs, its MLAG pair and its EVPN multihoming segments. Pure, from the plan and the cabling facts; each
``as_context`` gives the schema's object of the ``aifabric`` context."""

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import netaddr

from netbox_aifabric.facts.cabling import DeviceCabling, LagFacts, NeighborFacts
from netbox_aifabric.facts.vlans import LeafVlan
from netbox_aifabric.planner.result import NodePlan, Plan

__all__ = (
    'AS_PATH_STEP',
    'L3VNI_VLAN_FIRST',
    'MLAG_RELOAD_DELAY',
    'MLAG_SYSTEM_MAC',
    'OSPF_AREA',
    'PREFIX_LIST_STEP',
    'BgpFacts',
    'EvpnMhFacts',
    'EvpnPeer',
    'Loopback',
    'MlagFacts',
    'OspfFacts',
    'VrfFacts',
    'advertised_prefixes',
    'bgp_facts',
    'evpn_mh_facts',
    'host',
    'loopbacks',
    'mlag_facts',
    'ospf_facts',
    'port_order',
    'segment',
    'vrf_facts',
)

OSPF_AREA = '0.0.0.0'  # one backbone area: the underlay is a single two-tier Clos
# NVIDIA's reserved range for the MLAG system MAC (44:38:39:ff:00:00-44:38:39:ff:ff:ff, [CL512 MLAG]): the pair's is
# 44:38:39:ff + its primary leaf's id as two bytes, the same on both peers, different per pair, stable.
MLAG_SYSTEM_MAC = '44:38:39:ff:{high:02x}:{low:02x}'
# AVD's default platform_settings reload delays (s) of an MLAG pair: mlag 300, non-mlag 330 (pyavd 6.4.0
# _eos_designs/schema platform_settings "default"; 900/1020 on the 7280R/7500R families only).
# The switch-local VLAN of each L3VNI VRF where the NOS binds a VNI to a VLAN (SONiC): 4000, 4001, … in the order of
# the VRFs, below 4094 (the MLAG peer link); a traffic class on one of them is refused (UnsupportedFeature)
L3VNI_VLAN_FIRST = 4000
# Entries of the prefix lists (10, 20, …) and AS-path lists (5, 10, …) a NOS numbers (FRR): room to insert by hand
PREFIX_LIST_STEP = 10
AS_PATH_STEP = 5
MLAG_RELOAD_DELAY = {'mlag': 300, 'non_mlag': 330}


def host(address: str | None) -> str | None:
    """The address part of ``a.b.c.d/len`` (None stays None)."""
    return str(netaddr.IPNetwork(address).ip) if address else None


def port_order(name: str) -> tuple[str, list[int]]:
    """Sort key of an interface name: its letters, then its numbers as numbers (Ethernet2 before Ethernet10)."""
    digits = ''.join(c if c.isdigit() else ' ' for c in name).split()
    return (''.join(c for c in name if not c.isdigit()), [int(d) for d in digits])


@dataclass(frozen=True)
class Loopback:
    name: str
    address: str
    purpose: str  # router-id or vtep

    def as_context(self) -> dict[str, Any]:
        return asdict(self)


def loopbacks(node: NodePlan) -> tuple[Loopback, ...]:
    """Loopback0 (router id) and, on a VTEP, Loopback1."""
    router_id = Loopback('Loopback0', node.loopback, 'router-id')
    return (router_id, Loopback('Loopback1', node.vtep, 'vtep')) if node.vtep else (router_id,)


@dataclass(frozen=True)
class EvpnPeer:
    """An EVPN overlay peer: a loopback address, its AS and the switch it belongs to."""

    address: str | None
    remote_asn: int | None
    peer: str

    def as_context(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class BgpFacts:
    asn: int | None
    router_id: str | None
    neighbors: tuple[NeighborFacts, ...]  # the underlay sessions the links carry (eBGP, the MLAG peer)
    evpn_peers: tuple[EvpnPeer, ...]
    address_families: tuple[str, ...]
    # What the switch originates, numbered as prefix-list entries (advertised_prefixes)
    advertise: tuple[tuple[int, str], ...] = ()
    vrf_advertise: tuple[tuple[str, tuple[tuple[int, str], ...]], ...] = ()
    unnumbered: bool = False  # the uplink sessions run on the interfaces (RFC 5549): their neighbours have no address

    def as_context(self) -> dict[str, Any]:
        # the distinct remote ASNs of the underlay sessions in session order (a spine's: its leaves'), numbered
        asns = list(dict.fromkeys(n.remote_asn for n in self.neighbors))
        return {
            'asn': self.asn,
            'router_id': self.router_id,
            'unnumbered': self.unnumbered,
            'neighbors': [asdict(n) for n in self.neighbors],
            'evpn_peers': [p.as_context() for p in self.evpn_peers],
            'address_families': list(self.address_families),
            'advertise': [{'seq': seq, 'prefix': prefix} for seq, prefix in self.advertise],
            'vrf_advertise': [
                {'vrf': vrf, 'prefixes': [{'seq': seq, 'prefix': prefix} for seq, prefix in entries]}
                for vrf, entries in self.vrf_advertise
            ],
            'remote_asns': [{'seq': AS_PATH_STEP * (i + 1), 'asn': asn} for i, asn in enumerate(asns)],
        }


def _numbered(prefixes: Sequence[str]) -> tuple[tuple[int, str], ...]:
    return tuple((PREFIX_LIST_STEP * (i + 1), prefix) for i, prefix in enumerate(prefixes))


def advertised_prefixes(
    own: Sequence['Loopback'], vlans: Sequence[LeafVlan], vrfs: Sequence[str]
) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, tuple[tuple[int, str], ...]], ...]]:
    """``(default, per_vrf)``: what the switch originates as numbered prefix-list entries: in the default VRF its
    loopbacks, then the subnets of its advertised VLANs without L2VNI or VRF; per L3VNI VRF (``vrfs``, in order) the
    subnets of its advertised VLANs (none: an empty list)."""
    default = [lo.address for lo in own]
    default += [v.subnet for v in vlans if v.advertise and not v.l2vni and not v.vrf and v.subnet]
    per_vrf = tuple(
        (vrf, _numbered([v.subnet for v in vlans if v.advertise and v.vrf == vrf and v.subnet])) for vrf in vrfs
    )
    return _numbered(default), per_vrf


def bgp_facts(
    plan: Plan,
    node: NodePlan,
    cabling: DeviceCabling,
    evpn: bool,
    ebgp: bool,
    own: Sequence['Loopback'] = (),
    vlans: Sequence[LeafVlan] = (),
    vrfs: Sequence[str] = (),
    unnumbered: bool = False,
) -> BgpFacts | None:
    """A switch's BGP: its underlay neighbours (eBGP, the MLAG peer), with EVPN the overlay peers (leaves peer with
    the spines, spines with the leaves) and what it originates from its loopbacks (``own``), ``vlans`` and L3VNI
    ``vrfs`` (``advertised_prefixes``); ``unnumbered``: the eBGP underlay runs on the interfaces (RFC 5549). None
    without BGP (an OSPF underlay without EVPN)."""
    if not (ebgp or evpn):
        return None
    evpn_peers: tuple[EvpnPeer, ...] = ()
    if evpn:
        others = {'spine': 'leaf', 'leaf': 'spine'}.get(node.role)
        evpn_peers = tuple(EvpnPeer(host(o.loopback), o.asn, o.name) for o in plan.nodes if o.role == others)
    default, per_vrf = advertised_prefixes(own, vlans, vrfs)
    return BgpFacts(
        asn=node.asn,
        router_id=host(node.loopback),
        neighbors=tuple(sorted(cabling.neighbors, key=lambda n: (n.kind, n.interface))),
        evpn_peers=evpn_peers,
        address_families=('ipv4-unicast', 'l2vpn-evpn') if evpn else ('ipv4-unicast',),
        advertise=default,
        vrf_advertise=per_vrf,
        unnumbered=ebgp and unnumbered,
    )


@dataclass(frozen=True)
class OspfFacts:
    router_id: str | None
    area: str
    interfaces: tuple[str, ...]
    networks: tuple[str, ...]

    def as_context(self) -> dict[str, Any]:
        return {**asdict(self), 'interfaces': list(self.interfaces), 'networks': list(self.networks)}


def ospf_facts(
    node: NodePlan, cabling: DeviceCabling, lo: Sequence[Loopback], vlans: Sequence[LeafVlan], vrfs: Sequence[str]
) -> OspfFacts:
    """A switch's OSPF underlay: its router id and area, the interfaces OSPF runs on (the uplinks, the router-id
    loopback and the VTEP, whose address must reach the other VTEPs) and ``networks``: the subnets it announces
    from its gateways (the SVIs stay passive), those of its VLANs without an L2VNI and outside an L3VNI VRF, as the
    FRR template announces them in BGP with an eBGP underlay (its rack's routed subnets in the routed and MLAG
    designs; none on a spine or an EVPN leaf, whose subnets travel in EVPN)."""
    uplinks = tuple(p.name for p in cabling.ports if p.kind == 'uplink')  # in cabling order, as the templates list them
    return OspfFacts(
        router_id=host(node.loopback),
        area=OSPF_AREA,
        interfaces=uplinks + tuple(loopback.name for loopback in lo),
        networks=tuple(v.subnet for v in vlans if v.advertise and not v.l2vni and v.vrf not in vrfs and v.subnet),
    )


@dataclass(frozen=True)
class VrfFacts:
    """A leaf's L3VNI VRF with the leaf's own route distinguisher and the local VLAN its L3VNI maps to."""

    name: str
    tenant: str
    l3vni: int
    rd: str | None
    route_target: str
    anycast_gateway_mac: str | None
    l3vni_vlan: int

    def as_context(self) -> dict[str, Any]:
        return asdict(self)


def vrf_facts(plan: Plan, node: NodePlan) -> tuple[VrfFacts, ...]:
    """Every L3VNI VRF of the plan as ``node`` has it."""
    return tuple(
        VrfFacts(
            name=vrf.name,
            tenant=vrf.tenant,
            l3vni=vrf.l3vni,
            rd=dict(vrf.route_distinguishers).get(node.name),
            route_target=vrf.route_target,
            anycast_gateway_mac=vrf.anycast_gateway_mac,
            l3vni_vlan=L3VNI_VLAN_FIRST + index,
        )
        for index, vrf in enumerate(plan.vrfs)
    )


@dataclass(frozen=True)
class MlagFacts:
    """An MLAG leaf's pair: the peer, its role, the peer link and its /31, the pair's gateway and system MACs, the
    peer's loopback and management address (NVUE's backup), the reload delays."""

    peer: str
    role: str | None
    peer_link: str | None
    local_address: str | None
    peer_address: str | None
    anycast_gateway_mac: str
    peer_loopback: str | None
    peer_management: str | None
    system_mac: str
    reload_delay: Mapping[str, int]

    def as_context(self) -> dict[str, Any]:
        return {**asdict(self), 'reload_delay': dict(self.reload_delay)}


def mlag_facts(
    nodes: Mapping[str, NodePlan], node: NodePlan, cabling: DeviceCabling, gateway_mac: str
) -> MlagFacts | None:
    """``node``'s MLAG pair, None outside a pair."""
    if not node.mlag_peer:
        return None
    peer_link = cabling.peer_link
    peer_node = nodes[node.mlag_peer]
    primary_id = node.id if node.mlag_role == 'primary' else peer_node.id
    return MlagFacts(
        peer=node.mlag_peer,
        role=node.mlag_role,
        peer_link=peer_link.name if peer_link else None,
        local_address=peer_link.address if peer_link else None,
        peer_address=next((n.address for n in cabling.neighbors if n.kind == 'mlag-peer'), None),
        anycast_gateway_mac=gateway_mac,
        peer_loopback=host(peer_node.loopback),
        peer_management=host(peer_node.management),
        system_mac=MLAG_SYSTEM_MAC.format(high=primary_id >> 8, low=primary_id & 0xFF),
        reload_delay=dict(MLAG_RELOAD_DELAY),
    )


@dataclass(frozen=True)
class EvpnMhFacts:
    """A leaf of an EVPN multihoming pair: its peer and its Ethernet segments (bond name, ESI)."""

    peer: str
    segments: tuple[tuple[str, str], ...]

    def as_context(self) -> dict[str, Any]:
        return {'peer': self.peer, 'segments': [{'lag': lag, 'esi': esi} for lag, esi in self.segments]}


def evpn_mh_facts(node: NodePlan, lags: Sequence[LagFacts]) -> EvpnMhFacts | None:
    """``node``'s EVPN multihoming pair, None outside one."""
    if not node.mh_peer:
        return None
    segments = sorted(((lag.name, lag.esi) for lag in lags if lag.esi), key=lambda s: port_order(s[0]))
    return EvpnMhFacts(node.mh_peer, tuple(segments))


def segment(esi: str | None) -> dict[str, Any]:
    """An EVPN multihoming bond's Ethernet segment: the type-3 ESI and its parts as the NOSes take them (FRR's
    ``es-id`` and ``es-sys-mac``; the 6-byte ES-import route target EOS derives from the ESI)."""
    if esi is None:
        return {}
    octets = esi.split(':')
    return {
        'esi': esi,
        'es_sys_mac': ':'.join(octets[1:7]),
        'es_id': int(''.join(octets[7:10]), 16),
        'es_import_rt': ':'.join(octets[4:10]),
    }
