"""RDMA tests with perftest (linux-rdma/perftest): the pairs of RDMA NICs the plan gives, and the tools' reports parsed
and judged against the plan (pure: no Django).

The report shapes, from perftest's source (linux-rdma/perftest@src/perftest_parameters.h, ``RESULT_FMT_G``,
``REPORT_FMT``, ``RESULT_FMT_LAT``, ``REPORT_FMT_LAT``; linux-rdma/perftest@src/perftest_parameters.c,
``ctx_print_test_info``, ``print_report_bw``):

- bandwidth (``ib_write_bw --report_gbits``): a header ``#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]
  MsgRate[Mpps]``, then one row per message size (``%lu %lu %lf %lf %lf``; with ``--cpu_util`` a CPU column more).
  Gb/sec is 10^9 bit/s of payload (``print_report_bw``: ``format_factor`` 125000000 bytes). Without
  ``--report_gbits`` the header reads ``MB/sec`` (``MiB/sec`` in newer releases): refused, not converted;
- latency (``ib_send_lat``, ``ib_read_lat``): a header ``#bytes #iterations t_min[usec] t_max[usec] t_typical[usec]
  t_avg[usec] t_stdev[usec] 99% percentile[usec] 99.9% percentile[usec]``, then one row per size (``%lu %d`` and
  seven ``%.2f``). ``t_typical`` is the median (perftest's README: "report minimum, median and maximum"; "typically,
  the first value measured is the maximum value, due to warmup effects"). A duration run (``-D``) prints only
  ``t_avg``, cycles (``-C``) are not microseconds and older releases print no percentiles: each refused by name;
- the block before the table: ``<verb> [Bidirectional] BW Test`` or ``<verb> Latency Test`` (verbs ``Send``,
  ``RDMA_Write``, ``RDMA_Read``, ``Atomic``), ``Link type``, ``Mtu`` and, for rdma_cm QPs, ``TOS : <tos>``.

``--out_json`` writes a JSON report (man/perftest.1: "Save the report in a json file"), but its fields are documented
nowhere in the sources found, so a JSON upload is refused by name rather than read by guesswork.

Judged: the bandwidth as a fraction of the pair's RDMA link rate (the slower NIC's speed in the plan), at least
``MIN_RDMA_FRACTION``; the latency's tail, the 99.9th percentile within ``RDMA_SPIKE_US`` of the median; where the
report prints the ToS, the lossless class's (the QoS profile's RoCE DSCP << 2). Bad input raises ``UploadError``.
"""

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from netbox_aifabric.acceptance.judge import FAILED, PASSED, RDMA_TOOLS, UploadError, Verdict, _text
from netbox_aifabric.planner.result import Plan

__all__ = (
    'MIN_RDMA_FRACTION',
    'RDMA_BW_TOOLS',
    'RDMA_LAT_TOOLS',
    'RDMA_SPIKE_US',
    'RdmaNic',
    'RdmaPair',
    'judge_rdma_bw',
    'judge_rdma_lat',
    'lossless_dscp',
    'lossless_tos',
    'parse_perftest_bw',
    'parse_perftest_lat',
    'rdma_nics',
    'rdma_pair',
    'rdma_pairs',
    'reachable',
)

# RoCEv2 carries each payload packet in Ethernet + IPv4 + UDP + BTH + ICRC + FCS, with preamble and gap about 78 bytes
# (RETH, 16 more, on a write's first packet): ~92.9 % of the line is payload at RoCE MTU 1024, ~98 % at 4096. 90 % of
# the link passes a healthy NIC pair at any RoCE MTU and fails a link down a lane, a lossy path retransmitting, or a
# pair sharing a bottleneck it should not.
MIN_RDMA_FRACTION = 0.9
# The median RDMA round trip on one fabric is a few microseconds; 10 us more at the 99.9th percentile is ~125 kB
# standing in a 100G queue, about where the RoCE presets start ECN marking (150 kB): a queue, not jitter.
RDMA_SPIKE_US = 10.0
RDMA_BW_TOOLS = ('ib_write_bw',)
RDMA_LAT_TOOLS = tuple(tool for tool in RDMA_TOOLS if tool not in RDMA_BW_TOOLS)
# tool: (verb, kind) as ctx_print_test_info prints them
TITLES = {
    'ib_write_bw': ('RDMA_Write', 'BW'), 'ib_send_lat': ('Send', 'Latency'), 'ib_read_lat': ('RDMA_Read', 'Latency'),
}  # fmt: skip
VERBS = ('Send', 'RDMA_Write', 'RDMA_Read', 'Atomic')
RDMA_LINKS = ('rdma', 'rail')  # plan link kinds of a server's RDMA NIC (planner/result.py, Link)

