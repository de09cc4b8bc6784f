"""The lab's checks: what the contexts say must hold (``expectations``), judged on what FRR shows (``evaluate``).

Pure: the state is the parsed JSON of ``vtysh -c 'show bgp neighbors json'``, ``'show ip route json'`` and ``'show
bgp l2vpn evpn route type multicast json'`` per switch. Each result is a named ``Check`` with what was expected and
what was seen; ``not-verified-here`` marks what this host cannot build (a missing kernel driver), never a pass.
"""

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from netbox_aifabric.lab.topology import Link, Topology

__all__ = (
    'FAILED',
    'NOT_VERIFIED',
    'PASSED',
    'Check',
    'Expectations',
    'State',
    'converged',
    'convergence_check',
    'evaluate',
    'expectations',
    'leaf_pings',
    'not_verified',
    'unnumbered_pings',
)

PASSED, FAILED, NOT_VERIFIED = 'passed', 'failed', 'not-verified-here'
IPV4_ICMP_HEADERS, IPV6_ICMP_HEADERS = 28, 48  # IP + ICMP headers: what a ping of MTU bytes leaves for its payload
State = Mapping[str, Any]  # {switch: {'neighbors', 'routes', 'type3', 'bfd': the parsed vtysh JSON}}


@dataclass
class Check:
    name: str
    kind: str  # bgp, route, mtu, reachability, evpn, convergence, or the feature not verified
    status: str
    expected: str
    seen: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Session:
    switch: str
    address: str | None  # None: an unnumbered session (RFC 5549), on ``interface``'s IPv6 link-local address
    peer: str
    remote_asn: int
    what: str  # 'uplink', 'evpn', ...
    interface: str | None = None  # the local port of an unnumbered session
    peer_router_id: str | None = None  # an unnumbered session's far end must be this router (the plan's cabling)

    @property
    def key(self) -> str:
        """How bgpd names the session in ``show bgp neighbors json``: the address, or the interface's name."""
        return self.address or self.interface or '?'

    @property
    def label(self) -> str:
        unnumbered = ', unnumbered' if self.address is None else ''
        return f'bgp {self.switch} -> {self.peer} {self.key} ({self.what}{unnumbered})'


@dataclass(frozen=True)
class Route:
    switch: str
    prefix: str
    owner: str
    nexthops: int
    why: str


@dataclass(frozen=True)
class Type3:
    switch: str
    origin: str
    router_id: str | None
    vtep: str | None
    vni: int


@dataclass
class Expectations:
    sessions: list[Session] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    type3: list[Type3] = field(default_factory=list)
    unverified: list[Check] = field(default_factory=list)


def expectations(topology: Topology) -> Expectations:
    """What must hold once the fabric has converged, from the contexts alone."""
    exp = Expectations()
    built_ports = {(link.a, link.a_if) for link in topology.links} | {(link.b, link.b_if) for link in topology.links}
    for name, switch in topology.switches.items():
        bgp = switch.context.get('bgp') or {}
        for n in bgp.get('neighbors') or []:
            session = _session(topology, name, n)
            if (name, n.get('interface')) in built_ports:
                exp.sessions.append(session)
            else:
                # the MLAG peer session runs over the peer-link LAG, whose members the topology skipped
                driver = next((s.driver for s in topology.skipped if n['peer'] in s.what and name in s.what), '')
                exp.unverified.append(
                    Check(
                        name=f'bgp {name} -> {n["peer"]} {session.key} ({n.get("kind")} over {n.get("interface")})',
                        kind='bgp',
                        status=NOT_VERIFIED,
                        expected='Established',
                        seen=f'not built: {n.get("interface")} is a LAG; {topology.unbuilt(driver)}'
                        if driver
                        else f'not built: no lab link for {n.get("interface")}',
                    )
                )
        for p in bgp.get('evpn_peers') or []:
            exp.sessions.append(Session(name, p['address'], p['peer'], p['remote_asn'], 'evpn'))

    for name in topology.leaves:
        leaf = topology.switches[name]
        ebgp = not leaf.context.get('ospf')
        uplinks = topology.uplinks(name)
        for other, switch in topology.switches.items():
            if other == name:
                continue
            for address in sorted(switch.loopback_addresses - leaf.loopback_addresses):
                prefix = f'{address}/32'
                if switch.role == 'spine':
                    n = len(topology.uplinks(name, other))
                    if n:
                        exp.routes.append(Route(name, prefix, other, n, f'{n} direct uplink(s) to {other}'))
                    continue
                if ebgp and switch.asn == leaf.asn:
                    exp.unverified.append(
                        Check(
                            name=f'route {name} -> {other} {prefix}',
                            kind='route',
                            status=NOT_VERIFIED,
                            expected=f'reachable over the MLAG peer session ({name} and {other} share AS {leaf.asn})',
                            seen='not built: through the spines eBGP drops it (AS loop: the same AS in the path); '
                            'only the MLAG peer session over the peer-link LAG carries it; '
                            + topology.unbuilt('bonding'),
                        )
                    )
                    continue
                spines = sorted({link.b if link.a == name else link.a for link in uplinks})
                exp.routes.append(
                    Route(
                        name, prefix, other, len(uplinks), f'ECMP over {len(uplinks)} uplinks to {len(spines)} spines'
                    )
                )

    evpn = {
        n
        for n, s in topology.switches.items()
        if 'l2vpn-evpn' in ((s.context.get('bgp') or {}).get('address_families') or [])
    }
    for name in sorted(evpn):
        me = topology.switches[name]
        for origin, leaf in topology.switches.items():
            if not leaf.l2vnis:
                continue
            # a leaf gets another VTEP's type-3 routes; the leaves of an MLAG pair share one VTEP (anycast), and
            # share an AS: no type-3 route goes between them, each originates its own (checked on itself and spines)
            if origin != name and me.role != 'spine' and (leaf.vtep in me.loopback_addresses or leaf.asn == me.asn):
                continue
            for _, vni in leaf.l2vnis:
                exp.type3.append(Type3(name, origin, leaf.router_id, leaf.vtep, vni))
    return exp


