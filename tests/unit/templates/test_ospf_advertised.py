"""What each NOS announces in OSPF with an OSPF underlay (``underlay: ospf``, no leaf ASN range: no BGP at all in the
routed and MLAG designs), checked against the plan (not the context), as ``test_advertised.py`` checks BGP: every
leaf announces exactly its own rack's routed subnets, nothing of another rack and nothing of a class that is not
routed, and the gateways stay passive (no OSPF hello toward the servers).

How each NOS announces them (templates/README.md): FRR puts each gateway SVI (SONiC's ``VlanN``; its address is the
SONiC config_db's) in the area as ``ip ospf passive``; NVUE gives the SVI ``router ospf`` area and ``passive on``
(the subnet read here is the SVI's address or VRR address: on an MLAG pair FRR needs the SVI's own address in that
subnet, which the context does not have); EOS and the AVD export redistribute the connected routes through a route
map whose prefix list holds exactly the subnets. Which subnets: the BGP rule, one for every NOS (test_advertised.py):
not a local purpose (the spec's ``management``/``telemetry``), and a VLAN without VRF (the OSPF designs have no L3VNI
VRF); the guide's MGMT and TELEMETRY are routed in a local VRF MGMT and announced by no NOS.
"""

import json
import os
import re
from functools import cache
from pathlib import Path

import jsonschema
import netaddr
import pytest

from netbox_aifabric.render.avd import avd_structured_config
from tests import frr
from tests.render_fixtures import contexts_of, guide_spec, ospf_spec, plan_of, single_leaf_racks_spec
from tests.unit.templates.helpers import check_golden, load_yaml, render
from tests.unit.templates.test_advertised import announced, rack_subnets, unrouted_addresses

pytestmark = pytest.mark.pure

FRR, EOS, NVUE, SONIC = 'frr/frr.conf.j2', 'eos/eos.cfg.j2', 'cumulus/startup.yaml.j2', 'sonic/config_db.json.j2'
SCHEMA = json.loads((Path(__file__).parents[3] / 'docs' / 'aifabric-context.v1.schema.json').read_text())
# built once: jsonschema.validate() checks the schema itself again on every call (test_context_schema_is_valid does)
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
# (spec, fabric design): the guide's routed and MLAG designs and the routed one with single-leaf racks, over OSPF.
SPECS = {
    'routed': (lambda: ospf_spec(guide_spec('routed')), 'routed'),
    'mlag': (lambda: ospf_spec(guide_spec('mlag')), 'mlag'),
    'routed-single-leaf-racks': (lambda: ospf_spec(single_leaf_racks_spec()), 'routed'),
}
CASES = [(name, leaf) for name in SPECS for leaf in ('leaf1', 'leaf2')]
PREFIX = re.compile(r'\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/\d{1,2}\b')


@cache
def _build(name):
    make, design = SPECS[name]
    raw = make()
    return plan_of(raw), json.dumps(contexts_of(raw, design))


def build(name):
    """The plan and ``{device: context}`` (a fresh copy) of ``SPECS[name]``."""
    plan, contexts = _build(name)
    return plan, json.loads(contexts)


# A leaf and a spine of each spec (the MLAG design has no spines).
SWITCHES = [(name, device) for name in SPECS for device in ('leaf1', 'spine1') if device in build(name)[1]]


def expected(plan, name, leaf):
    """The rack subnets ``leaf`` must announce, from the plan and the spec's purposes (every NOS)."""
    return announced(plan, SPECS[name][0](), leaf)


def network(address):
    return str(netaddr.IPNetwork(address).cidr)


def other_racks_prefixes(plan, leaf, text, jump_hosts=()):
    """The prefixes and interface addresses (``a.b.c.d/len``) in ``text`` inside a rack subnet that is not ``leaf``'s
    (a class's whole prefix, e.g. in a gateway ACL, contains every rack's and is not one; the jump-host subnets are
    the fabric's management sources, on every switch, wherever they lie)."""
    mine = {rack.subnet for rack in rack_subnets(plan, leaf).values()}
    theirs = [netaddr.IPNetwork(r.subnet) for v in plan.vlans for r in v.racks if r.subnet not in mine]
    found = [p for p in PREFIX.findall(text) if p not in jump_hosts]
    return [p for p in found if any(netaddr.IPNetwork(p) in subnet for subnet in theirs)]