BW_HEADER = '#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]'
LAT_HEADER = (
    '#bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] '
    '99.9% percentile[usec]'
)
_INT, _FLOAT = r'(\d{1,20})', r'(\d{1,20}\.\d{1,12})'
_BW_ROW = re.compile(rf'^\s*{_INT}\s+{_INT}\s+{_FLOAT}\s+{_FLOAT}\s+{_FLOAT}(?:\s|$)')
_LAT_ROW = re.compile(rf'^\s*{_INT}\s+{_INT}' + rf'\s+{_FLOAT}' * 7 + r'(?:\s|$)')
_TOS = re.compile(r'\bTOS\s*:\s*(\d{1,3})\b')
_LINK = re.compile(r'^\s*Link type\s*:\s*(\S{1,40})', re.M)
_MTU = re.compile(r'^\s*Mtu\s*:\s*(\d{1,6})\[B\]', re.M)
_ERROR = re.compile(r"^\s*(.{0,40}(?:Couldn't|Unable|Failed|failed|[Ee]rror).{0,160})$", re.M)
BW_FIELDS = ('bytes', 'iterations', 'peak', 'average', 'msg_rate')
LAT_FIELDS = ('bytes', 'iterations', 'min', 'max', 'typical', 'avg', 'stdev', 'p99', 'p999')


def _norm(line: str) -> str:
    return ' '.join(line.split())


def _not_perftest(tool: str, what: str, text: str) -> UploadError:
    said = _ERROR.search(text)
    printed = f'; it printed: {said[1].strip()}' if said else ''
    return UploadError('output', f'not {tool} output: no "{what}" header{printed}')


def _common(output, tool: str) -> tuple[str, list[str], dict[str, Any]]:
    """The text, its lines and the block before the table: the test's title, ToS, link type and MTU."""
    text = _text(output)
    if text.lstrip().startswith(('{', '[')):
        raise UploadError(
            'output',
            f'JSON (perftest --out_json?): its fields are not documented in the perftest sources found; upload the '
            f'report {tool} printed (its text table) instead',
        )
    lines = text.splitlines()
    title = next((line.split() for line in lines if _is_title(line)), None)
    if title is not None:
        verb, kind = TITLES[tool]
        if title[0] != verb or kind not in title:
            raise UploadError('output', f'a "{" ".join(title)}" report, not {tool}\'s ({verb} {kind} Test)')
        if 'Bidirectional' in title:
            raise UploadError('output', 'a bidirectional (-b) run: its figure sums both directions; run it without -b')
    tos, link, mtu = _TOS.search(text), _LINK.search(text), _MTU.search(text)
    info = {
        'test': ' '.join(title) if title else None,
        'tos': int(tos[1]) if tos else None,
        'link_type': link[1] if link else None,
        'mtu': int(mtu[1]) if mtu else None,
    }
    return text, lines, info


def _is_title(line: str) -> bool:
    words = line.split()
    return len(words) >= 3 and words[0] in VERBS and words[-1] == 'Test' and ('BW' in words or 'Latency' in words)


def _rows(lines: list[str], start: int, row: re.Pattern, fields: tuple[str, ...]) -> list[dict[str, float]]:
    """The result rows under the header at ``start``, up to perftest's closing line of dashes; the warnings perftest
    prints between them (a CPU frequency that is not the maximum, ...) are skipped."""
    rows = []
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if stripped and set(stripped) == {'-'}:
            break
        found = row.match(line)
        if found:
            rows.append(dict(zip(fields, (float(v) for v in found.groups()), strict=True)))
    return rows


