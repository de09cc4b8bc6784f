"""The traffic matrix (pure: the standard library only): flows between server groups, laid on a :class:`Plan`.

Model (documented in ``docs/traffic.md``):

- A flow's ``gbps`` is what **each server of the source group** sends, split evenly over the servers of the
  destination group (a server never sends to itself).
- A flow rides the servers' data bonds; a flow whose source class is lossless (the plan's VLAN of that name) rides
  the RDMA NICs instead when both servers have them.
- A bond spreads evenly over its members (LACP hashing over many flows). Two servers that share a leaf switch
  locally; otherwise each source leaf sends its share up over **all its uplinks evenly** (ECMP across the spines)
  and each destination leaf receives its share down over all its uplinks evenly. A leaf without uplinks (the MLAG
  design) reaches its MLAG peer over the peer links (``up``: from the first-named leaf).
- Links are full duplex: every load has an ``up`` (towards the spines / out of the servers) and a ``down``
  direction; utilisation is the larger of the two over the capacity.
- Warnings are data (:class:`PlanWarning`):

  - ``over-capacity``: a load above its capacity with sustained flows alone; ``over-capacity-bursty`` when only the
    bursty flows push it over.
  - ``pfc-headroom``: a lossless class that PFC would have to hold back by rate. PFC headroom is the buffer a port
    keeps for the bytes still in flight while a pause travels back to the sender (sized from cable length and MTU:
    the Cumulus RoCE preset in ``docs/domain.md`` sizes it for 100 m), so it absorbs a pause's round trip, never a
    rate the egress cannot drain. The guide: PFC "only for the RDMA class", ECN "before queues become disasters".
    Rule: on a server port (incast) or on a leaf's uplinks (where the leaf's oversubscription bites), the lossless
    flows (bursty ones at their stated rate: a lossless burst is paused, not dropped) plus the lossy sustained flows
    exceed the capacity in one direction. Lossy bursts do not count: they are dropped or ECN-marked, not paused.
  - ``forbidden-flow``: a flow from a class to a class the security matrix does not let it reach (the allowed
    ``(source, destination)`` pairs are an input: ``facts/security.allowed`` of the fabric's classes).
"""

import csv
import io
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from netbox_aifabric.planner.errors import PlanError
from netbox_aifabric.planner.result import Plan, PlanWarning

__all__ = ('BURSTINESS', 'Flow', 'FlowResult', 'Load', 'TrafficError', 'TrafficResult', 'traffic_matrix')

BURSTINESS = ('sustained', 'bursty')
SERVER_LINKS = ('server', 'rdma', 'rail', 'bmc')
ALL = 'all'
KIND_ORDER = {'server-port': 0, 'leaf-downlinks': 1, 'uplink': 2, 'peer-link': 3, 'spine': 4}
UP, DOWN = 0, 1
EPSILON = 1e-9

Ports = list[tuple[str, int]]  # (leaf, speed) of a server's bond members or RDMA NICs


class TrafficError(PlanError):
    """A flow the matrix cannot place: ``field`` is ``flows[i].<field>``."""


@dataclass(frozen=True)
class Flow:
    """Each server of ``source_group`` (a server kind of the plan, ``gpu``/``storage``, or ``all``) sends ``gbps``
    Gbit/s to the servers of ``destination_group``; ``source_class``/``destination_class`` name traffic classes."""

    source_group: str
    destination_group: str
    gbps: float
    burstiness: str = 'sustained'
    source_class: str | None = None
    destination_class: str | None = None
    name: str = ''


@dataclass(frozen=True)
class Load:
    """The load on one element: ``kind`` is ``server-port`` (a server's bond or RDMA NICs: ``gpu1 bond``,
    ``gpu1 RDMA``), ``leaf-downlinks`` (all server ports of a leaf), ``uplink`` (one leaf–spine link), ``peer-link``
    (the MLAG peer links of a pair without uplinks: ``up`` from the first-named leaf) or ``spine``; Gbit/s per
    direction. ``sustained`` and ``lossless``: the busier direction counting those flows only."""

    kind: str
    element: str
    capacity: float
    up: float
    down: float
    sustained: float
    lossless: float = 0.0

    @property
    def peak(self) -> float:
        """The busier direction."""
        return max(self.up, self.down)

    @property
    def utilisation(self) -> float | None:
        """The busier direction over the capacity (None for an element without capacity)."""
        return self.peak / self.capacity if self.capacity else None


