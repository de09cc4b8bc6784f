"""The cabling plan (facts/cabling_plan.py): one row per planned cable with both ends as the plan cables them, the
BOM's medium per speed and reach, a unique label that growth never changes; the guide's cluster pinned to a reviewed
CSV (golden file)."""

import csv
import dataclasses
import io
import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.facts.cabling_plan import (
    CSV_COLUMNS,
    KIND_CODES,
    SPINE_ROW,
    cabling_plan,
    link_label,
    netbox_label,
    with_placement,
)
from netbox_aifabric.planner import PlanError, load_spec, plan_fabric
from netbox_aifabric.planner.bom import DEFAULT_REACH, REACH_CLASSES, medium
from netbox_aifabric.planner.spec import ManagementSwitch
from tests.hypothesis_profiles import examples
from tests.unit.planner.helpers import GUIDES, ROOT, example
from tests.unit.planner.test_properties import fabrics

pytestmark = pytest.mark.pure
GOLDEN = ROOT / 'tests' / 'unit' / 'golden_cabling_plan'
FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def guide_plan(design='evpn-vxlan', oob=False):
    spec = load_spec(example(design))
    if oob:
        switch = ManagementSwitch(tuple(f'Ethernet{i}' for i in range(1, 49)), 'oob{n}')
        spec = dataclasses.replace(spec, management_switch=switch, bmc='oob')
    return spec, plan_fabric(spec)


def test_the_guides_cluster_cabling_csv():
    text = cabling_plan(guide_plan()[1]).to_csv()
    path = GOLDEN / 'guide-evpn-vxlan.csv'
    if os.environ.get('UPDATE_GOLDEN'):
        path.write_text(text)
    assert text == path.read_text()


def ends(kind, a_device, a_port, b_device, b_port):
    return kind, (a_device, a_port), (b_device, b_port)


def planned_cables(plan, management_port='mgmt0'):
    """Every cable the plan makes, from the plan itself: its links, then the management network's (switch end A)."""
    cables = [ends(lk.kind, lk.a_node, lk.a_interface, lk.b_node, lk.b_interface) for lk in plan.links]
    for lk in plan.oob.links if plan.oob else ():
        kind = {'bmc': 'oob-bmc', 'switch-management': 'oob-management'}[lk.kind]
        cables.append(ends(kind, lk.switch, lk.interface, lk.device, lk.device_interface or management_port))
    return cables


def spec_racks(spec):
    """{leaf name: rack name} from the spec's pairs: ``rack<lowest leaf id>``."""
    names = {leaf.id: leaf.name for leaf in spec.leaves}
    racks = {name: f'rack{leaf_id}' for leaf_id, name in names.items()}
    for pair in (*spec.mlag_pairs, *spec.mh_pairs):
        racks.update({names[leaf]: f'rack{min(pair)}' for leaf in pair})
    return racks


@pytest.mark.parametrize('oob', [False, True])
@pytest.mark.parametrize('design', GUIDES)
def test_one_row_per_cable_with_both_ends_and_the_boms_medium(design, oob):
    spec, plan = guide_plan(design, oob)
    rows = cabling_plan(plan).rows
    got = [ends(r.kind, r.a.device, r.a.port, r.b.device, r.b.port) for r in rows]
    assert Counter(got) == Counter(planned_cables(plan))
    assert len(rows) == len(plan.links) + (len(plan.oob.links) if oob else 0)
    assert len({r.label for r in rows}) == len(rows)
    leaf_rack = spec_racks(spec)
    leaf_names = {leaf.id: leaf.name for leaf in spec.leaves}
    server_rack = {s.name: leaf_rack[leaf_names[s.leaves[0]]] for s in spec.servers}
    for row in rows:
        assert row.label.startswith(KIND_CODES[row.kind] + ' ')
        assert f'{row.a.device}:{row.a.port}' in row.label and f'{row.b.device}:{row.b.port}' in row.label
        reach = DEFAULT_REACH.get(row.kind, 'same-rack')
        assert (row.medium, row.optic, row.cable, row.reach) == (*medium(row.speed, reach), reach)
        for end in (row.a, row.b):
            assert end.rack == {**leaf_rack, **server_rack}.get(end.device, '')
            assert end.position is None  # the plan has no U positions
        assert row.rack == (row.b.rack or row.a.rack or SPINE_ROW)
    racks = [r.rack for r in rows]
    assert racks == sorted(racks, key=lambda r: (r == SPINE_ROW, 0 if r == SPINE_ROW else int(r.removeprefix('rack'))))


def test_uplinks_run_optical_across_the_room_and_reach_settings_change_the_medium():
    plan = guide_plan()[1]
    rows = cabling_plan(plan).rows
    uplinks = [r for r in rows if r.kind == 'uplink']
    assert uplinks and {(r.medium, r.optic, r.reach) for r in uplinks} == {('optical', '100GBASE-SR4', 'rack-to-rack')}
    servers = [r for r in cabling_plan(plan, reach={'server': 'next-rack'}).rows if r.kind == 'server']
    assert len(servers) == sum(1 for lk in plan.links if lk.kind == 'server')
    assert {(r.medium, r.reach) for r in servers} == {('aoc', 'next-rack')}


