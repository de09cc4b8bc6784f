"""Tool output as the tools print it, parsed and judged against the plan (pure: no Django).

- iperf3 ``--json``: ``end.sum_received.bits_per_second`` (what the receiver got) against the line rate the plan gives
  for the pair (the slower of the two servers' bonds), passed at ``MIN_LINE_RATE_FRACTION`` or more;
- ``ping``: loss must be 0 %, and the worst round trip must stay within ``SPIKE_MS`` of the best one: a spike fails
  even when the average looks fine (the guide: latency spikes, not only averages);
- perftest's ``ib_write_bw``, ``ib_send_lat`` and ``ib_read_lat`` (``RDMA_TOOLS``): rdma.py.

Bad input raises ``UploadError`` naming the field and what is wrong; nothing is judged.
"""

import json
import math
import re
import statistics
from dataclasses import dataclass
from typing import Any

from netbox_aifabric.facts.nos import acceptance_nos
from netbox_aifabric.planner import Plan

__all__ = (
    'MIN_LINE_RATE_FRACTION',
    'RDMA_TOOLS',
    'SPIKE_MS',
    'TOOLS',
    'PairRate',
    'UploadError',
    'Verdict',
    'judge_iperf3',
    'judge_ping',
    'pair_rate',
    'parse_iperf3',
    'parse_ping',
)

MIN_LINE_RATE_FRACTION = 0.9  # iperf3 -P 8 between two servers: at least 90 % of the pair's line rate
SPIKE_MS = 1.0  # a fabric round trip is tens of microseconds; a max this far above the min is a queue building up
MAX_OUTPUT = 2_000_000  # characters: an iperf3 -P 8 --json of a minute is ~200 kB
# perftest's RDMA bandwidth and latency tests (parsed and judged in rdma.py)
RDMA_TOOLS = ('ib_write_bw', 'ib_send_lat', 'ib_read_lat')
# All but iperf3, ping and the RDMA tools: counter snapshots (counters.py), the NIC's ethtool -S and each NOS's
# '<key>-<kind>' (facts/nos.py, counter_tools)
TOOLS = (
    'iperf3', 'ping', *RDMA_TOOLS, 'ethtool',
    *(f'{nos.key}-{kind}' for nos in acceptance_nos() for kind in nos.counter_tools),
)  # fmt: skip
PASSED, FAILED = 'passed', 'failed'


