"""A compliance result stored as a :class:`~netbox_aifabric.models.ComplianceRun` with its findings as rows (one
transaction, the findings in one ``bulk_create``; each switch's running-config state with the ``config-backup`` rule's
result, as ``switches``), read by the fabric's Compliance tab, its trend and its devices' panels.

A run with a user is stored as a NetBox request of that user would store it: the change log records its creation and
NetBox's event rules see it (e.g. a webhook on compliance runs created with ``failed`` > 0). A scheduled run has no
user, and NetBox's change-log signal needs one (``ObjectChange.save`` reads the user's name): its change records are
written here under the job's name, and its events go through NetBox's own ``enqueue_event`` and ``flush_events`` after
the commit, as ``event_tracking`` does for a request; so the daily schedule fires the same event rules.
"""

from django.contrib.contenttypes.models import ContentType

from core.choices import ObjectChangeActionChoices
from core.events import OBJECT_CREATED, OBJECT_UPDATED
from dcim.models import Device
from extras.events import enqueue_event, flush_events
from netbox.context import current_request

from netbox_aifabric.apply import branching
from netbox_aifabric.apply.request import as_request_of, job_request
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.retention import prune_runs, retention
from netbox_aifabric.models import ComplianceFinding, ComplianceRun, ComplianceRunStatusChoices, OwnedObject

__all__ = ('record_run', 'run_and_record', 'run_score', 'run_status')


def run_score(counts: dict) -> int | None:
    """Percent of the rules that ran (pass, fail or broke; skipped ones do not count) and passed; None if none ran."""
    ran = counts['pass'] + counts['fail'] + counts['error']
    return round(100 * counts['pass'] / ran) if ran else None


def run_status(counts: dict) -> str:
    if counts['error']:
        return ComplianceRunStatusChoices.ERRORED
    return ComplianceRunStatusChoices.FAILED if counts['fail'] else ComplianceRunStatusChoices.PASSED


def _content_type(label, cache):
    if label not in cache:
        app_label, model = label.split('.')
        try:
            cache[label] = ContentType.objects.get_by_natural_key(app_label, model)
        except ContentType.DoesNotExist:
            cache[label] = None
    return cache[label]


def _device_ids(fabric, result) -> dict:
    """``{device name: pk}`` for the fabric's devices the findings name (by pk or by name)."""
    names = set()
    for _rule, finding in result.findings():
        for o in finding.objects:
            names.add(o.name if o.model == 'dcim.device' else o.device)
    names.discard(None)
    if not names:
        return {}
    owned = OwnedObject.objects.filter(fabric=fabric, key__startswith='device:').values('object_id')
    devices = Device.objects.filter(pk__in=owned, name__in=names).values_list('name', 'pk')
    return dict(devices)


def _finding_rows(run, result, devices) -> list[ComplianceFinding]:
    types, rows = {}, []
    for rule, finding in result.findings():
        first = finding.objects[0] if finding.objects else None
        involved = {o.name if o.model == 'dcim.device' else o.device for o in finding.objects}
        rows.append(
            ComplianceFinding(
                run=run,
                rule=rule.id,
                title=rule.title[:200],
                family=rule.family,
                severity=rule.severity,
                object_type=_content_type(first.model, types) if first else None,
                object_id=first.pk if first else None,
                object_repr=str(first)[:200] if first else '',
                targets=[o.to_dict() for o in finding.objects],
                device_ids=sorted(devices[name] for name in involved if name in devices),
                expected=finding.expected,
                found=finding.found,
                fix=finding.remediation or rule.fix,
            )
        )
    return rows


def _new_run(fabric, result, user, job) -> ComplianceRun:
    counts = result.counts
    rule_results = {
        r.rule.id: {
            'status': r.status,
            'findings': len(r.findings),
            'severity': r.rule.severity,
            'family': r.rule.family,
            'note': r.note,
        }
        for r in result.results
    }
    if result.configs is not None and 'config-backup' in rule_results:
        # each switch's running-config state, for the tab (the rule that judged every switch holds them)
        rule_results['config-backup']['switches'] = dict(result.configs['devices'])
    return ComplianceRun(
        fabric=fabric,
        user=user,
        job=job,
        status=run_status(counts),
        score=run_score(counts),
        rules=counts['rules'],
        passed=counts['pass'],
        failed=counts['fail'],
        skipped=counts['skip'],
        errored=counts['error'],
        finding_count=counts['findings'],
        context_source=result.context_source,
        rule_results=rule_results,
    )


CHANGE_ACTIONS = {
    OBJECT_CREATED: ObjectChangeActionChoices.ACTION_CREATE,
    OBJECT_UPDATED: ObjectChangeActionChoices.ACTION_UPDATE,
}


def _system_changes(job, changes) -> list:
    """Change records and queued events for ``changes`` (``(instance, event type)``) made by a job with no user: what
    NetBox's ``handle_changed_object`` does in a request, but with the job's name in the record (no user to read it
    from) and its RQ id as the request id. Returns the events, flushed by the caller once the transaction commits."""
    request = job_request(None)
    if job is not None:
        request.id = job.job_id  # the change log groups the job's changes by it
    name = job.name if job is not None else 'system'
    queue: dict = {}
    for instance, event_type in changes:
        change = instance.to_objectchange(CHANGE_ACTIONS[event_type])
        if change.has_changes:
            change.user_name = name[:150]
            change.request_id = request.id
            change.save()
        enqueue_event(queue, instance, request, event_type)
    return list(queue.values())


def record_run(fabric, result, user=None, job=None) -> ComplianceRun:
    """Store ``result`` (a linked :class:`~.engine.ComplianceResult` of ``fabric``) as a run with its findings."""
    retention()  # bad retention settings are refused by name before the run is stored, not after
    devices = _device_ids(fabric, result)
    with as_request_of(user), branching.atomic():
        run = _new_run(fabric, result, user, job)
        run.full_clean()
        # applied -> drifted: NetBox no longer matches the applied plan. Before the run is saved, so the run is newer
        # than the fabric's own save (the tab calls a run older than an edit of the fabric stale)
        drifted = any(r.rule.family == 'drift' and r.status == 'fail' for r in result.results)
        drifted = drifted and fabric.mark_drifted()
        run.save()
        ComplianceFinding.objects.bulk_create(_finding_rows(run, result, devices))
        changes = [(run, OBJECT_CREATED), *([(fabric, OBJECT_UPDATED)] if drifted else [])]
        # no user and no request around (the schedule): NetBox's signal logged nothing, so the records are written here
        events = _system_changes(job, changes) if user is None and current_request.get() is None else []
    flush_events(events)  # after the commit, as event_tracking flushes a request's (nothing for a user's run)
    prune_runs(fabric)  # outside the request: the retention's deletions are not the user's changes
    return run


def run_and_record(fabric, user=None, job=None):
    """Every rule on ``fabric`` (objects linked without restriction: the run is stored for every viewer), stored."""
    result = run_compliance(fabric)
    return result, record_run(fabric, result, user=user, job=job)
