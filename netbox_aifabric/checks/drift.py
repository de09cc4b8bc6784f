"""Drift rules: NetBox against the applied plan, from the apply engine's own diff (``apply.diff.diff_fabric``) and
what it cannot see (foreign objects inside the pools), turned into
:class:`~.engine.DriftItem` s by ``checks.compliance``. Pure."""

from collections.abc import Iterator, Mapping
from typing import Any

from netbox_aifabric.checks.engine import DriftItem, Facts, Finding, Rule, Skip

__all__ = ('RULES',)


def _items(facts: Facts, action: str) -> list[DriftItem]:
    if facts.drift is None:
        raise Skip(facts.errors.get('drift') or 'the fabric has not been applied: nothing can have drifted')
    return [item for item in facts.drift if item.action == action]


def _fields(values: Mapping[str, Any]) -> str:
    return ', '.join(f'{k}={v}' for k, v in sorted(values.items())) or '—'


def check_edited(facts: Facts) -> Iterator[Finding]:
    """Owned objects whose fields differ from what the plan wants (edited by hand, or the intent changed since)."""
    for item in _items(facts, 'update'):
        yield Finding((item.obj,), _fields(item.expected), _fields(item.found))


def check_missing(facts: Facts) -> Iterator[Finding]:
    """Objects the plan wants that NetBox lacks: owned ones deleted by hand, and ones never applied."""
    for item in _items(facts, 'create'):
        found = 'deleted from NetBox' if item.deleted else 'not in NetBox (not applied yet)'
        yield Finding((item.obj,), f'{item.obj.model} {item.obj} ({item.key})', found)


def check_extra(facts: Facts) -> Iterator[Finding]:
    """Objects the fabric owns that the plan no longer has."""
    for item in _items(facts, 'delete'):
        yield Finding((item.obj,), f'no {item.obj.model} {item.obj} ({item.key})', item.reason or 'still in NetBox')


def check_conflicts(facts: Facts) -> Iterator[Finding]:
    """Objects the fabric does not own where the plan wants its own (an address, /31 or ASN of its pools used
    elsewhere)."""
    for item in _items(facts, 'conflict'):
        yield Finding((item.obj,), f'{item.key} owned by the fabric', f'{item.obj}: {item.reason}')


def check_foreign(facts: Facts) -> Iterator[Finding]:
    """Objects the fabric does not own inside its pools (a Prefix or address in its loopback, VTEP, point-to-point or
    MLAG peer pool, a Prefix in a server pool, an ASN in its leaf range), beyond those the plan wants now."""
    for item in _items(facts, 'foreign'):
        yield Finding((item.obj,), f'no {item.obj.model} the fabric does not own {item.reason}', f'{item.obj}')


RULES = (
    Rule(
        'drift-edited',
        'drift',
        'Owned objects as the plan made them',
        'error',
        'NetBox is the source of truth the configs are rendered from: a hand edit (an MTU, an address, a VLAN on a '
        'bond) silently diverges from the design and is gone at the next apply.',
        'Change the intent (fabric, classes, QoS) instead and apply; or re-apply to undo the edit.',
        check_edited,
    ),
    Rule(
        'drift-missing',
        'drift',
        'Every object the plan wants is in NetBox',
        'error',
        'A cable, interface or address deleted by hand leaves the fabric cabled or numbered differently from its plan '
        "(and from the switches' configs).",
        'Re-apply the fabric: it recreates what the plan wants.',
        check_missing,
    ),
    Rule(
        'drift-extra',
        'drift',
        'No owned objects beyond the plan',
        'warning',
        'Objects the fabric owns but no longer plans (a shrunk fabric) keep addresses and ports taken that the plan '
        'considers free.',
        'Apply with "confirm deletions" to remove them (adopted objects are released, not deleted).',
        check_extra,
    ),
    Rule(
        'drift-conflict',
        'drift',
        "No foreign objects where the plan wants the fabric's own",
        'error',
        'Managed pools, not hand-set ids: an address, /31 or ASN of the fabric used by another object is a duplicate '
        'waiting to happen.',
        "Move the other object out of the fabric's pools (or adopt its device), then apply.",
        check_conflicts,
    ),
    Rule(
        'drift-foreign',
        'drift',
        "Nothing foreign inside the fabric's pools",
        'warning',
        'Managed pools, not hand-set ids: an address, prefix or ASN put inside the pools by hand is one the planner '
        'will hand out again as the fabric grows.',
        "Move the object out of the fabric's pools (another prefix or ASN), or delete it if it is a leftover.",
        check_foreign,
    ),
)
