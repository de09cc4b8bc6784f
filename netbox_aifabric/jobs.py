"""Background apply for large fabrics (and any apply asked for in the background), run by NetBox's RQ worker."""

from core.exceptions import JobFailed
from netbox.jobs import JobRunner
from netbox.plugins import get_plugin_config

from .apply.engine import ApplyConflictError, apply_fabric, summarize
from .planner import PlanError

__all__ = ('ApplyFabricJob', 'runs_in_background')


def runs_in_background(plan, requested: bool) -> bool:
    """Whether an apply goes to a job: asked for, or the plan has more links than ``background_apply_threshold``."""
    threshold = get_plugin_config('netbox_aifabric', 'background_apply_threshold')
    return requested or (threshold is not None and len(plan.links) > threshold)


class ApplyFabricJob(JobRunner):
    """Apply a fabric's plan (one transaction); the job's data holds the per-type summary."""

    class Meta:
        name = 'Apply AI fabric'

    def run(self, confirm_delete=False, *args, **kwargs):
        fabric = self.job.object
        self.logger.info(f'Planning {fabric}')
        try:
            _plan, changes = apply_fabric(fabric, confirm_delete=confirm_delete)
        except (PlanError, ApplyConflictError) as e:
            self.logger.error(f'Nothing was applied: {e}')
            raise JobFailed(str(e)) from e
        summary = summarize(changes)
        self.job.data = {'summary': summary}
        for model, counts in summary.items():
            self.logger.info(f'{model}: ' + ', '.join(f'{n} {action}' for action, n in counts.items() if n))
        self.logger.info(f'Applied {fabric}')
