"""The cabling plan of a fabric: one row per cable, both ends (device, rack, rack position, port), speed, the medium
the bill of materials chooses for it (``planner/bom.medium`` by speed and reach class) and a unique, stable label.

Pure (the plan in, frozen dataclasses out; no Django import), computed once per plan and read by the Cabling tab, its
CSV export and the REST endpoint, so the three cannot disagree.

Labels: ``<code> <A device>:<A port> <B device>:<B port>`` (:data:`KIND_CODES`), built only from the link's kind and
its two ends. Every port is cabled once, so the ends make the label unique; the planner never renumbers an existing
node's name or port when the fabric grows (its allocations depend on stable ids and maximums), so no existing label
changes when a leaf, spine or server is added. A running index over all links would shift on every insertion.

Racks: the plan's rack of a leaf is its leaf pair (MLAG or EVPN multihoming) or the leaf alone, named ``rack<id>``
after its lowest leaf id (``planner/racks.py``); a server sits in the rack of the leaves its bond (else its first NIC)
lands on. The plan places no spine and no management switch in a rack and has no U positions: those come from
NetBox (:func:`with_placement`), where a device is racked there.
"""

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from netbox_aifabric.planner.bom import REACH, SAME_RACK, medium, reach_by_kind
from netbox_aifabric.planner.errors import PlanError
from netbox_aifabric.planner.result import Link, OobLink, Plan

__all__ = (
    'CSV_COLUMNS',
    'KIND_CODES',
    'MANAGEMENT_PORT',
    'SPINE_ROW',
    'CableEnd',
    'CableRow',
    'CablingPlan',
    'cable_label',
    'cabling_plan',
    'link_label',
    'netbox_label',
    'oob_label',
    'with_placement',
)

# Link kind -> the code a label starts with; ``oob-bmc`` and ``oob-management`` are the management network's cables
KIND_CODES: Mapping[str, str] = {
    'uplink': 'UP',
    'mlag-peer': 'PL',
    'server': 'SV',
    'rdma': 'RD',
    'rail': 'RL',
    'bmc': 'BM',
    'oob-bmc': 'OB',
    'oob-management': 'OM',
}
OOB_KINDS = {'bmc': 'oob-bmc', 'switch-management': 'oob-management'}
NETBOX_LABEL_MAX = 100  # NetBox's Cable.label max_length
MANAGEMENT_PORT = 'mgmt0'  # a switch's management port when its device type names none (as the apply names it)
SPINE_ROW = 'spines'  # the group of the cables the plan places in no rack: the spines' management cables
CSV_COLUMNS = (
    'label',
    'rack',
    'kind',
    'speed',
    'a_device',
    'a_rack',
    'a_position',
    'a_port',
    'b_device',
    'b_rack',
    'b_position',
    'b_port',
    'medium',
    'optic',
    'cable',
    'reach',
)
Breakouts = Mapping[str, Mapping[str, tuple[str, int]]]  # role -> {lane port: (parent port, lanes of the parent)}


@dataclass(frozen=True)
class CableEnd:
    """One end of a cable: the device, its port, its rack ('' where neither the plan nor NetBox places it) and its
    rack position in U (None: not known; only NetBox knows it)."""

    device: str
    port: str
    rack: str = ''
    position: float | None = None


@dataclass(frozen=True)
class CableRow:
    """One cable: its label, the plan's rack it is listed under (``rack``: the rack of its leaf or server end), its
    link kind, speed (Gbit/s), both ends, and its medium (``dac``, ``aoc``, ``copper``, ``optical``), optic type,
    cable words and reach class."""

    label: str
    rack: str
    kind: str
    speed: int
    a: CableEnd
    b: CableEnd
    medium: str
    optic: str | None
    cable: str
    reach: str

    @property
    def reach_words(self) -> str:
        return REACH.get(self.reach, self.reach)

    def flat(self) -> dict[str, Any]:
        """The row as one flat dict in :data:`CSV_COLUMNS` order (an end's fields prefixed ``a_`` / ``b_``)."""
        ends = {f'{side}_{key}': getattr(end, key) for side, end in (('a', self.a), ('b', self.b)) for key in _END}
        row = {'label': self.label, 'rack': self.rack, 'kind': self.kind, 'speed': self.speed, **ends}
        return row | {'medium': self.medium, 'optic': self.optic, 'cable': self.cable, 'reach': self.reach}


_END = ('device', 'rack', 'position', 'port')


