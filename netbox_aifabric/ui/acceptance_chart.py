"""Same-leaf vs leaf-to-leaf (and to storage) throughput side by side: an SVG bar chart of a run's iperf3 results,
each bar the received Gbit/s of one pair with the pair's line rate and the pass mark (90 %) drawn over it. Drawn with
svgwrite, as the topology diagram is. Pure."""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import svgwrite

from netbox_aifabric.acceptance.judge import MIN_LINE_RATE_FRACTION

__all__ = ('GROUPS', 'Bar', 'bars_of', 'throughput_svg')

GROUPS = (
    ('throughput-same-leaf', 'same leaf'),
    ('throughput-leaf-to-leaf', 'leaf to leaf'),
    ('throughput-storage', 'to storage'),
)
BAR_W, BAR_GAP, GROUP_GAP, PLOT_H, TOP, BOTTOM, LEFT = 34, 10, 36, 180, 28, 96, 56
COLORS = {'passed': '#2fb344', 'failed': '#d63939'}
_LINE_RATE = re.compile(r'of (\d+(?:\.\d+)?) Gbit/s')  # judge_iperf3's expected text: '>= 90% of 50 Gbit/s (…)'


class Result(Protocol):
    """What a bar is drawn from: a judged ``Verdict``, or the ``AcceptanceResult`` stored from one."""

    @property
    def category(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def value(self) -> float | None: ...
    @property
    def expected(self) -> str | None: ...
    @property
    def status(self) -> str: ...


@dataclass(frozen=True)
class Bar:
    group: str
    subject: str
    gbps: float
    line_rate: float | None
    status: str


def bars_of(results: Iterable[Result]) -> list[Bar]:
    """The throughput results (objects with category, subject, value, expected, status) as bars, grouped in order."""
    order = {key: n for n, (key, _) in enumerate(GROUPS)}
    bars = []
    for r in results:
        if r.category not in order or r.value is None:
            continue
        found = _LINE_RATE.search(r.expected or '')
        bars.append(Bar(r.category, r.subject, float(r.value), float(found[1]) if found else None, r.status))
    return sorted(bars, key=lambda b: order[b.group])


def throughput_svg(bars: list[Bar]) -> str | None:
    """The chart as an SVG document, None without a bar."""
    if not bars:
        return None
    top = max(max(b.gbps, b.line_rate or 0) for b in bars) * 1.1 or 1
    groups = [(key, label, [b for b in bars if b.group == key]) for key, label in GROUPS]
    groups = [g for g in groups if g[2]]
    width = LEFT + sum(len(g[2]) * (BAR_W + BAR_GAP) for g in groups) + GROUP_GAP * len(groups)
    height = TOP + PLOT_H + BOTTOM
    drawing = svgwrite.Drawing(size=(f'{width}px', f'{height}px'), profile='full', debug=False)
    drawing.viewbox(0, 0, width, height)
    drawing.add(drawing.style('text { font-family: sans-serif; font-size: 11px; } .small { font-size: 9px; }'))

    def y(gbps: float) -> float:
        return TOP + PLOT_H - PLOT_H * gbps / top

    for tick in (0, top / 2.2, top / 1.1):
        drawing.add(drawing.line((LEFT - 4, y(tick)), (width, y(tick)), stroke='#dee2e6'))
        drawing.add(drawing.text(f'{tick:.0f}', insert=(LEFT - 8, y(tick) + 4), text_anchor='end'))
    drawing.add(drawing.text('Gbit/s', insert=(4, TOP - 10)))
    x = LEFT + GROUP_GAP / 2
    for _key, label, members in groups:
        start = x
        for bar in members:
            drawing.add(_bar(drawing, bar, x, y))
            x += BAR_W + BAR_GAP
        drawing.add(drawing.text(label, insert=((start + x - BAR_GAP) / 2, height - 8), text_anchor='middle'))
        x += GROUP_GAP
    return str(drawing.tostring())


def _bar(drawing: svgwrite.Drawing, bar: Bar, x: float, y: Callable[[float], float]) -> svgwrite.container.Group:
    group = drawing.g(class_=f'bar {bar.status}')
    group.add(drawing.rect((x, y(bar.gbps)), (BAR_W, y(0) - y(bar.gbps)), fill=COLORS.get(bar.status, '#adb5bd')))
    group.add(drawing.text(f'{bar.gbps:.1f}', insert=(x + BAR_W / 2, y(bar.gbps) - 3), text_anchor='middle'))
    if bar.line_rate:
        group.add(drawing.line((x - 2, y(bar.line_rate)), (x + BAR_W + 2, y(bar.line_rate)), stroke='#182433'))
        mark = y(bar.line_rate * MIN_LINE_RATE_FRACTION)
        group.add(drawing.line((x - 2, mark), (x + BAR_W + 2, mark), stroke='#182433', stroke_dasharray='3,2'))
    label, cx, cy = bar.subject.replace(' -> ', '→')[:26], x + BAR_W / 2, y(0) + 10
    group.add(
        drawing.text(label, insert=(cx, cy), text_anchor='end', transform=f'rotate(-40 {cx} {cy})', class_='small')
    )
    group.set_desc(title=f'{bar.subject}: {bar.gbps:.2f} Gbit/s of {bar.line_rate or "?"} ({bar.status})')
    return group
