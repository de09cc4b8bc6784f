"""The atomic apply: the diff's creates, updates, adoptions and (when confirmed) deletions written in one transaction,
the fabric locked against concurrent applies and NetBox's own available-* allocations, and the applied record
stamped. ``refresh_contexts`` brings the owned devices' ``aifabric`` contexts up to date without an apply."""

from collections import defaultdict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models.signals import post_save
from django.dispatch import receiver

from dcim.models import Cable, Device, Interface
from extras.models import Tag
from netbox.constants import ADVISORY_LOCK_KEYS
from netbox.context import query_cache

from netbox_aifabric.apply import branching
from netbox_aifabric.apply.collector import full_collections_deferred
from netbox_aifabric.apply.desired import desired_objects
from netbox_aifabric.apply.diff import ApplyConflictError, compute_changes, m2m_resolved, resolved, set_value
from netbox_aifabric.apply.objects import Ref
from netbox_aifabric.apply.permissions import ObjectPermissions
from netbox_aifabric.apply.writer import BulkWriter
from netbox_aifabric.facts.context import CONTEXT_KEY
from netbox_aifabric.intake.inputs import FabricInputs
from netbox_aifabric.models import Fabric, OwnedObject
from netbox_aifabric.planner import PlanError

__all__ = ('DELETE_ORDER', 'PROGRESS_EVERY', 'apply_fabric', 'delete_rank', 'refresh_contexts')


DELETE_ORDER = (
    'l2vpn-termination',
    'l2vpn',
    'ip',
    'cable',
    'interface',
    'prefix',
    'vrf',
    'rt',
    'asn',
    'vlan',
    'vlan-group',
    'device',
    'device-type',
    'role',
    'manufacturer',
    'tag',
)


def delete_rank(key: str) -> tuple[int, int, str]:
    """Where an owned object of ``key`` is deleted: by its kind's place in ``DELETE_ORDER``, a sub-interface
    (``interface:<device>:bond0.20``) before the interfaces (NetBox restricts deleting a parent with children)."""
    kind = key.split(':', 1)[0]
    child = kind == 'interface' and '.' in key.rsplit(':', 1)[-1]
    return (DELETE_ORDER.index(kind) if kind in DELETE_ORDER else len(DELETE_ORDER), 0 if child else 1, key)


def _lock(fabric):
    """Serialize applies of one fabric, and with NetBox's own available-* allocations, until the transaction ends."""
    Fabric.objects.select_for_update().get(pk=fabric.pk)
    with connection.cursor() as cursor:
        for name in ('available-asns', 'available-prefixes', 'available-ips', 'available-vlans'):
            cursor.execute('SELECT pg_advisory_xact_lock(%s)', [ADVISORY_LOCK_KEYS[name]])


def _set_m2m(obj, item, objects, changed):
    for name, members in m2m_resolved(item, objects).items():
        if name in changed and members:
            getattr(obj, name).set(members)
        elif name in changed:
            getattr(obj, name).clear()


PROGRESS_EVERY = 50  # objects between two progress reports
_APPLYING = ContextVar('netbox_aifabric_applying', default=False)


@receiver(post_save, sender=Cable, dispatch_uid='netbox_aifabric.apply.new_cable_snapshot')
def _new_cable_snapshot(sender, instance, created, **kwargs):
    """An apply's new cable takes its creation record as its snapshot. ``Cable.save()`` writes a new cable twice (the
    row, then with its terminations), and nothing takes a snapshot between the two: the second change record would
    have no "before", and NetBox Branching's revert of such a record sets every field to None (``a_terminations``:
    a TypeError, the revert of the whole branch fails). With the snapshot the record says what the second write
    changed, and a merged apply reverts. The bulk writer records its cables the same way."""
    if created and _APPLYING.get() and getattr(instance, '_postchange_snapshot', None) is not None:
        instance._prechange_snapshot = instance._postchange_snapshot


