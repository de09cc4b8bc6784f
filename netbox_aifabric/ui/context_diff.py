"""A device's config context change as a person reads it: per top-level section (``bgp``, ``interfaces``, ``qos``,
``vlans``…) what changed, each line a path with its old and new value, instead of "set → the plan's context".

Pure Python (no Django): :func:`summarize_context` takes the old and new context (JSON-like dicts; ``None`` for
none) and returns one :class:`SectionSummary` per changed top-level key, in the contexts' order. Within a section:

- a dict's keys added (old ``—``), removed (new ``—``) or changed, recursively (``bgp.asn: 65101 → 65102``);
- a list of records that each carry the same unique identity (``name``, ``vid``…), e.g. the interfaces, compared
  record by record (``interfaces[Ethernet8].mtu: 9000 → 9216``, a record added or removed as a whole), its length
  first when it changed;
- any other list shown whole when short (``[20, 30] → [20, 30, 40]``), else by its count and the elements added
  and removed (``12 items → 13 items``, ``+ 40``, ``− 30``);
- a scalar (or a change of type) as old → new.

Each section lists at most ``limit`` lines, the rest counted in ``more`` ("… N more"). The summary is empty exactly
when the contexts are equal, and names every section that differs (tests/unit/test_context_diff.py, hypothesis).
"""

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ('EMPTY', 'MAX_LINES', 'ContextLine', 'ContextSummaryError', 'SectionSummary', 'summarize_context')

EMPTY = '—'  # the side of a line where the key is absent
MAX_LINES = 8  # lines per section; the rest as "… N more"
SHORT = 40  # a list whose text is at most this long on both sides is shown whole
WIDTH = 60  # a value's text is cut here, with "…"
ELEMENTS = 3  # a long list's elements added (and removed) named on its line
IDENTITIES = ('name', 'vid', 'id', 'key', 'address', 'table')  # what names a record of a list


class ContextSummaryError(ValueError):
    """A context that is not a mapping (nor ``None``): there are no sections to summarise."""


@dataclass(frozen=True)
class ContextLine:
    path: str  # from the top-level section on: 'bgp.asn', 'interfaces[Ethernet8].mtu', 'hostname'
    old: str  # EMPTY when the key is new
    new: str  # EMPTY when the key is gone

    def __str__(self) -> str:
        return f'{self.path}: {self.old} → {self.new}'


@dataclass(frozen=True)
class SectionSummary:
    section: str
    lines: tuple[ContextLine, ...]
    more: int = 0  # lines left off beyond the limit

    def text(self) -> list[str]:
        """The section's lines as text, with "… N more" last when lines were left off."""
        return [str(line) for line in self.lines] + ([f'… {self.more} more'] if self.more else [])


def summarize_context(old: Any, new: Any, limit: int = MAX_LINES) -> list[SectionSummary]:
    """One :class:`SectionSummary` per top-level key whose value differs between ``old`` and ``new`` (mappings or
    ``None``), in the order of ``old`` then the keys only ``new`` has; at most ``limit`` lines each. Raises
    :class:`ContextSummaryError` when either side is neither a mapping nor ``None``."""
    for side, value in (('old', old), ('new', new)):
        if value is not None and not isinstance(value, Mapping):
            raise ContextSummaryError(f'the {side} context is a {type(value).__name__}, not a mapping')
    old, new = old or {}, new or {}
    summaries = []
    for key in _keys(old, new):
        if key in old and key in new and old[key] == new[key]:
            continue
        lines = _lines(str(key), old.get(key, _ABSENT), new.get(key, _ABSENT))
        shown = max(limit, 1)
        summaries.append(SectionSummary(str(key), tuple(lines[:shown]), max(len(lines) - shown, 0)))
    return summaries


class _Absent:
    """A key one side does not have (distinct from a ``None`` value)."""


_ABSENT = _Absent()


def _keys(old: Mapping[Any, Any], new: Mapping[Any, Any]) -> list[Any]:
    return [*old, *(key for key in new if key not in old)]


