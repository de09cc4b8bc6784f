"""The diff of a fabric's desired objects against NetBox: one :class:`Change` per object (create, update, adopt,
keep, use, delete, conflict), without writing anything.

Every object an apply creates is recorded as owned by the fabric (:class:`~netbox_aifabric.models.OwnedObject`)
and tagged; objects the fabric does not own are never changed. An object that already exists in NetBox where the
plan wants one of its own (a /31 or address in the pool used elsewhere, an ASN of the leaf range) is a conflict, and
an apply with conflicts writes nothing. Brownfield: the devices of adopted nodes, their existing interfaces and the
addresses already where the plan puts them are taken over (``adopt``): owned from then on, released but never
deleted on shrink."""

from collections import Counter
from dataclasses import dataclass, field

from django.core.exceptions import FieldDoesNotExist

from dcim.models import Device
from vpn.models import L2VPNTermination

from netbox_aifabric.apply.collector import collections_paused
from netbox_aifabric.apply.desired import desired_objects
from netbox_aifabric.apply.objects import JsonKey, Ref, model_label
from netbox_aifabric.apply.permissions import HIDDEN
from netbox_aifabric.intake.inputs import FabricInputs
from netbox_aifabric.intake.plan import AdoptionConflict
from netbox_aifabric.models import Fabric, OwnedObject

__all__ = (
    'ACTIONS',
    'ApplyConflictError',
    'Change',
    'changes_of',
    'compute_changes',
    'diff_fabric',
    'differences',
    'm2m_resolved',
    'nothing_to_apply',
    'related_fields',
    'resolve',
    'resolved',
    'set_value',
    'summarize',
)


ACTIONS = ('create', 'update', 'adopt', 'keep', 'use', 'delete', 'conflict')
UNCHANGED = ('keep', 'use')  # the actions that leave NetBox as it is
CABLE_ENDS = ' ↔ '  # between a cable's two ends in its label


@dataclass
class Change:
    action: str
    key: str
    model: str
    object: str
    fields: dict = field(default_factory=dict)
    reason: str = ''
    pk: int | None = None  # the existing NetBox object's, when there is one (for view permissions)
    device: str = ''  # the device the object belongs to (its own name for a device), '' for fabric-wide objects
    where: str = ''  # where on it: 'leaf1' for an interface, 'leaf1 › Ethernet1' for its address, a cable's two ends
    json: dict = field(default_factory=dict)  # {field: JsonKey} of the changed JSON keys (the context), for the UI

    @property
    def label(self) -> str:
        """The object as the diff names it: on its device (and interface), 'leaf1 › Ethernet8'; a cable by its two
        ends; the object alone when it sits on no device, or when the user may not view it."""
        if self.object == HIDDEN or not self.where:
            return self.object
        if CABLE_ENDS in self.where:
            return self.where if self.object == self.key else f'{self.object} ({self.where})'
        return f'{self.where} › {self.object}'

    def to_dict(self) -> dict:
        """The change as the REST API gives it; an object on a device adds ``device`` and ``label`` (none for the
        fabric-wide objects, nor for one the user may not view)."""
        out = {
            'action': self.action,
            'key': self.key,
            'model': self.model,
            'object': self.object,
            'fields': self.fields,
            'reason': self.reason,
        }
        if self.device and self.object != HIDDEN:
            out.update(device=self.device, label=self.label)
        return out


class ApplyConflictError(Exception):
    """The plan collides with objects the fabric does not own; nothing was written."""

    def __init__(self, changes):
        self.changes = changes
        conflicts = [c for c in changes if c.action == 'conflict']
        super().__init__(
            f'{len(conflicts)} conflict(s): ' + '; '.join(f'{c.object}: {c.reason}' for c in conflicts[:5])
        )


def resolve(value, objects):
    if isinstance(value, list):
        return [resolve(v, objects) for v in value]
    return objects.get(value.key) if isinstance(value, Ref) else value


def resolved(mapping, objects):
    out = {}
    for name, value in mapping.items():
        obj = resolve(value, objects)
        if isinstance(value, Ref) and name.endswith('_id'):
            obj = obj.pk if obj is not None else None
        out[name] = obj
    return out


