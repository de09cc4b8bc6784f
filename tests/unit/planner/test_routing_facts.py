"""The routing, MLAG and security facts (``facts.routing``, ``facts.security``): typed, pure, and each expectation
derived from the plan and the intent, not from today's output: EVPN peers are the other tier's loopbacks, an MLAG
pair shares one system MAC made of its primary's id, OSPF runs on exactly the uplinks and the loopbacks, an ACL denies
exactly the pairs the matrix forbids, the management plane admits only the jump hosts."""

import itertools

import pytest

from netbox_aifabric.facts import cabling_facts
from netbox_aifabric.facts.routing import MLAG_SYSTEM_MAC, bgp_facts, host, loopbacks, mlag_facts, ospf_facts
from netbox_aifabric.facts.security import (
    Management,
    class_acls,
    management_plane,
    pass_rules,
    reaches,
    security_classes,
)
from netbox_aifabric.facts.vlans import leaf_vlans
from tests.render_fixtures import guide_intent
from tests.unit.planner.test_facts import plan_of

pytestmark = pytest.mark.pure

OTHER_TIER = {'leaf': 'spine', 'spine': 'leaf'}


@pytest.mark.parametrize('example', ['guide-evpn-vxlan', 'guide-evpn-mh', 'size-m'])
def test_evpn_peers_are_the_other_tiers_loopbacks(example):
    plan = plan_of(example)
    cabling = cabling_facts(plan)
    for node in plan.nodes:
        bgp = bgp_facts(plan, node, cabling[node.name], evpn=True, ebgp=True)
        others = [n for n in plan.nodes if n.role == OTHER_TIER[node.role]]
        assert {(p.address, p.remote_asn, p.peer) for p in bgp.evpn_peers} == {
            (str(n.loopback).split('/')[0], n.asn, n.name) for n in others
        }
        assert bgp.address_families == ('ipv4-unicast', 'l2vpn-evpn')


def test_no_bgp_on_an_ospf_underlay_without_evpn():
    plan = plan_of('guide-routed', underlay='ospf')
    node = plan.nodes[0]
    assert bgp_facts(plan, node, cabling_facts(plan)[node.name], evpn=False, ebgp=False) is None


def test_an_mlag_pair_shares_one_system_mac_made_of_its_primarys_id():
    plan = plan_of('guide-mlag')
    nodes = {n.name: n for n in plan.nodes}
    cabling = cabling_facts(plan)
    pairs = [n for n in plan.nodes if n.mlag_peer]
    assert pairs, 'the MLAG guide has a pair'
    facts = {n.name: mlag_facts(nodes, n, cabling[n.name], '00:00:5e:00:01:01') for n in pairs}
    for node in pairs:
        mine, theirs = facts[node.name], facts[node.mlag_peer]
        primary = node if node.mlag_role == 'primary' else nodes[node.mlag_peer]
        assert (
            mine.system_mac == theirs.system_mac == MLAG_SYSTEM_MAC.format(high=primary.id >> 8, low=primary.id % 256)
        )
        # each end's peer address is the other end's own address on the peer link
        assert host(mine.peer_address) == host(theirs.local_address) or mine.peer_address == theirs.local_address
        assert mine.peer_loopback == host(nodes[node.mlag_peer].loopback)


def test_ospf_runs_on_exactly_the_uplinks_and_the_loopbacks():
    plan = plan_of('guide-evpn-vxlan', underlay='ospf')
    cabling = cabling_facts(plan, ebgp=False)
    for node in plan.nodes:
        uplinks = {
            link.a_interface if link.a_node == node.name else link.b_interface
            for link in plan.links
            if link.kind == 'uplink' and node.name in (link.a_node, link.b_node)
        }
        ospf = ospf_facts(node, cabling[node.name], loopbacks(node), (), ())
        assert set(ospf.interfaces) == uplinks | {lo.name for lo in loopbacks(node)}
        assert len(ospf.interfaces) == len(set(ospf.interfaces))


