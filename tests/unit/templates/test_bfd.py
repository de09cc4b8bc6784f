"""BFD (the fabric's ``bfd`` field): the context carries the timers on every switch, and each NOS binds them to the
single-hop underlay sessions only (the UNDERLAY and MLAG-peer BGP sessions, OSPF on the uplinks), never to the
multihop EVPN overlay. Expectations come from the context (the neighbours and uplinks it lists); FRR's parser and
bfdd's handlers check the FRR output (tests/frr.py), pyavd the EOS ``router bfd`` block; BFD off renders no BFD
line on any NOS (the negative control)."""

import copy
import json
import re
from functools import cache

import pytest
import yaml

from netbox_aifabric.facts.context import BFD_TIMERS, build_contexts
from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.render.avd import avd_structured_config
from netbox_aifabric.render.filters import interface as nos_interface
from tests.frr import check_frr_config, frr_available
from tests.render_fixtures import DESIGNS, ROOT, guide_intent
from tests.unit.templates.helpers import block, load_yaml, render

pytestmark = pytest.mark.pure

UNDERLAYS = ('ebgp', 'ospf')
NOS = ('frr/frr.conf.j2', 'eos/eos.cfg.j2', 'cumulus/startup.yaml.j2', 'sonic/config_db.json.j2')


@cache
def _contexts(design, underlay, bfd):
    spec = yaml.safe_load((ROOT / 'examples' / f'guide-{design}.yaml').read_text())
    if underlay == 'ospf':
        spec['underlay'] = 'ospf'
        spec.pop('leaf_asn_range', None)
    intent = guide_intent(design, underlay)
    intent['bfd'] = bfd
    return json.dumps(build_contexts(plan_fabric(load_spec(spec)), intent))


def contexts(design, underlay, bfd=True):
    return json.loads(_contexts(design, underlay, bfd))


def switches(design, underlay, bfd=True):
    return [(name, ctx) for name, ctx in contexts(design, underlay, bfd).items() if ctx['role'] in ('spine', 'leaf')]


CASES = [(design, underlay) for design in DESIGNS for underlay in UNDERLAYS]


@pytest.mark.parametrize(('design', 'underlay'), CASES)
def test_context_carries_the_timers_on_switches_only(design, underlay):
    for ctx in contexts(design, underlay).values():
        assert ctx['bfd'] == (BFD_TIMERS if ctx['role'] in ('spine', 'leaf') else None)
    assert all(ctx['bfd'] is None for ctx in contexts(design, underlay, bfd=False).values())


def _underlay_uplinks(ctx):
    return [i['name'] for i in ctx['interfaces'] if ctx['ospf'] and i['name'] in ctx['ospf']['interfaces']]


@pytest.mark.parametrize(('design', 'underlay'), CASES)
def test_frr_binds_bfd_to_the_underlay_sessions_only(design, underlay):
    for name, ctx in switches(design, underlay):
        text = render('frr/frr.conf.j2', ctx)
        lines = text.splitlines()
        timers = ctx['bfd']
        assert lines[lines.index('bfd') : lines.index('bfd') + 5] == [
            'bfd',
            ' profile AIFABRIC',
            f'  transmit-interval {timers["min_tx"]}',
            f'  receive-interval {timers["min_rx"]}',
            f'  detect-multiplier {timers["multiplier"]}',
        ], name
        kinds = {n['kind'] for n in (ctx['bgp'] or {}).get('neighbors', [])}
        underlay_bgp = kinds - {'mlag-peer'}
        assert (' neighbor UNDERLAY bfd profile AIFABRIC' in lines) == bool(ctx['bgp'] and underlay_bgp), name
        assert (' neighbor MLAG-PEER bfd profile AIFABRIC' in lines) == ('mlag-peer' in kinds), name
        assert ' neighbor OVERLAY bfd profile AIFABRIC' not in lines
        assert lines.count(' ip ospf bfd profile AIFABRIC') == len(_underlay_uplinks(ctx)), name
        for uplink in _underlay_uplinks(ctx):
            interface = lines[lines.index(f'interface {uplink}') :]
            assert ' ip ospf bfd profile AIFABRIC' in interface[: interface.index('exit')], (name, uplink)


@pytest.mark.skipif(not frr_available(), reason="FRR's vtysh and daemons are not installed")
@pytest.mark.parametrize(('design', 'underlay'), CASES)
def test_frr_accepts_bfd(design, underlay):
    """vtysh's grammar and the daemons' handlers (bfdd's profile, bgpd's and ospfd's bindings) accept the output."""
    for name, ctx in switches(design, underlay):
        result = check_frr_config(render('frr/frr.conf.j2', ctx))
        assert result.ok, f'{name}: {result.output}'


