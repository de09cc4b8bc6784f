"""An SVG diagram of a plan: spines on top, leaves in the middle (MLAG pairs side by side), servers below, with the
links and their speeds. Drawn with svgwrite, which NetBox already ships."""

import svgwrite

__all__ = ('topology_svg',)

BOX_W, BOX_H, GAP = 150, 34, 24
ROW_Y = {'spine': 20, 'leaf': 170, 'server': 330}
COLORS = {'spine': '#0d6efd', 'leaf': '#198754', 'gpu': '#6f42c1', 'storage': '#fd7e14'}
LINK_COLORS = {'uplink': '#495057', 'mlag-peer': '#dc3545', 'server': '#adb5bd', 'rdma': '#6f42c1', 'rail': '#6f42c1'}
MAX_SERVERS = 32  # beyond this many servers the diagram shows switches and uplinks only


def topology_svg(plan) -> str:
    """The plan as an SVG document (a string)."""
    spines = [n.name for n in plan.nodes if n.role == 'spine']
    leaves = [n.name for n in plan.nodes if n.role == 'leaf']
    servers = [(a.server, a.kind) for a in plan.attachments]
    show_servers = len(servers) <= MAX_SERVERS
    rows = {'spine': spines, 'leaf': leaves, 'server': [s for s, _ in servers] if show_servers else []}
    widest = max(len(r) for r in rows.values()) or 1
    width = widest * (BOX_W + GAP) + GAP
    height = ROW_Y['server'] + BOX_H + 30 if rows['server'] else ROW_Y['leaf'] + BOX_H + 30

    centres = {}
    for role, names in rows.items():
        offset = (width - len(names) * (BOX_W + GAP) + GAP) / 2
        for i, name in enumerate(names):
            centres[name] = (offset + i * (BOX_W + GAP) + BOX_W / 2, ROW_Y[role], role)

    drawing = svgwrite.Drawing(size=(f'{width}px', f'{height}px'), profile='full', debug=False)
    drawing.viewbox(0, 0, width, height)
    drawing.add(drawing.style('text { font-family: sans-serif; font-size: 12px; } .speed { font-size: 10px; }'))
    links = drawing.add(drawing.g(id='links'))
    for link in plan.links:
        if link.a_node not in centres or link.b_node not in centres:
            continue
        (ax, ay, _), (bx, by, _) = centres[link.a_node], centres[link.b_node]
        if link.kind == 'mlag-peer':
            if link.subnet is None:
                continue  # one line per pair
            start, end = (ax + BOX_W / 2, ay + BOX_H / 2), (bx - BOX_W / 2, by + BOX_H / 2)
        else:
            start = (ax, ay + BOX_H) if ay < by else (ax, ay)
            end = (bx, by) if ay < by else (bx, by + BOX_H)
        line = drawing.line(start, end, stroke=LINK_COLORS[link.kind], stroke_width=2 if link.kind == 'uplink' else 1)
        line.set_desc(title=f'{link.a_node} {link.a_interface} — {link.b_node} {link.b_interface}, {link.speed}G')
        links.add(line)
        if link.kind == 'uplink':
            # Label near the leaf end, where the uplinks from different spines are apart
            x, y = start[0] + 0.75 * (end[0] - start[0]), start[1] + 0.75 * (end[1] - start[1])
            links.add(drawing.text(f'{link.speed}G', insert=(x + 3, y - 3), class_='speed'))
    kinds = dict(servers)
    nodes = drawing.add(drawing.g(id='nodes'))
    for name, (x, y, role) in centres.items():
        color = COLORS[kinds.get(name, role)] if role == 'server' else COLORS[role]
        nodes.add(drawing.rect((x - BOX_W / 2, y), (BOX_W, BOX_H), rx=4, fill=color, stroke='#212529'))
        nodes.add(drawing.text(name, insert=(x, y + BOX_H / 2 + 4), text_anchor='middle', fill='white'))
    if not show_servers:
        drawing.add(
            drawing.text(f'{len(servers)} servers not drawn (more than {MAX_SERVERS})', insert=(GAP, height - 10))
        )
    return drawing.tostring()
