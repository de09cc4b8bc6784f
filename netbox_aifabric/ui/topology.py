"""An SVG diagram of a plan, drawn by rack: spines across the top, then one labelled frame per rack (a leaf pair,
MLAG or EVPN multihoming, or a single leaf) holding its leaves and, below them, its servers; a legend of the line
and node colours present. The geometry is a pure function (:func:`topology_layout`), the SVG writer only draws it
(with svgwrite, which NetBox already ships).

Readable from the guide's cluster to size M (8 racks, 64 servers) on a 1,200 px card: the drawing scales down to the
card's width, never up. Beyond M the overview draws the switches and uplinks only and each rack has a view of its
own (``rack``: spines and that rack with its servers)."""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import svgwrite

__all__ = ('Layout', 'Rect', 'Text', 'plan_racks', 'topology_layout', 'topology_svg')

NAME_SIZE, SMALL_SIZE = 11, 10  # font sizes (px) of node names and of every other text
EM = 0.62  # estimated character width per font size (sans-serif, digits included)
BOX_H, BOX_MIN_W, BOX_PAD, MAX_CHARS = 24, 64, 5, 18  # node boxes; a longer name is shortened with an ellipsis
MARGIN, RACK_GAP, FRAME_PAD, COL_GAP, ROW_GAP = 12, 8, 5, 12, 8
SPINE_GAP, UPLABEL, SERVER_GAP = 90, 18, 40  # spines to racks, a frame's top to its leaves, leaves to servers
MAX_RACKS, MAX_SERVERS = 8, 64  # size M: beyond it the overview draws switches and uplinks only
MIN_W = 600  # the narrowest drawing: room for the legend beside a single rack
COLORS = {'spine': '#0d6efd', 'leaf': '#198754', 'gpu': '#6f42c1', 'storage': '#fd7e14'}
LINK_COLORS = {
    'uplink': '#495057',
    'mlag-peer': '#dc3545',
    'server': '#adb5bd',
    'rdma': '#d63384',
    'rail': '#0dcaf0',
    'bmc': '#6c757d',
}
NODE_LEGEND = {'spine': 'spine', 'leaf': 'leaf', 'gpu': 'GPU server', 'storage': 'storage node'}
LINK_LEGEND = {
    'uplink': "uplink (n×speed: the leaf's uplinks)",
    'mlag-peer': 'MLAG peer link',
    'server': 'server bond link',
    'rdma': 'RDMA link',
    'rail': 'RDMA rail link',
    'bmc': 'BMC link',
}
SCOPE = '.aifabric-topology'  # the class of the <svg>: its styles reach nothing else on the page
PAIR_LABEL = {'mlag': ' · MLAG pair', 'evpn-mh': ' · EVPN-MH pair', 'single': ''}  # after the rack's name


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    def intersects(self, other: 'Rect') -> bool:
        return (
            self.x < other.x + other.w
            and other.x < self.x + self.w
            and self.y < other.y + other.h
            and other.y < self.y + self.h
        )

    def contains(self, other: 'Rect') -> bool:
        return (
            self.x <= other.x
            and self.y <= other.y
            and other.x + other.w <= self.x + self.w
            and other.y + other.h <= self.y + self.h
        )


def text_width(text: str, size: float) -> float:
    return len(text) * size * EM


@dataclass(frozen=True)
class Text:
    """A text at ``x`` (its middle, or its start with ``anchor`` ``start``) and baseline ``y``; ``rect``: its
    estimated box (font size × character count wide, the font's ascent and descent high)."""

    text: str
    x: float
    y: float
    size: float
    kind: str
    anchor: str = 'middle'

    @property
    def rect(self) -> Rect:
        w = text_width(self.text, self.size)
        left = self.x - w / 2 if self.anchor == 'middle' else self.x
        return Rect(left, self.y - 0.95 * self.size, w, 1.2 * self.size)


@dataclass(frozen=True)
class NodeBox:
    name: str
    kind: str  # spine, leaf, gpu, storage
    rack: str | None
    rect: Rect
    label: Text


@dataclass(frozen=True)
class RackFrame:
    name: str
    kind: str  # mlag, evpn-mh, single
    leaves: tuple[str, ...]
    servers: tuple[str, ...]
    rect: Rect
    label: Text


@dataclass(frozen=True)
class Edge:
    """One line: every link of one kind between the same two nodes (a bundle)."""

    kind: str
    a: str
    b: str
    links: tuple
    start: tuple[float, float]
    end: tuple[float, float]


