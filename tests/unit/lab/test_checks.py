"""The lab's topology and judgement, without a kernel: what it builds and expects from the guide's contexts, and
how it judges FRR's JSON (a session not Established, a narrower ECMP, a missing type-3 route fail)."""

import pytest

from netbox_aifabric.lab import FAILED, NOT_VERIFIED, PASSED, build_topology
from netbox_aifabric.lab.bfd import bfd_converged, bfd_expectations, evaluate_bfd, parse_bfd_config
from netbox_aifabric.lab.checks import evaluate, expectations
from netbox_aifabric.lab.fabric import render_frr
from tests.render_fixtures import contexts_of, guide_contexts, guide_spec, ospf_spec, single_leaf_racks_spec

pytestmark = pytest.mark.pure


@pytest.fixture(autouse=True, scope='module')
def netbox_config_cache():
    """render_frr renders with NetBox's Jinja environment, which reads NetBox's configuration from its cache: warm
    it without the database (as tests/unit/templates/conftest.py does)."""
    from django.core.cache import cache

    cache.add('config', {}, None)
    cache.add('config_version', None, None)


def by_name(results):
    return {c.name: c for c in results}


def test_routed_guide_topology():
    topo = build_topology(guide_contexts('routed'))
    assert sorted(topo.switches) == ['leaf1', 'leaf2', 'spine1', 'spine2']  # servers are not built
    assert sorted(link.name for link in topo.links) == [
        'leaf1 Ethernet65 - spine1 Ethernet1',
        'leaf1 Ethernet67 - spine2 Ethernet1',
        'leaf2 Ethernet65 - spine1 Ethernet3',
        'leaf2 Ethernet67 - spine2 Ethernet3',
    ]
    assert {(link.a_mtu, link.b_mtu) for link in topo.links} == {(9216, 9216)}
    # the MLAG peer link: two members of a LAG, not built without the bonding driver
    assert [(s.what.split(' (')[0], s.driver) for s in topo.skipped] == [
        ('leaf1 Ethernet73 - leaf2 Ethernet73', 'bonding'),
        ('leaf1 Ethernet74 - leaf2 Ethernet74', 'bonding'),
    ]


def test_routed_guide_expectations():
    exp = expectations(build_topology(guide_contexts('routed')))
    assert len(exp.sessions) == 8 and {s.what for s in exp.sessions} == {'uplink'}
    assert {(r.switch, r.owner, r.nexthops) for r in exp.routes} == {
        ('leaf1', 'spine1', 1),
        ('leaf1', 'spine2', 1),
        ('leaf2', 'spine1', 1),
        ('leaf2', 'spine2', 1),
    }
    unverified = by_name(exp.unverified)
    assert unverified['bgp leaf1 -> leaf2 10.255.3.1 (mlag-peer over Port-Channel1000)'].seen.endswith('lacks bonding')
    assert 'AS loop' in unverified['route leaf1 -> leaf2 10.255.0.6/32'].seen
    assert {c.status for c in exp.unverified} == {NOT_VERIFIED}


def test_single_leaf_racks_expect_ecmp_over_every_spine():
    exp = expectations(build_topology(contexts_of(single_leaf_racks_spec(), 'routed')))
    assert {(r.switch, r.owner, r.nexthops) for r in exp.routes if r.owner.startswith('leaf')} == {
        ('leaf1', 'leaf2', 2),
        ('leaf2', 'leaf1', 2),
    }


def test_evpn_guide_expects_type3_per_l2vni_and_leaf_on_every_spine():
    exp = expectations(build_topology(guide_contexts('evpn-vxlan')))
    spine1 = {(t.origin, t.vni) for t in exp.type3 if t.switch == 'spine1'}
    assert spine1 == {(leaf, vni) for leaf in ('leaf1', 'leaf2') for vni in (10010, 10020, 10030, 10040, 10050)}
    # the pair shares one VTEP and one AS: each leaf checks its own type-3 routes only
    assert {t.origin for t in exp.type3 if t.switch == 'leaf1'} == {'leaf1'}
    assert {s.what for s in exp.sessions} == {'uplink', 'evpn'} and len(exp.sessions) == 16


def state(neighbors=None, routes=None):
    return {'leaf1': {'neighbors': neighbors or {}, 'routes': routes or {}}}