def test_frr_rejects_a_broken_bfd_line():
    """Negative control: the same check fails on a BFD line FRR does not know."""
    if not frr_available():
        pytest.skip("FRR's vtysh and daemons are not installed")
    name, ctx = switches('mlag', 'ebgp')[0]
    text = render('frr/frr.conf.j2', ctx).replace('  detect-multiplier 3', '  detect-multiplier three')
    assert not check_frr_config(text).ok


@pytest.mark.parametrize(('design', 'underlay'), CASES)
def test_eos_router_bfd_equals_pyavd_and_binds_the_underlay(design, underlay):
    pyavd = pytest.importorskip('pyavd')
    for name, ctx in switches(design, underlay):
        ours = render('eos/eos.cfg.j2', ctx)
        theirs = pyavd.get_device_config(avd_structured_config(ctx))
        assert [line.strip() for line in block(ours, 'router bfd')] == [
            line.strip() for line in block(theirs, 'router bfd')
        ], name
        kinds = {n['kind'] for n in (ctx['bgp'] or {}).get('neighbors', [])}
        bgp_lines = {line.strip() for line in block(ours, f'router bgp {ctx["bgp"]["asn"]}')} if ctx['bgp'] else set()
        assert ('neighbor UNDERLAY bfd' in bgp_lines) == bool(kinds - {'mlag-peer'}), name
        assert ('neighbor MLAG-PEER bfd' in bgp_lines) == ('mlag-peer' in kinds), name
        assert 'neighbor EVPN-OVERLAY bfd' not in bgp_lines
        if ctx['ospf']:
            assert 'bfd default' in {line.strip() for line in block(ours, 'router ospf 1')}, name
            assert 'bfd default' in {line.strip() for line in block(theirs, 'router ospf 100')}, name


@pytest.mark.parametrize(('design', 'underlay'), CASES)
def test_nvue_sets_bfd_on_each_underlay_neighbour_and_ospf_uplink(design, underlay):
    expected = {'enable': True, 'detect-multiplier': 3, 'min-rx-interval': 300, 'min-tx-interval': 300}
    for name, ctx in switches(design, underlay):
        config = load_yaml(render('cumulus/startup.yaml.j2', ctx))[0]['set']
        neighbors = (config['vrf']['default']['router'].get('bgp') or {}).get('neighbor', {})
        underlay_addresses = {n['address'] for n in (ctx['bgp'] or {}).get('neighbors', [])}
        assert {a for a, n in neighbors.items() if n.get('bfd') == expected} == underlay_addresses, name
        ospf_bfd = {
            interface
            for interface, body in config['interface'].items()
            if ((body.get('router') or {}).get('ospf') or {}).get('bfd')
            == {'enable': True, 'detect-multiplier': 3, 'min-receive-interval': 300, 'min-transmit-interval': 300}
        }
        assert ospf_bfd == {nos_interface(uplink, 'nvue') for uplink in _underlay_uplinks(ctx)}, name


@pytest.mark.parametrize(('design', 'underlay'), CASES)
@pytest.mark.parametrize('template', NOS)
def test_no_bfd_line_without_bfd(design, underlay, template):
    """Negative control: with the field off no NOS renders a BFD line (comments aside)."""
    for name, ctx in switches(design, underlay, bfd=False):
        text = render(template, ctx)
        assert not [line for line in text.splitlines() if re.search(r'\bbfd\b', line) and not line.startswith('!')], (
            name
        )


def test_changing_the_timers_changes_every_nos():
    """The templates print the context's timers, not constants of their own."""
    ctx = copy.deepcopy(contexts('evpn-vxlan', 'ospf')['leaf1'])
    assert ctx['ospf'] and ctx['bgp']
    ctx['bfd'] = {'min_tx': 150, 'min_rx': 200, 'multiplier': 5}
    assert '  transmit-interval 150' in render('frr/frr.conf.j2', ctx)
    assert '   interval 150 min-rx 200 multiplier 5 default' in render('eos/eos.cfg.j2', ctx)
    nvue = render('cumulus/startup.yaml.j2', ctx)
    assert 'detect-multiplier: 5' in nvue and 'min-receive-interval: 200' in nvue  # OSPF uplinks
    ctx = copy.deepcopy(contexts('evpn-vxlan', 'ebgp')['leaf1'])
    ctx['bfd'] = {'min_tx': 150, 'min_rx': 200, 'multiplier': 5}
    assert 'min-rx-interval: 200' in render('cumulus/startup.yaml.j2', ctx)  # BGP neighbours