@dataclass(frozen=True)
class LegendItem:
    kind: str  # line, node or frame
    key: str
    swatch: Rect
    text: Text


@dataclass(frozen=True)
class Layout:
    width: float
    height: float
    nodes: tuple[NodeBox, ...]
    frames: tuple[RackFrame, ...]
    edges: tuple[Edge, ...]
    labels: tuple[Text, ...]  # uplink labels, rack labels, notes (node names are on the nodes, legend on its items)
    legend: tuple[LegendItem, ...]
    racks: tuple[str, ...]  # every rack of the plan, for the rack selector
    rack: str | None  # the rack drawn alone, None for the overview
    servers_drawn: bool
    prefix: str = ''  # left off every drawn name
    notes: tuple[str, ...] = field(default=())

    def texts(self) -> tuple[Text, ...]:
        return (*(n.label for n in self.nodes), *self.labels, *(i.text for i in self.legend))


@dataclass(frozen=True)
class PlanRack:
    name: str
    kind: str
    leaves: tuple[str, ...]
    servers: tuple[tuple[str, str], ...]  # (name, kind)


def plan_racks(plan) -> tuple[PlanRack, ...]:
    """The plan's racks in leaf order (``rack1``, ``rack2``, …): each leaf pair (MLAG or EVPN multihoming) or single
    leaf, with the servers whose bond (else RDMA NIC, else BMC) lands on its leaves."""
    racks: list[tuple[str, tuple[str, ...]]] = []
    rack_of: dict[str, int] = {}
    for node in plan.nodes:
        if node.role != 'leaf' or node.name in rack_of:
            continue
        peer = node.mlag_peer or node.mh_peer
        kind = 'mlag' if node.mlag_peer else 'evpn-mh' if node.mh_peer else 'single'
        leaves = (node.name, peer) if peer else (node.name,)
        rack_of.update(dict.fromkeys(leaves, len(racks)))
        racks.append((kind, leaves))
    servers: list[list[tuple[str, str]]] = [[] for _ in racks]
    for attachment in plan.attachments:
        ends = [leaf for leaf, _ in (*attachment.members, *attachment.rdma)] + list(attachment.bmc or ())[:1]
        home = next((rack_of[leaf] for leaf in ends if leaf in rack_of), None)
        if home is not None:
            servers[home].append((attachment.server, attachment.kind))
    return tuple(PlanRack(f'rack{i + 1}', kind, leaves, tuple(servers[i])) for i, (kind, leaves) in enumerate(racks))


def _common_prefix(names: list[str]) -> str:
    """The longest prefix ending in '-' that every name has and none is only."""
    if not names:
        return ''
    first = min(names)
    last = max(names)
    common = first[: next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), len(first))]
    prefix = common[: common.rfind('-') + 1]
    return prefix if all(len(n) > len(prefix) for n in names) else ''


def _short(name: str, prefix: str) -> str:
    name = name[len(prefix) :]
    return name if len(name) <= MAX_CHARS else name[: MAX_CHARS - 1] + '…'


def _uplink_label(plan, leaf: str) -> str:
    speeds = Counter(link.speed for link in plan.links if link.kind == 'uplink' and leaf in (link.a_node, link.b_node))
    return ' + '.join(f'{n}×{speed}G' for speed, n in sorted(speeds.items()))


