"""The bill of materials (pure: the standard library only): what to buy for a :class:`Plan`, and the guide's tier.

Assumptions (documented in ``docs/traffic.md``): each link kind has a reach class, ``same-rack`` or ``rack-to-rack``
(the ``reach`` argument; by default leaf–spine uplinks run rack to rack and every other link, server bonds, RDMA NICs,
BMC ports and the MLAG peer link, stays in its rack). A rack-to-rack link takes two optics and a fibre; a same-rack
link one DAC, or a copper patch cable below 10G. Spares are a percentage of each hardware line, rounded up; licences
have none. The tiers are the guide's planning ranges, never prices.
"""

import csv
import io
import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from .errors import PlanError
from .result import Link, Plan

__all__ = (
    'CSV_COLUMNS',
    'DEFAULT_REACH',
    'LINK_KINDS',
    'REACH_CLASSES',
    'TIERS',
    'BillOfMaterials',
    'BomLine',
    'Tier',
    'bill_of_materials',
)

Breakouts = Mapping[str, Mapping[str, tuple[str, int]]]  # role → {lane port: (parent port, lanes of the parent)}
CSV_COLUMNS = ('category', 'item', 'quantity', 'spares', 'total', 'note')
SAME_RACK, RACK_TO_RACK = 'same-rack', 'rack-to-rack'
REACH_CLASSES = (SAME_RACK, RACK_TO_RACK)
LINK_KINDS = ('uplink', 'mlag-peer', 'server', 'rdma', 'rail', 'bmc')
DEFAULT_REACH: Mapping[str, str] = {kind: RACK_TO_RACK if kind == 'uplink' else SAME_RACK for kind in LINK_KINDS}


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


@dataclass(frozen=True)
class BomLine:
    """``category``: switch, optic, cable, nic or licence; ``quantity`` what the plan uses, ``spares`` on top."""

    category: str
    item: str
    quantity: int
    spares: int
    note: str = ''

    @property
    def total(self) -> int:
        """What to order: the quantity and its spares."""
        return self.quantity + self.spares