def test_a_session_not_established_fails_with_what_bgpd_said():
    exp = expectations(build_topology(guide_contexts('routed')))
    exp.routes, exp.unverified = [], []
    exp.sessions = [s for s in exp.sessions if s.switch == 'leaf1']
    seen = {
        '10.255.2.0': {'bgpState': 'Established', 'remoteAs': 65100},
        '10.255.2.4': {
            'bgpState': 'Active',
            'remoteAs': 65199,
            'lastNotificationReason': 'OPEN Message Error/Bad Peer AS',
        },
    }
    results = by_name(evaluate(exp, state(neighbors=seen)))
    assert results['bgp leaf1 -> spine1 10.255.2.0 (uplink)'].status == PASSED
    bad = results['bgp leaf1 -> spine2 10.255.2.4 (uplink)']
    assert bad.status == FAILED
    assert bad.expected == 'Established, remote AS 65100'
    assert bad.seen == "Active, remote AS 65199, lastNotificationReason 'OPEN Message Error/Bad Peer AS'"


def test_narrower_ecmp_fails():
    exp = expectations(build_topology(contexts_of(single_leaf_racks_spec(), 'routed')))
    exp.sessions, exp.unverified = [], []
    exp.routes = [r for r in exp.routes if (r.switch, r.owner) == ('leaf1', 'leaf2')]
    hop = {'ip': '10.255.2.0', 'interfaceName': 'Ethernet65', 'active': True, 'fib': True}
    route = {'10.255.0.6/32': [{'protocol': 'bgp', 'selected': True, 'nexthops': [hop]}]}
    [result] = evaluate(exp, state(routes=route))
    assert result.status == FAILED
    assert result.expected == '2 next hop(s): ECMP over 2 uplinks to 2 spines'
    assert result.seen == 'bgp: 1 next hop(s) in the FIB: 10.255.2.0 via Ethernet65'
    hop2 = dict(hop, ip='10.255.2.4', interfaceName='Ethernet67')
    route['10.255.0.6/32'][0]['nexthops'].append(hop2)
    assert evaluate(exp, state(routes=route))[0].status == PASSED
    assert evaluate(exp, state())[0].seen == 'no route'


def test_missing_type3_route_fails():
    exp = expectations(build_topology(guide_contexts('evpn-vxlan')))
    exp.sessions, exp.routes, exp.unverified = [], [], []
    exp.type3 = [t for t in exp.type3 if t.switch == 'spine1' and t.origin == 'leaf2' and t.vni == 10020]
    path = {'extendedCommunity': {'string': 'RT:65101:10020 ET:8'}}
    table = {'10.255.0.6:4': {'rd': '10.255.0.6:4', '[3]:[0]:[32]:[10.255.1.1]': {'paths': [[path]]}}}
    assert evaluate(exp, {'spine1': {'type3': table}})[0].status == PASSED
    path['extendedCommunity']['string'] = 'RT:65101:10030 ET:8'  # another VNI's route only
    result = evaluate(exp, {'spine1': {'type3': table}})[0]
    assert result.status == FAILED
    assert result.seen == 'no type-3 route with RD 10.255.0.6:* for VTEP 10.255.1.1 and VNI 10020'


# BFD: the sessions the rendered configs ask for, judged on `show bfd peers json` (FRR 8.4's fields)


def bfd_contexts(design='routed', underlay='ebgp'):
    from netbox_aifabric.facts.context import BFD_TIMERS

    raw = guide_spec(design)
    if underlay == 'ospf':
        raw = ospf_spec(raw)
    contexts = contexts_of(raw, design)
    for ctx in contexts.values():
        if ctx.get('role') in ('spine', 'leaf'):
            ctx['bfd'] = dict(BFD_TIMERS)
    return contexts


def bfd_peer(peer, status='up', tx=300, rx=300, mult=3):
    return {'peer': peer, 'status': status, 'transmit-interval': tx, 'receive-interval': rx, 'detect-multiplier': mult}


def test_bfd_expectations_from_the_rendered_ebgp_configs():
    contexts = bfd_contexts()
    configs = render_frr(contexts)
    sessions = bfd_expectations(build_topology(contexts), configs)
    # from the contexts by other means: every underlay neighbour; those over a built link verified
    wanted = {(n, b['address'], b['peer']) for n, c in contexts.items() if c.get('bfd') for b in c['bgp']['neighbors']}
    assert {(s.switch, s.address, s.peer) for s in sessions} == wanted
    assert {s.timers for s in sessions} == {(300, 300, 3)} and {s.profile for s in sessions} == {'AIFABRIC'}
    assert {s.peer for s in sessions if not s.built} == {'leaf1', 'leaf2'}  # the MLAG peer session: a LAG
    assert bfd_expectations(build_topology(contexts), render_frr(guide_contexts('routed'))) == []  # BFD off


