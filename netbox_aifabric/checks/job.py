"""The compliance run as a NetBox Job (on demand or scheduled, run by NetBox's RQ worker): the result stored as a
ComplianceRun with its findings, and in the Job's data."""

from netbox.jobs import JobRunner

from .runs import run_and_record

__all__ = ('ComplianceJob',)


class ComplianceJob(JobRunner):
    """Run every compliance rule on the job's fabric and store the run (a ComplianceRun by the job's user); ``job.data``
    holds the result (``ComplianceResult.to_dict``) and the run's id. Findings do not fail the job (its data says
    ``ok: false``); a rule that breaks is an ``error`` result."""

    class Meta:
        name = 'AI fabric compliance'

    def run(self, *args, **kwargs):
        fabric = self.job.object
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
