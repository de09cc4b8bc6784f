"""The apply as a user asks for it: check the permissions, then queue a background job or apply now.

The UI's Apply button and the wizard's "Create and apply" call :func:`request_apply`; the apply itself
(:func:`~netbox_aifabric.apply.engine.apply_fabric`) enforces the constraints of the user's ObjectPermissions on
every object it writes.
"""

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from netbox.context import current_request

from ..choices import FabricStatusChoices
from ..jobs import ApplyFabricJob, plan_size_error, runs_in_background
from ..planner import PlanError
from .engine import apply_fabric, diff_fabric
from .permissions import ObjectPermissionError, missing_permissions, missing_permissions_message
from .route_targets import sync_tenant_route_targets

__all__ = (
    'BLOCKING_WARNINGS',
    'ApplyOutcome',
    'MissingPermissionsError',
    'PlanBlockedError',
    'after_apply',
    'apply_blockers',
    'check_blockers',
    'check_job_apply',
    'plan_hash',
    'request_apply',
)

# The guide's hard rules among the plan's warnings: a design that cannot work as drawn (hosts of one class in
# different racks that cannot reach each other). The others (oversubscription, public ASNs, a class MTU above the
# fabric's, the guide's intent warnings) strain a fabric but leave it working: they stay warnings.
BLOCKING_WARNINGS = frozenset({'unrouted-class-across-racks'})


class MissingPermissionsError(ObjectPermissionError):
    """The user lacks model permissions (add/change/delete) of object types the apply writes; nothing was written."""


class PlanBlockedError(PlanError):
    """The plan breaks one of the guide's hard rules (a warning in ``BLOCKING_WARNINGS``); nothing was written."""


def apply_blockers(plan) -> list:
    """The plan's warnings that block an apply (``BLOCKING_WARNINGS``), in the plan's order."""
    return [w for w in plan.warnings if w.code in BLOCKING_WARNINGS]


def check_blockers(plan) -> None:
    """Raise :class:`PlanBlockedError` on the first warning of ``plan`` that blocks an apply, naming its field."""
    blockers = apply_blockers(plan)
    if blockers:
        first = blockers[0]
        more = f' (and {len(blockers) - 1} more)' if len(blockers) > 1 else ''
        raise PlanBlockedError(first.field, f'the apply is blocked ({first.code}): {first.message}{more}')


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
    plan, preview = diff_fabric(fabric, confirm_delete=confirm_delete)
    check_blockers(plan)  # before the permissions: the design is what to fix first
    missing = missing_permissions(user, preview, confirm_delete)
    if missing:
        raise MissingPermissionsError(missing_permissions_message(missing))
    if runs_in_background(plan, background):
        return _queue(fabric, user, confirm_delete, on_commit, plan)
    with transaction.atomic():
        plan, changes = apply_fabric(fabric, confirm_delete=confirm_delete, user=user)
        after_apply(fabric, plan, user, changes)
    return ApplyOutcome(plan, changes)


def check_job_apply(plan, changes, user, confirm_delete) -> None:
    """What :func:`request_apply` checks before it queues, checked again by the job on what it applied (inside its
    transaction, so a refusal writes nothing): a fabric above ``plan_max_nodes`` was queued without a preview, and
    the fabric may have changed since it was queued."""
    check_blockers(plan)
    if user is not None and (missing := missing_permissions(user, changes, confirm_delete)):
        raise MissingPermissionsError(missing_permissions_message(missing))


def _queue(fabric, user, confirm_delete, on_commit, plan) -> ApplyOutcome:
    """The apply as a job: now, or (``on_commit``) when the caller's transaction commits."""
    if on_commit:
        transaction.on_commit(lambda: ApplyFabricJob.enqueue(instance=fabric, user=user, confirm_delete=confirm_delete))
        return ApplyOutcome(plan)
    return ApplyOutcome(plan, job=ApplyFabricJob.enqueue(instance=fabric, user=user, confirm_delete=confirm_delete))


def plan_hash(plan) -> str:
    """SHA-256 of the plan as JSON (keys sorted): equal plans, equal hashes."""
    text = json.dumps(plan.to_dict(), sort_keys=True, default=str, separators=(',', ':'))
    return hashlib.sha256(text.encode()).hexdigest()


def after_apply(fabric, plan, user=None, changes=()) -> None:
    """What every apply (now or as a job) records besides its objects, in its transaction: the tenants' route
    targets become the plan's, and the fabric's lifecycle says applied, when, by whom, which plan and which
    change-log request (NetBox's request id of the UI/API request, or of the job's). A re-apply that writes
    nothing to an applied fabric without a pending change records nothing either (no change-log entry)."""
    synced = sync_tenant_route_targets(fabric, plan)
    digest = plan_hash(plan)
    wrote = synced or any(c.action in ('create', 'update', 'adopt', 'delete') for c in changes)
    applied = fabric.status == FabricStatusChoices.APPLIED
    unchanged = applied and fabric.last_plan_hash == digest and not fabric.pending_change
    if not wrote and unchanged:
        return
    request = current_request.get()
    fabric.mark_applied(user, digest, getattr(request, 'id', None))
