"""The bill of materials and the guide's tier, derived from the plan's own nodes and links."""

import csv
import io
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.planner import PlanError, load_spec, plan_fabric
from netbox_aifabric.planner.bom import CSV_COLUMNS, DEFAULT_REACH, LINK_KINDS, TIERS, bill_of_materials
from tests.hypothesis_profiles import examples

from ..planner.helpers import GUIDES, example

pytestmark = pytest.mark.pure


def plan(design, **changes):
    spec = example(design)
    spec.update(changes)
    return plan_fabric(load_spec(spec))


def quantities(bom, category):
    return sum(line.quantity for line in bom.lines if line.category == category)


@pytest.mark.parametrize('design', GUIDES)
def test_counts_equal_the_plan(design):
    p = plan(design)
    bom = bill_of_materials(p)
    roles = Counter(n.role for n in p.nodes)
    assert quantities(bom, 'switch') == roles['spine'] + roles['leaf']
    assert quantities(bom, 'cable') == len(p.links)  # one cable per planned link
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
    assert items == ['spine switch: Arista 7050CX3', 'leaf switch: SN2410']


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
    assert bill_of_materials(plan('routed')).tier == expandable  # spines
    bom = bill_of_materials(plan('evpn-vxlan'))
    assert bom.tier == expandable and 'EVPN/VXLAN design' in bom.tier_reasons


def test_csv_holds_every_line_as_netbox_exports():
    bom = bill_of_materials(plan('evpn-vxlan'), spares_percent=25)
    rows = list(csv.DictReader(io.StringIO(bom.to_csv())))
    assert tuple(rows[0]) == CSV_COLUMNS
    *lines, tier = rows
    assert [(r['category'], r['item'], int(r['quantity']), int(r['spares']), int(r['total'])) for r in lines] == [
        (line.category, line.item, line.quantity, line.spares, line.quantity + line.spares) for line in bom.lines
    ]
    # the tier last, in the same columns: its name, no quantities, the planning range and the reasons
    assert (tier['category'], tier['item'], tier['quantity'], tier['total']) == ('tier', 'Expandable', '', '')
    assert tier['note'].startswith('planning range (not a price): €40,000+')
    assert all(reason in tier['note'] for reason in bom.tier_reasons)


def test_csv_quotes_hostile_names():
    bom = bill_of_materials(plan('routed'), leaf_device_type='Leaf, "48x25G"\nB')
    rows = list(csv.DictReader(io.StringIO(bom.to_csv())))
    assert 'leaf switch: Leaf, "48x25G"\nB' in [r['item'] for r in rows]


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
    far = [link for link in p.links if classes[link.kind] == 'rack-to-rack']
    assert quantities(bom, 'optic') == 2 * len(far)
    fibre = sum(line.quantity for line in bom.lines if 'fibre' in line.item)
    assert fibre == len(far)
    assert quantities(bom, 'cable') == len(p.links)  # every link is one cable, whatever its reach
    assert dict(bom.reach) == classes
    # the default: uplinks alone run rack to rack
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
            st.one_of(st.sampled_from(['same-rack', 'rack-to-rack']), anything),
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
    assert quantities(bom, 'cable') == len(PLAN.links)
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
    assert quantities(bom, 'cable') == len(p.links) - len(on_lanes) + len(parents)
    item = '4x25G breakout DAC (same rack)' if server_reach == 'same-rack' else '4x25G breakout fibre (rack to rack)'
    assert [line.quantity for line in bom.lines if line.item == item] == [len(parents)]
    uplinks = sum(1 for link in p.links if link.kind == 'uplink')
    lane_optics = len(parents) + len(on_lanes) if server_reach == 'rack-to-rack' else 0
    assert quantities(bom, 'optic') == 2 * uplinks + lane_optics
    assert quantities(bom, 'nic') == sum(len(a.members) + len(a.rdma) for a in p.attachments)  # NICs unchanged