@dataclass(frozen=True)
class FlowResult:
    """One flow laid on the plan: its source servers, what it puts on the fabric and the part crossing leaves."""

    flow: Flow
    servers: int  # source servers
    total_gbps: float  # what the flow puts on the fabric: servers × gbps
    cross_leaf_gbps: float  # the part that crosses leaves (through the spines)

    @property
    def crosses_leaves(self) -> bool:
        """Whether any of the flow goes through the spines."""
        return self.cross_leaf_gbps > 0


LOAD_COLUMNS = ('kind', 'element', 'capacity', 'up', 'down', 'sustained', 'lossless', 'utilisation')


@dataclass(frozen=True)
class TrafficResult:
    """The matrix: every flow's result, the loads per element (server ports, leaves, uplinks, spines), warnings."""

    flows: tuple[FlowResult, ...]
    loads: tuple[Load, ...]
    warnings: tuple[PlanWarning, ...]

    def by_kind(self, kind: str) -> tuple[Load, ...]:
        """The loads of one kind, in the matrix's order."""
        return tuple(load for load in self.loads if load.kind == kind)

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        """A JSON-ready dict: ``flows``, ``loads`` (with ``peak`` and ``utilisation``) and ``warnings``."""
        return {
            'flows': [
                asdict(r.flow)
                | {'servers': r.servers, 'total_gbps': r.total_gbps, 'cross_leaf_gbps': r.cross_leaf_gbps}
                | {'crosses_leaves': r.crosses_leaves}
                for r in self.flows
            ],
            'loads': [asdict(load) | {'peak': load.peak, 'utilisation': load.utilisation} for load in self.loads],
            'warnings': [asdict(w) for w in self.warnings],
        }

    def to_csv(self) -> str:
        """The loads as CSV (NetBox's export style: a header row, then one row per element, Gbit/s per direction;
        ``utilisation`` the busier direction over the capacity, empty without a capacity)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator='\n')
        writer.writerow(LOAD_COLUMNS)
        for load in self.loads:
            utilisation = '' if load.utilisation is None else f'{load.utilisation:.6g}'
            row = (load.capacity, load.up, load.down, load.sustained, load.lossless)
            writer.writerow([load.kind, load.element, *(f'{x:g}' for x in row), utilisation])
        return out.getvalue()


@dataclass
class _Tally:
    """What one element carries so far, per direction: all flows, sustained ones, lossless ones and both."""

    capacity: float
    total: list[float] = field(default_factory=lambda: [0.0, 0.0])
    sustained: list[float] = field(default_factory=lambda: [0.0, 0.0])
    lossless: list[float] = field(default_factory=lambda: [0.0, 0.0])
    lossless_sustained: list[float] = field(default_factory=lambda: [0.0, 0.0])

    def lossy_sustained(self, direction: int) -> float:
        """Sustained Gbit/s of the lossy classes in ``direction``."""
        return self.sustained[direction] - self.lossless_sustained[direction]


@dataclass(frozen=True)
class _Kind:
    """How one flow is carried: sustained or bursty, lossless or not."""

    sustained: bool
    lossless: bool


class _Tallies:
    """The tallies of every element, keyed by ``(kind, element)``."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str], _Tally] = {}

    def add(self, key: tuple[str, str], capacity: float, direction: int, gbps: float, kind: _Kind) -> None:
        """Put ``gbps`` on element ``key`` in ``direction``."""
        tally = self.by_key.setdefault(key, _Tally(capacity))
        tally.total[direction] += gbps
        if kind.sustained:
            tally.sustained[direction] += gbps
        if kind.lossless:
            tally.lossless[direction] += gbps
            if kind.sustained:
                tally.lossless_sustained[direction] += gbps


