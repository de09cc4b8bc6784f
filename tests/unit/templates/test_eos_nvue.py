"""The Arista EOS (``templates/eos/eos.cfg.j2``) and NVIDIA Cumulus NVUE (``templates/cumulus/startup.yaml.j2``)
templates rendered the way a NetBox ConfigTemplate renders them, from the guide's contexts: golden files, and the exact
BGP neighbours, VNIs, interfaces and PFC/ECN settings each context implies."""

import re

import netaddr
import pytest
import yaml

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.spec import DESIGNS as PLANNER_DESIGNS
from tests.render_fixtures import DESIGNS, GUIDES, ROOT, guide_contexts, guide_intent, single_leaf_racks
from tests.unit.templates.helpers import block, check_golden, load_yaml, render

pytestmark = pytest.mark.pure

EOS = 'eos/eos.cfg.j2'
NVUE = 'cumulus/startup.yaml.j2'
# The MLAG design has no spines (one rack, room for two later): its leaf only.
CASES = [(design, device) for design in GUIDES for device in ('spine1', 'leaf1') if device in guide_contexts(design)]
# EOS's per-port trust lines for the context's `trust` (an untrusted port: default CoS and DSCP 0, the default class)
TRUST_LINES = {
    'dscp': ['   qos trust dscp'],
    'both': ['   qos trust dscp'],
    'pcp': ['   qos trust cos'],
    'none': ['   no qos trust', '   qos cos 0', '   qos dscp 0'],
}
ECN_LINE = 'random-detect ecn minimum-threshold {min} bytes maximum-threshold {max} bytes max-mark-probability {p}'


def context(design, device):
    return guide_contexts(design)[device]


def eos(ctx):
    return render(EOS, ctx)


def nvue(ctx):
    documents = load_yaml(render(NVUE, ctx))
    assert isinstance(documents, list) and len(documents) == 1 and list(documents[0]) == ['set']
    return documents[0]['set']


def sub_block(lines, header):
    """The lines under ``header`` inside a block (``   tx-queue 3``), one level deeper."""
    indent = len(header) - len(header.lstrip()) + 1
    body = []
    for line in lines[lines.index(header) + 1 :]:
        if len(line) - len(line.lstrip()) < indent:
            break
        body.append(line)
    return body


def swp(name):
    return name.replace('Ethernet', 'swp')


def ospf_contexts(design):
    """The guide's cluster with an OSPF underlay (not a guide example: the templates' OSPF branch)."""
    raw = yaml.safe_load((ROOT / 'examples' / f'guide-{design}.yaml').read_text())
    raw['underlay'] = 'ospf'
    intent = guide_intent(design)
    intent['fabric']['underlay'] = 'ospf'
    return build_contexts(plan_fabric(load_spec(raw)), intent)


def test_cases_cover_every_design_and_switch_role():
    """Every design the planner offers (and each variant) is rendered, and in each every switch role its contexts hold
    (derived from the planner and the contexts, not from CASES itself: a design or a role the cases miss fails)."""
    assert set(PLANNER_DESIGNS) <= set(GUIDES)
    for design in GUIDES:
        contexts = guide_contexts(design)
        roles = {ctx['role'] for ctx in contexts.values() if ctx['role'] in ('spine', 'leaf')}
        covered = {contexts[device]['role'] for case_design, device in CASES if case_design == design}
        assert covered == roles, design
    assert 'spine1' not in guide_contexts('mlag')  # why the MLAG design has a leaf case only


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_golden(design, device):
    ctx = context(design, device)
    check_golden(f'eos/{design}-{device}.cfg', eos(ctx))
    check_golden(f'cumulus/{design}-{device}.yaml', render(NVUE, ctx))


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_no_empty_values(design, device):
    for text in (eos(context(design, device)), render(NVUE, context(design, device))):
        assert 'None' not in text
        assert not re.search(r' $', text, flags=re.M), 'trailing spaces'
        assert '\n\n' not in text and text.endswith('\n')


