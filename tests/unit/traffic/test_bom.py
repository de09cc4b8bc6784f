"""The bill of materials and the guide's tier, derived from the plan's own nodes and links."""

import csv
import io
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.planner import PlanError, load_spec, plan_fabric
from netbox_aifabric.planner.bom import (
    CSV_COLUMNS,
    DEFAULT_REACH,
    LINK_KINDS,
    REACH_CLASSES,
    TIERS,
    bill_of_materials,
    management_ports,
    medium,
)
from tests.hypothesis_profiles import examples
from tests.unit.planner.helpers import GUIDES, example

pytestmark = pytest.mark.pure


def plan(design, **changes):
    spec = example(design)
    spec.update(changes)
    return plan_fabric(load_spec(spec))


def quantities(bom, category):
    return sum(line.quantity for line in bom.lines if line.category == category)


def management(p):
    """(management switches at 48 ports each, their patch cables): every BMC off the leaves and every switch."""
    ports = sum(management_ports(p))
    return -(-ports // 48), ports


@pytest.mark.parametrize('design', GUIDES)
def test_counts_equal_the_plan(design):
    p = plan(design)
    bom = bill_of_materials(p)
    roles = Counter(n.role for n in p.nodes)
    switches, patch_cables = management(p)
    assert quantities(bom, 'switch') == roles['spine'] + roles['leaf'] + switches
    assert quantities(bom, 'cable') == len(p.links) + patch_cables  # one cable per planned link and management port
    uplinks = sum(1 for link in p.links if link.kind == 'uplink')
    assert quantities(bom, 'optic') == 2 * uplinks
    ports = sum(len(a.members) + len(a.rdma) for a in p.attachments)
    assert quantities(bom, 'nic') == ports


def test_spares_percentage_rounds_up_per_line():
    p = plan('routed')
    for percent in (0, 10, 25, 100):
        for line in bill_of_materials(p, spares_percent=percent).lines:
            assert line.spares == -(-line.quantity * percent // 100)
    with pytest.raises(PlanError) as error:
        bill_of_materials(p, spares_percent=101)
    assert error.value.field == 'spares_percent'


def test_device_types_name_the_switches():
    bom = bill_of_materials(plan('routed'), spine_device_type='Arista 7050CX3', leaf_device_type='SN2410')
    items = [line.item for line in bom.lines if line.category == 'switch']
    assert items == [
        'Spine switch: Arista 7050CX3',
        'Leaf switch (top of rack): SN2410',
        'Management switch (out of band): device type not chosen',
    ]


def test_evpn_licence_line_only_for_evpn():
    assert [line.quantity for line in bill_of_materials(plan('evpn-vxlan')).lines if line.category == 'licence'] == [
        len(plan('evpn-vxlan').nodes)
    ]
    assert not [line for line in bill_of_materials(plan('routed')).lines if line.category == 'licence']


def test_tiers_follow_the_guide():
    starter, balanced, expandable = TIERS
    assert bill_of_materials(plan('mlag')).tier == balanced  # 25/100G leaves, one rack, 4 GPU servers
    tcp_only = example('mlag')
    tcp_only['nics'] = {'count': 2, 'speed': 25, 'rdma_count': 0}
    tcp_only['leaf_platform']['peer_link_speed'] = 25
    tcp_only['traffic_classes'] = [c for c in tcp_only['traffic_classes'] if not c.get('lossless')]
    assert bill_of_materials(plan_fabric(load_spec(tcp_only))).tier == starter
    # two spines on one leaf pair: the guide's own reference topology, Balanced (spines alone do not decide)
    routed = bill_of_materials(plan('routed'))
    assert routed.tier == balanced
    assert any('spines alone do not make' in reason for reason in routed.tier_reasons)
    assert bill_of_materials(plan('evpn-vxlan')).tier == balanced  # EVPN on one pair, one tenant


def test_csv_holds_every_line_as_netbox_exports():
    bom = bill_of_materials(plan('evpn-vxlan'), spares_percent=25)
    rows = list(csv.DictReader(io.StringIO(bom.to_csv())))
    assert tuple(rows[0]) == CSV_COLUMNS
    *lines, tier = rows
    assert [
        (r['category'], r['item'], r['part_number'], int(r['quantity']), int(r['spares']), int(r['total']))
        for r in lines
    ] == [
        (line.category, line.item, line.part_number, line.quantity, line.spares, line.quantity + line.spares)
        for line in bom.lines
    ]
    # the tier last, in the same columns: its name, no quantities, the planning range and the reasons
    assert (tier['category'], tier['item'], tier['quantity'], tier['total']) == ('tier', 'Balanced', '', '')
    assert tier['note'].startswith('planning range (not a price): €12,000–€35,000')
    assert all(reason in tier['note'] for reason in bom.tier_reasons)


def test_csv_quotes_hostile_names():
    bom = bill_of_materials(plan('routed'), leaf_device_type='Leaf, "48x25G"\nB')
    rows = list(csv.DictReader(io.StringIO(bom.to_csv())))
    assert 'Leaf switch (top of rack): Leaf, "48x25G"\nB' in [r['item'] for r in rows]


@pytest.mark.parametrize('design', GUIDES)
@pytest.mark.parametrize(
    'reach',
    [
        None,
        {'uplink': 'same-rack'},
        {'server': 'rack-to-rack', 'rdma': 'rack-to-rack'},
        {kind: 'rack-to-rack' for kind in LINK_KINDS},
    ],
)
def test_reach_class_per_link_kind_decides_optics_or_dac(design, reach):
    p = plan(design)
    bom = bill_of_materials(p, reach=reach)
    classes = {**DEFAULT_REACH, **(reach or {})}
    far = [link for link in p.links if medium(link.speed, classes[link.kind])[0] == 'optical']
    assert quantities(bom, 'optic') == 2 * len(far)
    fibre = sum(line.quantity for line in bom.lines if 'fibre' in line.item)
    assert fibre == len(far)
    assert quantities(bom, 'cable') == len(p.links) + management(p)[1]  # one cable a link, whatever its reach
    assert dict(bom.reach) == classes
    # the default: uplinks alone run across the room
    if reach is None:
        assert {link.kind for link in far} <= {'uplink'}


@pytest.mark.parametrize(
    ('reach', 'field'),
    [
        ({'uplinks': 'same-rack'}, 'reach.uplinks'),
        ({'uplink': 'far'}, 'reach.uplink'),
        ({'uplink': None}, 'reach.uplink'),
        ('rack-to-rack', 'reach'),
    ],
)
def test_reach_named_errors(reach, field):
    with pytest.raises(PlanError) as error:
        bill_of_materials(plan('routed'), reach=reach)
    assert error.value.field == field


anything = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12), st.lists(st.integers(), max_size=2)
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.floats(min_value=0, max_value=100), anything),
    st.one_of(
        st.none(),
        st.dictionaries(
            st.one_of(st.sampled_from(LINK_KINDS), st.text(max_size=8)),
            st.one_of(st.sampled_from(REACH_CLASSES), anything),
            max_size=4,
        ),
        anything,
    ),
)
def test_fuzz_bom_or_named_error(spares, reach):
    """Arbitrary spares and reach: a BOM, or a PlanError naming ``spares_percent`` or ``reach[.<kind>]``."""
    try:
        bom = bill_of_materials(PLAN, spares_percent=spares, reach=reach)
    except PlanError as error:
        assert error.field == 'spares_percent' or error.field == 'reach' or error.field.startswith('reach.')
        return
    assert quantities(bom, 'cable') == len(PLAN.links) + management(PLAN)[1]
    bom.to_csv()
    bom.to_dict()


