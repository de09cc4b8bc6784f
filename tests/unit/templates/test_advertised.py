"""What each NOS advertises into the default VRF's BGP, checked against the plan and the spec (not the context): in the
routed and MLAG designs every routed traffic class has one subnet per rack, and a leaf announces exactly its own
rack's subnets (and its loopbacks); a class that is not routed (``routed: false``, the routed guide's RDMA) appears
nowhere: no gateway, no ``network``, no address of its prefix (an ACL may name the class's whole prefix: a deny
towards it).

One rule for every NOS (FRR, EOS, NVUE, SONiC's config_db gateways, the AVD export): a subnet is announced only if its
class's purpose is not a local one (``management`` and ``telemetry``: the spec's ``purpose``) and its VLAN's VRF
travels the fabric (no VRF, or a VRF with an L3VNI). The guide's MGMT and TELEMETRY are in VRF MGMT without L3VNI:
every NOS routes them in a local VRF and none announces them.
"""

import json
import re

import netaddr
import pytest

from netbox_aifabric.render.avd import avd_structured_config
from tests.render_fixtures import contexts_of, guide_spec, plan_of, single_leaf_racks_spec
from tests.unit.templates.helpers import load_yaml, render

pytestmark = pytest.mark.pure

# (name, spec, fabric design): the guide's routed and MLAG designs, and the routed one with single-leaf racks.
SPECS = {
    'routed': (lambda: guide_spec('routed'), 'routed'),
    'mlag': (lambda: guide_spec('mlag'), 'mlag'),
    'routed-single-leaf-racks': (single_leaf_racks_spec, 'routed'),
}
CASES = [(name, leaf) for name in SPECS for leaf in ('leaf1', 'leaf2')]
ADDRESS = re.compile(r'\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b')


LOCAL_PURPOSES = ('management', 'telemetry')  # the guide: "Do not mix with user access"; never announced


def build(name):
    make, design = SPECS[name]
    raw = make()
    return plan_of(raw), contexts_of(raw, design)


def spec_of(name):
    return SPECS[name][0]()


def announced(plan, raw, leaf):
    """The rack subnets ``leaf`` announces, from the plan and the spec's purposes: routed on its rack, not a local
    purpose, in the default VRF or an L3VNI VRF."""
    purpose = {tc['name']: tc['purpose'] for tc in raw['traffic_classes']}
    l3vni_vrfs = {vrf.name for vrf in plan.vrfs}
    return {
        rack.subnet
        for vlan, rack in rack_subnets(plan, leaf).items()
        if purpose[vlan.name] not in LOCAL_PURPOSES and (vlan.vrf is None or vlan.vrf in l3vni_vrfs)
    }


def rack_subnets(plan, leaf):
    """``{VlanPlan: RackSubnet}`` of the routed classes on ``leaf``'s rack, from the plan."""
    return {vlan: rack for vlan in plan.vlans if vlan.routed for rack in vlan.racks if leaf in rack.leaves}


def loopbacks(plan, leaf):
    node = next(n for n in plan.nodes if n.name == leaf)
    return {node.loopback} | ({node.vtep} if node.vtep else set())


def frr_networks(text):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r'router bgp \d+', line))
    family = lines.index(' address-family ipv4 unicast', start)
    end = lines.index(' exit-address-family', family)
    return {line.split()[1] for line in lines[family:end] if line.startswith('  network ')}


def eos_networks(text):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r'router bgp \d+', line))
    family = lines.index('   address-family ipv4', start)
    found = set()
    for line in lines[family + 1 :]:
        if not line.startswith('      '):
            break
        if line.startswith('      network '):
            found.add(line.split()[1])
    return found


def nvue_networks(text):
    bgp = load_yaml(text)[0]['set']['vrf']['default']['router']['bgp']
    return set(bgp['address-family']['ipv4-unicast']['network'])


def unrouted_addresses(plan, text):
    """The addresses in ``text`` that fall into the prefix of a class that is not routed, other than the prefix itself
    (``10.40.0.0/24`` in a gateway ACL's deny towards the class)."""
    prefixes = [netaddr.IPNetwork(v.subnet) for v in plan.vlans if not v.routed and v.subnet]
    for prefix in prefixes:
        text = text.replace(str(prefix), '')
    return [a for a in ADDRESS.findall(text) if any(netaddr.IPAddress(a) in p for p in prefixes)]


def avd_networks(ctx):
    return {n['prefix'] for n in avd_structured_config(ctx)['router_bgp']['address_family_ipv4']['networks']}


@pytest.mark.parametrize(('name', 'leaf'), CASES)
def test_bgp_networks_are_the_racks_routed_subnets(name, leaf):
    plan, contexts = build(name)
    ctx = contexts[leaf]
    subnets = announced(plan, spec_of(name), leaf)
    assert subnets and subnets < {rack.subnet for rack in rack_subnets(plan, leaf).values()}  # MGMT is left out
    expected = loopbacks(plan, leaf) | subnets
    assert frr_networks(render('frr/frr.conf.j2', ctx)) == expected
    assert eos_networks(render('eos/eos.cfg.j2', ctx)) == expected
    assert nvue_networks(render('cumulus/startup.yaml.j2', ctx)) == expected
    assert avd_networks(ctx) == expected


