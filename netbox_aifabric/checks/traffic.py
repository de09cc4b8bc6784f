"""Traffic rules: the traffic matrix's warnings (``planner/traffic.py``, docs/traffic.md) as compliance findings, one
finding per warning. ``checks.compliance`` lays the fabric's flows on its plan (``traffic.fabric_traffic``) and puts
the warnings and the flows in :class:`~.engine.Facts`; the rules only sort them by code and name their objects. Pure.
"""

import re
from collections.abc import Collection, Iterator, Sequence

from netbox_aifabric.checks.engine import Facts, Finding, Obj, Rule, Skip
from netbox_aifabric.planner import PlanWarning
from netbox_aifabric.planner.traffic import Flow

__all__ = ('RULES', 'warning_objects')

FLOW_FIELD = re.compile(r'^flows\[(\d+)\]$')


def _warnings(facts: Facts, codes: Collection[str]) -> list[PlanWarning]:
    if facts.traffic is None:
        raise Skip(facts.errors.get('traffic') or 'the traffic matrix was not computed')
    return [w for w in facts.traffic if w.code in codes]


def _flow_obj(flow: Flow) -> Obj:
    """A flow of the matrix as the NetBox traffic flow it came from (its ``name`` is the row's pk)."""
    label = f'{flow.source_group} → {flow.destination_group}'
    if flow.source_class or flow.destination_class:
        label += f' ({flow.source_class or "any"} → {flow.destination_class or "any"})'
    pk = int(flow.name) if str(flow.name).isdigit() else None
    return Obj('netbox_aifabric.trafficflow', label, pk=pk)


def _end(part: str) -> Obj:
    """``leaf1:Ethernet65`` is an interface of leaf1; ``gpu1 bond`` or ``spine1`` is a device."""
    if ':' in part:
        device, interface = part.split(':', 1)
        return Obj('dcim.interface', interface, device=device)
    return Obj('dcim.device', part.split(' ')[0])


def warning_objects(field: str, flows: Sequence[Flow] | None) -> tuple[Obj, ...]:
    """The objects a matrix warning is about, from its ``field``: ``flows[i]`` (the flow), ``uplink:<leaf:port> –
    <spine:port>`` (the link's two interfaces), ``<kind>:<element>`` (the device: a server port's server, a leaf's
    downlinks or uplinks, a spine, an MLAG pair's two leaves)."""
    match = FLOW_FIELD.match(field)
    if match:
        index = int(match.group(1))
        return (_flow_obj(flows[index]),) if flows is not None and index < len(flows) else ()
    _kind, _, element = field.partition(':')
    return tuple(_end(part) for part in element.split(' – ') if part)


def _findings(facts: Facts, codes: Collection[str], expected: str) -> Iterator[Finding]:
    for warning in _warnings(facts, codes):
        yield Finding(warning_objects(warning.field, facts.flows), expected, warning.message)


def check_capacity(facts: Facts) -> Iterator[Finding]:
    """No link, port, leaf or spine carries more than its capacity (sustained, or with the bursty flows)."""
    yield from _findings(facts, ('over-capacity', 'over-capacity-bursty'), 'the flows within its capacity')


def check_pfc_headroom(facts: Facts) -> Iterator[Finding]:
    """No lossless class sends more than PFC headroom can absorb where it is carried (incast, oversubscribed
    uplinks)."""
    yield from _findings(facts, ('pfc-headroom',), 'lossless plus lossy sustained flows within the capacity')


def check_forbidden(facts: Facts) -> Iterator[Finding]:
    """No flow from a class to a class the security matrix does not let it reach."""
    yield from _findings(facts, ('forbidden-flow',), 'only flows the security matrix allows')


RULES = (
    Rule(
        'traffic-capacity',
        'traffic',
        'Every link within its capacity',
        'warning',
        'Write down the traffic matrix before you buy switches: a port, uplink or spine above its capacity drops or '
        'queues what the design promised to carry.',
        'More or faster uplinks or spines, servers spread over more leaves, or less traffic on that element.',
        check_capacity,
    ),
    Rule(
        'traffic-pfc-headroom',
        'traffic',
        'Lossless classes within what PFC can absorb',
        'warning',
        'PFC only for the RDMA class, with ECN before queues become disasters: PFC headroom holds a pause round trip, '
        'not a rate the egress cannot drain, so an overloaded lossless class pauses continuously.',
        'Lower the oversubscription of the leaves (more uplinks) or the lossless load; keep lossy sustained traffic '
        'off the RDMA ports.',
        check_pfc_headroom,
    ),
    Rule(
        'traffic-forbidden-flow',
        'traffic',
        'No flow the security matrix forbids',
        'error',
        'Separate storage and RDMA from user access: a planned flow between classes that may not reach each other is '
        'either a wrong matrix or traffic the ACLs will drop.',
        "Remove the flow, or let the destination class be reached from the source class (the class's reachability).",
        check_forbidden,
    ),
)
