"""Golden BOMs and matrices (``golden/*.json``, reviewed; ``golden/README.md`` explains each expectation), plus the
figures a reviewer checks by hand, derived here from the spec and not from the files.

Regenerate after an intended change with ``AIFABRIC_REGEN_GOLDEN=1`` and review the diff."""

import json
import os

import pytest

from tests.unit.traffic.cases import CASES, GOLDEN, GUIDE_FLOWS, M_FLOWS, golden_of, matrix_of, plan_of, spec_of

pytestmark = pytest.mark.pure


@pytest.mark.parametrize('case', CASES)
def test_golden(case):
    path = GOLDEN / f'{case}.json'
    got = golden_of(case)
    if os.environ.get('AIFABRIC_REGEN_GOLDEN'):
        path.write_text(json.dumps(got, indent=1, ensure_ascii=False) + '\n')
    assert got == json.loads(path.read_text())


def servers(spec, kind):
    return [s for s in spec['servers'] if s.get('kind', 'gpu') == kind]


@pytest.mark.parametrize('case', ['guide-mlag', 'guide-routed', 'guide-evpn-vxlan'])
def test_guide_cluster_by_hand(case):
    """4 GPU servers, 1 storage node, all bonded to leaf1+leaf2; RDMA NICs alternate leaf1, leaf2 (gpu1, gpu3,
    storage1 on leaf1)."""
    spec, result = spec_of(case), matrix_of(case)
    gpus, storage = len(servers(spec, 'gpu')), len(servers(spec, 'storage'))
    totals = [r.total_gbps for r in result.flows]
    senders = {'gpu': gpus, 'storage': storage, 'all': gpus + storage}
    assert totals == [senders[f.source_group] * f.gbps for f in GUIDE_FLOWS]
    # every bonded flow shares the leaf pair: nothing crosses leaves but the RDMA flow between leaf1 and leaf2
    bonded_cross = [r.cross_leaf_gbps for r in result.flows[1:]]
    assert bonded_cross == [0, 0, 0]
    # RDMA: 4 GPUs, 2 on each leaf; each sends 50/3 to each other GPU, 2 of its 3 peers on the other leaf
    assert result.flows[0].cross_leaf_gbps == pytest.approx(gpus * 50 * 2 / 3)
    # storage1's bond receives 5 (checkpoints) and 1 (user copies) from each GPU server
    port = {x.element: x for x in result.by_kind('server-port')}
    assert port['storage1 bond'].down == pytest.approx(gpus * 5 + gpus * 1)
    assert [w.code for w in result.warnings] == ['forbidden-flow']  # USERS → STORAGE, nothing listed


def test_mlag_cross_leaf_rides_the_peer_link():
    """No spines: the RDMA flow between leaf1 and leaf2 crosses the MLAG peer links, 2 GPUs each way."""
    result = matrix_of('guide-mlag')
    (peer,) = result.by_kind('peer-link')
    per_direction = 2 * 50 * 2 / 3  # 2 GPUs on one leaf, each 2/3 of its 50 to the other leaf
    assert (peer.up, peer.down) == (pytest.approx(per_direction), pytest.approx(per_direction))
    links = [link for link in plan_of('guide-mlag').links if link.kind == 'mlag-peer']
    assert peer.capacity == sum(link.speed for link in links)
    assert result.by_kind('uplink') == ()


@pytest.mark.parametrize('case', ['guide-routed', 'guide-evpn-vxlan'])
def test_spines_share_the_cross_leaf_traffic(case):
    result = matrix_of(case)
    spines = len(spec_of(case)['spines'])
    crossing = result.flows[0].cross_leaf_gbps
    for spine in result.by_kind('spine'):
        assert spine.up == pytest.approx(crossing / spines)
    assert result.by_kind('peer-link') == ()  # with spines, the peers route through them


def test_m_by_hand():
    """128 GPU servers on 8 MLAG pairs, 4 spines, no storage; training flows between all GPUs."""
    spec, result = spec_of('size-m'), matrix_of('size-m')
    gpus = len(servers(spec, 'gpu'))
    assert [r.total_gbps for r in result.flows] == [gpus * f.gbps for f in M_FLOWS]
    assert len(result.by_kind('spine')) == len(spec['spines'])
    # 8 RDMA NICs per leaf: 7 of a GPU's 127 peers share its leaf; bonds span a pair of 16: 15 peers share it
    assert result.flows[0].cross_leaf_gbps == pytest.approx(gpus * 50 * (gpus - 8) / (gpus - 1), abs=1e-5)
    assert result.flows[1].cross_leaf_gbps == pytest.approx(gpus * 2 * (gpus - 16) / (gpus - 1), abs=1e-5)
    assert sum(x.up for x in result.by_kind('spine')) == pytest.approx(sum(r.cross_leaf_gbps for r in result.flows))


def test_m_spines_take_a_quarter_each():
    result = matrix_of('size-m')
    crossing = sum(r.cross_leaf_gbps for r in result.flows)
    for spine in result.by_kind('spine'):
        assert spine.up == pytest.approx(crossing / 4)
