"""RoCE counter snapshots as the tools print them, parsed and judged (pure: no Django).

Uploaded as the tool printed it (``output``, the snapshot after the load) with, optionally, the snapshot taken before
the load (``before``): the judgement is on the growth between the two (on the absolute values without ``before``).

- ``ethtool``: ``ethtool -S <nic>`` of an NVIDIA ConnectX NIC (mlx5 driver). Counter names and meanings from the
  kernel's mlx5 counters documentation by NVIDIA (docs.kernel.org/networking/device_drivers/ethernet/mellanox/mlx5/
  counters.html): ``rx_discards_phy`` (packets dropped for lack of receive buffer on the port), ``rx_prio<p>_discards``
  (the same per priority) must not grow on a lossless fabric; ``rx_prio<p>_pause`` / ``tx_prio<p>_pause`` (PFC pause
  frames received / sent on priority p), ``np_ecn_marked_roce_packets`` (RoCE packets that arrived ECN-marked),
  ``np_cnp_sent`` (CNPs sent as notification point) and ``rp_cnp_handled`` (CNPs handled as reaction point) are
  reported: under an incast they grow, and that is DCQCN and PFC doing their work.
- ``sonic-pfc``: SONiC's ``show pfc counters`` (sonic-utilities doc/Command-Reference.md, "PFC"): a ``Port Rx`` and a
  ``Port Tx`` table, one row per port, columns PFC0..PFC7; numbers may carry thousands separators, ``N/A`` where the
  ASIC has no counter. Pause frames on a priority that is not lossless fail (PFC there is a misconfiguration); on the
  lossless priorities their growth is reported.
- ``sonic-queue``: SONiC's ``show queue counters`` (Command-Reference.md, "Queue"): ``Port TxQ Counter/pkts
  Counter/bytes Drop/pkts Drop/bytes``, queues ``UC<n>`` (unicast) and ``MC<n>``. Drops on the unicast queue of a
  lossless priority must not grow.

Arista EOS and NVIDIA NVUE (parsers and the source of each field: counters_nos.py), judged the same way:

- ``eos-errors`` / ``nvue-errors``: the port error counters (FCS/CRC, alignment, symbol, ...) must not grow.
- ``eos-pfc`` / ``nvue-pfc``: PFC frames per priority, as ``sonic-pfc``: on a priority that is not lossless they fail.
- ``nvue-queue``: ``tx-uc-buffer-discards`` and ``wred-discards`` of the lossless traffic classes must not grow.
- ``eos-ecn`` / ``nvue-ecn``: ECN-marked packets (EOS: on the lossless queues) reported; they grow under congestion.

Text that is not that tool's format raises ``UploadError`` on ``output`` (or ``before``) naming what is missing.
"""

import re

from netbox_aifabric.acceptance.counters_nos import (
    EOS_ERROR_FIELDS,
    PORT,
    parse_eos_ecn,
    parse_eos_errors,
    parse_eos_pfc,
    parse_nvue_ecn,
    parse_nvue_errors,
    parse_nvue_pfc,
    parse_nvue_queue,
)
from netbox_aifabric.acceptance.judge import FAILED, PASSED, RDMA_TOOLS, TOOLS, UploadError, Verdict, _text

__all__ = ('COUNTER_TOOLS', 'NOS_PARSERS', 'judge_counters', 'parse_ethtool', 'parse_sonic_pfc', 'parse_sonic_queue')

# the NIC's ethtool -S, then '<NOS key>-<kind>' (facts/nos.py)
COUNTER_TOOLS = tuple(tool for tool in TOOLS if tool not in ('iperf3', 'ping', *RDMA_TOOLS))
_ETHTOOL_LINE = re.compile(r'^\s+([A-Za-z0-9_.\-\[\]]+):\s+(\d+)\s*$', re.M)
_NUMBER = re.compile(r'^\d[\d,]*$')


def _int(cell: str) -> int | None:
    """``1,200`` -> 1200; ``N/A`` -> None."""
    return int(cell.replace(',', '')) if _NUMBER.match(cell) else None


def parse_ethtool(output, field='output') -> dict[str, int]:
    """``{counter: value}`` from ``ethtool -S <nic>``."""
    text = _text_of(output, field)
    if not re.search(r'^NIC statistics:\s*$', text, re.M):
        raise UploadError(field, 'not ethtool -S output: no "NIC statistics:" line')
    counters = {name: int(value) for name, value in _ETHTOOL_LINE.findall(text)}
    if not counters:
        raise UploadError(field, 'not ethtool -S output: no "<counter>: <number>" lines')
    return counters


