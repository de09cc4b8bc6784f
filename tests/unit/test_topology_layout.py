"""The Topology tab's geometry (netbox_aifabric/ui/topology.py), checked without a browser: one box per drawn node,
every link in exactly one line, every rack frame holding exactly its leaves and servers, no two texts overlapping
and no text on a node box (estimated boxes: font size × characters), readable on a 1,200 px card from the guide's
cluster to size M, and a per-rack view beyond M. The racks expected are read from the plan (its peers and
attachments) or, for the random plans, from how the test built them."""

import xml.etree.ElementTree as ET
from dataclasses import replace
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.result import Attachment, Link, NodePlan, Plan
from netbox_aifabric.ui import topology
from netbox_aifabric.ui.topology import BOX_H, NAME_SIZE, Layout, Rect, Text, topology_layout, topology_svg
from tests.unit.planner.helpers import EXAMPLES, example

pytestmark = pytest.mark.pure

CARD = 1200  # px: the card the drawing must stay readable on
MIN_FONT, MIN_BOX_H = 9, 18  # screen px at that card


def guide_plan() -> Plan:
    """The guide's cluster (the demo fabric): 2 spines, 2 leaves as an MLAG pair, 4 GPU servers and storage."""
    return plan_fabric(load_spec(example('evpn-vxlan')))


def grown_plan() -> Plan:
    """The guide's cluster grown to 4 leaves (two pairs) and 8 GPU servers, the new ones on the new pair."""
    spec = example('evpn-vxlan')
    spec['leaves'] += [{'id': 3, 'name': 'leaf3'}, {'id': 4, 'name': 'leaf4'}]
    spec['mlag_pairs'] = [[1, 2], [3, 4]]
    spec['servers'] += [{'id': i, 'name': f'gpu{i}', 'leaves': [3, 4]} for i in range(6, 10)]
    return plan_fabric(load_spec(spec))


def expected_racks(plan: Plan) -> list[tuple[set[str], set[str]]]:
    """(leaves, servers) per rack from the plan itself: a leaf with its MLAG or EVPN-MH peer, the servers whose
    first bond member lands there."""
    groups: list[set[str]] = []
    for node in plan.nodes:
        if node.role == 'leaf' and not any(node.name in g for g in groups):
            groups.append({node.name} | ({node.mlag_peer or node.mh_peer} - {None}))
    servers: list[set[str]] = [set() for _ in groups]
    for a in plan.attachments:
        leaf = (a.members or a.rdma)[0][0]
        servers[next(i for i, g in enumerate(groups) if leaf in g)].add(a.server)
    return list(zip(groups, servers, strict=True))


def problems(plan: Plan, layout: Layout, racks: list[tuple[set[str], set[str]]], servers_drawn: bool) -> list[str]:
    """Everything wrong with ``layout`` as a drawing of ``plan`` (its racks ``racks``): empty when it is right."""
    found = []
    spines = {n.name for n in plan.nodes if n.role == 'spine'}
    chosen = [r for r in racks if layout.rack is None or f'rack{racks.index(r) + 1}' == layout.rack]
    want = spines | {leaf for leaves, _ in chosen for leaf in leaves}
    want |= {s for _, servers in chosen for s in servers} if servers_drawn else set()
    names = [n.name for n in layout.nodes]
    if sorted(names) != sorted(want):
        found.append(f'boxes {sorted(names)} are not the nodes {sorted(want)}')
    drawn = [id(link) for e in layout.edges for link in e.links]
    expected = [id(k) for k in plan.links if k.a_node in want and k.b_node in want]
    if sorted(drawn) != sorted(expected):
        found.append(f'{len(drawn)} links drawn, {len(expected)} expected, each once')
    for e in layout.edges:
        if any((k.kind, k.a_node, k.b_node) != (e.kind, e.a, e.b) for k in e.links):
            found.append(f'edge {e.kind} {e.a}–{e.b} holds a link of another bundle')
    found += frame_problems(layout, chosen, servers_drawn)
    found += text_problems(layout)
    return found


def frame_problems(layout: Layout, racks, servers_drawn: bool) -> list[str]:
    found = []
    if len(layout.frames) != len(racks):
        found.append(f'{len(layout.frames)} frames for {len(racks)} racks')
    for frame, (leaves, servers) in zip(layout.frames, racks, strict=False):
        inside = {n.name for n in layout.nodes if frame.rect.contains(n.rect)}
        touching = {n.name for n in layout.nodes if frame.rect.intersects(n.rect)}
        want = leaves | (servers if servers_drawn else set())
        if inside != want or touching != want:
            found.append(f'{frame.name} holds {sorted(inside)} (touches {sorted(touching)}), not {sorted(want)}')
    for a, b in combinations(layout.frames, 2):
        if a.rect.intersects(b.rect):
            found.append(f'frames {a.name} and {b.name} overlap')
    return found


