"""SONiC fidelity, one test per point: lossless buffers that exist (pools and profiles from the platform and the
QoS preset), cable lengths the lookup tables carry, the lossless PGs left to buffermgrd, CNP's priority in a PG with a
buffer, a complete DEVICE_METADATA, MGMT_PORT, one MAC per anycast gateway across the EVPN leaves, and BFD through
the control-plane ACL. Expectations come from the inputs (the preset, the cabling, the plan) and from the sources
facts/sonic.py cites, not from the output."""

import ipaddress
import json
import math
import re

import pytest

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.facts.sonic import SONIC_PLATFORMS
from tests.render_fixtures import DESIGNS, guide_intent, guide_spec, ospf_spec, plan_of
from tests.unit.templates.helpers import render

pytestmark = pytest.mark.pure

SONIC = 'sonic/config_db.json.j2'
SHIPPED = {'leaf': 'arista-dcs-7050sx3-48yc8-sonic', 'spine': '7726-32x-o'}
LOOKUP_ROWS = {'5m', '40m', '300m'}  # the cable lengths of the pg_profile_lookup.ini tables (facts/sonic.py [ini-td3])


def contexts(design='evpn-vxlan', shipped=True, underlay='ebgp', **intent):
    full = {**guide_intent(design, underlay), 'device_types': SHIPPED if shipped else {}, **intent}
    spec = guide_spec(design)
    return build_contexts(plan_of(ospf_spec(spec) if underlay == 'ospf' else spec), full)


def switches(design='evpn-vxlan', shipped=True, underlay='ebgp', **intent):
    """``{switch: (context, config_db)}``."""
    return {
        name: (ctx, json.loads(render(SONIC, ctx)))
        for name, ctx in contexts(design, shipped, underlay, **intent).items()
        if ctx['role'] in ('spine', 'leaf', 'border')
    }


def headroom(speed_gbps, cable_m, mtu=9216):
    """The xoff of buffer_headroom_mellanox.lua (sonic-swss), written out again: 2 MTU + cable both ways at 198e6 m/s
    + IEEE 802.3 31B.3.7 pause quanta x 512 bit times, rounded up to 1024 bytes."""
    quanta = {25: 80, 100: 394}[speed_gbps]
    on_cable = 2 * cable_m * speed_gbps * 1e9 / 198e6 / 8
    return math.ceil((2 * mtu + on_cable + quanta * 64) / 1024) * 1024


@pytest.mark.parametrize('design', DESIGNS)
def test_buffer_pools_and_profiles_exist_and_are_sized_from_the_platform(design):
    for name, (ctx, db) in switches(design).items():
        platform = SONIC_PLATFORMS[SHIPPED['spine' if ctx['role'] == 'spine' else 'leaf']]
        pfc = [i for i in ctx['interfaces'] if i['pfc']]
        used = {e['profile'] for table in ('BUFFER_PG', 'BUFFER_QUEUE') for e in db[table].values()}
        assert used <= set(db['BUFFER_PROFILE']), name
        assert {p['pool'] for p in db['BUFFER_PROFILE'].values()} <= set(db['BUFFER_POOL']), name
        xoff = sum(headroom(i['speed'], i['cable_length']) for i in pfc)  # one PFC priority (3) in the preset
        assert db['BUFFER_POOL']['ingress_lossless_pool'] == {
            'mode': 'dynamic',
            'size': str(platform.buffer_bytes),
            'type': 'ingress',
            **({'xoff': str(xoff)} if pfc else {}),
        }, name
        assert db['BUFFER_POOL']['egress_lossy_pool']['size'] == str(platform.buffer_bytes - xoff)
        for i in pfc:  # the lossless profile buildermgrd would create, under its name, with the computed headroom
            profile = db['BUFFER_PROFILE'][f'pg_lossless_{i["speed"]}000_{i["cable_length"]}m_profile']
            assert profile['xoff'] == str(headroom(i['speed'], i['cable_length']))
            assert profile['pool'] == 'ingress_lossless_pool'
        rows = {(r['speed'], r['cable']) for r in ctx['platform']['buffers']['pg_profile_lookup']}
        assert rows == {(i['speed'] * 1000, f'{i["cable_length"]}m') for i in pfc}


def test_generic_device_types_render_no_buffer_table_that_would_dangle():
    for name, (_, db) in switches(shipped=False).items():
        assert not {'BUFFER_POOL', 'BUFFER_PROFILE', 'BUFFER_PG', 'BUFFER_QUEUE'} & set(db), name
        assert 'CABLE_LENGTH' in db  # buffermgrd still needs it, over the platform's own pools


def test_cable_lengths_are_rows_of_the_lookup_tables_by_link():
    for name, (ctx, db) in switches().items():
        lengths = db['CABLE_LENGTH']['AZURE']
        assert set(lengths.values()) <= LOOKUP_ROWS
        for i in ctx['interfaces']:  # an uplink runs between racks; servers, BMCs and the peer link stay in the rack
            assert lengths[i['name']] == ('40m' if i['kind'] == 'uplink' else '5m'), (name, i['name'])


def test_lossless_pgs_are_left_to_buffermgrd():
    for name, (ctx, db) in switches().items():
        assert set(db['BUFFER_PG']) == {f'{i["name"]}|0' for i in ctx['interfaces']}, name
        pfc = {i['name'] for i in ctx['interfaces'] if i['pfc']}
        assert {port for port, q in db['PORT_QOS_MAP'].items() if q.get('pfc_enable')} == pfc