def _session(topology: Topology, switch: str, n: Mapping[str, Any]) -> Session:
    """A context neighbour as a session to judge; an unnumbered one (no address) by its interface, its far end
    known by the peer's router id."""
    kind = n.get('kind') or 'underlay'
    if n['address'] is not None:
        return Session(switch, n['address'], n['peer'], n['remote_asn'], kind)
    peer = topology.switches.get(n['peer'])
    router_id = peer.router_id if peer else None
    return Session(switch, None, n['peer'], n['remote_asn'], kind, n.get('interface'), router_id)


def _neighbor_state(state: State, session: Session) -> tuple[str | None, str]:
    """(bgpd's state, what was seen); an unnumbered session up with another router than the plan's: 'wrong peer'."""
    n = ((state.get(session.switch) or {}).get('neighbors') or {}).get(session.key)
    if not n:
        return None, 'not configured in bgpd'
    seen = f'{n.get("bgpState")}, remote AS {n.get("remoteAs")}'
    for key in ('lastNotificationReason', 'lastResetDueTo'):
        if n.get(key) and n.get('bgpState') != 'Established':
            seen += f', {key} {n[key]!r}'
            break
    if session.address is not None or n.get('bgpState') != 'Established':
        return n.get('bgpState'), seen
    # an interface peer is whoever answers on the link: the far end's router id tells whether it is the plan's
    seen += f', on {n.get("bgpNeighborAddr")} (link-local), router id {n.get("remoteRouterId")}'
    if n.get('remoteRouterId') != session.peer_router_id:
        return 'wrong peer', seen + f", not {session.peer}'s {session.peer_router_id}"
    return 'Established', seen


def _active_nexthops(state: State, route: Route) -> tuple[int | None, str]:
    entries = ((state.get(route.switch) or {}).get('routes') or {}).get(route.prefix) or []
    chosen = next((e for e in entries if e.get('selected')), None)
    if not chosen:
        return None, 'no route' if not entries else f'{len(entries)} route(s), none selected'
    hops = [h for h in chosen.get('nexthops') or [] if h.get('active') and h.get('fib')]
    where = ', '.join(f'{h.get("ip", "?")} via {h.get("interfaceName", "?")}' for h in hops)
    return len(hops), f'{chosen.get("protocol")}: {len(hops)} next hop(s) in the FIB: {where}'


def _type3_seen(state: State, t: Type3) -> tuple[bool, str]:
    table = (state.get(t.switch) or {}).get('type3') or {}
    for rd, routes in table.items():
        if not isinstance(routes, dict) or not rd.startswith(f'{t.router_id}:'):
            continue
        for prefix, route in routes.items():
            if not isinstance(route, dict) or f'[{t.vtep}]' not in prefix:
                continue
            for paths in route.get('paths') or []:
                for path in paths if isinstance(paths, list) else [paths]:
                    communities = (path.get('extendedCommunity') or {}).get('string', '')
                    if re.search(rf'RT:\S+:{t.vni}(\s|$)', communities):
                        return True, f'RD {rd} {prefix} {communities}'
    return False, f'no type-3 route with RD {t.router_id}:* for VTEP {t.vtep} and VNI {t.vni}'


