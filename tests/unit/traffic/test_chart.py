"""The utilisation chart: every bar's width, colour and title derived from the matrix's loads."""

import xml.etree.ElementTree as ET

import pytest

from netbox_aifabric.planner.traffic import Flow, Load, TrafficResult, traffic_matrix
from netbox_aifabric.ui.traffic_chart import BAR_W, MAX_DRAWN, utilisation_svg
from tests.unit.traffic.test_traffic import PLAN

pytestmark = pytest.mark.pure

SVG = '{http://www.w3.org/2000/svg}'


def bars(svg):
    root = ET.fromstring(svg)
    return {
        rect.find(f'{SVG}title').text: (float(rect.get('width')), rect.get('fill'))
        for rect in root.iter(f'{SVG}rect')
        if rect.get('class') == 'bar'
    }


@pytest.mark.parametrize('gbps', [1, 10, 40, 200])
def test_one_bar_per_leaf_and_uplink_as_wide_as_its_utilisation(gbps):
    result = traffic_matrix(PLAN, [Flow('gpu', 'storage', gbps), Flow('storage', 'gpu', gbps / 2, 'bursty')])
    drawn = bars(utilisation_svg(result))
    loads = [*result.by_kind('leaf-downlinks'), *result.by_kind('uplink'), *result.by_kind('peer-link')]
    assert len(loads) == len(drawn)
    for load in loads:
        utilisation = load.peak / load.capacity  # from the load's own figures, not the chart's code
        width, fill = drawn[f'{load.kind} {load.element}: {load.peak:g} of {load.capacity:g} Gbit/s']
        assert width == pytest.approx(BAR_W * min(utilisation, MAX_DRAWN), abs=1e-6)
        assert (fill == '#dc3545') == (utilisation > 1)  # red exactly when over capacity
    # server ports and spines are in the tables, not in the chart
    assert not any(title.startswith(('server-port', 'spine')) for title in drawn)


def test_names_are_escaped():
    """The chart is embedded unescaped in the page: a hostile element name must come out as text."""
    hostile = '<script>alert(1)</script> & leaf'
    result = TrafficResult((), (Load('uplink', hostile, 100, 50, 0, 50),), ())
    svg = utilisation_svg(result)
    assert '<script>' not in svg
    texts = [t.text for t in ET.fromstring(svg).iter(f'{SVG}text')]
    assert hostile in texts
