"""The acceptance rule (checks/acceptance.py) on facts shaped as ``acceptance_facts`` gathers them: passing and failing
fixtures, each failure with exactly its finding."""

import copy
from datetime import UTC, datetime

import pytest

from netbox_aifabric.checks.acceptance import RULES
from netbox_aifabric.checks.engine import Facts, run_rules

pytestmark = pytest.mark.pure

APPLIED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def run(kind, status, day, passed=40, failed=0, not_verified=8, pk=1):
    return {
        'id': pk, 'name': f'AI Lab {kind} 2026-03-{day:02d}', 'time': datetime(2026, 3, day, tzinfo=UTC),
        'status': status, 'passed': passed, 'failed': failed, 'not_verified': not_verified,
    }  # fmt: skip


def outcome(latest, last_applied=APPLIED, source='devices'):
    facts = Facts('AI Lab', {}, context_source=source, acceptance={'last_applied': last_applied, 'latest': latest})
    (result,) = run_rules(RULES, facts).results
    return result.status, [(tuple(str(o) for o in f.objects), f.expected, f.found) for f in result.findings]


def test_a_passed_lab_run_since_the_last_apply_passes():
    assert outcome({'lab': run('lab', 'passed', 2)}) == ('pass', [])
    assert outcome({'lab': run('lab', 'passed', 2), 'manual': run('manual', 'passed', 3, pk=2)}) == ('pass', [])
    # never applied through the apply service (no time): any run counts
    assert outcome({'manual': run('manual', 'passed', 2)}, last_applied=None) == ('pass', [])


def test_the_latest_failed_run_is_the_finding():
    status, findings = outcome({'lab': run('lab', 'failed', 2, passed=38, failed=2)})
    assert status == 'fail'
    assert findings == [
        (('AI Lab lab 2026-03-02',), 'the latest lab run passed', 'failed: 38 passed, 2 failed, 8 not verified')
    ]


def test_a_failed_manual_run_is_not_hidden_by_a_passing_lab_run():
    latest = {'lab': run('lab', 'passed', 3), 'manual': run('manual', 'failed', 2, failed=1, pk=2)}
    status, findings = outcome(latest)
    assert status == 'fail' and [f[1] for f in findings] == ['the latest manual run passed']


def test_no_run_since_the_last_apply():
    assert outcome({}) == (
        'fail',
        [(('AI Lab',), 'a lab or acceptance run since the last apply (2026-03-01 12:00)', 'none')],
    )
    older = outcome({'lab': run('lab', 'passed', 1)})  # 00:00 on the day of the apply: before it
    assert older == (
        'fail',
        [
            (
                ('AI Lab',),
                'a lab or acceptance run since the last apply (2026-03-01 12:00)',
                'none (older: lab 2026-03-01 00:00)',
            )
        ],
    )
    # a failed run older than the apply is an older fabric's: only "none since" is reported
    assert outcome({'lab': run('lab', 'failed', 1, failed=3)})[1][0][2].startswith('none')


def test_a_run_that_proves_nothing_is_a_finding():
    for status in ('empty', 'incomplete'):
        found = outcome({'lab': run('lab', status, 2, passed=0, not_verified=0 if status == 'empty' else 5)})
        assert found[0] == 'fail' and found[1][0][2].startswith(f'{status}: 0 passed')


def test_skips_rather_than_passes_without_the_facts():
    assert outcome({'lab': run('lab', 'passed', 2)}, source='plan')[0] == 'skip'  # never applied
    facts = Facts('AI Lab', {})
    (result,) = run_rules(RULES, facts).results
    assert (result.status, result.note) == ('skip', 'the acceptance runs were not read')


def test_every_input_is_left_alone():
    latest = {'lab': run('lab', 'failed', 2, failed=1)}
    kept = copy.deepcopy(latest)
    outcome(latest)
    assert latest == kept
