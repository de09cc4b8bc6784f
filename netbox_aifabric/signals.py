"""Existing devices' ``aifabric`` contexts change on apply, not on an edit of the intent.

- An edit of the intent (a fabric, its nodes, its QoS profile, traffic classes or EVPN tenants, and their members)
  marks each applied fabric it touches as having a **pending change** (``Fabric.pending_change``, one UPDATE, no
  plan): the Plan tab shows it, and the next apply brings the contexts and the NetBox objects up to date together.
  (Before, every such edit re-planned the fabric and rewrote the contexts at once: a PATCH of the leaf count made
  the spines' contexts peer with leaves that did not exist yet.)
- An edit of a NetBox prefix or VLAN that an applied fabric's contexts describe (a traffic class's prefix or VLAN,
  an EVPN tenant's VLAN) still refreshes the contexts, as before, but once per fabric and transaction, when it
  commits, and only while the fabric has no pending change (else the next apply carries both).
- A sync of a NetBox data source stores the new running configs of every fabric that reads its backups there
  (``checks.backups.read_data_source``) and, when any was new, queues the fabric's compliance run (a drifted switch is
  a stored finding, and event rules on compliance runs fire).
- An apply in main that changed a fabric with a config repository queues the commit of its rendered switch configs to
  Git (``CommitConfigsJob``) when the apply's transaction commits; an apply inside a NetBox Branching branch does not
  (a branch's configs run on no switch until it is merged; docs/config-git.md): its merge, or revert, does.
"""

import logging

from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete
from django.dispatch import receiver
from django.utils.html import escape

from core.signals import post_sync
from ipam.models import VLAN, Prefix
from netbox.context import current_request
from utilities.exceptions import AbortRequest

from netbox_aifabric.apply import branching
from netbox_aifabric.apply.lifecycle import fabric_applied
from netbox_aifabric.apply.permissions import ObjectPermissionError
from netbox_aifabric.apply.removal import delete_owned
from netbox_aifabric.apply.writes import refresh_contexts
from netbox_aifabric.checks.backups import read_data_source
from netbox_aifabric.checks.job import queue_system_compliance
from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass
from netbox_aifabric.models.fabrics import CONFIG_MANAGEMENT_FIELDS
from netbox_aifabric.render.jobs import queue_commit

__all__ = ('LIFECYCLE_FIELDS', 'mark_pending', 'schedule_refresh')

logger = logging.getLogger('netbox_aifabric.backups')

# Fields the apply and compliance write on a fabric, and where its configs are kept (no context reads them): saving
# only these is not an edit of the intent
LIFECYCLE_FIELDS = frozenset(
    {
        *CONFIG_MANAGEMENT_FIELDS,
        'status',
        'applied_allocations',
        'last_applied',
        'last_applied_by',
        'last_plan_hash',
        'last_apply_request_id',
        'pending_change',
        'last_updated',
    }
)
M2M_ACTIONS = ('post_add', 'post_remove', 'post_clear')


def _applied(fabrics):
    """The fabrics (a queryset) an apply has written: a draft has no contexts that could go stale."""
    return fabrics.exclude(applied_allocations={})


def mark_pending(fabrics) -> int:
    """Mark the applied ones of ``fabrics`` (a queryset) as having a pending change; returns how many changed."""
    return _applied(fabrics).filter(pending_change=False).update(pending_change=True)


class _Refresh:
    """The on-commit refresh of one fabric's contexts; one per fabric and transaction (see :func:`schedule_refresh`)."""

    def __init__(self, pk):
        self.pk = pk

    def __call__(self):
        fabric = Fabric.objects.filter(pk=self.pk, pending_change=False).first()
        if fabric is not None:
            with branching.atomic():
                refresh_contexts(fabric)


def schedule_refresh(fabrics) -> None:
    """Refresh the contexts of the applied ``fabrics`` (a queryset) without a pending change when the transaction
    commits, each once however many edits asked for it (at once outside a transaction)."""
    connection = transaction.get_connection()
    # Django drops the callbacks of a rolled-back transaction itself, so the queue is the place to look for them
    queued = {func.pk for _sids, func, *_robust in connection.run_on_commit if isinstance(func, _Refresh)}
    for pk in _applied(fabrics).filter(pending_change=False).values_list('pk', flat=True):
        if pk not in queued:
            queued.add(pk)
            transaction.on_commit(_Refresh(pk))


def _intent_fabrics(model, instance):
    """The fabrics whose intent ``instance`` (of ``model``) is part of."""
    if model is Fabric:
        return Fabric.objects.filter(pk=instance.pk)
    if model is FabricNode:
        return Fabric.objects.filter(pk=instance.fabric_id)
    if model is QoSProfile:
        return Fabric.objects.filter(qos_profile=instance.pk)
    if model is TrafficClass:
        return Fabric.objects.filter(traffic_classes=instance.pk)
    return Fabric.objects.filter(tenants=instance.pk)


@receiver(post_save, sender=Fabric, dispatch_uid='aifabric_fabric_saved')
def fabric_saved(sender, instance, raw=False, update_fields=None, **kwargs):
    changed = update_fields or _changed_fields(instance)
    if raw or (changed is not None and set(changed) <= LIFECYCLE_FIELDS):
        return  # the apply's own bookkeeping (also as NetBox Branching replays it: a save of the whole row)
    mark_pending(_intent_fabrics(Fabric, instance))