def topology_layout(plan, rack: str | None = None) -> Layout:
    """Where everything goes: spines, the racks (all of them, or only ``rack``), their servers (up to size M, or in
    a rack's own view), the bundles between them, the labels and the legend. Pure: numbers only."""
    racks = plan_racks(plan)
    server_total = sum(len(r.servers) for r in racks)
    chosen = next((r for r in racks if r.name == rack), None)
    big = len(racks) > MAX_RACKS or server_total > MAX_SERVERS
    shown = (chosen,) if chosen else racks
    servers_drawn = chosen is not None or not big
    spines = [n.name for n in plan.nodes if n.role == 'spine']
    names = spines + [leaf for r in racks for leaf in r.leaves] + [s for r in racks for s, _ in r.servers]
    prefix = _common_prefix(names)
    uplabels = {leaf: _uplink_label(plan, leaf) for r in shown for leaf in r.leaves}
    drawn_names = spines + [leaf for r in shown for leaf in r.leaves]
    drawn_names += [s for r in shown for s, _ in r.servers] if servers_drawn else []
    box_w = max(
        BOX_MIN_W,
        *(text_width(_short(n, prefix), NAME_SIZE) + 2 * BOX_PAD for n in drawn_names),
        *(text_width(t, SMALL_SIZE) + 2 for t in uplabels.values()),
    )
    frames, boxes = _racks_row(shown, servers_drawn, box_w, prefix)
    notes = _notes(plan, racks, chosen, big, server_total, prefix)
    row_w = sum(f.rect.w for f in frames) + RACK_GAP * max(len(frames) - 1, 0)
    spine_w = len(spines) * box_w + max(len(spines) - 1, 0) * 3 * COL_GAP
    content_w = max(row_w, spine_w, MIN_W, *(text_width(n, SMALL_SIZE) for n in notes))
    width = content_w + 2 * MARGIN
    frames, boxes = _shift(frames, boxes, MARGIN + (content_w - row_w) / 2)
    left = MARGIN + (content_w - spine_w) / 2
    spine_boxes = [
        _box(name, 'spine', None, left + i * (box_w + 3 * COL_GAP), MARGIN, box_w, prefix)
        for i, name in enumerate(spines)
    ]
    nodes = (*spine_boxes, *boxes)
    labels = [f.label for f in frames]
    for box in boxes:
        if box.kind == 'leaf' and uplabels.get(box.name) and spines:
            labels.append(Text(uplabels[box.name], box.rect.x + box_w / 2, box.rect.y - 5, SMALL_SIZE, 'uplink'))
    bottom = max((f.rect.y + f.rect.h for f in frames), default=MARGIN + BOX_H)
    for note in notes:
        bottom += SMALL_SIZE * 1.6
        labels.append(Text(note, MARGIN, bottom, SMALL_SIZE, 'note', 'start'))
    edges = _edges(plan, {n.name: n for n in nodes})
    legend, height = _legend(edges, nodes, frames, width, bottom + 2 * SMALL_SIZE)
    return Layout(
        width,
        height,
        nodes,
        tuple(frames),
        edges,
        tuple(labels),
        legend,
        tuple(r.name for r in racks),
        chosen.name if chosen else None,
        servers_drawn,
        prefix,
        tuple(notes),
    )


def _notes(plan, racks, chosen, big: bool, server_total: int, prefix: str) -> list[str]:
    notes = []
    if chosen is not None:
        notes.append(f'{chosen.name} of {len(racks)} racks, with the spines; links to other racks are not drawn')
    elif big:
        notes.append(
            f'{server_total} servers in {len(racks)} racks: more than {MAX_SERVERS} servers or {MAX_RACKS} racks, '
            'so only the switches are drawn; pick a rack to draw its servers'
        )
    if prefix:
        notes.append(f'Names without the prefix {prefix}')
    return notes


def _box(name: str, kind: str, rack: str | None, x: float, y: float, w: float, prefix: str) -> NodeBox:
    label = Text(_short(name, prefix), x + w / 2, y + BOX_H / 2 + 0.35 * NAME_SIZE, NAME_SIZE, 'name')
    return NodeBox(name, kind, rack, Rect(x, y, w, BOX_H), label)


