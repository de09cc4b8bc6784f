"""The cabling facts (``netbox_aifabric.facts``): pure, and the one place the apply and the contexts take port names,
LAG memberships and link-borne BGP sessions from. Every expectation comes from the plan's links: each link end is one
port on its device, the two ends reference each other, a LAG's members are exactly the ports naming it, each
switch-to-switch link with addresses carries one session per end (eBGP) or only the MLAG peer's (OSPF)."""

import ast
import subprocess
import sys

import pytest

from netbox_aifabric.facts import PEER_LINK_LAG, SERVER_BOND, cabling_facts
from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.planner import load_spec, plan_fabric
from tests.render_fixtures import example_spec, guide_intent
from tests.unit.planner.helpers import ROOT
from tests.unit.planner.test_purity import FORBIDDEN

pytestmark = pytest.mark.pure

EXAMPLES = ('guide-mlag', 'guide-routed', 'guide-evpn-vxlan', 'guide-evpn-mh', 'size-m')


def plan_of(example, underlay=None):
    design = None
    if example.endswith('-as-routed'):  # a multi-rack routed variant: eight racks, one subnet each per class
        example, design = example.removesuffix('-as-routed'), 'routed'
    raw = example_spec(example)  # parsed once per process, a fresh copy per call
    if design:
        raw['design'] = design
        raw.pop('tenants', None)
    if underlay == 'ospf':
        raw['underlay'] = 'ospf'
        raw.pop('leaf_asn_range', None)
    return plan_fabric(load_spec(raw))


@pytest.mark.parametrize('example', EXAMPLES)
def test_every_link_end_is_one_port_and_the_ends_reference_each_other(example):
    plan = plan_of(example)
    facts = cabling_facts(plan)
    ends = sorted(
        (n, i) for link in plan.links for n, i in ((link.a_node, link.a_interface), (link.b_node, link.b_interface))
    )
    ports = sorted((device, port.name) for device, cabling in facts.items() for port in cabling.ports)
    assert ports == ends
    by_end = {(device, port.name): port for device, cabling in facts.items() for port in cabling.ports}
    for (device, name), port in by_end.items():
        far = by_end[port.peer_device, port.peer_interface]
        assert (far.peer_device, far.peer_interface) == (device, name)
        assert far.kind == port.kind and far.speed == port.speed


@pytest.mark.parametrize('example', EXAMPLES)
def test_lag_members_are_exactly_the_ports_naming_the_lag(example):
    plan = plan_of(example)
    switches = {n.name for n in plan.nodes}
    for device, cabling in cabling_facts(plan).items():
        named = {}
        for port in cabling.ports:
            if port.lag:
                named.setdefault(port.lag, []).append(port.name)
        assert {lag.name: list(lag.members) for lag in cabling.lags} == named, device
        for lag in cabling.lags:
            assert lag.peer_link == (lag.name == PEER_LINK_LAG)
            assert (lag.address is not None) == lag.peer_link  # the peer link's /31 sits on the LAG
            if device not in switches:
                assert lag.name == SERVER_BOND
    pairs = {(n.name, n.mlag_peer) for n in plan.nodes if n.mlag_peer}
    for leaf, _ in pairs:
        assert cabling_facts(plan)[leaf].peer_link is not None


@pytest.mark.parametrize('underlay', ('ebgp', 'ospf'))
@pytest.mark.parametrize('example', ('guide-mlag', 'guide-routed', 'guide-evpn-vxlan'))
def test_sessions_follow_the_underlay(example, underlay):
    plan = plan_of(example, underlay)
    switches = {n.name for n in plan.nodes}
    facts = cabling_facts(plan, ebgp=underlay == 'ebgp')
    expected = sorted(
        (me, peer)
        for link in plan.links
        if link.a_node in switches and link.b_node in switches and link.a_address
        if underlay == 'ebgp' or link.kind == 'mlag-peer'
        for me, peer in ((link.a_node, link.b_node), (link.b_node, link.a_node))
    )
    assert sorted((me, n.peer) for me, c in facts.items() for n in c.neighbors) == expected
    for cabling in facts.values():
        for session in cabling.neighbors:
            if session.kind == 'mlag-peer':
                assert session.interface == PEER_LINK_LAG


def test_platform_facts_land_on_the_role_s_ports_only():
    plan = plan_of('guide-evpn-vxlan')
    leaf = next(n for n in plan.nodes if n.role == 'leaf')
    port = next(p.name for p in cabling_facts(plan)[leaf.name].ports)
    facts = cabling_facts(plan, hardware={'leaf': {port: {'lanes': '1,2', 'alias': 'etp1', 'index': 1}}})
    carried = {(d, p.name) for d, c in facts.items() for p in c.ports if p.hardware}
    leaves = {n.name for n in plan.nodes if n.role == 'leaf' and port in {p.name for p in facts[n.name].ports}}
    assert carried == {(name, port) for name in leaves}