# Arista EOS


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_eos_bgp_neighbours_are_the_contexts(design, device):
    ctx = context(design, device)
    bgp = block(eos(ctx), f'router bgp {ctx["bgp"]["asn"]}')
    assert f'   router-id {ctx["router_id"]}' in bgp
    expected = set()
    for neighbor in ctx['bgp']['neighbors']:
        group = 'MLAG-PEER' if neighbor['kind'] == 'mlag-peer' else 'UNDERLAY'
        expected |= {
            f'   neighbor {neighbor["address"]} peer group {group}',
            f'   neighbor {neighbor["address"]} remote-as {neighbor["remote_asn"]}',
        }
    for peer in ctx['bgp']['evpn_peers']:
        expected |= {
            f'   neighbor {peer["address"]} peer group EVPN-OVERLAY',
            f'   neighbor {peer["address"]} remote-as {peer["remote_asn"]}',
        }
    actual = {line for line in bgp if re.match(r'   neighbor \d+\.\d+\.\d+\.\d+ (peer group|remote-as) ', line)}
    assert actual == expected
    assert ('   address-family evpn' in bgp) == bool(ctx['bgp']['evpn_peers'])


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_eos_vnis_are_the_contexts(design, device):
    ctx = context(design, device)
    config = eos(ctx)
    expected = {f'   vxlan vlan {v["vid"]} vni {v["l2vni"]}' for v in ctx['vlans'] if v.get('l2vni')}
    expected |= {f'   vxlan vrf {v["name"]} vni {v["l3vni"]}' for v in ctx['vrfs'] if v['l3vni']}
    assert {line for line in config.splitlines() if line.startswith(('   vxlan vlan', '   vxlan vrf'))} == expected
    if ctx['vtep']:
        vxlan = block(config, 'interface Vxlan1')
        assert '   vxlan source-interface Loopback1' in vxlan
        for vrf in ctx['vrfs']:
            bgp_vrf = sub_block(block(config, f'router bgp {ctx["asn"]}'), f'   vrf {vrf["name"]}')
            assert f'      rd {vrf["rd"]}' in bgp_vrf
            assert f'      route-target import evpn {vrf["route_target"]}' in bgp_vrf
            assert f'      route-target export evpn {vrf["route_target"]}' in bgp_vrf
    else:
        assert 'Vxlan1' not in config


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_eos_interfaces_pfc_and_ecn(design, device):
    ctx = context(design, device)
    config = eos(ctx)
    qos = ctx['qos']
    # every DSCP 0-63 mapped exactly once: the profile's to their TC, every other to the default class (the TC of
    # switch priority 0, else 0: TC0, which the preset's scheduler and ECN are set on)
    mapped = {}
    for line in config.splitlines():
        if match := re.fullmatch(r'qos map dscp ([0-9 ]+) to traffic-class ([0-7])', line):
            for dscp in match[1].split():
                assert dscp not in mapped, f'DSCP {dscp} mapped twice'
                mapped[dscp] = int(match[2])
    default = qos['priority_to_tc'].get('0', 0)
    assert mapped == {
        str(dscp): qos['priority_to_tc'][str(qos['dscp_to_priority'][str(dscp)])]
        if str(dscp) in qos['dscp_to_priority']
        else default
        for dscp in range(64)
    }
    assert default in qos['ecn']['tcs'] and str(default) in qos['scheduler']['dwrr_weights']
    ecn = ECN_LINE.format(min=qos['ecn']['min_threshold'], max=qos['ecn']['max_threshold'], p=qos['ecn']['probability'])
    for iface in ctx['interfaces']:
        lines = block(config, f'interface {iface["name"]}')
        assert f'   description {iface["description"]}' in lines
        assert f'   speed {iface["speed"]}g' in lines
        trust = [line for line in lines if re.match(r'   (no )?qos (trust|cos|dscp)', line)]
        assert trust == TRUST_LINES[iface['trust']], iface['name']  # server bonds untrusted, the rest the profile's
        if iface['lag']:
            assert f'   channel-group {iface["lag"].removeprefix("Port-Channel")} mode active' in lines
        elif iface['address']:
            assert lines[lines.index('   no switchport') + 1] == f'   ip address {iface["address"]}'
        elif iface['mode'] == 'access':
            assert f'   switchport access vlan {iface["untagged_vlan"]}' in lines
        pfc = [line for line in lines if 'priority-flow-control' in line]
        if iface['pfc']:
            assert pfc == ['   priority-flow-control on'] + [
                f'   priority-flow-control priority {p} no-drop' for p in qos['pfc_priorities']
            ]
        else:
            assert pfc == []
        for tc in qos['ecn']['tcs']:
            # Strata (Trident/Tomahawk) queue keyword, the default platform family
            assert f'      {ecn}' in sub_block(lines, f'   uc-tx-queue {tc}')
        assert not [line for line in lines if line.startswith('   tx-queue')]
        assert sum(ecn in line for line in lines) == len(qos['ecn']['tcs'])


