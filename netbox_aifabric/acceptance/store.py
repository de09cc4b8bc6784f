"""Acceptance runs in the database: a lab run stored as a run of kind ``lab``, uploaded tool output judged and stored
as a result. Each in one transaction: a run is stored whole or not at all, a bad upload writes nothing."""

import re

from netbox_aifabric.acceptance.counters import COUNTER_TOOLS, judge_counters
from netbox_aifabric.acceptance.judge import RDMA_TOOLS, TOOLS, UploadError, judge_iperf3, judge_ping, pair_rate
from netbox_aifabric.acceptance.lldp import (
    LLDP_TOOLS,
    device_name,
    device_verdict,
    judge_cabling,
    parse_lldp,
    plan_devices,
)
from netbox_aifabric.acceptance.rdma import RDMA_BW_TOOLS, judge_rdma_bw, judge_rdma_lat, lossless_tos, rdma_pair
from netbox_aifabric.apply import branching
from netbox_aifabric.constants import LLDP_CATEGORIES, LLDP_DEVICE_CATEGORY
from netbox_aifabric.facts.qos import qos_facts
from netbox_aifabric.intake.intent import intent_of
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import (
    AcceptanceResult,
    AcceptanceResultStatusChoices,
    AcceptanceRun,
    AcceptanceRunKindChoices,
)
from netbox_aifabric.planner import PlanError

__all__ = (
    'LAB_STATUS', 'lab_subject', 'lossless_priorities', 'lossless_tos_of', 'store_lab_run',
    'store_verdict', 'upload_lldp', 'upload_result',
)  # fmt: skip

# the lab's check statuses (lab/checks.py) as result statuses
LAB_STATUS = {
    'passed': AcceptanceResultStatusChoices.PASSED,
    'failed': AcceptanceResultStatusChoices.FAILED,
    'not-verified-here': AcceptanceResultStatusChoices.NOT_VERIFIED,
}
_PAIR = re.compile(r'(?P<a>[^\s>]+)(?: \S+)*? (?:->|<-) (?P<b>[^\s(]+)')


def lab_subject(name: str) -> str:
    """``leaf1 -> spine1`` from a lab check's name (``bgp leaf1 -> spine1 10.255.2.0 (uplink)``), '' without a pair.
    The check's first word is its kind, never a switch."""
    words = name.split(' ', 2)
    rest = ' '.join(words[2:]) if words[:2] in (['jumbo', 'ping'], ['loopback', 'ping']) else ' '.join(words[1:])
    if words[:2] == ['evpn', 'type-3']:
        rest = ' '.join(words[2:])
    found = _PAIR.search(rest)
    if not found:
        return ''
    arrow = '<-' if ' <- ' in rest else '->'
    return f'{found["a"]} {arrow} {found["b"]}'


def store_lab_run(fabric, user, result: dict) -> AcceptanceRun:
    """Store a lab result (``LabRun.as_dict()`` with its ``log``) as an acceptance run of kind lab, its checks
    bulk-created; one transaction."""
    with branching.atomic():
        run = AcceptanceRun(
            fabric=fabric,
            kind=AcceptanceRunKindChoices.LAB,
            user=user,
            convergence_seconds=result.get('convergence_seconds'),
            description=f'lab: {len(result.get("namespaces") or {})} switches in network namespaces, '
            f'{result.get("seconds", 0):.1f} s',
            log='\n'.join(result.get('log') or []),
        )
        run.full_clean()
        run.save()
        AcceptanceResult.objects.bulk_create(
            [
                AcceptanceResult(
                    run=run,
                    name=check['name'][:300],
                    category=check['kind'][:50],
                    subject=lab_subject(check['name'])[:200],
                    status=LAB_STATUS[check['status']],
                    expected=check['expected'],
                    seen=check['seen'],
                )
                for check in result.get('checks') or []
            ]
        )
        run.refresh_summary()
    return run


