"""docs/traffic.md shows the guide's cluster's BOM with its tier in each design and its traffic matrix per leaf and
uplink: generated from the golden cases here, and checked here so the page stays true.

Regenerate after an intended change with ``AIFABRIC_REGEN_DOCS=1`` (then review the diff of docs/traffic.md)."""

import os

import pytest

from netbox_aifabric.planner.bom import bill_of_materials
from tests.unit.traffic.cases import CASES, ROOT, matrix_of, plan_of

pytestmark = pytest.mark.pure

DOC = ROOT / 'docs' / 'traffic.md'
START, END = '<!-- generated: guide cluster BOM and matrix (tests/unit/traffic/test_docs_bom.py) -->', '<!-- end -->'
DESIGNS = {'guide-mlag': 'MLAG', 'guide-routed': 'Routed leaf–spine', 'guide-evpn-vxlan': 'EVPN/VXLAN'}


def bom_section(case: str, title: str) -> list[str]:
    bom = bill_of_materials(plan_of(case))
    out = [
        f'**{title}** (`{CASES[case][0]}`): tier **{bom.tier.name}** ({bom.tier.budget}, a planning range, not a '
        f'price) because: {"; ".join(bom.tier_reasons)}.',
        '',
        '| Category | Item | Quantity | Spares | Total | Note |',
        '|---|---|---|---|---|---|',
    ]
    out += [f'| {x.category} | {x.item} | {x.quantity} | {x.spares} | {x.total} | {x.note} |' for x in bom.lines]
    return [*out, '']


def matrix_section(case: str) -> list[str]:
    result = matrix_of(case)
    out = [
        f"The guide's traffic inventory on the routed cluster (`{CASES[case][0]}`; the flows of "
        '`tests/unit/traffic/cases.py`):',
        '',
        '| Flow | Total Gbit/s | Across leaves |',
        '|---|---|---|',
    ]
    out += [f'| {r.flow.name} | {r.total_gbps:g} | {r.cross_leaf_gbps:g} |' for r in result.flows]
    out += ['', '| Element | Capacity | Up | Down | Utilisation |', '|---|---|---|---|---|']
    for kind in ('leaf-downlinks', 'uplink', 'spine'):
        for x in result.by_kind(kind):
            out.append(f'| {kind} {x.element} | {x.capacity:g} | {x.up:g} | {x.down:g} | {100 * x.utilisation:.1f} % |')
    codes = ', '.join(f'`{w.code}` ({w.field})' for w in result.warnings) or 'none'
    return [*out, '', f'Warnings: {codes}.', '']


def generated() -> str:
    lines = [START, '']
    for case, title in DESIGNS.items():
        lines += bom_section(case, title)
    lines += matrix_section('guide-routed')
    return '\n'.join([*lines, END])


def test_the_page_shows_the_generated_bom_and_matrix():
    text = DOC.read_text()
    start, end = text.index(START), text.index(END, text.index(START)) + len(END)
    if os.environ.get('AIFABRIC_REGEN_DOCS'):
        text = text[:start] + generated() + text[end:]
        DOC.write_text(text)
        start, end = text.index(START), text.index(END, start) + len(END)
    assert text[start:end] == generated()


def test_the_tiers_are_the_ones_the_guide_would_pick():
    """One rack, 25/100G leaves, 4 GPU servers → Balanced in every design: the two spines of the routed and EVPN/VXLAN
    designs are the guide's own reference topology for this cluster, not the Expandable tier (docs/traffic.md)."""
    tiers = {case: bill_of_materials(plan_of(case)).tier.name for case in DESIGNS}
    assert tiers == {'guide-mlag': 'Balanced', 'guide-routed': 'Balanced', 'guide-evpn-vxlan': 'Balanced'}
