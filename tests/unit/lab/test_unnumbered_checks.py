"""The lab's expectations and judgement for the unnumbered eBGP underlay (RFC 5549), without a kernel: sessions by
interface (FRR names an interface peer by its port in ``show bgp neighbors json``), the far end known by its router
id, the pings that stand in for the /31 jumbo ping, BFD peers by interface. Synthetic FRR JSON in the shapes FRR 8.4
printed in the lab (tests/unit/lab/test_unnumbered_lab.py boots them)."""

import pytest

from netbox_aifabric.facts.context import BFD_TIMERS
from netbox_aifabric.lab import FAILED, PASSED, build_topology
from netbox_aifabric.lab.bfd import bfd_converged, bfd_expectations, evaluate_bfd, parse_bfd_config
from netbox_aifabric.lab.checks import converged, evaluate, expectations, unnumbered_pings
from netbox_aifabric.lab.fabric import render_frr
from tests.render_fixtures import contexts_of, design_of, guide_contexts, guide_spec

pytestmark = pytest.mark.pure

UNNUMBERED = 'ebgp-unnumbered'


@pytest.fixture(autouse=True, scope='module')
def netbox_config_cache():
    """render_frr renders with NetBox's Jinja environment, which reads NetBox's configuration from its cache."""
    from django.core.cache import cache

    cache.add('config', {}, None)
    cache.add('config_version', None, None)


def unnumbered(guide: str, bfd: bool = False) -> dict:
    raw = guide_spec(guide)
    raw['underlay'] = UNNUMBERED
    contexts = contexts_of(raw, design_of(guide))
    for ctx in contexts.values():
        if bfd and ctx.get('role') in ('spine', 'leaf'):
            ctx['bfd'] = dict(BFD_TIMERS)
    return contexts


def planned_uplinks(contexts: dict) -> set[tuple[str, str, str]]:
    """(switch, local port, peer) of every uplink session of the contexts: by other means than the lab's."""
    return {
        (name, n['interface'], n['peer'])
        for name, ctx in contexts.items()
        for n in (ctx.get('bgp') or {}).get('neighbors') or []
        if n['kind'] == 'uplink'
    }


def established(session, router_id=None):
    """``show bgp neighbors json`` of an interface peer as FRR 8.4 prints it (keyed by the port)."""
    return {
        'bgpState': 'Established',
        'remoteAs': session.remote_asn,
        'bgpNeighborAddr': 'fe80::1',
        'remoteRouterId': router_id or session.peer_router_id,
    }


def test_sessions_are_expected_by_interface_with_the_peers_router_id():
    contexts = unnumbered('evpn-vxlan')
    exp = expectations(build_topology(contexts))
    uplinks = [s for s in exp.sessions if s.what == 'uplink']
    assert {(s.switch, s.interface, s.peer) for s in uplinks} == planned_uplinks(contexts)
    assert all(s.address is None and s.key == s.interface for s in uplinks)
    assert {s.peer_router_id for s in uplinks} == {contexts[s.peer]['router_id'] for s in uplinks}
    assert 'bgp leaf1 -> spine1 Ethernet65 (uplink, unnumbered)' in {s.label for s in uplinks}
    # the overlay stays loopback to loopback, the MLAG peer session numbered (over the LAG: not verified here)
    assert {s.address for s in exp.sessions if s.what == 'evpn'} == {'10.255.0.1', '10.255.0.2', '10.255.0.5',
                                                                     '10.255.0.6'}  # fmt: skip
    assert [c.name for c in exp.unverified if c.kind == 'bgp'] == [
        'bgp leaf1 -> leaf2 10.255.3.1 (mlag-peer over Port-Channel1000)',
        'bgp leaf2 -> leaf1 10.255.3.0 (mlag-peer over Port-Channel1000)',
    ]


