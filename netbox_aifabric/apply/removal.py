"""Deleting a fabric deletes what its applies created: before, the devices, addresses and prefixes stayed,
owned by nothing, and a new fabric on the same pools met them as conflicts.

The delete confirmation lists these objects (:func:`objects_to_delete`); the deletion (:func:`delete_owned`, run by
the fabric's ``pre_delete`` signal, so the UI, the API and a shell all do it) is in the fabric's own transaction,
each object snapshotted and deleted as NetBox's delete views do (change-logged under the request), after the user's
permissions allowed every one of them. Adopted objects (brownfield) existed before the fabric: they stay, released
(the fabric's tag and ownership go).
"""

from django.db.models import ProtectedError, RestrictedError

from netbox_aifabric.apply import branching
from netbox_aifabric.apply.permissions import ObjectPermissions
from netbox_aifabric.apply.writes import delete_rank
from netbox_aifabric.models import OwnedObject

__all__ = ('delete_owned', 'objects_to_delete')

# kinds another fabric's devices may use too (a generic device type, a role): kept when something still refers to them
SHARED_KINDS = frozenset({'device-type', 'role', 'manufacturer', 'platform'})


def _rank(record):
    return delete_rank(record.key)


def _owned(fabric):
    """``[(record, object)]`` of the fabric's owned objects that still exist, in deletion order."""
    records = sorted(OwnedObject.objects.filter(fabric=fabric).select_related('object_type'), key=_rank)
    by_type = {}
    for record in records:
        by_type.setdefault(record.object_type, set()).add(record.object_id)
    objects = {}
    for object_type, pks in by_type.items():
        model = object_type.model_class()
        if model is None:  # a model no longer installed: nothing of it to delete
            continue
        for obj in model.objects.filter(pk__in=pks):
            objects[object_type.pk, obj.pk] = obj
    return [(r, objects[r.object_type_id, r.object_id]) for r in records if (r.object_type_id, r.object_id) in objects]


def objects_to_delete(fabric) -> dict:
    """``{model: [objects]}`` that deleting ``fabric`` deletes (not the adopted ones), for the confirmation."""
    grouped = {}
    for record, obj in _owned(fabric):
        if not record.adopted:
            grouped.setdefault(type(obj), []).append(obj)
    return grouped


def delete_owned(fabric, user=None) -> int:
    """Delete the objects ``fabric`` created, dependents first; returns how many were deleted. ``user`` must be
    allowed to delete each (its ObjectPermission constraints, as NetBox's views): else
    :class:`~.permissions.ObjectPermissionError` and nothing is deleted. Shared kinds still in use elsewhere stay."""
    owned = [(record, obj) for record, obj in _owned(fabric) if not record.adopted]
    permissions = ObjectPermissions(user)
    for _record, obj in owned:
        permissions.add(obj, 'delete')
    permissions.check()
    deleted = 0
    with branching.atomic():
        for record, obj in owned:
            current = type(obj).objects.filter(pk=obj.pk).first()  # an earlier deletion may have taken it along
            if current is None:
                continue
            current.snapshot()
            if record.key.split(':', 1)[0] in SHARED_KINDS:
                try:
                    with branching.savepoint():  # on the connection the delete goes to
                        current.delete()
                except (ProtectedError, RestrictedError):
                    continue  # another fabric's devices use it
            else:
                current.delete()
            deleted += 1
        OwnedObject.objects.filter(fabric=fabric).delete()
    return deleted
