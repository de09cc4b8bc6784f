"""The compliance trend chart: one dot per run in order, the score on the y axis, the outcome as colour, and the text
escaped."""

import xml.etree.ElementTree as ET

import pytest

from netbox_aifabric.ui.compliance_trend import COLORS, HEIGHT, PAD, trend_svg

pytestmark = pytest.mark.pure

NS = {'svg': 'http://www.w3.org/2000/svg'}


def dots(svg):
    return ET.fromstring(svg).findall('svg:circle', NS)


def test_one_dot_per_run_oldest_left_higher_score_higher():
    points = [('t1', 50, 'failed'), ('t2', 100, 'passed'), ('t3', 0, 'errored')]
    circles = dots(trend_svg(points))
    assert len(circles) == len(points)
    xs = [float(c.get('cx')) for c in circles]
    ys = [float(c.get('cy')) for c in circles]
    assert xs == sorted(xs)
    # SVG's y grows downwards: the 100 % run is highest, the 0 % one lowest, at the plot's edges
    assert ys[1] < ys[0] < ys[2]
    assert (ys[1], ys[2]) == (PAD / 2, PAD / 2 + HEIGHT - PAD)
    assert [c.get('fill') for c in circles] == [COLORS[status] for _l, _s, status in points]
    assert [c.find('svg:title', NS).text for c in circles] == ['t1: 50 %', 't2: 100 %', 't3: 0 %']


def test_a_run_without_score_is_grey_and_no_runs_draw_only_the_axes():
    (circle,) = dots(trend_svg([('t', None, 'passed')]))
    assert circle.get('fill') == '#999'
    assert dots(trend_svg([])) == []


def test_labels_are_escaped():
    svg = trend_svg([('<script>alert(1)</script>', 10, 'failed')])
    assert '<script>' not in svg
    assert ET.fromstring(svg).find('svg:circle/svg:title', NS).text == '<script>alert(1)</script>: 10 %'
