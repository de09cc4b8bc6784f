"""Background apply for large fabrics (and any apply asked for in the background), run by NetBox's RQ worker."""

from django.core.cache import cache
from django.utils.translation import gettext as _

from core.exceptions import JobFailed
from netbox.plugins import get_plugin_config
from utilities.request import apply_request_processors

from netbox_aifabric.apply import branching
from netbox_aifabric.apply.branching import BranchJobRunner
from netbox_aifabric.apply.diff import ApplyConflictError, summarize
from netbox_aifabric.apply.lifecycle import after_apply, check_apply
from netbox_aifabric.apply.permissions import ObjectPermissionError
from netbox_aifabric.apply.request import job_request
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.planner import PlanError

__all__ = (
    'ApplyFabricJob',
    'fabric_devices_count',
    'job_progress',
    'plan_size_error',
    'runs_in_background',
    'ui_runs_in_background',
)

PROGRESS_TTL = 24 * 3600


def progress_key(job_id) -> str:
    return f'netbox_aifabric:apply-progress:{job_id}'


def job_progress(job_id):
    """``{'done', 'total', 'model', 'percent'}`` of a running (or finished) background apply, or None."""
    return cache.get(progress_key(job_id))


def runs_in_background(plan, requested: bool) -> bool:
    """Whether an apply goes to a job: asked for, or the plan has more links than ``background_apply_threshold``."""
    threshold = get_plugin_config('netbox_aifabric', 'background_apply_threshold')
    return requested or (threshold is not None and len(plan.links) > threshold)


def fabric_devices_count(fabric) -> int:
    """The devices the fabric's plan has: spines, leaves, GPU servers and storage nodes."""
    return fabric.spine_count + fabric.leaf_count + fabric.server_count + fabric.storage_count


PLAN_MAX_NODES = 'plan_max_nodes'


def plan_size_error(fabric) -> str | None:
    """Why the plan of ``fabric`` is not computed in a request (None: it is): more nodes than the ``plan_max_nodes``
    setting. A fabric at the 4,096-node cap took 101 s and answered 25.8 MB to one read-only request; its
    apply still runs, as a job (``background_apply_threshold``)."""
    limit = get_plugin_config('netbox_aifabric', PLAN_MAX_NODES)
    nodes = fabric_devices_count(fabric)
    if limit is None or nodes <= limit:
        return None
    return _(
        "{fabric} has {nodes} nodes, above PLUGINS_CONFIG['netbox_aifabric']['{setting}'] = {limit}: its plan is not "
        'computed in a request. Apply it in the background (REST: {{"background": true}}; the job logs the summary), '
        'or raise the setting.'
    ).format(fabric=fabric, nodes=nodes, setting=PLAN_MAX_NODES, limit=limit)


def ui_runs_in_background(fabric, posted) -> bool:
    """Whether a UI apply goes to a job: the form's "Run in the background" (``posted``: '1'/'0'), else by default
    when the fabric has more devices than ``ui_background_apply_devices``: a browser should not wait on it."""
    if posted is not None:
        return posted not in ('', '0', 'false', 'off')
    threshold = get_plugin_config('netbox_aifabric', 'ui_background_apply_devices')
    return threshold is not None and fabric_devices_count(fabric) > threshold


class ApplyFabricJob(BranchJobRunner):
    """Apply a fabric's plan (one transaction); the job's data holds the per-type summary."""

    class Meta:
        name = 'Apply AI fabric'

    def run(self, confirm_delete=False, *args, **kwargs):
        fabric = self.fabric
        self.logger.info(f'Planning {fabric}')
        # NetBox records the change log (and queues events) only inside its request processors, as for a script
        # job: give the apply a request of the job's user
        request = job_request(self.job.user)
        try:
            with apply_request_processors(request), branching.atomic():
                plan, changes = apply_fabric(
                    fabric,
                    confirm_delete=confirm_delete,
                    progress=self.progress,
                    user=self.job.user,
                    # on the apply's own plan and diff, before it writes: a refusal rolls the transaction back
                    check=lambda plan, changes: check_apply(plan, changes, self.job.user, confirm_delete),
                )
                after_apply(fabric, plan, self.job.user, changes)
        except (PlanError, ApplyConflictError, ObjectPermissionError) as e:
            self.logger.error(f'Nothing was applied: {e}')
            # NetBox's handler ends a JobFailed without an error: the reason goes to the job's error field (saved by
            # job.terminate), where the job list, its REST representation and the fabric's apply tab read it
            self.job.error = str(e)
            raise JobFailed(str(e)) from e
        summary = summarize(changes)
        self.job.data = {'summary': summary}
        for model, counts in summary.items():
            self.logger.info(f'{model}: ' + ', '.join(f'{n} {action}' for action, n in counts.items() if n))
        self.logger.info(f'Applied {fabric}')

    def progress(self, done, total, model):
        """Kept in NetBox's cache (Redis), outside the apply's transaction, so the job page can show it while the
        apply runs."""
        percent = round(100 * done / total) if total else 100
        cache.set(
            progress_key(self.job.pk), {'done': done, 'total': total, 'model': model, 'percent': percent}, PROGRESS_TTL
        )
