"""Breakouts (``port_map.<role>.breakout``, apply/hardware.py, pure): a port split into lane ports named as each NOS
names them, placed where the parent was, at the lane speed; the lane ports' SONiC lanes; the named errors; and what
the NVUE and SONiC templates render for a lane port's parent (NVUE ``link breakout``, SONiC BREAKOUT_CFG, checked
against sonic-breakout_cfg.yang)."""

import copy
import json

import pytest
from hypothesis import example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from netbox_aifabric.facts.hardware import (
    Breakout,
    HardwarePort,
    RoleNeeds,
    apply_breakouts,
    assign_ports,
    breakout_names,
    check_port_map_shape,
)
from netbox_aifabric.facts.platform_ports import SONIC_PORTS_DIR, breakout_facts, breakout_modes, port_facts
from netbox_aifabric.planner import SpecError
from tests.hypothesis_profiles import examples
from tests.render_fixtures import guide_contexts
from tests.unit.templates.helpers import load_yaml, render
from tests.unit.templates.sonic_yang import violations

pytestmark = pytest.mark.pure

# a 32x100G switch as NVIDIA names its ports (the shipped SN2700)
SN2700 = [HardwarePort(f'swp{i}', 100, (40,)) for i in range(1, 33)]


@pytest.mark.parametrize(
    ('name', 'count', 'lanes', 'expected'),
    [
        ('Ethernet49/1', 4, None, ['Ethernet49/1', 'Ethernet49/2', 'Ethernet49/3', 'Ethernet49/4']),
        ('swp7', 4, None, ['swp7s0', 'swp7s1', 'swp7s2', 'swp7s3']),
        ('swp7', 2, None, ['swp7s0', 'swp7s1']),
        ('Ethernet96', 4, '97,98,99,100', ['Ethernet96', 'Ethernet97', 'Ethernet98', 'Ethernet99']),
        ('Ethernet96', 2, '97,98,99,100', ['Ethernet96', 'Ethernet98']),
        ('Ethernet96', 4, None, None),  # SONiC naming needs the lanes
        ('Ethernet96', 8, '97,98,99,100', None),  # more lane groups than lanes
        ('Eth1/1/1', 4, None, None),
    ],
)
def test_lane_names_per_nos(name, count, lanes, expected):
    assert breakout_names(name, count, lanes) == expected


def test_lane_ports_replace_their_parent_in_place():
    ports, breakouts = apply_breakouts('leaf', 'SN2700', SN2700, ['swp1..swp2:4x25G'])
    names = [p.name for p in ports]
    assert names[:9] == [f'swp{n}s{i}' for n in (1, 2) for i in range(4)] + ['swp3']
    assert len(ports) == 32 - 2 + 8
    assert all(p.speed == 25 for p in ports[:8]) and ports[8].speed == 100
    assert breakouts['swp2s3'] == Breakout('swp2', 4, 25, 3)
    assert breakouts['swp2s3'].mode == '4x25G'


def test_servers_land_on_lane_ports():
    """25G server NICs take the lane ports (exact speed first), uplinks and the peer link the 100G ports left."""
    ports, _ = apply_breakouts('leaf', 'SN2700', SN2700, ['swp1..swp4:4x25G'])
    needs = RoleNeeds(
        speeds={'peer_link': 100, 'uplink': 100, 'server': 25, 'rdma': 100, 'bmc': 1},
        fixed={'peer_link': 2, 'uplink': 2},
        per_server={'server': 1, 'rdma': 0, 'bmc': 0},
    )
    blocks = assign_ports('leaf', 'SN2700', ports, needs, {'breakout': ['swp1..swp4:4x25G']})
    assert blocks['server'] == tuple(f'swp{n}s{i}' for n in range(1, 5) for i in range(4))
    assert blocks['peer_link'] == ('swp31', 'swp32')
    assert blocks['uplink'] == ('swp29', 'swp30')


