"""A previous plan is pinned only where it can be honoured: another fabric's plan is refused, a damaged
one (a value held twice) is refused, and pins a design change made impossible (a switch address outside its new
subnet, a port whose block changed use or left the inventory) are released with a warning, never kept silently."""

import contextlib
import copy
import io
import json

import netaddr
import pytest
from hypothesis import given
from hypothesis import strategies as st

from netbox_aifabric.intake.cli import main
from netbox_aifabric.planner import SpecError, load_spec, plan_fabric
from netbox_aifabric.planner.previous import RELEASED_PIN, check_previous
from tests.unit.planner.helpers import EXAMPLES, example
from tests.unit.planner.test_fuzz import FUZZ, JSON_LIKE

pytestmark = pytest.mark.pure


def plan_of(data, previous=None):
    return plan_fabric(load_spec(data), previous=previous)


def released(plan):
    return {w.field.removeprefix('previous.allocations.'): w.message for w in plan.warnings if w.code == RELEASED_PIN}


# Identity


def test_another_fabrics_plan_is_refused():
    previous = plan_of(example('routed')).to_dict()
    other = example('routed')
    other['name'] = 'other-lab'
    with pytest.raises(SpecError) as e:
        plan_of(other, previous)
    assert e.value.field == 'previous.fabric'
    assert 'of fabric "ai-lab", not of "other-lab"' in e.value.message
    with pytest.raises(SpecError, match='previous.fabric'):
        plan_of(other, plan_of(example('routed')))  # a Plan object too


def test_a_plan_naming_no_fabric_is_refused():
    previous = plan_of(example('routed')).to_dict()
    del previous['fabric']
    with pytest.raises(SpecError, match=r'^previous.fabric: the previous plan names no fabric'):
        plan_of(example('routed'), previous)
    previous['fabric'] = 7
    with pytest.raises(SpecError, match=r'^previous.fabric: the previous plan names a int as its fabric'):
        plan_of(example('routed'), previous)


def test_the_netbox_record_needs_no_name_and_the_cli_checks_it(tmp_path, capsys):
    """The NetBox side pins the bare allocations of the fabric's own record; the CLI's file must name the fabric."""
    plan = plan_of(example('routed'))
    assert plan_of(example('routed'), dict(plan.allocations)).allocations == plan.allocations
    (tmp_path / 'p.json').write_text(json.dumps({**plan.to_dict(), 'fabric': 'other-lab'}))
    status = main(['plan', str(EXAMPLES / 'guide-routed.yaml'), '--previous', str(tmp_path / 'p.json')])
    assert status == 2
    assert capsys.readouterr().err.startswith(
        'netbox-aifabric: error: previous.fabric: the previous plan is of fabric "other-lab", not of "ai-lab"'
    )


# Values held twice


def test_two_bonds_on_one_lag_number_of_a_shared_leaf_is_an_error():
    previous = plan_of(example('routed')).to_dict()
    previous['allocations']['lag:server:2'] = previous['allocations']['lag:server:1']
    with pytest.raises(SpecError) as e:
        plan_of(example('routed'), previous)
    assert e.value.field == 'previous.allocations.lag:server:2'
    assert f'LAG number {previous["allocations"]["lag:server:1"]} is pinned for lag:server:1 too' in e.value.message


def test_one_esi_on_two_segments_is_an_error():
    previous = plan_of(example('evpn-mh')).to_dict()
    esis = sorted(k for k in previous['allocations'] if k.startswith('esi:'))
    assert len(esis) >= 2
    previous['allocations'][esis[1]] = previous['allocations'][esis[0]]
    with pytest.raises(SpecError) as e:
        plan_of(example('evpn-mh'), previous)
    assert e.value.field == f'previous.allocations.{max(esis[:2])}'
    assert f'is held by {min(esis[:2])} too' in e.value.message


@pytest.mark.parametrize(
    ('first', 'second'),
    [
        ('loopback:leaf:1', 'loopback:leaf:2'),
        ('uplink:leaf:1:spine:1:1', 'uplink:leaf:1:spine:2:1'),
        ('port:leaf:1:server:1', 'port:leaf:1:server:2'),
        ('subnet:10:rack:1', 'subnet:20:rack:1'),
    ],
)
def test_one_value_on_two_keys_is_an_error(first, second):
    allocations = dict(plan_of(example('routed')).allocations)
    allocations[second] = allocations[first]
    with pytest.raises(SpecError) as e:
        check_previous(allocations)
    assert (e.value.field, e.value.message) == (
        f'previous.allocations.{second}',
        f'"{allocations[first]}" is held by {first} too: a previous plan gives each {first.split(":")[0]} value to '
        'one allocation only',
    )


def test_one_port_name_on_two_switches_is_not_a_duplicate():
    allocations = dict(plan_of(example('routed')).allocations)
    assert allocations['port:leaf:1:uplink:1:1'] == allocations['port:leaf:2:uplink:1:1']  # Ethernet65 on each
    assert check_previous(allocations) == allocations