def converged(exp: Expectations, state: State) -> bool:
    """Every session Established, every route with its next hops, every type-3 route there."""
    return (
        all(_neighbor_state(state, s)[0] == 'Established' for s in exp.sessions)
        and all(_active_nexthops(state, r)[0] == r.nexthops for r in exp.routes)
        and all(_type3_seen(state, t)[0] for t in exp.type3)
    )


def evaluate(exp: Expectations, state: State) -> list[Check]:
    results = []
    for s in exp.sessions:
        bgp_state, seen = _neighbor_state(state, s)
        expected = f'Established, remote AS {s.remote_asn}'
        if s.address is None:
            expected += f', on {s.interface} (IPv6 link-local), with {s.peer} (router id {s.peer_router_id})'
        results.append(
            Check(
                name=s.label,
                kind='bgp',
                status=PASSED if bgp_state == 'Established' else FAILED,
                expected=expected,
                seen=seen,
            )
        )
    for r in exp.routes:
        nexthops, seen = _active_nexthops(state, r)
        results.append(
            Check(
                name=f'route {r.switch} -> {r.owner} {r.prefix}',
                kind='route',
                status=PASSED if nexthops == r.nexthops else FAILED,
                expected=f'{r.nexthops} next hop(s): {r.why}',
                seen=seen,
            )
        )
    for t in exp.type3:
        found, seen = _type3_seen(state, t)
        results.append(
            Check(
                name=f'evpn type-3 {t.switch} <- {t.origin} VNI {t.vni}',
                kind='evpn',
                status=PASSED if found else FAILED,
                expected=f'an IMET route from {t.origin} (RD {t.router_id}:*, VTEP {t.vtep}) for VNI {t.vni}',
                seen=seen,
            )
        )
    return results + exp.unverified


def leaf_pings(topology: Topology, exp: Expectations) -> list[tuple[str, str, str, str | None, int]]:
    """(leaf, other leaf, source, target, MTU) for each leaf-to-leaf router-id route the lab expects."""
    out = []
    for r in exp.routes:
        leaf, other = topology.switches[r.switch], topology.switches[r.owner]
        if other.role == 'spine' or r.prefix != f'{other.router_id}/32' or not leaf.router_id:
            continue
        mtus = [min(link.a_mtu, link.b_mtu) for link in topology.uplinks(r.switch) + topology.uplinks(r.owner)]
        out.append((r.switch, r.owner, leaf.router_id, other.router_id, min(mtus)))
    return out


@dataclass(frozen=True)
class Ping:
    """A ping the lab sends on or across an unnumbered link (one without IPv4 addresses of its own)."""

    switch: str
    source: str  # an address of ``switch`` (``ping -I``), or its port for a link-local target
    target_switch: str
    target: str | None  # None: the far end's IPv6 link-local address on ``target_port``, read when the lab runs
    target_port: str | None
    size: int  # payload bytes: the MTU less the headers, not fragmented (``-M do``)
    name: str
    kind: str
    expected: str


def _unnumbered(link: Link) -> bool:
    return not link.a_address and not link.b_address


def unnumbered_pings(topology: Topology) -> list[Ping]:
    """What stands in for the jumbo ping of a numbered link on an unnumbered one: a jumbo IPv6 ping to the far end's
    link-local address (the link's MTU), and IPv4 from the leaf's router id to the spine's, routed over the link's IPv6
    next hop (RFC 5549 forwarding); per spine, one ping to each VTEP (an MLAG pair's shared one: whichever leaf
    answers)."""
    out: list[Ping] = []
    vteps: set[tuple[str, str]] = set()
    for link in (lk for lk in topology.links if _unnumbered(lk)):
        mtu = min(link.a_mtu, link.b_mtu)
        v6, v4 = mtu - IPV6_ICMP_HEADERS, mtu - IPV4_ICMP_HEADERS
        what = f'{link.a} {link.a_if} -> {link.b} {link.b_if}'
        expected = f"{v6} bytes + {IPV6_ICMP_HEADERS} of headers = MTU {mtu} to the far end's link-local address"
        out.append(
            Ping(link.a, link.a_if, link.b, None, link.b_if, v6, f'jumbo ping {what} (IPv6 link-local)', 'mtu',
                 f'{expected}, not fragmented (-M do), no loss')
        )  # fmt: skip
        leaf, spine = (link.a, link.b) if topology.switches[link.b].role == 'spine' else (link.b, link.a)
        me, them = topology.switches[leaf], topology.switches[spine]
        if not (me.router_id and them.router_id):
            continue
        routed = f'{v4} bytes + {IPV4_ICMP_HEADERS} = MTU {mtu}, IPv4 routed over an IPv6 link-local next hop, no loss'
        out.append(
            Ping(leaf, me.router_id, spine, them.router_id, None, v4,
                 f'loopback ping {leaf} {me.router_id} -> {spine} {them.router_id} (IPv6 next hop)', 'reachability',
                 routed)
        )  # fmt: skip
        if me.vtep and (spine, me.vtep) not in vteps:
            vteps.add((spine, me.vtep))
            out.append(
                Ping(spine, them.router_id, leaf, me.vtep, None, v4,
                     f'vtep ping {spine} {them.router_id} -> {me.vtep} (IPv6 next hop)', 'reachability', routed)
            )  # fmt: skip
    return out