def _comparable(value):
    return value.pk if hasattr(value, 'pk') else (str(value) if value is not None else None)


def _shown(value):
    """A value as the diff shows it: objects by their name, everything else as JSON-friendly text."""
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return str(value) if value is not None and not isinstance(value, int | bool) else value


def _current(obj, name):
    """The comparable current value of ``obj.<name>``; foreign keys by their id, so nothing is loaded."""
    field = obj._meta.get_field(name) if name in {f.name for f in obj._meta.concrete_fields} else None
    if field is not None and field.is_relation:
        return getattr(obj, field.attname)
    return _comparable(getattr(obj, name))


def _differs(obj, name, value):
    if isinstance(value, JsonKey):
        return (getattr(obj, name) or {}).get(value.key) != value.data
    return _current(obj, name) != _comparable(value)


def set_value(obj, name, value):
    if isinstance(value, JsonKey):
        value = {**(getattr(obj, name) or {}), value.key: value.data}
    setattr(obj, name, value)


def differences(obj, values, m2m=None):
    """``{field: new value}`` for the values (and many-to-many members) ``obj`` does not have yet."""
    diff = {name: _shown(value) for name, value in values.items() if _differs(obj, name, value)}
    for name, members in (m2m or {}).items():
        current = {member.pk for member in getattr(obj, name).all()} if obj.pk else set()  # prefetched
        if current != {_comparable(m) for m in members}:
            # a None member is one this apply creates first (a new class's VLAN on an existing bond)
            diff[name] = sorted((_shown(m) for m in members), key=lambda v: (v is None, str(v)))
    return diff


def m2m_resolved(item, objects):
    return {name: [resolve(ref, objects) for ref in refs] for name, refs in item.m2m.items()}


def _adoption_change(conflict: AdoptionConflict) -> Change:
    return Change('conflict', f'adopt:{conflict.device}', model_label(Device), conflict.device, reason=conflict.reason)


def compute_changes(fabric, desired, confirm_delete, conflicts=(), adopted=None):
    """(changes, owned records by key, owned objects by key) without writing anything; ``adopted``, when given,
    receives the existing objects an adoption takes over, by key."""
    owned, owned_objects = _owned_of(fabric, desired)
    wanted = {item.key for item in desired}
    # Owned objects the plan no longer wants, by (model, id): a new object in their place replaces them
    leaving = {
        (record.object_type.model_class(), record.object_id): key for key, record in owned.items() if key not in wanted
    }
    objects, changes, places = {}, [_adoption_change(c) for c in conflicts], {}
    for item in desired:
        lookup = resolved(item.lookup, objects)
        values = resolved(item.values, objects)
        label = model_label(item.model)
        if item.attribute_of:
            target = objects.get(item.attribute_of)
            diff = differences(target, values) if target is not None else {k: _shown(v) for k, v in values.items()}
            change = Change('update' if diff else 'keep', item.key, label, item.attribute_of, diff)
            change.json = _json_of(values, diff)
            changes.append(_placed(change, item, places))
            continue
        m2m = m2m_resolved(item, objects)
        obj = owned_objects.get(item.key)
        if obj is not None:
            objects[item.key] = obj
            diff = differences(obj, values, m2m)
            change = Change('update' if diff else 'keep', item.key, label, str(obj), diff, pk=obj.pk)
            change.json = _json_of(values, diff)
            changes.append(_placed(change, item, places))
            continue
        change = _unowned_change(item, lookup, values, m2m, objects, owned_objects, leaving, confirm_delete, adopted)
        changes.append(_placed(change, item, places))

    deletions = [key for key in owned if key not in wanted]
    for key in sorted(deletions):
        record = owned[key]
        obj = owned_objects.get(key)
        device = _device_of(obj)
        changes.append(
            Change(
                'delete',
                key,
                f'{record.object_type.app_label}.{record.object_type.model}',
                str(obj) if obj is not None else f'#{record.object_id}',
                reason=('released (adopted, not deleted)' if record.adopted else '')
                if confirm_delete
                else 'kept until the apply confirms deletions',
                pk=record.object_id,
                device=device,
                where=device if device != str(obj) else '',
            )
        )
    return changes, owned, owned_objects


