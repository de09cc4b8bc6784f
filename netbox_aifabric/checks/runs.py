"""A compliance result stored as a :class:`~netbox_aifabric.models.ComplianceRun` with its findings as rows (one
transaction, the findings in one ``bulk_create``), and the newest runs of a fabric for its tab, its trend and its
devices' panels.

A run with a user is stored as a NetBox request of that user would store it: the change log records its creation and
NetBox's event rules see it (e.g. a webhook on compliance runs created with ``failed`` > 0). A scheduled run has no
user, and NetBox's change log needs one: it is stored without a change record and fires no event.
"""

from django.contrib.contenttypes.models import ContentType
from django.db import transaction

from dcim.models import Device

from ..models import ComplianceFinding, ComplianceRun, ComplianceRunStatusChoices, OwnedObject
from ..request import as_request_of
from .compliance import run_compliance
from .retention import prune_runs, retention

__all__ = ('latest_run', 'record_run', 'run_and_record', 'run_score', 'run_status')


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
                fix=rule.fix,
            )
        )
    return rows


def record_run(fabric, result, user=None, job=None) -> ComplianceRun:
    """Store ``result`` (a linked :class:`~.engine.ComplianceResult` of ``fabric``) as a run with its findings."""
    retention()  # bad retention settings are refused by name before the run is stored, not after
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
    devices = _device_ids(fabric, result)
    with as_request_of(user), transaction.atomic():
        run = ComplianceRun(
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
        run.full_clean()
        run.save()
        ComplianceFinding.objects.bulk_create(_finding_rows(run, result, devices))
        if any(r.rule.family == 'drift' and r.status == 'fail' for r in result.results):
            fabric.mark_drifted()  # applied -> drifted: NetBox no longer matches the applied plan (issue 14)
    prune_runs(fabric)  # outside the request: the retention's deletions are not the user's changes
    return run


def run_and_record(fabric, user=None, job=None):
    """Every rule on ``fabric`` (objects linked without restriction: the run is stored for every viewer), stored."""
    result = run_compliance(fabric)
    return result, record_run(fabric, result, user=user, job=job)


def latest_run(fabric):
    return ComplianceRun.objects.filter(fabric=fabric).order_by('-created', '-pk').first()