@dataclass(frozen=True)
class _Fabric:
    """The plan digested for the matrix: server groups and ports, uplinks per leaf, capacities, lossless classes."""

    groups: dict[str, list[str]]
    bonds: dict[str, Ports]
    rdma: dict[str, Ports]
    lossless: frozenset[str]
    uplinks: dict[str, list[tuple[str, str, int]]]  # leaf → (element, spine, speed)
    spine_capacity: dict[str, float]
    leaf_capacity: dict[str, float]  # all server-facing ports of a leaf
    ratio: dict[str, float | None]  # leaf → its oversubscription (downlink / uplink)
    peer_links: dict[frozenset[str], tuple[str, float]]  # an MLAG pair → (element, capacity of its peer links)


def _digest(plan: Plan) -> _Fabric:
    """The plan's servers, ports and capacities as the matrix needs them."""
    speed = {(link.a_node, link.a_interface): link.speed for link in plan.links}
    groups: dict[str, list[str]] = {'gpu': [], 'storage': [], ALL: []}
    for a in plan.attachments:
        groups.setdefault(a.kind, []).append(a.server)
        groups[ALL].append(a.server)
    uplinks: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    spine_capacity: dict[str, float] = defaultdict(float)
    leaf_capacity: dict[str, float] = defaultdict(float)
    for link in plan.links:
        if link.kind in SERVER_LINKS:
            leaf_capacity[link.a_node] += link.speed
        if link.kind == 'uplink':
            element = f'{link.b_node}:{link.b_interface} – {link.a_node}:{link.a_interface}'
            uplinks[link.b_node].append((element, link.a_node, link.speed))
            spine_capacity[link.a_node] += link.speed
    peers: dict[frozenset[str], float] = defaultdict(float)
    for link in plan.links:
        if link.kind == 'mlag-peer':
            peers[frozenset((link.a_node, link.b_node))] += link.speed
    return _Fabric(
        peer_links={pair: (' – '.join(sorted(pair)), speed) for pair, speed in peers.items()},
        groups=groups,
        bonds={a.server: [(leaf, speed.get((leaf, port), 0)) for leaf, port in a.members] for a in plan.attachments},
        rdma={a.server: [(leaf, speed.get((leaf, port), 0)) for leaf, port in a.rdma] for a in plan.attachments},
        lossless=frozenset(v.name for v in plan.vlans if v.lossless),
        uplinks=dict(uplinks),
        spine_capacity=dict(spine_capacity),
        leaf_capacity=dict(leaf_capacity),
        ratio={c.leaf: c.ratio for c in plan.capacity},
    )


def _check(i: int, flow: object, groups: dict[str, list[str]]) -> Flow:
    """``flow`` itself when the matrix can place it; else a :class:`TrafficError` naming ``flows[i].<field>``."""
    where = f'flows[{i}]'
    if not isinstance(flow, Flow):
        raise TrafficError(where, f'expected a Flow, got {type(flow).__name__}')
    for name in ('source_group', 'destination_group'):
        value = getattr(flow, name)
        if not isinstance(value, str) or value not in groups:
            known = ', '.join(sorted(groups))
            raise TrafficError(f'{where}.{name}', f'unknown server group {value!r} (known: {known})')
        if not groups[value]:
            raise TrafficError(f'{where}.{name}', f'server group {value!r} has no servers in the plan')
    gbps: object = flow.gbps
    if isinstance(gbps, bool) or not isinstance(gbps, int | float) or not math.isfinite(gbps) or gbps <= 0:
        raise TrafficError(f'{where}.gbps', f'{gbps!r} is not a positive, finite number of Gbit/s')
    if flow.burstiness not in BURSTINESS:
        raise TrafficError(f'{where}.burstiness', f'{flow.burstiness!r} is not one of {", ".join(BURSTINESS)}')
    for name in ('source_class', 'destination_class'):
        if getattr(flow, name) is not None and not isinstance(getattr(flow, name), str):
            raise TrafficError(f'{where}.{name}', 'a traffic class is named by a string')
    return flow