# Pins a design change made impossible


def test_evpn_plan_as_previous_of_the_routed_design_moves_every_svi_into_its_rack_subnet():
    evpn = plan_of(example('evpn-vxlan'))
    routed = plan_of(example('routed'), evpn.to_dict())
    allocations = dict(routed.allocations)
    svis = sorted(k for k in allocations if k.startswith('svi:') and k not in routed.reserved)
    assert svis
    stale = [k for k in svis if k in dict(evpn.allocations)]
    # the servers' addresses move too where their class's subnet became a rack subnet; the others keep theirs
    before = dict(evpn.allocations)
    hosts = [k for k in allocations if k.startswith('host:')]
    assert hosts and set(hosts) <= set(before)
    moved = [k for k in hosts if netaddr.IPNetwork(before[k]).cidr != netaddr.IPNetwork(allocations[k]).cidr]
    assert moved and all(allocations[k] == before[k] for k in hosts if k not in moved)
    assert sorted(released(routed)) == sorted(stale + moved)
    for key in svis:  # svi:<vid>:leaf:<id> lies in the subnet of the leaf's rack (one rack: leaves 1 and 2)
        vid = key.split(':')[1]
        subnet = netaddr.IPNetwork(allocations[f'subnet:{vid}:rack:1'])
        address = netaddr.IPNetwork(allocations[key])
        assert address.cidr == subnet and address.ip not in (subnet.network, subnet[1], subnet.broadcast), key
    leaf1_mgmt = 'svi:10:leaf:1'
    assert released(routed)[leaf1_mgmt] == (
        f'released: leaf1: {dict(evpn.allocations)[leaf1_mgmt]} is not an address of its subnet '
        f'{allocations["subnet:10:rack:1"]} now: it takes a free address of it'
    )


def test_an_svi_pinned_inside_its_subnet_stays():
    plan = plan_of(example('routed'))
    again = plan_of(example('routed'), plan.to_dict())
    assert released(again) == {}
    assert again.allocations == plan.allocations


def _leaf_ports(data, **blocks):
    data['leaf_platform'].update(blocks)
    return data


def test_ports_whose_block_changed_use_move_even_at_the_link_speed():
    """The first 8 ports become 100G uplinks, the server and RDMA blocks shift up: a 25G server NIC on a port now an
    uplink, an RDMA NIC on a port now a 25G server port and an uplink on a port now an RDMA port (100G both) all
    move, each with a warning: a port in another use's block is that use's (never kept silently, nor kept at the
    cost of the block's own links)."""
    before = plan_of(example('routed'))
    spec = _leaf_ports(
        example('routed'),
        uplink_ports={'first': 1, 'count': 8, 'speed': 100},
        server_ports={'first': 9, 'count': 48, 'speed': 25},
        rdma_ports={'first': 57, 'count': 16, 'speed': 100},
    )
    after = plan_of(spec, before.to_dict())
    old, new = dict(before.allocations), dict(after.allocations)
    number = {k: int(v.removeprefix('Ethernet')) for k, v in old.items() if k.startswith('port:leaf:')}
    blocks = {'uplink': range(1, 9), 'server': range(9, 57), 'rdma': range(57, 73), 'peer_link': range(73, 75)}

    def use(key):
        return key.split(':')[3]

    moved = sorted(k for k, n in number.items() if n not in blocks[use(k)])
    assert {use(k) for k in moved} == {'server', 'rdma', 'uplink'}  # not vacuous: each kind of change is there
    assert sorted(released(after)) == moved
    for key in moved:
        assert int(new[key].removeprefix('Ethernet')) in blocks[use(key)], key
    server_key = next(k for k in moved if use(k) == 'server')
    assert released(after)[server_key] == (
        f'released: leaf{server_key.split(":")[2]} {old[server_key]} was its server port and is a port of '
        'uplink_ports now: the link moves to a free server_ports port'
    )
    assert {k: new[k] for k in old if k not in moved} == {k: old[k] for k in old if k not in moved}


def test_a_port_broken_out_into_lanes_is_not_cabled_with_its_lanes():
    """An uplink on Ethernet65, then the port map breaks Ethernet65 into lanes that serve the uplinks."""
    before = plan_of(example('routed'))
    lanes = tuple(f'Ethernet65/{n}' for n in range(1, 5)) + tuple(f'Ethernet{n}' for n in range(66, 73))
    spec = _leaf_ports(example('routed'), uplink_ports={'names': list(lanes), 'speed': 100})
    after = plan_of(spec, before.to_dict())
    ports = [v for k, v in after.allocations if k.startswith('port:leaf:1:')]
    assert 'Ethernet65' not in ports and 'Ethernet65/1' in ports
    assert 'port:leaf:1:uplink:1:1' in released(after)


