"""The FRR (templates/frr/frr.conf.j2) and SONiC (templates/sonic/config_db.json.j2) device templates.

Rendered as a NetBox ConfigTemplate renders them (helpers.render), from the guide's contexts per design (spine1 and
leaf1; the MLAG design has no spines), compared with golden files (UPDATE_GOLDEN=1 rewrites them), and checked for
what the context implies: the exact BGP neighbours and VNIs, QoS maps, FRR lines. The SONiC output must be JSON; the
FRR output must pass FRR's own parser (tests/frr.py): FRR missing fails those tests unless AIFABRIC_SKIP_FRR=1.
"""

import copy
import json
import os
from functools import cache

import pytest
import yaml

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.planner import load_spec, plan_fabric
from tests.frr import check_frr_config, frr_available
from tests.render_fixtures import GUIDES, ROOT, guide_contexts, guide_intent
from tests.unit.templates.helpers import check_golden, render

pytestmark = pytest.mark.pure

FRR = 'frr/frr.conf.j2'
SONIC = 'sonic/config_db.json.j2'
SWITCHES = ('spine1', 'leaf1')
CASES = [(design, device) for design in GUIDES for device in SWITCHES if device in guide_contexts(design)]
# SONiC refuses the leaves of an EVPN multihoming pair (test_evpn_mh.py): its cases are the others.
SONIC_CASES = [(design, device) for design, device in CASES if not guide_contexts(design)[device]['evpn_mh']]

# What the guide's contexts imply, per case: BGP_NEIGHBOR address → (remote ASN, peer), L2VNI per VLAN, L3VNI per VRF.
NEIGHBORS = {
    ('mlag', 'leaf1'): {'10.255.3.1': ('65101', 'leaf2')},
    ('routed', 'spine1'): {'10.255.2.1': ('65101', 'leaf1'), '10.255.2.17': ('65101', 'leaf2')},
    ('routed', 'leaf1'): {
        '10.255.2.0': ('65100', 'spine1'),
        '10.255.2.4': ('65100', 'spine2'),
        '10.255.3.1': ('65101', 'leaf2'),
    },
    ('evpn-vxlan', 'spine1'): {'10.255.2.1': ('65101', 'leaf1'), '10.255.2.17': ('65101', 'leaf2')},
    ('evpn-vxlan', 'leaf1'): {
        '10.255.2.0': ('65100', 'spine1'),
        '10.255.2.4': ('65100', 'spine2'),
        '10.255.3.1': ('65101', 'leaf2'),
    },
    ('evpn-mh', 'spine1'): {'10.255.2.1': ('65101', 'leaf1'), '10.255.2.17': ('65102', 'leaf2')},
}
L2VNIS = {10: '10010', 20: '10020', 30: '10030', 40: '10040', 50: '10050'}

