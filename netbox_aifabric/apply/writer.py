"""The apply's bulk writer: the creates of one apply written per model with ``bulk_create``, and NetBox's side effects
of each object produced explicitly, through NetBox's own code, as one ``save()`` per object would have produced them.

NetBox does the same for a device's components (``Device._instantiate_components``: ``bulk_create``, then the
``post_save`` signal sent per component). Per model and batch, after the objects' own ``clean()`` (at staging, in
:meth:`BulkWriter.stage`):

1. what the model's ``save()`` derives before its INSERT (``bulk_create`` calls no ``save()``): a component's
   denormalized site/location/rack, an interface's untagged VLAN without a mode, an address's lowercase DNS name;
2. ``bulk_create`` of the objects, then of their many-to-many rows and their fabric tag (NetBox's tag check,
   ``validate_assigned_tags``, runs once per batch: it depends on the object type and the tags only);
3. ``post_save`` sent per object, as NetBox sends it for components, with the change-log handler stood down
   (``current_request`` unset for the send: ``handle_changed_object`` does nothing without a request): the search
   backend's handler marks each object for NetBox's deferred indexing (NetBox 4.7 indexes after the commit, in its
   ``SearchCacheJob`` or inline) and every other receiver runs as for a save;
4. the change log: one ``ObjectChange`` per object from the object's own ``to_objectchange('create')`` (its
   many-to-many members and tags prefetched, so its data is what the per-object path's last coalesced entry holds),
   stamped with the request's user and id and written with one ``bulk_create``; the ``object created`` event queued
   per object through NetBox's ``enqueue_event`` into the request's event queue;
5. the fabric's ownership rows in one ``bulk_create``, with their change records as in 4 (ownership is change-logged).

Uniqueness and constraints are left to the diff (which looked every object up under the fabric lock) and to the
database. Which models go through here is :data:`BULK_MODELS`; every other write stays one ``save()`` per object.
The equivalence oracle (``tests/integration/test_apply_equivalence.py``) holds the result equal to the per-object
path's: objects, change log, cable paths, search cache, events.
"""

from collections import Counter
from dataclasses import dataclass, field

import netaddr
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db.models import prefetch_related_objects
from django.db.models.signals import m2m_changed, post_save
from django.utils import timezone
from django_prometheus.models import model_inserts, model_updates

from core.choices import ObjectChangeActionChoices
from core.events import OBJECT_CREATED, OBJECT_UPDATED
from core.models import ObjectChange
from dcim.choices import CableEndChoices
from dcim.models import Cable, CableTermination, Device, DeviceType, Interface
from dcim.models.cables import trace_paths
from dcim.models.device_components import ComponentModel
from dcim.signals import update_channelized_cable_paths, update_connected_endpoints
from dcim.utils import create_cablepaths
from extras.cache import invalidate_config_context_for_objects
from extras.constants import CC_FIELDS_BY_MODEL
from extras.events import enqueue_event
from extras.models import Subscription, Tag, TaggedItem
from extras.signals import _changed_fields, invalidate_on_device_vm_tag_change, notify_object_changed
from ipam.models import ASN, VLAN, IPAddress, Prefix, RouteTarget
from netbox.context import current_request, events_queue
from utilities.counters import get_counters_for_model, post_save_receiver, update_counter
from vpn.models import L2VPN, L2VPNTermination

from netbox_aifabric.models import OwnedObject

__all__ = ('BULK_MODELS', 'BulkWriter')

# Models whose save() has no effect beyond the signals above and the derivations of _as_save_would, and cables (their
# save() replayed by _write_cables). A prefix's parent/child bookkeeping is its post_save receiver's (sent per
# prefix); a device's save() also instantiates its type's component templates, so only devices of a type without any
# go in bulk (see BulkWriter.accepts); the rest (VRFs, tags, VLAN groups, types, roles) stay one save() per object
BULK_MODELS = frozenset({Interface, Cable, IPAddress, VLAN, ASN, RouteTarget, L2VPN, L2VPNTermination, Device, Prefix})
# A device type's counts of component templates: all zero, and Device.save() instantiates nothing
TEMPLATE_COUNTS = tuple(f.name for f in DeviceType._meta.concrete_fields if f.name.endswith('_template_count'))


@dataclass
class _Staged:
    key: str
    obj: object
    m2m: dict = field(default_factory=dict)  # field name -> members