def apply_fabric(
    fabric: Fabric,
    confirm_delete: bool = False,
    progress: Callable | None = None,
    user=None,
    per_object=False,
    check: Callable | None = None,
):
    """Apply the fabric's plan in one transaction: create and update owned objects, delete (when confirmed) owned
    objects the plan no longer has. Raises :class:`ApplyConflictError` (and writes nothing) on any conflict.

    ``progress(done, total, model)``, when given, is called before the first write, every ``PROGRESS_EVERY`` objects
    written and at the end (``done`` counts the creates, updates, adoptions and deletions done so far).

    ``user``, when given, must be allowed each write by the constraints of its ObjectPermissions, as in NetBox's own
    views: every object changed or deleted before the write, every object created or changed after it (inside the
    transaction); else :class:`~netbox_aifabric.apply.permissions.ObjectPermissionError` and nothing is written.

    New objects of :data:`~.writer.BULK_MODELS` are written by the bulk writer (:mod:`~.writer`), with NetBox's side
    effects produced explicitly. ``per_object=True`` writes every object with one ``save()`` instead: the reference
    the equivalence oracle (``tests/integration/test_apply_equivalence.py``) holds the bulk writer equal to, not a
    product path.

    ``check(plan, changes)``, when given, runs inside the transaction on the plan and changes the apply computed,
    before the conflicts are refused and before anything is written: what it raises rolls everything back (the
    service's blockers, model permissions and choice of a background job, without a plan of their own).

    Returns:
        ``(plan, changes)`` as :func:`diff_fabric`.
    """
    # NetBox caches custom fields and object types per request (and job); give a shell or script apply the same
    cache_token = query_cache.set(defaultdict(dict)) if query_cache.get() is None else None
    applying = _APPLYING.set(True)
    try:
        with full_collections_deferred():
            return _apply(fabric, confirm_delete, progress, user, per_object, check)
    finally:
        _APPLYING.reset(applying)
        if cache_token is not None:
            query_cache.reset(cache_token)


def _before_writes(permissions, desired, changes, owned, owned_objects, adopted, confirm_delete):
    """The objects the apply will change or delete, as they are before it, into ``permissions``."""
    by_key = {c.key: c for c in changes}
    for item in desired:
        change = by_key[item.key]
        if change.action not in ('update', 'adopt'):
            continue
        key = item.attribute_of or item.key
        permissions.add(owned_objects.get(key) or adopted.get(key), 'change')  # None: created by this apply
    if confirm_delete:
        for change in changes:
            if change.action == 'delete' and not owned[change.key].adopted:
                permissions.add(owned_objects.get(change.key), 'delete')


@dataclass
class _Run:
    """The state of one apply's writes: the changes by key, the objects written or used so far, progress."""

    fabric: Fabric
    changes: list
    owned: dict
    owned_objects: dict
    permissions: ObjectPermissions
    progress: Callable | None
    writer: BulkWriter | None = None  # None: one save() per object (the equivalence oracle's reference)
    objects: dict = field(default_factory=dict)
    tag: Tag | None = None
    done: int = 0
    total: int = 0
    components: dict = field(default_factory=dict)  # device pk -> {interface name: interface} (bulk path)

    def __post_init__(self):
        self.by_key = {c.key: c for c in self.changes}

    def report(self, model=''):
        if self.progress is not None:
            self.progress(self.done, self.total, model)

    def tick(self, model):
        self.done += 1
        if self.done % PROGRESS_EVERY == 0:
            self.report(model)

    def own(self, item, obj, adopted=False):
        OwnedObject.objects.create(
            fabric=self.fabric,
            key=item.key,
            object_type=ContentType.objects.get_for_model(item.model),
            object_id=obj.pk,
            adopted=adopted,
        )


def _apply(fabric, confirm_delete, progress, user=None, per_object=False, check=None):
    permissions = ObjectPermissions(user)
    with branching.atomic():
        _lock(fabric)
        fabric.refresh_from_db()
        fabric.snapshot_before_apply()  # the fabric's change-log entry (mark_applied) starts from here
        # fabrics written without save() (bulk) get their nodes here; the plan reads them from here
        inputs = FabricInputs(fabric, given_nodes=tuple(fabric.sync_nodes()))
        plan = inputs.plan
        desired = desired_objects(inputs)
        adopted = {}
        changes, owned, owned_objects = compute_changes(fabric, desired, confirm_delete, inputs.conflicts, adopted)
        if check is not None:
            check(plan, changes)
        if any(c.action == 'conflict' for c in changes):
            raise ApplyConflictError(changes)
        _before_writes(permissions, desired, changes, owned, owned_objects, adopted, confirm_delete)
        permissions.check()
        run = _Run(fabric, changes, owned, owned_objects, permissions, progress)
        if not per_object and branching.active_branch() is None:  # a branch sees only saves (apply/branching.py)
            run.writer = BulkWriter(fabric, permissions)
        run.total = sum(
            c.action in ('create', 'update', 'adopt') or (c.action == 'delete' and confirm_delete) for c in changes
        )
        run.report()
        if confirm_delete:
            _delete_owned(run)
        _write(run, desired)
        permissions.check()  # after the writes, inside the transaction: a violation rolls everything back
        run.report()
        record = fabric.applied_record(plan.allocations)
        if fabric.applied_allocations != record:
            Fabric.objects.filter(pk=fabric.pk).update(applied_allocations=record)
            fabric.applied_allocations = record
    return plan, changes


