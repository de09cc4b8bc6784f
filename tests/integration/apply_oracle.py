"""The apply's equivalence oracle: what one apply leaves behind, in a form two applies can be compared by.

:func:`record_apply` runs one apply inside a savepoint that is rolled back afterwards (so the next run starts from the
same database) under a fake request and a fresh event queue, and returns an :class:`ApplyRecord`: every object the
apply created (all its field values, many-to-many members included), every ``ObjectChange``, every ``CablePath``,
the search-cache rows NetBox's deferred indexing writes for the apply, and every queued event. Ids are replaced by
stable names (an owned object's key, a component's device and name, a cable termination's cable and end …), timestamps
and the request id are dropped, so the record of the per-object path and of the bulk path are equal exactly when the
two paths left the same things behind. :func:`differences` says where they are not, readably.
"""

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.db import connection, transaction
from django.db.models import ForeignKey, ManyToManyField, OneToOneField

from core.choices import JobStatusChoices
from core.models import Job, ObjectChange
from dcim.models import (
    Cable,
    CablePath,
    CableTermination,
    ConsolePort,
    Device,
    DeviceRole,
    DeviceType,
    Interface,
    Manufacturer,
)
from extras.models import CachedValue, Tag, TaggedItem
from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix, RouteTarget, VLANGroup
from netbox.context import current_request, events_queue
from netbox.search.backends import search_backend
from vpn.models import L2VPN, L2VPNTermination

from netbox_aifabric.apply.request import job_request
from netbox_aifabric.models import Fabric, OwnedObject

# What a first apply writes: the objects, their tags, the cable terminations and paths, the ownership rows, and
# components a device type's templates instantiate (interfaces, console ports)
MODELS = (
    Tag,
    VLANGroup,
    VLAN,
    Manufacturer,
    DeviceType,
    DeviceRole,
    Device,
    Interface,
    ConsolePort,
    Cable,
    CableTermination,
    CablePath,
    ASN,
    IPAddress,
    Prefix,
    RouteTarget,
    VRF,
    L2VPN,
    L2VPNTermination,
    TaggedItem,
    OwnedObject,
)
TREE_STEP = 19  # digits per level of a tree model's path (DeviceRole, …)
# differ between any two runs (a fabric's apply time and change-log request are its lifecycle's own)
DROPPED = {'created', 'last_updated', 'time', 'request_id', 'last_applied', 'last_apply_request_id'}


class _Rollback(Exception):
    pass


@dataclass
class ApplyRecord:
    objects: dict = field(default_factory=dict)  # 'model natural' -> normalised field values
    changes: Counter = field(default_factory=Counter)  # normalised ObjectChange rows (a multiset)
    paths: dict = field(default_factory=dict)  # origin -> normalised CablePath
    search: Counter = field(default_factory=Counter)  # normalised CachedValue rows
    events: dict = field(default_factory=dict)  # queue key -> normalised event
    fabric: dict = field(default_factory=dict)  # the fabric row after the apply (its allocations)
    jobs: Counter = field(default_factory=Counter)  # background jobs pending once the apply's commit hooks ran


