"""BFD in the lab (pure): the sessions each switch's rendered ``frr.conf`` asks for, judged on ``show bfd peers json``.

What a config asks for is read from the config itself, not from the context: a ``bfd`` block's profiles (their
transmit and receive intervals and detect multiplier), ``router bgp``'s ``neighbor <group> bfd [profile <p>]`` and
``neighbor <address> peer-group <group>`` / ``neighbor <address> bfd [profile <p>]``, and an ``interface``'s ``ip ospf
bfd [profile <p>]`` (its peer: the other end of that lab link). So a config that lost its BFD line on one side, or
names a profile it does not define, shows as that session's failure. FRR's defaults without a profile: 300 ms
transmit and receive, multiplier 3 (FRR's BFD documentation, docs.frrouting.org/en/latest/bfd.html).
"""

import ipaddress
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from netbox_aifabric.lab.checks import FAILED, NOT_VERIFIED, PASSED, Check, State
from netbox_aifabric.lab.topology import Topology

__all__ = ('BfdSession', 'bfd_converged', 'bfd_expectations', 'evaluate_bfd', 'parse_bfd_config', 'wants_bfd')

FRR_DEFAULT_TIMERS = (300, 300, 3)  # transmit-interval, receive-interval (ms), detect-multiplier


@dataclass(frozen=True)
class BfdSession:
    switch: str
    address: str  # the peer's address, as bfdd shows it (``peer``); an unnumbered session's interface
    peer: str  # the peer switch
    profile: str | None  # None: FRR's defaults
    timers: tuple[int, int, int] | None  # None: the profile is not defined in the config
    why: str  # 'bgp UNDERLAY', 'ospf Ethernet65'
    built: bool  # False: over a link the lab does not build (not verified)
    unbuilt: str = 'the kernel lacks bonding'  # why such a link is not built (Topology.unbuilt)


def wants_bfd(config: str) -> bool:
    return bool(re.search(r'^bfd$', config, re.M))


def _blocks(config: str) -> Iterator[tuple[str, list[str]]]:
    """``(header, [indented lines])`` for every top-level block."""
    header: str | None = None
    body: list[str] = []
    for line in config.splitlines():
        if not line.strip() or line.startswith('!'):
            continue
        if line[0] != ' ':
            if header is not None:
                yield header, body
            header, body = line.strip(), []
        elif header is not None:
            body.append(line.strip())
    if header is not None:
        yield header, body


def parse_bfd_config(config: str) -> dict[str, Any]:
    """``{'profiles': {name: timers}, 'bgp': {address: profile or ''}, 'ospf': {interface: profile or ''}}``: the
    BFD a config asks for ('' = BFD without a profile); an unnumbered BGP session goes by its interface's name."""
    profiles: dict[str, list[int]] = {}
    groups: dict[str, str] = {}  # peer-group: profile or ''
    members: dict[str, str] = {}  # address (or interface, unnumbered): peer-group
    direct: dict[str, str] = {}  # address or peer-group: profile or ''
    ospf: dict[str, str] = {}  # interface: profile or ''
    for header, body in _blocks(config):
        if header == 'bfd':
            name = None
            for line in body:
                words = line.split()
                if words[0] == 'profile':
                    name = words[1]
                    profiles[name] = list(FRR_DEFAULT_TIMERS)
                elif name and words[0] in ('transmit-interval', 'receive-interval', 'detect-multiplier'):
                    index = ('transmit-interval', 'receive-interval', 'detect-multiplier').index(words[0])
                    profiles[name][index] = int(words[1])
        elif re.fullmatch(r'router bgp \d+', header):  # the default instance only (not a VRF's)
            for line in body:
                found = re.fullmatch(r'neighbor (\S+) bfd(?: profile (\S+))?', line)
                if found:
                    direct[found[1]] = found[2] or ''
                # an unnumbered session is a member by its interface: `neighbor <port> interface peer-group <g>`
                found = re.fullmatch(r'neighbor (\S+) (?:interface )?peer-group (\S+)', line)
                if found:
                    members[found[1]] = found[2]
        elif header.startswith('interface '):
            for line in body:
                found = re.fullmatch(r'ip ospf bfd(?: profile (\S+))?', line)
                if found:
                    ospf[header.split()[1]] = found[1] or ospf.get(header.split()[1], '')
    for name, value in direct.items():
        if name not in members and not _is_address(name):
            groups[name] = value
    bgp = {a: direct.get(a, groups.get(g)) for a, g in members.items() if direct.get(a, groups.get(g)) is not None}
    bgp.update({a: p for a, p in direct.items() if _is_address(a)})
    return {'profiles': {k: tuple(v) for k, v in profiles.items()}, 'bgp': bgp, 'ospf': ospf}


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _timers(parsed: Mapping[str, Any], profile: str | None) -> tuple[int, int, int] | None:
    if not profile:
        return FRR_DEFAULT_TIMERS
    timers: tuple[int, int, int] | None = parsed['profiles'].get(profile)
    return timers