def text_problems(layout: Layout) -> list[str]:
    found = []
    page = Rect(0, 0, layout.width, layout.height)
    texts = layout.texts()
    for a, b in combinations(texts, 2):
        if a.rect.intersects(b.rect):
            found.append(f'texts {a.text!r} and {b.text!r} overlap')
    for text in texts:
        if not page.contains(text.rect):
            found.append(f'text {text.text!r} leaves the drawing')
        for node in layout.nodes:
            own = node.label is text
            if own and not node.rect.contains(text.rect):
                found.append(f'the name {text.text!r} does not fit its box')
            elif not own and node.rect.intersects(text.rect):
                found.append(f'text {text.text!r} crosses the box of {node.name}')
    for node in layout.nodes:
        if not page.contains(node.rect):
            found.append(f'{node.name} leaves the drawing')
    for a, b in combinations(layout.nodes, 2):
        if a.rect.intersects(b.rect):
            found.append(f'boxes {a.name} and {b.name} overlap')
    return found


def readable(layout: Layout) -> bool:
    scale = min(1.0, CARD / layout.width)  # the drawing scales down to the card, never up
    return NAME_SIZE * scale >= MIN_FONT and BOX_H * scale >= MIN_BOX_H


@pytest.mark.parametrize('plan', [guide_plan(), grown_plan()], ids=['guide', 'grown-4x8'])
def test_the_guide_and_grown_fabrics_draw_by_rack_without_overlaps(plan):
    layout = topology_layout(plan)
    racks = expected_racks(plan)
    assert [len(leaves) for leaves, _ in racks] == [2] * (len(racks))
    assert problems(plan, layout, racks, servers_drawn=True) == []
    assert readable(layout)
    assert layout.servers_drawn and layout.notes == ()
    # one uplink label per leaf: the leaf's uplinks × speed, from the plan's links
    for leaf in (n.name for n in plan.nodes if n.role == 'leaf'):
        ups = [k for k in plan.links if k.kind == 'uplink' and leaf in (k.a_node, k.b_node)]
        rect = box(layout, leaf).rect
        labels = {t.text for t in layout.labels if t.kind == 'uplink' and t.x == rect.x + rect.w / 2}
        assert labels == {f'{len(ups)}×{ups[0].speed}G'}


def box(layout: Layout, name: str):
    return next(n for n in layout.nodes if n.name == name)


def test_the_legend_names_exactly_the_kinds_drawn():
    plan = guide_plan()
    layout = topology_layout(plan)
    lines = {i.key for i in layout.legend if i.kind == 'line'}
    nodes = {i.key for i in layout.legend if i.kind == 'node'}
    assert lines == {k.kind for k in plan.links} == {'uplink', 'mlag-peer', 'server', 'rdma'}
    assert nodes == {'spine', 'leaf', 'gpu', 'storage'}
    # the EVPN multihoming pair has no peer link: no such legend entry, and its frame says what the pair is
    mh = topology_layout(plan_fabric(load_spec(example('evpn-mh'))))
    assert 'mlag-peer' not in {i.key for i in mh.legend}
    assert [f.label.text for f in mh.frames] == ['rack1 · EVPN-MH pair']
    # the MLAG design has no spines: no spine or uplink entry, no uplink labels
    flat = topology_layout(plan_fabric(load_spec(example('mlag'))))
    assert {i.key for i in flat.legend}.isdisjoint({'spine', 'uplink'})
    assert not [t for t in flat.labels if t.kind == 'uplink']


def size_m_plan(servers: int) -> Plan:
    """examples/size-m.yaml (4 spines, 16 leaves in 8 MLAG pairs) with its first ``servers`` servers."""
    import yaml

    spec = yaml.safe_load((EXAMPLES / 'size-m.yaml').read_text())
    spec['servers'] = spec['servers'][:servers]
    return plan_fabric(load_spec(spec))


def test_size_m_draws_every_server_readably_even_with_the_fabric_prefix():
    plan = size_m_plan(topology.MAX_SERVERS)
    everyone = [n.name for n in plan.nodes] + [a.server for a in plan.attachments]
    plan = rename(plan, {name: f'ai-lab-fabric-{name}' for name in everyone})
    racks = expected_racks(plan)
    assert (len(racks), sum(len(s) for _, s in racks)) == (topology.MAX_RACKS, topology.MAX_SERVERS)
    layout = topology_layout(plan)
    assert layout.servers_drawn
    assert problems(plan, layout, racks, servers_drawn=True) == []
    assert readable(layout), layout.width