def _parent_and_lanes_spec():
    """An inventory that holds a port and its own lanes (a port map naming both): Ethernet65 and Ethernet65/1…/4."""
    lanes = ('Ethernet65', *(f'Ethernet65/{n}' for n in range(1, 5)), *(f'Ethernet{n}' for n in range(66, 73)))
    return _leaf_ports(example('routed'), uplink_ports={'names': list(lanes), 'speed': 100})


def _cabled_with_a_lane(plan):
    """``[(switch, port, lane)]`` of each port cabled together with one of its own breakout lanes."""
    used = {
        (link_end[0], link_end[1])
        for link in plan.links
        for link_end in ((link.a_node, link.a_interface), (link.b_node, link.b_interface))
    }
    return sorted(
        (node, port.rsplit('/', 1)[0], port)
        for node, port in used
        if (node, port.rsplit('/', 1)[0]) in used and '/' in port
    )


def test_a_pinned_port_and_its_pinned_lane_are_never_both_kept():
    """The previous plan cabled leaf1's first uplink on Ethernet65; a pin puts its second on the lane Ethernet65/2,
    and the inventory now holds both: the port's pin is released with a warning, the lane's cable stays."""
    before = plan_of(example('routed')).to_dict()
    assert before['allocations']['port:leaf:1:uplink:1:1'] == 'Ethernet65'
    before['allocations']['port:leaf:1:uplink:2:1'] = 'Ethernet65/2'
    spec = _parent_and_lanes_spec()
    after = plan_of(spec, before)
    new = dict(after.allocations)
    assert new['port:leaf:1:uplink:2:1'] == 'Ethernet65/2'
    assert new['port:leaf:1:uplink:1:1'] not in ('Ethernet65', 'Ethernet65/2')
    assert released(after)['port:leaf:1:uplink:1:1'] == (
        'released: leaf1 Ethernet65 was its uplink port and its breakout lane Ethernet65/2 carries '
        'port:leaf:1:uplink:2:1: a port and its own lanes are never both cabled; the link moves to a free '
        'uplink_ports port'
    )
    assert _cabled_with_a_lane(after) == []
    control = plan_of(
        spec, {**before, 'allocations': {**before['allocations'], 'port:leaf:1:uplink:2:1': 'Ethernet67'}}
    )
    assert 'port:leaf:1:uplink:1:1' not in released(control)  # no lane pinned: the port's pin stays
    assert dict(control.allocations)['port:leaf:1:uplink:1:1'] == 'Ethernet65'


def test_a_new_link_never_takes_a_lane_of_a_cabled_port():
    """Without a previous plan the uplinks prefer Ethernet65, then Ethernet65/1: the lanes of a cabled port are
    skipped (and a cabled lane's port), so no port is cabled together with its own lanes."""
    plan = plan_of(_parent_and_lanes_spec())
    ports = [v for k, v in plan.allocations if k.startswith('port:leaf:1:uplink:')]
    assert 'Ethernet65' in ports and not any(p.startswith('Ethernet65/') for p in ports)
    assert _cabled_with_a_lane(plan) == []


# Fuzz: a previous plan file whose fabric, allocations and values are anything is a plan or a named error


PLANS = {d: plan_of(example(d)).to_dict() for d in ('routed', 'evpn-mh', 'mlag')}


@st.composite
def damaged_previous(draw):
    """A real plan whose fabric is anything and whose allocations copy one value onto other keys, or are anything."""
    plan = copy.deepcopy(PLANS[draw(st.sampled_from(sorted(PLANS)))])
    if draw(st.booleans()):
        plan['fabric'] = draw(JSON_LIKE | st.just('ai-lab') | st.just('other'))
    if draw(st.booleans()):
        allocations = plan['allocations']
        keys = sorted(allocations)
        for _ in range(draw(st.integers(1, 3))):
            source, target = draw(st.sampled_from(keys)), draw(st.sampled_from(keys))
            allocations[target] = allocations[source]
    if draw(st.integers(0, 5)) == 0:
        plan['allocations'] = draw(JSON_LIKE)
    return plan


@FUZZ
@given(previous=damaged_previous(), design=st.sampled_from(sorted(PLANS)))
def test_a_damaged_previous_plan_is_a_plan_or_a_named_error(tmp_path_factory, previous, design):
    path = tmp_path_factory.mktemp('previous') / 'previous.json'
    path.write_text(json.dumps(previous))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(['plan', str(EXAMPLES / f'guide-{design}.yaml'), '--previous', str(path), '--format', 'json'])
    lines = err.getvalue().splitlines()
    if status == 0:
        assert all(line.startswith('netbox-aifabric: warning: ') for line in lines)
        assert json.loads(out.getvalue())['fabric'] == 'ai-lab'
        return
    assert status == 2 and out.getvalue() == ''
    (line,) = lines
    assert line.startswith('netbox-aifabric: error: ')  # previous.… or the pool a damaged pin exhausts