def test_eos_evpn_leaf1():
    config = eos(context('evpn-vxlan', 'leaf1'))
    lines = config.splitlines()
    bgp = block(config, 'router bgp 65101')
    for address, asn, group in (
        ('10.255.2.0', 65100, 'UNDERLAY'),
        ('10.255.2.4', 65100, 'UNDERLAY'),
        ('10.255.3.1', 65101, 'MLAG-PEER'),
    ):
        assert f'   neighbor {address} peer group {group}' in bgp
        assert f'   neighbor {address} remote-as {asn}' in bgp
    assert '   neighbor 10.255.0.1 peer group EVPN-OVERLAY' in bgp
    assert '   neighbor EVPN-OVERLAY update-source Loopback0' in bgp
    assert '   neighbor EVPN-OVERLAY ebgp-multihop 3' in bgp
    assert '   neighbor EVPN-OVERLAY send-community extended' in bgp
    assert sub_block(bgp, '   vlan 40') == [
        '      rd 10.255.0.5:10040',
        '      route-target both 10040:10040',
        '      redistribute learned',
    ]
    assert sub_block(bgp, '   address-family evpn') == ['      neighbor EVPN-OVERLAY activate']
    assert '   vxlan vlan 40 vni 10040' in lines
    assert '   vxlan vrf AI-CLUSTER vni 50001' in lines
    assert 'qos map dscp 26 to traffic-class 3' in lines
    assert 'ip virtual-router mac-address 02:00:00:00:00:aa' in lines
    ethernet49 = block(config, 'interface Ethernet49')
    assert '   priority-flow-control on' in ethernet49
    assert '   priority-flow-control priority 3 no-drop' in ethernet49
    assert '      ' + ECN_LINE.format(min=150000, max=1500000, p=100) in sub_block(ethernet49, '   uc-tx-queue 3')
    assert block(config, 'interface Vlan40') == [
        '   description RDMA',
        '   mtu 9000',
        '   vrf AI-CLUSTER',
        '   ip address virtual 10.40.0.1/24',
        '   ip access-group AIFABRIC-RDMA-IN in',
    ]
    assert block(config, 'interface Vxlan1')[:2] == ['   description leaf1 VTEP', '   vxlan source-interface Loopback1']
    assert block(config, 'interface Loopback1') == ['   description VTEP', '   ip address 10.255.1.1/32']


def test_eos_sand_platform_family_override():
    """A NetBox config context `aifabric_eos.platform_family: sand` (7280R/7500R: Jericho) switches the queue keyword
    to `tx-queue` and the reload delays to AVD's values for those platforms (900/1020 s)."""
    ctx = context('mlag', 'leaf1')
    config = render(EOS, ctx, aifabric_eos={'platform_family': 'sand'})
    lines = config.splitlines()
    assert '   tx-queue 3' in lines and '   uc-tx-queue 3' not in lines
    assert block(config, 'mlag configuration')[-2:] == ['   reload-delay mlag 900', '   reload-delay non-mlag 1020']
    assert render(EOS, ctx, aifabric_eos={'platform_family': 'strata'}) == eos(ctx)


@pytest.mark.parametrize('design', DESIGNS)
def test_eos_mlag_pair(design):
    config = eos(context(design, 'leaf1'))
    assert block(config, 'mlag configuration') == [
        '   domain-id ai-lab',
        '   local-interface Vlan4094',
        '   peer-address 10.255.3.1',
        '   peer-link Port-Channel1000',
        '   reload-delay mlag 300',  # AVD's default platform settings
        '   reload-delay non-mlag 330',
    ]
    bgp = [line for line in config.splitlines() if line.startswith('   neighbor MLAG-PEER ')]
    assert '   neighbor MLAG-PEER route-map RM-MLAG-PEER-IN in' in bgp
    assert block(config, 'route-map RM-MLAG-PEER-IN permit 10')[-1] == '   set origin incomplete'
    assert block(config, 'interface Vlan4094')[-1] == '   ip address 10.255.3.0/31'
    assert block(config, 'interface Port-Channel1000')[-3:] == [
        '   switchport mode trunk',
        '   switchport trunk group MLAG',
        '   qos trust dscp',  # a link between switches: the marking is trusted
    ]
    # a server bond carries the data classes only (not MGMT, not TELEMETRY) and is untrusted
    assert block(config, 'interface Port-Channel1')[-6:] == [
        '   switchport mode trunk',
        '   switchport trunk allowed vlan 20,30',
        '   no qos trust',
        '   qos cos 0',
        '   qos dscp 0',
        '   mlag 1',
    ]
    assert block(config, 'interface Ethernet73')[2] == '   channel-group 1000 mode active'