class UploadError(ValueError):
    """A bad upload: ``field`` names the input, the message says what is wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(f'{field}: {message}')
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Verdict:
    name: str
    category: str
    subject: str
    status: str
    expected: str
    seen: str
    value: float | None


@dataclass(frozen=True)
class PairRate:
    """What the plan gives for an iperf3 pair: the line rate (Gbit/s) and the kind of pair (category)."""

    source: str
    destination: str
    gbps: int
    category: str  # throughput-same-leaf, throughput-leaf-to-leaf, throughput-storage
    why: str


def _text(output: object) -> str:
    if not isinstance(output, str) or not output.strip():
        raise UploadError('output', 'empty: paste or upload what the tool printed')
    if len(output) > MAX_OUTPUT:
        raise UploadError('output', f'{len(output)} characters, at most {MAX_OUTPUT}')
    if '\x00' in output:
        raise UploadError('output', 'contains NUL characters: not a tool output')
    return output


def parse_iperf3(output: object) -> dict[str, Any]:
    """``{'bps', 'streams', 'protocol', 'seconds'}`` from iperf3 ``--json`` output."""
    text = _text(output)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise UploadError('output', f'not iperf3 --json output (invalid JSON: {e})') from None
    if not isinstance(data, dict):
        raise UploadError('output', 'not iperf3 --json output (a JSON object with "start" and "end" expected)')
    if data.get('error'):
        raise UploadError('output', f'iperf3 reported an error, nothing measured: {str(data["error"])[:200]}')
    end = data.get('end')
    received = end.get('sum_received') if isinstance(end, dict) else None
    if not isinstance(received, dict):
        received = {}  # no end.sum_received: no bits_per_second either
    bps = received.get('bits_per_second')
    if isinstance(bps, bool) or not isinstance(bps, int | float) or not 0 <= bps < math.inf:
        raise UploadError('output', 'no end.sum_received.bits_per_second: run the TCP test with iperf3 --json')
    start = data.get('start')
    start = start if isinstance(start, dict) else {}
    test = start.get('test_start')
    test = test if isinstance(test, dict) else {}
    seconds = received.get('seconds')
    return {
        'bps': float(bps),
        'streams': test.get('num_streams') if isinstance(test.get('num_streams'), int) else None,
        'protocol': str(test.get('protocol') or 'TCP'),
        'seconds': float(seconds) if isinstance(seconds, int | float) and not isinstance(seconds, bool) else None,
    }


def judge_iperf3(output: object, rate: PairRate, fraction: float = MIN_LINE_RATE_FRACTION) -> Verdict:
    found = parse_iperf3(output)
    gbps = found['bps'] / 1e9
    share = gbps / rate.gbps
    streams = f'{found["streams"]} streams' if found['streams'] else 'streams ?'
    return Verdict(
        name=f'iperf3 {rate.source} -> {rate.destination}',
        category=rate.category,
        subject=f'{rate.source} -> {rate.destination}',
        status=PASSED if share >= fraction else FAILED,
        expected=f'>= {fraction:.0%} of {rate.gbps} Gbit/s ({rate.why}) = {fraction * rate.gbps:g} Gbit/s received',
        seen=f'{gbps:.2f} Gbit/s received ({share:.0%} of the line rate), {streams}, {found["protocol"]}',
        value=round(gbps, 3),
    )


_STATS = re.compile(r'(\d+) packets transmitted, (\d+) (?:packets )?received(?:, \+(\d+) errors)?')
_RTT = re.compile(r'(?:rtt|round-trip) min/avg/max(?:/(?:mdev|stddev))? = ([\d.]+)/([\d.]+)/([\d.]+)')
_REPLY = re.compile(r'time[=<]([\d.]+) ?ms')
_HEADER = re.compile(r'^PING (\S+) \(([^)]+)\) (\d+)\((\d+)\) bytes', re.M)


def parse_ping(output: object) -> dict[str, Any]:
    """``{'target', 'size', 'ip_size', 'sent', 'received', 'loss', 'min', 'avg', 'max', 'replies', 'error'}`` from
    Linux ``ping`` output (iputils; ``-q`` too: the summary lines suffice)."""
    text = _text(output)
    stats = _STATS.search(text)
    if not stats:
        raise UploadError('output', 'not ping output: no "N packets transmitted, M received" line')
    sent, received = int(stats[1]), int(stats[2])
    if sent == 0 or received > sent:
        raise UploadError('output', f'not ping output: {sent} packets transmitted, {received} received')
    header, rtt = _HEADER.search(text), _RTT.search(text)
    if received and not rtt:
        raise UploadError('output', 'not ping output: replies but no "rtt min/avg/max" line')
    error = next((line.split(': ', 1)[-1] for line in text.splitlines() if 'error' in line and 'ping' in line), None)
    return {
        'target': header[2] if header else '?',
        'size': int(header[3]) if header else None,
        'ip_size': int(header[4]) if header else None,
        'sent': sent,
        'received': received,
        'loss': round(100 * (sent - received) / sent, 1),
        'min': float(rtt[1]) if rtt else None,
        'avg': float(rtt[2]) if rtt else None,
        'max': float(rtt[3]) if rtt else None,
        'replies': [float(t) for t in _REPLY.findall(text)],
        'error': error,
    }


def judge_ping(output: object, subject: str, spike_ms: float = SPIKE_MS) -> Verdict:
    """Loss 0 % and no spike: max - min <= ``spike_ms``. A jumbo ping (above 1500 bytes) is an MTU check."""
    found = parse_ping(output)
    jumbo = (found['ip_size'] or 0) > 1500
    size = f'{found["size"]}({found["ip_size"]}) bytes' if found['size'] else 'size ?'
    seen = f'{found["sent"]} sent, {found["received"]} received, {found["loss"]:g}% loss, {size}'
    failures = []
    if found['loss']:
        failures.append(f'{found["loss"]:g}% loss')
    if found['error']:
        seen += f'; {found["error"]}'
    if found['max'] is not None:
        median = statistics.median(found['replies']) if found['replies'] else None
        seen += f'; rtt min {found["min"]:g} / avg {found["avg"]:g} / max {found["max"]:g} ms'
        seen += f', median {median:g} ms' if median is not None else ''
        if found['max'] - found['min'] > spike_ms:
            failures.append(f'a spike: max {found["max"]:g} ms is {found["max"] - found["min"]:.2f} ms above min')
    if failures:
        seen += ' -> ' + '; '.join(failures)
    return Verdict(
        name=f'ping {subject or found["target"]}' + (f' {found["ip_size"]} bytes' if jumbo else ''),
        category='mtu' if jumbo else 'latency',
        subject=subject or found['target'],
        status=FAILED if failures else PASSED,
        expected=f'0% loss; max rtt within {spike_ms:g} ms of min rtt (no spike)'
        + ('; the full packet not fragmented (-M do)' if jumbo else ''),
        seen=seen,
        value=found['max'],
    )


def _server_view(plan: Plan) -> dict[str, tuple[int, set[str], str | None]]:
    """{server: (bond Gbit/s, leaves, kind)} from the plan's server links and attachments."""
    out: dict[str, tuple[int, set[str], str | None]] = {}
    kinds = {a.server: a.kind for a in plan.attachments}
    for link in plan.links:
        if link.kind != 'server':
            continue
        gbps, leaves, _ = out.get(link.b_node, (0, set(), None))
        out[link.b_node] = (gbps + link.speed, leaves | {link.a_node}, kinds.get(link.b_node))
    return out


def pair_rate(plan: Plan, source: str, destination: str) -> PairRate:
    """The line rate of an iperf3 pair (the slower bond of the two) and the kind of pair, from the plan."""
    servers = _server_view(plan)
    for field, name in (('source', source), ('destination', destination)):
        if not isinstance(name, str) or name not in servers:
            known = ', '.join(sorted(servers)[:8]) + (', ...' if len(servers) > 8 else '')
            raise UploadError(field, f'{name!r} is not a server of the plan (servers: {known or "none"})')
    if source == destination:
        raise UploadError('destination', 'the same server as the source: a pair needs two servers')
    (a_gbps, a_leaves, a_kind), (b_gbps, b_leaves, b_kind) = servers[source], servers[destination]
    if 'storage' in (a_kind, b_kind):
        category = 'throughput-storage'
    elif a_leaves & b_leaves:
        category = 'throughput-same-leaf'
    else:
        category = 'throughput-leaf-to-leaf'
    gbps = min(a_gbps, b_gbps)
    why = f'{source} bond {a_gbps}G, {destination} bond {b_gbps}G'
    return PairRate(source, destination, gbps, category, why)
