"""The Acceptance and Lab tabs folded: each runbook step with the verdict the stored run gives it, each section's
counts, and the results that belong to no step grouped by category (pure: steps and results are read by attribute).

A runbook step is matched to the results its script uploads (acceptance/runbook.py, ``runbook_script``), by
category and subject: a port's error counters (``physical-errors``, ``<switch> <port>``), a device's LLDP view
(``lldp-device``, the device), an MTU ping (``mtu`` or ``latency``, the step's subject), a switch's or NIC's RoCE
counters (``roce-*``, ``<host> <what>``), an iperf3 pair (``throughput-*`` and the ``latency`` of its ping during the
load), an RDMA pair (``rdma-*`` and the ``roce-*`` snapshots taken during it). A step is failed if one of its results
failed, passed if one passed, not verified if all its results are, and not run without a result."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = (
    'FAILED', 'NOT_RUN', 'NOT_VERIFIED', 'PASSED', 'STATES', 'Fold', 'fold_runbook', 'fold_steps', 'group_results',
    'index_results', 'step_keys', 'verdict_of',
)  # fmt: skip

PASSED, FAILED, NOT_VERIFIED, NOT_RUN = 'passed', 'failed', 'not-verified', 'not-run'
STATES = (PASSED, FAILED, NOT_VERIFIED, NOT_RUN)
LLDP_STEP = 'lldp'  # runbook.LLDP_STEP: the physical section's LLDP steps
ROCE = 'roce-'
DURING = ' during '  # an RDMA pair's counter snapshots: '<host> [<nic>] during <pair>'


@dataclass
class Fold:
    """One folded section (or result group): its rows ``(item, state, results)`` and the count of each state."""

    key: str
    rows: list[tuple[Any, str, list[Any]]] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATES, 0)
        for _, state, _ in self.rows:
            counts[state] += 1
        return counts

    @property
    def open(self) -> bool:
        """A section with a failure opens by default; the rest stay folded."""
        return self.counts[FAILED] > 0


def step_keys(step: Any) -> list[tuple[str, str]]:
    """``[(category or category prefix ending in '-', subject)]`` of the results ``step`` uploads."""
    section, subject = step.section, step.subject
    if section == 'physical':
        if step.kind == LLDP_STEP:
            return [('lldp-device', step.where)]
        return [('physical-errors', subject)]
    if section == 'mtu':
        return [('mtu', subject), ('latency', subject)]
    if section == 'roce':
        return [(ROCE, f'{step.where} {step.destination}')]
    if section == 'throughput':
        return [('throughput-', subject), ('latency', f'ping during iperf3 {subject}')]
    if section == 'rdma':
        return [('rdma-', subject)]
    return []  # evpn, security, ansible: the script judges them and saves the output, nothing is uploaded


def _matches(category: str, wanted: str) -> bool:
    return category.startswith(wanted) if wanted.endswith('-') else category == wanted


def verdict_of(results: Sequence[Any]) -> str:
    statuses = {r.status for r in results}
    for state in (FAILED, PASSED, NOT_VERIFIED):
        if state in statuses:
            return state
    return NOT_RUN


def fold_steps(key: str, steps: Iterable[Any], by_subject: dict[str, list[Any]], claimed: set[int]) -> Fold:
    """The section ``key``'s steps, each with its results (taken from ``by_subject``, their ids added to
    ``claimed``) and its verdict."""
    fold = Fold(key)
    for step in steps:
        mine = [r for wanted, subject in step_keys(step) for r in by_subject.get(subject, ())
                if _matches(r.category, wanted)]  # fmt: skip
        if step.section == 'rdma':  # the counters snapshotted around the pair
            mine += [r for r in by_subject.get(f'{DURING}{step.subject}', ()) if r.category.startswith(ROCE)]
        claimed.update(id(r) for r in mine)
        fold.rows.append((step, verdict_of(mine), mine))
    return fold


def index_results(results: Iterable[Any]) -> dict[str, list[Any]]:
    """Results by subject, and an RDMA pair's snapshots also by ``' during <pair>'``."""
    by_subject: dict[str, list[Any]] = {}
    for result in results:
        by_subject.setdefault(result.subject, []).append(result)
        if DURING in result.subject:
            by_subject.setdefault(DURING + result.subject.split(DURING, 1)[1], []).append(result)
    return by_subject


def group_results(results: Iterable[Any]) -> list[Fold]:
    """Results by category (in order of first appearance), one row per result with its own status."""
    groups: dict[str, Fold] = {}
    for result in results:
        fold = groups.setdefault(result.category, Fold(result.category))
        fold.rows.append((result, result.status if result.status in STATES else NOT_VERIFIED, [result]))
    return list(groups.values())


type Sections = Iterable[tuple[str, Iterable[Any]]]


def fold_runbook(sections: Sections, results: Iterable[Any]) -> tuple[list[Fold], list[Fold]]:
    """``(one Fold per section, the results no step claims grouped by category)``."""
    results = list(results)  # read twice
    by_subject, claimed = index_results(results), set[int]()
    folds = [fold_steps(key, steps, by_subject, claimed) for key, steps in sections]
    return folds, group_results(r for r in results if id(r) not in claimed)
