"""Arista EOS and NVIDIA Cumulus NVUE counter output as the runbook's commands print it, parsed (pure: no Django).

The formats, where each field comes from (no field is guessed; a format not found is not parsed):

- ``eos-errors``: ``show interfaces [<port>] counters errors | json`` (EOS eAPI/CLI JSON): ``interfaceErrorCounters``
  ``{<port>: {fcsErrors, alignmentErrors, symbolErrors, inErrors, outErrors, frameTooShorts, frameTooLongs}}``, as
  Arista's ANTA reads it (aristanetworks/anta, ``VerifyInterfaceErrors`` in anta/tests/interfaces.py and its unit
  test data).
- ``eos-pfc``: ``show interfaces <port> priority-flow-control counters detail | json``: ``interfaces`` ``{<port>:
  {priorities: {"<p>": {rxFrames, txFrames}}}}``, as a DSF PFC health check of Meta's network test tooling reads it
  (``_get_eos_pfc_counters``: ``response["interfaces"][interface]["priorities"][str(priority)]``, then ``txFrames``
  / ``rxFrames``). The summary without ``detail`` (``interfaceCounters {<port>: {rxFrames, txFrames}}``, AMD
  node-scraper's ``AristaPfcCounters``) has no priority, so it is refused with a named error.
- ``eos-ecn``: ``show qos interfaces ecn counters queue | json``: ``intfQueueCounters`` ``{<port>: {queueCounters:
  {"<queue>": <marked packets>}}}``, as AMD node-scraper's scale-out Arista collector reads it (``get_ecn_counters``).
- ``nvue-errors``: ``nv show interface <port> counters errors`` (or the ``Error Counters`` section of ``nv show
  interface <port> counters``): a ``Counter  Receive  Transmit`` table, rows ``Alignment Errors``, ``FCS Errors``,
  ``Jabber Errors``, ``Length Errors``, ``Oversize Errors``, ``Symbol Errors``, ``Total Errors``, ``Undersize
  Errors``, ``n/a`` where a direction has none (NVIDIA Cumulus Linux 5.6 user guide, "Monitoring Interfaces and
  Transceivers with NVUE", CumulusNetworks/docs).
- ``nvue-pfc``: ``nv show interface <port> counters qos pfc-stats``: ``switch-priority  rx-pause-frames
  rx-pause-duration  tx-pause-frames  tx-pause-duration``, one row per priority 0..7 (NVUE command reference,
  Show Commands, CumulusNetworks/docs content/nvue-reference; also the ``PFC Statistics`` section of ``nv show
  interface <port> counters qos``).
- ``nvue-queue``: ``nv show interface <port> counters qos egress-queue-stats``: ``traffic-class  tx-frames  tx-bytes
  tx-uc-buffer-discards  wred-discards``, byte columns with a unit (``0 Bytes``, ``1.43 MB``) (same reference).
- ``nvue-ecn``: ``nv show interface <port> counters qos port-stats``: ``Counter  Receive  Transmit``, the row ``ECN
  Marked Packets`` (``n/a`` received, the transmitted count) (same reference).

NVUE's ``-o json`` output of these commands is not documented in the sources found, so only their text is parsed.
Every parser raises ``UploadError`` on ``field`` naming what is missing.
"""

import json
import re

from netbox_aifabric.acceptance.judge import UploadError, _text

__all__ = (
    'parse_eos_ecn',
    'parse_eos_errors',
    'parse_eos_pfc',
    'parse_nvue_ecn',
    'parse_nvue_errors',
    'parse_nvue_pfc',
    'parse_nvue_queue',
)

EOS_ERROR_FIELDS = (
    'fcsErrors', 'alignmentErrors', 'symbolErrors', 'inErrors', 'outErrors', 'frameTooShorts', 'frameTooLongs',
)  # fmt: skip
PORT = 'this port'  # an NVUE per-port command's output does not name its port
_UNITS = {'bytes': 1, 'b': 1, 'kb': 1024, 'mb': 1024**2, 'gb': 1024**3, 'tb': 1024**4}
MAX_COUNTER = 2**64  # hardware counters are 64-bit at most: a bigger number is not a counter
_COUNT = r'(\d{1,20}|n/a)'  # at most 20 digits (2**64 has 20): never a float overflow
_SIZE = r'(\d{1,20}(?:\.\d{1,6})?\s+(?:Bytes|B|KB|MB|GB|TB)|\d{1,20}|n/a)'


def _text_of(output, field):
    try:
        return _text(output)
    except UploadError as e:
        raise UploadError(field, e.message) from None