def test_eos_routed_leaf_pair_has_rack_gateways():
    ctx = context('routed', 'leaf1')
    config = eos(ctx)
    gateway = {v['vid']: v['gateway'] for v in ctx['vlans']}
    assert gateway[20].endswith('/27')  # the rack's share of the class's /24
    assert block(config, 'interface Vlan20')[-2] == f'   ip address virtual {gateway[20]}'
    assert block(config, 'interface Vlan10')[-3:-1] == ['   vrf MGMT', f'   ip address virtual {gateway[10]}']
    assert gateway[40] is None and 'interface Vlan40' not in config.splitlines()  # RDMA is not routed
    assert f'ip virtual-router mac-address {ctx["mlag"]["anycast_gateway_mac"]}' in config.splitlines()
    assert 'Vxlan1' not in config


def test_eos_single_leaf_racks_have_plain_gateways():
    subnets = set()
    for name in ('leaf1', 'leaf2'):
        ctx = single_leaf_racks()[name]
        config = eos(ctx)
        assert 'mlag' not in config and 'virtual' not in config
        gateway = {v['vid']: v['gateway'] for v in ctx['vlans']}
        assert block(config, 'interface Vlan20')[-2] == f'   ip address {gateway[20]}'
        assert block(config, 'interface Vlan10')[-3:-1] == ['   vrf MGMT', f'   ip address {gateway[10]}']
        subnets.add(gateway[20])
    assert len(subnets) == 2  # a rack each: two subnets of the class


@pytest.mark.parametrize('design', ['routed', 'evpn-vxlan'])
def test_eos_spine_has_no_vlans_and_no_vxlan(design):
    config = eos(context(design, 'spine1'))
    assert not re.search(r'^vlan \d+', config, flags=re.M)
    assert 'interface Vlan' not in config
    assert not [line for line in config.splitlines() if 'vxlan' in line.lower() and not line.startswith('!')]
    assert 'switchport' not in config.replace('no switchport', '')


def test_eos_management_plane():
    """Only the jump-host subnet (not the whole MGMT VLAN, as it once was) reaches SSH, eAPI and SNMP; Management1
    has the switch's management address in the management VRF, whose default route is the management gateway."""
    ctx = context('evpn-vxlan', 'spine1')
    config = eos(ctx)
    plane = ctx['management']
    assert plane['jump_hosts'] == ['192.0.2.16/28']
    assert block(config, 'ip access-list standard AIFABRIC-MGMT') == ['   permit 192.0.2.16/28']
    assert block(config, 'management ssh') == [
        '   ip access-group AIFABRIC-MGMT in',
        '   ip access-group AIFABRIC-MGMT vrf mgmt in',
        '   !',
        '   vrf mgmt',
        '      no shutdown',
    ]
    assert sub_block(block(config, 'management api http-commands'), '   vrf mgmt') == [
        '      no shutdown',
        '      ip access-group AIFABRIC-MGMT',
    ]
    assert 'snmp-server ipv4 access-list AIFABRIC-MGMT vrf mgmt' in config.splitlines()
    assert block(config, 'interface Management1') == [
        '   description management (mgmt)',
        '   vrf mgmt',
        f'   ip address {plane["address"]}',
    ]
    assert f'ip route vrf mgmt 0.0.0.0/0 {plane["gateway"]}' in config.splitlines()
    assert config.startswith('! spine1: spine of fabric AI Lab (evpn-vxlan, ebgp underlay)\n')
    assert '\nhostname spine1\n!\nservice routing protocols model multi-agent\n' in config
    assert config.endswith('\n!\nend\n')


