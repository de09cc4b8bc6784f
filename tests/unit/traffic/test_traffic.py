"""The traffic matrix: loads derived from the flows and the plan's own links (no hard-coded totals)."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.traffic import BURSTINESS, Flow, TrafficError, traffic_matrix
from tests.hypothesis_profiles import examples
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure


def two_racks(spines=2):
    """The guide's routed cluster with storage moved to a second rack (leaves 3, 4): GPU → storage crosses leaves."""
    spec = example('routed')
    spec['spines'] = [{'id': i, 'name': f'spine{i}'} for i in range(1, spines + 1)]
    spec['leaves'] += [{'id': 3, 'name': 'leaf3'}, {'id': 4, 'name': 'leaf4'}]
    spec['mlag_pairs'].append([3, 4])
    spec['servers'][4]['leaves'] = [3, 4]
    return plan_fabric(load_spec(spec))


PLAN = two_racks()


def uplinks_of(plan, leaf):
    return [link for link in plan.links if link.kind == 'uplink' and link.b_node == leaf]


@pytest.mark.parametrize('spines', [1, 2, 3])
def test_gpu_to_storage_spreads_over_every_uplink(spines):
    plan = two_racks(spines)
    gpus = [a for a in plan.attachments if a.kind == 'gpu']
    result = traffic_matrix(plan, [Flow('gpu', 'storage', 10)])
    total = len(gpus) * 10  # each GPU server sends 10G
    src_leaves = {leaf for a in gpus for leaf, _ in a.members}
    per_leaf = total / len(src_leaves)  # the bond spreads evenly over the pair
    for leaf in src_leaves:
        links = uplinks_of(plan, leaf)
        assert len(links) == spines
        for load in result.by_kind('uplink'):
            if load.element.startswith(f'{leaf}:'):
                assert load.up == pytest.approx(per_leaf / len(links))
    # every spine carries its ECMP share of everything
    for load in result.by_kind('spine'):
        assert load.up == pytest.approx(total / spines)
    assert result.flows[0].total_gbps == total
    assert result.flows[0].cross_leaf_gbps == pytest.approx(total)
    assert result.warnings == ()


def test_loads_add_up_to_the_flows():
    flows = [Flow('gpu', 'storage', 7, 'bursty'), Flow('all', 'gpu', 3), Flow('storage', 'all', 11)]
    result = traffic_matrix(PLAN, flows)
    sent = sum(r.total_gbps for r in result.flows)
    ports = result.by_kind('server-port')
    assert sum(load.up for load in ports) == pytest.approx(sent)
    assert sum(load.down for load in ports) == pytest.approx(sent)
    crossing = sum(r.cross_leaf_gbps for r in result.flows)
    assert sum(load.up for load in result.by_kind('spine')) == pytest.approx(crossing)
    assert sum(load.up for load in result.by_kind('uplink')) == pytest.approx(crossing)
    assert sum(load.down for load in result.by_kind('uplink')) == pytest.approx(crossing)


def test_same_leaf_flows_never_reach_the_uplinks():
    plan = plan_fabric(load_spec(example('routed')))  # every server on the one pair
    result = traffic_matrix(plan, [Flow('gpu', 'storage', 20), Flow('gpu', 'gpu', 5)])
    assert result.by_kind('uplink') == ()
    assert result.by_kind('spine') == ()
    assert all(not r.crosses_leaves for r in result.flows)


def test_over_capacity_is_a_warning_sustained_or_bursty():
    bond = sum(link.speed for link in PLAN.links if link.kind == 'server' and link.b_node == 'storage1')
    gpus = sum(1 for a in PLAN.attachments if a.kind == 'gpu')
    just_over = bond / gpus + 1  # together the GPUs send one bond and a bit into storage1
    result = traffic_matrix(PLAN, [Flow('gpu', 'storage', just_over)])
    codes = {(w.code, w.field) for w in result.warnings}
    assert ('over-capacity', 'server-port:storage1 bond') in codes
    bursty = traffic_matrix(PLAN, [Flow('gpu', 'storage', just_over, 'bursty')])
    assert ('over-capacity-bursty', 'server-port:storage1 bond') in {(w.code, w.field) for w in bursty.warnings}


def test_lossless_class_rides_the_rdma_nics():
    result = traffic_matrix(PLAN, [Flow('gpu', 'storage', 10, source_class='RDMA', destination_class='RDMA')])
    assert {load.element for load in result.by_kind('server-port')} == {
        *(f'gpu{i} RDMA' for i in range(1, 5)),
        'storage1 RDMA',
    }


def test_forbidden_flow_against_the_security_matrix():
    flows = [Flow('gpu', 'storage', 1, source_class='USERS', destination_class='MGMT'), Flow('gpu', 'storage', 1)]
    allowed = frozenset({('USERS', 'STORAGE')})
    result = traffic_matrix(PLAN, flows, allowed)
    assert [(w.code, w.field) for w in result.warnings] == [('forbidden-flow', 'flows[0]')]
    ok = traffic_matrix(PLAN, flows, allowed | {('USERS', 'MGMT')})
    assert ok.warnings == ()
    assert traffic_matrix(PLAN, flows, None).warnings == ()  # no matrix given: not checked