# Exact lines each case's frr.conf must contain (and lines it must not).
FRR_LINES = {
    ('mlag', 'leaf1'): [
        'router bgp 65101',
        ' bgp router-id 10.255.0.3',
        ' neighbor MLAG-PEER peer-group',
        ' neighbor 10.255.3.1 remote-as 65101',
        ' neighbor 10.255.3.1 peer-group MLAG-PEER',
        '  neighbor MLAG-PEER next-hop-self',
        '  network 10.255.0.3/32',
        '  network 10.40.0.0/24',
    ],
    ('routed', 'spine1'): [
        'router bgp 65100',
        ' neighbor 10.255.2.1 remote-as 65101',
        ' neighbor 10.255.2.1 peer-group UNDERLAY',
        ' neighbor 10.255.2.17 remote-as 65101',
        ' neighbor 10.255.2.17 peer-group UNDERLAY',
        '  network 10.255.0.1/32',
    ],
    ('routed', 'leaf1'): [
        'router bgp 65101',
        ' neighbor 10.255.2.0 remote-as 65100',
        ' neighbor 10.255.2.0 peer-group UNDERLAY',
        ' neighbor 10.255.2.4 remote-as 65100',
        ' neighbor 10.255.2.4 peer-group UNDERLAY',
        ' neighbor MLAG-PEER peer-group',
        ' neighbor 10.255.3.1 remote-as 65101',
        ' neighbor 10.255.3.1 peer-group MLAG-PEER',
        '  neighbor MLAG-PEER next-hop-self',
        '  network 10.255.0.5/32',
        '  network 198.51.100.0/27',
    ],
    ('evpn-vxlan', 'spine1'): [
        'router bgp 65100',
        ' neighbor 10.255.2.1 remote-as 65101',
        ' neighbor 10.255.2.1 peer-group UNDERLAY',
        ' neighbor OVERLAY ebgp-multihop 3',
        ' neighbor OVERLAY update-source Loopback0',
        ' neighbor 10.255.0.5 remote-as 65101',
        ' neighbor 10.255.0.5 peer-group OVERLAY',
        ' neighbor 10.255.0.6 remote-as 65101',
        ' address-family l2vpn evpn',
        '  neighbor OVERLAY activate',
        '  neighbor OVERLAY attribute-unchanged next-hop',
    ],
    ('evpn-vxlan', 'leaf1'): [
        'vrf Vrf-AI-CLUSTER',
        ' vni 50001',
        'exit-vrf',
        'interface Loopback0',
        ' ip address 10.255.0.5/32',
        'interface Loopback1',
        ' ip address 10.255.1.1/32',
        'router bgp 65101',
        ' bgp router-id 10.255.0.5',
        ' neighbor 10.255.2.0 remote-as 65100',
        ' neighbor 10.255.2.0 peer-group UNDERLAY',
        ' neighbor 10.255.2.4 remote-as 65100',
        ' neighbor 10.255.2.4 peer-group UNDERLAY',
        ' neighbor 10.255.3.1 remote-as 65101',
        ' neighbor 10.255.3.1 peer-group MLAG-PEER',
        ' neighbor OVERLAY ebgp-multihop 3',
        ' neighbor OVERLAY update-source Loopback0',
        ' neighbor 10.255.0.1 remote-as 65100',
        ' neighbor 10.255.0.1 peer-group OVERLAY',
        ' neighbor 10.255.0.2 remote-as 65100',
        ' neighbor 10.255.0.2 peer-group OVERLAY',
        '  network 10.255.0.5/32',
        '  network 10.255.1.1/32',
        ' address-family l2vpn evpn',
        '  neighbor OVERLAY activate',
        '  advertise-all-vni',
        'router bgp 65101 vrf Vrf-AI-CLUSTER',
        '  network 198.51.100.0/24',  # the VRF's advertised subnets (type-5), not MGMT/TELEMETRY (VRF MGMT)
        '  network 10.40.0.0/24',
        '  rd 10.255.0.5:50001',
        '  route-target import 50001:50001',
        '  route-target export 50001:50001',
        '  advertise ipv4 unicast route-map AIFABRIC-TYPE5-Vrf-AI-CLUSTER',
        # Routing policy: the switch's own prefixes out, the MLAG peer's de-preferred, ECMP over both spines.
        'ip prefix-list AIFABRIC-ADVERTISE seq 10 permit 10.255.0.5/32',
        'ip prefix-list AIFABRIC-ADVERTISE seq 20 permit 10.255.1.1/32',
        'ip prefix-list AIFABRIC-ADVERTISE-Vrf-AI-CLUSTER seq 30 permit 10.40.0.0/24',
        'bgp as-path access-list AIFABRIC-MLAG-PAIR seq 5 permit ^$',
        ' bgp ebgp-requires-policy',
        '  neighbor UNDERLAY route-map AIFABRIC-UNDERLAY-IN in',
        '  neighbor UNDERLAY route-map AIFABRIC-UNDERLAY-OUT out',
        '  neighbor MLAG-PEER route-map AIFABRIC-MLAG-PEER-IN in',
        ' set origin incomplete',
        '  maximum-paths 2',
        '  neighbor OVERLAY route-map AIFABRIC-EVPN in',
        '  neighbor OVERLAY route-map AIFABRIC-EVPN out',
    ],
}
FRR_LINES[('evpn-mh', 'spine1')] = [
    'router bgp 65100',
    ' neighbor 10.255.2.17 remote-as 65102',
    ' neighbor 10.255.0.6 remote-as 65102',
    ' neighbor 10.255.0.6 peer-group OVERLAY',
    '  neighbor OVERLAY attribute-unchanged next-hop',
]
# The EVPN multihoming leaf: its own ASN and VTEP, no MLAG peer (the evpn mh lines: test_evpn_mh.py).
FRR_LINES[('evpn-mh', 'leaf1')] = [
    'router bgp 65101',
    'interface Loopback1',
    ' ip address 10.255.1.1/32',
    '  network 10.255.1.1/32',
    ' neighbor 10.255.0.1 peer-group OVERLAY',
    '  advertise-all-vni',
]
FRR_ABSENT = {
    ('mlag', 'leaf1'): ['address-family l2vpn evpn', ' neighbor OVERLAY peer-group', 'router ospf'],
    ('routed', 'spine1'): ['address-family l2vpn evpn', ' neighbor MLAG-PEER peer-group', 'router ospf'],
    ('routed', 'leaf1'): ['address-family l2vpn evpn', 'exit-vrf', 'router ospf', '  network 198.51.100.0/24'],
    ('evpn-vxlan', 'spine1'): ['  advertise-all-vni', 'exit-vrf', ' neighbor MLAG-PEER peer-group'],
    ('evpn-vxlan', 'leaf1'): [
        ' no bgp ebgp-requires-policy',
        '  neighbor OVERLAY attribute-unchanged next-hop',
        'router ospf',
        '  redistribute connected',
        '  network 192.0.2.0/24',
        '  network 10.50.0.0/24',
    ],
    ('evpn-mh', 'spine1'): [' evpn mh uplink', '  advertise-all-vni'],
    ('evpn-mh', 'leaf1'): [' neighbor MLAG-PEER peer-group', 'router ospf', ' neighbor 10.255.3.1 remote-as 65101'],
}


