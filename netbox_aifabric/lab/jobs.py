"""The fabric lab as a NetBox Job (NetBox's RQ worker runs it; it needs root and FRR on the worker's host): the
result, every check with expected and seen, stored as an acceptance run of kind lab (and in the Job's data)."""

from dataclasses import dataclass

from core.choices import JobStatusChoices
from core.exceptions import JobFailed
from core.models import Job

from netbox_aifabric.acceptance.store import store_lab_run
from netbox_aifabric.apply.branching import BranchJobRunner
from netbox_aifabric.apply.request import as_request_of, enqueue_once
from netbox_aifabric.lab import FAILED, LabUnavailable, run_lab
from netbox_aifabric.lab.fabric import lab_inputs

__all__ = ('FabricLabJob', 'LabRequest', 'request_lab')

# A lab job in these states has not finished: another POST is sent to it instead of booting the fabric twice
UNFINISHED = (JobStatusChoices.STATUS_PENDING, JobStatusChoices.STATUS_RUNNING)
# pg_advisory_xact_lock(class, fabric id): one request at a time decides whether a fabric's lab job is unfinished
_LOCK_CLASS = 0x4149434C  # 'AICL'


class FabricLabJob(BranchJobRunner):
    """Boot the job's fabric from its switches' rendered FRR configs in network namespaces, check, tear down.
    The result is stored as an ``AcceptanceRun`` of kind lab (``job.data['acceptance_run']``: its id) with its
    checks as results; ``job.data``: the lab result (``LabRun.as_dict``) too. A failed check fails the job, as the
    command exits non-zero."""

    class Meta:
        name = 'AI fabric lab'

    def run(self, timeout=60.0, *args, **kwargs):
        fabric = self.fabric
        contexts, configs = lab_inputs(fabric)
        if not configs:
            self._fail('no switch has an aifabric config context: apply the fabric first')
        try:
            result = run_lab(contexts, configs, timeout=timeout)
        except LabUnavailable as e:
            self._fail(f'the lab cannot run on this host: {e}')
        data = {**result.as_dict(), 'log': result.log}
        # NetBox logs changes only inside its request processors (as ApplyFabricJob); a change needs a user
        with as_request_of(self.job.user):
            run = store_lab_run(fabric, self.job.user, data)
        self.job.data = {**data, 'acceptance_run': run.pk}
        for check in result.checks:
            log = self.logger.error if check.status == FAILED else self.logger.info
            log(f'{check.status}: {check.name}: expected {check.expected}; seen {check.seen}')
        counts = result.counts()
        self.logger.info(
            f'{fabric}: {counts["passed"]} passed, {counts["failed"]} failed, '
            f'{counts["not-verified-here"]} not verified here'
        )
        if not result.ok:
            raise JobFailed(
                f'{counts["failed"]} check(s) failed' if result.converged else 'the fabric did not converge'
            )

    def _fail(self, error: str):
        self.job.data = {'ok': False, 'error': error}
        self.logger.error(error)
        raise JobFailed(error)


@dataclass(frozen=True)
class LabRequest:
    job: Job
    reused: bool  # an unfinished lab job of the fabric was there already: no new one queued


def request_lab(fabric, user) -> LabRequest:
    """Queue a lab run of ``fabric`` by ``user``, or answer the fabric's lab job that is still pending or running
    (the Lab tab's button and the REST action; the caller checks the apply permission first). Concurrent requests
    decide one at a time under an advisory lock per fabric, held until the new job's row commits."""
    job, reused = enqueue_once(FabricLabJob, fabric, user, UNFINISHED, _LOCK_CLASS)
    return LabRequest(job=job, reused=reused)
