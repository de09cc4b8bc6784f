"""The fabric lab on the unnumbered eBGP underlay (RFC 5549): the guide's fabrics rendered with ``ebgp-unnumbered``,
each switch's frr.conf booted in FRR in network namespaces over veth pairs without IPv4 addresses, the sessions on
the veths' IPv6 link-local addresses, the IPv4 routes over IPv6 next hops. The negative control: one uplink's
neighbour removed from leaf1's config fails exactly that session (both ends), what only it carries, and convergence.

Needs root, network namespaces, iproute2, ping and Debian's FRR: skipped with the reason otherwise. DB-free.
"""

import re

import pytest

from netbox_aifabric.facts.context import BFD_TIMERS
from netbox_aifabric.lab import FAILED, NOT_VERIFIED, PASSED, build_topology, run_lab
from netbox_aifabric.lab.fabric import render_frr
from netbox_aifabric.lab.netns import unavailable_reason
from tests.integration.test_lab import netbox_config_cache, nothing_left_behind  # noqa: F401  (autouse fixtures)
from tests.render_fixtures import contexts_of, design_of, guide_spec, single_leaf_racks_spec

pytestmark = [
    pytest.mark.pure,
    pytest.mark.lab,
    pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}'),
]

TIMEOUT = 40  # seconds to converge; 8-9 s here (router advertisements first, then the sessions)
LINK_LOCAL = re.compile(r'fe80::[0-9a-f:]+')


def unnumbered(raw: dict, design: str, bfd: bool = False) -> dict:
    raw['underlay'] = 'ebgp-unnumbered'
    contexts = contexts_of(raw, design)
    for ctx in contexts.values():
        if bfd and ctx.get('role') in ('spine', 'leaf'):
            ctx['bfd'] = dict(BFD_TIMERS)
    return contexts


def guide(name: str, bfd: bool = False) -> dict:
    return unnumbered(guide_spec(name), design_of(name), bfd)


def uplink_sessions(contexts: dict) -> set[tuple[str, str, str]]:
    """(switch, peer, local port) of every planned uplink session, from the contexts."""
    return {
        (name, n['peer'], n['interface'])
        for name, ctx in contexts.items()
        for n in (ctx.get('bgp') or {}).get('neighbors') or []
        if n['kind'] == 'uplink'
    }


def by_name(result):
    return {c.name: c for c in result.checks}


def failed(result):
    return sorted(c.name for c in result.checks if c.status == FAILED)


def test_evpn_guide_unnumbered():
    """The guide's EVPN cluster unnumbered: every uplink session Established on the link-local addresses with the
    planned spine or leaf (its router id), the overlay loopback to loopback, each leaf's route to each spine loopback
    over the link's IPv6 next hop, jumbo pings on the link-local addresses, IPv4 loopback and VTEP pings over the
    unnumbered links, every type-3 route; nothing failed."""
    contexts = guide('evpn-vxlan')
    result = run_lab(contexts, render_frr(contexts), timeout=TIMEOUT)
    assert failed(result) == [], [c.as_dict() for c in result.failed()]
    assert result.ok and result.converged
    checks = by_name(result)
    uplinks = uplink_sessions(contexts)
    assert len(uplinks) == 8
    for switch, peer, port in uplinks:
        check = checks[f'bgp {switch} -> {peer} {port} (uplink, unnumbered)']
        assert check.status == PASSED and LINK_LOCAL.search(check.seen), check.seen
        assert f'router id {contexts[peer]["router_id"]}' in check.seen
    evpn = [c for c in result.checks if c.name.endswith('(evpn)')]
    assert len(evpn) == 8 and {c.status for c in evpn} == {PASSED}
    topology = build_topology(contexts)
    for leaf in topology.leaves:
        for link in topology.uplinks(leaf):
            spine = link.b if link.a == leaf else link.a
            port = link.a_if if link.a == leaf else link.b_if
            route = checks[f'route {leaf} -> {spine} {contexts[spine]["router_id"]}/32'].seen
            assert re.fullmatch(rf'bgp: 1 next hop\(s\) in the FIB: fe80::[0-9a-f:]+ via {port}', route), route
    pings = [c for c in result.checks if 'ping' in c.name]
    assert len(pings) == 4 + 4 + 2 and {c.status for c in pings} == {PASSED}
    assert all('-M do -s 9168 fe80::' in c.seen for c in pings if c.kind == 'mtu')
    assert len([c for c in result.checks if c.kind == 'evpn' and c.status != NOT_VERIFIED]) == 30