class Names:
    """Stable names for the ids of one run: objects older than the apply keep their id (equal in both runs), the
    apply's own objects are named by what they are."""

    def __init__(self, before):
        self.before = before  # model -> highest pk before the apply
        self.owned = {
            (o.object_type.model_class(), o.object_id): o.key for o in OwnedObject.objects.select_related('object_type')
        }
        self.cache = {}

    def of(self, model, pk):
        if pk is None:
            return None
        model = model._meta.concrete_model
        if pk <= self.before.get(model, 0):
            return f'{model._meta.label_lower}#{pk}'
        if (model, pk) not in self.cache:
            self.cache[model, pk] = self._name(model, pk)
        return self.cache[model, pk]

    def of_node(self, node):
        """A cable path node, ``'<content type id>:<id>'``."""
        type_id, pk = (int(part) for part in node.split(':'))
        return self.of(ContentType.objects.get_for_id(type_id).model_class(), pk)

    def _name(self, model, pk):
        if (model, pk) in self.owned:
            return f'owned:{self.owned[model, pk]}'
        obj = model.objects.filter(pk=pk).first()
        if obj is None:  # deleted later in the same apply (a fabric node the sync replaced)
            return f'{model._meta.label_lower}:(deleted)'
        if hasattr(obj, 'device_id') and hasattr(obj, 'name'):
            return f'{self.of(Device, obj.device_id)}|{obj.name}'
        if model is CableTermination:
            end = self.of(obj.termination_type.model_class(), obj.termination_id)
            return f'{self.of(Cable, obj.cable_id)}|{obj.cable_end}|{end}'
        if model is CablePath:
            return f'path:{self.of_node(obj.path[0][0])}'
        if model is TaggedItem:
            return f'tagged:{obj.tag.name}|{self.of(obj.content_type.model_class(), obj.object_id)}'
        return f'{model._meta.label_lower}:{obj}'

    def text(self, model, text):
        """A representation with ids in it (a cable is ``#<id>``, its termination ``Cable #<id> to …``)."""
        if model in (Cable, CableTermination):
            return re.sub(r'#(\d+)', lambda match: f'#{self.of(Cable, int(match.group(1)))}', text)
        return text

    def data(self, model, data):
        """A serialized object (Django's serializer, a change-log or event snapshot) with ids named."""
        if data is None:
            return None
        out = {}
        for key, value in data.items():
            if key in DROPPED:
                continue
            out[key] = self._value(model, data, key, value)
        return out

    def _value(self, model, data, key, value):
        try:
            field_ = model._meta.get_field(key)
        except Exception:
            field_ = None
        if isinstance(field_, ForeignKey | OneToOneField) and field_.related_model is not ContentType:
            return self.of(field_.related_model, value)
        if isinstance(field_, ManyToManyField) and isinstance(value, list):
            return sorted(str(self.of(field_.related_model, v)) if isinstance(v, int) else str(v) for v in value)
        for generic in model._meta.private_fields:  # generic foreign keys: a content type beside an id
            if isinstance(generic, GenericForeignKey) and key == generic.fk_field and isinstance(value, int):
                type_id = data.get(generic.ct_field)
                return self.of(ContentType.objects.get_for_id(type_id).model_class(), value) if type_id else value
        if model is Cable and key in ('a_terminations', 'b_terminations'):  # Cable.serialize_object's termination ids
            return [self.of(CableTermination, pk) for pk in value]
        if key == 'path' and isinstance(value, str) and value.isdigit() and len(value) % TREE_STEP == 0:
            # a tree model's materialized path: its ancestors' ids, zero-padded
            steps = [value[i : i + TREE_STEP] for i in range(0, len(value), TREE_STEP)]
            return [self.of(model, int(step)) for step in steps]
        return value


def _highest_pks():
    return {
        model: (model.objects.order_by('-pk').values_list('pk', flat=True).first() or 0)
        for model in (*MODELS, ObjectChange)
    }


def _search_rows(names):
    """The search-cache rows NetBox's deferred indexing writes when the apply's transaction commits: the batches it
    registered on the connection, applied now, inside the savepoint."""
    cache_groups, remove_groups = {}, {}
    for _sids, func, _robust in connection.run_on_commit:
        batch = getattr(func, '_netbox_search_flush_batch', None)
        for (type_id, pk), op in (batch or {}).items():
            (remove_groups if op == 'remove' else cache_groups).setdefault(type_id, []).append(pk)
    search_backend._apply_deferred_updates(cache_groups=cache_groups, remove_groups=remove_groups)
    rows = Counter()
    for row in CachedValue.objects.filter(object_type_id__in=list(cache_groups)):
        model = ContentType.objects.get_for_id(row.object_type_id).model_class()
        if row.object_id in cache_groups.get(row.object_type_id, ()):
            rows[(names.of(model, row.object_id), row.field, row.type, str(row.value), row.weight)] += 1
    return rows


def _record(names, queue, fabric) -> ApplyRecord:
    record = ApplyRecord()
    for model in MODELS:
        if model is CablePath:
            continue
        new = model.objects.filter(pk__gt=names.before[model]).order_by('pk')
        for row in json.loads(serializers.serialize('json', new)):
            record.objects[f'{model._meta.label_lower} {names.of(model, row["pk"])}'] = names.data(model, row['fields'])
    for path in CablePath.objects.filter(pk__gt=names.before[CablePath]):
        record.paths[names.of(CablePath, path.pk)] = {
            'path': [sorted(names.of_node(node) for node in hop) for hop in path.path],
            'is_active': path.is_active,
            'is_complete': path.is_complete,
            'is_split': path.is_split,
            'destinations': sorted(str(names.of(type(d), d.pk)) for d in path.destinations),
        }
    record.changes = change_rows(names, ObjectChange.objects.filter(pk__gt=names.before[ObjectChange]))  # this run's
    record.search = _search_rows(names)
    for key, event in queue.items():
        model = event['object_type'].model_class()
        snapshots = event['snapshots']
        record.events[names.of(model, event['object_id'])] = {
            'key': key.split(':')[0],
            'event_type': event['event_type'],
            'user': event['user'].username,
            'prechange': names.data(model, snapshots['prechange']),
            'postchange': names.data(model, snapshots['postchange']),
        }
    fabric.refresh_from_db()
    record.fabric = {'applied_allocations': fabric.applied_allocations, 'status': fabric.status}
    record.jobs = _pending_jobs()
    return record


