"""What each NOS advertises into the default VRF's BGP, checked against the plan (not the context): in the routed and
MLAG designs every routed traffic class has one subnet per rack, and a leaf announces exactly its own rack's subnets
(and its loopbacks); a class that is not routed (``routed: false``, the routed guide's RDMA) appears nowhere: no
gateway, no ``network``, no address of its prefix.

Where a VLAN's VRF puts it: EOS and NVUE route a VLAN of a VRF without an L3VNI (the guide's MGMT) in a local VRF of
that name, so only the VLANs without a VRF are the default VRF's; SONiC keeps those VLANs in the default VRF
(templates/README.md), and FRR, its routing stack, announces them there. AVD's export redistributes the connected
gateways.
"""

import json
import re

import netaddr
import pytest
import yaml

from netbox_aifabric.render.avd import avd_structured_config
from tests.render_fixtures import contexts_of, guide_spec, plan_of, single_leaf_racks_spec

from .helpers import render

pytestmark = pytest.mark.pure

# (name, spec, fabric design): the guide's routed and MLAG designs, and the routed one with single-leaf racks.
SPECS = {
    'routed': (lambda: guide_spec('routed'), 'routed'),
    'mlag': (lambda: guide_spec('mlag'), 'mlag'),
    'routed-single-leaf-racks': (single_leaf_racks_spec, 'routed'),
}
CASES = [(name, leaf) for name in SPECS for leaf in ('leaf1', 'leaf2')]
ADDRESS = re.compile(r'\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b')


def build(name):
    make, design = SPECS[name]
    raw = make()
    return plan_of(raw), contexts_of(raw, design)


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
    bgp = yaml.safe_load(text)[0]['set']['vrf']['default']['router']['bgp']
    return set(bgp['address-family']['ipv4-unicast']['network'])


def unrouted_addresses(plan, text):
    """The addresses in ``text`` that fall into the prefix of a class that is not routed."""
    prefixes = [netaddr.IPNetwork(v.subnet) for v in plan.vlans if not v.routed and v.subnet]
    return [a for a in ADDRESS.findall(text) if any(netaddr.IPAddress(a) in p for p in prefixes)]


@pytest.mark.parametrize(('name', 'leaf'), CASES)
def test_bgp_networks_are_the_racks_routed_subnets(name, leaf):
    plan, contexts = build(name)
    ctx = contexts[leaf]
    racks = rack_subnets(plan, leaf)
    assert racks, 'the leaf has rack subnets'
    l3vni_vrfs = {vrf.name for vrf in plan.vrfs}
    default_vrf = {rack.subnet for vlan, rack in racks.items() if vlan.vrf is None}
    sonic_default_vrf = {rack.subnet for vlan, rack in racks.items() if vlan.vrf not in l3vni_vrfs}
    assert frr_networks(render('frr/frr.conf.j2', ctx)) == loopbacks(plan, leaf) | sonic_default_vrf
    assert eos_networks(render('eos/eos.cfg.j2', ctx)) == loopbacks(plan, leaf) | default_vrf
    assert nvue_networks(render('cumulus/startup.yaml.j2', ctx)) == loopbacks(plan, leaf) | default_vrf


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