def _text_of(output, field):
    try:
        return _text(output)
    except UploadError as e:
        raise UploadError(field, e.message) from None


def _tables(text: str, first: str):
    """``[(header cells, [row cells])]`` of the tabulate tables (a header, a rule of dashes, rows up to a blank line)
    whose header starts with the words of ``first``."""
    tables, lines, words = [], text.splitlines(), first.split()
    for i, line in enumerate(lines[:-1]):
        cells, rule = line.split(), lines[i + 1].strip()
        if cells[: len(words)] != words or not rule or set(rule) - {'-', ' '}:
            continue
        rows = []
        for row in lines[i + 2 :]:
            if not row.strip():
                break
            rows.append(row.split())
        tables.append((cells, rows))
    return tables


def parse_sonic_pfc(output, field='output') -> dict[str, dict[str, list[int | None]]]:
    """``{'rx': {port: [PFC0..PFC7]}, 'tx': {...}}`` from SONiC's ``show pfc counters``."""
    text = _text_of(output, field)
    found = {}
    for direction in ('Rx', 'Tx'):
        tables = _tables(text, f'Port {direction}')
        if not tables:
            raise UploadError(field, f'not SONiC "show pfc counters" output: no "Port {direction}  PFC0 ..." table')
        header, rows = tables[0]
        if header[2:] != [f'PFC{p}' for p in range(8)]:
            raise UploadError(field, f'not SONiC "show pfc counters" output: columns {" ".join(header)}')
        found[direction.lower()] = {row[0]: [_int(c) for c in row[1:9]] for row in rows if len(row) == 9}
    return found


def parse_sonic_queue(output, field='output') -> dict[tuple[str, str], dict[str, int | None]]:
    """``{(port, queue): {'pkts', 'bytes', 'drop_pkts', 'drop_bytes'}}`` from SONiC's ``show queue counters``."""
    text = _text_of(output, field)
    tables = _tables(text, 'Port TxQ')
    if not tables:
        raise UploadError(field, 'not SONiC "show queue counters" output: no "Port  TxQ  Counter/pkts ..." table')
    out = {}
    for header, rows in tables:
        if header[2:6] != ['Counter/pkts', 'Counter/bytes', 'Drop/pkts', 'Drop/bytes']:
            raise UploadError(field, f'not SONiC "show queue counters" output: columns {" ".join(header)}')
        for row in rows:
            if len(row) >= 6:
                values = [_int(c) for c in row[2:6]]
                out[row[0], row[1]] = dict(zip(('pkts', 'bytes', 'drop_pkts', 'drop_bytes'), values, strict=True))
    return out


def _growth(after: int | None, before: int | None) -> int | None:
    if after is None:
        return None
    return after - (before or 0)


def _judge_ethtool(after, before, lossless, subject):
    must_stay_zero = ['rx_discards_phy', *(f'rx_prio{p}_discards' for p in lossless)]
    reported = [f'{d}_prio{p}_pause' for p in lossless for d in ('rx', 'tx')]
    reported += ['np_ecn_marked_roce_packets', 'np_cnp_sent', 'rp_cnp_handled']
    present = [c for c in must_stay_zero + reported if c in after]
    if not present:
        raise UploadError('output', f'no mlx5 RoCE counter in this ethtool -S output (expected {", ".join(reported)})')
    grew = {c: _growth(after.get(c), before.get(c) if before else None) for c in present}
    bad = [f'{c} +{grew[c]}' for c in must_stay_zero if grew.get(c)]
    pause = sum(grew.get(c) or 0 for c in reported[: 2 * len(lossless)])
    seen = ', '.join(f'{c} +{grew[c]}' for c in present)
    missing = [c for c in must_stay_zero if c not in after]
    if missing:
        seen += f' (not in this output: {", ".join(missing)})'
    expected = f'no growth of {", ".join(must_stay_zero)}; PFC pause, ECN marks and CNPs reported'
    return _verdict('nic', f'nic counters {subject}', subject, bad, expected, seen, pause, before)


