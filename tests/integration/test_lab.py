"""The fabric lab on the guide's designs: the rendered frr.conf of every switch booted in network namespaces with
FRR, and the negative controls it must catch (one wrong remote-as, one lowered MTU).

Needs root, network namespaces, iproute2, ping and Debian's FRR: skipped with the reason otherwise. DB-free.
"""

import os
import shutil
from pathlib import Path

import pytest

from netbox_aifabric.facts.context import BFD_TIMERS
from netbox_aifabric.lab import FAILED, NOT_VERIFIED, PASSED, run_lab
from netbox_aifabric.lab.fabric import render_frr
from netbox_aifabric.lab.netns import delete_namespace, own_namespaces, unavailable_reason
from tests.render_fixtures import contexts_of, guide_contexts, single_leaf_racks_spec

TIMEOUT = 30  # seconds to converge; the guide's fabrics take 2-4 s here


# Each lab run boots a fabric (3-4 s of CPU, 8-20 s of wall). `scripts/test -m pure` keeps three runs: BFD (bfdd,
# `show bfd peers`), EVPN's type-3 collection and a failing check (the lowered MTU). The other four are labelled slow
# and run in CI (scripts/test without -m pure, or -m 'pure and slow'): their judgements (a session not established,
# narrower ECMP, a BFD profile not defined) are also tested on synthetic state in tests/unit/lab/test_checks.py; what
# only they run is a lab that never converges (the timeout) and keep=True (no teardown).
SLOW = pytest.mark.slow

pytestmark = [
    pytest.mark.pure,
    pytest.mark.lab,
    pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}'),
]


@pytest.fixture(autouse=True, scope='module')
def netbox_config_cache():
    """render_jinja2 reads NetBox's configuration from its cache: warm it without the database (as in
    tests/unit/templates/conftest.py)."""
    from django.core.cache import cache

    cache.add('config', {}, None)
    cache.add('config_version', None, None)


@pytest.fixture(autouse=True)
def nothing_left_behind():
    yield
    assert not own_namespaces(os.getpid())
    assert not [p for p in Path('/tmp').glob(f'aflab-{os.getpid()}-*')]


def lab(contexts, configs=None, timeout=TIMEOUT, **kwargs):
    return run_lab(contexts, configs or render_frr(contexts), timeout=timeout, **kwargs)


def by_status(result, status):
    return sorted(c.name for c in result.checks if c.status == status)


def by_name(result):
    return {c.name: c for c in result.checks}


def with_bfd(contexts):
    """The fabric's ``bfd`` on: every switch's context carries the timers (as facts/context.py builds them)."""
    for ctx in contexts.values():
        if ctx.get('role') in ('spine', 'leaf'):
            ctx['bfd'] = dict(BFD_TIMERS)
    return contexts


def test_routed_guide_with_bfd():
    """The guide's routed cluster with BFD on: bfdd beside zebra, staticd and bgpd, every underlay session's BFD peer
    up with the profile's timers (the MLAG peer's over the LAG: not verified here)."""
    contexts = with_bfd(guide_contexts('routed'))
    result = lab(contexts)
    assert not result.failed(), [c.as_dict() for c in result.failed()]
    assert result.ok and result.converged and result.convergence_seconds < TIMEOUT
    checks = by_name(result)
    sessions = [c for c in result.checks if c.kind == 'bgp' and c.status != NOT_VERIFIED]
    assert len(sessions) == 8 and all(c.seen.startswith('Established') for c in sessions)
    for leaf in ('leaf1', 'leaf2'):
        for spine, address in (('spine1', '10.255.0.1/32'), ('spine2', '10.255.0.2/32')):
            assert checks[f'route {leaf} -> {spine} {address}'].seen.startswith('bgp: 1 next hop(s) in the FIB')
    jumbo = [c for c in result.checks if c.name.startswith('jumbo ping')]
    assert len(jumbo) == 4 and all('-s 9188' in c.seen and ' 0% packet loss' in c.seen for c in jumbo)
    # the MLAG pair's peer link is a LAG: its iBGP session and what only it carries are not verified, never passed
    assert checks['bgp leaf1 -> leaf2 10.255.3.1 (mlag-peer over Port-Channel1000)'].status == NOT_VERIFIED
    assert checks['route leaf1 -> leaf2 10.255.0.6/32'].status == NOT_VERIFIED
    bfd = {c.name: c for c in result.checks if c.kind == 'bfd'}
    uplinks = {(n, b['address']) for n, c in contexts.items() if c.get('bfd') for b in c['bgp']['neighbors']
               if b['kind'] == 'uplink'}  # fmt: skip
    assert sorted((n.split()[1], n.split()[4]) for n, c in bfd.items() if c.status == PASSED) == sorted(uplinks)
    up = 'up, transmit 300 ms, receive 300 ms, multiplier 3'
    assert all(c.seen == up for c in bfd.values() if c.status == PASSED)
    assert [c.status for c in bfd.values() if 'mlag-peer' in c.name] == [NOT_VERIFIED] * 2
    assert result.seconds < 120