def blocks(text, header):
    """``{header line: indented body lines}`` of the top-level blocks whose header matches the regex ``header``."""
    found, current = {}, None
    for line in text.splitlines():
        if re.fullmatch(header, line):
            current = found.setdefault(line, [])
        elif current is not None and line.startswith(' '):
            current.append(line.strip())
        else:
            current = None
    return found


def frr_ospf_networks(text, db):
    """The subnets of the SVIs the frr.conf puts in OSPF (their addresses: the SONiC config_db's ``db``); every such SVI
    must be passive."""
    svis = {
        h.split()[1]: body for h, body in blocks(text, r'interface Vlan\d+').items() if 'ip ospf area 0.0.0.0' in body
    }
    assert all('ip ospf passive' in body for body in svis.values()), svis
    addresses = dict(key.split('|') for key in db['VLAN_INTERFACE'] if '|' in key)
    return {network(addresses[name]) for name in svis}


def eos_ospf_networks(text):
    """The subnets EOS redistributes into OSPF: the prefix list of the route map ``redistribute connected`` names;
    each must be the subnet of a default-VRF SVI, and no SVI runs OSPF."""
    (ospf,) = blocks(text, r'router ospf \d+').values()
    maps = [line.split()[-1] for line in ospf if line.startswith('redistribute connected route-map ')]
    if not maps:
        return set()
    (body,) = blocks(text, rf'route-map {maps[0]} permit 10').values()
    assert body[0].startswith('match ip address prefix-list '), body
    (entries,) = blocks(text, rf'ip prefix-list {body[0].split()[-1]}').values()
    subnets = {entry.split()[-1] for entry in entries if re.fullmatch(r'seq \d+ permit \S+', entry)}
    assert len(subnets) == len(entries), entries  # exact prefixes, no ge/le
    svis = blocks(text, r'interface Vlan\d+').values()
    assert not any(line.startswith('ip ospf') for body in svis for line in body)
    default_vrf = {
        network(line.split()[-1])
        for body in svis
        if not any(line.startswith('vrf ') for line in body)
        for line in body
        if line.startswith('ip address')
    }
    assert subnets <= default_vrf, subnets - default_vrf
    return subnets


def nvue_ospf_networks(text):
    """The subnets of the NVUE SVIs in OSPF (their address or VRR address); each must be passive, in the default VRF."""
    found = set()
    for name, iface in load_yaml(text)[0]['set']['interface'].items():
        ospf = iface.get('router', {}).get('ospf')
        if not name.startswith('vlan') or not ospf:
            continue
        assert ospf == {'enable': True, 'area': '0.0.0.0', 'passive': True}, (name, ospf)
        assert 'vrf' not in iface['ip'], name
        found |= {network(a) for a in [*iface['ip'].get('address', {}), *iface['ip'].get('vrr', {}).get('address', {})]}
    return found


def avd_eos(ctx):
    pyavd = pytest.importorskip('pyavd', reason='pyavd comes with the dev and benchmark extras')
    config = avd_structured_config(ctx)
    result = pyavd.validate_structured_config(config)
    assert [f'{"/".join(map(str, v.path))}: {v.message}' for v in result.validation_result.violations] == []
    return pyavd.get_device_config(config)


def test_context_schema_is_valid():
    jsonschema.validators.validator_for(SCHEMA).check_schema(SCHEMA)


def test_contexts_are_valid():
    for name in SPECS:
        for device, ctx in build(name)[1].items():
            VALIDATOR.validate(ctx)
            assert (ctx['ospf'] is None) == (device not in {'spine1', 'spine2', 'leaf1', 'leaf2'}), device


@pytest.mark.parametrize(('name', 'leaf'), CASES)
def test_context_networks_are_the_racks_routed_subnets(name, leaf):
    plan, contexts = build(name)
    networks = contexts[leaf]['ospf']['networks']
    assert networks and len(networks) == len(set(networks))
    assert set(networks) == expected(plan, name, leaf)
    assert contexts[leaf]['bgp'] is None


@pytest.mark.parametrize(('name', 'leaf'), CASES)
def test_each_nos_announces_the_racks_routed_subnets(name, leaf):
    plan, contexts = build(name)
    ctx = contexts[leaf]
    subnets = expected(plan, name, leaf)
    assert subnets and subnets < {r.subnet for r in rack_subnets(plan, leaf).values()}  # MGMT, TELEMETRY: local
    texts = {t: render(t, ctx) for t in (FRR, EOS, NVUE, SONIC)}
    assert frr_ospf_networks(texts[FRR], json.loads(texts[SONIC])) == subnets
    assert eos_ospf_networks(texts[EOS]) == subnets
    assert nvue_ospf_networks(texts[NVUE]) == subnets
    for text in texts.values():
        assert unrouted_addresses(plan, text) == []
        assert other_racks_prefixes(plan, leaf, text, ctx['management']['jump_hosts']) == []