def _judge_pfc(after, before, lossless, subject):
    growth = {}
    for direction, ports in after.items():
        for port, values in ports.items():
            old = ((before or {}).get(direction) or {}).get(port) or [None] * 8
            for p, (a, b) in enumerate(zip(values, old, strict=True)):
                if _growth(a, b):
                    growth[direction, port, p] = _growth(a, b)
    bad = [f'{d} {port} PFC{p} +{n}' for (d, port, p), n in sorted(growth.items()) if p not in lossless]
    pause = sum(n for (_, _, p), n in growth.items() if p in lossless)
    shown = [f'{d} {port} PFC{p} +{n}' for (d, port, p), n in sorted(growth.items()) if p in lossless]
    seen = f'PFC pause frames on the lossless priorities: {pause}' + (f' ({", ".join(shown[:8])})' if shown else '')
    expected = f'PFC pause frames only on the lossless priorities (PFC{", PFC".join(map(str, lossless))}), reported'
    return _verdict('pfc', f'pfc counters {subject}', subject, bad, expected, seen, pause, before)


def _judge_sonic_queue(after, before, lossless, subject):
    queues = {f'UC{p}' for p in lossless}
    drops = {}
    for (port, queue), values in after.items():
        if queue in queues:
            old = ((before or {}).get((port, queue)) or {}).get('drop_pkts')
            drops[port, queue] = _growth(values['drop_pkts'], old)
    if not drops:
        raise UploadError('output', f'no lossless queue ({", ".join(sorted(queues))}) in this show queue counters')
    bad = [f'{port} {queue} Drop/pkts +{n}' for (port, queue), n in sorted(drops.items()) if n]
    total = sum(n or 0 for n in drops.values())
    seen = f'{len(drops)} lossless queue(s), drops +{total}'
    expected = f'no growth of Drop/pkts on the lossless queues {", ".join(sorted(queues))}'
    return _verdict('queue-drops', f'queue counters {subject}', subject, bad, expected, seen, total, before)


def _verdict(category, name, subject, bad, expected, seen, value, before, prefix='roce-'):
    span = 'between the two snapshots' if before is not None else '(one snapshot: its absolute values)'
    try:
        value = float(value)
    except OverflowError:  # a sum beyond any 64-bit counter: not a counter snapshot
        raise UploadError('output', 'a counter too large to be a hardware counter (beyond 64 bits)') from None
    if bad:
        seen += ' -> ' + '; '.join(bad)
    return Verdict(
        name=name[:300],
        category=f'{prefix}{category}',
        subject=subject[:200],
        status=FAILED if bad else PASSED,
        expected=f'{expected} {span}',
        seen=seen,
        value=value,
    )


def _judge_stay_zero(after, before, category, name, subject, expected, prefix='roce-'):
    """``after``/``before``: ``{where: {counter: value}}``; every counter must not grow (a counter cleared between the
    snapshots, a negative growth, is not a failure)."""
    grew = {}
    for where, counters in after.items():
        old = (before or {}).get(where) or {}
        for counter, value in counters.items():
            grew[where, counter] = _growth(value, old.get(counter))
    bad = [f'{where} {counter} +{n}' for (where, counter), n in sorted(grew.items()) if n and n > 0]
    total = sum(n for n in grew.values() if n and n > 0)
    seen = f'{len(grew)} counter(s) of {", ".join(sorted(after)[:4])}{", ..." if len(after) > 4 else ""}: +{total}'
    return _verdict(category, f'{name} {subject}', subject, bad, expected, seen, total, before, prefix)


def _judge_eos_errors(after, before, lossless, subject):
    expected = f'no growth of {", ".join(EOS_ERROR_FIELDS)} on any interface'
    return _judge_stay_zero(after, before, 'errors', 'error counters', subject, expected, 'physical-')


def _judge_nvue_errors(after, before, lossless, subject):
    def flat(errors):  # "Total Errors" sums the others: judged alone only when the others are missing
        rows = {c: v for c, v in errors.items() if c != 'Total Errors'} or errors
        return {PORT: {f'{c} {d}': v[d] for c, v in rows.items() for d in ('rx', 'tx')}}

    expected = f'no growth of the error counters ({", ".join(sorted(after))}), received or transmitted'
    old = flat(before) if before is not None else None
    return _judge_stay_zero(flat(after), old, 'errors', 'error counters', subject, expected, 'physical-')