def test_judged_by_interface_and_far_end():
    """Established with the planned router passes; not in bgpd, not Established, or Established with another router
    than the plan's (a miswired link: every spine shares one AS, so the remote AS alone would not tell) fails."""
    exp = expectations(build_topology(unnumbered('routed')))
    uplinks = [s for s in exp.sessions if s.what == 'uplink']
    state = {}
    for s in uplinks:
        state.setdefault(s.switch, {'neighbors': {}, 'routes': {}})['neighbors'][s.key] = established(s)
    results = {c.name: c for c in evaluate(exp, state) if c.kind == 'bgp' and c.status != 'not-verified-here'}
    assert {c.status for c in results.values()} == {PASSED}
    assert 'router id 10.255.0.1' in results['bgp leaf1 -> spine1 Ethernet65 (uplink, unnumbered)'].seen
    missing, down, miswired = uplinks[:3]
    del state[missing.switch]['neighbors'][missing.key]
    state[down.switch]['neighbors'][down.key]['bgpState'] = 'Active'
    other = next(s.peer_router_id for s in uplinks if s.peer_router_id != miswired.peer_router_id)
    state[miswired.switch]['neighbors'][miswired.key] = established(miswired, router_id=other)
    results = {c.name: c for c in evaluate(exp, state) if c.kind == 'bgp'}
    assert sorted(n for n, c in results.items() if c.status == FAILED) == sorted(
        s.label for s in (missing, down, miswired)
    )
    assert results[missing.label].seen == 'not configured in bgpd'
    assert results[miswired.label].seen.endswith(f"not {miswired.peer}'s {miswired.peer_router_id}")
    assert not converged(exp, state)


def test_pings_stand_in_for_the_jumbo_ping_of_the_31():
    """Per unnumbered link: a jumbo IPv6 ping to the far end's link-local address and an IPv4 loopback ping routed
    over the IPv6 next hop; per spine, one ping to each VTEP. A numbered fabric gets none of them."""
    topology = build_topology(unnumbered('evpn-vxlan'))
    pings = unnumbered_pings(topology)
    links = topology.links
    assert len(links) == 4 and all(not (lk.a_address or lk.b_address) for lk in links)
    jumbo = [p for p in pings if p.kind == 'mtu']
    assert [(p.switch, p.source, p.target_switch, p.target_port, p.target) for p in jumbo] == [
        (lk.a, lk.a_if, lk.b, lk.b_if, None) for lk in links
    ]
    assert {p.size for p in jumbo} == {9216 - 48}
    loopback = {(p.switch, p.source, p.target) for p in pings if p.name.startswith('loopback ping')}
    switches = topology.switches
    assert loopback == {(lk.a, switches[lk.a].router_id, switches[lk.b].router_id) for lk in links}
    vtep = {(p.switch, p.target) for p in pings if p.name.startswith('vtep ping')}
    assert vtep == {(spine, '10.255.1.1') for spine in topology.spines}  # the MLAG pair's one VTEP
    assert unnumbered_pings(build_topology(guide_contexts('evpn-vxlan'))) == []


def test_bfd_peers_by_interface():
    """``neighbor <port> interface peer-group UNDERLAY`` with BFD on the group: a BFD session per uplink, found in
    ``show bfd peers json`` by its interface (its peer is the far end's link-local address)."""
    contexts = unnumbered('routed', bfd=True)
    configs = render_frr(contexts)
    assert ' neighbor Ethernet65 interface peer-group UNDERLAY' in configs['leaf1'].splitlines()
    assert parse_bfd_config(configs['leaf1'])['bgp'] == {'Ethernet65': 'AIFABRIC', 'Ethernet67': 'AIFABRIC',
                                                         '10.255.3.1': 'AIFABRIC'}  # fmt: skip
    sessions = [s for s in bfd_expectations(build_topology(contexts), configs) if s.built]
    assert {(s.switch, s.address, s.peer) for s in sessions} == planned_uplinks(contexts)
    state = {}
    for s in sessions:
        peer = {'peer': 'fe80::2', 'interface': s.address, 'status': 'up', 'transmit-interval': 300,
                'receive-interval': 300, 'detect-multiplier': 3}  # fmt: skip
        state.setdefault(s.switch, {'bfd': []})['bfd'].append(peer)
    assert {c.status for c in evaluate_bfd(sessions, state)} == {PASSED} and bfd_converged(sessions, state)
    first = sessions[0]
    state[first.switch]['bfd'] = [p for p in state[first.switch]['bfd'] if p['interface'] != first.address]
    assert [c.name for c in evaluate_bfd(sessions, state) if c.status == FAILED] == [
        f'bfd {first.switch} -> {first.peer} {first.address} ({first.why})'
    ]
