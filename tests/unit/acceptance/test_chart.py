"""The throughput chart: same-leaf, leaf-to-leaf and storage pairs side by side, each bar as tall as its Gbit/s
(relative to the others), coloured by its verdict, with the pair's line rate from the judged result."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

from netbox_aifabric.acceptance.judge import PairRate, judge_iperf3
from netbox_aifabric.ui.acceptance_chart import COLORS, bars_of, throughput_svg

pytestmark = pytest.mark.pure

FIXTURES = Path(__file__).parent / 'fixtures'
SVG = '{http://www.w3.org/2000/svg}'


def result(name, category, subject, gbps):
    verdict = judge_iperf3((FIXTURES / name).read_text(), PairRate('a', 'b', gbps, category, 'test'))
    return SimpleNamespace(**{**verdict.__dict__, 'subject': subject})


def test_groups_side_by_side_with_bars_in_proportion():
    results = [
        result('iperf3_p8_capped.json', 'throughput-leaf-to-leaf', 'gpu1 -> gpu3', 25),
        result('iperf3_p8_ok.json', 'throughput-same-leaf', 'gpu1 -> gpu2', 16),
        result('iperf3_p8_shaped_200m.json', 'throughput-storage', 'gpu1 -> storage1', 25),
        SimpleNamespace(category='bgp', subject='x', value=None, expected='', status='passed'),  # not a bar
    ]
    bars = bars_of(results)
    assert [b.group for b in bars] == ['throughput-same-leaf', 'throughput-leaf-to-leaf', 'throughput-storage']
    assert [b.line_rate for b in bars] == [16, 25, 25]
    root = ET.fromstring(throughput_svg(bars))
    rects = root.findall(f'.//{SVG}g/{SVG}rect')
    assert [r.get('fill') for r in rects] == [COLORS[b.status] for b in bars]
    heights = [float(r.get('height')) for r in rects]
    assert heights[0] / heights[1] == pytest.approx(bars[0].gbps / bars[1].gbps, rel=1e-3)
    xs = [float(r.get('x')) for r in rects]
    assert xs == sorted(xs)  # left to right: same leaf, leaf to leaf, storage
    labels = [t.text for t in root.iter(f'{SVG}text')]
    assert {'same leaf', 'leaf to leaf', 'to storage'} <= set(labels)


def test_no_throughput_no_chart():
    assert throughput_svg(bars_of([])) is None


def test_a_subject_is_escaped():
    results = [result('iperf3_p8_ok.json', 'throughput-same-leaf', '<script>a</script> -> b', 16)]
    svg = throughput_svg(bars_of(results))
    assert '<script>' not in svg and re.search(r'&lt;script&gt;', svg)