@pytest.mark.parametrize(
    ('flow', 'field'),
    [
        (Flow('backup', 'gpu', 1), 'flows[0].source_group'),
        (Flow('gpu', 'gpu', 0), 'flows[0].gbps'),
        (Flow('gpu', 'gpu', math.nan), 'flows[0].gbps'),
        (Flow('gpu', 'gpu', True), 'flows[0].gbps'),
        (Flow('gpu', 'gpu', 1, 'spiky'), 'flows[0].burstiness'),
        (Flow('storage', 'storage', 1), 'flows[0].destination_group'),  # one storage server: no peer
        ('not a flow', 'flows[0]'),
    ],
)
def test_named_errors(flow, field):
    with pytest.raises(TrafficError) as error:
        traffic_matrix(PLAN, [flow])
    assert error.value.field == field


anything = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
flows = st.builds(
    Flow,
    st.one_of(st.sampled_from(['gpu', 'storage', 'all']), anything),
    st.one_of(st.sampled_from(['gpu', 'storage', 'all']), anything),
    st.one_of(st.floats(min_value=0.001, max_value=1e6), anything),
    st.one_of(st.sampled_from(['sustained', 'bursty']), anything),
    st.one_of(st.sampled_from(['RDMA', 'USERS', None]), anything),
    st.one_of(st.sampled_from(['STORAGE', None]), anything),
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(flows, max_size=5))
def test_fuzz_result_or_named_error(flow_list):
    try:
        result = traffic_matrix(PLAN, flow_list, frozenset())
    except TrafficError as error:
        assert error.field.startswith('flows[')
        return
    sent = sum(r.total_gbps for r in result.flows)
    assert sum(load.up for load in result.by_kind('server-port')) == pytest.approx(sent)
    result.to_dict()


def pfc(result):
    return {w.field for w in result.warnings if w.code == 'pfc-headroom'}


def rdma_capacity(plan, server):
    ports = {(a.server, leaf, port) for a in plan.attachments for leaf, port in a.rdma if a.server == server}
    return sum(link.speed for link in plan.links if (link.b_node, link.a_node, link.a_interface) in ports)


@pytest.mark.parametrize('burstiness', BURSTINESS)
def test_pfc_headroom_incast_into_a_lossless_port(burstiness):
    """A lossless incast above the RDMA port: bursty or not, PFC has to hold the senders back by rate."""
    gpus = sum(1 for a in PLAN.attachments if a.kind == 'gpu')
    capacity = rdma_capacity(PLAN, 'storage1')
    over = traffic_matrix(PLAN, [Flow('gpu', 'storage', capacity / gpus + 1, burstiness, source_class='RDMA')])
    assert pfc(over) == {'server-port:storage1 RDMA'}
    under = traffic_matrix(PLAN, [Flow('gpu', 'storage', capacity / gpus - 1, burstiness, source_class='RDMA')])
    assert pfc(under) == set()
    # negative control: the same rate in a lossy class is an over-capacity warning, never a PFC one
    lossy = traffic_matrix(PLAN, [Flow('gpu', 'storage', capacity / gpus + 1, burstiness, source_class='USERS')])
    assert pfc(lossy) == set()
    assert [load.lossless for load in over.by_kind('server-port') if load.element == 'storage1 RDMA'] == [
        pytest.approx(gpus * (capacity / gpus + 1))
    ]


@pytest.mark.parametrize(('lossy_gbps', 'lossy_burstiness'), [(5, 'sustained'), (25, 'sustained'), (25, 'bursty')])
def test_pfc_headroom_on_a_leafs_uplinks_counts_lossy_sustained_only(lossy_gbps, lossy_burstiness):
    """Into leaf3 (storage's leaf): the lossless flows plus the lossy sustained ones against its uplinks."""
    gpus = sum(1 for a in PLAN.attachments if a.kind == 'gpu')
    storage = next(a for a in PLAN.attachments if a.server == 'storage1')
    lossless_gbps = 40
    lossless_down = gpus * lossless_gbps * sum(1 for leaf, _ in storage.rdma if leaf == 'leaf3') / len(storage.rdma)
    on_leaf3 = sum(1 for leaf, _ in storage.members if leaf == 'leaf3') / len(storage.members)
    lossy_down = gpus * lossy_gbps * on_leaf3 if lossy_burstiness == 'sustained' else 0
    uplinks = sum(link.speed for link in uplinks_of(PLAN, 'leaf3'))
    flows = [
        Flow('gpu', 'storage', lossless_gbps, 'sustained', source_class='RDMA'),
        Flow('gpu', 'storage', lossy_gbps, lossy_burstiness, source_class='STORAGE'),
    ]
    result = traffic_matrix(PLAN, flows)
    assert ('uplinks:leaf3' in pfc(result)) == (lossless_down + lossy_down > uplinks)
    ratio = next(c.ratio for c in PLAN.capacity if c.leaf == 'leaf3')
    for warning in result.warnings:
        if warning.field == 'uplinks:leaf3':
            assert f'at {ratio:g}:1 oversubscription' in warning.message