# NVIDIA Cumulus NVUE


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_nvue_bgp_neighbours_are_the_contexts(design, device):
    ctx = context(design, device)
    config = nvue(ctx)
    assert config['system']['hostname'] == device
    assert config['router']['bgp'] == {'enable': True, 'autonomous-system': ctx['asn'], 'router-id': ctx['router_id']}
    bgp = config['vrf']['default']['router']['bgp']
    expected = {n['address']: n['remote_asn'] for n in ctx['bgp']['neighbors'] + ctx['bgp']['evpn_peers']}
    assert {address: neighbor['remote-as'] for address, neighbor in bgp['neighbor'].items()} == expected
    assert all(neighbor['type'] == 'numbered' for neighbor in bgp['neighbor'].values())
    for peer in ctx['bgp']['evpn_peers']:
        overlay = bgp['neighbor'][peer['address']]
        assert overlay['update-source'] == 'lo'
        assert overlay['address-family']['l2vpn-evpn']['enable'] is True
        assert overlay['address-family']['ipv4-unicast']['enable'] is False
    for neighbor in ctx['bgp']['neighbors']:
        evpn = bgp['neighbor'][neighbor['address']].get('address-family', {}).get('l2vpn-evpn')
        assert evpn is None
    assert ('l2vpn-evpn' in bgp['address-family']) == ('l2vpn-evpn' in ctx['bgp']['address_families'])
    assert set(bgp['address-family']['ipv4-unicast']['network']) >= {lo['address'] for lo in ctx['loopbacks']}


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_nvue_vnis_are_the_contexts(design, device):
    ctx = context(design, device)
    config = nvue(ctx)
    if not ctx['vlans']:
        assert 'bridge' not in config
    else:
        vlans = config['bridge']['domain']['br_default']['vlan']
        assert set(vlans) == {str(v['vid']) for v in ctx['vlans']}
        assert {vid: list(vlan['vni']) for vid, vlan in vlans.items() if vlan} == {
            str(v['vid']): [str(v['l2vni'])] for v in ctx['vlans'] if v['l2vni']
        }
    l3vnis = {name: list(vrf['evpn']['vni']) for name, vrf in config['vrf'].items() if vrf and 'evpn' in vrf}
    assert l3vnis == {v['name']: [str(v['l3vni'])] for v in ctx['vrfs'] if v['l3vni']}
    for vrf in ctx['vrfs']:
        bgp = config['vrf'][vrf['name']]['router']['bgp']
        assert bgp['rd'] == vrf['rd']
        assert list(bgp['route-import']['from-evpn']['route-target']) == [vrf['route_target']]
        assert list(bgp['route-export']['to-evpn']['route-target']) == [vrf['route_target']]
    if ctx['vtep']:
        vxlan = config['nve']['vxlan']
        if ctx['mlag']:  # the pair's shared VTEP is the anycast address; the source is the switch's own loopback
            assert vxlan['mlag']['shared-address'] == ctx['vtep'].split('/')[0]
            assert vxlan['source']['address'] == ctx['router_id']
        else:
            assert vxlan['source']['address'] == ctx['vtep'].split('/')[0]
        multihoming = {'multihoming': {'enable': True}} if ctx['evpn_mh'] else {}
        assert config['evpn'] == {'enable': True, **multihoming}
    else:
        assert 'nve' not in config


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_nvue_interfaces(design, device):
    ctx = context(design, device)
    interfaces = nvue(ctx)['interface']
    assert set(interfaces['lo']['ip']['address']) == {
        lo['address'] for lo in ctx['loopbacks'] if not (ctx['mlag'] and lo['purpose'] == 'vtep')
    }
    for iface in ctx['interfaces']:
        port = interfaces[swp(iface['name'])]
        assert port['type'] == 'swp'
        assert port['description'] == iface['description']
        assert port['link'] == {'mtu': iface['mtu'], 'speed': f'{iface["speed"]}G'}
        if iface['address']:
            assert list(port['ip']['address']) == [iface['address']]
        if iface['mode'] == 'access':
            assert port['bridge']['domain']['br_default'] == {'access': iface['untagged_vlan']}
        assert ('qos' in port) == iface['pfc']
    for lag in ctx['lags']:
        name = 'peerlink' if ctx['mlag'] and lag['name'] == ctx['mlag']['peer_link'] else lag['name']
        bond = interfaces[name.replace('Port-Channel', 'bond')]
        assert list(bond['bond']['member']) == [swp(m) for m in lag['members']]
        if lag['mode'] == 'tagged':
            assert list(bond['bridge']['domain']['br_default']['vlan']) == [str(v) for v in lag['tagged_vlans']]
        if name != 'peerlink' and ctx['mlag']:
            assert bond['bond']['mlag'] == {'enable': True, 'id': int(lag['name'].removeprefix('Port-Channel'))}
    svis = {name: i for name, i in interfaces.items() if i.get('type') == 'svi'}
    assert set(svis) == {f'vlan{v["vid"]}' for v in ctx['vlans'] if v['gateway']}