def context(design, device):
    return guide_contexts(design)[device]


@cache
def _ospf_contexts(design):
    """The guide's cluster with an OSPF underlay (the guide fixtures are eBGP only), built like render_fixtures."""
    spec = yaml.safe_load((ROOT / 'examples' / f'guide-{design}.yaml').read_text())
    spec['underlay'] = 'ospf'
    intent = guide_intent(design)
    intent['fabric']['underlay'] = 'ospf'
    return json.dumps(build_contexts(plan_fabric(load_spec(spec)), intent))


def ospf_context(design, device):
    return json.loads(_ospf_contexts(design))[device]


def lines(text):
    return text.splitlines()


def assert_frr_accepts(text):
    """FRR's parser accepts text; FRR missing is a failure (not a skip) unless AIFABRIC_SKIP_FRR=1."""
    if not frr_available():
        if os.environ.get('AIFABRIC_SKIP_FRR') == '1':
            pytest.skip('FRR is not installed (AIFABRIC_SKIP_FRR=1)')
        pytest.fail('FRR is not installed: apt-get install frr (scripts/test does it as root), or AIFABRIC_SKIP_FRR=1')
    result = check_frr_config(text)
    assert result.ok, f'FRR rejected the rendered frr.conf ({" ".join(result.command)}):\n{result.output}\n\n{text}'


def test_cases_cover_every_design():
    assert CASES == [
        ('mlag', 'leaf1'),
        ('routed', 'spine1'),
        ('routed', 'leaf1'),
        ('evpn-vxlan', 'spine1'),
        ('evpn-vxlan', 'leaf1'),
        ('evpn-mh', 'spine1'),
        ('evpn-mh', 'leaf1'),
    ]
    assert SONIC_CASES == CASES[:-1]
    assert 'spine1' not in guide_contexts('mlag')  # the MLAG design has no spines yet


#
# FRR
#


@pytest.mark.parametrize('design,device', CASES)
def test_frr_golden(design, device):
    check_golden(f'frr/{design}-{device}.conf', render(FRR, context(design, device)))


@pytest.mark.parametrize('design,device', CASES)
def test_frr_lines(design, device):
    ctx = context(design, device)
    text = render(FRR, ctx)
    got = lines(text)
    assert got[0] == f'! frr.conf generated by netbox-aifabric for {device} from its aifabric config context'
    assert 'frr defaults datacenter' in got
    assert f'hostname {device}' in got
    assert got[-1] == 'end'
    missing = [line for line in FRR_LINES[design, device] if line not in got]
    assert not missing, f'missing lines {missing} in\n{text}'
    present = [line for line in FRR_ABSENT[design, device] if line in got]
    assert not present, f'unexpected lines {present} in\n{text}'
    # Every neighbour and EVPN peer of the context, with its remote AS, in its peer group.
    for n in ctx['bgp']['neighbors']:
        group = 'MLAG-PEER' if n['kind'] == 'mlag-peer' else 'UNDERLAY'
        assert f' neighbor {n["address"]} remote-as {n["remote_asn"]}' in got
        assert f' neighbor {n["address"]} peer-group {group}' in got
    for p in ctx['bgp']['evpn_peers']:
        assert f' neighbor {p["address"]} remote-as {p["remote_asn"]}' in got
        assert f' neighbor {p["address"]} peer-group OVERLAY' in got
    assert sum(line.startswith(' neighbor ') and ' remote-as ' in line for line in got) == len(
        ctx['bgp']['neighbors']
    ) + len(ctx['bgp']['evpn_peers'])