def parse_perftest_bw(output, tool: str = 'ib_write_bw') -> dict[str, Any]:
    """``{'test', 'tos', 'link_type', 'mtu', 'rows': [{bytes, iterations, peak, average, msg_rate}]}`` (Gbit/s,
    Mpps) from perftest's bandwidth report printed with ``--report_gbits``."""
    text, lines, info = _common(output, tool)
    for i, line in enumerate(lines):
        norm = _norm(line)
        if norm.startswith('#bytes #iterations t_'):
            raise UploadError('output', f"a latency table, not {tool}'s bandwidth: upload it as a latency tool")
        if norm.startswith('#bytes #sl '):
            raise UploadError('output', 'a per-SL (raw QoS) table: run the test without it')
        if not norm.startswith('#bytes #iterations BW peak['):
            continue
        if not norm.startswith(BW_HEADER):
            unit = norm.split('BW peak[', 1)[1].split(']', 1)[0]
            raise UploadError('output', f'the bandwidth is in {unit[:20]}: run {tool} with --report_gbits (Gb/sec)')
        rows = _rows(lines, i, _BW_ROW, BW_FIELDS)
        if not rows:
            raise UploadError('output', f'a "{BW_HEADER}" header but no result row under it: the test did not finish')
        return info | {'rows': rows}
    raise _not_perftest(tool, BW_HEADER, text)


def parse_perftest_lat(output, tool: str = 'ib_send_lat') -> dict[str, Any]:
    """``{'test', 'tos', 'link_type', 'mtu', 'rows': [{bytes, iterations, min, max, typical, avg, stdev, p99,
    p999}]}`` (microseconds) from perftest's latency report (``ib_send_lat``, ``ib_read_lat``)."""
    text, lines, info = _common(output, tool)
    for i, line in enumerate(lines):
        norm = _norm(line)
        if norm.startswith('#bytes #iterations BW '):
            raise UploadError('output', f"a bandwidth table, not {tool}'s latency: upload it as ib_write_bw")
        if not norm.startswith('#bytes #iterations t_'):
            continue
        if norm.startswith('#bytes #iterations t_avg'):
            raise UploadError('output', 'a duration run (-D) prints only the average: run it for iterations (-n)')
        if '[cycles]' in norm:
            raise UploadError('output', 'times in CPU cycles (-C): run it without -C to report microseconds')
        if not norm.startswith(LAT_HEADER):
            raise UploadError('output', f'no "99.9% percentile[usec]" column (an older perftest?): "{norm[:200]}"')
        rows = _rows(lines, i, _LAT_ROW, LAT_FIELDS)
        if not rows:
            raise UploadError('output', 'a latency header but no result row under it: the test did not finish')
        return info | {'rows': rows}
    raise _not_perftest(tool, LAT_HEADER, text)


@dataclass(frozen=True)
class RdmaNic:
    """A server's RDMA NIC in the plan: its interface, the leaf port it is cabled to, its speed (Gbit/s), its address
    (``a.b.c.d/len``, None when the plan gives it none), that subnet's gateway, the server's kind and rack (the leaves
    of its bond, else the NIC's own leaf)."""

    server: str
    nic: str
    leaf: str
    port: str
    gbps: int
    address: str | None
    gateway: str | None
    kind: str | None
    rack: frozenset[str]

    @property
    def name(self) -> str:
        return f'{self.server}:{self.nic}'


@dataclass(frozen=True)
class RdmaPair:
    """What the plan gives for an RDMA pair: the RDMA link rate (Gbit/s, the slower NIC) and the kind of pair."""

    source: str
    destination: str
    gbps: int
    category: str  # rdma-same-leaf, rdma-cross-leaf, rdma-cross-rack
    why: str


def rdma_nics(plan: Plan) -> list[RdmaNic]:
    """Every RDMA NIC of the plan (its RDMA and rail links), GPU servers before storage, by server and NIC name."""
    attachments = {a.server: a for a in plan.attachments}
    bonds: dict[str, set[str]] = {}
    for link in plan.links:
        if link.kind == 'server':
            bonds.setdefault(link.b_node, set()).add(link.a_node)
    nics = []
    for link in plan.links:
        if link.kind not in RDMA_LINKS:
            continue
        attachment = attachments.get(link.b_node)
        found = next((h for h in getattr(attachment, 'addresses', ()) if h.interface == link.b_interface), None)
        nics.append(
            RdmaNic(
                link.b_node, link.b_interface, link.a_node, link.a_interface, link.speed,
                found.address if found else None, found.gateway if found else None,
                attachment.kind if attachment else None, frozenset(bonds.get(link.b_node) or {link.a_node}),
            )
        )  # fmt: skip
    return sorted(nics, key=lambda n: (n.kind == 'storage', n.server, n.nic))


