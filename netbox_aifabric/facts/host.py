"""A server's own network config as typed, NIC-neutral facts: its bond of data NICs with one VLAN sub-interface per
data class, its RDMA NICs, each interface's address and routes from the plan, and the RoCE settings its RDMA NICs
need to agree with their leaf ports (trust, PFC, the DSCP → priority map, ECN, the CNP marking and the RDMA-CM ToS).

Pure (the plan, the intent and the QoS facts in, frozen dataclasses out). The ``aifabric`` context carries
``as_context()`` under ``host`` (``facts/context.py``); ``templates/host/host.sh.j2`` spells it as netplan and the NIC
vendor's tools. Which vendor: ``intent['host_nic']`` (:data:`NIC_FAMILIES`, absent: :data:`DEFAULT_NIC_FAMILY`).

Routes: in the routed and MLAG designs each interface's address is in its rack's subnet, and the class's whole prefix
(``VlanPlan.subnet``) is routed via that rack's gateway, unless the rack subnet is the whole prefix (then the
connected route already covers it). In the EVPN/VXLAN design the class subnet is on-link (one anycast gateway): no
route. No default route: the plan knows no egress beyond the fabric's classes, and a server's default route belongs
to its own management network, which a default via a fabric class would take over when netplan applies.

The ToS: the DSCP in the upper six bits of the IPv4 ToS / IPv6 Traffic Class octet (RFC 2474 section 3), the ECN
field in the lower two, ECT(0) = ``0b10`` (RFC 3168 section 5) when the profile has ECN: DSCP 26 gives 106.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import netaddr

from netbox_aifabric.facts.cabling import SERVER_BOND, DeviceCabling
from netbox_aifabric.facts.intent import QosIntent
from netbox_aifabric.facts.qos import QosFacts
from netbox_aifabric.planner.result import Attachment, HostAddress, Plan, VlanPlan

__all__ = (
    'DEFAULT_NIC_FAMILY',
    'ECT0',
    'NIC_FAMILIES',
    'HostFacts',
    'HostInterface',
    'HostRoute',
    'RoceSettings',
    'UnknownNicFamily',
    'host_facts',
    'nic_family',
    'roce_settings',
)

NIC_FAMILIES = ('nvidia-mlx5', 'broadcom-bnxt')  # intent['host_nic']: NVIDIA ConnectX (mlx5), Broadcom NetXtreme-E
DEFAULT_NIC_FAMILY = 'nvidia-mlx5'
ECT0 = 0b10  # RFC 3168 section 5: ECN-Capable Transport, ECT(0)
LACP = '802.3ad'  # the bond's mode toward a LAG on the leaf (pair)
ACTIVE_BACKUP = 'active-backup'  # toward a leaf port that is no LAG (a single NIC on one leaf): no LACP partner


class UnknownNicFamily(ValueError):
    """``intent['host_nic']`` names no NIC family the host template renders."""


def nic_family(value: str | None) -> str:
    """The NIC family ``value`` names (None or empty: the default)."""
    if not value:
        return DEFAULT_NIC_FAMILY
    if value not in NIC_FAMILIES:
        raise UnknownNicFamily(f'host_nic {value!r} is not a NIC family: one of {", ".join(NIC_FAMILIES)}')
    return value


@dataclass(frozen=True)
class HostRoute:
    to: str  # a prefix
    via: str  # the gateway's address


@dataclass(frozen=True)
class HostInterface:
    """A server interface with an L3 config: a VLAN sub-interface of the bond or an RDMA NIC (an access port of its
    class: untagged, no sub-interface), its class, MTU, addresses and routes, and the leaf port it lands on."""

    name: str
    link: str | None  # the parent of a VLAN sub-interface, None for an RDMA NIC
    vid: int
    vlan: str  # the class's name
    mtu: int
    addresses: tuple[str, ...]
    routes: tuple[HostRoute, ...]
    peer_device: str | None = None
    peer_interface: str | None = None

    def as_context(self) -> dict[str, Any]:
        return {
            'name': self.name,
            'link': self.link,
            'vid': self.vid,
            'vlan': self.vlan,
            'mtu': self.mtu,
            'addresses': list(self.addresses),
            'routes': [{'to': r.to, 'via': r.via} for r in self.routes],
            'peer_device': self.peer_device,
            'peer_interface': self.peer_interface,
        }


@dataclass(frozen=True)
class RoceSettings:
    """What the RDMA NICs set so that their traffic lands where the leaf ports expect it."""

    trust: str
    pfc_priorities: tuple[int, ...]  # empty unless the profile is lossless
    dscp_to_priority: Mapping[int, int]  # the RoCE and the CNP markings
    roce_dscp: int
    roce_priority: int
    ecn: bool
    ecn_priorities: tuple[int, ...]  # notification and reaction point enabled on these
    cnp_dscp: int | None
    cnp_priority: int | None
    tos: int  # the RDMA-CM default ToS: the RoCE DSCP and, with ECN, ECT(0)

    def as_context(self) -> dict[str, Any]:
        return {
            'trust': self.trust,
            'pfc_priorities': list(self.pfc_priorities),
            'dscp_to_priority': {str(k): v for k, v in sorted(self.dscp_to_priority.items())},
            'roce_dscp': self.roce_dscp,
            'roce_priority': self.roce_priority,
            'ecn': self.ecn,
            'ecn_priorities': list(self.ecn_priorities),
            'cnp_dscp': self.cnp_dscp,
            'cnp_priority': self.cnp_priority,
            'tos': self.tos,
        }


@dataclass(frozen=True)
class HostFacts:
    nic_family: str
    bond: str | None  # None without bonded NICs
    bond_members: tuple[str, ...]
    bond_mode: str | None
    bond_mtu: int | None
    vlans: tuple[HostInterface, ...]
    rdma: tuple[HostInterface, ...]
    roce: RoceSettings | None  # None without a QoS profile or without RDMA NICs

    def as_context(self) -> dict[str, Any]:
        bond = None
        if self.bond is not None:
            bond = {'name': self.bond, 'members': list(self.bond_members), 'mode': self.bond_mode, 'mtu': self.bond_mtu}
        return {
            'nic_family': self.nic_family,
            'bond': bond,
            'vlans': [v.as_context() for v in self.vlans],
            'rdma': [r.as_context() for r in self.rdma],
            'roce': self.roce.as_context() if self.roce else None,
        }


def _routes(vlan: VlanPlan, address: str | None, gateway: str | None) -> tuple[HostRoute, ...]:
    """The class's whole prefix via the interface's gateway, where the connected subnet is only part of it."""
    if address is None or gateway is None or vlan.subnet is None:
        return ()
    prefix = netaddr.IPNetwork(vlan.subnet).cidr
    if netaddr.IPNetwork(address).cidr == prefix:
        return ()
    return (HostRoute(str(prefix), str(netaddr.IPNetwork(gateway).ip)),)


def _interface(
    name: str,
    link: str | None,
    vlan: VlanPlan,
    mtu: int,
    addresses: Mapping[str, HostAddress],
    peer: tuple[str, str] | None,
) -> HostInterface:
    host = addresses.get(name)
    address = host.address if host is not None else None
    gateway = host.gateway if host is not None else None
    return HostInterface(
        name=name,
        link=link,
        vid=vlan.vid,
        vlan=vlan.name,
        mtu=mtu,
        addresses=(address,) if address else (),
        routes=_routes(vlan, address, gateway),
        peer_device=peer[0] if peer else None,
        peer_interface=peer[1] if peer else None,
    )


def roce_settings(profile: QosIntent, qos: QosFacts) -> RoceSettings | None:
    """The RDMA NICs' RoCE settings of a QoS profile (``intent['qos']``: its RoCE marking) and its facts (the maps
    every switch applies); None when the profile has no RoCE marking."""
    if not profile['roce_dscp'] or not profile['roce_priority']:
        return None
    dscp, priority = profile['roce_dscp'][0], profile['roce_priority'][0]
    marked = (*profile['roce_dscp'], qos.cnp.get('dscp'))
    markings = {d: qos.dscp_to_priority[d] for d in marked if d is not None and d in qos.dscp_to_priority}
    ecn = bool(qos.ecn.get('enabled'))
    return RoceSettings(
        trust=qos.trust,
        pfc_priorities=qos.pfc_priorities if qos.lossless else (),
        dscp_to_priority=markings,
        roce_dscp=dscp,
        roce_priority=priority,
        ecn=ecn,
        ecn_priorities=tuple(sorted(set(profile['roce_priority']))) if ecn else (),
        cnp_dscp=qos.cnp.get('dscp'),
        cnp_priority=qos.cnp.get('priority'),
        tos=dscp << 2 | (ECT0 if ecn else 0),
    )


def host_facts(
    plan: Plan,
    attachment: Attachment,
    cabling: DeviceCabling,
    class_mtu: Mapping[str, int],
    fabric_mtu: int,
    profile: QosIntent | None,
    qos: QosFacts | None,
    family: str | None = None,
) -> HostFacts:
    """The server's host facts. ``cabling``: its cabling facts (the bond's members, the RDMA NICs and their leaf
    ports); ``class_mtu``: each class's MTU (absent: ``fabric_mtu``); ``profile`` and ``qos``: the QoS profile
    (``intent['qos']``) and its facts; ``family``: ``intent['host_nic']``.

    Raises:
        UnknownNicFamily: ``family`` names no NIC family.
    """
    vlan_of = {v.vid: v for v in plan.vlans}
    addresses = {a.interface: a for a in attachment.addresses}
    members = tuple(p.name for p in cabling.ports if p.lag == SERVER_BOND)
    vlans = tuple(
        _interface(f'{SERVER_BOND}.{vid}', SERVER_BOND, vlan_of[vid], class_mtu.get(vlan_of[vid].name, fabric_mtu),
                   addresses, None)
        for vid in attachment.vlans
        if vid in vlan_of and members
    )  # fmt: skip
    lossless = [v for v in plan.vlans if v.lossless]
    rdma_ports = [p for p in cabling.ports if p.kind == 'rdma']
    rdma = tuple(
        _interface(p.name, None, lossless[0], class_mtu.get(lossless[0].name, fabric_mtu), addresses,
                   (p.peer_device, p.peer_interface))
        for p in rdma_ports
        if lossless
    )  # fmt: skip
    return HostFacts(
        nic_family=nic_family(family),
        bond=SERVER_BOND if members else None,
        bond_members=members,
        bond_mode=(LACP if attachment.lag else ACTIVE_BACKUP) if members else None,
        bond_mtu=max((v.mtu for v in vlans), default=fabric_mtu) if members else None,
        vlans=vlans,
        rdma=rdma,
        roce=roce_settings(profile, qos) if profile is not None and qos is not None and rdma else None,
    )