class BulkWriter:
    """Collects the apply's new objects (:meth:`stage`) and writes them (:meth:`flush`) before anything refers to
    them; ``permissions`` (:class:`~.permissions.ObjectPermissions`) receives each written object."""

    def __init__(self, fabric, permissions):
        self.fabric = fabric
        self.permissions = permissions
        self.tag = None
        self.staged: dict[str, _Staged] = {}
        self.written: dict = {}  # key -> object created by this writer (the devices whose values it may set)
        self.attributes: dict[str, list] = {}  # key -> value setters for it, in the plan's order (one save each)
        self._templated: dict = {}  # device type pk -> whether it has component templates

    def accepts(self, model, values) -> bool:
        """Whether a new object of ``model`` with ``values`` goes through the bulk writer."""
        if model not in BULK_MODELS:
            return False
        if model is Device:  # Device.save() instantiates the type's components: such devices are saved one by one
            device_type = values['device_type']
            if device_type.pk not in self._templated:
                counts = DeviceType.objects.filter(pk=device_type.pk).values_list(*TEMPLATE_COUNTS).get()
                self._templated[device_type.pk] = any(counts)
            return not self._templated[device_type.pk]
        return True

    def set_later(self, key, assign) -> bool:
        """``assign(obj)`` (sets values on ``obj``, returns the field names) to be run on the object this writer
        created as ``key`` (a device's IPs, its context) at the next flush, as one save() each would set them; False
        (nothing staged) for an object it did not create."""
        if key not in self.written:
            return False
        self.attributes.setdefault(key, []).append(assign)
        return True

    def stage(self, key, obj, m2m):
        """``obj`` (new, unsaved) to be written at the next flush; its own ``clean()`` runs now."""
        # NetBox's full_clean() minus what queries per object: foreign keys are objects the apply holds,
        # uniqueness was the diff's
        obj.full_clean(exclude=_relations(obj), validate_unique=False, validate_constraints=False)
        self.staged[key] = _Staged(key, obj, m2m)

    def is_staged(self, key) -> bool:
        return key in self.staged

    def flush(self):
        """Write everything staged, model by model (staged objects never refer to each other), then the values set
        on objects already written."""
        by_model = {}
        for entry in self.staged.values():
            by_model.setdefault(type(entry.obj), []).append(entry)
        self.staged = {}
        for model, entries in by_model.items():
            self._write(model, entries)
            self.written.update((entry.key, entry.obj) for entry in entries)
        attributes, self.attributes = self.attributes, {}
        for round_ in range(max(map(len, attributes.values()), default=0)):
            # one round per save the per-object path makes on an object: each is a change-log entry of its own
            self._update({key: values[round_] for key, values in attributes.items() if round_ < len(values)})

    def _update(self, values_by_key):
        """Values set on written objects as ``_write_attribute``'s save() sets them: read afresh (with their
        many-to-many members, read by the snapshot), snapshot, set, cleaned, one UPDATE per field set for all, then
        ``post_save`` per object and an *update* change-log entry and event each."""
        by_model = {}
        for key, values in values_by_key.items():
            by_model.setdefault(type(self.written[key]), []).append((key, values))
        for model, items in by_model.items():
            fresh = model.objects.in_bulk([self.written[key].pk for key, _values in items])
            objs = [fresh[self.written[key].pk] for key, _values in items]
            prefetch_related_objects(objs, *[f.name for f in model._meta.many_to_many])
            names = {'last_updated'}
            for obj, (_key, assign) in zip(objs, items, strict=True):
                obj.snapshot()
                names.update(assign(obj))
                obj.full_clean(exclude=_relations(obj), validate_unique=False, validate_constraints=False)
                obj.last_updated = timezone.now()  # what save() sets (auto_now); bulk_update does not
            model.objects.bulk_update(objs, sorted(names))
            for key, _values in items:  # changed since their create entry: a later snapshot serializes them again
                self.written[key].__dict__.pop('_postchange_snapshot', None)
            _signals(model, objs, created=False)
            _change_log(model, objs, ObjectChangeActionChoices.ACTION_UPDATE, event=OBJECT_UPDATED)
            for obj in objs:
                self.permissions.add(obj, 'change')

    def _write(self, model, entries):
        if model is Cable:
            self._write_cables(entries)
            return
        objs = [entry.obj for entry in entries]
        _as_save_would(objs)
        model.objects.bulk_create(objs)
        self._m2m(model, entries)
        self._tags(model, objs)
        m2m_names = [f.name for f in model._meta.many_to_many]
        generic = [f.name for f in model._meta.private_fields if isinstance(f, GenericForeignKey)]
        prefetch_related_objects(objs, *m2m_names, *generic)
        _signals(model, objs)
        _change_log(model, objs, ObjectChangeActionChoices.ACTION_CREATE)
        self._own(model, entries)

    def _own(self, model, entries):
        object_type = ContentType.objects.get_for_model(model)
        owned = OwnedObject.objects.bulk_create(
            OwnedObject(fabric=self.fabric, key=entry.key, object_type=object_type, object_id=entry.obj.pk)
            for entry in entries
        )
        _change_log(OwnedObject, owned, ObjectChangeActionChoices.ACTION_CREATE)  # change-logged (its docstring)
        for entry in entries:
            self.permissions.add(entry.obj, 'add')

    def _write_cables(self, entries):
        """Cables as ``Cable.save()`` writes them, step by step for all at once: the cable (its first change-log
        entry has no terminations and no tag yet), its terminations, the terminating interfaces (an update each),
        the tag and the cable's second entry, then NetBox's path tracing once per cable end, after all cables exist."""
        cables = [entry.obj for entry in entries]
        Cable.objects.bulk_create(cables)
        for cable in cables:
            cable._pk = cable.pk  # what Cable.save() keeps for __str__
        prefetch_related_objects(cables, 'tags')
        _signals(Cable, cables)
        # the created event queued now, before the snapshot below (its "before" stays empty, as for a save)
        _change_log(Cable, cables, ObjectChangeActionChoices.ACTION_CREATE)
        for cable in cables:  # the second entry's "before" (writes._new_cable_snapshot: what a save records)
            if getattr(cable, '_postchange_snapshot', None) is not None:
                cable._prechange_snapshot = cable._postchange_snapshot
        terminations = []
        for cable in cables:
            for end, ends in (
                (CableEndChoices.SIDE_A, cable.a_terminations),
                (CableEndChoices.SIDE_B, cable.b_terminations),
            ):
                for termination in ends:
                    terminations.append(CableTermination(cable=cable, cable_end=end, termination=termination))
        for termination in terminations:
            termination.cache_related_objects()
        CableTermination.objects.bulk_create(terminations)
        _signals(CableTermination, terminations)
        _change_log(CableTermination, terminations, ObjectChangeActionChoices.ACTION_CREATE)
        interfaces = self._cabled(terminations)
        self._tags(Cable, cables)
        for cable in cables:
            cable._prefetched_objects_cache.pop('tags', None)  # read again: the tag is there now
        prefetch_related_objects(cables, 'tags')
        _signals(Cable, cables, created=False)
        _change_log(Cable, cables, ObjectChangeActionChoices.ACTION_UPDATE, event=OBJECT_CREATED)
        _trace(cables, terminations, interfaces)
        self._own(Cable, entries)

    def _cabled(self, terminations):
        """The terminating interfaces, fresh from the database as CableTermination.save() reads them, told their
        cable (NetBox's set_cable_termination) and written in one UPDATE, each with its change-log entry."""
        # the device (each change-log entry's related object) read along, the many-to-many members (read by each
        # snapshot and change-log entry) once for all: the same values as read one by one
        fresh = Interface.objects.select_related('device').in_bulk([t.termination_id for t in terminations])
        prefetch_related_objects(list(fresh.values()), *[f.name for f in Interface._meta.many_to_many])
        created = {obj.pk: obj for obj in self.written.values() if isinstance(obj, Interface)}
        interfaces = []
        for termination in terminations:
            interface = fresh[termination.termination_id]
            _snapshot(interface, created.get(interface.pk))
            interface.set_cable_termination(termination)
            interfaces.append(interface)
        Interface.objects.bulk_update(interfaces, ['cable', 'cable_end', 'cable_connector', 'cable_positions'])
        _signals(Interface, interfaces, created=False)
        _change_log(Interface, interfaces, ObjectChangeActionChoices.ACTION_UPDATE, event=OBJECT_UPDATED)
        return interfaces

    def _m2m(self, model, entries):
        for name in {name for entry in entries for name in entry.m2m}:
            manager_field = model._meta.get_field(name)
            through = manager_field.remote_field.through
            source, target = manager_field.m2m_field_name(), manager_field.m2m_reverse_field_name()
            through.objects.bulk_create(
                through(**{f'{source}_id': entry.obj.pk, f'{target}_id': member.pk})
                for entry in entries
                for member in entry.m2m.get(name, ())
            )

    def _tags(self, model, objs):
        if self.tag is None or not hasattr(model, 'tags'):
            return
        # NetBox's check of a tag's allowed object types (it reads the type and the tags only: once per batch)
        m2m_changed.send(
            sender=TaggedItem, instance=objs[0], action='pre_add', reverse=False, model=Tag, pk_set={self.tag.pk}
        )
        object_type = ContentType.objects.get_for_model(model)
        TaggedItem.objects.bulk_create(
            TaggedItem(tag=self.tag, content_type=object_type, object_id=obj.pk) for obj in objs
        )
        # post_add per object, as tags.add() sends it, with the change log stood down (the object's entry is written
        # with its tag by _change_log); a device's config-context cache invalidated for the batch at once (below)
        kwargs = {'action': 'post_add', 'reverse': False, 'model': Tag, 'pk_set': {self.tag.pk}, 'using': 'default'}
        receivers, asynchronous = m2m_changed._live_receivers(TaggedItem)
        token = current_request.set(None)
        try:
            if asynchronous:  # never batched: each sent as tags.add() sends it
                for obj in objs:
                    m2m_changed.send(sender=TaggedItem, instance=obj, **kwargs)
                return
            stale = []
            for obj in objs:
                for receiver in receivers:
                    if receiver is invalidate_on_device_vm_tag_change and isinstance(obj, Device):
                        stale.append(obj.pk)
                    else:
                        receiver(signal=m2m_changed, sender=TaggedItem, instance=obj, **kwargs)
            _invalidate_contexts(Device, stale)
        finally:
            current_request.reset(token)