def test_single_leaf_racks_unnumbered_ecmp_and_bfd():
    """Leaves in ASes of their own (a rack each), BFD on: each leaf's route to the other's loopback has one next hop
    per spine, each an IPv6 link-local address on its own uplink; the loopback ping between the leaves crosses two
    unnumbered links; every uplink's BFD peer is up on its interface with the profile's timers."""
    contexts = unnumbered(single_leaf_racks_spec(), 'routed', bfd=True)
    result = run_lab(contexts, render_frr(contexts), timeout=TIMEOUT)
    assert failed(result) == [], [c.as_dict() for c in result.failed()]
    checks = by_name(result)
    topology = build_topology(contexts)
    for leaf, other in (('leaf1', 'leaf2'), ('leaf2', 'leaf1')):
        seen = checks[f'route {leaf} -> {other} {contexts[other]["router_id"]}/32'].seen
        ports = sorted(lk.a_if if lk.a == leaf else lk.b_if for lk in topology.uplinks(leaf))
        assert len(ports) == len(topology.spines) == 2
        assert sorted(re.findall(r'fe80::[0-9a-f:]+ via (\S+?)(?:,|$)', seen)) == ports, seen
        ping = checks[f'loopback ping {leaf} {contexts[leaf]["router_id"]} -> {other} {contexts[other]["router_id"]}']
        assert ping.status == PASSED and ' 0% packet loss' in ping.seen
    bfd = {(c.name.split()[1], c.name.split()[3], c.name.split()[4]) for c in result.checks if c.kind == 'bfd'}
    assert bfd == uplink_sessions(contexts)
    up = 'up, transmit 300 ms, receive 300 ms, multiplier 3'
    assert {c.seen for c in result.checks if c.kind == 'bfd'} == {up}


def test_negative_control_an_uplink_neighbour_removed():
    """leaf1's session on Ethernet65 (to spine1) taken out of its rendered frr.conf: exactly that session fails from
    both ends, with leaf1's route to spine1's loopback, the IPv4 ping over that link, and convergence."""
    contexts = guide('routed')
    configs = render_frr(contexts)
    lines = [line for line in configs['leaf1'].splitlines() if line.startswith(' neighbor Ethernet65 ')]
    assert ' neighbor Ethernet65 interface peer-group UNDERLAY' in lines
    configs['leaf1'] = '\n'.join(
        line for line in configs['leaf1'].splitlines() if not line.startswith(' neighbor Ethernet65 ')
    )
    spine_port = next(lk.b_if for lk in build_topology(contexts).uplinks('leaf1', 'spine1'))
    result = run_lab(contexts, configs, timeout=15)
    assert not result.ok
    assert failed(result) == [
        'bgp leaf1 -> spine1 Ethernet65 (uplink, unnumbered)',
        f'bgp spine1 -> leaf1 {spine_port} (uplink, unnumbered)',
        'convergence',
        f'loopback ping leaf1 {contexts["leaf1"]["router_id"]} -> spine1 {contexts["spine1"]["router_id"]} '
        '(IPv6 next hop)',
        f'route leaf1 -> spine1 {contexts["spine1"]["router_id"]}/32',
    ]
    assert by_name(result)['bgp leaf1 -> spine1 Ethernet65 (uplink, unnumbered)'].seen == 'not configured in bgpd'
    # the link itself is fine: its IPv6 jumbo ping passes
    assert by_name(result)[f'jumbo ping leaf1 Ethernet65 -> spine1 {spine_port} (IPv6 link-local)'].status == PASSED


def test_a_kernel_without_ipv6_is_named(monkeypatch):
    """An unnumbered fabric on a kernel without IPv6 (``/proc/sys/net/ipv6`` missing) cannot run: the lab says why
    before it builds anything, instead of sessions that never come up."""
    from types import SimpleNamespace

    from netbox_aifabric.lab import LabUnavailable, runner

    monkeypatch.setattr(runner, 'Path', lambda *args: SimpleNamespace(is_dir=lambda: False))
    contexts = guide('routed')
    with pytest.raises(LabUnavailable, match='the kernel has no IPv6'):
        run_lab(contexts, render_frr(contexts), timeout=TIMEOUT)