def test_sonic_lane_ports_share_the_parent_lanes():
    facts = {'Ethernet0': {'lanes': '1,2,3,4', 'alias': 'Eth1(Port1)', 'index': 1}}
    ports = [HardwarePort('Ethernet0', 100), HardwarePort('Ethernet4', 100)]
    _, breakouts = apply_breakouts('leaf', 'x', ports, ['Ethernet0:2x50G'], facts)
    assert breakout_facts(breakouts, facts) == {
        'Ethernet0': {'lanes': '1,2', 'alias': 'Eth1(Port1)/1', 'index': 1},
        'Ethernet2': {'lanes': '3,4', 'alias': 'Eth1(Port1)/2', 'index': 1},
    }


# sonic-net/sonic-buildimage device/accton/x86_64-accton_as7726_32x-r0/platform.json: port 5 (Ethernet16, lanes
# 17-20) in 4x25G is Eth5/1(Port5) .. Eth5/4(Port5), each with the parent's index 5; 2x50G is Eth5/1, Eth5/2.
AS7726_PORT5_4X25G = ['Eth5/1(Port5)', 'Eth5/2(Port5)', 'Eth5/3(Port5)', 'Eth5/4(Port5)']


@pytest.mark.parametrize(('mode', 'aliases'), [('4x25G', AS7726_PORT5_4X25G), ('2x50G', AS7726_PORT5_4X25G[:2])])
def test_sonic_lane_aliases_come_from_the_platforms_breakout_modes(mode, aliases):
    slug = '7726-32x-o'
    facts, modes = port_facts(slug), breakout_modes(slug)
    ports = [HardwarePort(name, 100) for name in facts]
    _, breakouts = apply_breakouts('leaf', slug, ports, [f'Ethernet16:{mode}'], facts, modes)
    lanes = [lane for lane in breakouts if breakouts[lane].parent == 'Ethernet16']
    out = breakout_facts(breakouts, facts, modes)
    assert [out[lane]['alias'] for lane in lanes] == aliases
    assert {out[lane]['index'] for lane in lanes} == {5}
    assert ','.join(out[lane]['lanes'] for lane in lanes) == '17,18,19,20'


def test_every_shipped_breakout_mode_names_one_alias_per_lane_port():
    for path in sorted(SONIC_PORTS_DIR.glob('*.yaml')):
        slug = load_yaml(path.read_text())['device_type']
        for port, modes in breakout_modes(slug).items():
            for mode, aliases in modes.items():
                assert len(aliases) == int(mode.split('x')[0]), (slug, port, mode)


def test_a_mode_the_sonic_platform_does_not_offer_is_a_named_error():
    """The 7050SX3-48YC8's platform.json offers its QSFP ports 1x100G and 1x40G only: no breakout under SONiC."""
    slug = 'arista-dcs-7050sx3-48yc8-sonic'
    facts, modes = port_facts(slug), breakout_modes(slug)
    ports = [HardwarePort(name, 100 if ',' in f['lanes'] else 25) for name, f in facts.items()]
    with pytest.raises(SpecError) as error:
        apply_breakouts('leaf', slug, ports, ['Ethernet48:4x25G'], facts, modes)
    assert error.value.field == 'port_map.leaf.breakout'
    assert 'Ethernet48 on arista-dcs-7050sx3-48yc8-sonic does not break out into 4x25G' in str(error.value)
    assert 'the platform offers 1x100G, 1x40G' in str(error.value)


@pytest.mark.parametrize(
    ('entries', 'message'),
    [
        (['swp1:4x25'], '\'swp1:4x25\': write "<ports>:<lanes>x<speed>G"'),
        (['swp1:3x25G'], "'swp1:3x25G': write"),
        (['swp1:4x0G'], "'swp1:4x0G': write"),  # lanes of 0G would take no NIC: refused, not silently unusable
        (['swp40:4x25G'], 'swp40 is not a port of the device type SN2700'),
        (['swp1:4x50G'], 'swp1 runs 100G: 4 lanes at 50G need 200G'),
        (['swp2..swp1:4x25G'], 'swp2..swp1: swp1 comes before swp2'),
    ],
)
def test_named_errors(entries, message):
    with pytest.raises(SpecError) as error:
        apply_breakouts('leaf', 'SN2700', SN2700, entries)
    assert error.value.field == 'port_map.leaf.breakout'
    assert message in str(error.value)


