"""The compliance run as a NetBox Job (on demand or scheduled, run by NetBox's RQ worker): the result stored as a
ComplianceRun with its findings, and in the Job's data.

The schedule is a NetBox system job (``ScheduledComplianceJob``): every ``compliance_interval`` minutes (the plugin's
setting; 0 or None: off) it runs every fabric that has been applied. ``netbox rqworker`` schedules it when it starts.
"""

from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.utils.translation import gettext as _

from core.choices import JobStatusChoices
from core.models import Job
from netbox.jobs import JobRunner, system_job
from netbox.plugins import get_plugin_config
from netbox.registry import registry

from netbox_aifabric.apply import branching
from netbox_aifabric.apply.branching import BranchJobRunner
from netbox_aifabric.apply.request import enqueue_once
from netbox_aifabric.checks.retention import prune_runs, retention
from netbox_aifabric.checks.runs import run_and_record
from netbox_aifabric.models import ComplianceRun, ComplianceRunStatusChoices, Fabric

__all__ = (
    'ComplianceJob',
    'CompliancePermissionError',
    'ComplianceRequest',
    'ScheduledComplianceJob',
    'compliance_interval',
    'queue_system_compliance',
    'request_compliance',
    'schedule_compliance',
)

SETTING = 'compliance_interval'


def compliance_interval() -> int | None:
    """The schedule's interval in minutes from ``PLUGINS_CONFIG['netbox_aifabric']['compliance_interval']``; None when
    off (0 or None). Anything but a whole number of minutes is refused, naming the setting."""
    value = get_plugin_config('netbox_aifabric', SETTING)
    if value in (None, 0):
        return None
    if type(value) is not int or value < 0:
        raise ImproperlyConfigured(
            f"PLUGINS_CONFIG['netbox_aifabric']['{SETTING}'] must be a whole number of minutes (0 or None: off), "
            f'not {value!r}'
        )
    return value


class ComplianceJob(BranchJobRunner):
    """Run every compliance rule on the job's fabric and store the run (a ComplianceRun by the job's user); ``job.data``
    holds the result (``ComplianceResult.to_dict``) and the run's id. Findings do not fail the job (its data says
    ``ok: false``); a rule that breaks is an ``error`` result."""

    class Meta:
        name = 'AI fabric compliance'

    def run(self, *args, **kwargs):
        fabric = self.fabric
        result, run = run_and_record(fabric, user=self.job.user, job=self.job)
        self.job.data = {**result.to_dict(), 'run': run.pk}
        counts = result.counts
        summary = ', '.join(f'{counts[k]} {k}' for k in ('pass', 'fail', 'skip', 'error'))
        (self.logger.info if result.ok else self.logger.warning)(
            f'{fabric}: {summary}, {counts["findings"]} finding(s)'
        )
        for rule, finding in result.findings():
            self.logger.warning(
                f'{rule.id}: {", ".join(str(o) for o in finding.objects)}: expected {finding.expected}, '
                f'found {finding.found}'
            )


class CompliancePermissionError(PermissionDenied):
    """The user may not store a compliance run of this fabric (the message says which permission)."""


@dataclass(frozen=True)
class ComplianceRequest:
    job: Job
    reused: bool  # a pending job of the fabric was there already: no new one queued


# pg_advisory_xact_lock(class, fabric id): one request at a time decides whether a fabric's run is already pending
_LOCK_CLASS = 0x41494331  # 'AIC1'


class _Rollback(Exception):
    pass


def may_store_run(user, fabric) -> bool:
    """Whether ``user``'s add permission on compliance runs, its object constraints included, admits a run of
    ``fabric``. NetBox checks constraints on the saved object; the run is stored later by the job, so a probe row is
    inserted with ``bulk_create`` (no signal: no change record, no event, no search entry), checked against the
    constraints and rolled back."""
    if not user.has_perm('netbox_aifabric.add_compliancerun'):
        return False
    try:
        with branching.atomic():
            (probe,) = ComplianceRun.objects.bulk_create(
                [ComplianceRun(fabric=fabric, user=user, status=ComplianceRunStatusChoices.PASSED)]
            )
            allowed = ComplianceRun.objects.restrict(user, 'add').filter(pk=probe.pk).exists()
            raise _Rollback
    except _Rollback:
        pass
    return allowed


def request_compliance(fabric, user) -> ComplianceRequest:
    """Queue a compliance run of ``fabric`` by ``user`` (the REST action and the tab's button): it needs the add
    permission on compliance runs (constraints included, see :func:`may_store_run`). A run of the fabric already
    pending (queued, not started) is answered instead of queueing another (ten POSTs queued ten jobs);
    concurrent requests decide one at a time (an advisory lock per fabric)."""
    if not may_store_run(user, fabric):
        raise CompliancePermissionError(
            _('Running the compliance checks stores a compliance run: it needs the add permission on compliance runs '
              '(netbox_aifabric.add_compliancerun) for this fabric.')
        )  # fmt: skip
    pending = (JobStatusChoices.STATUS_PENDING,)  # a running one has read the fabric already: a new run is queued
    job, reused = enqueue_once(ComplianceJob, fabric, user, pending, _LOCK_CLASS)
    return ComplianceRequest(job=job, reused=reused)


def queue_system_compliance(fabric) -> ComplianceRequest:
    """Queue a compliance run of ``fabric`` by no user (new running configs came in from its backup source): as the
    schedule's runs, stored by the job; a pending one is reused."""
    job, reused = enqueue_once(ComplianceJob, fabric, None, (JobStatusChoices.STATUS_PENDING,), _LOCK_CLASS)
    return ComplianceRequest(job=job, reused=reused)


class ScheduledComplianceJob(JobRunner):
    """Every applied fabric's compliance run, stored (no user: the schedule's); one fabric's failure is logged and the
    others still run. Switched off since it was scheduled, it runs nothing and does not schedule itself again."""

    class Meta:
        name = 'AI fabric compliance (scheduled)'

    def run(self, *args, **kwargs):
        if compliance_interval() is None:
            self.logger.info(f'{SETTING} is off: nothing run, not scheduled again')
            self.job.interval = None  # JobRunner.handle reschedules only a job with an interval
            return
        runs = []
        for fabric in Fabric.objects.filter(owned_objects__isnull=False).distinct().order_by('name'):
            try:
                _result, run = run_and_record(fabric, job=self.job)
            except Exception as e:  # noqa: BLE001  (one fabric's error must not hide the others' runs)
                self.logger.error(f'{fabric}: {type(e).__name__}: {e}')
                continue
            runs.append(run.pk)
            self.logger.info(f'{fabric}: {run.get_status_display()}, score {run.score}, {run.finding_count} finding(s)')
        pruned = prune_runs()
        if pruned:
            self.logger.info(f'{pruned} stored run(s) past the retention settings deleted')
        self.job.data = {'runs': runs, 'pruned': pruned}


def schedule_compliance():
    """Register (or unregister) the scheduled run as a NetBox system job with the interval from the settings; called
    from the plugin's ``ready()``, which also refuses bad retention settings by name."""
    retention()
    interval = compliance_interval()
    if interval is None:
        registry['system_jobs'].pop(ScheduledComplianceJob, None)
        return None
    return system_job(interval)(ScheduledComplianceJob)