def _racks_row(racks, servers_drawn: bool, w: float, prefix: str) -> tuple[list[RackFrame], list[NodeBox]]:
    """The rack frames side by side from x = 0, and the nodes inside them."""
    frames, boxes = [], []
    x, top = 0.0, MARGIN + BOX_H + SPINE_GAP
    for rack in racks:
        servers = rack.servers if servers_drawn else ()
        cols = 2 if servers else len(rack.leaves)
        inner = cols * w + (cols - 1) * COL_GAP
        leaf_y = top + UPLABEL
        if len(rack.leaves) == cols:
            xs = [x + FRAME_PAD + i * (w + COL_GAP) for i in range(cols)]
        else:
            xs = [x + FRAME_PAD + (inner - w) / 2]
        boxes += [
            _box(leaf, 'leaf', rack.name, lx, leaf_y, w, prefix) for leaf, lx in zip(rack.leaves, xs, strict=True)
        ]
        bottom = leaf_y + BOX_H
        for i, (server, kind) in enumerate(servers):
            sy = leaf_y + BOX_H + SERVER_GAP + (i // 2) * (BOX_H + ROW_GAP)
            sx = x + FRAME_PAD + (i % 2) * (w + COL_GAP)
            boxes.append(_box(server, 'storage' if kind == 'storage' else 'gpu', rack.name, sx, sy, w, prefix))
            bottom = sy + BOX_H
        title = rack.name + PAIR_LABEL[rack.kind]
        frame_w = max(inner, text_width(title, SMALL_SIZE)) + 2 * FRAME_PAD
        baseline = bottom + 6 + 0.95 * SMALL_SIZE
        label = Text(title, x + frame_w / 2, baseline, SMALL_SIZE, 'rack')
        rect = Rect(x, top, frame_w, baseline + 0.25 * SMALL_SIZE + FRAME_PAD - top)
        frames.append(RackFrame(rack.name, rack.kind, rack.leaves, tuple(s for s, _ in servers), rect, label))
        x += frame_w + RACK_GAP
    return frames, boxes


def _shift(frames: list[RackFrame], boxes: list[NodeBox], dx: float) -> tuple[list[RackFrame], list[NodeBox]]:
    def rect(r: Rect) -> Rect:
        return Rect(r.x + dx, r.y, r.w, r.h)

    def text(t: Text) -> Text:
        return Text(t.text, t.x + dx, t.y, t.size, t.kind, t.anchor)

    frames = [RackFrame(f.name, f.kind, f.leaves, f.servers, rect(f.rect), text(f.label)) for f in frames]
    boxes = [NodeBox(b.name, b.kind, b.rack, rect(b.rect), text(b.label)) for b in boxes]
    return frames, boxes


def _edges(plan, nodes: dict[str, NodeBox]) -> tuple[Edge, ...]:
    """One edge per bundle (kind, two nodes) whose both ends are drawn, in plan order."""
    bundles: dict[tuple[str, str, str], list] = defaultdict(list)
    for link in plan.links:
        if link.a_node in nodes and link.b_node in nodes:
            bundles[link.kind, link.a_node, link.b_node].append(link)
    spines = [n for n in nodes.values() if n.kind == 'spine']
    fan: dict[str, list[str]] = defaultdict(list)  # a spine's leaves, left to right
    for kind, a, b in bundles:
        if kind == 'uplink':
            spine, leaf = (a, b) if nodes[a].kind == 'spine' else (b, a)
            fan[spine].append(leaf)
    for leaves in fan.values():
        leaves.sort(key=lambda name: nodes[name].rect.x)
    edges = []
    for (kind, a, b), links in bundles.items():
        edges.append(Edge(kind, a, b, tuple(links), *_ends(kind, nodes[a], nodes[b], spines, fan)))
    return tuple(edges)


def _ends(kind: str, a: NodeBox, b: NodeBox, spines, fan) -> tuple[tuple[float, float], tuple[float, float]]:
    if kind == 'mlag-peer':
        left, right = sorted((a.rect, b.rect), key=lambda r: r.x)
        return (left.x + left.w, left.y + BOX_H / 2), (right.x, right.y + BOX_H / 2)
    if kind == 'uplink':
        spine, leaf = (a, b) if a.kind == 'spine' else (b, a)
        leaves = fan[spine.name]
        i, j = leaves.index(leaf.name), [s.name for s in spines].index(spine.name)
        top = (spine.rect.x + (i + 0.5) * spine.rect.w / len(leaves), spine.rect.y + BOX_H)
        return top, (leaf.rect.x + (j + 0.5) * leaf.rect.w / len(spines), leaf.rect.y)
    upper, lower = (a, b) if a.rect.y < b.rect.y else (b, a)
    offset = {'server': -1 / 6, 'bmc': 0.0}.get(kind, 1 / 6) * upper.rect.w
    return (upper.rect.x + upper.rect.w / 2 + offset, upper.rect.y + BOX_H), (
        lower.rect.x + lower.rect.w / 2 + offset,
        lower.rect.y,
    )


def _legend(edges, nodes, frames, width: float, top: float) -> tuple[tuple[LegendItem, ...], float]:
    """The legend's items (only the kinds drawn) flowing left to right from ``top``; the drawing's height."""
    drawn_links = {e.kind for e in edges}
    drawn_nodes = {n.kind for n in nodes}
    entries = [('line', k, t) for k, t in LINK_LEGEND.items() if k in drawn_links]
    entries += [('node', k, t) for k, t in NODE_LEGEND.items() if k in drawn_nodes]
    if frames:
        entries.append(('frame', 'rack', 'rack: a leaf pair or single leaf, its servers below'))
    x, y, items = float(MARGIN), top, []
    for kind, key, text in entries:
        item_w = 22 + text_width(text, SMALL_SIZE)
        if x + item_w > width - MARGIN and x > MARGIN:
            x, y = float(MARGIN), y + SMALL_SIZE * 1.8
        swatch = Rect(x, y - 9, 16, 10)
        items.append(LegendItem(kind, key, swatch, Text(text, x + 22, y, SMALL_SIZE, 'legend', 'start')))
        x += item_w + 14
    return tuple(items), y + SMALL_SIZE + MARGIN


def topology_svg(plan, rack: str | None = None) -> str:
    """The plan as an SVG document (a string) that scales down to its container's width."""
    layout = topology_layout(plan, rack)
    drawing = svgwrite.Drawing(size=('100%', '100%'), profile='full', debug=False)
    del drawing.attribs['height']
    drawing.viewbox(0, 0, layout.width, layout.height)
    drawing['style'] = f'max-width: {layout.width:.0f}px; height: auto'
    drawing['class'] = SCOPE[1:]
    drawing.add(
        drawing.style(
            f'{SCOPE} text {{ font-family: sans-serif; font-size: {SMALL_SIZE}px; }} '
            f'{SCOPE} .name {{ font-size: {NAME_SIZE}px; }} {SCOPE} .prefix {{ display: none; }} '
            f'{SCOPE} .halo {{ paint-order: stroke; stroke: white; stroke-width: 3px; stroke-linejoin: round; }}'
        )
    )
    frames = drawing.add(drawing.g(id='racks'))
    for frame in layout.frames:
        rect = frame.rect
        frames.add(
            drawing.rect(
                (rect.x, rect.y),
                (rect.w, rect.h),
                rx=6,
                fill='#f8f9fa',
                stroke='#6c757d',
                stroke_dasharray='4,3',
                id=f'rack-{frame.name}',
            )
        )
    _draw_edges(drawing, layout)
    _draw_nodes(drawing, layout)
    labels = drawing.add(drawing.g(id='labels'))
    for text in layout.labels:
        anchor = 'middle' if text.anchor == 'middle' else 'start'
        labels.add(drawing.text(text.text, insert=(text.x, text.y), text_anchor=anchor, class_=f'halo {text.kind}'))
    _draw_legend(drawing, layout)
    return drawing.tostring()


def _draw_edges(drawing, layout: Layout) -> None:
    group = drawing.add(drawing.g(id='links'))
    for edge in layout.edges:
        width = 2 if edge.kind in ('uplink', 'mlag-peer') else 1
        line = drawing.line(edge.start, edge.end, stroke=LINK_COLORS.get(edge.kind, '#6c757d'), stroke_width=width)
        ends = '; '.join(f'{k.a_node} {k.a_interface} — {k.b_node} {k.b_interface}, {k.speed}G' for k in edge.links)
        line.set_desc(title=ends)
        line['class'] = f'link {edge.kind}'
        group.add(line)


def _draw_nodes(drawing, layout: Layout) -> None:
    group = drawing.add(drawing.g(id='nodes'))
    for node in layout.nodes:
        box = drawing.g(class_=f'node {node.kind}')
        rect = node.rect
        box.add(drawing.rect((rect.x, rect.y), (rect.w, rect.h), rx=4, fill=COLORS[node.kind], stroke='#212529'))
        label = drawing.text('', insert=(node.label.x, node.label.y), text_anchor='middle', fill='white', class_='name')
        if layout.prefix:  # the whole name is the text's content; only the short part shows
            label.add(drawing.tspan(layout.prefix, class_='prefix'))
        label.add(drawing.tspan(node.name[len(layout.prefix) :] if node.label.text[-1:] != '…' else node.label.text))
        box.set_desc(title=node.name)
        box.add(label)
        group.add(box)


def _draw_legend(drawing, layout: Layout) -> None:
    group = drawing.add(drawing.g(id='legend'))
    for item in layout.legend:
        s = item.swatch
        if item.kind == 'line':
            stroke = LINK_COLORS[item.key]
            group.add(drawing.line((s.x, s.y + s.h / 2), (s.x + s.w, s.y + s.h / 2), stroke=stroke, stroke_width=2))
        elif item.kind == 'node':
            group.add(drawing.rect((s.x, s.y), (s.w, s.h), rx=2, fill=COLORS[item.key], stroke='#212529'))
        else:
            group.add(
                drawing.rect((s.x, s.y), (s.w, s.h), rx=2, fill='#f8f9fa', stroke='#6c757d', stroke_dasharray='4,3')
            )
        text = item.text
        group.add(drawing.text(text.text, insert=(text.x, text.y), class_='legend'))