PLAN = plan('routed')


def leaf_breakouts(p, lanes=4):
    """Every server-facing leaf port as a lane of a made-up parent, ``lanes`` ports per parent in name order."""
    ports = sorted({link.a_interface for link in p.links if link.kind == 'server'})
    return {'leaf': {port: (f'P{i // lanes}', lanes) for i, port in enumerate(ports)}}


@pytest.mark.parametrize('design', GUIDES)
@pytest.mark.parametrize('server_reach', ['same-rack', 'rack-to-rack'])
def test_breakout_cables_replace_the_lanes_cables(design, server_reach):
    p = plan(design)
    breakouts = leaf_breakouts(p)
    bom = bill_of_materials(p, breakouts=breakouts, reach={'server': server_reach})
    on_lanes = [link for link in p.links if link.kind == 'server' and link.a_interface in breakouts['leaf']]
    parents = {(link.a_node, breakouts['leaf'][link.a_interface][0]) for link in on_lanes}
    assert on_lanes and len(parents) < len(on_lanes)  # the test really groups lanes
    assert quantities(bom, 'cable') == len(p.links) - len(on_lanes) + len(parents) + management(p)[1]
    if server_reach == 'same-rack':
        item = '4x25G breakout DAC, QSFP28 to 4x SFP28, in the rack (up to 3 m)'  # on a 100G parent
    else:
        item = '4x25G breakout fibre harness (MPO to 4x duplex LC), across the room (up to 100 m)'
    assert [line.quantity for line in bom.lines if line.item == item] == [len(parents)]
    uplinks = sum(1 for link in p.links if link.kind == 'uplink')
    lane_optics = len(parents) + len(on_lanes) if server_reach == 'rack-to-rack' else 0
    assert quantities(bom, 'optic') == 2 * uplinks + lane_optics
    assert quantities(bom, 'nic') == sum(len(a.members) + len(a.rdma) for a in p.attachments)  # NICs unchanged