def _delete_owned(run):
    """Deletions first (dependents before what they depend on), so replacements find their place free."""
    deletions = sorted((c for c in run.changes if c.action == 'delete'), key=lambda c: delete_rank(c.key))
    for change in deletions:
        record = run.owned[change.key]
        # Fetched afresh: an earlier deletion may have changed it (a removed cable) or taken it along
        obj = record.object_type.model_class().objects.filter(pk=record.object_id).first()
        if obj is not None and not record.adopted:
            obj.snapshot()
            obj.delete()
        record.delete()
        run.tick(change.model)


def _write(run, desired):
    """Every create, update and adoption of the plan. The per-object path writes in the plan's order; the bulk path
    in dependency levels (what nothing refers to first), flushing its staged objects before anything refers to them."""
    items = desired if run.writer is None else _by_level(desired)
    for item in items:
        change = run.by_key[item.key]
        later = item.attribute_of and change.action == 'update' and _set_later(run, item)
        if not later and run.writer is not None and (item.attribute_of or any(map(run.writer.is_staged, _refs(item)))):
            run.writer.flush()  # before anything refers to a staged object, and before a device's own save
        if change.action in ('create', 'update', 'adopt'):
            run.tick(change.model)
        if item.attribute_of:
            if change.action == 'update' and not later:
                _write_attribute(run, item)
        elif change.action in ('keep', 'use'):
            run.objects[item.key] = run.owned_objects.get(item.key) or item.model.objects.get(
                **resolved(item.lookup, run.objects)
            )
        elif change.action in ('update', 'adopt'):
            _write_existing(run, item, change)
        elif change.action == 'create':
            _write_create(run, item)
        if item.key == 'tag':
            run.tag = run.objects[item.key]
            if run.writer is not None:
                run.writer.tag = run.tag
    if run.writer is not None:
        run.writer.flush()


def _refs(item):
    """The keys of the desired objects ``item`` refers to (its lookup, values, many-to-many members, its target)."""
    keys = [item.attribute_of] if item.attribute_of else []
    for mapping in (item.lookup, item.values, item.create_only):
        for value in mapping.values():
            for member in value if isinstance(value, list) else [value]:
                if isinstance(member, Ref):
                    keys.append(member.key)
    keys.extend(ref.key for refs in item.m2m.values() for ref in refs)
    return keys


def _by_level(desired):
    """``desired`` ordered by dependency level (0: refers to no desired object; n: to ones of level < n), the plan's
    order kept within a level: all devices, then all LAGs, then all member ports … so the bulk writer's batches are
    whole families of objects. Values set on a device (its IPs, its context) come last, as in the plan: its save
    records its component counts, which must include every interface of the apply."""
    level = {}
    for item in desired:
        level[item.key] = 1 + max((level[key] for key in _refs(item) if key in level), default=-1)
    last = max(level.values(), default=0) + 1
    return sorted(desired, key=lambda item: last if item.attribute_of else level[item.key])


def _set_later(run, item):
    """Values for an object the bulk writer created, handed to it (set at its next flush); False otherwise."""
    if run.writer is None:
        return False
    values = resolved(item.values, run.objects)

    def assign(obj):
        for name, value in values.items():
            set_value(obj, name, value)
        return values.keys()

    return run.writer.set_later(item.attribute_of, assign)


def _write_attribute(run, item):
    """Values set on an object desired under another key (a device's primary and out-of-band IPs, its context)."""
    target = run.objects[item.attribute_of]
    target.refresh_from_db()  # its own save in this apply may be newer than this instance
    target.snapshot()
    for name, value in resolved(item.values, run.objects).items():
        set_value(target, name, value)
    _full_clean(target, item.key)
    target.save()
    run.permissions.add(target, 'change')