def _snapshot(obj, written):
    """``obj.snapshot()``; for an object this writer created (``written``, the same row) and has not changed since,
    the data its create entry recorded instead (``to_objectchange`` keeps it as ``_postchange_snapshot``): what
    ``snapshot()`` returns for the row, without serializing it again (the oracle compares every entry's data)."""
    recorded = getattr(written, '_postchange_snapshot', None)
    if recorded is None:
        obj.snapshot()
    else:
        obj._prechange_snapshot = recorded


def _relations(obj):
    return [f.name for f in obj._meta.concrete_fields if f.is_relation]


def _as_save_would(objs):
    """What the models' own save() sets before the INSERT (as ``Device._instantiate_components`` does)."""
    for obj in objs:
        if isinstance(obj, Device):  # Device.save(): inherited from the type and the rack
            obj.airflow = obj.airflow or obj.device_type.airflow
            obj.cooling_method = obj.cooling_method or obj.device_type.cooling_method
            obj.platform = obj.platform or obj.device_type.default_platform
            if obj.rack and obj.rack.location:
                obj.location = obj.rack.location
        if isinstance(obj, Prefix):  # Prefix.save(): host bits cleared, the scope's objects cached
            obj.prefix = obj.prefix.cidr if isinstance(obj.prefix, netaddr.IPNetwork) else obj.prefix
            obj.cache_related_objects()
        if isinstance(obj, ComponentModel):
            obj._site, obj._location, obj._rack = obj.device.site, obj.device.location, obj.device.rack
        if isinstance(obj, Interface) and not obj.mode:
            obj.untagged_vlan = None
        if isinstance(obj, IPAddress):
            obj.dns_name = obj.dns_name.lower()


