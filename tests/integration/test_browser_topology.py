"""The Topology tab in a real browser: the demo fabric, then grown to 4 leaves / 8 servers; each drawn by rack with a
legend, every node box inside the drawing and the card, no sideways scroll, no two texts overlapping (the browser's
own text boxes), and the rack selector drawing one rack. ``TOPOLOGY_SCREENSHOT=<path>`` saves the grown fabric's
card (docs/images/fabric-topology.png is one)."""

import os

import pytest

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric
from tests.integration.test_browser import _login, browser_page  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

# Client rects of the card, the SVG, each node box, each text with its group; the card's scroll and client widths
MEASURE = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const card = document.querySelector('#topology');
  const body = document.querySelector('#topology-drawing');
  const svg = body.querySelector('svg');
  return {
    card: box(card), svg: box(svg), scroll: [body.scrollWidth, body.clientWidth, card.scrollWidth, card.clientWidth],
    page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
    nodes: Array.from(svg.querySelectorAll('#nodes g.node')).map(g => ({
      name: g.querySelector('text').textContent, rect: box(g.querySelector('rect')),
      text: box(g.querySelector('text')) })),
    frames: Array.from(svg.querySelectorAll('#racks rect')).map(r => ({ id: r.id, rect: box(r) })),
    texts: Array.from(svg.querySelectorAll('text')).map(t => ({ text: t.textContent, rect: box(t) })),
    legend: Array.from(svg.querySelectorAll('#legend text')).map(t => t.textContent),
  };
}"""


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(outer, inner, slack=0.5):
    return (
        outer[0] - slack <= inner[0]
        and outer[1] - slack <= inner[1]
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def check_drawing(page, fabric):
    """The drawing on the page against the plan of ``fabric``; returns the measurements."""
    plan = plan_of(fabric)
    m = page.evaluate(MEASURE)
    names = sorted(n['name'] for n in m['nodes'])
    assert names == sorted([n.name for n in plan.nodes] + [a.server for a in plan.attachments])
    for node in m['nodes']:
        assert inside(m['svg'], node['rect']) and inside(m['card'], node['rect']), node
        assert inside(node['rect'], node['text']), node  # the (shown part of the) name fits its box
    assert m['scroll'][0] <= m['scroll'][1] and m['scroll'][2] <= m['scroll'][3], m['scroll']  # no sideways scroll
    assert m['page'][0] <= m['page'][1], m['page']
    texts = m['texts']
    clashes = [
        (a['text'], b['text']) for i, a in enumerate(texts) for b in texts[i + 1 :] if overlap(a['rect'], b['rect'])
    ]
    assert clashes == []
    for text in texts:
        assert inside(m['svg'], text['rect']), text
        crossed = [n['name'] for n in m['nodes'] if n['name'] != text['text'] and overlap(n['rect'], text['rect'])]
        assert crossed == [], text
    kinds = {k.kind for k in plan.links}
    assert ('MLAG peer link' in m['legend']) == ('mlag-peer' in kinds)
    assert {'server bond link', 'RDMA link', 'spine', 'leaf', 'GPU server', 'storage node'} <= set(m['legend'])
    assert any(t.startswith('uplink') for t in m['legend'])
    return m


def test_the_topology_is_drawn_by_rack_with_a_legend_and_no_overlaps(live_server, browser_page):  # noqa: F811
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    page = browser_page
    _login(page, live_server)
    url = f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/topology/'
    page.goto(url)
    m = check_drawing(page, fabric)
    assert [f['id'] for f in m['frames']] == ['rack-rack1']
    assert page.locator('#rack-selector').count() == 0  # one rack: nothing to pick

    Fabric.objects.filter(pk=fabric.pk).update(leaf_count=4, server_count=2 * fabric.server_count)
    fabric.refresh_from_db()
    assert (fabric.leaf_count, fabric.server_count) == (4, 8)
    page.goto(url)
    m = check_drawing(page, fabric)
    assert [f['id'] for f in m['frames']] == ['rack-rack1', 'rack-rack2']
    for node in m['nodes']:  # every leaf and server inside exactly one rack frame, spines in none
        frames = [f['id'] for f in m['frames'] if overlap(f['rect'], node['rect'])]
        assert len(frames) == (0 if 'spine' in node['name'] else 1), node
        assert all(inside(f['rect'], node['rect']) for f in m['frames'] if f['id'] in frames), node
    if os.environ.get('TOPOLOGY_SCREENSHOT'):
        page.locator('#topology').screenshot(path=os.environ['TOPOLOGY_SCREENSHOT'])

    page.click('#rack-selector a:has-text("rack2")')
    page.wait_for_load_state('networkidle')
    assert page.url.endswith('?rack=rack2')
    m = page.evaluate(MEASURE)
    assert [f['id'] for f in m['frames']] == ['rack-rack2']
    assert {n['name'] for n in m['nodes'] if 'leaf' in n['name']} == {'ai-lab-fabric-leaf3', 'ai-lab-fabric-leaf4'}
    assert page.locator('#rack-selector a.active').inner_text() == 'rack2'