def convergence_check(done: bool, seconds: float, timeout: float) -> Check:
    return Check(
        name='convergence',
        kind='convergence',
        status=PASSED if done else FAILED,
        expected=f'every session Established, every expected route and type-3 route in place and every BFD session '
        f'up within {timeout:g} s',
        seen=f'{seconds:.2f} s after the daemons started' if done else f'not converged after {timeout:g} s',
    )


def not_verified(topology: Topology) -> list[Check]:
    """What the lab does not build, per switch: it needs the vrf, bonding or 802.1Q drivers (each reason says
    whether the probed kernel lacks them or the lab does not build it yet)."""
    no_vrf, no_bond, no_l2 = topology.unbuilt('vrf'), topology.unbuilt('bonding'), topology.unbuilt('bonding', '8021q')
    results = []
    for s in topology.skipped:
        reason = f'not built: {s.reason}; {topology.unbuilt(s.driver)}'
        results.append(Check(f'link {s.what}', 'link', NOT_VERIFIED, 'built and up', reason))
    for name, switch in topology.switches.items():
        ctx = switch.context
        vrfs = [v for v in ctx.get('vrfs') or [] if v.get('l3vni')]
        if vrfs:
            results.append(
                Check(
                    f'evpn type-5 and L3VNI on {name}',
                    'vrf',
                    NOT_VERIFIED,
                    ', '.join(f'Vrf-{v["name"]} L3VNI {v["l3vni"]} with its type-5 routes' for v in vrfs),
                    f'not built: {no_vrf} (no VRF device for the L3VNI, bgpd keeps the VRF instance down)',
                )
            )
        gateways = [v for v in ctx.get('vlans') or [] if v.get('gateway')]
        if gateways:
            results.append(
                Check(
                    f'gateways and rack subnets on {name}',
                    'vlan',
                    NOT_VERIFIED,
                    ', '.join(f'Vlan{v["vid"]} {v["gateway"]}' for v in gateways) + ' up and their subnets announced',
                    'not built: gateway SVIs and tagged server ports need 802.1Q (8021q), the server bonds bonding '
                    f'({topology.unbuilt("8021q", "bonding")}); without them zebra has no connected route and bgpd '
                    'announces none of these subnets',
                )
            )
        bonds = [lag['name'] for lag in ctx.get('lags') or [] if lag.get('kind') == 'lag']
        if bonds:
            results.append(
                Check(
                    f'server bonds on {name}',
                    'bonding',
                    NOT_VERIFIED,
                    f'{len(bonds)} bond(s) ({", ".join(bonds[:4])}{", ..." if len(bonds) > 4 else ""}) with servers',
                    f'not built: {no_bond}; no server hosts, so no server-to-server ping, no anycast '
                    'gateway, no security matrix from the hosts',
                )
            )
        if switch.l2vnis:
            results.append(
                Check(
                    f'evpn data plane on {name}',
                    'evpn',
                    NOT_VERIFIED,
                    'server-to-server traffic over VXLAN between VTEPs',
                    f'not built: servers attach through bonds and 802.1Q trunks ({no_l2})',
                )
            )
        if ctx.get('management'):
            results.append(
                Check(
                    f'management VRF on {name}',
                    'vrf',
                    NOT_VERIFIED,
                    'VRF mgmt with the out-of-band address and its default route',
                    f"not built: {no_vrf} (and the management plane is the host's, not the frr.conf's)",
                )
            )
    return results
