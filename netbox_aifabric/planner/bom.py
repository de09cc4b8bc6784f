"""The bill of materials (pure: the standard library only): what to buy for a :class:`Plan`, and the guide's tier.

Assumptions (documented in ``docs/traffic.md``): each link kind has a reach class (the ``reach`` argument, see
:data:`REACH`; by default leaf–spine uplinks run across the room and every other link, server bonds, RDMA NICs, BMC
ports and the MLAG peer link, stays in its rack). The reach class and the speed choose the medium (:data:`MEDIA`): in
the rack a passive DAC (copper patch cable at 1G), to the next rack an AOC, further two optics and a fibre (SR over
multimode, DR/FR or LR over single-mode). Every server BMC and every switch management port takes a port of a
management (out-of-band) switch and a copper patch cable. Switch lines name the chosen device type's manufacturer,
model and part number. Spares are a percentage of each hardware line, rounded up; licences have none. The tiers are
the guide's planning ranges, never prices.
"""

import csv
import io
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from netbox_aifabric.planner.errors import PlanError
from netbox_aifabric.planner.result import Link, Plan

__all__ = (
    'CSV_COLUMNS',
    'DEFAULT_REACH',
    'KIND_WORDS',
    'LINK_KINDS',
    'MANAGEMENT_PORTS',
    'MEDIA',
    'REACH',
    'REACH_CLASSES',
    'TIERS',
    'BillOfMaterials',
    'BomLine',
    'DeviceModel',
    'Tier',
    'bill_of_materials',
    'medium',
    'reach_by_kind',
)

Breakouts = Mapping[str, Mapping[str, tuple[str, int]]]  # role → {lane port: (parent port, lanes of the parent)}
UNVERIFIED = '(unverified)'  # beside a part number no vendor source confirmed: check it with the vendor first
CSV_COLUMNS = ('category', 'item', 'part_number', 'quantity', 'spares', 'total', 'note')
SAME_RACK, NEXT_RACK, RACK_TO_RACK, BUILDING, CAMPUS = 'same-rack', 'next-rack', 'rack-to-rack', 'building', 'campus'
# reach class → what it means, in the words the page shows
REACH: Mapping[str, str] = {
    SAME_RACK: 'in the rack (up to 3 m)',
    NEXT_RACK: 'to a neighbouring rack (up to 10 m)',
    RACK_TO_RACK: 'across the room (up to 100 m)',
    BUILDING: 'across the building (up to 500 m)',
    CAMPUS: 'between buildings (up to 2 km)',
}
REACH_CLASSES = tuple(REACH)
LINK_KINDS = ('uplink', 'mlag-peer', 'server', 'rdma', 'rail', 'bmc')
KIND_WORDS: Mapping[str, str] = {
    'uplink': 'leaf–spine uplinks',
    'mlag-peer': 'MLAG peer links',
    'server': 'server bond links',
    'rdma': 'RDMA NIC links',
    'rail': 'rail RDMA links',
    'bmc': 'BMC links to a leaf',
}
DEFAULT_REACH: Mapping[str, str] = {kind: RACK_TO_RACK if kind == 'uplink' else SAME_RACK for kind in LINK_KINDS}
MANAGEMENT_PORTS = 48  # a management switch's copper access ports when its device type is not chosen (48x1G + uplinks)