@pytest.mark.parametrize('design', ['routed', 'mlag', 'evpn-vxlan'])
def test_acls_deny_exactly_the_pairs_the_matrix_forbids(design):
    plan = plan_of(f'guide-{design}')
    intent = guide_intent(design)
    classes = security_classes(intent, plan)
    leaf = next(n for n in plan.nodes if n.role == 'leaf')
    purpose = {c.name: c.purpose or '' for c in classes}
    mtu = {c.name: 9000 for c in classes}
    acls = {acl.vlan: acl for acl in class_acls(classes, leaf_vlans(plan, leaf.name, purpose, mtu, 9000))}
    assert acls, 'the guide has classes sharing a VRF'
    by_vid = {c.vid: c for c in classes}
    for vid, acl in acls.items():
        me = by_vid[vid]
        peers = [c for c in classes if c.name != me.name and c.vrf == me.vrf and c.prefix]
        denied = {
            c.prefix
            for c in peers
            if not (
                reaches(me.name, c.name, c.reachability, c.reachable_from)
                or reaches(c.name, me.name, me.reachability, me.reachable_from)
            )
        }
        assert {r.destination for r in acl.rules if r.action == 'deny'} == denied
        assert acl.rules[-1].action == 'permit' and acl.rules[-1].destination == 'any'
        assert [r.seq for r in acl.rules] == [10 * i for i in range(1, len(acl.rules) + 1)]
        assert all(r.source == me.prefix for r in acl.rules)


@pytest.mark.parametrize('design', ['routed', 'mlag', 'evpn-vxlan'])
def test_one_table_priorities_keep_each_acl_first_match_then_the_passes(design):
    """In one table for every ACL (SONiC): priorities unique, descending in each ACL's rule order; then one pass per
    class with a prefix and no ACL here, below every ACL rule and above the table's DHCP (2) and default (1) rules."""
    plan = plan_of(f'guide-{design}')
    classes = security_classes(guide_intent(design), plan)
    leaf = next(n for n in plan.nodes if n.role == 'leaf')
    purpose = {c.name: c.purpose or '' for c in classes}
    vlans = leaf_vlans(plan, leaf.name, purpose, {c.name: 9000 for c in classes}, 9000)
    acls = class_acls(classes, vlans)
    rules = [r.priority for acl in acls for r in acl.rules]
    assert len(set(rules)) == len(rules)
    for acl in acls:
        assert [r.priority for r in acl.rules] == sorted((r.priority for r in acl.rules), reverse=True)
    passes = pass_rules(classes, acls, vlans)
    with_acl = {v.name for v in vlans if v.vid in {acl.vlan for acl in acls}}
    assert [p['name'] for p in passes] == [c.name for c in classes if c.prefix and c.name not in with_acl]
    assert all(2 < p['priority'] < min(rules) for p in passes)
    assert len({p['priority'] for p in passes}) == len(passes)
    assert pass_rules(classes, (), vlans) == []


@pytest.mark.parametrize('design', ['routed', 'evpn-vxlan'])
def test_bgp_numbers_what_the_switch_originates(design):
    """Prefix-list entries 10, 20, …: the loopbacks, then the advertised default-VRF subnets; per VRF its own; the
    underlay's distinct remote ASNs at 5, 10, … (FRR prints them as they are)."""
    plan = plan_of(f'guide-{design}')
    cabling = cabling_facts(plan)
    classes = security_classes(guide_intent(design), plan)
    purpose, mtu = {c.name: c.purpose or '' for c in classes}, {c.name: 9000 for c in classes}
    for node in plan.nodes:
        vlans = leaf_vlans(plan, node.name, purpose, mtu, 9000) if node.role == 'leaf' else ()
        vrfs = sorted({v.vrf for v in vlans if v.vrf})
        context = bgp_facts(plan, node, cabling[node.name], True, True, loopbacks(node), vlans, vrfs).as_context()
        default = [lo.address for lo in loopbacks(node)]
        default += [v.subnet for v in vlans if v.advertise and not v.l2vni and not v.vrf]
        assert context['advertise'] == [{'seq': 10 * (i + 1), 'prefix': p} for i, p in enumerate(default)]
        for entry, vrf in zip(context['vrf_advertise'], vrfs, strict=True):
            own = [v.subnet for v in vlans if v.advertise and v.vrf == vrf]
            assert entry == {'vrf': vrf, 'prefixes': [{'seq': 10 * (i + 1), 'prefix': p} for i, p in enumerate(own)]}
        asns = [n['remote_asn'] for n in context['neighbors']]
        assert [a['asn'] for a in context['remote_asns']] == sorted(set(asns), key=asns.index)
        assert [a['seq'] for a in context['remote_asns']] == [5 * (i + 1) for i in range(len(set(asns)))]


def test_the_management_plane_admits_only_the_jump_hosts():
    plan = plan_of('guide-routed')
    jump = ('192.0.2.0/28', '198.51.100.0/29')
    management = Management('mgmt', ('ssh',), jump, '10.0.0.1')
    for node, server in itertools.product(plan.nodes, (False, True)):
        plane = management_plane(management, None if server else node)
        assert plane.allowed_sources == jump
        assert plane.address == (None if server else node.management)