@pytest.mark.parametrize(
    ('reach', 'field'),
    [({'server': 'far'}, 'reach.server'), ({'cable': 'same-rack'}, 'reach.cable'), (['server'], 'reach')],
)
def test_a_bad_reach_is_a_named_error(reach, field):
    with pytest.raises(PlanError) as caught:
        cabling_plan(guide_plan()[1], reach=reach)
    assert caught.value.field == field


@FAST
@given(st.one_of(st.none(), st.dictionaries(st.text(max_size=12), st.one_of(st.text(max_size=12), st.integers()))))
def test_fuzz_reach_gives_rows_or_a_named_error(reach):
    plan = guide_plan()[1]
    try:
        rows = cabling_plan(plan, reach=reach).rows
    except PlanError as e:
        assert e.field.startswith('reach')
    else:
        assert all(r.reach in REACH_CLASSES for r in rows)


def test_a_lane_of_a_breakout_says_which_port_it_leaves():
    plan = guide_plan()[1]
    lane = next(lk for lk in plan.links if lk.kind == 'server')
    rows = cabling_plan(plan, breakouts={'leaf': {lane.a_interface: ('Ethernet60', 4)}}).rows
    noted = [r for r in rows if 'breakout' in r.cable]
    leaves = [n.name for n in plan.nodes if n.role == 'leaf']
    assert {(r.a.device, r.a.port) for r in noted} == {(leaf, lane.a_interface) for leaf in leaves}  # every leaf's
    assert {r.cable.split(': ', 1)[1] for r in noted} == {
        f'a leg of the 4x{lane.speed}G breakout of {leaf} Ethernet60' for leaf in leaves
    }


def test_two_cables_with_one_label_are_a_named_error():
    plan = guide_plan()[1]
    twin = dataclasses.replace(plan, links=(*plan.links, plan.links[0]))
    with pytest.raises(PlanError) as caught:
        cabling_plan(twin)
    assert caught.value.field == 'cabling'


def test_netbox_placement_moves_the_ends_not_the_labels():
    plan = guide_plan()[1]
    cabling = cabling_plan(plan)
    placed = with_placement(cabling, {'leaf1': ('R101', 40.0), 'gpu1': ('R102', None), 'spine1': ('', None)})
    assert [r.label for r in placed.rows] == [r.label for r in cabling.rows]
    assert [r.rack for r in placed.rows] == [r.rack for r in cabling.rows]
    for before, after in zip(cabling.rows, placed.rows, strict=True):
        for old, new in ((before.a, after.a), (before.b, after.b)):
            expected = {'leaf1': ('R101', 40.0), 'gpu1': ('R102', None)}.get(old.device, (old.rack, None))
            assert (new.rack, new.position) == expected
    row = next(r for r in csv.DictReader(io.StringIO(placed.to_csv())) if r['a_device'] == 'leaf1')
    assert (row['a_rack'], row['a_position']) == ('R101', '40')


def test_csv_and_dict_carry_the_same_rows():
    cabling = cabling_plan(guide_plan('routed', oob=True)[1])
    parsed = list(csv.DictReader(io.StringIO(cabling.to_csv())))
    assert list(parsed[0]) == list(CSV_COLUMNS)
    flat = cabling.to_dict()['rows']
    assert [r['label'] for r in parsed] == [r['label'] for r in flat]
    assert [{k: '' if v is None else str(v) for k, v in r.items()} for r in flat] == parsed


def identities(plan):
    """{label: (kind, speed, A end, B end)}: what a label stands for."""
    return {r.label: (r.kind, r.speed, (r.a.device, r.a.port), (r.b.device, r.b.port)) for r in cabling_plan(plan).rows}


@FAST
@given(fabrics())
def test_growth_keeps_every_label_on_the_same_cable(pair):
    """Adding spines, leaf pairs and servers (within the maximums) adds labels and changes none."""
    small, big = pair
    before = plan_fabric(load_spec(small))
    after = plan_fabric(load_spec(big))
    old, new = identities(before), identities(after)
    assert len(old) == len(before.links) and len(new) == len(after.links)  # unique: one label per cable
    assert {label: new.get(label) for label in old} == old
    pinned = identities(plan_fabric(load_spec(big), previous=before))  # grown on the stored plan: the same
    assert {label: pinned.get(label) for label in old} == old


def test_growth_by_a_leaf_pair_and_servers_keeps_the_guides_labels():
    spec = example('evpn-vxlan')
    before = identities(plan_fabric(load_spec(spec)))
    spec['leaves'] += [{'id': 3, 'name': 'leaf3'}, {'id': 4, 'name': 'leaf4'}]
    spec['mlag_pairs'].append([3, 4])
    spec['servers'] += [{'id': 6, 'name': 'gpu6', 'leaves': [3, 4]}, {'id': 7, 'name': 'gpu7', 'leaves': [1, 2]}]
    grown = plan_fabric(load_spec(spec))
    after = identities(grown)
    assert {label: after.get(label) for label in before} == before
    assert len(after) > len(before)
    racks = {r.rack for r in cabling_plan(grown).rows}
    assert racks == {'rack1', 'rack3'}


def test_netbox_gets_the_label_only_when_its_cable_label_holds_it():
    plan = guide_plan()[1]
    link = plan.links[0]
    assert netbox_label(link_label(link)) == {'label': cabling_plan(plan).rows[0].label}
    long = dataclasses.replace(link, a_node='s' * 60, b_node='l' * 60)
    assert len(link_label(long)) > 100
    assert netbox_label(link_label(long)) == {}  # never cut: a cut label could name another cable
