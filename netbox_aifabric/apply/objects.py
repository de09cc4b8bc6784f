"""What an apply works with: the desired objects of a plan (:class:`Desired`, with :class:`Ref` to another desired
object and :class:`JsonKey` for one key of a JSON field), the NetBox interface types by speed and the generic roles."""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType

from dcim.models import Interface

__all__ = (
    'INTERFACE_TYPES',
    'ROLES',
    'Desired',
    'JsonKey',
    'Ref',
    'any_existing',
    'model_label',
    'on_interface',
    'same_assignment',
)


INTERFACE_TYPES = {
    1: '1000base-t',
    10: '10gbase-x-sfpp',
    25: '25gbase-x-sfp28',
    40: '40gbase-x-qsfpp',
    50: '50gbase-x-sfp56',
    100: '100gbase-x-qsfp28',
    200: '200gbase-x-qsfp56',
    400: '400gbase-x-qsfpdd',
    800: '800gbase-x-qsfpdd',
}


ROLES = {
    'spine': ('Spine', '2196f3'),
    'leaf': ('Leaf', '4caf50'),
    'gpu': ('GPU server', '9c27b0'),
    'storage': ('Storage server', 'ff9800'),
}


@dataclass(frozen=True)
class Ref:
    """A reference to another desired object, resolved to the NetBox object when applying."""

    key: str


@dataclass(frozen=True)
class JsonKey:
    """One key of a JSON field (a device's local context data): compared and set alone, other keys kept."""

    key: str
    data: dict

    def __str__(self):
        return f'{{{self.key!r}: {len(self.data)} entries}}'


@dataclass
class Desired:
    """One object the plan wants: where to look for an identical existing one, and its attribute values."""

    key: str
    model: type
    lookup: dict
    values: dict
    adoptable: bool = False  # an identical object owned by nobody may be used as it is (route targets, ASNs)
    reason: str = ''
    create_only: dict = field(default_factory=dict)  # set on creation, never compared afterwards (e.g. statuses)
    from_parent: bool = False  # may already exist, made by its owned parent (interfaces from a device type)
    attribute_of: str = ''  # not an object of its own: values set on the object desired under this key
    m2m: dict = field(default_factory=dict)  # many-to-many members, compared as sets: {'tagged_vlans': [Ref, …]}
    # Brownfield: an existing object found by the lookup that passes this check (existing, resolved values) is taken
    # over: owned from now on, updated like the fabric's own objects, but only released (never deleted) on shrink
    adopt: Callable | None = None


def model_label(model) -> str:
    return f'{model._meta.app_label}.{model._meta.model_name}'


def on_interface(interface_key):
    """IP address values assigning it to the interface desired under ``interface_key``."""
    return {
        'assigned_object_type': ContentType.objects.get_for_model(Interface),
        'assigned_object_id': Ref(interface_key),
    }


def any_existing(existing, values):
    return True


def same_assignment(existing, values):
    """An address may be taken over where it already sits on the interface the plan puts it on."""
    return (
        existing.assigned_object_type_id == values['assigned_object_type'].pk
        and existing.assigned_object_id == values['assigned_object_id']
    )
