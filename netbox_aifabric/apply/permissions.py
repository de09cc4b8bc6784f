"""Which NetBox permissions an apply needs: add/change/delete on every object type it would write."""

from django.utils.translation import gettext as _

__all__ = ('missing_permissions', 'missing_permissions_message')

PERMISSION_OF_ACTION = {'create': 'add', 'update': 'change', 'delete': 'delete'}


def missing_permissions(user, changes, confirm_delete: bool) -> list[str]:
    """The permissions (``app_label.action_model``) ``user`` lacks for ``changes``, sorted; empty when none."""
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