def _changed_fields(instance):
    """The fields a save of the whole row changed, from the snapshot taken before it (NetBox's edit views and
    Branching's merge and revert take one); None without a snapshot (then every save counts as an edit)."""
    before = getattr(instance, '_prechange_snapshot', None)
    if not before:
        return None
    after = getattr(instance, '_postchange_snapshot', None) or instance.serialize_object()
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


@receiver(pre_delete, sender=Fabric, dispatch_uid='aifabric_fabric_deleting')
def fabric_deleting(sender, instance, **kwargs):
    """A deleted fabric takes what its applies created along, in its transaction (``apply/removal.py``); a user
    not allowed to delete one of them deletes nothing (a 400 over the API, a message in the UI)."""
    user = getattr(current_request.get(), 'user', None)
    try:
        delete_owned(instance, user if getattr(user, 'is_authenticated', False) else None)
    except ObjectPermissionError as e:
        raise AbortRequest(escape(str(e))) from e  # NetBox's delete view shows it as HTML


@receiver(post_save, sender=FabricNode, dispatch_uid='aifabric_node_saved')
@receiver(post_delete, sender=FabricNode, dispatch_uid='aifabric_node_deleted')
@receiver(post_save, sender=QoSProfile, dispatch_uid='aifabric_qos_saved')
@receiver(post_save, sender=TrafficClass, dispatch_uid='aifabric_class_saved')
@receiver(post_save, sender=EVPNTenant, dispatch_uid='aifabric_tenant_saved')
def intent_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        mark_pending(_intent_fabrics(sender, instance))


@receiver(m2m_changed, sender=Fabric.traffic_classes.through, dispatch_uid='aifabric_fabric_classes')
@receiver(m2m_changed, sender=Fabric.tenants.through, dispatch_uid='aifabric_fabric_tenants')
@receiver(m2m_changed, sender=EVPNTenant.traffic_classes.through, dispatch_uid='aifabric_tenant_classes')
@receiver(m2m_changed, sender=EVPNTenant.vlans.through, dispatch_uid='aifabric_tenant_vlans')
@receiver(m2m_changed, sender=TrafficClass.reachable_from.through, dispatch_uid='aifabric_class_reachable')
def intent_members_changed(sender, instance, action, model=None, pk_set=None, **kwargs):
    if action not in M2M_ACTIONS or not isinstance(instance, Fabric | EVPNTenant | TrafficClass):
        return
    fabrics = _intent_fabrics(type(instance), instance)
    if model is Fabric and pk_set:  # changed from the member's side (tc.fabrics.remove(…)): the fabrics it left
        fabrics = fabrics | Fabric.objects.filter(pk__in=pk_set)
    mark_pending(fabrics)


@receiver(post_save, sender=Prefix, dispatch_uid='aifabric_prefix_saved')
def prefix_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        schedule_refresh(Fabric.objects.filter(traffic_classes__prefix=instance.pk).distinct())


@receiver(post_save, sender=VLAN, dispatch_uid='aifabric_vlan_saved')
def vlan_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        schedule_refresh(
            Fabric.objects.filter(traffic_classes__vlan=instance.pk).distinct()
            | Fabric.objects.filter(tenants__vlans=instance.pk).distinct()
        )


@receiver(fabric_applied, dispatch_uid='aifabric_commit_configs')
def commit_configs_after_apply(sender, fabric, user=None, **kwargs):
    """Queue the commit of the fabric's rendered configs to its Git repository when the apply commits (a rolled-back
    apply queues nothing); not for an apply inside a NetBox Branching branch, whose configs run nowhere yet."""
    if not fabric.config_repository or branching.active_branch() is not None:
        return
    user = user if getattr(user, 'is_authenticated', False) else None
    request_id = fabric.last_apply_request_id  # this apply's, just recorded
    # robust: the apply has committed whatever happens; a queue that cannot be reached is logged, not a 500
    transaction.on_commit(lambda: queue_commit(fabric, user, request_id), robust=True)


def commit_configs_after_merge(sender, branch, user=None, **kwargs):
    """A NetBox Branching branch merged into main (or reverted from it) changed what main renders: every fabric with a
    config repository gets its configs committed, by the merging user, when the merge commits (a fabric the branch
    did not touch renders the same files: its job commits nothing)."""
    user = user if getattr(user, 'is_authenticated', False) else None
    for fabric in Fabric.objects.exclude(config_repository='').order_by('name'):
        transaction.on_commit(lambda f=fabric: queue_commit(f, user, f.last_apply_request_id), robust=True)


for merge_signal in branching.MERGE_SIGNALS:
    merge_signal.connect(commit_configs_after_merge, dispatch_uid=f'aifabric_commit_configs_{id(merge_signal)}')


@receiver(post_sync, dispatch_uid='aifabric_backups_synced')
def backups_synced(sender, instance, **kwargs):
    """The backups of every fabric reading from the synced data source ``instance``, stored; a compliance run queued
    for each fabric that got a new one (when the sync's transaction commits)."""
    for fabric in Fabric.objects.filter(config_backup_source=instance).order_by('name'):
        outcome = read_data_source(fabric)
        for device, reason in outcome.refused.items():
            logger.warning(f'{fabric}: the backup of {device} in {instance} is refused: {reason}')
        logger.info(
            f'{fabric}: {len(outcome.stored)} backup(s) stored, {len(outcome.unchanged)} unchanged, '
            f'{len(outcome.missing)} file(s) not in {instance}'
        )
        if outcome.stored:
            transaction.on_commit(lambda f=fabric: queue_system_compliance(f), robust=True)