def store_verdict(run: AcceptanceRun, verdict, raw: str) -> AcceptanceResult:
    """Store one judged upload (``judge.Verdict``) on ``run`` and refresh its summary; one transaction."""
    with branching.atomic():
        result = AcceptanceResult(
            run=run,
            name=verdict.name[:300],
            category=verdict.category,
            subject=verdict.subject[:200],
            status=verdict.status,
            expected=verdict.expected,
            seen=verdict.seen,
            value=verdict.value,
            raw=raw,
        )
        result.full_clean()
        result.save()
        run.refresh_summary()
    return result


def upload_result(
    run: AcceptanceRun, tool, output, source=None, destination=None, subject=None, before=None
) -> AcceptanceResult:
    """Judge a tool's output against the run's fabric and store it on ``run`` (a manual run); ``before``: a counter
    snapshot's earlier one. Raises ``UploadError`` (the field, what is wrong) before anything is written."""
    if run.kind != AcceptanceRunKindChoices.MANUAL:
        raise UploadError('run', f'run {run.pk} is a {run.kind} run: upload to a manual run')
    if tool in LLDP_TOOLS:
        if before:
            raise UploadError('before', 'only counter snapshots have a before')
        return upload_lldp(run, tool, output, subject or source)
    if tool not in TOOLS:
        raise UploadError('tool', f'{tool!r} is not one of {", ".join((*TOOLS, *LLDP_TOOLS))}')
    if subject is not None and not isinstance(subject, str):
        raise UploadError('subject', 'a text expected')
    if tool in COUNTER_TOOLS:
        priorities, queues = lossless_priorities(run.fabric), lossless_queues(run.fabric)
        verdict = judge_counters(tool, output, before or None, priorities, subject or '', queues)
        raw = f'# before\n{before}\n# after\n{output}' if before else output
        return store_verdict(run, verdict, raw)
    if before:
        raise UploadError('before', 'only counter snapshots have a before')
    if tool in RDMA_TOOLS:
        return store_verdict(run, _judge_rdma(run.fabric, tool, output, source, destination, subject), output)
    if tool == 'iperf3':
        if not source or not destination:
            missing = [f for f, v in (('source', source), ('destination', destination)) if not v]
            raise UploadError(missing[0], 'iperf3 needs the pair: source and destination (server names of the plan)')
        verdict = judge_iperf3(output, pair_rate(_plan(run.fabric), source, destination))
    else:
        where = subject or (f'{source} -> {destination}' if source and destination else '')
        verdict = judge_ping(output, where[:200])
    return store_verdict(run, verdict, output)


def _judge_rdma(fabric, tool, output, source, destination, subject):
    """perftest's report: a bandwidth against the pair's RDMA link rate (the pair needed), a latency by its tail;
    both in the lossless class's ToS where the report prints one."""
    tos = lossless_tos_of(fabric)
    if tool in RDMA_BW_TOOLS:
        if not source or not destination:
            missing = [f for f, v in (('source', source), ('destination', destination)) if not v]
            raise UploadError(missing[0], f'{tool} needs the pair: source and destination (<server>:<RDMA NIC>)')
        return judge_rdma_bw(output, rdma_pair(_plan(fabric), source, destination), tos, tool=tool)
    where = subject or (f'{source} -> {destination}' if source and destination else '')
    return judge_rdma_lat(output, where[:200], tos, tool=tool)


def lossless_tos_of(fabric) -> int | None:
    """The ToS of the fabric's lossless class (its QoS profile's RoCE DSCP << 2), None without a lossless class."""
    intent = intent_of(fabric)
    facts = qos_facts(intent.get('qos'), intent.get('traffic_classes') or [])
    return lossless_tos(facts.as_context()) if facts is not None else None


def lossless_priorities(fabric) -> tuple[int, ...]:
    """The PFC (lossless) priorities of the fabric's RoCE QoS profile, as its devices' contexts carry them."""
    qos = intent_of(fabric).get('qos') or {}
    priorities = tuple(qos.get('pfc_priorities') or ())
    if not priorities:
        raise UploadError('tool', f'{fabric} has no lossless (PFC) priority in its QoS profile: nothing to judge')
    return priorities