def _count(value) -> int | None:
    """A JSON counter: a non-negative int (not a bool) of at most 64 bits."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_COUNTER:
        return value
    return None


def _eos_json(output, field, command: str) -> dict:
    """The JSON object EOS printed; the runbook's ``# <command>`` header lines before it are skipped."""
    text = _text_of(output, field)
    body = '\n'.join(line for line in text.splitlines() if not line.startswith('#'))
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, RecursionError) as e:
        raise UploadError(field, f'not "{command}" output (invalid JSON: {e})') from None
    if not isinstance(data, dict):
        raise UploadError(field, f'not "{command}" output: a JSON object expected')
    return data


def _mapping(data, key, field, command) -> dict:
    found = data.get(key) if isinstance(data, dict) else None
    if not isinstance(found, dict) or not found:
        raise UploadError(field, f'not "{command}" output: no "{key}" with at least one interface')
    return found


def parse_eos_errors(output, field='output') -> dict[str, dict[str, int]]:
    """``{port: {counter: value}}`` from ``show interfaces counters errors | json``."""
    command = 'show interfaces counters errors | json'
    ports = _mapping(_eos_json(output, field, command), 'interfaceErrorCounters', field, command)
    out = {}
    for port, counters in ports.items():
        values = {k: _count(counters.get(k)) for k in EOS_ERROR_FIELDS} if isinstance(counters, dict) else {}
        if not values or any(v is None for v in values.values()):
            raise UploadError(field, f'{command}: {port} lacks a counter of {", ".join(EOS_ERROR_FIELDS)}')
        out[str(port)] = values
    return out


def parse_eos_pfc(output, field='output') -> dict[str, dict[str, list[int | None]]]:
    """``{'rx': {port: [PFC0..PFC7]}, 'tx': {...}}`` from ``show interfaces <port> priority-flow-control counters
    detail | json`` (a priority it does not list: None)."""
    command = 'show interfaces <port> priority-flow-control counters detail | json'
    data = _eos_json(output, field, command)
    if 'interfaceCounters' in data and 'interfaces' not in data:
        raise UploadError(field, f'PFC counters without priorities (the summary): run "{command}"')
    found: dict[str, dict[str, list[int | None]]] = {'rx': {}, 'tx': {}}
    for port, entry in _mapping(data, 'interfaces', field, command).items():
        priorities = entry.get('priorities') if isinstance(entry, dict) else None
        if not isinstance(priorities, dict) or not priorities:
            raise UploadError(field, f'{command}: {port} has no "priorities"')
        for direction, key in (('rx', 'rxFrames'), ('tx', 'txFrames')):
            values: list[int | None] = [None] * 8
            for p in range(8):
                counters = priorities.get(str(p))
                if isinstance(counters, dict) and key in counters:
                    values[p] = _count(counters[key])
                    if values[p] is None:
                        raise UploadError(field, f'{command}: {port} priority {p} {key}: not a 64-bit packet count')
            found[direction][str(port)] = values
        if all(v is None for d in found.values() for v in d[str(port)]):
            raise UploadError(field, f'{command}: {port} has no rxFrames/txFrames for priorities 0-7')
    return found


def parse_eos_ecn(output, field='output') -> dict[tuple[str, str], int]:
    """``{(port, queue): ECN-marked packets}`` from ``show qos interfaces ecn counters queue | json``."""
    command = 'show qos interfaces ecn counters queue | json'
    out = {}
    for port, entry in _mapping(_eos_json(output, field, command), 'intfQueueCounters', field, command).items():
        queues = entry.get('queueCounters') if isinstance(entry, dict) else None
        if not isinstance(queues, dict):
            raise UploadError(field, f'{command}: {port} has no "queueCounters"')
        for queue, marked in queues.items():
            if _count(marked) is None:
                raise UploadError(field, f'{command}: {port} queue {queue}: {marked!r} is not a packet count')
            out[str(port), str(queue)] = marked
    if not out:
        raise UploadError(field, f'{command}: no queue counters')
    return out


def _rows(text: str, header: str, row: str) -> list[tuple[str, ...]]:
    """The rows (``row``'s groups) of every NVUE table whose header line reads ``header`` (words separated by
    whitespace, possibly indented) above a rule of dashes, up to the first line that is not a row."""
    words, lines, out = header.split(), text.splitlines(), []
    pattern = re.compile(r'^\s*' + row + r'\s*$', re.I)
    for i, line in enumerate(lines[:-1]):
        rule = lines[i + 1].strip()
        if line.split() != words or not rule or set(rule) - {'-', ' ', '\u2026'}:
            continue
        for candidate in lines[i + 2 :]:
            match = pattern.match(candidate)
            if not match:
                break
            out.append(match.groups())
    return out