def nothing_to_apply(changes) -> bool:
    """True when no change writes anything: every object is kept or used as it is."""
    return all(c.action in UNCHANGED for c in changes)


def _json_of(values, diff) -> dict:
    """``{field: JsonKey}`` of the changed JSON keys among ``values``: the UI summarises them old → new."""
    return {name: value for name, value in values.items() if isinstance(value, JsonKey) and name in diff}


def _refs(values):
    for value in values:
        for one in value if isinstance(value, list) else (value,):
            if isinstance(one, Ref):
                yield one.key


def _placed(change: Change, item, places: dict) -> Change:
    """``change`` with the device its object belongs to and where on it (``places``: ``{key: (device, where)}`` of
    the objects desired so far, in the diff's dependency order), recording the object's own place for the objects
    on it: an interface sits on the device of its lookup, an address on the interface it is assigned to, a cable
    between its two ends."""
    if item.model is Device:
        name = item.key.removeprefix('device:') if item.key.startswith('device:') else change.object
        name = item.attribute_of.removeprefix('device:') if item.attribute_of else name
        change.device = name
        places.setdefault(item.key, (name, name))
        return change
    terminations = [*item.create_only.get('a_terminations', ()), *item.create_only.get('b_terminations', ())]
    ends = [places[key] for key in _refs(terminations) if key in places]
    if len(ends) == 2:
        change.device, change.where = ends[0][0], CABLE_ENDS.join(where for _device, where in ends)
        return change
    place = next((places[key] for key in _refs([*item.lookup.values(), *item.values.values()]) if key in places), None)
    if place is not None:
        change.device, change.where = place
        places[item.key] = (change.device, f'{change.where} › {change.object}')
    return change


def _device_of(obj) -> str:
    """The name of the device an owned object sits on ('' for none): read with it (``_owned_of``)."""
    if obj is None or not any(f.name == 'device' for f in obj._meta.concrete_fields):
        return str(obj) if isinstance(obj, Device) else ''
    return obj.device.name if obj.device_id else ''


def _owned_of(fabric, desired):
    """The fabric's ownership records by key, and the objects they point at by key (read per type, many-to-many
    members prefetched: the query count does not grow with the fabric)."""
    owned = {o.key: o for o in OwnedObject.objects.filter(fabric=fabric).select_related('object_type')}
    owned_objects = {}
    by_type = {}
    for record in owned.values():
        by_type.setdefault(record.object_type, []).append(record)
    m2m_names = {}
    for item in desired:
        m2m_names.setdefault(item.model, set()).update(item.m2m)
    for object_type, records in by_type.items():
        model = object_type.model_class()
        queryset = model.objects.prefetch_related(*sorted(m2m_names.get(model, ())))
        if any(f.name == 'device' and f.is_relation for f in model._meta.concrete_fields):
            queryset = queryset.select_related('device')  # the diff names an interface's device
        if model is L2VPNTermination:  # its str() names its VLAN and L2VPN: read with it, not one query per VLAN
            queryset = queryset.select_related('l2vpn').prefetch_related('assigned_object')
        instances = queryset.in_bulk([r.object_id for r in records])
        for record in records:
            if record.object_id in instances:
                owned_objects[record.key] = instances[record.object_id]
    return owned, owned_objects


