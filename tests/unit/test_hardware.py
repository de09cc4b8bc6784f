"""The port map onto a device type's interface templates (apply/hardware.py, pure): speeds from NetBox interface
types, the documented default split, stated ports, and the named errors."""

import pytest

from netbox_aifabric.facts.hardware import HardwarePort, RoleNeeds, assign_ports, check_port_map_shape, type_speed
from netbox_aifabric.planner import SpecError

pytestmark = pytest.mark.pure

# a 48x25G + 8x100G leaf, as the shipped Arista DCS-7050SX3-48YC8
LEAF = [HardwarePort(f'Ethernet{i}', 25, (10, 1)) for i in range(1, 49)] + [
    HardwarePort(f'Ethernet{i}/1', 100, (40,)) for i in range(49, 57)
]


def leaf_needs(uplinks=2, peer=2, rdma=1, bmc=0, rdma_speed=100):
    return RoleNeeds(
        speeds={'peer_link': 100, 'uplink': 100, 'server': 25, 'rdma': rdma_speed, 'bmc': 1},
        fixed={'peer_link': peer, 'uplink': uplinks},
        per_server={'server': 1, 'rdma': rdma, 'bmc': bmc},
    )


@pytest.mark.parametrize(
    ('type_', 'expected'),
    [
        ('25gbase-x-sfp28', (25, (10, 1))),
        ('100gbase-x-qsfp28', (100, (40,))),
        ('1000base-t', (1, ())),
        ('400gbase-x-osfp', (400, (200, 100))),
        ('1.6tbase-x-osfp1600', (1600, ())),
        ('100base-tx', None),
        ('2.5gbase-t', None),
        ('virtual', None),
        ('lag', None),
        ('infiniband-ndr', None),
    ],
)
def test_type_speed(type_, expected):
    assert type_speed(type_) == expected


def test_default_split_of_a_48x25g_8x100g_leaf():
    blocks = assign_ports('leaf', 'DCS-7050SX3-48YC8', LEAF, leaf_needs(), {})
    assert blocks['peer_link'] == ('Ethernet55/1', 'Ethernet56/1')
    assert blocks['uplink'] == ('Ethernet53/1', 'Ethernet54/1')
    assert blocks['rdma'] == tuple(f'Ethernet{i}/1' for i in range(49, 53))
    assert blocks['server'] == tuple(f'Ethernet{i}' for i in range(1, 49))


def test_uses_on_the_same_ports_split_them_in_blocks():
    # RDMA at 25G and BMCs (1G, which the SFP28 cages run) share the 25G ports with the servers: 16 each
    blocks = assign_ports('leaf', 'x', LEAF, leaf_needs(bmc=1, rdma_speed=25), {})
    assert blocks['server'] == tuple(f'Ethernet{i}' for i in range(1, 17))
    assert blocks['rdma'] == tuple(f'Ethernet{i}' for i in range(17, 33))
    assert blocks['bmc'] == tuple(f'Ethernet{i}' for i in range(33, 49))


def test_stated_ports_and_ranges_win():
    stated = {'uplink': ['Ethernet49/1..Ethernet50/1'], 'peer_link': ['Ethernet51/1', 'Ethernet52/1']}
    blocks = assign_ports('leaf', 'x', LEAF, leaf_needs(), stated)
    assert blocks['uplink'] == ('Ethernet49/1', 'Ethernet50/1')
    assert blocks['peer_link'] == ('Ethernet51/1', 'Ethernet52/1')
    assert blocks['rdma'] == tuple(f'Ethernet{i}/1' for i in range(53, 57))


@pytest.mark.parametrize(
    ('needs', 'stated', 'field', 'message'),
    [
        (
            leaf_needs(uplinks=8),
            {},
            'port_map.leaf.uplink',
            'the leaf device type x has 6 free ports at 100G for uplinks (8 at 100G, 48 at 25G in all, 2 for the '
            'MLAG peer link): 8 needed (the declared maximums)',
        ),
        (
            leaf_needs(uplinks=6),
            {},
            'port_map.leaf.rdma',
            'the leaf device type x has no free port that runs 100G for RDMA ports',
        ),
        (leaf_needs(), {'uplink': ['Ethernet57/1']}, 'port_map.leaf.uplink', 'Ethernet57/1 is not a port of'),
        (leaf_needs(), {'uplink': ['Ethernet1']}, 'port_map.leaf.uplink', 'Ethernet1 runs 25G; the leaf uplinks'),
        (
            leaf_needs(),
            {'uplink': ['Ethernet49/1'], 'peer_link': ['Ethernet49/1']},
            'port_map.leaf.peer_link',
            'Ethernet49/1 is in port_map.leaf.uplink too',
        ),
        (leaf_needs(), {'server': ['Ethernet9..Ethernet2']}, 'port_map.leaf.server', 'Ethernet2 comes before'),
    ],
)
def test_named_errors(needs, stated, field, message):
    with pytest.raises(SpecError) as caught:
        assign_ports('leaf', 'x', LEAF, needs, stated)
    assert caught.value.field == field
    assert message in caught.value.message


def test_port_map_shape():
    assert check_port_map_shape({}) == []
    assert check_port_map_shape({'leaf': {'uplink': ['Ethernet49/1']}, 'spine': {'downlink': ['swp1..swp32']}}) == []
    assert check_port_map_shape([]) != []
    errors = check_port_map_shape({'core': {}, 'leaf': {'downlink': ['x']}, 'spine': {'downlink': 'swp1'}})
    assert [e.split(':')[0] for e in errors] == ['unknown role "core" (known', 'leaf.downlink', 'spine.downlink']