@pytest.mark.parametrize('design,device', CASES)
def test_frr_accepted_by_frr(design, device):
    assert_frr_accepts(render(FRR, context(design, device)))


@pytest.mark.parametrize('design', ['routed', 'evpn-vxlan'])
@pytest.mark.parametrize('device', SWITCHES)
def test_frr_ospf_underlay(design, device):
    ctx = ospf_context(design, device)
    assert ctx['ospf'] and ctx['fabric']['underlay'] == 'ospf'
    text = render(FRR, ctx)
    got = lines(text)
    assert 'router ospf' in got
    assert f' ospf router-id {ctx["router_id"]}' in got
    uplinks = [i['name'] for i in ctx['interfaces'] if i['kind'] == 'uplink']
    assert uplinks and set(uplinks) <= set(ctx['ospf']['interfaces'])
    for name in uplinks:
        block = got[got.index(f'interface {name}') :]
        assert block[2:5] == [' ip ospf area 0.0.0.0', ' ip ospf network point-to-point', 'exit'], block[:5]
    loopback = got[got.index('interface Loopback0') :]
    assert ' ip ospf area 0.0.0.0' in loopback[:5] and ' ip ospf passive' in loopback[:5]
    if design == 'routed':
        assert ctx['bgp'] is None
        assert not [line for line in got if line.startswith('router bgp')]
    else:
        # One ASN for the whole fabric: an iBGP EVPN overlay, the spines reflect the leaves' routes.
        assert f'router bgp {ctx["asn"]}' in got
        assert ' neighbor OVERLAY ebgp-multihop 3' not in got
        reflector = '  neighbor OVERLAY route-reflector-client'
        assert (reflector in got) == (device == 'spine1')
    assert_frr_accepts(text)
    sonic_text = render(SONIC, ctx)
    meta = json.loads(sonic_text)['DEVICE_METADATA']['localhost']
    assert ('bgp_asn' in meta) == bool(ctx['bgp'])  # no BGP over OSPF in the routed design: no bgp_asn
    assert '"None"' not in sonic_text


#
# SONiC
#


def sonic(design, device, ctx=None):
    text = render(SONIC, ctx or context(design, device))
    return text, json.loads(text)


@pytest.mark.parametrize('design,device', SONIC_CASES)
def test_sonic_golden(design, device):
    text, _ = sonic(design, device)
    check_golden(f'sonic/{design}-{device}.json', text)