def _unowned_change(item, lookup, values, m2m, objects, owned_objects, leaving, confirm_delete, adopted):
    """The change for a desired object the fabric does not own yet: made by its owned parent, a conflict, an
    adoption, an existing object used as it is, or a create. Records the object it resolves to in ``objects``."""
    label = model_label(item.model)
    unresolved = any(v is None for k, v in lookup.items() if isinstance(item.lookup.get(k), Ref))
    existing = None if unresolved else item.model.objects.filter(**lookup).first()
    parent_owned = item.from_parent and all(
        k not in item.lookup or not isinstance(item.lookup[k], Ref) or item.lookup[k].key in owned_objects
        for k in item.lookup
    )
    if existing is not None and parent_owned:
        objects[item.key] = existing
        return Change('create', item.key, label, str(existing), reason='made by its device', pk=existing.pk)
    replaced = leaving.get((item.model, existing.pk)) if existing is not None else None
    if replaced is not None and not confirm_delete:
        return Change(
            'conflict',
            item.key,
            label,
            str(existing),
            reason=f'held by {replaced}, which the plan no longer has: confirm deletions to replace it',
            pk=existing.pk,
        )
    if replaced is not None:
        existing = None  # deleted before the new object is created
    if existing is not None and item.adopt is not None and item.adopt(existing, values):
        objects[item.key] = existing
        if adopted is not None:
            adopted[item.key] = existing
        diff = differences(existing, values, m2m)
        return Change(
            'adopt', item.key, label, str(existing), diff, reason='existing object taken over', pk=existing.pk
        )
    if existing is not None:
        if item.adoptable and not differences(existing, {k: v for k, v in values.items() if k != 'description'}):
            objects[item.key] = existing
            return Change('use', item.key, label, str(existing), reason='existing object, not owned', pk=existing.pk)
        return Change('conflict', item.key, label, str(existing), reason=item.reason, pk=existing.pk)
    taken = _unique_taken(item.model, {k: v for k, v in values.items() if k not in item.lookup})
    if taken is not None and not (confirm_delete and (item.model, taken[0].pk) in leaving):
        holder, name = taken
        return Change(
            'conflict',
            item.key,
            label,
            str(holder),
            reason=f'its {name} "{values[name]}" is taken by an object the fabric does not own here',
            pk=holder.pk,
        )
    create_only = resolved(item.create_only, objects)
    fields = {k: _shown(v) for k, v in {**lookup, **values, **create_only}.items() if '__' not in k}
    fields.update({name: [ref.key for ref in refs] for name, refs in item.m2m.items()})
    objects[item.key] = None
    return Change('create', item.key, label, _display(item, lookup, values), fields)


def _unique_taken(model, values):
    """``(object, field)`` when an existing object already holds a unique value (other than the lookup) that a new
    object would take, e.g. a tag or L2VPN of the same name made outside the fabric: its creation would fail NetBox's
    validation, a 500 in the middle of the apply. ``None`` otherwise."""
    for name, value in values.items():
        if '__' in name or not isinstance(value, str | int) or isinstance(value, bool):
            continue
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        if field.unique and not field.primary_key:
            holder = model.objects.filter(**{name: value}).first()
            if holder is not None:
                return holder, name
    return None


def _display(item, lookup, values):
    for name in ('address', 'prefix', 'name', 'asn', 'vid'):
        if name in values:
            return str(values[name])
        if name in lookup:
            return str(lookup[name])
    return item.key


def summarize(changes) -> dict:
    """``{model: {action: count}}``."""
    counts = Counter((c.model, c.action) for c in changes)
    summary = {}
    for (model, action), n in sorted(counts.items()):
        summary.setdefault(model, dict.fromkeys(ACTIONS, 0))[action] = n
    return summary


def diff_fabric(fabric: Fabric, confirm_delete: bool = False):
    """The plan and the changes an apply would make, without writing anything: ``(plan, changes)``."""
    inputs = FabricInputs(fabric)
    with collections_paused():  # as changes_of: the plan too lives until the caller is done
        return inputs.plan, changes_of(inputs, confirm_delete)


def changes_of(inputs: FabricInputs, confirm_delete: bool = False) -> list[Change]:
    """The changes an apply of the plan of ``inputs`` would make, without writing anything.

    The garbage collector is paused while it runs (``apply.collector.collections_paused``): it reads every object
    the fabric owns and holds them to its end."""
    with collections_paused():
        changes, _, _ = compute_changes(inputs.fabric, desired_objects(inputs), confirm_delete, inputs.conflicts)
    return changes


def related_fields(model, names) -> list[str]:
    """The fields among ``names`` of ``model`` that hold one related object: to join (``select_related``) when the
    old values of changed fields are read, a query per object otherwise."""
    related = []
    for name in sorted(set(names)):
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        if field.concrete and (field.many_to_one or field.one_to_one):
            related.append(name)
    return related
