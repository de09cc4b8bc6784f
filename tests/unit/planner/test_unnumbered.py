"""The unnumbered eBGP underlay (RFC 5549): the same plan as the numbered one, less the uplinks' /31s.

Expectations come from the numbered plan of the same spec (the reference): loopbacks, VTEPs, ASNs and cables equal,
no ``uplink:`` allocation and no address on an uplink; the contexts carry one interface session per uplink end, to the
far end's ASN, and no IPv4 on the uplinks. Growth pins hold as for the numbered underlay."""

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netbox_aifabric.checks.engine import Facts
from netbox_aifabric.checks.fabric import check_unnumbered
from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.errors import SpecError
from tests.render_fixtures import contexts_of, design_of, guide_spec, unnumbered_spec
from tests.unit.planner.test_properties import FAST, fabrics

pytestmark = pytest.mark.pure

GUIDES = ('routed', 'mlag', 'evpn-vxlan', 'evpn-mh')


def _unnumbered(raw: dict) -> dict:
    raw = copy.deepcopy(raw)
    raw['underlay'] = 'ebgp-unnumbered'
    raw['pools'].pop('p2p', None)
    return raw


def _without_uplink_addresses(plan) -> tuple:
    allocations = tuple((k, v) for k, v in plan.allocations if not k.startswith('uplink:'))
    links = tuple(
        (lk.kind, lk.a_node, lk.a_interface, lk.b_node, lk.b_interface, lk.speed)
        + (() if lk.kind == 'uplink' else (lk.subnet, lk.a_address, lk.b_address))
        for lk in plan.links
    )
    nodes = tuple((n.name, n.asn, n.loopback, n.vtep) for n in plan.nodes)
    return allocations, links, nodes


@pytest.mark.parametrize('guide', GUIDES)
def test_the_unnumbered_plan_is_the_numbered_one_without_uplink_addresses(guide):
    numbered = plan_fabric(load_spec(guide_spec(guide)))
    unnumbered = plan_fabric(load_spec(unnumbered_spec(guide_spec(guide))))
    assert _without_uplink_addresses(unnumbered) == _without_uplink_addresses(numbered)
    uplinks = [lk for lk in unnumbered.links if lk.kind == 'uplink']
    assert len(uplinks) == len([lk for lk in numbered.links if lk.kind == 'uplink'])
    assert uplinks or guide == 'mlag'  # the MLAG guide is one leaf pair without spines
    assert all(lk.subnet is None and lk.a_address is None and lk.b_address is None for lk in uplinks)
    assert not [k for k, _ in unnumbered.allocations if k.startswith('uplink:')]
    assert 'p2p' not in {p.name for p in unnumbered.pools}


def test_a_p2p_pool_given_anyway_is_not_consumed():
    raw = unnumbered_spec(guide_spec('evpn-vxlan'))
    raw['pools']['p2p'] = '10.255.2.0/24'
    plan = plan_fabric(load_spec(raw))
    assert not [k for k, _ in plan.allocations if k.startswith('uplink:')]
    assert all(p.used == 0 for p in plan.pools if p.name == 'p2p')


def test_the_unnumbered_underlay_still_needs_the_asns():
    raw = unnumbered_spec(guide_spec('routed'))
    del raw['leaf_asn_range']
    with pytest.raises(SpecError) as error:
        plan_fabric(load_spec(raw))
    assert error.value.field == 'leaf_asn_range'


@pytest.mark.parametrize('guide', GUIDES)
def test_every_uplink_end_has_one_interface_session_to_the_far_ends_asn(guide):
    raw = unnumbered_spec(guide_spec(guide))
    plan = plan_fabric(load_spec(raw))
    contexts = contexts_of(raw, design_of(guide))
    asn = {n.name: n.asn for n in plan.nodes}
    expected = set()
    for lk in plan.links:
        if lk.kind == 'uplink':
            expected |= {(lk.a_node, lk.a_interface, lk.b_node), (lk.b_node, lk.b_interface, lk.a_node)}
    found = set()
    for name, ctx in contexts.items():
        if ctx['node_id'] is None:
            continue
        assert ctx['bgp']['unnumbered'] is True
        for n in ctx['bgp']['neighbors']:
            if n['kind'] == 'uplink':
                assert n['address'] is None and n['remote_asn'] == asn[n['peer']]
                found.add((name, n['interface'], n['peer']))
            else:
                assert n['kind'] == 'mlag-peer' and n['address']  # the MLAG peer session stays numbered
        for port in ctx['interfaces']:
            assert port['unnumbered'] is (port['kind'] == 'uplink')
            if port['kind'] == 'uplink':
                assert port['address'] is None
    assert found == expected


def test_numbered_contexts_say_numbered():
    contexts = contexts_of(guide_spec('evpn-vxlan'), 'evpn-vxlan')
    switches = [c for c in contexts.values() if c['node_id'] is not None]
    assert switches and all(c['bgp']['unnumbered'] is False for c in switches)
    assert all(not p['unnumbered'] for c in switches for p in c['interfaces'])


def _facts(contexts, plan=None):
    return Facts(fabric='f', contexts=contexts, plan=plan)


def test_the_unnumbered_rule_passes_the_plan_and_names_a_missing_and_a_wrong_session():
    raw = unnumbered_spec(guide_spec('evpn-vxlan'))
    contexts = contexts_of(raw, 'evpn-vxlan')
    assert list(check_unnumbered(_facts(contexts))) == []
    leaf = next(n for n, c in contexts.items() if c['role'] == 'leaf')
    sessions = contexts[leaf]['bgp']['neighbors']
    uplinks = [n for n in sessions if n['kind'] == 'uplink']
    dropped, wrong = uplinks[0], uplinks[1]
    sessions.remove(dropped)
    wrong['remote_asn'] += 1
    findings = list(check_unnumbered(_facts(contexts)))
    named = {(f.objects[0].name, f.found) for f in findings}
    assert named == {
        (dropped['interface'], 'none'),
        (wrong['interface'], f'{wrong["peer"]} (AS {wrong["remote_asn"]})'),
    }


def test_the_unnumbered_rule_names_an_address_on_an_uplink():
    contexts = contexts_of(unnumbered_spec(guide_spec('routed')), 'routed')
    spine = next(n for n, c in contexts.items() if c['role'] == 'spine')
    port = next(p for p in contexts[spine]['interfaces'] if p['kind'] == 'uplink')
    port['address'] = '10.255.2.0/31'
    findings = list(check_unnumbered(_facts(contexts)))
    assert [(f.objects[0].name, f.found) for f in findings] == [(port['name'], '10.255.2.0/31')]


@FAST
@given(fabrics())
def test_unnumbered_growth_keeps_every_allocation_and_cable(pair):
    small, big = (_unnumbered(spec) for spec in pair)
    previous = plan_fabric(load_spec(small))
    plan = plan_fabric(load_spec(big), previous=previous)
    after = dict(plan.allocations)
    assert {k: after[k] for k, _ in previous.allocations} == dict(previous.allocations)
    assert not [k for k in after if k.startswith('uplink:')]
    cables = {(lk.a_node, lk.a_interface, lk.b_node, lk.b_interface) for lk in previous.links}
    assert cables <= {(lk.a_node, lk.a_interface, lk.b_node, lk.b_interface) for lk in plan.links}


@FAST
@given(fabrics(), st.booleans())
def test_unnumbered_equals_numbered_less_the_uplink_addresses(pair, grown):
    spec = pair[grown]
    assert _without_uplink_addresses(plan_fabric(load_spec(_unnumbered(spec)))) == _without_uplink_addresses(
        plan_fabric(load_spec(spec))
    )
