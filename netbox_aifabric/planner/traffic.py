"""The traffic matrix (pure: the standard library only): flows between server groups, laid on a :class:`Plan`.

Model (documented in ``docs/traffic.md``):

- A flow's ``gbps`` is what **each server of the source group** sends, split evenly over the servers of the
  destination group (a server never sends to itself).
- A flow rides the servers' data bonds; a flow whose source class is lossless (the plan's VLAN of that name) rides
  the RDMA NICs instead when both servers have them.
- A bond spreads evenly over its members (LACP hashing over many flows). Two servers that share a leaf switch
  locally; otherwise each source leaf sends its share up over **all its uplinks evenly** (ECMP across the spines)
  and each destination leaf receives its share down over all its uplinks evenly.
- Links are full duplex: every load has an ``up`` (towards the spines / out of the servers) and a ``down``
  direction; utilisation is the larger of the two over the capacity.
- Warnings are data: a load above its capacity (``over-capacity`` with sustained flows alone,
  ``over-capacity-bursty`` when only the bursty flows push it over), and a flow between classes the security
  matrix does not allow (``forbidden-flow``; the allowed ``(source, destination)`` pairs are an input).
"""

import math
from collections import defaultdict
from dataclasses import asdict, dataclass

from .errors import PlanError
from .result import Plan, PlanWarning

__all__ = ('BURSTINESS', 'Flow', 'FlowResult', 'Load', 'TrafficError', 'TrafficResult', 'traffic_matrix')