@pytest.mark.parametrize('design,device', SONIC_CASES)
def test_sonic_common(design, device):
    ctx = context(design, device)
    _, db = sonic(design, device)
    meta = db['DEVICE_METADATA']['localhost']
    assert meta == {
        'bgp_asn': str(ctx['asn']),
        'default_pfcwd_status': 'enable',
        'docker_routing_config_mode': 'split-unified',
        'hostname': device,
        'mac': ctx['platform']['mac'],  # generic device types: no hwsku/platform (test_sonic_issue26.py has them)
        'type': 'SpineRouter' if device.startswith('spine') else 'LeafRouter',
    }
    neighbors = {address: (n['asn'], n['name']) for address, n in db['BGP_NEIGHBOR'].items()}
    assert neighbors == NEIGHBORS[design, device]
    assert set(db['BGP_NEIGHBOR']) == {n['address'] for n in ctx['bgp']['neighbors']}
    loopbacks = [key for key in db['LOOPBACK_INTERFACE'] if '|' in key]
    assert loopbacks == [f'{lo["name"]}|{lo["address"]}' for lo in ctx['loopbacks']]
    assert set(db['PORT']) == {i['name'] for i in ctx['interfaces']}
    for i in ctx['interfaces']:
        assert db['PORT'][i['name']]['speed'] == str(i['speed'] * 1000)
        assert db['PORT'][i['name']]['mtu'] == '9216'
        if i['address']:
            assert f'{i["name"]}|{i["address"]}' in db['INTERFACE']
        assert db['DEVICE_NEIGHBOR'][i['name']]['name'] == i['peer_device']
    # QoS (the NVIDIA Cumulus lossless RoCE preset): RoCE DSCP 26 → TC 3, CNP DSCP 48 → TC 6, PFC on priority 3.
    # The trust boundary: the profile's map on ports towards switches and RDMA NICs, every DSCP to TC 0 elsewhere.
    untrusted = {i['name'] for i in ctx['interfaces'] if i['trust'] == 'none'}
    assert db['DSCP_TO_TC_MAP'] == {
        'AIFABRIC': {'26': '3', '48': '6'},
        **({'AIFABRIC_UNTRUSTED': {str(d): '0' for d in range(64)}} if untrusted else {}),
    }
    assert db['TC_TO_QUEUE_MAP'] == {'AIFABRIC': {'3': '3', '6': '6'}}
    # PGs: the PFC priority 3 to its own PG (buffermgrd's), CNP's priority 6 to the lossy PG 0 (it has a buffer)
    assert db['TC_TO_PRIORITY_GROUP_MAP'] == {'AIFABRIC': {'3': '3', '6': '0'}}
    for i in ctx['interfaces']:
        port = db['PORT_QOS_MAP'][i['name']]
        assert port['dscp_to_tc_map'] == ('AIFABRIC_UNTRUSTED' if i['name'] in untrusted else 'AIFABRIC')
        assert (i['name'] in untrusted) == (i['kind'] not in ('uplink', 'mlag-peer', 'rdma', 'rail')), i['name']
        assert port.get('pfc_enable') == ('3' if i['pfc'] else None)
        assert db['QUEUE'][f'{i["name"]}|6'] == {'scheduler': 'AIFABRIC_STRICT'}
        assert db['QUEUE'][f'{i["name"]}|3'] == {'scheduler': 'AIFABRIC_DWRR_3', 'wred_profile': 'AIFABRIC_ECN'}
    assert db['SCHEDULER'] == {
        'AIFABRIC_STRICT': {'type': 'STRICT'},
        'AIFABRIC_DWRR_0': {'type': 'DWRR', 'weight': '50'},
        'AIFABRIC_DWRR_3': {'type': 'DWRR', 'weight': '50'},
    }
    # ECN marking on the RoCE TC only: the preset's TC 0 is left out (WRED on queue 0 would drop non-ECN TCP).
    assert db['WRED_PROFILE'] == {
        'AIFABRIC_ECN': {
            'ecn': 'ecn_green',
            'green_drop_probability': '100',
            'green_max_threshold': '1500000',
            'green_min_threshold': '150000',
            'wred_green_enable': 'true',
        }
    }
    assert not [key for key, q in db['QUEUE'].items() if key.endswith('|0') and 'wred_profile' in q]
    # PFC watchdog: the poll interval, and per PFC port the preset's 3 polls x 100 ms, SONiC's defaults for the rest.
    pfc_ports = [i['name'] for i in ctx['interfaces'] if i['pfc']]
    assert db['PFC_WD'] == {
        'GLOBAL': {'POLL_INTERVAL': '100'},
        **{name: {'action': 'drop', 'detection_time': '300', 'restoration_time': '200'} for name in pfc_ports},
    }
    # Buffers: each link's cable length (5 m in the rack, 40 m for the uplinks between racks); the generic device
    # types of the guide examples ship no platform buffer: no BUFFER_* table that would name a missing profile.
    assert db['CABLE_LENGTH'] == {
        'AZURE': {i['name']: '40m' if i['kind'] == 'uplink' else '5m' for i in ctx['interfaces']}
    }
    assert not {'BUFFER_POOL', 'BUFFER_PROFILE', 'BUFFER_PG', 'BUFFER_QUEUE'} & set(db)