# The pluggable form factor a speed uses when no device type says (NetBox interface types end in it)
DEFAULT_FORM = {
    1: 'RJ45',
    10: 'SFP+',
    25: 'SFP28',
    40: 'QSFP+',
    50: 'SFP56',
    100: 'QSFP28',
    200: 'QSFP56',
    400: 'QSFP-DD',
}
FORMS = {
    'sfpp': 'SFP+',
    'sfp28': 'SFP28',
    'sfp56': 'SFP56',
    'qsfpp': 'QSFP+',
    'qsfp28': 'QSFP28',
    'qsfp56': 'QSFP56',
    'qsfpdd': 'QSFP-DD',
    'osfp': 'OSFP',
    't': 'RJ45',
}
# (speed, reach) → (medium kind, optic type or None, cable). IEEE 802.3 names and reaches: 1000BASE-T (Cat6, 100 m),
# 10GBASE-SR (OM4 400 m) / -LR (10 km), 25GBASE-CR (3 m) / -SR (OM4 100 m) / -LR (10 km, 802.3cc; 25G has no DR/FR),
# 100GBASE-CR4 (5 m) / -SR4 (OM4 100 m, MPO-12) / -DR (500 m, 802.3cd) / -FR1 (2 km, 802.3cu), 400GBASE-CR8 (2 m,
# 802.3ck) / -SR8 (OM4 100 m, MPO-16, 802.3cm) / -DR4 (500 m, MPO-12, 802.3bs) / -FR4 (2 km, 802.3cu).
_OPTICAL = {
    10: ('10GBASE-SR', '10GBASE-LR', '10GBASE-LR'),
    25: ('25GBASE-SR', '25GBASE-LR', '25GBASE-LR'),
    40: ('40GBASE-SR4', '40GBASE-LR4', '40GBASE-LR4'),
    50: ('50GBASE-SR', '50GBASE-FR', '50GBASE-FR'),
    100: ('100GBASE-SR4', '100GBASE-DR', '100GBASE-FR1'),
    200: ('200GBASE-SR4', '200GBASE-DR4', '200GBASE-FR4'),
    400: ('400GBASE-SR8', '400GBASE-DR4', '400GBASE-FR4'),
}
_FIBRE = {
    'SR': 'multimode OM4 fibre, duplex LC',
    'SR4': 'multimode OM4 fibre trunk, MPO-12',
    'SR8': 'multimode OM4 fibre trunk, MPO-16',
    'DR4': 'single-mode OS2 fibre trunk, MPO-12 APC',
}


def medium(speed: int, reach: str) -> tuple[str, str | None, str]:
    """``(kind, optic, cable)`` for one link at ``speed`` over ``reach``: kind ``dac``, ``aoc``, ``copper`` or
    ``optical``; the optic type (e.g. ``100GBASE-DR``) of an optical link, else None; the cable's words."""
    if speed <= 1:
        if reach in (BUILDING, CAMPUS):
            return 'optical', '1000BASE-LX', 'single-mode OS2 fibre, duplex LC'
        return 'copper', None, 'Cat6 copper patch cable (1000BASE-T)'
    if reach == SAME_RACK:
        return 'dac', None, 'passive DAC'
    if reach == NEXT_RACK:
        return 'aoc', None, 'active optical cable (AOC)'
    sr, dr, fr = _OPTICAL.get(speed, (f'{speed}G SR', f'{speed}G DR', f'{speed}G FR'))
    optic = {RACK_TO_RACK: sr, BUILDING: dr, CAMPUS: fr}[reach]
    suffix = optic.rsplit('-', 1)[-1]
    return 'optical', optic, _FIBRE.get(suffix, 'single-mode OS2 fibre, duplex LC')


MEDIA = {(speed, reach): medium(speed, reach) for speed in sorted(DEFAULT_FORM) for reach in REACH_CLASSES}


@dataclass(frozen=True)
class DeviceModel:
    """A device type as the BOM names it: manufacturer, model, part number, and its ports' NetBox interface types
    (name → type, e.g. ``Ethernet49/1`` → ``100gbase-x-qsfp28``: the form factor of each optic and DAC end).
    ``part_number_verified`` False: no vendor source confirmed the part number (the BOM says so beside it)."""

    manufacturer: str = ''
    model: str = ''
    part_number: str = ''
    ports: Mapping[str, str] = field(default_factory=dict)
    access_ports: int = 0  # a management switch's copper access ports (0: not known)
    part_number_verified: bool = True

    @property
    def ordering_number(self) -> str:
        """The part number as the BOM shows it: marked ``(unverified)`` where no vendor source confirmed it."""
        if self.part_number and not self.part_number_verified:
            return f'{self.part_number} {UNVERIFIED}'
        return self.part_number

    @property
    def label(self) -> str:
        return ' '.join(part for part in (self.manufacturer, self.model) if part)


@dataclass(frozen=True)
class Tier:
    """One row of the guide's shopping list: its name, budget range, what to buy and best fit (verbatim)."""

    name: str
    budget: str
    what_to_buy: str
    best_fit: str


