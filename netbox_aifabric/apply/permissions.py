"""Which NetBox permissions an apply needs, and NetBox's object-level constraints on what it writes.

:func:`missing_permissions` answers before anything is written: the model permissions (add/change/delete) of every
object type the apply would write. :class:`ObjectPermissions` then enforces the constraints of the user's
ObjectPermissions the way NetBox's own views do: an object changed or deleted must be in
``Model.objects.restrict(user, action)`` before the write, and an object created or changed must be in it after the
write, inside the apply's transaction, so a violation rolls everything back. One query per model and action.
"""

from collections import defaultdict
from dataclasses import replace

from django.apps import apps
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

__all__ = (
    'ObjectPermissionError',
    'ObjectPermissions',
    'missing_permissions',
    'missing_permissions_message',
    'visible_changes',
)

PERMISSION_OF_ACTION = {'create': 'add', 'update': 'change', 'adopt': 'change', 'delete': 'delete'}


def missing_permissions(user, changes, confirm_delete: bool) -> list[str]:
    """The permissions (``app_label.action_model``) ``user`` lacks for ``changes``, sorted; empty when none.

    Adopting an object (a device and its existing interfaces and addresses) changes it: ``change`` is needed."""
    needed = set()
    for change in changes:
        action = PERMISSION_OF_ACTION.get(change.action)
        if action is None or (change.action == 'delete' and not confirm_delete):
            continue
        app_label, model = change.model.split('.')
        needed.add(f'{app_label}.{action}_{model}')
    return sorted(perm for perm in needed if not user.has_perm(perm))


def missing_permissions_message(missing: list[str]) -> str:
    return _('Applying this fabric needs these permissions: {perms}.').format(perms=', '.join(missing))


class ObjectPermissionError(PermissionDenied):
    """An object the apply would write is outside the user's permission constraints; nothing was written."""


class ObjectPermissions:
    """Collects the objects a write touches, by model and action (``add``, ``change``, ``delete``), and checks them
    against ``user``'s ObjectPermission constraints, one query per model and action. ``user=None`` (a shell or
    management command) checks nothing."""

    def __init__(self, user):
        self.user = user
        self.pending = defaultdict(dict)  # (model, action) -> {pk: label}

    def add(self, obj, action):
        if self.user is not None and obj is not None and obj.pk is not None:
            self.pending[(type(obj), action)][obj.pk] = str(obj)

    def check(self):
        """Raises :class:`ObjectPermissionError` naming the first model and objects outside the constraints."""
        pending, self.pending = self.pending, defaultdict(dict)
        if self.user is None:
            return
        for (model, action), objects in sorted(pending.items(), key=lambda i: (i[0][0]._meta.label, i[0][1])):
            allowed = set(model.objects.restrict(self.user, action).filter(pk__in=objects).values_list('pk', flat=True))
            denied = [label for pk, label in objects.items() if pk not in allowed]
            if denied:
                shown = ', '.join(sorted(denied)[:5]) + (f' (+{len(denied) - 5})' if len(denied) > 5 else '')
                raise ObjectPermissionError(
                    _('Nothing was written: your permissions do not allow to {action} {model} {objects}.').format(
                        action=action, model=model._meta.label_lower, objects=shown
                    )
                )


HIDDEN = '(an object you may not view)'


def visible_changes(user, changes):
    """``changes`` as ``user`` may see them: a change of an existing object the user may not view (NetBox's
    ``restrict(user, 'view')``) keeps its action, model and key but not the object's name or fields. One query per
    model."""
    pks = defaultdict(set)
    for change in changes:
        if change.pk is not None:
            pks[change.model].add(change.pk)
    hidden = set()
    for label, wanted in pks.items():
        model = apps.get_model(label)
        seen = set(model.objects.restrict(user, 'view').filter(pk__in=wanted).values_list('pk', flat=True))
        hidden.update((label, pk) for pk in wanted - seen)
    if not hidden:
        return changes
    return [replace(c, object=HIDDEN, fields={}) if (c.model, c.pk) in hidden else c for c in changes]