def test_sonic_evpn_leaf():
    _, db = sonic('evpn-vxlan', 'leaf1')
    assert db['BGP_NEIGHBOR'] == {
        '10.255.2.0': {'admin_status': 'up', 'asn': '65100', 'local_addr': '10.255.2.1', 'name': 'spine1'},
        '10.255.2.4': {'admin_status': 'up', 'asn': '65100', 'local_addr': '10.255.2.5', 'name': 'spine2'},
        '10.255.3.1': {'admin_status': 'up', 'asn': '65101', 'local_addr': '10.255.3.0', 'name': 'leaf2'},
    }
    assert db['VXLAN_TUNNEL'] == {'vtep': {'src_ip': '10.255.1.1'}}
    assert db['VXLAN_EVPN_NVO'] == {'nvo': {'source_vtep': 'vtep'}}
    maps = {entry['vlan']: entry['vni'] for entry in db['VXLAN_TUNNEL_MAP'].values()}
    # The L2VNIs, and the L3VNI's VLAN (SONiC maps a VLAN to the VRF's VNI: VLAN, then the map, then the VRF's vni).
    assert maps == {**{f'Vlan{vid}': vni for vid, vni in L2VNIS.items()}, 'Vlan4000': '50001'}
    assert db['VLAN']['Vlan4000'] == {
        'admin_status': 'up',
        'description': 'L3VNI 50001 of Vrf-AI-CLUSTER',
        'mtu': '9216',
        'vlanid': '4000',
    }
    assert db['VLAN_INTERFACE']['Vlan4000'] == {'vrf_name': 'Vrf-AI-CLUSTER'}
    assert not [key for key in db['VLAN_MEMBER'] if key.startswith('Vlan4000|')]
    tables = list(db)
    assert (
        tables.index('VLAN') < tables.index('VXLAN_TUNNEL_MAP') < tables.index('VRF') < tables.index('VLAN_INTERFACE')
    )
    assert db['VXLAN_TUNNEL_MAP']['vtep|map_10040_Vlan40'] == {'vlan': 'Vlan40', 'vni': '10040'}
    assert db['VRF'] == {'Vrf-AI-CLUSTER': {'vni': '50001'}, 'Vrf-MGMT': {}}  # MGMT: a local VRF, no L3VNI
    assert db['VLAN_INTERFACE']['Vlan40'] == {'mac_addr': '02:00:00:00:00:aa', 'vrf_name': 'Vrf-AI-CLUSTER'}
    # MGMT: not one of the context's vrfs (a local VRF), yet an anycast gateway: the same MAC as every other
    assert db['VLAN_INTERFACE']['Vlan10'] == {'mac_addr': '02:00:00:00:00:aa', 'vrf_name': 'Vrf-MGMT'}
    assert 'Vlan40|10.40.0.1/24' in db['VLAN_INTERFACE']
    assert db['VLAN']['Vlan40'] == {'admin_status': 'up', 'description': 'RDMA', 'mtu': '9000', 'vlanid': '40'}
    assert db['VLAN_MEMBER']['Vlan40|Ethernet49'] == {'tagging_mode': 'untagged'}
    assert db['VLAN_MEMBER']['Vlan20|PortChannel1'] == {'tagging_mode': 'tagged'}
    assert 'Vlan40|PortChannel1' not in db['VLAN_MEMBER']  # the lossless VLAN is on the RDMA ports only
    assert len(db['VLAN_MEMBER']) == 5 * 2 + 3 + 6  # bonds: the data classes USERS and STORAGE only
    assert db['PORT_QOS_MAP']['Ethernet49']['pfc_enable'] == '3'
    assert 'pfc_enable' not in db['PORT_QOS_MAP']['Ethernet1']
    assert db['DSCP_TO_TC_MAP']['AIFABRIC']['26'] == '3'
    assert db['PORT']['Ethernet1']['speed'] == '25000'
    assert db['PORT']['Ethernet49']['speed'] == '100000'
    assert db['PORTCHANNEL']['PortChannel1000']['mtu'] == '9216'
    assert db['PORTCHANNEL_MEMBER'] == {
        **{f'PortChannel{n}|Ethernet{n}': {} for n in range(1, 6)},
        'PortChannel1000|Ethernet73': {},
        'PortChannel1000|Ethernet74': {},
    }
    assert db['MCLAG_DOMAIN'] == {
        '1': {'peer_ip': '10.255.3.1', 'peer_link': 'PortChannel1000', 'source_ip': '10.255.3.0'}
    }
    assert set(db['MCLAG_INTERFACE']) == {f'1|PortChannel{n}' for n in range(1, 6)}
    # The peer link: a trunk of every VLAN and of VLAN 4094, which carries the peer-link address.
    assert db['PORTCHANNEL_INTERFACE'] == {}
    assert db['VLAN']['Vlan4094'] == {
        'admin_status': 'up',
        'description': 'MLAG peer link',
        'mtu': '9216',
        'vlanid': '4094',
    }
    assert {key for key in db['VLAN_MEMBER'] if key.endswith('|PortChannel1000')} == {
        f'Vlan{vid}|PortChannel1000' for vid in (*L2VNIS, 4094)
    }
    assert db['VLAN_INTERFACE']['Vlan4094|10.255.3.0/31'] == {}
    assert db['MCLAG_UNIQUE_IP'] == {'Vlan4094': {'unique_ip': 'enable'}}
    assert db['INTERFACE'] == {
        'Ethernet65': {},
        'Ethernet65|10.255.2.1/31': {},
        'Ethernet67': {},
        'Ethernet67|10.255.2.5/31': {},
    }