def _trace(cables, terminations, interfaces):
    """NetBox's path tracing once per cable end, after all cables exist: what ``Cable.save()``'s ``trace_paths``
    signal does. Its receiver (``update_connected_endpoints``) reads each end's terminations back from the database;
    when it is the only receiver, NetBox's ``create_cablepaths`` is called with the interfaces already in hand."""
    if trace_paths._live_receivers(Cable) != ([update_connected_endpoints], []):
        for cable in cables:
            cable._terminations_modified = True
            trace_paths.send(Cable, instance=cable, created=True, status_written=True)
            cable._terminations_modified = False
        return
    ends = {}
    for termination, interface in zip(terminations, interfaces, strict=True):
        ends.setdefault((termination.cable.pk, termination.cable_end), []).append(interface)
    for cable in cables:
        for end in (CableEndChoices.SIDE_A, CableEndChoices.SIDE_B):
            if ends.get((cable.pk, end)):
                create_cablepaths(ends[cable.pk, end])


def _signals(model, objs, created=True):
    """``post_save`` per object, as NetBox sends it after a bulk_create, with the change log stood down (written in
    bulk by :func:`_change_log`). Four receivers are batched where that is provably the same: the counters (one
    UPDATE per parent and counter, through NetBox's ``update_counter``), the notifications of an update (only the
    objects somebody subscribed to: one query for all), the channel receiver (a no-op for an interface with no
    channel and no channels) and the config-context invalidation (:func:`_invalidate_contexts`). Any asynchronous
    receiver: each sent as is."""
    receivers, asynchronous = post_save._live_receivers(model)
    token = current_request.set(None)
    try:
        if asynchronous:
            for obj in objs:
                post_save.send(model, instance=obj, created=created, raw=False, using='default', update_fields=None)
            return
        subscribed = _subscribed(model, objs) if not created else set()
        counts = Counter()
        stale = []
        for obj in objs:
            for receiver in receivers:
                if receiver is post_save_receiver:
                    _count(model, obj, created, counts)
                elif _is_context_save_handler(receiver, model):
                    if created or _changed_fields(obj, CC_FIELDS_BY_MODEL[model._meta.label_lower]):
                        stale.append(obj.pk)  # what the handler invalidates, for all at once
                elif receiver is notify_object_changed and obj.pk not in subscribed:
                    continue  # nobody subscribed: the receiver would find nobody to notify
                elif receiver is update_channelized_cable_paths and _channel_free(obj):
                    continue
                else:
                    receiver(
                        signal=post_save,
                        sender=model,
                        instance=obj,
                        created=created,
                        raw=False,
                        using='default',
                        update_fields=None,
                    )
        for (parent, pk, counter), value in counts.items():
            if value:
                update_counter(parent, pk, counter, value, using='default')
        _invalidate_contexts(model, stale)
    finally:
        current_request.reset(token)