def test_every_priority_maps_to_a_pg_with_a_buffer():
    """CNP (priority 6 in the preset) to the lossy PG 0, which BUFFER_PG gives a profile; the PFC priority to its own
    PG, which buffermgrd creates from pfc_enable."""
    ctx, db = switches()['leaf1']
    pfc = set(ctx['qos']['pfc_priorities'])
    for priority, pg in db['TC_TO_PRIORITY_GROUP_MAP']['AIFABRIC'].items():
        assert int(pg) == (int(priority) if int(priority) in pfc else 0), priority
    assert db['TC_TO_PRIORITY_GROUP_MAP']['AIFABRIC'][str(ctx['qos']['cnp']['priority'])] == '0'


def test_device_metadata_is_complete_and_the_mac_pinned():
    rendered = switches()
    macs = set()
    for name, (ctx, db) in rendered.items():
        meta = db['DEVICE_METADATA']['localhost']
        platform = SONIC_PLATFORMS[SHIPPED['spine' if ctx['role'] == 'spine' else 'leaf']]
        assert (meta['hwsku'], meta['platform']) == (platform.hwsku, platform.platform)
        mac = meta['mac']
        assert re.fullmatch(r'02(:[0-9a-f]{2}){5}', mac)  # locally administered, unicast
        macs.add(mac)
    assert len(macs) == len(rendered)  # one per switch
    again = switches()
    assert {n: db['DEVICE_METADATA'] for n, (_, db) in again.items()} == {
        n: db['DEVICE_METADATA'] for n, (_, db) in rendered.items()
    }
    generic = switches(shipped=False)['leaf1'][1]['DEVICE_METADATA']['localhost']
    assert 'hwsku' not in generic and generic['mac'] == rendered['leaf1'][1]['DEVICE_METADATA']['localhost']['mac']


def test_mgmt_interface_names_a_rendered_mgmt_port():
    for name, (_, db) in switches().items():
        ports = {key.split('|')[0] for key in db['MGMT_INTERFACE']}
        assert ports == {'eth0'} and set(db['MGMT_PORT']) == ports, name


def test_every_evpn_anycast_gateway_has_one_mac_on_every_leaf():
    """One gateway address, one MAC: each VLAN_INTERFACE address that several leaves share carries the same
    mac_addr on all of them (MGMT and TELEMETRY included)."""
    macs = {}
    for name, (ctx, db) in switches().items():
        if ctx['role'] != 'leaf':
            continue
        for vlan in ctx['vlans']:
            if vlan['gateway'] and vlan['l2vni']:
                assert f'Vlan{vlan["vid"]}|{vlan["gateway"]}' in db['VLAN_INTERFACE']
                macs.setdefault(vlan['gateway'], set()).add(db['VLAN_INTERFACE'][f'Vlan{vlan["vid"]}'].get('mac_addr'))
    purposes = {v['name'] for v in contexts()['leaf1']['vlans'] if v['gateway'] and v['l2vni']}
    assert {'MGMT', 'TELEMETRY'} <= purposes
    assert macs and all(len(m) == 1 and None not in m for m in macs.values()), macs


@pytest.mark.parametrize('underlay', ['ebgp', 'ospf'])
@pytest.mark.parametrize('design', DESIGNS)
def test_bfd_is_admitted_by_the_control_plane_acl(design, underlay):
    """Every peer FRR runs BFD with (templates/frr: the UNDERLAY and MLAG-PEER BGP neighbours, OSPF on the
    uplinks) is a source of a CTRLPLANE table whose service (ANY) covers UDP 3784/4784."""
    for name, (ctx, db) in switches(design, underlay=underlay, bfd=True).items():
        tables = {t for t, v in db['ACL_TABLE'].items() if v['type'] == 'CTRLPLANE'}
        assert tables, name  # caclmgrd drops the rest: BFD needs a table
        admitted = [
            ipaddress.ip_network(rule['SRC_IP'])
            for key, rule in db['ACL_RULE'].items()
            if key.split('|')[0] in tables and 'ANY' in db['ACL_TABLE'][key.split('|')[0]]['services']
        ]
        peers = [n['address'] for n in (ctx['bgp'] or {}).get('neighbors', [])]
        ospf = (ctx['ospf'] or {}).get('interfaces', [])
        peers += [
            str(ipaddress.ip_interface(i['address']).network[0])
            for i in ctx['interfaces']
            if i['name'] in ospf and i['address']
        ]
        missing = [p for p in peers if not any(ipaddress.ip_address(p) in net for net in admitted)]
        assert not missing, (name, missing)
    for name, (_, db) in switches(design, underlay=underlay).items():
        assert 'AIFABRIC_BFD' not in db['ACL_TABLE'], name


@pytest.mark.parametrize('device', ['leaf1', 'spine1'])
def test_golden_on_the_shipped_device_types(device):
    """The guide's EVPN/VXLAN cluster on the shipped SONiC device types, BFD on: the buffer tables, DEVICE_METADATA
    and the BFD admission as a whole file."""
    from tests.unit.templates.helpers import check_golden

    check_golden(f'sonic/evpn-vxlan-{device}-shipped-bfd.json', render(SONIC, contexts(bfd=True)[device]))


def test_a_role_without_a_shipped_device_type_gets_no_platform_facts():
    """Only the leaves on a shipped SONiC device type: the spines keep no hwsku and no buffer table (not the
    leaves')."""
    intent = {**guide_intent('evpn-vxlan'), 'device_types': {'leaf': SHIPPED['leaf']}}
    built = build_contexts(plan_of(guide_spec('evpn-vxlan')), intent)
    assert built['leaf1']['platform']['hwsku'] == SONIC_PLATFORMS[SHIPPED['leaf']].hwsku
    assert built['spine1']['platform']['hwsku'] is None and built['spine1']['platform']['buffers'] is None