@pytest.mark.parametrize('design,device', SONIC_CASES)
def test_sonic_design_tables(design, device):
    _, db = sonic(design, device)
    evpn_leaf = (design, device) == ('evpn-vxlan', 'leaf1')
    mlag = device == 'leaf1'  # every design's leaf1 is one of an MLAG pair in the guide
    assert mlag == bool(context(design, device)['mlag'])
    assert ('VXLAN_TUNNEL' in db) == evpn_leaf
    assert ('VRF' in db) == (device == 'leaf1')  # the L3VNI VRFs, and the guide's MGMT as a local VRF
    assert ('MCLAG_DOMAIN' in db) == mlag
    assert ('VLAN' in db) == ('PORTCHANNEL' in db) == (device == 'leaf1')
    if device == 'leaf1':
        l3vni = {'Vlan4000'} if evpn_leaf else set()
        assert set(db['VLAN']) == {f'Vlan{vid}' for vid in L2VNIS} | ({'Vlan4094'} if mlag else set()) | l3vni
    if mlag:
        assert db['MCLAG_DOMAIN']['1']['peer_link'] == 'PortChannel1000'
        assert db['VLAN_MEMBER']['Vlan4094|PortChannel1000'] == {'tagging_mode': 'tagged'}
        assert 'Vlan4094|10.255.3.0/31' in db['VLAN_INTERFACE']
        assert db['PORTCHANNEL_INTERFACE'] == {}
    else:
        assert 'Vlan4094' not in db.get('VLAN', {})
    if design == 'mlag':
        assert db['VLAN_INTERFACE']['Vlan20'] == {}  # USERS has no VRF in the MLAG design: the default VRF
        assert db['VLAN_INTERFACE']['Vlan10'] == {'vrf_name': 'Vrf-MGMT'}  # MGMT apart from it


# Context variants the guide does not have: each must still render valid JSON with the right tables.
def _no_qos(ctx):
    ctx['qos'] = None


def _pfcwd_times(ctx):
    watchdog = ctx['qos']['pfc_watchdog']
    watchdog.update(poll_interval=200, detection_time=200, restoration_time=400, action='forward', timeout=200)


def _strict_only(ctx):
    ctx['qos']['scheduler']['dwrr_weights'] = {}


def _dwrr_only(ctx):
    ctx['qos']['scheduler']['strict_tcs'] = []


def _no_scheduler(ctx):
    ctx['qos']['scheduler'] = {'strict_tcs': [], 'dwrr_weights': {}}


def _ecn_percent(ctx):
    ctx['qos']['ecn']['unit'] = 'percent'


def _trust_pcp(ctx):
    ctx['qos']['trust'] = 'pcp'
    for i in ctx['interfaces']:
        i['trust'] = 'pcp'


def _mixed_vlan_modes(ctx):
    ctx['lags'][0].update(untagged_vlan=10, tagged_vlans=[20])
    ctx['lags'][1].update(mode='tagged', tagged_vlans=[])  # a bond that only carries lossless VLANs: no member
    rdma = next(i for i in ctx['interfaces'] if i['name'] == 'Ethernet49')
    rdma.update(mode='tagged', untagged_vlan=40, tagged_vlans=[20, 30])


def _no_vlans(ctx):
    ctx['vlans'] = []


def _no_cable_length(ctx):
    ctx['qos']['cable_length'] = None


def _check_no_cable_length(db):
    # SONiC takes each link's cable length from the cabling, not the profile's single length
    assert set(db['CABLE_LENGTH']['AZURE'].values()) == {'5m', '40m'}


def _no_pfc(ctx):
    ctx['qos']['pfc_priorities'] = []


def _check_no_pfc(db):
    assert 'CABLE_LENGTH' not in db


def _no_mlag(ctx):
    ctx['mlag'] = None