def _lines(path: str, old: Any, new: Any) -> list[ContextLine]:
    """The lines of a value that differs (``old != new``): never empty."""
    if isinstance(old, _Absent) or isinstance(new, _Absent):
        return [ContextLine(path, _text(old), _text(new))]
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        lines = []
        for key in _keys(old, new):
            if key not in old or key not in new or old[key] != new[key]:
                lines += _lines(f'{path}.{key}', old.get(key, _ABSENT), new.get(key, _ABSENT))
        return lines or [ContextLine(path, _text(old), _text(new))]
    if _is_list(old) and _is_list(new):
        return _list_lines(path, list(old), list(new))
    return [ContextLine(path, _text(old), _text(new))]


def _list_lines(path: str, old: list[Any], new: list[Any]) -> list[ContextLine]:
    identity = _identity(old, new)
    if identity is not None:
        return _record_lines(path, identity, old, new)
    if len(_text(old)) <= SHORT and len(_text(new)) <= SHORT:
        return [ContextLine(path, _text(old), _text(new))]
    removed, added = _unmatched(old, new), _unmatched(new, old)
    detail = [f'+ {_text(v)}' for v in added[:ELEMENTS]] + [f'− {_text(v)}' for v in removed[:ELEMENTS]]
    left = max(len(added) - ELEMENTS, 0) + max(len(removed) - ELEMENTS, 0)
    if left:
        detail.append(f'… {left} more')
    change = ', '.join(detail) if detail else 'reordered'
    return [ContextLine(path, _count(old), f'{_count(new)}: {change}')]


def _record_lines(path: str, identity: str, old: list[Any], new: list[Any]) -> list[ContextLine]:
    """A list of records compared by their ``identity`` value: its length, then each record added, removed or
    changed (by the identity's value), in the order of ``old`` then the records only ``new`` has."""
    before = {record[identity]: record for record in old}
    after = {record[identity]: record for record in new}
    lines = [ContextLine(path, _count(old), _count(new))] if len(old) != len(new) else []
    for name in _keys(before, after):
        where = f'{path}[{name}]'
        if name not in before or name not in after or before[name] != after[name]:
            lines += _lines(where, before.get(name, _ABSENT), after.get(name, _ABSENT))
    return lines or [ContextLine(path, _count(old), f'{_count(new)}: reordered')]


def _identity(old: list[Any], new: list[Any]) -> str | None:
    """The key among ``IDENTITIES`` every record of both lists has, with a distinct scalar value in each list, that
    matches the most records of ``old`` in ``new`` (a renamed VLAN keeps its ``vid``); None when there is none (or a
    list holds anything but records)."""
    records = [*old, *new]
    if not records or not all(isinstance(r, Mapping) for r in records):
        return None
    candidates = [
        key
        for key in IDENTITIES
        if all(key in r and isinstance(r[key], str | int) and not isinstance(r[key], bool) for r in records)
        and all(len({r[key] for r in side}) == len(side) for side in (old, new))
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda key: len({r[key] for r in old} & {r[key] for r in new}))


def _unmatched(values: list[Any], others: list[Any]) -> list[Any]:
    """The elements of ``values`` that ``others`` does not hold (as many times), in their order."""
    available = Counter(_canonical(v) for v in others)
    left = []
    for value in values:
        canonical = _canonical(value)
        if available[canonical]:
            available[canonical] -= 1
        else:
            left.append(value)
    return left


def _canonical(value: Any) -> str:
    """Equal JSON values, equal text (``1``, ``1.0`` and ``True`` are equal in Python, so here too)."""
    return json.dumps(_normal(value), sort_keys=True, default=str)


def _normal(value: Any) -> Any:
    if isinstance(value, bool | int | float) and value - value == 0 and value == int(value):  # finite and whole
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _normal(v) for k, v in value.items()}
    if _is_list(value):
        return [_normal(v) for v in value]
    return value


def _jsonable(value: Any) -> Any:
    """``value`` with every mapping's keys as text, for ``json.dumps`` (a tuple key would make it raise)."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if _is_list(value):
        return [_jsonable(v) for v in value]
    return value


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _count(values: list[Any]) -> str:
    return f'{len(values)} item' if len(values) == 1 else f'{len(values)} items'


def _text(value: Any) -> str:
    """A value as one short line: strings as they are, other scalars and containers as JSON, cut at ``WIDTH``."""
    if isinstance(value, _Absent):
        return EMPTY
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(_jsonable(value), default=str, ensure_ascii=False, separators=(', ', ': '))
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + '…'