@pytest.mark.parametrize('design', DESIGNS)
def test_nvue_mlag_pair(design):
    ctx = context(design, 'leaf1')
    config = nvue(ctx)
    peer = context(design, 'leaf2')
    # NVIDIA's reserved MLAG range 44:38:39:ff:00:00-44:38:39:ff:ff:ff + the primary's id (leaf1: 1), on both peers
    mac = '44:38:39:ff:00:01'
    # backup: the peer's loopback with routed uplinks (the routed and EVPN designs have spines), else its
    # management address in the management VRF (the MLAG design: one rack, no spines yet)
    peer_loopback = peer['router_id']
    peer_mgmt = peer['management']['address'].split('/')[0]
    backup = {peer_mgmt: {'vrf': 'mgmt'}} if design == 'mlag' else {peer_loopback: {}}
    assert config['mlag'] == {
        'enable': True,
        'peer-ip': '10.255.3.1',
        'priority': 1000,
        'mac-address': mac,
        'backup': backup,
    }
    assert nvue(peer)['mlag']['mac-address'] == mac
    assert config['interface']['peerlink.4094'] == {
        'type': 'sub',
        'base-interface': 'peerlink',
        'vlan': 4094,
        'ip': {'address': {'10.255.3.0/31': {}}},
    }
    vrr = config['interface']['vlan20']['ip']['vrr']
    gateway = next(v['gateway'] for v in ctx['vlans'] if v['vid'] == 20)
    assert vrr['address'] == {gateway: {}} and vrr['state'] == {'up': {}}
    # each switch its own address next to VRR: the rack's 2nd host on the primary, 3rd on the secondary (routed,
    # MLAG), the subnet's last host on leaf id 1 (EVPN anycast subnet)
    subnet = netaddr.IPNetwork(next(v['subnet'] for v in ctx['vlans'] if v['vid'] == 20))
    hosts = list(subnet.iter_hosts())
    own = hosts[-1] if design == 'evpn-vxlan' else hosts[1]
    other = hosts[-2] if design == 'evpn-vxlan' else hosts[2]
    assert config['interface']['vlan20']['ip']['address'] == {f'{own}/{subnet.prefixlen}': {}}
    assert nvue(peer)['interface']['vlan20']['ip']['address'] == {f'{other}/{subnet.prefixlen}': {}}
    # the MLAG peer's routes come in with origin incomplete (AVD's RM-MLAG-PEER-IN)
    neighbor = config['vrf']['default']['router']['bgp']['neighbor']['10.255.3.1']
    assert neighbor['address-family']['ipv4-unicast']['policy'] == {'inbound': {'route-map': 'AIFABRIC-MLAG-PEER-IN'}}
    assert config['router']['policy']['route-map']['AIFABRIC-MLAG-PEER-IN'] == {
        'rule': {'10': {'action': {'permit': {}}, 'set': {'origin': 'incomplete'}}}
    }
    assert config['router']['vrr'] == {'enable': True}
    assert nvue(context(design, 'leaf2'))['mlag']['priority'] == 2000