def test_a_port_whose_lanes_cannot_be_named():
    with pytest.raises(SpecError, match='the lane names of a breakout are known for EOS'):
        apply_breakouts('spine', 'x', [HardwarePort('Ethernet0', 100)], ['Ethernet0:4x25G'])


def test_port_map_shape_knows_breakout():
    assert check_port_map_shape({'leaf': {'breakout': ['swp1..swp8:4x25G']}, 'spine': {'breakout': []}}) == []
    assert check_port_map_shape({'leaf': {'breakout': ['swp1']}}) == [
        'leaf.breakout: a list of "<ports>:<lanes>x<speed>G", e.g. "swp1..swp8:4x25G"'
    ]


def _with_breakout(ctx, count=4):
    """A copy of a leaf context whose first server port is lane 1 of a broken-out parent, the rest untouched."""
    ctx = copy.deepcopy(ctx)
    port = next(i for i in ctx['interfaces'] if i['kind'] == 'server')
    port['breakout'] = {'parent': 'swp60', 'count': count, 'speed': 25, 'mode': f'{count}x25G'}
    return ctx, port


def test_nvue_breaks_out_the_parent_once():
    ctx, _ = _with_breakout(guide_contexts('evpn-vxlan')['leaf1'])
    ctx['interfaces'][1]['breakout'] = dict(next(i['breakout'] for i in ctx['interfaces'] if i.get('breakout')))
    text = render('cumulus/startup.yaml.j2', ctx)
    assert text.count('\n      swp60:') == 1  # two lane ports, one parent block (YAML would hide a duplicate key)
    interfaces = load_yaml(text)[0]['set']['interface']
    assert interfaces['swp60'] == {'type': 'swp', 'link': {'breakout': {'4x': {}}}}
    plain = guide_contexts('evpn-vxlan')['leaf1']
    assert 'breakout' not in render('cumulus/startup.yaml.j2', plain)  # negative control


def test_sonic_breakout_cfg_per_parent():
    ctx, port = _with_breakout(guide_contexts('evpn-vxlan')['leaf1'], count=2)
    port['breakout']['parent'] = 'Ethernet48'
    db = json.loads(render('sonic/config_db.json.j2', ctx))
    assert db['BREAKOUT_CFG'] == {'Ethernet48': {'brkout_mode': '2x25G'}}
    assert not [v for v in violations(db) if v.startswith('BREAKOUT_CFG')]
    db['BREAKOUT_CFG']['Ethernet48']['brkout_mod'] = 'x'  # negative control: a misspelled field
    assert "BREAKOUT_CFG|Ethernet48: field 'brkout_mod' is not in sonic-breakout_cfg" in violations(db)
    assert 'BREAKOUT_CFG' not in json.loads(render('sonic/config_db.json.j2', guide_contexts('evpn-vxlan')['leaf1']))


@given(
    st.lists(
        st.one_of(
            st.text(max_size=30),
            st.integers(),
            st.none(),
            st.from_regex(r'swp[0-9]{1,2}(\.\.swp[0-9]{1,2})?:[0-9]x[0-9]{1,4}G', fullmatch=True),
        ),
        max_size=4,
    )
)
@example(['swp1:4x0G'])  # zero-speed lanes: the shape check and the split must both refuse them
@hypothesis_settings(max_examples=examples(300), deadline=None)
def test_hostile_breakout_entries_end_in_a_named_error(entries):
    """Arbitrary port-map breakout entries: the shape check names the field, the split succeeds or raises a
    SpecError on port_map.leaf.breakout; never another exception."""
    shape = check_port_map_shape({'leaf': {'breakout': entries}})
    assert all(message.startswith('leaf.breakout') for message in shape)
    try:
        ports, breakouts = apply_breakouts('leaf', 'SN2700', SN2700, entries)
    except SpecError as error:
        assert error.field == 'port_map.leaf.breakout'
    else:
        assert not shape  # what the split accepts, the shape check accepts too
        assert all(p.speed >= 1 for p in ports) and set(breakouts) <= {p.name for p in ports}