def _number(cell: str) -> int | None:
    """``12`` -> 12, ``1.43 MB`` -> its bytes, ``n/a`` -> None."""
    if cell.lower() == 'n/a':
        return None
    value, _, unit = cell.partition(' ')
    return round(float(value) * _UNITS[unit.strip().lower() or 'b'])


def parse_nvue_errors(output, field='output') -> dict[str, dict[str, int | None]]:
    """``{counter: {'rx', 'tx'}}`` (the rows ending in ``Errors``) from ``nv show interface <port> counters errors``."""
    rows = _rows(_text_of(output, field), 'Counter Receive Transmit', rf'([A-Za-z][A-Za-z /-]*?)\s+{_COUNT}\s+{_COUNT}')
    errors = {name: {'rx': _number(rx), 'tx': _number(tx)} for name, rx, tx in rows if name.endswith('Errors')}
    if not errors:
        raise UploadError(field, 'not "nv show interface <port> counters errors" output: no "Counter  Receive  '
                          'Transmit" table with "... Errors" rows')  # fmt: skip
    return errors


def parse_nvue_pfc(output, field='output') -> dict[str, dict[str, list[int | None]]]:
    """``{'rx': {PORT: [PFC0..PFC7]}, 'tx': {...}}`` (pause frames) from ``nv show interface <port> counters qos
    pfc-stats``."""
    header = 'switch-priority rx-pause-frames rx-pause-duration tx-pause-frames tx-pause-duration'
    rows = _rows(_text_of(output, field), header, rf'([0-7])\s+{_COUNT}\s+{_COUNT}\s+{_COUNT}\s+{_COUNT}')
    if not rows:
        raise UploadError(field, f'not "nv show interface <port> counters qos pfc-stats" output: no "{header}" table')
    missing = sorted(set('01234567') - {r[0] for r in rows})
    if missing:  # NVUE lists every switch priority: a row missing or unreadable is not this output
        raise UploadError(field, f'pfc-stats: no readable row for switch-priority {", ".join(missing)}')
    found: dict[str, dict[str, list[int | None]]] = {'rx': {PORT: [None] * 8}, 'tx': {PORT: [None] * 8}}
    for priority, rx, _, tx, _ in rows:
        found['rx'][PORT][int(priority)] = _number(rx)
        found['tx'][PORT][int(priority)] = _number(tx)
    return found


def parse_nvue_queue(output, field='output') -> dict[tuple[str, str], dict[str, int | None]]:
    """``{(PORT, 'TC<n>'): {'tx_frames', 'buffer_discards' (bytes), 'wred_discards'}}`` from ``nv show interface
    <port> counters qos egress-queue-stats``."""
    header = 'traffic-class tx-frames tx-bytes tx-uc-buffer-discards wred-discards'
    rows = _rows(_text_of(output, field), header, rf'([0-7])\s+{_COUNT}\s+{_SIZE}\s+{_SIZE}\s+{_COUNT}')
    if not rows:
        raise UploadError(
            field, f'not "nv show interface <port> counters qos egress-queue-stats" output: no "{header}" table'
        )
    missing = sorted(set('01234567') - {r[0] for r in rows})
    if missing:  # NVUE lists every traffic class: a row missing or unreadable is not this output
        raise UploadError(field, f'egress-queue-stats: no readable row for traffic-class {", ".join(missing)}')
    return {
        (PORT, f'TC{tc}'): {'tx_frames': _number(frames), 'buffer_discards': _number(discards),
                            'wred_discards': _number(wred)}
        for tc, frames, _, discards, wred in rows
    }  # fmt: skip


def parse_nvue_ecn(output, field='output') -> int:
    """The transmitted ``ECN Marked Packets`` from ``nv show interface <port> counters qos port-stats``."""
    rows = _rows(_text_of(output, field), 'Counter Receive Transmit', rf'([A-Za-z][A-Za-z /-]*?)\s+{_COUNT}\s+{_COUNT}')
    marked = [tx for name, _, tx in rows if name.lower().replace('-', ' ') == 'ecn marked packets']
    if not marked or _number(marked[0]) is None:
        raise UploadError(field, 'not "nv show interface <port> counters qos port-stats" output: no "ECN Marked '
                          'Packets" row with a transmit count')  # fmt: skip
    return _number(marked[0]) or 0