def test_nvue_evpn_leaf1():
    config = nvue(context('evpn-vxlan', 'leaf1'))
    assert config['bridge']['domain']['br_default']['vlan']['40'] == {'vni': {'10040': {}}}
    assert config['vrf']['AI-CLUSTER']['evpn'] == {'enable': True, 'vni': {'50001': {}}}
    assert config['vrf']['MGMT'] == {}
    assert config['interface']['vlan40']['ip'] == {
        'vrf': 'AI-CLUSTER',
        'address': {'10.40.0.254/24': {}},
        'vrr': {
            'enable': True,
            'address': {'10.40.0.1/24': {}},
            'mac-address': '02:00:00:00:00:aa',
            'state': {'up': {}},
        },
    }
    assert config['interface']['swp49']['bridge'] == {'domain': {'br_default': {'access': 40}}}
    assert config['interface']['swp49']['qos'] == {
        'pfc': {'profile': 'AIFABRIC-PFC'},
        'pfc-watchdog': {'state': 'enable'},
    }
    assert config['interface']['swp65']['ip'] == {'address': {'10.255.2.1/31': {}}}
    neighbors = config['vrf']['default']['router']['bgp']['neighbor']
    assert {address: n['remote-as'] for address, n in neighbors.items() if 'update-source' not in n} == {
        '10.255.2.0': 65100,
        '10.255.2.4': 65100,
        '10.255.3.1': 65101,
    }
    assert neighbors['10.255.3.1']['address-family'] == {
        'ipv4-unicast': {'nexthop-setting': 'self', 'policy': {'inbound': {'route-map': 'AIFABRIC-MLAG-PEER-IN'}}}
    }


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_nvue_qos(design, device):
    ctx = context(design, device)
    qos, context_qos = nvue(ctx)['qos'], ctx['qos']
    assert qos['roce'] == {'enable': True, 'mode': context_qos['mode']}
    assert qos['mapping']['default-global']['trust'] == 'l3'
    assert {dscp: m['switch-priority'] for dscp, m in qos['mapping']['default-global']['dscp'].items()} == (
        context_qos['dscp_to_priority']
    )
    assert {
        priority: m['traffic-class']
        for priority, m in qos['egress-queue-mapping']['default-global']['switch-priority'].items()
    } == context_qos['priority_to_tc']
    # PFC in a profile bound per port, only on the ports with pfc (never server bonds), not default-global
    assert list(qos['pfc']) == ['AIFABRIC-PFC']
    assert list(qos['pfc']['AIFABRIC-PFC']['switch-priority']) == [str(p) for p in context_qos['pfc_priorities']]
    interfaces = nvue(ctx)['interface']
    for port in ctx['interfaces']:
        bound = interfaces[swp(port['name'])].get('qos', {}).get('pfc')
        assert bound == ({'profile': 'AIFABRIC-PFC'} if port['pfc'] else None), port['name']
        assert not (port['kind'] == 'server' and bound)
    ecn = context_qos['ecn']
    assert qos['congestion-control']['default-global']['traffic-class'] == {
        str(tc): {
            'ecn': 'enable',
            'min-threshold': ecn['min_threshold'],
            'max-threshold': ecn['max_threshold'],
            'probability': ecn['probability'],
        }
        for tc in ecn['tcs']
    }
    # all eight traffic classes set, the DWRR shares summing to 100 %: the preset's TC0/TC3 50/50, TC6 strict
    scheduler = qos['egress-scheduler']['default-global']['traffic-class']
    assert set(scheduler) == {str(tc) for tc in range(8)}
    assert sum(entry.get('bw-percent', 0) for entry in scheduler.values()) == 100
    assert scheduler['6'] == {'mode': 'strict'}
    assert scheduler['0'] == scheduler['3'] == {'mode': 'dwrr', 'bw-percent': 50}
    assert qos['pfc-watchdog'] == {'polling-interval': 100, 'robustness': 3}


@pytest.mark.parametrize('design', ['routed', 'evpn-vxlan'])
def test_nvue_spine_has_no_vlans_and_no_vxlan(design):
    config = nvue(context(design, 'spine1'))
    assert not {'bridge', 'nve', 'mlag'} & set(config)
    assert all(not name.startswith(('vlan', 'bond', 'peerlink')) for name in config['interface'])
    assert set(config['vrf']) == {'default'}


# The OSPF underlay (no guide example uses it)


def test_ospf_underlay():
    routed = ospf_contexts('routed')
    config = eos(routed['leaf1'])
    assert 'router bgp' not in config
    assert block(config, 'router ospf 1') == [
        '   router-id 10.255.0.5',
        '   redistribute connected route-map AIFABRIC-OSPF-NETWORKS',  # the rack subnets: test_ospf_advertised.py
        '   max-lsa 12000',
    ]
    assert block(config, 'interface Ethernet65')[4:7] == [
        '   ip address 10.255.2.1/31',
        '   ip ospf network point-to-point',
        '   ip ospf area 0.0.0.0',
    ]
    assert block(config, 'interface Loopback0')[-1] == '   ip ospf area 0.0.0.0'
    yml = nvue(routed['leaf1'])
    assert yml['router']['ospf'] == {'enable': True, 'router-id': '10.255.0.5'}
    assert set(yml['router']) == {'ospf', 'vrr'}  # the routed rack is an MLAG pair: VRR gateways
    assert yml['interface']['swp65']['router']['ospf'] == {
        'enable': True,
        'area': '0.0.0.0',
        'network-type': 'point-to-point',
    }
    assert yml['interface']['lo']['router']['ospf']['passive'] is True

    evpn = ospf_contexts('evpn-vxlan')  # iBGP EVPN overlay: the spines reflect it
    # the VTEP loopback is in the underlay, next to the router-id's
    assert evpn['leaf1']['ospf']['interfaces'][-2:] == ['Loopback0', 'Loopback1']
    assert evpn['spine1']['ospf']['interfaces'][-1] == 'Loopback0'
    assert block(eos(evpn['leaf1']), 'interface Loopback1')[-1] == '   ip ospf area 0.0.0.0'
    spine = block(eos(evpn['spine1']), 'router bgp 65100')
    assert '   neighbor 10.255.0.5 route-reflector-client' in spine
    assert not any('UNDERLAY' in line for line in spine)
    neighbors = nvue(evpn['spine1'])['vrf']['default']['router']['bgp']['neighbor']
    assert neighbors['10.255.0.5']['address-family']['l2vpn-evpn']['route-reflector-client'] is True