def _judge_nvue_queue(after, before, lossless, subject):
    classes = {f'TC{p}' for p in lossless}

    def lossless_only(queues):
        return {f'{port} {tc}': {'tx-uc-buffer-discards': v['buffer_discards'], 'wred-discards': v['wred_discards']}
                for (port, tc), v in queues.items() if tc in classes}  # fmt: skip

    found = lossless_only(after)
    if not found:
        raise UploadError('output', f'no lossless traffic class ({", ".join(sorted(classes))}) in this output')
    expected = f'no growth of tx-uc-buffer-discards (bytes) and wred-discards on {", ".join(sorted(classes))}'
    old = lossless_only(before) if before is not None else None
    return _judge_stay_zero(found, old, 'queue-drops', 'queue counters', subject, expected)


def _judge_ecn(marks, before_marks, subject, where):
    """Report ECN-marked packets: under congestion they grow (DCQCN at work); none is no failure (no congestion)."""
    growth = sum(max(_growth(a, (before_marks or {}).get(k)) or 0, 0) for k, a in marks.items())
    seen = f'ECN-marked packets {where}: +{growth}'
    expected = 'ECN marks reported: they grow under congestion (an incast), DCQCN at work; none without congestion'
    return _verdict('ecn', f'ecn counters {subject}', subject, [], expected, seen, growth, before_marks)


def _judge_eos_ecn(after, before, lossless, subject):
    queues = {str(p) for p in lossless}
    marks = {k: v for k, v in after.items() if k[1] in queues}
    if not marks:
        raise UploadError('output', f'no lossless queue ({", ".join(sorted(queues))}) in this ECN counters output')
    old = {k: v for k, v in before.items() if k[1] in queues} if before is not None else None
    return _judge_ecn(marks, old, subject, f'on the lossless queue(s) {", ".join(sorted(queues))}')


def _judge_nvue_ecn(after, before, lossless, subject):
    return _judge_ecn({PORT: after}, {PORT: before} if before is not None else None, subject, 'transmitted')


# Per NOS key, per counter kind (the registry's counter_tools, facts/nos.py): (parser, judge); the upload tool is
# '<key>-<kind>'. A test holds these keys and kinds equal to the registry's.
NOS_PARSERS = {
    'sonic': {'pfc': (parse_sonic_pfc, _judge_pfc), 'queue': (parse_sonic_queue, _judge_sonic_queue)},
    'eos': {
        'errors': (parse_eos_errors, _judge_eos_errors), 'pfc': (parse_eos_pfc, _judge_pfc),
        'ecn': (parse_eos_ecn, _judge_eos_ecn),
    },
    'nvue': {
        'errors': (parse_nvue_errors, _judge_nvue_errors), 'pfc': (parse_nvue_pfc, _judge_pfc),
        'queue': (parse_nvue_queue, _judge_nvue_queue), 'ecn': (parse_nvue_ecn, _judge_nvue_ecn),
    },
}  # fmt: skip
_BY_TOOL = {'ethtool': (parse_ethtool, _judge_ethtool)} | {
    f'{key}-{kind}': pair for key, kinds in NOS_PARSERS.items() for kind, pair in kinds.items()
}
PARSERS = {tool: parse for tool, (parse, _) in _BY_TOOL.items()}
JUDGES = {tool: judge for tool, (_, judge) in _BY_TOOL.items()}


# Counters kept per egress queue (traffic class), not per priority: judged on the queues the lossless priorities map to
QUEUE_TOOLS = frozenset({'sonic-queue', 'nvue-queue', 'eos-ecn'})


def judge_counters(tool: str, output, before=None, lossless=(3,), subject='', queues=None) -> Verdict:
    """Judge a counter snapshot (``output``: after the load; ``before``: the one before it, optional) of ``tool``
    with the fabric's lossless (PFC) priorities, and for per-queue counters the queues (traffic classes) those
    priorities map to (``queues``; default: the same numbers, the usual identity map)."""
    if tool not in PARSERS:
        raise UploadError('tool', f'{tool!r} is not one of {", ".join(COUNTER_TOOLS)}')
    after = PARSERS[tool](output)
    earlier = PARSERS[tool](before, 'before') if before not in (None, '') else None
    judged = tuple(queues if queues is not None and tool in QUEUE_TOOLS else lossless)
    return JUDGES[tool](after, earlier, judged, subject or tool)