# The guide's table, verbatim ("planning ranges, not affiliate recommendations")
TIERS = (
    Tier(
        'Starter',
        '€3,000–€8,000 / $3,000–$8,000',
        'Two used/refurb 25GbE switches, DAC cables, 25GbE NICs, basic telemetry VM',
        'One rack, TCP workloads, learning EVPN later',
    ),
    Tier(
        'Balanced',
        '€12,000–€35,000 / $12,000–$35,000',
        'Two 25/100GbE leaf switches, 100GbE uplink optics/DACs, support, automation host, monitoring',
        '4–8 GPU servers, storage separation, first production jobs',
    ),
    Tier(
        'Expandable',
        '€40,000+ / $40,000+',
        'Two spines, multiple leaf pairs, EVPN/VXLAN licenses/support if required, 100/400G optics, telemetry platform',
        'Multiple racks, tenant separation, RDMA or strict SLA requirements',
    ),
)
TIER_RULE = (
    'Expandable when any of: more than one rack (several leaf pairs), links at 400G, more than 8 GPU servers, more '
    'than one tenant; else Starter when all of: one rack, no link above 25G, no spines, no RDMA NICs; else Balanced'
)


@dataclass(frozen=True)
class BomLine:
    """``category``: switch, optic, cable, nic or licence; ``quantity`` what the plan uses, ``spares`` on top;
    ``part_number`` the device type's (switches) where known."""

    category: str
    item: str
    quantity: int
    spares: int
    note: str = ''
    part_number: str = ''

    @property
    def total(self) -> int:
        """What to order: the quantity and its spares."""
        return self.quantity + self.spares


