"""What the lab builds, read from the switches' ``aifabric`` contexts alone (pure: no Django, no kernel).

A ``Topology`` holds the switches (role, ASN, loopbacks, VTEP, L2VNIs), the fabric links between two switches
(veth pairs named as the contexts name the ports, with their MTUs and /31 addresses) and what the lab leaves out
because this kind of link needs a kernel driver the lab checks for (a LAG member needs ``bonding``).
"""

import ipaddress
from dataclasses import dataclass, field
from typing import Any

__all__ = ('IFNAMSIZ', 'Link', 'Skipped', 'Switch', 'Topology', 'build_topology')

IFNAMSIZ = 15  # Linux interface names: at most 15 characters
SWITCH_ROLES = ('spine', 'leaf', 'border')


@dataclass(frozen=True)
class Link:
    """A fabric link between two switches: ``a``'s port ``a_if`` to ``b``'s port ``b_if``."""

    a: str
    a_if: str
    a_address: str | None  # with its prefix length, as in the context (``10.255.2.1/31``); None: unnumbered
    a_mtu: int
    b: str
    b_if: str
    b_address: str | None
    b_mtu: int

    @property
    def name(self) -> str:
        return f'{self.a} {self.a_if} - {self.b} {self.b_if}'


@dataclass(frozen=True)
class Skipped:
    """A link or interface the lab does not build, and why (``driver``: the kernel driver it would need)."""

    what: str
    driver: str
    reason: str


@dataclass
class Switch:
    name: str
    role: str
    asn: int | None
    router_id: str | None
    loopbacks: list[tuple[str, str]]  # (interface name, address with prefix length)
    vtep: str | None  # address without prefix length
    l2vnis: list[tuple[int, int]]  # (VID, VNI)
    context: dict[str, Any] = field(repr=False)

    @property
    def loopback_addresses(self) -> set[str]:
        return {str(ipaddress.ip_interface(address).ip) for _, address in self.loopbacks}


# The kernel drivers the lab would need for what it leaves out (LAGs, VRFs, SVIs/tagged ports, dummy loopbacks)
LAB_DRIVERS = frozenset({'bonding', 'vrf', '8021q', 'dummy'})


@dataclass
class Topology:
    switches: dict[str, Switch]
    links: list[Link]
    skipped: list[Skipped]
    # the drivers this host's kernel lacks (netns.kernel_lacks() probes them; without a probe: assume all missing)
    lacks: frozenset[str] = LAB_DRIVERS

    def unbuilt(self, *drivers: str) -> str:
        """Why something needing ``drivers`` is not built: the kernel lacks them, or (on a kernel that has them)
        the lab does not build it yet. Never a claim about a kernel that was not probed as lacking it."""
        missing = [d for d in drivers if d in self.lacks]
        if missing:
            return f'the kernel lacks {" and ".join(missing)}'
        return f'the lab does not build it yet (the kernel has {" and ".join(drivers)})'

    def uplinks(self, switch: str, to: str | None = None) -> list[Link]:
        """The links of ``switch`` (as ``a`` or ``b``), those to ``to`` only when given."""
        return [
            link
            for link in self.links
            if (link.a == switch and to in (None, link.b)) or (link.b == switch and to in (None, link.a))
        ]

    @property
    def spines(self) -> list[str]:
        return [name for name, s in self.switches.items() if s.role == 'spine']

    @property
    def leaves(self) -> list[str]:
        return [name for name, s in self.switches.items() if s.role != 'spine']


def build_topology(contexts: dict[str, dict[str, Any]], lacks: frozenset[str] = LAB_DRIVERS) -> Topology:
    """The lab's topology from ``{device name: aifabric context}`` (servers' contexts are ignored); ``lacks``: the
    kernel drivers the host lacks."""
    switches = {}
    for name, ctx in sorted(contexts.items()):
        if ctx.get('role') not in SWITCH_ROLES:
            continue
        vtep = ctx.get('vtep')
        switches[name] = Switch(
            name=name,
            role=ctx['role'],
            asn=ctx.get('asn'),
            router_id=ctx.get('router_id'),
            loopbacks=[(lo['name'], lo['address']) for lo in ctx.get('loopbacks') or []],
            vtep=str(ipaddress.ip_interface(vtep).ip) if vtep else None,
            l2vnis=[(v['vid'], v['l2vni']) for v in ctx.get('vlans') or [] if v.get('l2vni') and vtep],
            context=ctx,
        )
    links, skipped, seen = [], [], set()
    for name, switch in switches.items():
        for port in switch.context.get('interfaces') or []:
            peer = port.get('peer_device')
            if peer not in switches:
                continue  # a server port: the lab builds no server hosts (bonds, VLANs: see docs/lab.md)
            key = frozenset({(name, port['name']), (peer, port.get('peer_interface'))})
            if key in seen:
                continue
            seen.add(key)
            what = f'{name} {port["name"]} - {peer} {port.get("peer_interface")} ({port.get("kind")})'
            if port.get('lag'):
                skipped.append(Skipped(what, 'bonding', f'a member of {port["lag"]}: a LAG needs the bonding driver'))
                continue
            theirs = next(
                (p for p in switches[peer].context.get('interfaces') or [] if p['name'] == port.get('peer_interface')),
                None,
            )
            if theirs is None:
                skipped.append(Skipped(what, '', f'{peer} has no port {port.get("peer_interface")} in its context'))
                continue
            too_long = [n for n in (port['name'], theirs['name']) if len(n) > IFNAMSIZ]
            if too_long:
                skipped.append(
                    Skipped(what, '', f'Linux interface names have at most {IFNAMSIZ} characters: {too_long}')
                )
                continue
            links.append(
                Link(
                    a=name,
                    a_if=port['name'],
                    a_address=port.get('address'),
                    a_mtu=port.get('mtu') or 1500,
                    b=peer,
                    b_if=theirs['name'],
                    b_address=theirs.get('address'),
                    b_mtu=theirs.get('mtu') or 1500,
                )
            )
    # a LAG between two switches (the MLAG peer link) is not in `interfaces` by itself: its members are (above)
    return Topology(switches=switches, links=links, skipped=skipped, lacks=lacks)
