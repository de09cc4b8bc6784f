"""The largest growth a fabric's switch device types have ports for: ``max spines`` × ``max parallel uplinks``.

Used by the wizard's defaults (``wizard_defaults``) and the demo (``seed.demo_hardware``). The planner's own port
assignment judges (``intake.spec.fabric_spec`` of a fabric with those maximums, a named error when a use runs out of
ports), so this follows the planner's rules as they are, including where a single-homed NIC takes its port.
"""

from netbox_aifabric.choices import DesignOptionChoices, LeafPairingChoices
from netbox_aifabric.intake.spec import fabric_spec
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import PlanError
from netbox_aifabric.planner.guide import GUIDE_SHAPE

__all__ = ('SHAPE_CANDIDATES', 'fitting_shape')

# (max spines, max parallel uplinks) from the most growth to the least: uplink ports reserved = their product
SHAPE_CANDIDATES = ((4, 2), (3, 2), (4, 1), (2, 2), (3, 1), (2, 1))


def fitting_shape(sizes, leaf_device_type, spine_device_type, design=DesignOptionChoices.EVPN_VXLAN, pairing=None):
    """``({'max_spines': n, 'max_parallel_uplinks': m}, None)`` for the first of :data:`SHAPE_CANDIDATES` (at least
    ``sizes['spine_count']`` spines) whose ports the device types have for ``sizes`` (the fabric's counts and
    speeds), or ``(None, the last candidate's error)`` when none fits. The planner's own port assignment judges."""
    error = None
    fabric = Fabric(
        name='shape',
        slug='shape',
        design_option=design,
        leaf_pairing=pairing or LeafPairingChoices.MLAG,
        leaf_device_type=leaf_device_type,
        spine_device_type=spine_device_type,
        **{**GUIDE_SHAPE, **sizes},
    )
    fabric._m2m_values = {'traffic_classes': [], 'tenants': []}
    for max_spines, max_parallel in SHAPE_CANDIDATES:
        if max_spines < fabric.spine_count or max_parallel < fabric.uplinks_per_spine:
            continue
        fabric.max_spines, fabric.max_parallel_uplinks = max_spines, max_parallel
        try:
            fabric_spec(fabric, pending=True)
        except PlanError as e:
            error = e
            continue
        return {'max_spines': max_spines, 'max_parallel_uplinks': max_parallel}, None
    return None, error
