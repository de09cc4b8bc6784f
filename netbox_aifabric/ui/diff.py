"""The diff of an apply as a person reads it: one row per object type with its verbose name and the counts,
expanding to the objects (name, link, each changed field as "old → new"), never a Python repr.

An attribute the apply sets on an object it creates in the same apply (a new device's primary IPv4 or its
``aifabric`` context) is part of that creation, not an update: before, the diff said "dcim.device 9 create / 13
update" before any device existed. An attribute set on an existing object makes that object's one update.

An object on a device is named with it ("leaf1 › Ethernet8", an address "leaf1 › Ethernet1 › 10.255.2.1/31", a
cable by its two ends: :attr:`~netbox_aifabric.apply.diff.Change.label`), and a device's context update lists what
changed per section, old → new (:mod:`netbox_aifabric.ui.context_diff`), instead of "set → the plan's context".
"""

from dataclasses import dataclass, field, replace

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.utils.translation import gettext as _

from netbox_aifabric.apply.diff import related_fields
from netbox_aifabric.apply.permissions import HIDDEN
from netbox_aifabric.ui.context_diff import ContextSummaryError, summarize_context

__all__ = ('DiffGroup', 'DiffRow', 'readable_diff')

ACTIONS = ('create', 'update', 'adopt', 'keep', 'use', 'delete', 'conflict')
SHOWN_ACTIONS = ('create', 'update', 'adopt', 'delete', 'conflict')  # rows listed under a type (keep/use: counted)
CONTEXT_FIELD = 'local_context_data'  # set one key at a time by the apply (the ``aifabric`` context)
EMPTY = '—'


@dataclass
class DiffRow:
    action: str
    name: str
    url: str = ''
    reason: str = ''
    fields: list = field(default_factory=list)  # [(field label, old, new)]
    device: str = ''  # the device the object belongs to ('' for fabric-wide objects)


@dataclass
class DiffGroup:
    label: str  # the model, e.g. dcim.device
    verbose_name: str  # Devices
    counts: dict
    rows: list

    @property
    def slug(self):
        return self.label.replace('.', '-')


def _text(value) -> str:
    """A diff value as text: lists joined, None as a dash, objects by their name."""
    if value is None or value == '' or value == []:
        return EMPTY
    if isinstance(value, list | tuple | set):
        return ', '.join(_text(v) for v in value)
    if isinstance(value, bool):
        return _('yes') if value else _('no')
    return str(value)


def _field_label(model, name) -> str:
    if name == CONTEXT_FIELD:
        return _('config context (aifabric)')
    try:
        return str(model._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:
        return name


def _old_value(obj, name):
    if obj is None:
        return EMPTY
    if name == CONTEXT_FIELD:
        return _('set') if (obj.local_context_data or {}).get('aifabric') else EMPTY
    value = getattr(obj, name, None)
    if hasattr(value, 'all'):  # many-to-many
        return _text([str(member) for member in value.all()])
    return _text(value)


def _new_value(name, value):
    if name == CONTEXT_FIELD:
        return _("the plan's context")  # the whole context: the device's Config Context tab shows it
    return _text(value)


def _merge_attributes(changes):
    """``{object key: [change, {field: new value}, {field: JsonKey}]}`` in the diff's order, with attribute changes
    folded into their object (the change whose key they name)."""
    by_key = {c.key: c for c in changes}
    objects = {}
    for change in changes:
        target = by_key.get(change.object) if change.object != change.key else None
        if target is None:
            own = dict(change.fields) if change.action != 'create' else {}  # a creation lists no fields
            entry = objects.setdefault(change.key, [change, {}, {}])
            entry[1] = {**own, **entry[1]}
            entry[2] = {**(change.json if change.action != 'create' else {}), **entry[2]}
            continue
        entry = objects.setdefault(target.key, [target, {}, {}])
        if change.action == 'update' and target.action != 'create':
            entry[1].update(change.fields)
            entry[2].update(change.json)
            if entry[0].action == 'keep':
                entry[0] = _as_update(target)
    return objects


def _as_update(change):
    return replace(change, action='update')


def _existing(model, pks, names=()):
    """The changed objects by pk, with the related objects of the changed fields ``names`` joined: their old values
    are shown, and a hand-set platform per device would otherwise cost a query per row."""
    if model is None or not pks:
        return {}
    related = related_fields(model, names)
    return (model.objects.select_related(*related) if related else model.objects).in_bulk(pks)


def readable_diff(changes) -> list[DiffGroup]:
    """The changes (already limited to what the user may view) grouped per object type, in the diff's order."""
    groups = {}
    for entry in _merge_attributes(changes).values():
        groups.setdefault(entry[0].model, []).append(entry)
    result = []
    for label, entries in groups.items():
        model = apps.get_model(label) if '.' in label else None
        shown = [(c, f) for c, f, _j in entries if c.pk and c.action in ('update', 'adopt', 'delete')]
        existing = _existing(model, [c.pk for c, _f in shown], [name for _c, f in shown for name in f])
        counts = dict.fromkeys(ACTIONS, 0)
        rows = []
        for change, fields, json in entries:
            counts[change.action] += 1
            if change.action in SHOWN_ACTIONS:
                rows.append(_row(model, change, fields, json, existing.get(change.pk)))
        verbose = str(model._meta.verbose_name_plural) if model is not None else label
        result.append(DiffGroup(label, verbose[:1].upper() + verbose[1:], counts, rows))
    return result


def _row(model, change, fields, json, obj) -> DiffRow:
    """One object's row: its name on its device, its link, each changed field old → new (a context per section)."""
    lines = []
    for name, value in sorted(fields.items()):
        if name in json:
            lines += _json_lines(model, obj, name, json[name])
        else:
            lines.append((_field_label(model, name), _old_value(obj, name), _new_value(name, value)))
    return DiffRow(
        change.action,
        change.label,
        url=obj.get_absolute_url() if obj is not None and hasattr(obj, 'get_absolute_url') else '',
        reason=change.reason,
        fields=lines,
        device='' if change.object == HIDDEN else change.device,
    )


def _json_lines(model, obj, name, value) -> list:
    """The field rows of one changed key of a JSON field (the ``aifabric`` context): per section of it, each path
    old → new, "… N more" after the section's first lines; the old "set → the plan's context" when the stored value
    is no mapping (edited by hand) and so has no sections."""
    stored = getattr(obj, name, None) if obj is not None else None
    old = stored.get(value.key) if isinstance(stored, dict) else None
    label = _field_label(model, name)
    try:
        sections = summarize_context(old, value.data)
    except ContextSummaryError:
        return [(label, _old_value(obj, name), _new_value(name, value))]
    lines = []
    for section in sections:
        lines += [(f'{label} › {line.path}', line.old, line.new) for line in section.lines]
        if section.more:
            lines.append((f'{label} › {section.section}', '', _('… {count} more').format(count=section.more)))
    return lines
