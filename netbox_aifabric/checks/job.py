"""The compliance run as a NetBox Job (on demand or scheduled, run by NetBox's RQ worker): the result in the Job's
data."""

from netbox.jobs import JobRunner

from .compliance import run_compliance

__all__ = ('ComplianceJob',)


class ComplianceJob(JobRunner):
    """Run every compliance rule on the job's fabric; ``job.data`` holds the result (``ComplianceResult.to_dict``).
    Findings do not fail the job (its data says ``ok: false``); a rule that breaks is an ``error`` result."""

    class Meta:
        name = 'AI fabric compliance'

    def run(self, *args, **kwargs):
        fabric = self.job.object
        result = run_compliance(fabric)
        self.job.data = result.to_dict()
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