def _kind(a: RdmaNic, b: RdmaNic) -> str:
    if a.leaf == b.leaf:
        return 'same-leaf'
    return 'cross-leaf' if a.rack & b.rack else 'cross-rack'


def reachable(a: RdmaNic, b: RdmaNic) -> bool:
    """Whether ``a`` reaches ``b``'s address: in one subnet, or each with a gateway to route through."""
    if not (a.address and b.address):
        return False
    same = ipaddress.ip_interface(a.address).network == ipaddress.ip_interface(b.address).network
    return same or bool(a.gateway and b.gateway)


def rdma_pairs(plan: Plan) -> list[tuple[str, RdmaNic, RdmaNic]]:
    """``[(kind, source NIC, destination NIC)]``: per leaf, its first two NICs of two servers (same-leaf); per rack,
    each leaf's first NIC to the next leaf's (cross-leaf); per two racks without a common leaf, their first NICs
    (cross-rack). Only NICs with an address; a pair whose addresses cannot reach each other is left out."""
    nics = [n for n in rdma_nics(plan) if n.address]
    by_leaf: dict[str, list[RdmaNic]] = {}
    for nic in nics:
        by_leaf.setdefault(nic.leaf, []).append(nic)
    pairs: list[tuple[str, RdmaNic, RdmaNic]] = []
    for on_leaf in by_leaf.values():
        other = next((n for n in on_leaf[1:] if n.server != on_leaf[0].server), None)
        if other:
            pairs.append(('same-leaf', on_leaf[0], other))
    racks = list(dict.fromkeys(n.rack for n in nics))
    for rack in racks:
        leaves = [leaf for leaf in by_leaf if by_leaf[leaf][0].rack == rack]
        for a, b in zip(leaves, leaves[1:], strict=False):
            other = next((n for n in by_leaf[b] if n.server != by_leaf[a][0].server), None)
            if other:
                pairs.append(('cross-leaf', by_leaf[a][0], other))
    first = {rack: next(n for n in nics if n.rack == rack) for rack in racks}
    pairs += [('cross-rack', first[a], first[b]) for i, a in enumerate(racks) for b in racks[i + 1 :] if not a & b]
    return [(kind, a, b) for kind, a, b in pairs if reachable(a, b)]


def _nic_of(nics: list[RdmaNic], field: str, name: object) -> RdmaNic:
    if not isinstance(name, str) or not name:
        raise UploadError(field, 'an RDMA NIC expected: <server>:<nic> (e.g. gpu1:rdma1), or a server with one')
    server, _, nic = name.rpartition(':') if ':' in name else (name, '', '')
    mine = [n for n in nics if n.server == server]
    if not mine:
        known = ', '.join(sorted({n.server for n in nics})[:8]) or 'none'
        raise UploadError(field, f'{server[:100]!r} is not a server with an RDMA NIC in the plan (servers: {known})')
    if not nic and len(mine) > 1:
        raise UploadError(field, f'{server} has {len(mine)} RDMA NICs: name one ({", ".join(n.name for n in mine)})')
    found = next((n for n in mine if n.nic == nic or not nic), None)
    if found is None:
        raise UploadError(field, f'{server} has no RDMA NIC {nic[:40]!r} (its: {", ".join(n.nic for n in mine)})')
    return found


def rdma_pair(plan: Plan, source: object, destination: object) -> RdmaPair:
    """The RDMA link rate of a perftest pair (the slower NIC) and the kind of pair, from the plan."""
    nics = rdma_nics(plan)
    a, b = _nic_of(nics, 'source', source), _nic_of(nics, 'destination', destination)
    if a.server == b.server:
        raise UploadError('destination', 'the same server as the source: a pair needs two servers')
    why = f'{a.name} {a.gbps}G, {b.name} {b.gbps}G'
    return RdmaPair(a.name, b.name, min(a.gbps, b.gbps), f'rdma-{_kind(a, b)}', why)


def lossless_dscp(qos: Mapping[str, Any] | None) -> int | None:
    """The RoCE DSCP of a context's ``qos`` (``QosFacts.as_context()``): the lowest DSCP mapped to the first lossless
    (PFC) priority, the CNP marking aside; None without a lossless priority."""
    priorities = (qos or {}).get('pfc_priorities') or []
    if not priorities:
        return None
    cnp = ((qos or {}).get('cnp') or {}).get('dscp')
    marks = [int(d) for d, p in ((qos or {}).get('dscp_to_priority') or {}).items() if p == priorities[0]]
    marks = sorted(d for d in marks if d != cnp)
    return marks[0] if marks else None


