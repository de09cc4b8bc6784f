"""The Traffic family: the traffic matrix's warnings as compliance findings, one per warning,
on the guide's cluster. A passing fixture (a training flow the fabric carries) and, per rule, a failing one that
breaks exactly that thing; the expected findings come from the matrix's own warnings, not from today's output."""

import pytest

from netbox_aifabric.checks.engine import Facts, Obj, run_rules
from netbox_aifabric.checks.rules import RULES, rule
from netbox_aifabric.checks.traffic import warning_objects
from netbox_aifabric.facts.security import allowed
from netbox_aifabric.planner.traffic import Flow, traffic_matrix
from tests.unit.checks.test_rules import facts_of, failures

pytestmark = pytest.mark.pure


def allowed_pairs(intent):
    classes = intent['traffic_classes']
    return frozenset((a['name'], b['name']) for a in classes for b in classes if allowed(a, b))


def with_flows(*flows, guide='evpn-vxlan'):
    """The guide's cluster with ``flows`` laid on its plan, as ``checks.compliance`` gathers them."""
    facts = facts_of(guide)
    facts.flows = list(flows)
    facts.traffic = list(traffic_matrix(facts.plan, facts.flows, allowed_pairs(facts.intent)).warnings)
    return facts


def expected(facts, codes):
    return [
        (tuple(str(o) for o in warning_objects(w.field, facts.flows)), w.message)
        for w in facts.traffic
        if w.code in codes
    ]


def traffic_failures(facts):
    return {k: [(objs, found) for objs, _expected, found in v] for k, v in failures(facts).items()}


def test_a_flow_the_fabric_carries_passes():
    facts = with_flows(Flow('gpu', 'gpu', 10, 'bursty', 'RDMA', 'RDMA', '1'))
    assert facts.traffic == []
    assert failures(facts) == {}


def test_negative_control_a_flow_above_capacity():
    """Every GPU server sends 10 Tbit/s (lossy, sustained): the links carrying it are over capacity; nothing lossless,
    nothing forbidden."""
    facts = with_flows(Flow('gpu', 'gpu', 10_000, 'sustained', name='3'))
    found = traffic_failures(facts)
    assert list(found) == ['traffic-capacity']
    assert found['traffic-capacity'] == expected(facts, ('over-capacity', 'over-capacity-bursty'))
    assert len(found['traffic-capacity']) == len(facts.traffic) > 0
    assert {w.code for w in facts.traffic} == {'over-capacity'}


def test_negative_control_a_lossless_class_beyond_pfc_headroom():
    """RDMA (lossless) at 10 Tbit/s: PFC would pause continuously. The same load is over capacity too (a lossless
    flow above PFC headroom is by definition above the link), so exactly those two rules fail."""
    facts = with_flows(Flow('gpu', 'gpu', 10_000, 'bursty', 'RDMA', 'RDMA', '4'))
    found = traffic_failures(facts)
    assert sorted(found) == ['traffic-capacity', 'traffic-pfc-headroom']
    assert found['traffic-pfc-headroom'] == expected(facts, ('pfc-headroom',))
    assert len(found['traffic-pfc-headroom']) > 0


def test_negative_control_a_forbidden_flow():
    """USERS into MGMT (the guide: users cannot reach the BMCs), at a rate the fabric carries."""
    facts = with_flows(Flow('gpu', 'gpu', 1, 'sustained', 'USERS', 'MGMT', '12'))
    assert ('USERS', 'MGMT') not in allowed_pairs(facts.intent)
    found = failures(facts)
    (message,) = [w.message for w in facts.traffic]
    assert found == {
        'traffic-forbidden-flow': [(('gpu → gpu (USERS → MGMT)',), 'only flows the security matrix allows', message)]
    }
    assert message.startswith('USERS may not reach MGMT')


def test_a_forbidden_flow_links_its_traffic_flow_row():
    facts = with_flows(Flow('gpu', 'gpu', 1, 'sustained', 'USERS', 'MGMT', '12'))
    (finding,) = run_rules([rule('traffic-forbidden-flow')], facts).results[0].findings
    assert finding.objects == (Obj('netbox_aifabric.trafficflow', 'gpu → gpu (USERS → MGMT)', pk=12),)


def test_warning_fields_name_their_objects():
    assert warning_objects('uplink:leaf1:Ethernet65 – spine1:Ethernet1', []) == (
        Obj('dcim.interface', 'Ethernet65', device='leaf1'),
        Obj('dcim.interface', 'Ethernet1', device='spine1'),
    )
    assert warning_objects('server-port:gpu1 RDMA', []) == (Obj('dcim.device', 'gpu1'),)
    assert warning_objects('uplinks:leaf2', []) == (Obj('dcim.device', 'leaf2'),)
    assert warning_objects('peer-link:leaf1 – leaf2', []) == (Obj('dcim.device', 'leaf1'), Obj('dcim.device', 'leaf2'))
    assert warning_objects('flows[3]', []) == ()  # a warning about a flow the facts do not hold names nothing


def test_without_the_matrix_the_traffic_rules_skip():
    facts = Facts('x', {}, traffic=None, errors={'traffic': 'flows[0]: unknown server group "tpu"'})
    results = run_rules([r for r in RULES if r.family == 'traffic'], facts).results
    assert {(r.status, r.note) for r in results} == {('skip', 'flows[0]: unknown server group "tpu"')}
