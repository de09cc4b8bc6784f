"""A device type's derived port blocks keep the ports the last apply cabled (apply/hardware.py, pure): raising a
maximum (more uplinks, taken from the end) used to turn cabled RDMA ports into uplink ports, so the next plan saw a
pin in another use's block; now every held port keeps its use and the grown block takes free ports around them."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netbox_aifabric.facts.hardware import HardwarePort, RoleNeeds, assign_ports, held_uses
from netbox_aifabric.planner import SpecError

pytestmark = pytest.mark.pure

# a 48x25G + 8x100G leaf, as the shipped Arista DCS-7050SX3-48YC8
LEAF = [HardwarePort(f'Ethernet{i}', 25, (10, 1)) for i in range(1, 49)] + [
    HardwarePort(f'Ethernet{i}/1', 100, (40,)) for i in range(49, 57)
]


def needs(uplinks, rdma=1):
    return RoleNeeds(
        speeds={'peer_link': 100, 'uplink': 100, 'server': 25, 'rdma': 100, 'bmc': 1},
        fixed={'peer_link': 2, 'uplink': uplinks},
        per_server={'server': 1, 'rdma': rdma, 'bmc': 0},
    )


def cabled(blocks, per_use):
    """``{port: use}`` of the first ``per_use[use]`` ports of each block: what an apply cabled."""
    return {name: use for use, count in per_use.items() for name in blocks[use][:count]}


def test_without_held_ports_the_split_is_the_documented_one():
    assert assign_ports('leaf', 'x', LEAF, needs(2), {}, {}) == assign_ports('leaf', 'x', LEAF, needs(2), {})


# the last apply cabled RDMA on 49 and 51 (the server on 50 was removed), two uplinks, the peer link, four servers
HELD = {
    'Ethernet49/1': 'rdma',
    'Ethernet51/1': 'rdma',
    'Ethernet53/1': 'uplink',
    'Ethernet54/1': 'uplink',
    'Ethernet55/1': 'peer_link',
    'Ethernet56/1': 'peer_link',
    **{f'Ethernet{i}': 'server' for i in range(1, 5)},
}


def test_more_uplinks_take_free_ports_around_cabled_rdma_ports():
    before = assign_ports('leaf', 'x', LEAF, needs(2), {})
    assert all(name in before[use] for name, use in HELD.items())  # what the apply cabled was in its blocks
    after = assign_ports('leaf', 'x', LEAF, needs(4), {}, HELD)
    for name, use in HELD.items():
        assert name in after[use], (name, use)
    # the two new uplinks are the free 100G ports (50, 52), not the cabled 51
    assert after['uplink'] == ('Ethernet50/1', 'Ethernet52/1', 'Ethernet53/1', 'Ethernet54/1')
    assert after['rdma'] == ('Ethernet49/1', 'Ethernet51/1')


def test_the_derived_blocks_without_held_ports_move_cabled_ports():
    """The bug the held ports fix: without them, raising the uplinks turns the cabled RDMA port 51 into an uplink."""
    after = assign_ports('leaf', 'x', LEAF, needs(4), {})
    assert 'Ethernet51/1' in after['uplink']


def test_a_use_the_port_map_states_is_not_held():
    before = assign_ports('leaf', 'x', LEAF, needs(2), {})
    held = cabled(before, {'rdma': 1})
    stated = {'uplink': ['Ethernet49/1', 'Ethernet50/1']}
    after = assign_ports('leaf', 'x', LEAF, needs(2), stated, held)
    assert after['uplink'] == ('Ethernet49/1', 'Ethernet50/1')  # the planner releases the RDMA pin, with a warning
    assert 'Ethernet49/1' not in after['rdma']


def test_growth_that_does_not_fit_around_the_cabled_ports_is_a_named_error():
    before = assign_ports('leaf', 'x', LEAF, needs(2), {})
    held = cabled(before, {'rdma': 4, 'uplink': 2, 'peer_link': 2})
    with pytest.raises(SpecError) as e:
        assign_ports('leaf', 'x', LEAF, needs(4), {}, held)
    assert e.value.field == 'port_map.leaf.uplink'
    assert '4 needed' in e.value.message


def test_held_uses_reads_the_port_keys_of_one_role():
    allocations = {
        'port:leaf:1:rdma:3:1': 'Ethernet49/1',
        'port:leaf:2:uplink:1:1': 'Ethernet53/1',
        'port:leaf:3:server:7': 'Ethernet53/1',  # one name, two uses (a port-map change): not held
        'port:spine:1:downlink:1:1': 'Ethernet1',
        'loopback:leaf:1': '10.0.0.1/32',
    }
    assert held_uses(allocations, 'leaf') == {'Ethernet49/1': 'rdma'}
    assert held_uses(allocations, 'spine') == {'Ethernet1': 'downlink'}


@given(uplinks=st.sampled_from([2, 4]), grown=st.sampled_from([2, 4]), data=st.data())
def test_any_growth_keeps_every_held_port_in_its_use_or_is_a_named_error(uplinks, grown, data):
    """Any subset of each block cabled, any growth of the uplinks: every cabled port keeps its use, a port has one
    use, the uplinks are as many as needed; or the named error of a growth that does not fit around them."""
    before = assign_ports('leaf', 'x', LEAF, needs(uplinks), {})
    held = {
        name: use
        for use in ('server', 'rdma', 'uplink', 'peer_link')
        for name, on in zip(before[use], data.draw(st.lists(st.booleans(), min_size=len(before[use])), label=use))
        if on
    }
    try:
        after = assign_ports('leaf', 'x', LEAF, needs(max(uplinks, grown)), {}, held)
    except SpecError as e:
        assert e.field == 'port_map.leaf.uplink'
        return
    for name, use in held.items():
        assert name in after[use]
    owners = [name for names in after.values() for name in names]
    assert len(owners) == len(set(owners))  # a port has one use
    assert len(after['uplink']) == max(uplinks, grown)
