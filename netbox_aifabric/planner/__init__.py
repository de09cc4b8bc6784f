"""The fabric planner: a pure-Python design core (netaddr and the standard library only, no Django, no NetBox).

Frozen spec dataclasses in, a deterministic :class:`Plan` out::

    from netbox_aifabric.planner import load_spec, plan_fabric
    plan = plan_fabric(load_spec(spec_dict))
"""

from netbox_aifabric.planner.errors import PlanError, PoolExhaustedError, SpecError
from netbox_aifabric.planner.loader import load_spec
from netbox_aifabric.planner.planner import leaf_port_demand, plan_fabric
from netbox_aifabric.planner.ports import UplinkFit, fit_uplinks
from netbox_aifabric.planner.previous import check_previous
from netbox_aifabric.planner.requirements import PoolNeed, asn_need, pool_needs
from netbox_aifabric.planner.result import (
    Attachment,
    LeafCapacity,
    Link,
    NodePlan,
    Plan,
    PlanWarning,
    PoolUsage,
    RackSubnet,
    VlanPlan,
    VrfPlan,
)
from netbox_aifabric.planner.spec import (
    FabricSpec,
    Maximums,
    NicLayout,
    Node,
    Platform,
    Pools,
    PortRange,
    RailGroup,
    Server,
    Tenant,
    TrafficClass,
)
from netbox_aifabric.planner.warnings import spec_warnings

__all__ = (
    'Attachment',
    'FabricSpec',
    'LeafCapacity',
    'Link',
    'Maximums',
    'NicLayout',
    'Node',
    'NodePlan',
    'Plan',
    'PlanError',
    'PlanWarning',
    'Platform',
    'PoolExhaustedError',
    'PoolNeed',
    'PoolUsage',
    'Pools',
    'PortRange',
    'RackSubnet',
    'RailGroup',
    'Server',
    'SpecError',
    'Tenant',
    'TrafficClass',
    'UplinkFit',
    'VlanPlan',
    'VrfPlan',
    'asn_need',
    'check_previous',
    'fit_uplinks',
    'leaf_port_demand',
    'load_spec',
    'plan_fabric',
    'pool_needs',
    'spec_warnings',
)