def test_bfd_expectations_on_an_ospf_underlay_follow_the_uplinks():
    contexts = bfd_contexts(underlay='ospf')
    topology = build_topology(contexts)
    sessions = bfd_expectations(topology, render_frr(contexts))
    ospf = [s for s in sessions if s.why.startswith('ospf')]
    assert len(ospf) == 2 * len(topology.links)  # one per end of every fabric link
    by = {(s.switch, s.why): s for s in ospf}
    link = topology.links[0]
    assert by[(link.a, f'ospf {link.a_if}')].address == link.b_address.split('/')[0]


def test_bfd_judgement_up_down_missing_and_wrong_timers():
    contexts = bfd_contexts()
    configs = render_frr(contexts)
    topology = build_topology(contexts)
    sessions = [s for s in bfd_expectations(topology, configs) if s.built]
    state = {s.switch: {'bfd': []} for s in sessions}
    for s in sessions:
        state[s.switch]['bfd'].append(bfd_peer(s.address))
    assert {c.status for c in evaluate_bfd(sessions, state)} == {PASSED} and bfd_converged(sessions, state)
    first, second, third = sessions[:3]
    state[first.switch]['bfd'] = [p for p in state[first.switch]['bfd'] if p['peer'] != first.address]
    next(p for p in state[second.switch]['bfd'] if p['peer'] == second.address)['status'] = 'down'
    next(p for p in state[third.switch]['bfd'] if p['peer'] == third.address)['transmit-interval'] = 1000
    results = by_name(evaluate_bfd(sessions, state))
    failed = sorted(name for name, c in results.items() if c.status == FAILED)
    assert failed == sorted(f'bfd {s.switch} -> {s.peer} {s.address} ({s.why})' for s in (first, second, third))
    assert not bfd_converged(sessions, state)


def test_bfd_a_profile_the_config_does_not_define_fails_that_session():
    config = 'bfd\n profile A\n  transmit-interval 100\n exit\nexit\nrouter bgp 1\n neighbor G peer-group\n'
    config += ' neighbor G bfd profile A\n neighbor 10.0.0.1 peer-group G\n neighbor 10.0.0.3 peer-group G\n'
    config += ' neighbor 10.0.0.3 bfd profile B\n neighbor 10.0.0.5 remote-as 2\nexit\n'
    parsed = parse_bfd_config(config)
    assert parsed['profiles'] == {'A': (100, 300, 3)}
    assert parsed['bgp'] == {'10.0.0.1': 'A', '10.0.0.3': 'B'}  # 10.0.0.5: no BFD


def test_not_verified_says_lacking_only_for_drivers_the_kernel_lacks():
    """A reason never claims the kernel lacks a driver the probe found: on a kernel with every driver each
    not-verified check says the lab does not build it yet; on one without, that the kernel lacks it."""
    from netbox_aifabric.lab.checks import not_verified
    from netbox_aifabric.lab.topology import LAB_DRIVERS

    contexts = guide_contexts('evpn-vxlan')
    full = build_topology(contexts, lacks=frozenset())
    bare = build_topology(contexts, lacks=LAB_DRIVERS)
    checks_full = not_verified(full) + expectations(full).unverified
    checks_bare = not_verified(bare) + expectations(bare).unverified
    assert len(checks_full) == len(checks_bare) > 0  # the same things are left out either way
    assert not any('lacks' in c.seen for c in checks_full), [c.seen for c in checks_full if 'lacks' in c.seen]
    assert all('does not build it yet' in c.seen for c in checks_full)
    assert all('the kernel lacks' in c.seen for c in checks_bare)
    # only the missing driver is named as missing
    vrf_only = not_verified(build_topology(contexts, lacks=frozenset({'vrf'})))
    assert {c.kind: 'lacks vrf' in c.seen for c in vrf_only if c.kind in ('vrf', 'bonding')} == {
        'vrf': True,
        'bonding': False,
    }