def traffic_matrix(
    plan: Plan, flows: Iterable[object], allowed_pairs: frozenset[tuple[str, str]] | None = None
) -> TrafficResult:
    """Lay ``flows`` on ``plan``. ``allowed_pairs``: the security matrix as ``(source class, destination class)``
    pairs; None skips that check. Raises :class:`TrafficError` for a flow it cannot place."""
    fabric = _digest(plan)
    tallies = _Tallies()
    checked = [_check(i, flow, fabric.groups) for i, flow in enumerate(flows)]
    results = tuple(_lay(i, flow, fabric, tallies) for i, flow in enumerate(checked))
    loads = tuple(
        Load(
            kind,
            element,
            t.capacity,
            round(t.total[UP], 6),
            round(t.total[DOWN], 6),
            round(max(t.sustained), 6),
            round(max(t.lossless), 6),
        )
        for (kind, element), t in sorted(tallies.by_key.items(), key=lambda kv: (KIND_ORDER[kv[0][0]], kv[0][1]))
    )
    warnings = (
        *_forbidden_warnings(checked, allowed_pairs),
        *_capacity_warnings(loads),
        *_pfc_warnings(tallies, fabric),
    )
    return TrafficResult(results, loads, warnings)


def _lay(i: int, flow: Flow, fabric: _Fabric, tallies: _Tallies) -> FlowResult:
    """Put one flow on the tallies, server pair by server pair; its :class:`FlowResult`."""
    lossless = flow.source_class in fabric.lossless
    kind = _Kind(sustained=flow.burstiness == 'sustained', lossless=lossless)
    sources = fabric.groups[flow.source_group]
    cross = 0.0
    for src in sources:
        dsts = [d for d in fabric.groups[flow.destination_group] if d != src]
        if not dsts:
            raise TrafficError(
                f'flows[{i}].destination_group',
                f'{src} has no other server in group {flow.destination_group!r} to send to',
            )
        share = flow.gbps / len(dsts)
        for dst in dsts:
            use_rdma = lossless and bool(fabric.rdma.get(src)) and bool(fabric.rdma.get(dst))
            ports = fabric.rdma if use_rdma else fabric.bonds
            if not ports[src] or not ports[dst]:
                continue  # a server without a bond (not possible in a valid plan)
            label = ' RDMA' if use_rdma else ' bond'
            cross += _place((src + label, ports[src]), (dst + label, ports[dst]), share, kind, fabric, tallies)
    return FlowResult(flow, len(sources), flow.gbps * len(sources), round(cross, 6))


def _place(
    src: tuple[str, Ports], dst: tuple[str, Ports], share: float, kind: _Kind, fabric: _Fabric, tallies: _Tallies
) -> float:
    """Put ``share`` Gbit/s between two servers' ports on the elements; returns the part that crossed leaves."""
    for (server, ports), direction in ((src, UP), (dst, DOWN)):
        tallies.add(('server-port', server), sum(s for _, s in ports), direction, share, kind)
        for leaf, _ in ports:
            capacity = fabric.leaf_capacity.get(leaf, 0.0)
            tallies.add(('leaf-downlinks', leaf), capacity, direction, share / len(ports), kind)
    if {leaf for leaf, _ in src[1]} & {leaf for leaf, _ in dst[1]}:
        return 0.0  # a shared leaf switches it locally
    for src_leaf, _ in src[1]:
        for dst_leaf, _ in dst[1]:
            pair = fabric.peer_links.get(frozenset((src_leaf, dst_leaf)))
            if pair and not fabric.uplinks.get(src_leaf):  # no spines: the MLAG peers switch it over the peer link
                direction = UP if src_leaf < dst_leaf else DOWN
                tallies.add(('peer-link', pair[0]), pair[1], direction, share / len(src[1]) / len(dst[1]), kind)
    for ports, direction in ((src[1], UP), (dst[1], DOWN)):
        for leaf, _ in ports:
            links = fabric.uplinks.get(leaf, [])
            for element, spine, speed in links:
                part = share / len(ports) / len(links)
                tallies.add(('uplink', element), speed, direction, part, kind)
                if direction == UP:  # a spine carries each crossing byte once in and once out
                    tallies.add(('spine', spine), fabric.spine_capacity[spine], UP, part, kind)
                    tallies.add(('spine', spine), fabric.spine_capacity[spine], DOWN, part, kind)
    return share


