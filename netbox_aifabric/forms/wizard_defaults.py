"""What the fabric wizard proposes before the user types anything: defaults that plan, render and close management.

- **NOS and device types**: the default NOS (:data:`DEFAULT_NOS`) with the shipped leaf and spine device types it
  runs on (``facts.nos.NOS_REGISTRY``), when they are loaded (``aifabric_load_device_types`` or the demo).
- **Shape**: the maximums the leaf's ports leave room for (:func:`.shape.fitting_shape`), found by the planner's own
  port assignment (``apply.spec.fabric_spec``), so that the default plans on the chosen hardware; when no shape fits the
  shipped device types, none is preselected (the generic port blocks plan) and the reason is kept for the help text.
- **Jump hosts**: a /28 inside the guide's MGMT class (:func:`proposed_jump_hosts`).
- **Management switch**: the shipped 1G management switch type (``seed.MANAGEMENT_DEVICE_TYPE``) when loaded, so the
  plan cables every BMC and switch management port to it (:func:`management_switch_initial`); the user may clear it.
- **Intent**: the guide's five traffic classes, its RoCE QoS preset and the guide's EVPN tenant, when loaded.
- **Telemetry**: no collector is proposed (the operator's collector addresses cannot be guessed); the preview warns
  which services have none.

Nothing here writes to the database; the wizard view asks for these when a step has no stored data yet.
"""

import netaddr

from dcim.models import DeviceType

from netbox_aifabric.apply.shape import fitting_shape
from netbox_aifabric.facts.catalog import MANAGEMENT_DEVICE_TYPE, traffic_class_seed
from netbox_aifabric.facts.nos import nos_by_platform
from netbox_aifabric.models import EVPNTenant, QoSProfile, TrafficClass
from netbox_aifabric.planner.guide import GUIDE_POOLS, GUIDE_QOS_PRESET, GUIDE_SHAPE, GUIDE_TENANT

__all__ = (
    'DEFAULT_NOS',
    'intent_initial',
    'management_switch_initial',
    'nos_device_types',
    'proposed_jump_hosts',
    'topology_initial',
)

DEFAULT_NOS = 'sonic'
JUMP_HOST_LENGTH = 28


def nos_device_types(nos):
    """``(leaf, spine)`` DeviceTypes the shipped NOS ``nos`` runs on, each None when not loaded (or none shipped)."""
    entry = nos_by_platform(nos)
    if entry is None:
        return None, None
    found = []
    for slug in (entry.leaf_device_type, entry.spine_device_type):
        found.append(DeviceType.objects.filter(slug=slug).first() if slug else None)
    return tuple(found)


def topology_initial(nos=DEFAULT_NOS):
    """The topology step's initial values: the guide's sizes, the NOS, and its shipped device types with the
    maximums their ports allow; without them (not loaded, or the guide's cluster does not fit) the guide's sizes
    on generic ports. ``shape_note`` says which (the step's help text)."""
    initial = {'leaf_nos': nos}
    leaf, spine = nos_device_types(nos)
    if leaf is None or spine is None:
        return initial, None
    sizes = {key: value for key, value in GUIDE_SHAPE.items() if not key.startswith('max_')}
    shape, error = fitting_shape(sizes, leaf, spine)
    if shape is None:
        return initial, f'{leaf} and {spine} do not fit the default cluster ({error}); generic ports are proposed'
    initial.update(shape, leaf_device_type=leaf.pk, spine_device_type=spine.pk)
    return initial, f'{leaf} leaves and {spine} spines: at most {shape["max_spines"]} spines × ' + (
        f"{shape['max_parallel_uplinks']} parallel uplinks fit the leaf's {GUIDE_SHAPE['uplink_speed']}G ports"
    )


def management_switch_initial():
    """The pk of the shipped management switch type, None when it is not loaded."""
    return DeviceType.objects.filter(slug=MANAGEMENT_DEVICE_TYPE).values_list('pk', flat=True).first()


def proposed_jump_hosts():
    """A /28 inside the guide's MGMT class for the admin jump hosts (its second /28, as the guide's demo: the first
    keeps the gateway and the switches' neighbours): the MGMT class's NetBox prefix when linked, else the guide's
    MGMT prefix. None when the class's prefix is too small to hold a /28 besides the first."""
    mgmt = TrafficClass.objects.filter(purpose='management').select_related('prefix').order_by('pk').first()
    if mgmt is not None and mgmt.prefix is not None:
        network = netaddr.IPNetwork(str(mgmt.prefix.prefix))
    else:
        seed = next((e for e in traffic_class_seed() if e['purpose'] == 'management'), None)
        network = netaddr.IPNetwork(seed['prefix'] if seed else GUIDE_POOLS['jump_host_prefix'][0])
    if network.version != 4 or network.prefixlen > JUMP_HOST_LENGTH - 1:
        return None
    return str(list(network.subnet(JUMP_HOST_LENGTH, count=2))[1])


def intent_initial():
    """The intent step's initial values: the guide's traffic classes (by the shipped slugs), its RoCE QoS preset
    and its EVPN tenant, each when present."""
    slugs = [entry['slug'] for entry in traffic_class_seed()]
    initial = {'traffic_classes': list(TrafficClass.objects.filter(slug__in=slugs).values_list('pk', flat=True))}
    qos = QoSProfile.objects.filter(preset=GUIDE_QOS_PRESET).order_by('pk').first()
    if qos is not None:
        initial['qos_profile'] = qos.pk
    tenant = EVPNTenant.objects.filter(name=GUIDE_TENANT['name']).order_by('pk').first()
    if tenant is not None:
        initial['tenants'] = [tenant.pk]
    return {key: value for key, value in initial.items() if value}
