"""Properties over generated fabrics, flows, spares and reach classes: the BOM's port and cable counts equal the
plan's, and the matrix's loads add up to the flows, on every element kind."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.bom import (
    DEFAULT_REACH,
    LINK_KINDS,
    REACH_CLASSES,
    bill_of_materials,
    management_ports,
    medium,
)
from netbox_aifabric.planner.traffic import BURSTINESS, Flow, TrafficError, traffic_matrix
from tests.hypothesis_profiles import examples
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure

_PLANS = {}


def fabric(design, spines, racks):
    """The guide's cluster in ``design`` with ``spines`` spines (none for MLAG) and its servers spread over ``racks``
    leaf pairs (one pair per rack: GPU servers round-robin, storage in the last)."""
    key = (design, spines, racks)
    if key not in _PLANS:
        spec = example(design)
        if design != 'mlag':
            spec['spines'] = [{'id': i, 'name': f'spine{i}'} for i in range(1, spines + 1)]
            spec['leaves'] = [{'id': i, 'name': f'leaf{i}'} for i in range(1, 2 * racks + 1)]
            spec['mlag_pairs'] = [[2 * r + 1, 2 * r + 2] for r in range(racks)]
            for i, server in enumerate(spec['servers']):
                rack = racks - 1 if server.get('kind') == 'storage' else i % racks
                server['leaves'] = [2 * rack + 1, 2 * rack + 2]
        _PLANS[key] = plan_fabric(load_spec(spec))
    return _PLANS[key]


fabrics = st.one_of(
    st.just(('mlag', 0, 1)), st.tuples(st.sampled_from(['routed', 'evpn-vxlan']), st.integers(1, 4), st.integers(1, 3))
)
reaches = st.dictionaries(st.sampled_from(LINK_KINDS), st.sampled_from(REACH_CLASSES))
flows = st.builds(
    Flow,
    st.sampled_from(['gpu', 'all']),
    st.sampled_from(['gpu', 'storage', 'all']),
    st.floats(min_value=0.01, max_value=500, allow_nan=False),
    st.sampled_from(BURSTINESS),
    st.sampled_from([None, 'RDMA', 'STORAGE', 'USERS']),
)


def near(value):
    return pytest.approx(value, abs=1e-4)  # each load is rounded to 6 decimals; a sum of many drifts in the 6th


def total(bom, category, text=''):
    return sum(line.quantity for line in bom.lines if line.category == category and text in line.item)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics, st.floats(min_value=0, max_value=100), reaches, st.sampled_from([0, 2, 4, 8]))
def test_bom_counts_equal_the_plans(shape, spares, reach, lanes):
    """``lanes``: the leaves' server ports broken out, that many per parent (0: no breakout)."""
    plan = fabric(*shape)
    ports = sorted({link.a_interface for link in plan.links if link.kind == 'server'})
    breakouts = {'leaf': {port: (f'P{i // lanes}', lanes) for i, port in enumerate(ports)}} if lanes else None
    bom = bill_of_materials(plan, spares_percent=spares, reach=reach, breakouts=breakouts)
    classes = {**DEFAULT_REACH, **reach}
    plain = [link for link in plan.links if not (lanes and link.kind == 'server')]
    on_lanes = [link for link in plan.links if lanes and link.kind == 'server']
    parents = {(link.a_node, breakouts['leaf'][link.a_interface], classes['server']) for link in on_lanes}
    far = sum(1 for link in plain if medium(link.speed, classes[link.kind])[0] == 'optical')
    server_optical = bool(on_lanes) and medium(on_lanes[0].speed, classes['server'])[0] == 'optical'
    far_parents = len(parents) if server_optical else 0
    far_lanes = len(on_lanes) if server_optical else 0
    patch = sum(management_ports(plan))
    assert total(bom, 'cable') == len(plain) + len(parents) + patch
    assert total(bom, 'optic') == 2 * far + far_parents + far_lanes
    assert total(bom, 'cable', 'fibre') == far + far_parents
    assert total(bom, 'nic') == sum(len(a.members) + len(a.rdma) for a in plan.attachments)
    switches = sum(1 for n in plan.nodes if n.role in ('spine', 'leaf'))
    assert total(bom, 'switch') == switches + -(-patch // 48)
    for line in bom.lines:
        expected = 0 if line.category == 'licence' else math.ceil(line.quantity * spares / 100 - 1e-9)
        assert line.spares == expected
        assert line.total == line.quantity + line.spares


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics, st.lists(flows, min_size=1, max_size=4))
def test_matrix_loads_add_up_to_the_flows(shape, flow_list):
    plan = fabric(*shape)
    try:
        result = traffic_matrix(plan, flow_list)
    except TrafficError as error:  # storage1 (the one storage node) sending to storage: a named error, as it must
        assert error.field.endswith('.destination_group') and 'storage1' in error.message
        return
    sent = sum(r.total_gbps for r in result.flows)
    assert sent == pytest.approx(
        sum(len([a for a in plan.attachments if f.source_group in (a.kind, 'all')]) * f.gbps for f in flow_list)
    )

    def summed(kind, direction):
        return sum(getattr(load, direction) for load in result.by_kind(kind))

    for direction in ('up', 'down'):
        assert summed('server-port', direction) == near(sent)
        assert summed('leaf-downlinks', direction) == near(sent)
    crossing = sum(r.cross_leaf_gbps for r in result.flows)
    if any(link.kind == 'uplink' for link in plan.links):
        for direction in ('up', 'down'):
            assert summed('uplink', direction) == near(crossing)
            assert summed('spine', direction) == near(crossing)
    else:  # no spines: every crossing byte rides the MLAG peer links, one way or the other
        assert summed('peer-link', 'up') + summed('peer-link', 'down') == near(crossing)
    for load in result.loads:
        assert load.sustained <= load.peak + 1e-6 and load.lossless <= load.peak + 1e-6