@pytest.mark.parametrize(('name', 'leaf'), CASES)
def test_avd_export_announces_the_racks_routed_subnets(name, leaf):
    plan, contexts = build(name)
    text = avd_eos(contexts[leaf])
    assert eos_ospf_networks(text) == expected(plan, name, leaf)
    assert unrouted_addresses(plan, text) == []
    assert other_racks_prefixes(plan, leaf, text, contexts[leaf]['management']['jump_hosts']) == []


def test_specs_have_what_the_checks_need():
    """An unrouted class (the routed guide's RDMA; every class is routed in the MLAG guide) and, with single-leaf
    racks, two racks: each leaf's config must leave out the other's subnets."""
    assert [name for name in SPECS if any(not v.routed for v in build(name)[0].vlans)] == [
        'routed',
        'routed-single-leaf-racks',
    ]
    plan = build('routed-single-leaf-racks')[0]
    assert {r.leaves for v in plan.vlans for r in v.racks} == {('leaf1',), ('leaf2',)}


@pytest.mark.parametrize('name', SPECS)
def test_spines_announce_no_rack_subnet(name):
    _, contexts = build(name)
    for device in ('spine1', 'spine2'):
        if device not in contexts:  # the MLAG design has no spines
            continue
        ctx = contexts[device]
        assert ctx['ospf']['networks'] == []
        assert not blocks(render(FRR, ctx), r'interface Vlan\d+')
        assert eos_ospf_networks(render(EOS, ctx)) == set()
        assert 'AIFABRIC-OSPF-NETWORKS' not in render(EOS, ctx)
        assert nvue_ospf_networks(render(NVUE, ctx)) == set()


@pytest.mark.parametrize('name', [name for name in SPECS if 'spine1' in build(name)[1]])
def test_avd_spine_announces_no_rack_subnet(name):
    assert eos_ospf_networks(avd_eos(build(name)[1]['spine1'])) == set()


@cache
def _build_evpn():
    raw = ospf_spec(guide_spec('evpn-vxlan'))
    return plan_of(raw), json.dumps(contexts_of(raw, 'evpn-vxlan'))


def build_evpn():
    plan, contexts = _build_evpn()
    return plan, json.loads(contexts)


def test_evpn_leaves_announce_no_rack_subnet():
    """EVPN/VXLAN over OSPF: the gateways' subnets travel in EVPN (type-2/5), the underlay carries only loopbacks."""
    _, contexts = build_evpn()
    for device in ('leaf1', 'leaf2', 'spine1'):
        ctx = contexts[device]
        assert ctx['ospf']['networks'] == []
        assert not blocks(render(FRR, ctx), r'interface Vlan\d+')
        assert eos_ospf_networks(render(EOS, ctx)) == set()
        assert nvue_ospf_networks(render(NVUE, ctx)) == set()


@pytest.mark.parametrize(('name', 'device'), SWITCHES)
def test_frr_accepts_the_ospf_config(name, device):
    if not frr.frr_available():
        if os.environ.get('AIFABRIC_SKIP_FRR') == '1':
            pytest.skip('FRR is not installed (AIFABRIC_SKIP_FRR=1)')
        pytest.fail('FRR is not installed: apt-get install frr, or AIFABRIC_SKIP_FRR=1')
    text = render(FRR, build(name)[1][device])
    result = frr.check_frr_config(text)
    assert result.ok, f'FRR rejected the rendered frr.conf ({" ".join(result.command)}):\n{result.output}\n\n{text}'
    ran = {Path(part).name for command in result.commands for part in command}
    assert 'ospfd' in ran or os.geteuid() != 0, result.output  # not root: frr.py skips it and says so


@pytest.mark.parametrize(
    ('template', 'golden'),
    [
        (FRR, 'frr/{}.conf'),
        (EOS, 'eos/{}.cfg'),
        (NVUE, 'cumulus/{}.yaml'),
        (SONIC, 'sonic/{}.json'),
        (None, 'avd/{}.cfg'),
    ],
)
def test_golden_routed_ospf_leaf(template, golden):
    ctx = build('routed')[1]['leaf1']
    check_golden(golden.format('routed-ospf-leaf1'), render(template, ctx) if template else avd_eos(ctx))