def test_beyond_size_m_the_overview_draws_switches_and_each_rack_has_a_view():
    plan = size_m_plan(2 * topology.MAX_SERVERS)
    racks = expected_racks(plan)
    assert sum(len(s) for _, s in racks) > topology.MAX_SERVERS
    overview = topology_layout(plan)
    assert not overview.servers_drawn and 'pick a rack' in overview.notes[0]
    assert problems(plan, overview, racks, servers_drawn=False) == []
    assert readable(overview)
    assert overview.racks == tuple(f'rack{i + 1}' for i in range(len(racks)))
    for name in ('rack1', overview.racks[-1]):
        view = topology_layout(plan, name)
        assert view.rack == name and view.servers_drawn
        assert problems(plan, view, racks, servers_drawn=True) == []
        assert readable(view)


def test_the_checker_sees_overlaps_strays_and_lost_links():
    """Negative controls: each fault planted in a right layout is reported."""
    plan = grown_plan()
    layout = topology_layout(plan)
    racks = expected_racks(plan)
    names = [n.label for n in layout.nodes]
    on_top = replace(layout, labels=(*layout.labels, replace(names[0], text='x' + names[0].text)))
    assert any('overlap' in p for p in text_problems(on_top))
    on_box = replace(layout, labels=(*layout.labels, Text('100G', names[3].x, names[3].y + 8, 10, 'uplink')))
    assert any('crosses the box' in p for p in text_problems(on_box))
    server = next(n for n in layout.nodes if n.kind == 'gpu')
    moved = replace(server, rect=replace(server.rect, x=server.rect.x + 400))
    stray = replace(layout, nodes=tuple(moved if n is server else n for n in layout.nodes))
    assert any(server.name in p and 'holds' in p for p in problems(plan, stray, racks, True))
    lost = replace(layout, edges=layout.edges[1:])
    assert any('links drawn' in p for p in problems(plan, lost, racks, True))
    twice = replace(layout, edges=(*layout.edges, layout.edges[0]))
    assert any('links drawn' in p for p in problems(plan, twice, racks, True))
    wide = replace(layout, width=3 * CARD)
    assert not readable(wide)


def test_the_svg_draws_the_layout_scaling_to_its_card():
    plan = grown_plan()
    layout = topology_layout(plan)
    root = ET.fromstring(topology_svg(plan))
    ns = {'s': 'http://www.w3.org/2000/svg'}
    assert root.get('width') == '100%' and root.get('height') is None
    assert root.get('viewBox') == f'0,0,{layout.width},{layout.height}'
    assert f'max-width: {layout.width:.0f}px' in root.get('style')
    assert len(root.findall(".//s:g[@id='nodes']/s:g/s:rect", ns)) == len(layout.nodes)
    assert len(root.findall(".//s:g[@id='links']/s:line", ns)) == len(layout.edges)
    assert len(root.findall(".//s:g[@id='racks']/s:rect", ns)) == len(layout.frames) == 2
    legend = [t.text for t in root.findall(".//s:g[@id='legend']/s:text", ns)]
    assert legend == [i.text.text for i in layout.legend]
    # a node's text is its whole name (the fabric prefix hidden), so a search of the page finds it
    names = {''.join(t.itertext()) for t in root.findall(".//s:g[@id='nodes']//s:text", ns)}
    assert names == {n.name for n in layout.nodes}


def test_a_common_prefix_is_left_off_and_names_are_escaped():
    plan = guide_plan()
    renamed = {n.name: f'ai-lab-fabric-{n.name}' for n in plan.nodes} | {
        a.server: f'ai-lab-fabric-{a.server}' for a in plan.attachments
    }
    plan = rename(plan, renamed)
    layout = topology_layout(plan)
    assert layout.prefix == 'ai-lab-fabric-' and 'Names without the prefix ai-lab-fabric-' in layout.notes
    assert box(layout, 'ai-lab-fabric-leaf1').label.text == 'leaf1'
    assert problems(plan, layout, expected_racks(plan), True) == []
    odd = rename(plan, {'ai-lab-fabric-gpu1': 'gpu<1>&'})
    assert topology_layout(odd).prefix == ''
    assert 'gpu&lt;1&gt;&amp;' in topology_svg(odd) and 'gpu<1>' not in topology_svg(odd)


