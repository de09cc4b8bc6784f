"""The apply as a user asks for it: check the plan and the permissions, then queue a background job or apply now.

The UI's Apply button, the REST API and the wizard's "Create and apply" call :func:`request_apply`; the apply itself
(:func:`~netbox_aifabric.apply.writes.apply_fabric`) enforces the constraints of the user's ObjectPermissions on
every object it writes."""

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from netbox_aifabric.apply import branching
from netbox_aifabric.apply.diff import changes_of
from netbox_aifabric.apply.jobs import ApplyFabricJob, plan_size_error, runs_in_background
from netbox_aifabric.apply.lifecycle import after_apply, check_apply
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.intake.inputs import FabricInputs

__all__ = ('ApplyOutcome', 'request_apply')


@dataclass
class ApplyOutcome:
    plan: Any
    changes: list | None = None  # None when the apply was queued
    job: Any = None  # the queued job (None when applied now, or queued on commit)

    @property
    def queued(self) -> bool:
        return self.changes is None


def request_apply(fabric, user, confirm_delete=False, background=False, on_commit=False) -> ApplyOutcome:
    """Check ``user``'s permissions for the apply of ``fabric``'s plan, then apply it now or queue it as a job (asked
    for, or above ``background_apply_threshold`` links; with ``on_commit`` the job is queued when the caller's
    transaction commits). Raises :class:`MissingPermissionsError`, ``ObjectPermissionError``, ``PlanError`` (a
    :class:`PlanBlockedError` when the plan breaks a hard rule) or ``ApplyConflictError``, each with nothing
    written. The caller checks the fabric's own ``apply`` permission."""
    if plan_size_error(fabric) is not None:
        # above plan_max_nodes the plan is not computed in a request: the job plans, checks as below, and applies
        return _queue(fabric, user, confirm_delete, on_commit, plan=None)
    if background:  # the job applies: the preview's plan and diff are only checked
        inputs = FabricInputs(fabric)
        check_apply(inputs.plan, changes_of(inputs, confirm_delete), user, confirm_delete)
        return _queue(fabric, user, confirm_delete, on_commit, inputs.plan)

    def check(plan, changes):  # on the apply's own plan and diff, under its lock: a refusal writes nothing
        check_apply(plan, changes, user, confirm_delete)
        if runs_in_background(plan, False):
            raise _Background(plan)

    try:
        with branching.atomic():
            plan, changes = apply_fabric(fabric, confirm_delete=confirm_delete, user=user, check=check)
            after_apply(fabric, plan, user, changes)
    except _Background as queued:  # above background_apply_threshold: rolled back, the job applies
        return _queue(fabric, user, confirm_delete, on_commit, queued.plan)
    return ApplyOutcome(plan, changes)


class _Background(Exception):  # noqa: N818 (not an error: the apply goes to a job)
    """Raised inside the apply's transaction when its plan is for a job (``runs_in_background``): rolls it back."""

    def __init__(self, plan):
        super().__init__('the apply runs in the background')
        self.plan = plan


def _queue(fabric, user, confirm_delete, on_commit, plan) -> ApplyOutcome:
    """The apply as a job: now, or (``on_commit``) when the caller's transaction commits; queued in a NetBox Branching
    branch, the job applies in that branch (:func:`~.branching.queued_branch`)."""
    kwargs = {'instance': fabric, 'user': user, 'confirm_delete': confirm_delete, **branching.queued_branch()}
    if on_commit:
        transaction.on_commit(lambda: ApplyFabricJob.enqueue(**kwargs), using=branching.branch_connection())
        return ApplyOutcome(plan)
    return ApplyOutcome(plan, job=ApplyFabricJob.enqueue(**kwargs))
