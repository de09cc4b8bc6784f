"""Acceptance rule: the fabric as applied has been proven, by the lab or by an acceptance run, and the proof passed.

The guide: "do not accept 'links are green' as a validation result: run a small acceptance test and save the output".
The rule reads ``Facts.acceptance`` (gathered by ``checks.compliance.acceptance_facts``): when the fabric was last
applied and the latest run of each kind (lab, manual). Since the last apply, at least one run must exist, and the latest
of each kind there is must have passed: a failed one is a finding, as is one that proves nothing (no results, or only
results not verified here). A run older than the last apply proves an older fabric and does not count. Pure.
"""

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from netbox_aifabric.checks.engine import Facts, Finding, Obj, Rule, Skip

__all__ = ('RULES', 'check_latest_acceptance')

PROVEN = 'passed'


def _run_obj(run: Mapping[str, Any]) -> Obj:
    return Obj('netbox_aifabric.acceptancerun', run['name'], pk=run['id'])


def _since(run: Mapping[str, Any], last_applied: datetime | None) -> bool:
    return last_applied is None or run['time'] >= last_applied


def check_latest_acceptance(facts: Facts) -> Iterator[Finding]:
    """The latest lab and manual acceptance runs since the last apply: at least one, and each passed."""
    if facts.context_source != 'devices':
        raise Skip('the fabric has not been applied: there is nothing to accept yet')
    gathered = getattr(facts, 'acceptance', None)
    if gathered is None:
        raise Skip(facts.errors.get('acceptance') or 'the acceptance runs were not read')
    last_applied = gathered.get('last_applied')
    current = {kind: run for kind, run in sorted(gathered.get('latest', {}).items()) if _since(run, last_applied)}
    fabric = Obj('netbox_aifabric.fabric', facts.fabric, pk=gathered.get('fabric_id'))
    if not current:
        older = ', '.join(f'{k} {r["time"]:%Y-%m-%d %H:%M}' for k, r in sorted(gathered.get('latest', {}).items()))
        since = f' since the last apply ({last_applied:%Y-%m-%d %H:%M})' if last_applied else ''
        yield Finding((fabric,), f'a lab or acceptance run{since}', f'none{f" (older: {older})" if older else ""}')
        return
    for kind, run in current.items():
        if run['status'] == PROVEN:
            continue
        counts = f'{run["passed"]} passed, {run["failed"]} failed, {run["not_verified"]} not verified'
        yield Finding((_run_obj(run),), f'the latest {kind} run passed', f'{run["status"]}: {counts}')


RULES = (
    Rule(
        'automation-acceptance',
        'automation',
        'The fabric as applied passed its latest lab or acceptance run',
        'warning',
        "The guide: do not accept 'links are green' as a validation result; run a small acceptance test and save "
        'the output. A fabric changed since its last proof, or whose latest proof failed, is not proven.',
        'Run the lab (Lab tab, or netbox aifabric_lab <fabric>) or the acceptance runbook (Acceptance tab) after '
        'each apply, and fix what the failed run names.',
        check_latest_acceptance,
    ),
)