def _forbidden_warnings(flows: list[Flow], allowed_pairs: frozenset[tuple[str, str]] | None) -> list[PlanWarning]:
    """A flow from a class to another class the security matrix does not let it reach."""
    if allowed_pairs is None:
        return []
    found = []
    for i, flow in enumerate(flows):
        src, dst = flow.source_class, flow.destination_class
        if src and dst and src != dst and (src, dst) not in allowed_pairs:
            found.append(
                PlanWarning(
                    'forbidden-flow',
                    f'flows[{i}]',
                    f'{src} may not reach {dst} (security matrix), yet this flow sends {flow.gbps:g} Gbit/s from '
                    f'{flow.source_group} to {flow.destination_group}',
                )
            )
    return found


def _capacity_warnings(loads: Iterable[Load]) -> list[PlanWarning]:
    """An element carrying more than its capacity: with sustained flows alone, or only with the bursty ones."""
    found = []
    for load in loads:
        if load.peak > load.capacity + EPSILON:
            sustained_over = load.sustained > load.capacity + EPSILON
            code = 'over-capacity' if sustained_over else 'over-capacity-bursty'
            extra = '' if sustained_over else f' (sustained flows alone: {load.sustained:g})'
            found.append(
                PlanWarning(
                    code,
                    f'{load.kind}:{load.element}',
                    f'{load.kind} {load.element} carries {load.peak:g} Gbit/s{extra}; capacity {load.capacity:g}',
                )
            )
    return found


def _leaf_uplinks(tallies: _Tallies, fabric: _Fabric) -> dict[str, _Tally]:
    """Every leaf's uplinks as one element (ECMP spreads evenly, so the sum is what the leaf can pass)."""
    leaf_of = {element: leaf for leaf, links in fabric.uplinks.items() for element, _, _ in links}
    merged: dict[str, _Tally] = {}
    for (kind, element), t in tallies.by_key.items():
        if kind != 'uplink':
            continue
        m = merged.setdefault(leaf_of[element], _Tally(0.0))
        m.capacity += t.capacity
        for name in ('total', 'sustained', 'lossless', 'lossless_sustained'):
            for direction in (UP, DOWN):
                getattr(m, name)[direction] += getattr(t, name)[direction]
    return merged


def _pfc_warnings(tallies: _Tallies, fabric: _Fabric) -> list[PlanWarning]:
    """The ``pfc-headroom`` rule (module docstring) on server ports (incast) and on each leaf's uplinks."""
    places = [
        (f'server-port:{element}', f'{element} (incast)', t)
        for (kind, element), t in sorted(tallies.by_key.items())
        if kind == 'server-port'
    ]
    for leaf, t in sorted(_leaf_uplinks(tallies, fabric).items()):
        ratio = fabric.ratio.get(leaf)
        at = f' at {ratio:g}:1 oversubscription' if ratio is not None else ''
        places.append((f'uplinks:{leaf}', f'{leaf} uplinks{at}', t))
    found = []
    for where, subject, tally in places:
        for direction, name in ((UP, 'up'), (DOWN, 'down')):
            lossless, lossy = tally.lossless[direction], tally.lossy_sustained(direction)
            if lossless > 0 and lossless + lossy > tally.capacity + EPSILON:
                found.append(
                    PlanWarning(
                        'pfc-headroom',
                        where,
                        f'{subject}, {name}: lossless flows {lossless:g} Gbit/s plus lossy sustained {lossy:g} exceed '
                        f'the capacity of {tally.capacity:g}; PFC headroom absorbs only the bytes in flight during a '
                        'pause, so the lossless senders would be paused continuously (pause storms)',
                    )
                )
                break  # one warning per place
    return found