@dataclass(frozen=True)
class BillOfMaterials:
    """The lines, the spares percentage they used, the reach class per link kind, and the guide's tier with why."""

    lines: tuple[BomLine, ...]
    spares_percent: float
    tier: Tier
    tier_reasons: tuple[str, ...]
    reach: tuple[tuple[str, str], ...] = tuple(DEFAULT_REACH.items())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``lines`` (with ``total``), ``spares_percent``, ``reach``, ``tier``, ``tier_reasons``."""
        return {
            'lines': [asdict(line) | {'total': line.total} for line in self.lines],
            'spares_percent': self.spares_percent,
            'reach': dict(self.reach),
            'tier': asdict(self.tier),
            'tier_reasons': list(self.tier_reasons),
        }

    def to_csv(self) -> str:
        """The lines as CSV (NetBox's export style: a header row, then one row per line), and last the guide's tier in
        the same columns: category ``tier``, its name, no quantities, its planning range and reasons as the note."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator='\n')
        writer.writerow(CSV_COLUMNS)
        for line in self.lines:
            writer.writerow([line.category, line.item, line.quantity, line.spares, line.total, line.note])
        note = f'planning range (not a price): {self.tier.budget}; ' + '; '.join(self.tier_reasons)
        writer.writerow(['tier', self.tier.name, '', '', '', note])
        return out.getvalue()


class _Lines:
    """The lines collected so far, each with its spares at one percentage."""

    def __init__(self, spares_percent: float) -> None:
        self.percent = spares_percent
        self.lines: list[BomLine] = []

    def add(self, category: str, item: str, quantity: int, note: str = '', spares: bool = True) -> None:
        """A line of ``quantity`` (none when zero); spares rounded up unless ``spares`` is False."""
        if quantity:
            extra = math.ceil(quantity * self.percent / 100 - 1e-9) if spares else 0
            self.lines.append(BomLine(category, item, quantity, extra, note))


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


def _check_reach(reach: Mapping[str, str] | None) -> dict[str, str]:
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


def bill_of_materials(
    plan: Plan,
    *,
    spine_device_type: str | None = None,
    leaf_device_type: str | None = None,
    server_device_type: str | None = None,
    spares_percent: float = 10,
    reach: Mapping[str, str] | None = None,
    breakouts: Breakouts | None = None,
) -> BillOfMaterials:
    """The BOM of ``plan``; device types are names (the fabric's choice), None when not chosen; ``reach`` overrides
    :data:`DEFAULT_REACH` per link kind; ``breakouts``: role → {lane port: (parent port, lanes)}, the port map's."""
    lines = _Lines(_check_spares(spares_percent))
    reach_of = _check_reach(reach)
    roles = Counter(n.role for n in plan.nodes)
    _switches(plan, roles, {'spine': spine_device_type, 'leaf': leaf_device_type}, lines)
    _optics_and_cables(plan, reach_of, breakouts or {}, lines)
    _nics(plan, server_device_type, lines)
    if plan.design == 'evpn-vxlan':
        licence = 'EVPN/VXLAN feature licence or support (where the NOS needs one)'
        lines.add('licence', licence, roles['spine'] + roles['leaf'], 'one per switch', spares=False)
    tier, reasons = _tier(plan, roles)
    return BillOfMaterials(tuple(lines.lines), lines.percent, tier, reasons, tuple(reach_of.items()))


def _switches(plan: Plan, roles: Counter[str], device_types: dict[str, str | None], lines: _Lines) -> None:
    """One line per switch role, named by its device type, with the speeds its links use."""
    role_of = {n.name: n.role for n in plan.nodes}
    for role, device_type in device_types.items():
        speeds = sorted(
            {link.speed for link in plan.links if role in (role_of.get(link.a_node), role_of.get(link.b_node))}
        )
        note = 'ports used at ' + ', '.join(f'{s}G' for s in speeds) if speeds else ''
        lines.add('switch', f'{role} switch: {device_type or "device type not chosen"}', roles[role], note)


def _optics_and_cables(plan: Plan, reach_of: Mapping[str, str], breakouts: Breakouts, lines: _Lines) -> None:
    """Rack-to-rack links: two optics and a fibre each; same-rack links: a DAC (copper patch below 10G); by speed.
    Links on a broken-out port are left to :func:`_breakout_cables`."""
    role_of = {n.name: n.role for n in plan.nodes}
    by_reach: dict[str, Counter[tuple[int, str]]] = {SAME_RACK: Counter(), RACK_TO_RACK: Counter()}
    groups: dict[tuple[str, str, str, int], list[Link]] = defaultdict(list)  # (reach, node, parent, lanes) → links
    for link in plan.links:
        reach = reach_of.get(link.kind, SAME_RACK)
        lane = _lane_end(link, role_of, breakouts)
        if lane is None:
            by_reach[reach][(link.speed, link.kind)] += 1
        else:
            groups[(reach, *lane)].append(link)
    for speed in sorted({s for s, _ in by_reach[RACK_TO_RACK]}):
        count, kinds = _at_speed(by_reach[RACK_TO_RACK], speed)
        lines.add('optic', f'{speed}G optic (rack to rack)', 2 * count, f'{kinds} × 2 ends')
        lines.add('cable', f'{speed}G fibre patch cable (rack to rack)', count, kinds)
    for speed in sorted({s for s, _ in by_reach[SAME_RACK]}):
        count, kinds = _at_speed(by_reach[SAME_RACK], speed)
        item = f'{speed}G DAC (same rack)' if speed >= 10 else f'{speed}G copper patch cable (same rack)'
        lines.add('cable', item, count, kinds)
    _breakout_cables(groups, lines)


def _lane_end(link: Link, role_of: Mapping[str, str], breakouts: Breakouts) -> tuple[str, str, int] | None:
    """``(node, parent port, lanes)`` of the link's end on a broken-out port (the a end first), None when neither is
    on one."""
    for node, port in ((link.a_node, link.a_interface), (link.b_node, link.b_interface)):
        lane = breakouts.get(role_of.get(node, ''), {}).get(port)
        if lane is not None:
            return node, lane[0], lane[1]
    return None


def _breakout_cables(groups: Mapping[tuple[str, str, str, int], list[Link]], lines: _Lines) -> None:
    """One breakout cable per broken-out port with a lane in use, by mode and reach: a DAC in the rack; rack to rack a
    fibre, one optic on the parent and one per lane in use."""
    per_mode: Counter[tuple[str, int, int]] = Counter()  # (reach, lanes, lane speed) → ports broken out
    lanes_used: Counter[tuple[str, int, int]] = Counter()
    for (reach, _node, _parent, lanes), links in groups.items():
        per_mode[(reach, lanes, links[0].speed)] += 1
        lanes_used[(reach, lanes, links[0].speed)] += len(links)
    for (reach, lanes, speed), ports in sorted(per_mode.items()):
        mode, used = f'{lanes}x{speed}G', lanes_used[(reach, lanes, speed)]
        note = f'{ports} broken-out ports, {used} lanes in use'
        if reach == SAME_RACK:
            lines.add('cable', f'{mode} breakout DAC (same rack)', ports, note)
            continue
        lines.add('cable', f'{mode} breakout fibre (rack to rack)', ports, note)
        lines.add('optic', f'{lanes * speed}G optic for a {mode} breakout (rack to rack)', ports, note)
        lines.add('optic', f'{speed}G optic on a breakout lane (rack to rack)', used, note)


def _at_speed(counts: Counter[tuple[int, str]], speed: int) -> tuple[int, str]:
    """How many links run at ``speed`` and a note naming them by kind (``8 uplink``, ``10 server, 2 mlag-peer``)."""
    count = sum(n for (s, _), n in counts.items() if s == speed)
    kinds = ', '.join(f'{n} {k}' for (s, k), n in sorted(counts.items()) if s == speed)
    return count, kinds


def _nics(plan: Plan, server_device_type: str | None, lines: _Lines) -> None:
    """The servers' bonded and RDMA NIC ports, by speed, with the count per server."""
    speed = {(link.a_node, link.a_interface): link.speed for link in plan.links}
    nics: Counter[tuple[str, int]] = Counter()
    for a in plan.attachments:
        for use, ports in (('bonded data NIC port', a.members), ('RDMA NIC port', a.rdma)):
            for leaf, port in ports:
                nics[(use, speed.get((leaf, port), 0))] += 1
    servers = len(plan.attachments)
    for (use, nic_speed), count in sorted(nics.items()):
        per_server = f'{count / servers:g} per server' if servers else ''
        lines.add(
            'nic', f'{nic_speed}G {use}', count, f'{per_server} ({server_device_type or "server type not chosen"})'
        )


def _tier(plan: Plan, roles: Counter[str]) -> tuple[Tier, tuple[str, ...]]:
    """The guide's tier for the plan and the reasons, from its spines, leaves, design and link speeds."""
    starter, balanced, expandable = TIERS
    top = max((link.speed for link in plan.links), default=0)
    gpus = sum(1 for a in plan.attachments if a.kind == 'gpu')
    reasons = []
    if roles['spine']:
        reasons.append(f'{roles["spine"]} spines')
    if roles['leaf'] > 2:
        reasons.append(f'{roles["leaf"]} leaves: several racks or leaf pairs')
    if plan.design == 'evpn-vxlan':
        reasons.append('EVPN/VXLAN design')
    if reasons:
        return expandable, tuple(reasons)
    if top <= 25:
        return starter, (f'{roles["leaf"]} leaves in one rack', f'links at {top}G at most (25G only)', 'no spines')
    return balanced, (
        f'{roles["leaf"]} leaves in one rack, no spines',
        f'links up to {top}G (25/100G leaves)',
        f'{gpus} GPU servers',
    )