def change_rows(names, changes) -> Counter:
    """``changes`` (ObjectChange rows) normalised: action, model, object, related object, representation, user,
    message and the pre- and post-change data, ids named by ``names``; a multiset."""
    rows = Counter()
    for change in changes:
        model = change.changed_object_type.model_class()
        related = change.related_object_type.model_class() if change.related_object_type_id else None
        key = (
            change.action,
            model._meta.label_lower,
            names.of(model, change.changed_object_id),
            names.of(related, change.related_object_id) if related else None,
            names.text(model, change.object_repr),
            change.user_name,
            change.message,
            json.dumps(names.data(model, change.prechange_data), sort_keys=True, default=str),
            json.dumps(names.data(model, change.postchange_data), sort_keys=True, default=str),
        )
        rows[key] += 1
    return rows


def _pending_jobs():
    """The background jobs pending once the commit hooks NetBox's config-context invalidation registered have run
    (one per invalidation, each an ``enqueue_once`` of the render job), inside the savepoint: per job name."""
    for _sids, func, _robust in list(connection.run_on_commit):
        if getattr(func, '__qualname__', '').startswith('invalidate_config_context_for_objects.'):
            func()
    pending = Job.objects.filter(status__in=JobStatusChoices.ENQUEUED_STATE_CHOICES)
    return Counter(pending.values_list('name', flat=True))


def record_apply(fabric, user, apply) -> ApplyRecord:
    """Run ``apply(fabric)`` under a request of ``user`` and a fresh event queue, record what it left behind, then
    roll it all back (the database is as before)."""
    before = _highest_pks()
    request = job_request(user)
    record = None
    try:
        with transaction.atomic():
            request_token, queue_token = current_request.set(request), events_queue.set({})
            try:
                apply(Fabric.objects.get(pk=fabric.pk))  # a fresh instance: nothing cached from an earlier run
                record = _record(Names(before), events_queue.get(), Fabric.objects.get(pk=fabric.pk))
            finally:
                current_request.reset(request_token)
                events_queue.reset(queue_token)
            raise _Rollback
    except _Rollback:
        pass
    return record


def differences(reference: ApplyRecord, other: ApplyRecord, limit=15) -> str:
    """A readable account of where ``other`` differs from ``reference`` (empty when they are equal)."""
    lines = []
    for part in ('objects', 'paths', 'events', 'fabric'):
        ref, got = getattr(reference, part), getattr(other, part)
        for key in sorted(set(ref) | set(got), key=str):
            if ref.get(key) == got.get(key):
                continue
            if key not in got:
                lines.append(f'{part}: {key} only in the reference')
            elif key not in ref:
                lines.append(f'{part}: {key} only in the bulk apply')
            elif isinstance(ref[key], dict) and isinstance(got[key], dict):
                fields = sorted(k for k in set(ref[key]) | set(got[key]) if ref[key].get(k) != got[key].get(k))
                shown = '; '.join(f'{k}: {ref[key].get(k)!r} != {got[key].get(k)!r}' for k in fields)
                lines.append(f'{part}: {key}: {shown}')
            else:
                lines.append(f'{part}: {key}: {ref[key]!r} != {got[key]!r}')
    for part in ('changes', 'search', 'jobs'):
        ref, got = getattr(reference, part), getattr(other, part)
        for row in sorted((ref - got).elements(), key=str):
            lines.append(f'{part}: only in the reference: {row}')
        for row in sorted((got - ref).elements(), key=str):
            lines.append(f'{part}: only in the bulk apply: {row}')
    if len(lines) > limit:
        lines = [*lines[:limit], f'… and {len(lines) - limit} more differences']
    return '\n'.join(lines)