def _write_existing(run, item, change):
    """An owned object brought up to date, or an existing one adopted (owned and tagged from now on)."""
    obj = run.owned_objects.get(item.key) or item.model.objects.get(**resolved(item.lookup, run.objects))
    if change.fields:
        obj.snapshot()
        for name, value in resolved(item.values, run.objects).items():
            set_value(obj, name, value)
        _full_clean(obj, item.key)
        obj.save()
        _set_m2m(obj, item, run.objects, change.fields)
    run.permissions.add(obj, 'change')
    if change.action == 'adopt':
        if run.tag is not None and hasattr(obj, 'tags'):
            obj.tags.add(run.tag)
        run.own(item, obj, adopted=True)
    run.objects[item.key] = obj


class ApplyRefusedError(PlanError):
    """NetBox's own validation refused an object the apply writes (e.g. an address another object of the fabric
    still holds while the plan moves both); the transaction rolls back, nothing is written. ``field``: the object's
    plan key."""


def _full_clean(obj, key):
    try:
        obj.full_clean()
    except ValidationError as e:
        problems = '; '.join(f'{field}: {" ".join(messages)}' for field, messages in e.message_dict.items())
        raise ApplyRefusedError(
            key, f'NetBox refused {obj._meta.verbose_name} {obj}: {problems}. Nothing was written.'
        ) from None


def _write_create(run, item):
    """A new object: staged for the bulk writer where its model allows, else saved (with its tag and ownership)."""
    if item.key in run.owned:  # owned before, deleted outside the plugin since: recreate it
        run.owned[item.key].delete()
    attrs = {
        k: v
        for k, v in resolved({**item.lookup, **item.values, **item.create_only}, run.objects).items()
        if '__' not in k
    }
    existing = _made_by_parent(run, item) if item.from_parent else None
    if existing is None and run.writer is not None and run.writer.accepts(item.model, attrs):
        obj = item.model(**attrs)
        run.writer.stage(item.key, obj, m2m_resolved(item, run.objects))
        run.objects[item.key] = obj
        return
    if existing is not None:  # made by its (owned) parent just now: take it over
        obj = existing
        obj.snapshot()
        for name, value in attrs.items():
            setattr(obj, name, value)
    else:
        obj = item.model(**attrs)
    _full_clean(obj, item.key)
    obj.save()
    _set_m2m(obj, item, run.objects, item.m2m)
    if run.tag is not None and hasattr(obj, 'tags'):
        obj.tags.add(run.tag)
    run.permissions.add(obj, 'add')
    run.own(item, obj)
    run.objects[item.key] = obj


def _made_by_parent(run, item):
    """The object its (owned) parent made (an interface of the device type's templates), or None. The bulk path
    reads a device's interfaces once, the per-object path looks each one up."""
    lookup = resolved(item.lookup, run.objects)
    if run.writer is None or item.model is not Interface:
        return item.model.objects.filter(**lookup).first()
    device = lookup['device']
    if device.pk not in run.components:
        run.components[device.pk] = {i.name: i for i in Interface.objects.filter(device=device)}
    return run.components[device.pk].get(lookup['name'])


def refresh_contexts(fabric: Fabric) -> int:
    """Bring the ``aifabric`` context of every device the fabric owns up to date with its current intent (QoS
    profile, traffic classes, tenants, fabric settings), without an apply. Devices the plan does not have yet are left
    to the next apply. Returns the number of devices updated; an intent the planner rejects updates nothing."""
    records = {
        r.key[len('device:') :]: r.object_id
        for r in OwnedObject.objects.filter(fabric=fabric, key__startswith='device:')
    }
    if not records:
        return 0
    try:
        contexts = FabricInputs(fabric).contexts
    except PlanError:
        return 0
    updated = 0
    for device in Device.objects.filter(pk__in=records.values()).order_by('pk'):
        context = contexts.get(device.name)
        if context is None or (device.local_context_data or {}).get(CONTEXT_KEY) == context:
            continue
        device.snapshot()
        device.local_context_data = {**(device.local_context_data or {}), CONTEXT_KEY: context}
        device.save()
        updated += 1
    return updated