def _check_no_qos(db):
    assert not {'DSCP_TO_TC_MAP', 'PORT_QOS_MAP', 'QUEUE', 'SCHEDULER', 'WRED_PROFILE', 'PFC_WD'} & set(db)
    assert db['DEVICE_METADATA']['localhost']['default_pfcwd_status'] == 'disable'


def _check_pfcwd_times(db):
    assert db['PFC_WD']['GLOBAL'] == {'POLL_INTERVAL': '200'}
    assert db['PFC_WD']['Ethernet49'] == {'action': 'forward', 'detection_time': '200', 'restoration_time': '400'}
    assert 'Ethernet1' not in db['PFC_WD']  # no PFC on the server bond members


def _check_strict_only(db):
    assert db['SCHEDULER'] == {'AIFABRIC_STRICT': {'type': 'STRICT'}}
    assert set(db['QUEUE']) == {f'{port}|6' for port in db['PORT']}


def _check_dwrr_only(db):
    assert 'AIFABRIC_STRICT' not in db['SCHEDULER']
    assert db['QUEUE']['Ethernet49|0'] == {'scheduler': 'AIFABRIC_DWRR_0'}  # no WRED on queue 0
    assert db['QUEUE']['Ethernet49|3'] == {'scheduler': 'AIFABRIC_DWRR_3', 'wred_profile': 'AIFABRIC_ECN'}
    assert len(db['QUEUE']) == 2 * len(db['PORT'])


def _check_no_scheduler(db):
    assert 'SCHEDULER' not in db and 'QUEUE' not in db


def _check_ecn_percent(db):
    assert 'WRED_PROFILE' not in db
    assert not [q for q in db['QUEUE'].values() if 'wred_profile' in q]


def _check_trust_pcp(db):
    assert not [port for port in db['PORT_QOS_MAP'].values() if 'dscp_to_tc_map' in port]


def _check_mixed_vlan_modes(db):
    members = db['VLAN_MEMBER']
    assert members['Vlan10|PortChannel1'] == {'tagging_mode': 'untagged'}
    assert members['Vlan20|PortChannel1'] == {'tagging_mode': 'tagged'}
    assert not [key for key in members if key.endswith('|PortChannel2')]
    assert members['Vlan40|Ethernet49'] == {'tagging_mode': 'untagged'}
    assert members['Vlan30|Ethernet49'] == {'tagging_mode': 'tagged'}


def _check_no_vlans(db):
    assert list(db['VLAN']) == ['Vlan4000', 'Vlan4094']  # the L3VNI's and the peer link's
    assert list(db['VLAN_INTERFACE']) == ['Vlan4000', 'Vlan4094', 'Vlan4094|10.255.3.0/31']
    assert list(db['VXLAN_TUNNEL_MAP']) == ['vtep|map_50001_Vlan4000']
    # The bonds still list VLANs 20/30 and the RDMA ports VLAN 40: no member of a VLAN that is not there.
    assert list(db['VLAN_MEMBER']) == ['Vlan4094|PortChannel1000']


def _check_no_mlag(db):
    assert 'MCLAG_DOMAIN' not in db and 'Vlan4094' not in db['VLAN']
    assert db['PORTCHANNEL_INTERFACE'] == {'PortChannel1000': {}, 'PortChannel1000|10.255.3.0/31': {}}


VARIANTS = {
    'no-qos': (_no_qos, _check_no_qos),
    'pfcwd-times': (_pfcwd_times, _check_pfcwd_times),
    'strict-only': (_strict_only, _check_strict_only),
    'dwrr-only': (_dwrr_only, _check_dwrr_only),
    'no-scheduler': (_no_scheduler, _check_no_scheduler),
    'ecn-percent': (_ecn_percent, _check_ecn_percent),
    'trust-pcp': (_trust_pcp, _check_trust_pcp),
    'mixed-vlan-modes': (_mixed_vlan_modes, _check_mixed_vlan_modes),
    'no-vlans': (_no_vlans, _check_no_vlans),
    'no-mlag': (_no_mlag, _check_no_mlag),
    'no-cable-length': (_no_cable_length, _check_no_cable_length),
    'no-pfc': (_no_pfc, _check_no_pfc),
}


@pytest.mark.parametrize('variant', VARIANTS)
def test_sonic_variants(variant):
    change, check = VARIANTS[variant]
    ctx = copy.deepcopy(context('evpn-vxlan', 'leaf1'))
    change(ctx)
    _, db = sonic('evpn-vxlan', 'leaf1', ctx)
    check(db)