def _is_context_save_handler(receiver, model):
    """NetBox's ``post_save`` receiver that invalidates a device's (or VM's) rendered config context when it is
    created or a field its contexts match on changes (``extras.signals._make_object_save_handler``)."""
    return (
        getattr(receiver, '__module__', None) == 'extras.signals'
        and getattr(receiver, '__qualname__', None) == '_make_object_save_handler.<locals>._handler'
        and model._meta.label_lower in CC_FIELDS_BY_MODEL
    )


def _invalidate_contexts(model, pks):
    """The config-context caches of ``pks`` invalidated as NetBox's receivers invalidate each one (its
    ``invalidate_config_context_for_objects``: the cache emptied, its generation counted up by one, a render job
    enqueued once after the commit), in one UPDATE for all instead of one per object: the same rows, the same
    generations, and the same single pending job (NetBox's ``enqueue_once`` coalesces the per-object enqueues)."""
    if pks:
        invalidate_config_context_for_objects(model._meta.label_lower, pks, using='default')


def _subscribed(model, objs):
    """The pks of ``objs`` somebody subscribed to (for ``notify_object_changed``)."""
    object_type = ContentType.objects.get_for_model(model)
    return set(
        Subscription.objects.filter(object_type=object_type, object_id__in=[obj.pk for obj in objs]).values_list(
            'object_id', flat=True
        )
    )


def _count(model, obj, created, counts):
    """What NetBox's counter receiver (``post_save_receiver``) adds and subtracts for ``obj``, into ``counts``."""
    for field_name, counter_name in get_counters_for_model(model):
        parent_model = model._meta.get_field(field_name).related_model
        new_pk = getattr(obj, field_name, None)
        has_old_field = field_name in obj.tracker
        old_pk = obj.tracker.get(field_name) if has_old_field else None
        if old_pk is not None:
            counts[parent_model, old_pk, counter_name] -= 1
        if new_pk is not None and (has_old_field or created):
            counts[parent_model, new_pk, counter_name] += 1


def _channel_free(obj):
    """An interface that neither is nor was a channel nor channelized: ``update_channelized_cable_paths`` does
    nothing for it (its parent set stays empty and no cable of it is mirrored)."""
    return (
        isinstance(obj, Interface)
        and not obj.channel_id
        and not obj._original_channel_id
        and not obj.channels
        and not obj._original_channels
    )


def _change_log(model, objs, action, event=OBJECT_CREATED):
    """One ObjectChange per object (its own ``to_objectchange(action)``), and ``event`` queued per object: what
    ``handle_changed_object`` records for a save inside a request."""
    request = current_request.get()
    if request is None:
        return  # no request, no change log and no events (as for a save)
    changes = []
    for obj in objs:
        change = obj.to_objectchange(action)
        if change is not None and change.has_changes:
            change.user, change.request_id = request.user, request.id
            change.user_name = request.user.username  # what ObjectChange.save() fills in
            changes.append(change)
    ObjectChange.objects.bulk_create(changes)
    queue = events_queue.get()
    for obj in objs:
        enqueue_event(queue, obj, request, event)
    events_queue.set(queue)
    counter = model_inserts if action == ObjectChangeActionChoices.ACTION_CREATE else model_updates
    counter.labels(model._meta.model_name).inc(len(objs))