# MLAG gateways: EOS's `ip address virtual` needs the pair's virtual MAC


def test_mlag_gateway_mac():
    config = eos(context('mlag', 'leaf1'))
    assert 'ip virtual-router mac-address 00:00:5e:00:01:01' in config.splitlines()  # Cumulus's VRR default
    assert block(config, 'interface Vlan10')[-2] == '   ip address virtual 192.0.2.1/24'
    raw = yaml.safe_load((ROOT / 'examples' / 'guide-mlag.yaml').read_text())
    intent = {**guide_intent('mlag'), 'anycast_gateway_mac': '02:00:00:00:00:AA'}
    leaf = build_contexts(plan_fabric(load_spec(raw)), intent)['leaf1']
    assert leaf['mlag']['anycast_gateway_mac'] == '02:00:00:00:00:aa'
    assert 'ip virtual-router mac-address 02:00:00:00:00:aa' in eos(leaf).splitlines()
    assert nvue(leaf)['interface']['vlan10']['ip']['vrr']['mac-address'] == '02:00:00:00:00:aa'
    # EVPN leaves keep the VRF's anycast MAC (the spec's)
    assert 'ip virtual-router mac-address 02:00:00:00:00:aa' in eos(context('evpn-vxlan', 'leaf1')).splitlines()


# PFC watchdog: the context's milliseconds as the seconds EOS takes


def test_eos_pfc_watchdog_in_seconds():
    ctx = context('evpn-vxlan', 'leaf1')  # the guide's lossless preset: 3 polls of 100 ms
    assert ctx['qos']['pfc_watchdog']['timeout'] == 300
    lines = [line for line in eos(ctx).splitlines() if line.startswith('priority-flow-control pause watchdog')]
    # no action and no restoration time in the preset: the stuck queue drops (not EOS's errdisable), 200 ms recovery
    assert lines == [
        'priority-flow-control pause watchdog action drop',
        'priority-flow-control pause watchdog default timeout 0.3',
        'priority-flow-control pause watchdog default polling-interval 0.1',
        'priority-flow-control pause watchdog default recovery-time 0.2',
    ]
    ctx['qos']['pfc_watchdog'].update(detection_time=200, restoration_time=2000, action='drop', timeout=200)
    lines = [line for line in eos(ctx).splitlines() if line.startswith('priority-flow-control pause watchdog')]
    assert lines == [
        'priority-flow-control pause watchdog action drop',
        'priority-flow-control pause watchdog default timeout 0.2',
        'priority-flow-control pause watchdog default polling-interval 0.1',
        'priority-flow-control pause watchdog default recovery-time 2',
    ]
    ctx['qos']['pfc_watchdog']['action'] = 'alert'  # SONiC's alert-only: EOS has no such action, none is rendered
    lines = [line for line in eos(ctx).splitlines() if line.startswith('priority-flow-control pause watchdog')]
    assert 'priority-flow-control pause watchdog action drop' not in lines and len(lines) == 3
    ctx['qos']['pfc_watchdog'] = None
    assert 'watchdog' not in eos(ctx)


@pytest.mark.parametrize(('design', 'device'), CASES)
def test_eos_mtu_at_most_9214(design, device):
    ctx = context(design, device)
    assert ctx['mtu']['fabric'] == 9216
    mtus = {int(line.split()[1]) for line in eos(ctx).splitlines() if line.startswith('   mtu ')}
    assert max(mtus) == 9214
    if ctx['vlans'] and any(v['gateway'] for v in ctx['vlans']):
        assert 9000 in mtus  # the RDMA class's own MTU is below the cap and kept
