"""The Acceptance tab's folding, pure: the guide's runbook with verdicts the judges give real tool output, matched to
their steps by category and subject; each step's verdict, each section's counts and open state, the results no step
claims grouped by category; and, for arbitrary results, every result shown exactly once."""

from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netbox_aifabric.acceptance.judge import judge_iperf3, judge_ping, pair_rate
from netbox_aifabric.acceptance.runbook import SECTIONS, build_runbook
from netbox_aifabric.ui.acceptance_fold import (
    FAILED,
    NOT_RUN,
    NOT_VERIFIED,
    PASSED,
    STATES,
    fold_runbook,
    group_results,
    step_keys,
    verdict_of,
)
from tests.render_fixtures import guide_contexts, guide_spec, plan_of

pytestmark = pytest.mark.pure

FIXTURES = Path(__file__).with_name('fixtures')


def output(name):
    return (FIXTURES / name).read_text()


def guide_book():
    plan = plan_of(guide_spec('evpn-vxlan'))
    return plan, build_runbook(plan, guide_contexts('evpn-vxlan'))


def sections_of(book):
    return [(key, book.section(key)) for key in SECTIONS]


def test_a_step_takes_the_verdict_of_its_uploads_and_a_failed_section_opens():
    plan, book = guide_book()
    pair = book.section('throughput')[0]
    jumbo = book.section('mtu')[0]
    results = [
        judge_iperf3(output('iperf3_p8_ok.json'), pair_rate(plan, pair.source, pair.destination)),
        judge_ping(output('ping_jumbo_ok.txt'), jumbo.subject),
        judge_ping(output('ping_quiet_ok.txt'), 'somewhere no step pings'),
    ]
    # what the judges say of the fixtures: 16 Gbit/s of a 50 Gbit/s pair, a clean jumbo ping, a quiet ping
    assert [r.status for r in results] == [FAILED, PASSED, PASSED]
    folds, others = fold_runbook(sections_of(book), results)
    by_key = {fold.key: fold for fold in folds}
    assert [fold.key for fold in folds] == list(SECTIONS)

    throughput = by_key['throughput']
    assert throughput.rows[0][1] == FAILED and throughput.rows[0][2] == [results[0]]
    assert throughput.counts == {PASSED: 0, FAILED: 1, NOT_VERIFIED: 0, NOT_RUN: len(throughput.rows) - 1}
    assert throughput.open
    mtu = by_key['mtu']
    assert mtu.rows[0][1] == PASSED and mtu.rows[0][2] == [results[1]]
    assert mtu.counts[NOT_RUN] == len(book.section('mtu')) - 1 and not mtu.open
    for key in set(SECTIONS) - {'throughput', 'mtu'}:  # nothing uploaded for them
        assert by_key[key].counts[NOT_RUN] == len(book.section(key)), key
        assert not by_key[key].open, key
    # the stray ping belongs to no step: its own group, by its category
    assert [(g.key, [row[0] for row in g.rows]) for g in others] == [('latency', [results[2]])]


def test_an_rdma_pair_claims_the_counter_snapshots_taken_during_it():
    _, book = guide_book()
    rdma = book.section('rdma')
    if not rdma:
        pytest.skip('the guide fabric plans no RDMA pair')
    step = rdma[0]
    snapshot = SimpleNamespace(category='roce-pfc', subject=f'{step.where} eth0 during {step.subject}', status=FAILED)
    bandwidth = SimpleNamespace(category='rdma-write-bw', subject=step.subject, status=PASSED)
    folds, others = fold_runbook([('rdma', rdma)], [bandwidth, snapshot])
    row = folds[0].rows[0]
    assert row[1] == FAILED and row[2] == [bandwidth, snapshot]  # a failed snapshot fails the pair
    assert others == []


def test_verdict_order_failed_then_passed_then_not_verified():
    def of(*statuses):
        return verdict_of([SimpleNamespace(status=s) for s in statuses])

    assert of() == NOT_RUN
    assert of(NOT_VERIFIED) == NOT_VERIFIED
    assert of(NOT_VERIFIED, PASSED) == PASSED
    assert of(PASSED, FAILED, NOT_VERIFIED) == FAILED


def test_sections_the_script_judges_upload_nothing():
    _, book = guide_book()
    for key in ('evpn', 'security', 'ansible'):
        assert all(step_keys(step) == [] for step in book.section(key)), key


_SUBJECTS = st.sampled_from(['leaf1 Ethernet1', 'gpu1 -> gpu2', 'x', 'gpu1 eth0 during gpu1 -> gpu3', ''])
_RESULTS = st.lists(
    st.builds(
        SimpleNamespace,
        category=st.sampled_from(
            [
                'mtu',
                'latency',
                'physical-errors',
                'lldp-device',
                'roce-pfc',
                'rdma-write-bw',
                'throughput-same-leaf',
                'other',
            ]
        ),  # fmt: skip
        subject=st.one_of(_SUBJECTS, st.text(max_size=20)),
        status=st.sampled_from([*STATES, 'odd']),
    ),
    max_size=30,
)


@given(_RESULTS)
def test_every_result_is_shown_once_claimed_or_grouped(results):
    _, book = GUIDE
    folds, others = fold_runbook(sections_of(book), results)
    claimed = {id(r) for fold in folds for row in fold.rows for r in row[2]}
    grouped = [row[0] for group in others for row in group.rows]
    assert {id(r) for r in grouped}.isdisjoint(claimed)
    assert claimed | {id(r) for r in grouped} == {id(r) for r in results}
    assert len(grouped) == len({id(r) for r in grouped})
    for fold in [*folds, *others]:
        assert sum(fold.counts.values()) == len(fold.rows)
        assert fold.open == any(state == FAILED for _, state, _ in fold.rows)
    assert sum(len(f.rows) for f in folds) == len(book.steps)


def test_results_group_by_category_in_order_of_first_appearance():
    results = [SimpleNamespace(category=c, subject='s', status=s) for c, s in
               (('b', PASSED), ('a', 'odd'), ('b', FAILED))]  # fmt: skip
    groups = group_results(results)
    assert [(g.key, [state for _, state, _ in g.rows]) for g in groups] == [
        ('b', [PASSED, FAILED]),
        ('a', [NOT_VERIFIED]),
    ]
    assert [g.open for g in groups] == [True, False]


GUIDE = guide_book()