BURSTINESS = ('sustained', 'bursty')
SERVER_LINKS = ('server', 'rdma', 'rail', 'bmc')
ALL = 'all'


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
    ``gpu1 RDMA``), ``leaf-downlinks`` (all
    server ports of a leaf), ``uplink`` (one leaf–spine link) or ``spine``; Gbit/s per direction."""

    kind: str
    element: str
    capacity: float
    up: float
    down: float
    sustained: float  # the larger direction counting sustained flows only

    @property
    def peak(self) -> float:
        return max(self.up, self.down)

    @property
    def utilisation(self) -> float | None:
        return self.peak / self.capacity if self.capacity else None


@dataclass(frozen=True)
class FlowResult:
    flow: Flow
    servers: int  # source servers
    total_gbps: float  # what the flow puts on the fabric: servers × gbps
    cross_leaf_gbps: float  # the part that crosses leaves (through the spines)

    @property
    def crosses_leaves(self) -> bool:
        return self.cross_leaf_gbps > 0


@dataclass(frozen=True)
class TrafficResult:
    flows: tuple[FlowResult, ...]
    loads: tuple[Load, ...]
    warnings: tuple[PlanWarning, ...]

    def by_kind(self, kind: str) -> tuple[Load, ...]:
        return tuple(load for load in self.loads if load.kind == kind)

    def to_dict(self) -> dict:
        return {
            'flows': [
                {**asdict(r.flow), **{k: getattr(r, k) for k in ('servers', 'total_gbps', 'cross_leaf_gbps')}}
                | {'crosses_leaves': r.crosses_leaves}
                for r in self.flows
            ],
            'loads': [asdict(load) | {'peak': load.peak, 'utilisation': load.utilisation} for load in self.loads],
            'warnings': [asdict(w) for w in self.warnings],
        }


def _check(i: int, flow, groups: dict[str, list[str]]) -> None:
    field = f'flows[{i}]'
    if not isinstance(flow, Flow):
        raise TrafficError(field, f'expected a Flow, got {type(flow).__name__}')
    for name in ('source_group', 'destination_group'):
        value = getattr(flow, name)
        if not isinstance(value, str) or value not in groups:
            known = ', '.join(sorted(groups))
            raise TrafficError(f'{field}.{name}', f'unknown server group {value!r} (known: {known})')
        if not groups[value]:
            raise TrafficError(f'{field}.{name}', f'server group {value!r} has no servers in the plan')
    gbps = flow.gbps
    if isinstance(gbps, bool) or not isinstance(gbps, int | float) or not math.isfinite(gbps) or gbps <= 0:
        raise TrafficError(f'{field}.gbps', f'{gbps!r} is not a positive, finite number of Gbit/s')
    if flow.burstiness not in BURSTINESS:
        raise TrafficError(f'{field}.burstiness', f'{flow.burstiness!r} is not one of {", ".join(BURSTINESS)}')
    for name in ('source_class', 'destination_class'):
        if getattr(flow, name) is not None and not isinstance(getattr(flow, name), str):
            raise TrafficError(f'{field}.{name}', 'a traffic class is named by a string')


def traffic_matrix(plan: Plan, flows, allowed_pairs: frozenset[tuple[str, str]] | None = None) -> TrafficResult:
    """Lay ``flows`` on ``plan``. ``allowed_pairs``: the security matrix as ``(source class, destination class)``
    pairs; None skips that check. Raises :class:`TrafficError` for a flow it cannot place."""
    flows = tuple(flows)
    speed = {(link.a_node, link.a_interface): link.speed for link in plan.links}
    bonds = {a.server: [(leaf, speed.get((leaf, port), 0)) for leaf, port in a.members] for a in plan.attachments}
    rdma = {a.server: [(leaf, speed.get((leaf, port), 0)) for leaf, port in a.rdma] for a in plan.attachments}
    groups: dict[str, list[str]] = defaultdict(list)
    for a in plan.attachments:
        groups[a.kind].append(a.server)
        groups[ALL].append(a.server)
    groups.setdefault('gpu', [])
    groups.setdefault('storage', [])
    lossless = {v.name for v in plan.vlans if v.lossless}
    uplinks: dict[str, list[tuple[str, str, int]]] = defaultdict(list)  # leaf → (element, spine, speed)
    spine_capacity: dict[str, float] = defaultdict(float)
    leaf_capacity: dict[str, float] = defaultdict(float)  # all server-facing ports of a leaf
    for link in plan.links:
        if link.kind in SERVER_LINKS:
            leaf_capacity[link.a_node] += link.speed
        if link.kind == 'uplink':
            element = f'{link.b_node}:{link.b_interface} – {link.a_node}:{link.a_interface}'
            uplinks[link.b_node].append((element, link.a_node, link.speed))
            spine_capacity[link.a_node] += link.speed

    # (kind, element) → [up, down, sustained up, sustained down]
    acc: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    capacity: dict[tuple[str, str], float] = {}

    def add(kind, element, cap, direction, gbps, sustained):
        key = (kind, element)
        capacity.setdefault(key, cap)
        acc[key][direction] += gbps
        if sustained:
            acc[key][direction + 2] += gbps

    results, warnings = [], []
    for i, flow in enumerate(flows):
        _check(i, flow, groups)
        sustained = flow.burstiness == 'sustained'
        sources = groups[flow.source_group]
        cross = 0.0
        for src in sources:
            dsts = [d for d in groups[flow.destination_group] if d != src]
            if not dsts:
                raise TrafficError(
                    f'flows[{i}].destination_group',
                    f'{src} has no other server in group {flow.destination_group!r} to send to',
                )
            share = flow.gbps / len(dsts)
            for dst in dsts:
                use_rdma = flow.source_class in lossless and rdma.get(src) and rdma.get(dst)
                ports = rdma if use_rdma else bonds
                if not ports[src] or not ports[dst]:
                    continue  # a server without a bond (not possible in a valid plan)
                label = ' RDMA' if use_rdma else ' bond'
                cross += _place(
                    (src + label, ports[src]),
                    (dst + label, ports[dst]),
                    share,
                    sustained,
                    uplinks,
                    spine_capacity,
                    leaf_capacity,
                    add,
                )
        results.append(FlowResult(flow, len(sources), flow.gbps * len(sources), round(cross, 6)))
        if allowed_pairs is not None and flow.source_class and flow.destination_class:
            pair = (flow.source_class, flow.destination_class)
            if flow.source_class != flow.destination_class and pair not in allowed_pairs:
                warnings.append(
                    PlanWarning(
                        'forbidden-flow',
                        f'flows[{i}]',
                        f'{flow.source_class} may not reach {flow.destination_class} (security matrix), yet this '
                        f'flow sends {flow.gbps:g} Gbit/s from {flow.source_group} to {flow.destination_group}',
                    )
                )
    order = {'server-port': 0, 'leaf-downlinks': 1, 'uplink': 2, 'spine': 3}
    loads = tuple(
        Load(kind, element, capacity[(kind, element)], *(round(x, 6) for x in (v[0], v[1], max(v[2], v[3]))))
        for (kind, element), v in sorted(acc.items(), key=lambda kv: (order[kv[0][0]], kv[0][1]))
    )
    for load in loads:
        if load.peak > load.capacity + 1e-9:
            code = 'over-capacity' if load.sustained > load.capacity + 1e-9 else 'over-capacity-bursty'
            extra = '' if code == 'over-capacity' else f' (sustained flows alone: {load.sustained:g})'
            warnings.append(
                PlanWarning(
                    code,
                    f'{load.kind}:{load.element}',
                    f'{load.kind} {load.element} carries {load.peak:g} Gbit/s{extra}; capacity {load.capacity:g}',
                )
            )
    return TrafficResult(tuple(results), loads, tuple(warnings))


def _place(src_ports, dst_ports, share, sustained, uplinks, spine_capacity, leaf_capacity, add) -> float:
    """Put ``share`` Gbit/s between two servers' ports on the elements; returns the part that crossed leaves."""
    for (server, ports), direction in ((src_ports, 0), (dst_ports, 1)):
        add('server-port', server, sum(s for _, s in ports), direction, share, sustained)
        for leaf, _ in ports:
            add('leaf-downlinks', leaf, leaf_capacity[leaf], direction, share / len(ports), sustained)
    src_ports, dst_ports = src_ports[1], dst_ports[1]
    if {leaf for leaf, _ in src_ports} & {leaf for leaf, _ in dst_ports}:
        return 0.0
    for ports, direction in ((src_ports, 0), (dst_ports, 1)):
        for leaf, _ in ports:
            links = uplinks.get(leaf, ())
            for element, spine, speed in links:
                part = share / len(ports) / len(links)
                add('uplink', element, speed, direction, part, sustained)
                if direction == 0:
                    add('spine', spine, spine_capacity[spine], 0, part, sustained)
                    add('spine', spine, spine_capacity[spine], 1, part, sustained)
    return share