def rename(plan: Plan, names: dict[str, str]) -> Plan:
    def n(name):
        return names.get(name, name)

    nodes = tuple(
        replace(x, name=n(x.name), mlag_peer=x.mlag_peer and n(x.mlag_peer), mh_peer=x.mh_peer and n(x.mh_peer))
        for x in plan.nodes
    )
    links = tuple(replace(k, a_node=n(k.a_node), b_node=n(k.b_node)) for k in plan.links)
    attachments = tuple(
        replace(
            a,
            server=n(a.server),
            members=tuple((n(leaf), p) for leaf, p in a.members),
            rdma=tuple((n(leaf), p) for leaf, p in a.rdma),
        )
        for a in plan.attachments
    )
    return replace(plan, nodes=nodes, links=links, attachments=attachments)


# Random plans, sizes S to M: the racks are the ones the plan was built with
@st.composite
def random_plans(draw):
    prefix = draw(st.sampled_from(['', 'dc1-', 'ai-lab-fabric-', 'a-very-long-fabric-name-']))
    spines = [f'{prefix}spine{i}' for i in range(1, draw(st.integers(2, 4)) + 1)]
    leaf_total = draw(st.integers(2, 16))
    racks: list[tuple[str, list[str]]] = []
    while sum(len(leaves) for _, leaves in racks) < leaf_total:
        first = sum(len(leaves) for _, leaves in racks) + 1
        kind = draw(st.sampled_from(['mlag', 'evpn-mh', 'single'])) if first < leaf_total else 'single'
        racks.append((kind, [f'{prefix}leaf{i}' for i in range(first, first + (1 if kind == 'single' else 2))]))
    nodes = [NodePlan('spine', i, name, None, '') for i, name in enumerate(spines, 1)]
    for kind, leaves in racks:
        for leaf in leaves:
            peer = next((x for x in leaves if x != leaf), None)
            nodes.append(
                NodePlan(
                    'leaf',
                    len(nodes),
                    leaf,
                    None,
                    '',
                    mlag_peer=peer if kind == 'mlag' else None,
                    mh_peer=peer if kind == 'evpn-mh' else None,
                )
            )
    speed, parallel = draw(st.sampled_from([100, 400])), draw(st.integers(1, 2))
    links = [
        Link('uplink', leaf, f'up{s}-{p}', spine, f'down{n}-{p}', speed)
        for n, (_, leaves) in enumerate(racks)
        for leaf in leaves
        for s, spine in enumerate(spines)
        for p in range(parallel)
    ]
    for kind, leaves in racks:
        if kind == 'mlag':
            links += [Link('mlag-peer', leaves[0], f'peer{p}', leaves[1], f'peer{p}', speed) for p in (1, 2)]
    homes = draw(st.lists(st.integers(0, len(racks) - 1), max_size=64))
    attachments, expected = [], [(set(leaves), set()) for _, leaves in racks]
    rdma_kind = draw(st.sampled_from(['rdma', 'rail']))
    for i, home in enumerate(homes, 1):
        name = f'{prefix}{draw(st.sampled_from(["gpu", "storage"]))}{i}'
        leaves = racks[home][1]
        members = tuple((leaf, f'srv{i}') for leaf in leaves)
        rdma = ((leaves[i % len(leaves)], f'rdma{i}'),)
        attachments.append(Attachment(name, 'storage' if 'storage' in name else 'gpu', 'bond0', members, rdma, ()))
        links += [Link('server', leaf, port, name, 'eth0', 25) for leaf, port in members]
        links += [Link(rdma_kind, leaf, port, name, 'rdma0', 100) for leaf, port in rdma]
        expected[home][1].add(name)
    plan = Plan('fabric', 'evpn-vxlan', 'ebgp', tuple(nodes), tuple(links), tuple(attachments), (), (), (), (), (), ())
    return plan, expected


@given(random_plans(), st.data())
@settings(max_examples=60, deadline=None)
def test_random_plans_s_to_m_draw_without_overlaps(case, data):
    plan, racks = case
    layout = topology_layout(plan)
    big = len(racks) > topology.MAX_RACKS or sum(len(s) for _, s in racks) > topology.MAX_SERVERS
    assert layout.servers_drawn is not big
    assert problems(plan, layout, racks, servers_drawn=not big) == []
    assert readable(layout)
    rack = data.draw(st.sampled_from(layout.racks))
    view = topology_layout(plan, rack)
    assert view.rack == rack
    assert problems(plan, view, racks, servers_drawn=True) == []
    assert readable(view)


@given(st.text(max_size=20))
@settings(max_examples=50, deadline=None)
def test_any_rack_parameter_draws_that_rack_or_the_overview(rack):
    plan = grown_plan()
    layout = topology_layout(plan, rack)
    assert layout.rack == (rack if rack in ('rack1', 'rack2') else None)
    assert topology_svg(plan, rack).startswith('<svg')