@pytest.mark.parametrize('example', ('guide-mlag', 'guide-evpn-mh'))
def test_the_contexts_are_the_facts(example):
    """Equivalence oracle: what the context lists per device is what the facts hold (names, LAGs, sessions)."""
    plan = plan_of(example)
    design = 'evpn-vxlan' if 'evpn' in example else example.removeprefix('guide-')
    contexts = build_contexts(plan, guide_intent(design))
    for device, cabling in cabling_facts(plan).items():
        ctx = contexts[device]
        assert sorted((i['name'], i['lag']) for i in ctx['interfaces']) == sorted(
            (p.name, p.lag) for p in cabling.ports
        )
        assert {lag['name']: lag['members'] for lag in ctx['lags']} == {g.name: list(g.members) for g in cabling.lags}
        if ctx['bgp']:
            assert sorted(n['address'] for n in ctx['bgp']['neighbors']) == sorted(n.address for n in cabling.neighbors)


def test_facts_import_only_stdlib_netaddr_yaml_and_the_package():
    allowed = set(sys.stdlib_module_names) | {'netaddr', 'yaml'}  # yaml: the shipped platform port files
    own = ('netbox_aifabric.planner', 'netbox_aifabric.facts')  # the pure steps only

    def permitted(module):
        return module.split('.')[0] in allowed or any(module == o or module.startswith(f'{o}.') for o in own)

    for path in sorted((ROOT / 'netbox_aifabric' / 'facts').glob('*.py')):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert permitted(node.module), f'{path.name} imports {node.module}'
            elif isinstance(node, ast.Import):
                assert all(a.name.split('.')[0] in allowed for a in node.names), path.name


def test_facts_run_with_django_and_netbox_blocked():
    code = f"""
import importlib.abc, sys, types, yaml
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {FORBIDDEN!r}:
            raise ImportError(name)
sys.meta_path.insert(0, Block())
package = types.ModuleType('netbox_aifabric')
package.__path__ = [{str(ROOT / 'netbox_aifabric')!r}]
sys.modules['netbox_aifabric'] = package
from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.facts import cabling_facts
plan = plan_fabric(load_spec(yaml.safe_load(open({str(ROOT / 'examples' / 'guide-mlag.yaml')!r}))))
print(sum(len(c.ports) for c in cabling_facts(plan).values()), 2 * len(plan.links))
"""
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env={'PATH': ''})
    assert result.returncode == 0, result.stderr
    count, expected = result.stdout.split()
    assert count == expected


@pytest.mark.parametrize('example', ('guide-mlag', 'guide-routed', 'guide-evpn-vxlan', 'size-m', 'size-m-as-routed'))
def test_leaf_vlans_follow_the_design(example):
    """EVPN: every routed VLAN has its one anycast gateway on every leaf; routed/MLAG: a rack's subnet only on that
    rack's leaves; management and telemetry are never announced (the plan's VLANs and racks are the expectation)."""
    from netbox_aifabric.facts import leaf_vlans

    plan = plan_of(example)
    purposes = {tc['name']: tc['purpose'] for tc in guide_intent('mlag')['traffic_classes']}
    for leaf in (n.name for n in plan.nodes if n.role == 'leaf'):
        vlans = {v.vid: v for v in leaf_vlans(plan, leaf, purposes, {}, 9216)}
        assert sorted(vlans) == sorted(v.vid for v in plan.vlans)
        for planned in plan.vlans:
            mine = vlans[planned.vid]
            racks = [r for r in planned.racks if leaf in r.leaves]
            if not planned.routed:
                assert mine.gateway is None
            elif racks:
                assert (mine.subnet, mine.gateway) == (racks[0].subnet, racks[0].gateway)
            elif not planned.racks:
                assert (mine.subnet, mine.gateway) == (planned.subnet, planned.gateway)
            if purposes.get(planned.name) in ('management', 'telemetry'):
                assert not mine.advertise
            assert mine.mtu == 9216


def test_qos_maps_come_from_the_classes_and_the_roce_marking():
    from netbox_aifabric.facts import qos_facts

    intent = guide_intent('mlag')
    facts = qos_facts(intent['qos'], intent['traffic_classes'])
    qos = intent['qos']
    for dscp, priority, tc in zip(qos['roce_dscp'], qos['roce_priority'], qos['roce_tc'], strict=True):
        assert facts.dscp_to_priority[dscp] == priority and facts.priority_to_tc[priority] == tc
    for cls in intent['traffic_classes']:
        for dscp in cls['dscp']:
            if dscp not in qos['roce_dscp'] and dscp != qos['cnp']['dscp'] and cls['priority'] is not None:
                assert facts.dscp_to_priority[dscp] == cls['priority']
    assert facts.as_context()['dscp_to_priority'] == {str(k): v for k, v in sorted(facts.dscp_to_priority.items())}
    assert qos_facts(None, intent['traffic_classes']) is None