@dataclass(frozen=True)
class CablingPlan:
    """Every cable, grouped by rack (racks in id order, then :data:`SPINE_ROW`), in the plan's link order within a
    rack; ``racks``: each rack's name and its leaves."""

    rows: tuple[CableRow, ...]
    racks: tuple[tuple[str, tuple[str, ...]], ...]

    def by_rack(self) -> list[tuple[str, list[CableRow]]]:
        """``[(rack, its rows)]`` in order: one printed page per rack."""
        groups: dict[str, list[CableRow]] = {}
        for row in self.rows:
            groups.setdefault(row.rack, []).append(row)
        return list(groups.items())

    def to_dict(self) -> dict[str, Any]:
        return {'racks': [{'name': n, 'leaves': list(leaves)} for n, leaves in self.racks], 'rows': self.flat_rows()}

    def flat_rows(self) -> list[dict[str, Any]]:
        return [row.flat() for row in self.rows]

    def to_csv(self) -> str:
        """A header row, then one row per cable (NetBox's export style); an unknown value is an empty cell."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator='\n')
        writer.writerow(CSV_COLUMNS)
        for row in self.flat_rows():
            writer.writerow(['' if row[c] is None else _cell(row[c]) for c in CSV_COLUMNS])
        return out.getvalue()


def _cell(value: object) -> object:
    """A position as NetBox shows it: ``12`` for 12.0, ``12.5`` for a half unit."""
    return f'{value:g}' if isinstance(value, float) else value


def cable_label(kind: str, a: CableEnd, b: CableEnd) -> str:
    """The cable's label: its kind's code and both ends, A first (the plan's orientation per kind)."""
    return f'{KIND_CODES.get(kind, kind.upper())} {a.device}:{a.port} {b.device}:{b.port}'


def link_label(link: Link) -> str:
    """The label of a plan link's cable."""
    return cable_label(link.kind, CableEnd(link.a_node, link.a_interface), CableEnd(link.b_node, link.b_interface))


def oob_label(link: OobLink, port: str) -> str:
    """The label of a management-network cable: the management switch's port (A) to the device's ``port``."""
    kind = OOB_KINDS.get(link.kind, f'oob-{link.kind}')
    return cable_label(kind, CableEnd(link.switch, link.interface), CableEnd(link.device, port))


def netbox_label(label: str) -> dict[str, str]:
    """``{'label': label}`` for a NetBox cable, or nothing when it is longer than NetBox's Cable.label holds (a cut
    label could name another cable)."""
    return {'label': label} if len(label) <= NETBOX_LABEL_MAX else {}


def plan_racks(plan: Plan) -> tuple[dict[str, str], tuple[tuple[str, tuple[str, ...]], ...]]:
    """``({device: rack}, ((rack, its leaves), ...))``: each leaf's pair (or the leaf alone) named ``rack<lowest
    leaf id>``, each server in the rack of its bond's leaves (else of its first NIC's leaf)."""
    leaves = {n.name: n for n in plan.nodes if n.role == 'leaf'}
    rack_of: dict[str, str] = {}
    members: dict[str, list[str]] = {}
    for leaf in sorted(leaves.values(), key=lambda n: n.id):
        peer = leaves.get(leaf.mlag_peer or leaf.mh_peer or '')
        first = min(leaf.id, peer.id) if peer is not None else leaf.id
        rack_of[leaf.name] = f'rack{first}'
        members.setdefault(rack_of[leaf.name], []).append(leaf.name)
    for attachment in plan.attachments:
        ends = [*attachment.members, *attachment.rdma, *((attachment.bmc,) if attachment.bmc else ())]
        if ends and ends[0][0] in rack_of:
            rack_of[attachment.server] = rack_of[ends[0][0]]
    order = sorted(members, key=lambda name: int(name.removeprefix('rack')))
    return rack_of, tuple((name, tuple(members[name])) for name in order)


def _lane(link: Link, role_of: Mapping[str, str], breakouts: Breakouts) -> tuple[str, str, int] | None:
    """``(node, parent port, lanes)`` of the link's end on a broken-out port (the A end first), else None."""
    for node, port in ((link.a_node, link.a_interface), (link.b_node, link.b_interface)):
        lane = breakouts.get(role_of.get(node, ''), {}).get(port)
        if lane is not None:
            return node, lane[0], lane[1]
    return None


def _link_row(link: Link, rack_of: Mapping[str, str], reach: str, lane: tuple[str, str, int] | None) -> CableRow:
    """One plan link's row, listed under its B end's rack (an uplink's leaf), else its A end's; a lane of a breakout
    says which port it leaves."""
    a = CableEnd(link.a_node, link.a_interface, rack_of.get(link.a_node, ''))
    b = CableEnd(link.b_node, link.b_interface, rack_of.get(link.b_node, ''))
    kind, optic, cable = medium(link.speed, reach)
    if lane is not None:
        node, parent, lanes = lane
        cable = f'{cable}: a leg of the {lanes}x{link.speed}G breakout of {node} {parent}'
    rack = b.rack or a.rack or SPINE_ROW
    return CableRow(link_label(link), rack, link.kind, link.speed, a, b, kind, optic, cable, reach)


def _plan_link_rows(
    plan: Plan, rack_of: Mapping[str, str], reach_of: Mapping[str, str], breakouts: Breakouts
) -> Iterable[CableRow]:
    role_of = {n.name: n.role for n in plan.nodes}
    for link in plan.links:
        yield _link_row(link, rack_of, reach_of.get(link.kind, SAME_RACK), _lane(link, role_of, breakouts))


def _oob_rows(plan: Plan, rack_of: Mapping[str, str], management_ports: Mapping[str, str]) -> Iterable[CableRow]:
    """The management network's copper cables: the management switch's port (A, as the apply cables it) to a BMC or
    a switch's management port (``management_ports``: role -> port name)."""
    if plan.oob is None:
        return
    role_of = {n.name: n.role for n in plan.nodes}
    kind_medium, optic, cable = medium(1, SAME_RACK)
    for link in plan.oob.links:
        yield _oob_row(link, rack_of, role_of, management_ports, (kind_medium, optic, cable))


def _oob_row(
    link: OobLink,
    rack_of: Mapping[str, str],
    role_of: Mapping[str, str],
    management_ports: Mapping[str, str],
    copper: tuple[str, str | None, str],
) -> CableRow:
    port = link.device_interface or management_ports.get(role_of.get(link.device, ''), MANAGEMENT_PORT)
    kind = OOB_KINDS.get(link.kind, f'oob-{link.kind}')
    a = CableEnd(link.switch, link.interface)
    b = CableEnd(link.device, port, rack_of.get(link.device, ''))
    return CableRow(oob_label(link, port), b.rack or SPINE_ROW, kind, 1, a, b, *copper, SAME_RACK)


def cabling_plan(
    plan: Plan,
    reach: Mapping[str, str] | None = None,
    breakouts: Breakouts | None = None,
    management_ports: Mapping[str, str] | None = None,
) -> CablingPlan:
    """The cabling plan of ``plan``: one row per plan link and per management-network cable. ``reach``: link kind ->
    reach class over :data:`planner.bom.DEFAULT_REACH` (the BOM's); ``breakouts``: role -> {lane port: (parent,
    lanes)}; ``management_ports``: role -> the switches' management port name (default :data:`MANAGEMENT_PORT`).

    Raises:
        PlanError: an unknown link kind or reach class in ``reach``; two cables with one label (a device or port name
            holding the label's separators, ``:`` or a space).
    """
    reach_of = reach_by_kind(reach)  # the BOM's reach rules and their errors
    rack_of, racks = plan_racks(plan)
    rows = [
        *_plan_link_rows(plan, rack_of, reach_of, breakouts or {}),
        *_oob_rows(plan, rack_of, management_ports or {}),
    ]
    seen: dict[str, CableRow] = {}
    for row in rows:
        if row.label in seen:
            clash = f'two cables share the label {row.label!r}: a device or port name holds ":" or a space'
            raise PlanError('cabling', clash)
        seen[row.label] = row
    order = {name: index for index, (name, _leaves) in enumerate(racks)}
    rows.sort(key=lambda row: order.get(row.rack, len(order)))  # stable: the plan's order within a rack
    return CablingPlan(tuple(rows), racks)


def with_placement(cabling: CablingPlan, placement: Mapping[str, tuple[str, float | None]]) -> CablingPlan:
    """The plan with each end where NetBox racks its device (``placement``: device -> (rack name, position in U or
    None)); an end whose device NetBox has in no rack keeps the plan's rack. Labels and row racks do not change."""

    def placed(end: CableEnd) -> CableEnd:
        where = placement.get(end.device)
        return end if where is None or not where[0] else replace(end, rack=where[0], position=where[1])

    rows = tuple(replace(row, a=placed(row.a), b=placed(row.b)) for row in cabling.rows)
    return replace(cabling, rows=rows)