def lossless_tos(qos: Mapping[str, Any] | None) -> int | None:
    """The IPv4 ToS byte (IPv6 traffic class) of the lossless class: its DSCP in the upper six bits (RFC 2474), the
    two ECN bits left to the NIC, as perftest's ``-T``/``--tos`` and ``--tclass`` take it."""
    dscp = lossless_dscp(qos)
    return None if dscp is None else dscp << 2


def _tos_check(found: dict[str, Any], tos: int | None) -> tuple[str, list[str]]:
    if tos is None:
        return '', []
    if found['tos'] is None:
        return '; ToS not printed (perftest prints it for rdma_cm QPs, -R -T)', []
    if found['tos'] != tos:
        return f'; ToS {found["tos"]}', [f'ran with ToS {found["tos"]}, the lossless class is ToS {tos}']
    return f'; ToS {tos} (the lossless class)', []


def judge_rdma_bw(
    output, pair: RdmaPair, tos: int | None = None, fraction: float = MIN_RDMA_FRACTION, tool: str = 'ib_write_bw'
) -> Verdict:
    """The bandwidth of the largest message size against ``fraction`` of the pair's RDMA link rate, and the ToS."""
    found = parse_perftest_bw(output, tool)
    row = max(found['rows'], key=lambda r: r['bytes'])
    gbps = row['average']
    share = gbps / pair.gbps
    failures = [] if share >= fraction else [f'{share:.0%} of the RDMA link rate']
    shown, wrong = _tos_check(found, tos)
    failures += wrong
    seen = f'{gbps:.2f} Gbit/s average at {int(row["bytes"])} bytes ({share:.0%} of the link rate)'
    seen += f', peak {row["peak"]:.2f}, {row["msg_rate"]:g} Mpps' + shown
    if found['mtu']:
        seen += f'; RoCE MTU {found["mtu"]}'
    if failures:
        seen += ' -> ' + '; '.join(failures)
    expected = f'>= {fraction:.0%} of {pair.gbps} Gbit/s ({pair.why}) = {fraction * pair.gbps:g} Gbit/s average'
    if tos is not None:
        expected += f'; in the lossless class (ToS {tos})'
    return Verdict(
        name=f'{tool} {pair.source} -> {pair.destination}',
        category=pair.category,
        subject=f'{pair.source} -> {pair.destination}',
        status=FAILED if failures else PASSED,
        expected=expected,
        seen=seen,
        value=round(gbps, 3),
    )


def judge_rdma_lat(
    output, subject: str, tos: int | None = None, spike_us: float = RDMA_SPIKE_US, tool: str = 'ib_send_lat'
) -> Verdict:
    """Every size's 99.9th percentile within ``spike_us`` of its median (``t_typical``); ``t_max`` is reported, not
    judged: perftest's README says the first sample, the warm-up, is typically the maximum. And the ToS."""
    found = parse_perftest_lat(output, tool)
    failures = [
        f'a spike at {int(r["bytes"])} bytes: 99.9% {r["p999"]:g} us is {r["p999"] - r["typical"]:.2f} us above the '
        f'median {r["typical"]:g} us'
        for r in found['rows']
        if r['p999'] - r['typical'] > spike_us
    ]
    shown, wrong = _tos_check(found, tos)
    failures += wrong
    first = found['rows'][0]
    seen = (
        f'{int(first["bytes"])} bytes, {int(first["iterations"])} iterations: median {first["typical"]:g} us, avg '
        f'{first["avg"]:g}, 99% {first["p99"]:g}, 99.9% {first["p999"]:g}, max {first["max"]:g} (warm-up included)'
    )
    seen += (f'; {len(found["rows"])} sizes' if len(found['rows']) > 1 else '') + shown
    if failures:
        seen += ' -> ' + '; '.join(failures)
    expected = f'99.9th percentile within {spike_us:g} us of the median (no queue building up)'
    if tos is not None:
        expected += f'; in the lossless class (ToS {tos})'
    return Verdict(
        name=f'{tool} {subject}'.strip()[:300],
        category='rdma-latency',
        subject=subject[:200],
        status=FAILED if failures else PASSED,
        expected=expected,
        seen=seen,
        value=first['typical'],
    )