@SLOW
def test_negative_control_wrong_bfd_profile():
    """leaf1 binds its session to spine1 to a BFD profile its config does not define: exactly that BFD check fails
    (the session itself comes up, with FRR's defaults)."""
    contexts = with_bfd(guide_contexts('routed'))
    configs = render_frr(contexts)
    line = ' neighbor 10.255.2.0 peer-group UNDERLAY\n'
    assert line in configs['leaf1']
    configs['leaf1'] = configs['leaf1'].replace(line, line + ' neighbor 10.255.2.0 bfd profile WRONG\n')
    result = lab(contexts, configs)
    assert by_status(result, FAILED) == ['bfd leaf1 -> spine1 10.255.2.0 (bgp uplink over Ethernet65)']
    assert by_name(result)['bfd leaf1 -> spine1 10.255.2.0 (bgp uplink over Ethernet65)'].seen.endswith(
        'profile WRONG is not defined in the config'
    )


@SLOW
def test_single_leaf_racks_ecmp_over_both_spines_and_jumbo_loopback_pings():
    result = lab(contexts_of(single_leaf_racks_spec(), 'routed'))
    assert result.ok, [c.as_dict() for c in result.failed()]
    checks = by_name(result)
    assert checks['route leaf1 -> leaf2 10.255.0.6/32'].seen == (
        'bgp: 2 next hop(s) in the FIB: 10.255.2.0 via Ethernet65, 10.255.2.4 via Ethernet67'
    )
    assert checks['route leaf2 -> leaf1 10.255.0.5/32'].seen.startswith('bgp: 2 next hop(s)')
    ping = checks['loopback ping leaf1 10.255.0.5 -> leaf2 10.255.0.6']
    assert '-M do -s 9188 -I 10.255.0.5' in ping.seen and ' 0% packet loss' in ping.seen


def test_evpn_guide_type3_routes():
    result = lab(guide_contexts('evpn-vxlan'))
    assert result.ok, [c.as_dict() for c in result.failed()]
    type3 = [c for c in result.checks if c.kind == 'evpn' and c.status != NOT_VERIFIED]
    assert len(type3) == 30  # 5 L2VNIs: each leaf its own, each spine both leaves'
    assert len([c for c in result.checks if c.name.endswith('(evpn)')]) == 8
    assert by_name(result)['evpn type-5 and L3VNI on leaf1'].status == NOT_VERIFIED


@SLOW
def test_negative_control_wrong_remote_as():
    """One neighbour's remote-as changed in leaf1's rendered frr.conf: exactly that session fails, from both ends,
    and what depended on it (spine1's loopback from leaf1; convergence)."""
    contexts = guide_contexts('routed')
    configs = render_frr(contexts)
    assert ' neighbor 10.255.2.0 remote-as 65100\n' in configs['leaf1']
    configs['leaf1'] = configs['leaf1'].replace(
        ' neighbor 10.255.2.0 remote-as 65100\n', ' neighbor 10.255.2.0 remote-as 65199\n'
    )
    result = lab(contexts, configs, timeout=10)
    assert not result.ok
    assert by_status(result, FAILED) == [
        'bgp leaf1 -> spine1 10.255.2.0 (uplink)',
        'bgp spine1 -> leaf1 10.255.2.1 (uplink)',
        'convergence',
        'route leaf1 -> spine1 10.255.0.1/32',
    ]
    seen = by_name(result)['bgp leaf1 -> spine1 10.255.2.0 (uplink)'].seen
    assert seen.startswith(('Active', 'Idle', 'Connect', 'OpenSent')) and 'remote AS 65199' in seen


def test_negative_control_lowered_mtu():
    """One veth of leaf2 at 1500 instead of the context's 9216: the jumbo ping over that link fails, nothing else."""
    result = lab(guide_contexts('routed'), mtu_overrides={('leaf2', 'Ethernet67'): 1500})
    assert by_status(result, FAILED) == ['jumbo ping leaf2 Ethernet67 -> spine2 Ethernet3']
    assert '100% packet loss' in by_name(result)['jumbo ping leaf2 Ethernet67 -> spine2 Ethernet3'].seen or (
        'message too long' in by_name(result)['jumbo ping leaf2 Ethernet67 -> spine2 Ethernet3'].seen.lower()
    )


@SLOW
def test_keep_leaves_the_lab_running():
    kept = lab(guide_contexts('routed'), keep=True)
    try:
        assert set(own_namespaces(os.getpid())) == set(kept.namespaces.values())
        assert Path(kept.run_dir, 'leaf1', 'frr.conf').exists()
    finally:
        for ns in kept.namespaces.values():
            delete_namespace(ns)
        shutil.rmtree(kept.run_dir, ignore_errors=True)


def test_kernel_probe_names_what_fails_and_leaves_nothing(monkeypatch):
    """``kernel_lacks`` reports a driver lacking exactly when creating its device fails: a probe for a link kind no
    kernel has is reported, veth (which the lab itself needs) never is; its namespaces are gone afterwards."""
    from netbox_aifabric.lab import netns
    from netbox_aifabric.lab.topology import LAB_DRIVERS

    assert netns.kernel_lacks() <= LAB_DRIVERS
    probes = {
        'veth': [['link', 'add', 'p-a', 'type', 'veth', 'peer', 'name', 'p-b']],
        'no-such-kind': [['link', 'add', 'p-x', 'type', 'no-such-kind']],
    }
    monkeypatch.setattr(netns, '_DRIVER_PROBES', probes)
    assert netns.kernel_lacks() == {'no-such-kind'}
    assert own_namespaces(os.getpid()) == []