def lossless_queues(fabric) -> tuple[int, ...]:
    """The egress queues (traffic classes) of the lossless priorities, by the profile's priority -> traffic class
    map as the switches apply it (a priority the map leaves out keeps its own number)."""
    intent = intent_of(fabric)
    facts = qos_facts(intent.get('qos'), intent.get('traffic_classes') or [])
    priorities = lossless_priorities(fabric)
    if facts is None:
        return priorities
    return tuple(sorted({facts.priority_to_tc.get(p, p) for p in priorities}))


def _plan(fabric):
    try:
        return plan_of(fabric)
    except PlanError as e:
        raise UploadError('fabric', f'{fabric} has no valid plan to judge against: {e}') from None


def upload_lldp(run: AcceptanceRun, tool: str, output, device) -> AcceptanceResult:
    """One device's LLDP neighbours (``device``: the plan device it was taken on, a hostname or FQDN) judged with
    every other device's stored upload on the run against the plan's cables: the run's LLDP results (one per planned
    cable, one per unplanned neighbour, one per uploaded device) recomputed in one transaction; the device's result
    returned. The output is parsed (``UploadError``) before anything is written."""
    plan = _plan(run.fabric)
    neighbours = parse_lldp(tool, output)
    if device is not None and not isinstance(device, str):
        raise UploadError('subject', 'a text expected')
    devices = plan_devices(plan)
    if not device or not device.strip():
        raise UploadError('subject', f'{tool} needs the device the output was taken on (a device of the plan)')
    name = device_name(device, devices)
    if name is None:
        known = ', '.join(devices[:8]) + (', ...' if len(devices) > 8 else '')
        raise UploadError('subject', f'{device[:100]!r} is not a device of the plan (devices: {known or "none"})')
    with branching.atomic():
        existing = {(r.category, r.subject): r for r in run.results.filter(category__in=LLDP_CATEGORIES)}
        uploads = {subject: r for (category, subject), r in existing.items() if category == LLDP_DEVICE_CATEGORY}
        views, raws = {}, {}
        for other, result in uploads.items():
            stored_tool = result.name.split(' ', 1)[0]
            try:
                views[other], raws[other] = parse_lldp(stored_tool, result.raw), (stored_tool, result.raw)
            except UploadError:
                continue  # an upload this version no longer reads: as if not uploaded
        views[name], raws[name] = neighbours, (tool, output)
        verdicts = judge_cabling(plan, views)
        verdicts += [device_verdict(raws[d][0], d, views[d], verdicts) for d in sorted(views)]
        _save_lldp(run, verdicts, existing, {d: raw for d, (_, raw) in raws.items()})
        run.refresh_summary()
    return run.results.get(category=LLDP_DEVICE_CATEGORY, subject=name)


_LLDP_FIELDS = ('name', 'status', 'expected', 'seen', 'value', 'raw')


def _save_lldp(run, verdicts, existing, raws) -> None:
    """The verdicts onto the run's LLDP results, matched by (category, subject): updated, created, and the ones no
    verdict names any more (a cable the plan dropped) deleted."""
    keep, create, update = set(), [], []
    for v in verdicts:
        key = (v.category, v.subject[:200])
        keep.add(key)
        fields = {'name': v.name[:300], 'status': v.status, 'expected': v.expected, 'seen': v.seen, 'value': v.value,
                  'raw': raws.get(v.subject, '') if v.category == LLDP_DEVICE_CATEGORY else ''}  # fmt: skip
        result = existing.get(key)
        if result is None:
            create.append(AcceptanceResult(run=run, category=v.category, subject=key[1], **fields))
            continue
        for field, value in fields.items():
            setattr(result, field, value)
        update.append(result)
    AcceptanceResult.objects.bulk_create(create)
    AcceptanceResult.objects.bulk_update(update, _LLDP_FIELDS)
    gone = [r.pk for key, r in existing.items() if key not in keep]
    if gone:
        AcceptanceResult.objects.filter(pk__in=gone).delete()
