"""The fabric's utilisation chart: one bar per leaf (all its server ports), per uplink and per MLAG peer link carrying
traffic, drawn from a :class:`~netbox_aifabric.planner.traffic.TrafficResult` with svgwrite, as the topology
(``topology.py``). No Django: the bars are tested without a database."""

import svgwrite

from netbox_aifabric.planner.traffic import TrafficResult

__all__ = ('bar_color', 'utilisation_svg')

CHART_KINDS = (('leaf-downlinks', 'Leaves (server ports)'), ('uplink', 'Uplinks'), ('peer-link', 'MLAG peer links'))
LABEL_W, BAR_W, ROW_H, PAD = 330, 400, 22, 12  # BAR_W pixels = 100 % utilisation
MAX_DRAWN = 1.5  # bars beyond 150 % are drawn at 150 % (the title and the figure keep the real value)


def bar_color(utilisation: float) -> str:
    """Green up to 70 %, orange up to 100 %, red above."""
    return '#198754' if utilisation <= 0.7 else '#fd7e14' if utilisation <= 1 + 1e-9 else '#dc3545'


def utilisation_svg(result: TrafficResult) -> str:
    """Bars of utilisation (the busier direction over the capacity) per leaf and per uplink, as an SVG string."""
    sections = [
        (label, [(x, x.utilisation) for x in result.by_kind(kind) if x.utilisation is not None])
        for kind, label in CHART_KINDS
    ]
    rows = sum(len(bars) + 1 for _, bars in sections)
    width, height = LABEL_W + BAR_W * MAX_DRAWN + 90, rows * ROW_H + 2 * PAD + 16
    drawing = svgwrite.Drawing(size=(f'{width}px', f'{height}px'), profile='full', debug=False)
    drawing.viewbox(0, 0, width, height)
    drawing.add(drawing.style('text { font-family: sans-serif; font-size: 12px; } .head { font-weight: bold; }'))
    for tick in (0, 0.5, 1, 1.5):
        x = LABEL_W + tick * BAR_W
        drawing.add(drawing.line((x, PAD), (x, height - PAD - 12), stroke='#adb5bd', stroke_dasharray='3,3'))
        drawing.add(drawing.text(f'{tick:.0%}', insert=(x, height - PAD), text_anchor='middle'))
    y = PAD
    for label, bars in sections:
        drawing.add(drawing.text(label, insert=(4, y + ROW_H - 7), class_='head'))
        y += ROW_H
        for load, utilisation in bars:
            drawing.add(drawing.text(load.element, insert=(4, y + ROW_H - 7)))
            bar = drawing.rect(
                (LABEL_W, y + 3),
                (BAR_W * min(utilisation, MAX_DRAWN), ROW_H - 6),
                fill=bar_color(utilisation),
                class_='bar',
            )
            bar.set_desc(title=f'{load.kind} {load.element}: {load.peak:g} of {load.capacity:g} Gbit/s')
            drawing.add(bar)
            figure = f'{100 * utilisation:.1f} %'
            drawing.add(drawing.text(figure, insert=(LABEL_W + BAR_W * MAX_DRAWN + 6, y + ROW_H - 7)))
            y += ROW_H
    return str(drawing.tostring())