def bfd_expectations(topology: Topology, configs: dict[str, str]) -> list[BfdSession]:
    """Every BFD session the switches' configs ask for; ``built`` False when its link is not in the lab."""
    out = []
    for name, switch in topology.switches.items():
        parsed = parse_bfd_config(configs.get(name) or '')
        context_neighbors = (switch.context.get('bgp') or {}).get('neighbors') or []
        neighbors = {n['address'] or n['interface']: n for n in context_neighbors}  # unnumbered: by the interface
        built_ports = {link.a_if for link in topology.links if link.a == name}
        built_ports |= {link.b_if for link in topology.links if link.b == name}
        for address, profile in sorted(parsed['bgp'].items()):
            n = neighbors.get(address) or {}
            built = n.get('interface') in built_ports
            why = f'bgp {n.get("kind") or "neighbor"} over {n.get("interface") or "?"}'
            out.append(
                BfdSession(
                    name,
                    address,
                    n.get('peer', '?'),
                    profile or None,
                    _timers(parsed, profile),
                    why,
                    built,
                    topology.unbuilt('bonding'),
                )
            )
        for port, profile in sorted(parsed['ospf'].items()):
            link = next((lk for lk in topology.uplinks(name) if port == (lk.a_if if lk.a == name else lk.b_if)), None)
            if link is None:
                out.append(BfdSession(name, '?', '?', profile or None, _timers(parsed, profile), f'ospf {port}', False))
                continue
            peer, theirs = (link.b, link.b_address) if link.a == name else (link.a, link.a_address)
            address = str(ipaddress.ip_interface(theirs).ip) if theirs else '?'
            out.append(BfdSession(name, address, peer, profile or None, _timers(parsed, profile), f'ospf {port}', True))
    return out


def _peer_entry(state: State, session: BfdSession) -> dict[str, Any] | None:
    peers = (state.get(session.switch) or {}).get('bfd')
    if not isinstance(peers, list):
        return None
    if _is_address(session.address) or session.address == '?':
        return next((p for p in peers if isinstance(p, dict) and p.get('peer') == session.address), None)
    # an unnumbered session's peer is the far end's link-local address, on the session's interface
    return next((p for p in peers if isinstance(p, dict) and p.get('interface') == session.address), None)


def _judge(state: State, session: BfdSession) -> tuple[bool, str]:
    """(passed, seen)."""
    entry = _peer_entry(state, session)
    if entry is None:
        return False, 'no such peer in bfdd (show bfd peers json)'
    seen = (
        f'{entry.get("status")}, transmit {entry.get("transmit-interval")} ms, receive '
        f'{entry.get("receive-interval")} ms, multiplier {entry.get("detect-multiplier")}'
    )
    if entry.get('diagnostic') and entry.get('status') != 'up':
        seen += f', diagnostic {entry["diagnostic"]!r}'
    if session.timers is None:
        return False, seen + f'; profile {session.profile} is not defined in the config'
    got = (entry.get('transmit-interval'), entry.get('receive-interval'), entry.get('detect-multiplier'))
    return entry.get('status') == 'up' and got == session.timers, seen


def bfd_converged(sessions: list[BfdSession], state: State) -> bool:
    return all((_peer_entry(state, s) or {}).get('status') == 'up' for s in sessions if s.built)


def evaluate_bfd(sessions: list[BfdSession], state: State) -> list[Check]:
    results = []
    for s in sessions:
        name = f'bfd {s.switch} -> {s.peer} {s.address} ({s.why})'
        profile = f'profile {s.profile}' if s.profile else 'no profile (FRR defaults)'
        timers = (
            f'transmit {s.timers[0]} ms, receive {s.timers[1]} ms, multiplier {s.timers[2]}'
            if s.timers
            else 'the profile defined in the config'
        )
        expected = f'up, {profile}: {timers}'
        if not s.built:
            why = f'not built: its link is not in the lab (a LAG, as the MLAG peer link: {s.unbuilt})'
            results.append(Check(name, 'bfd', NOT_VERIFIED, expected, why))
            continue
        passed, seen = _judge(state, s)
        results.append(Check(name, 'bfd', PASSED if passed else FAILED, expected, seen))
    return results
