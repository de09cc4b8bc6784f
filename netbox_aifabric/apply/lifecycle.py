"""What every apply checks and records, run now or as a job: the guide's hard rules among the plan's warnings and the
user's model permissions (checked before the writes, and again by the job on what it applied), then the tenants'
route targets and the fabric's lifecycle (applied, when, by whom, which plan and which change-log request)."""

import hashlib
import json

from django.dispatch import Signal

from netbox.context import current_request

from netbox_aifabric.apply.permissions import ObjectPermissionError, missing_permissions, missing_permissions_message
from netbox_aifabric.choices import FabricStatusChoices
from netbox_aifabric.intake.route_targets import sync_tenant_route_targets
from netbox_aifabric.planner import PlanError

__all__ = (
    'BLOCKING_WARNINGS',
    'MissingPermissionsError',
    'PlanBlockedError',
    'after_apply',
    'apply_blockers',
    'check_apply',
    'check_blockers',
    'fabric_applied',
    'plan_hash',
)

# Sent by :func:`after_apply` when an apply recorded a change (objects written, or the fabric's apply record
# updated), inside the apply's transaction, as ``fabric_applied.send(sender=Fabric, fabric=, user=, plan=)`` (``user``
# None: none). A receiver that acts outside the database waits for the commit (``transaction.on_commit``): later
# steps of the flow hook in here (signals.py commits the rendered configs to Git) without the apply importing them.
fabric_applied = Signal()


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


def check_apply(plan, changes, user, confirm_delete) -> None:
    """What an apply checks before it writes or queues, the blocking warnings first (the design is what to fix first),
    then the user's model permissions: :func:`request_apply` on its preview or its own apply, the job again on the
    plan and changes of its apply, before the writes (inside its transaction, so a refusal writes nothing): a fabric
    above ``plan_max_nodes`` was queued without a preview, and the fabric may have changed since it was queued."""
    check_blockers(plan)
    if user is not None and (missing := missing_permissions(user, changes, confirm_delete)):
        raise MissingPermissionsError(missing_permissions_message(missing))


def plan_hash(plan) -> str:
    """SHA-256 of the plan as JSON (keys sorted): equal plans, equal hashes."""
    text = json.dumps(plan.to_dict(), sort_keys=True, default=str, separators=(',', ':'))
    return hashlib.sha256(text.encode()).hexdigest()


def after_apply(fabric, plan, user=None, changes=()) -> None:
    """What every apply (now or as a job) records besides its objects, in its transaction: the tenants' route
    targets become the plan's, and the fabric's lifecycle says applied, when, by whom, which plan and which
    change-log request (NetBox's request id of the UI/API request, or of the job's). A re-apply that writes
    nothing to an applied fabric without a pending change records nothing either (no change-log entry, no
    :data:`fabric_applied`)."""
    synced = sync_tenant_route_targets(fabric, plan)
    digest = plan_hash(plan)
    wrote = synced or any(c.action in ('create', 'update', 'adopt', 'delete') for c in changes)
    applied = fabric.status == FabricStatusChoices.APPLIED
    unchanged = applied and fabric.last_plan_hash == digest and not fabric.pending_change
    if not wrote and unchanged:
        return
    request = current_request.get()
    fabric.mark_applied(user, digest, getattr(request, 'id', None))
    fabric_applied.send(sender=type(fabric), fabric=fabric, user=user, plan=plan)