@pytest.mark.parametrize(('name', 'leaf'), CASES)
def test_context_advertise_is_the_rule(name, leaf):
    """The context's ``advertise`` flags say the same as the plan and the spec."""
    plan, contexts = build(name)
    flagged = {v['subnet'] for v in contexts[leaf]['vlans'] if v['advertise']}
    assert flagged == announced(plan, spec_of(name), leaf)


@pytest.mark.parametrize(('name', 'leaf'), CASES)
def test_gateways_are_the_racks(name, leaf):
    plan, contexts = build(name)
    ctx = contexts[leaf]
    gateways = {f'Vlan{vlan.vid}|{rack.gateway}' for vlan, rack in rack_subnets(plan, leaf).items()}
    db = json.loads(render('sonic/config_db.json.j2', ctx))
    assert {key for key in db['VLAN_INTERFACE'] if '|' in key and not key.startswith('Vlan4094|')} == gateways
    svis = avd_structured_config(ctx).get('vlan_interfaces', [])
    key = 'ip_address_virtual' if ctx['mlag'] else 'ip_address'  # VARP on a pair, a plain address on one leaf
    assert {f'{svi["name"]}|{svi[key]}' for svi in svis if svi['name'] != 'Vlan4094'} == gateways


@pytest.mark.parametrize(('name', 'leaf'), CASES)
@pytest.mark.parametrize(
    'template', ['frr/frr.conf.j2', 'eos/eos.cfg.j2', 'cumulus/startup.yaml.j2', 'sonic/config_db.json.j2']
)
def test_unrouted_class_appears_nowhere(name, leaf, template):
    plan, contexts = build(name)
    if not any(not v.routed for v in plan.vlans):
        pytest.skip(f'every class is routed in {name}')
    assert unrouted_addresses(plan, render(template, contexts[leaf])) == []


def test_other_racks_subnets_are_not_announced():
    plan, contexts = build('routed-single-leaf-racks')
    mine, theirs = rack_subnets(plan, 'leaf1'), rack_subnets(plan, 'leaf2')
    assert not {r.subnet for r in mine.values()} & {r.subnet for r in theirs.values()}
    text = render('frr/frr.conf.j2', contexts['leaf1'])
    assert not {r.subnet for r in theirs.values()} & frr_networks(text)


def frr_prefix_list(text, name='AIFABRIC-ADVERTISE'):
    """The prefixes ``ip prefix-list <name>`` permits in a rendered frr.conf: what AIFABRIC-UNDERLAY-OUT sends as
    the switch's own routes."""
    pattern = re.compile(rf'ip prefix-list {re.escape(name)} seq \d+ permit (\S+)')
    return {m.group(1) for m in pattern.finditer(text)}


@pytest.mark.parametrize(('name', 'leaf'), CASES)
def test_frr_prefix_list_is_the_plans_loopbacks_and_rack_subnets(name, leaf):
    """FRR's outbound policy permits exactly the leaf's loopbacks and its rack's advertised subnets (plan + spec),
    and the route-map that applies it is on the underlay sessions."""
    plan, contexts = build(name)
    text = render('frr/frr.conf.j2', contexts[leaf])
    assert frr_prefix_list(text) == loopbacks(plan, leaf) | announced(plan, spec_of(name), leaf)
    lines = text.splitlines()
    assert '  neighbor UNDERLAY route-map AIFABRIC-UNDERLAY-OUT out' in lines
    out = lines[lines.index('route-map AIFABRIC-UNDERLAY-OUT permit 10') :]
    assert ' match ip address prefix-list AIFABRIC-ADVERTISE' in out[:3]


@pytest.mark.parametrize('guide', ['evpn-vxlan', 'evpn-mh'])
def test_frr_type5_prefix_lists_are_the_plans_subnets(guide):
    """EVPN leaves: each L3VNI VRF exports as type-5 exactly the plan's subnets of that VRF whose class is announced."""
    raw = guide_spec(guide)
    plan = plan_of(raw)
    contexts = contexts_of(raw, 'evpn-vxlan')
    purpose = {tc['name']: tc['purpose'] for tc in raw['traffic_classes']}
    for vrf in plan.vrfs:
        expected = {
            v.subnet for v in plan.vlans if v.vrf == vrf.name and v.routed and purpose[v.name] not in LOCAL_PURPOSES
        }
        for leaf in ('leaf1', 'leaf2'):
            text = render('frr/frr.conf.j2', contexts[leaf])
            assert expected and frr_prefix_list(text, f'AIFABRIC-ADVERTISE-Vrf-{vrf.name}') == expected
            assert f'  advertise ipv4 unicast route-map AIFABRIC-TYPE5-Vrf-{vrf.name}' in text.splitlines()