@dataclass(frozen=True)
class BillOfMaterials:
    """The lines, the spares percentage they used, the reach class per link kind, and the guide's tier with the rule
    that judged it (``tier_rule``) and the facts of the plan that decided (``tier_reasons``)."""

    lines: tuple[BomLine, ...]
    spares_percent: float
    tier: Tier
    tier_reasons: tuple[str, ...]
    reach: tuple[tuple[str, str], ...] = tuple(DEFAULT_REACH.items())
    tier_rule: str = TIER_RULE

    @property
    def reach_words(self) -> tuple[tuple[str, str], ...]:
        """``(link kinds in words, reach in words)`` for the page: no internal names."""
        return tuple((KIND_WORDS.get(kind, kind), REACH.get(reach, reach)) for kind, reach in self.reach)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``lines`` (with ``total``), ``spares_percent``, ``reach``, ``tier``, ``tier_reasons``,
        ``tier_rule``."""
        return {
            'lines': [asdict(line) | {'total': line.total} for line in self.lines],
            'spares_percent': self.spares_percent,
            'reach': dict(self.reach),
            'tier': asdict(self.tier),
            'tier_reasons': list(self.tier_reasons),
            'tier_rule': self.tier_rule,
        }

    def to_csv(self) -> str:
        """The lines as CSV (NetBox's export style: a header row, then one row per line), and last the guide's tier in
        the same columns: category ``tier``, its name, no quantities, its planning range and reasons as the note."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator='\n')
        writer.writerow(CSV_COLUMNS)
        for line in self.lines:
            writer.writerow(
                [line.category, line.item, line.part_number, line.quantity, line.spares, line.total, line.note]
            )
        note = f'planning range (not a price): {self.tier.budget}; ' + '; '.join(self.tier_reasons)
        writer.writerow(['tier', self.tier.name, '', '', '', '', note])
        return out.getvalue()


class _Lines:
    """The lines collected so far, each with its spares at one percentage; lines of one item add up."""

    def __init__(self, spares_percent: float) -> None:
        self.percent = spares_percent
        self.quantities: dict[tuple[str, str, str, bool], Counter[str]] = {}

    def add(
        self, category: str, item: str, quantity: int, note: str = '', spares: bool = True, part_number: str = ''
    ) -> None:
        """``quantity`` more of ``item`` (none when zero), ``note`` naming what they are for."""
        if quantity:
            notes = self.quantities.setdefault((category, item, part_number, spares), Counter())
            notes[note] += quantity

    @property
    def lines(self) -> list[BomLine]:
        out = []
        for (category, item, part_number, spares), notes in self.quantities.items():
            quantity = sum(notes.values())
            extra = math.ceil(quantity * self.percent / 100 - 1e-9) if spares else 0
            note = ', '.join(note for note in notes if note)
            out.append(BomLine(category, item, quantity, extra, note, part_number))
        return out


def _check_spares(spares_percent: object) -> float:
    """The percentage itself, or a :class:`PlanError` on ``spares_percent``."""
    if (
        isinstance(spares_percent, bool)
        or not isinstance(spares_percent, int | float)
        or not math.isfinite(spares_percent)
        or not 0 <= spares_percent <= 100
    ):
        raise PlanError('spares_percent', f'{spares_percent!r} is not a percentage between 0 and 100')
    return float(spares_percent)


def reach_by_kind(reach: Mapping[str, str] | None) -> dict[str, str]:
    """The defaults overlaid with ``reach``; a :class:`PlanError` on ``reach.<kind>`` for an unknown kind or class."""
    merged = dict(DEFAULT_REACH)
    if reach is None:
        return merged
    if not isinstance(reach, Mapping):
        raise PlanError('reach', f'expected a mapping of link kind to reach class, got {type(reach).__name__}')
    for kind, value in reach.items():
        if kind not in LINK_KINDS:
            raise PlanError(f'reach.{kind}', f'unknown link kind (known: {", ".join(LINK_KINDS)})')
        if value not in REACH_CLASSES:
            raise PlanError(f'reach.{kind}', f'{value!r} is not a reach class ({", ".join(REACH_CLASSES)})')
        merged[kind] = value
    return merged


def _model(device_type: 'DeviceModel | str | None') -> DeviceModel | None:
    """A :class:`DeviceModel`; a bare name is its model."""
    return DeviceModel(model=device_type) if isinstance(device_type, str) else device_type


def bill_of_materials(
    plan: Plan,
    *,
    spine_device_type: DeviceModel | str | None = None,
    leaf_device_type: DeviceModel | str | None = None,
    server_device_type: DeviceModel | str | None = None,
    management_device_type: DeviceModel | str | None = None,
    spares_percent: float = 10,
    reach: Mapping[str, str] | None = None,
    breakouts: Breakouts | None = None,
) -> BillOfMaterials:
    """The BOM of ``plan``; device types are :class:`DeviceModel` (or names), None when not chosen; ``reach``
    overrides :data:`DEFAULT_REACH` per link kind; ``breakouts``: role → {lane port: (parent port, lanes)}, the port
    map's. The management switch (``management_device_type``) is listed whether or not the fabric plans it."""
    lines = _Lines(_check_spares(spares_percent))
    reach_of = reach_by_kind(reach)
    models = {
        'spine': _model(spine_device_type),
        'leaf': _model(leaf_device_type),
        'server': _model(server_device_type),
        'management': _model(management_device_type),
    }
    roles = Counter(n.role for n in plan.nodes)
    _switches(plan, roles, models, lines)
    _management_network(plan, models['management'], lines)
    _optics_and_cables(plan, reach_of, breakouts or {}, models, lines)
    _nics(plan, models['server'], lines)
    if plan.design == 'evpn-vxlan':
        licence = 'EVPN/VXLAN feature licence or support (where the NOS needs one)'
        lines.add('licence', licence, roles['spine'] + roles['leaf'], 'one per spine and leaf switch', spares=False)
    tier, reasons = _tier(plan, roles)
    return BillOfMaterials(tuple(lines.lines), lines.percent, tier, reasons, tuple(reach_of.items()))


_ROLE_WORDS = {'spine': 'Spine switch', 'leaf': 'Leaf switch (top of rack)'}


def _switches(plan: Plan, roles: Counter[str], models: Mapping[str, DeviceModel | None], lines: _Lines) -> None:
    """One line per switch role, named by its device type (manufacturer, model, part number), with the speeds its
    links use."""
    role_of = {n.name: n.role for n in plan.nodes}
    for role, words in _ROLE_WORDS.items():
        model = models[role]
        speeds = sorted(
            {link.speed for link in plan.links if role in (role_of.get(link.a_node), role_of.get(link.b_node))}
        )
        note = 'ports used at ' + ', '.join(f'{s}G' for s in speeds) if speeds else ''
        item = f'{words}: {model.label if model and model.label else "device type not chosen"}'
        lines.add('switch', item, roles[role], note, part_number=model.ordering_number if model else '')


def management_ports(plan: Plan) -> tuple[int, int]:
    """``(BMC ports, switch management ports)`` the management switch takes: every BMC not on a leaf access port,
    and every spine's and leaf's management port. ``plan.oob``, when planned, cabled exactly these."""
    bmcs = sum(1 for a in plan.attachments if a.bmc is None)
    return bmcs, sum(1 for n in plan.nodes if n.role in ('spine', 'leaf'))


def _management_network(plan: Plan, model: DeviceModel | None, lines: _Lines) -> None:
    """The management (out-of-band) switches and their copper patch cables: from the plan's management network when
    it plans one, else counted from the BMCs and switch management ports (the fabric then plans none)."""
    bmcs, switch_ports = management_ports(plan)
    oob = plan.oob
    per_switch = (model.access_ports if model else 0) or MANAGEMENT_PORTS
    if oob is not None:
        count, planned = len(oob.switches), 'planned: the apply creates it and cables every port'
    else:
        count = math.ceil((bmcs + switch_ports) / per_switch)
        planned = 'not planned by the fabric (no management switch type chosen): buy and cable it'
    if not bmcs + switch_ports:
        return
    name = model.label if model and model.label else 'device type not chosen'
    note = f'{bmcs} server BMCs and {switch_ports} switch management ports, {per_switch} ports each; {planned}'
    part_number = model.ordering_number if model else ''
    lines.add('switch', f'Management switch (out of band): {name}', count, note, part_number=part_number)
    cable = 'Cat6 copper patch cable (1000BASE-T), in the rack (up to 3 m)'
    lines.add('cable', cable, bmcs, 'BMC to management switch')
    lines.add('cable', cable, switch_ports, 'switch management port to management switch')


def _form(models: Mapping[str, DeviceModel | None], role: str, port: str, speed: int) -> str:
    """The pluggable form factor of ``port`` on a ``role`` device: from its device type's interface type, else the
    speed's usual one."""
    model = models.get(role)
    type_ = model.ports.get(port, '') if model else ''
    usual = DEFAULT_FORM.get(speed, f'{speed}G')
    return FORMS.get(type_.rsplit('-', 1)[-1], usual) if type_ else usual


def _ends(link: Link, role_of: Mapping[str, str]) -> Iterable[tuple[str, str]]:
    """``(role, port)`` of both ends; a server end is the ``server`` role."""
    for node, port in ((link.a_node, link.a_interface), (link.b_node, link.b_interface)):
        yield role_of.get(node, 'server'), port


def _optics_and_cables(
    plan: Plan,
    reach_of: Mapping[str, str],
    breakouts: Breakouts,
    models: Mapping[str, DeviceModel | None],
    lines: _Lines,
) -> None:
    """Per link its medium by speed and reach (:func:`medium`): a DAC, AOC or copper cable, or two optics and a
    fibre. Links on a broken-out port are left to :func:`_breakout_cables`."""
    role_of = {n.name: n.role for n in plan.nodes}
    groups: dict[tuple[str, str, str, int], list[Link]] = defaultdict(list)  # (reach, node, parent, lanes) → links
    for link in plan.links:
        reach = reach_of.get(link.kind, SAME_RACK)
        lane = _lane_end(link, role_of, breakouts)
        if lane is not None:
            groups[(reach, *lane)].append(link)
            continue
        kind, optic, cable = medium(link.speed, reach)
        forms = [_form(models, role, port, link.speed) for role, port in _ends(link, role_of)]
        words = KIND_WORDS.get(link.kind, link.kind)
        where = REACH[reach]
        if kind == 'optical':
            for form in forms:
                lines.add('optic', f'{optic} {form} optic', 1, f'{words}, {where}')
            lines.add('cable', f'{link.speed}G {cable}, {where}', 1, words)
        elif kind == 'copper':
            lines.add('cable', f'{cable}, {where}', 1, words)
        else:
            lines.add('cable', f'{link.speed}G {forms[0]} {cable}, {where}', 1, words)
    _breakout_cables(groups, models, role_of, lines)


def _lane_end(link: Link, role_of: Mapping[str, str], breakouts: Breakouts) -> tuple[str, str, int] | None:
    """``(node, parent port, lanes)`` of the link's end on a broken-out port (the a end first), None when neither is
    on one."""
    for node, port in ((link.a_node, link.a_interface), (link.b_node, link.b_interface)):
        lane = breakouts.get(role_of.get(node, ''), {}).get(port)
        if lane is not None:
            return node, lane[0], lane[1]
    return None


def _breakout_cables(
    groups: Mapping[tuple[str, str, str, int], list[Link]],
    models: Mapping[str, DeviceModel | None],
    role_of: Mapping[str, str],
    lines: _Lines,
) -> None:
    """One breakout cable per broken-out port with a lane in use, by mode and reach: a breakout DAC in the rack (an
    AOC to the next rack); further a fibre harness, one optic on the parent and one per lane in use."""
    for (reach, node, parent, lanes), links in sorted(groups.items(), key=lambda item: item[0]):
        speed = links[0].speed
        mode, where = f'{lanes}x{speed}G', REACH[reach]
        parent_form = _form(models, role_of.get(node, ''), parent, lanes * speed)
        note = f'{KIND_WORDS.get(links[0].kind, links[0].kind)} on broken-out ports'
        kind, optic, _cable = medium(speed, reach)
        if kind in ('dac', 'aoc', 'copper'):
            cable = 'breakout DAC' if kind != 'aoc' else 'breakout AOC'
            lines.add('cable', f'{mode} {cable}, {parent_form} to {lanes}x {DEFAULT_FORM.get(speed)}, {where}', 1, note)
            continue
        parent_optic = medium(lanes * speed, reach)[1]
        lines.add('cable', f'{mode} breakout fibre harness (MPO to {lanes}x duplex LC), {where}', 1, note)
        lines.add('optic', f'{parent_optic} {parent_form} optic (breakout parent)', 1, note)
        lines.add('optic', f'{optic} {DEFAULT_FORM.get(speed)} optic (breakout lane)', len(links), note)


def _nics(plan: Plan, server: DeviceModel | None, lines: _Lines) -> None:
    """The servers' bonded and RDMA NIC ports, by speed and form factor, with the count per server."""
    speed = {(link.a_node, link.a_interface): link.speed for link in plan.links}
    nics: Counter[tuple[str, int]] = Counter()
    for a in plan.attachments:
        for use, ports in (('bonded data NIC port', a.members), ('RDMA NIC port', a.rdma)):
            for leaf, port in ports:
                nics[(use, speed.get((leaf, port), 0))] += 1
    servers = len(plan.attachments)
    server_type = server.label if server and server.label else 'server type not chosen'
    for (use, nic_speed), count in sorted(nics.items()):
        per_server = f'{count / servers:g} per server' if servers else ''
        form = DEFAULT_FORM.get(nic_speed, '')
        lines.add('nic', f'{nic_speed}G {form} {use}', count, f'{per_server} ({server_type})')


def _racks(plan: Plan) -> int:
    """Racks: each MLAG or EVPN multihoming leaf pair, and each single leaf."""
    leaves = [n for n in plan.nodes if n.role == 'leaf']
    pairs = {frozenset((n.name, n.mlag_peer or n.mh_peer)) for n in leaves if n.mlag_peer or n.mh_peer}
    return len(leaves) - len(pairs)


def _tier(plan: Plan, roles: Counter[str]) -> tuple[Tier, tuple[str, ...]]:
    """The guide's tier by :data:`TIER_RULE` and the facts of the plan that decided it (see docs/traffic.md)."""
    starter, balanced, expandable = TIERS
    top = max((link.speed for link in plan.links), default=0)
    gpus = sum(1 for a in plan.attachments if a.kind == 'gpu')
    racks = _racks(plan)
    rdma = sum(len(a.rdma) for a in plan.attachments)
    tenants = len(plan.vrfs)
    several = f'{racks} racks (leaf pairs or single leaves): "multiple leaf pairs", "multiple racks"'
    expandable_because = [
        *([several] if racks > 1 else []),
        *([f'links at {top}G: "100/400G optics"'] if top >= 400 else []),
        *([f'{gpus} GPU servers: more than the 8 the Balanced tier fits'] if gpus > 8 else []),
        *([f'{tenants} tenants: "tenant separation"'] if tenants > 1 else []),
    ]
    if expandable_because:
        return expandable, tuple(expandable_because)
    if top <= 25 and not roles['spine'] and not rdma:
        return starter, (
            f'one rack of {roles["leaf"]} leaves',
            f'links at {top}G at most (25GbE switches)',
            'no spines',
            'no RDMA NICs (TCP workloads)',
        )
    spines = (
        f'{roles["spine"]} spines: the guide puts two spines on its first design, so spines alone do not make '
        'a fabric Expandable'
        if roles['spine']
        else 'no spines'
    )
    return balanced, (
        f'one rack: one leaf pair of {roles["leaf"]} leaves' if roles['leaf'] > 1 else 'one rack: one leaf',
        f'links up to {top}G (25/100GbE leaves and uplinks)',
        f'{gpus} GPU servers (the guide: 4–8)',
        spines,
        *([f"{rdma} RDMA NIC ports in one rack: the guide's own 4-node cluster has them"] if rdma else []),
    )
