"""The compliance trend of a fabric as a small SVG chart: each stored run's score (percent of the rules that ran and
passed), oldest to newest, a dot per run coloured by its outcome. Drawn with svgwrite, which NetBox already ships (as
the topology is). Pure: the points come in as plain tuples."""

from collections.abc import Sequence

import svgwrite

__all__ = ('trend_svg',)

WIDTH, HEIGHT, PAD = 480, 120, 24
COLORS = {'passed': '#2fb344', 'failed': '#d63939', 'errored': '#f76707'}


def _y(score: int) -> float:
    return PAD / 2 + (HEIGHT - PAD) * (1 - score / 100)


def trend_svg(points: Sequence[tuple[str, int | None, str]]) -> str:
    """``points``: ``[(label, score or None, status)]`` oldest first; a run whose rules all skipped (no score) is
    drawn on the baseline in grey. The SVG's text is escaped by svgwrite."""
    drawing = svgwrite.Drawing(size=(f'{WIDTH}px', f'{HEIGHT}px'), profile='full', debug=False)
    drawing['class'] = 'compliance-trend'
    for mark in (0, 50, 100):
        drawing.add(drawing.line((PAD, _y(mark)), (WIDTH - 4, _y(mark)), stroke='#ccc', stroke_width=1))
        drawing.add(drawing.text(f'{mark}', insert=(2, _y(mark) + 4), font_size=10, fill='#888'))
    if not points:
        return str(drawing.tostring())
    step = (WIDTH - PAD - 12) / max(len(points) - 1, 1)
    xy = [(PAD + 6 + i * step, _y(score if score is not None else 0)) for i, (_l, score, _s) in enumerate(points)]
    if len(xy) > 1:
        drawing.add(drawing.polyline(xy, stroke='#206bc4', stroke_width=2, fill='none'))
    for (x, y), (label, score, status) in zip(xy, points, strict=True):
        dot = drawing.circle((x, y), r=4, fill=COLORS.get(status, '#999') if score is not None else '#999')
        dot['class'] = f'run {status}'
        dot.set_desc(title=f'{label}: {score if score is not None else "—"} %')
        drawing.add(dot)
    return str(drawing.tostring())
