from typing import TYPE_CHECKING, Annotated

import strawberry

from netbox.graphql.scalars import BigInt
from netbox.graphql.types import NetBoxObjectType, PrimaryObjectType, register_type

from netbox_aifabric import models
from netbox_aifabric.graphql.filters import (
    EVPNTenantFilter,
    FabricFilter,
    FabricNodeFilter,
    QoSProfileFilter,
    TrafficClassFilter,
    TrafficFlowFilter,
)

if TYPE_CHECKING:
    from core.graphql.types import DataSourceType
    from dcim.graphql.types import DeviceRoleType, DeviceType, DeviceTypeType, PlatformType, RackType, SiteType
    from ipam.graphql.types import ASNRangeType, RouteTargetType
    from tenancy.graphql.types import TenantType
    from users.graphql.types import UserType

__all__ = ('EVPNTenantType', 'FabricNodeType', 'FabricType', 'QoSProfileType', 'TrafficClassType', 'TrafficFlowType')

PrefixType = Annotated['PrefixType', strawberry.lazy('ipam.graphql.types')]
VLANType = Annotated['VLANType', strawberry.lazy('ipam.graphql.types')]
VRFType = Annotated['VRFType', strawberry.lazy('ipam.graphql.types')]


@register_type(models.TrafficClass, fields='__all__', filters=TrafficClassFilter, pagination=True)
class TrafficClassType(PrimaryObjectType):
    vlan: VLANType | None
    vrf: VRFType | None
    prefix: PrefixType | None
    dscp: list[int]
    reachable_from: list[Annotated['TrafficClassType', strawberry.lazy('netbox_aifabric.graphql.types')]]
    can_reach: list[Annotated['TrafficClassType', strawberry.lazy('netbox_aifabric.graphql.types')]]


@register_type(models.QoSProfile, fields='__all__', filters=QoSProfileFilter, pagination=True)
class QoSProfileType(PrimaryObjectType):
    roce_dscp: list[int]
    roce_priority: list[int]
    roce_tc: list[int]
    pfc_priorities: list[int]
    ecn_tcs: list[int]
    strict_tcs: list[int]
    ecn_min_threshold: BigInt | None
    ecn_max_threshold: BigInt | None
    fabrics: list[Annotated['FabricType', strawberry.lazy('netbox_aifabric.graphql.types')]]


@register_type(models.EVPNTenant, fields='__all__', filters=EVPNTenantFilter, pagination=True)
class EVPNTenantType(PrimaryObjectType):
    tenant: Annotated['TenantType', strawberry.lazy('tenancy.graphql.types')] | None
    vrf: VRFType | None
    import_targets: list[Annotated['RouteTargetType', strawberry.lazy('ipam.graphql.types')]]
    export_targets: list[Annotated['RouteTargetType', strawberry.lazy('ipam.graphql.types')]]
    traffic_classes: list[TrafficClassType]
    vlans: list[VLANType]


@register_type(models.Fabric, fields='__all__', filters=FabricFilter, pagination=True)
class FabricType(PrimaryObjectType):
    site: Annotated['SiteType', strawberry.lazy('dcim.graphql.types')] | None
    loopback_pool: PrefixType | None
    vtep_pool: PrefixType | None
    p2p_pool: PrefixType | None
    mlag_peer_pool: PrefixType | None
    management_pool: PrefixType | None
    jump_host_prefix: PrefixType | None
    leaf_asn_range: Annotated['ASNRangeType', strawberry.lazy('ipam.graphql.types')] | None
    spine_asn: BigInt | None
    qos_profile: QoSProfileType | None
    spine_device_type: Annotated['DeviceTypeType', strawberry.lazy('dcim.graphql.types')] | None
    leaf_device_type: Annotated['DeviceTypeType', strawberry.lazy('dcim.graphql.types')] | None
    server_device_type: Annotated['DeviceTypeType', strawberry.lazy('dcim.graphql.types')] | None
    management_device_type: Annotated['DeviceTypeType', strawberry.lazy('dcim.graphql.types')] | None
    spine_role: Annotated['DeviceRoleType', strawberry.lazy('dcim.graphql.types')] | None
    leaf_role: Annotated['DeviceRoleType', strawberry.lazy('dcim.graphql.types')] | None
    server_role: Annotated['DeviceRoleType', strawberry.lazy('dcim.graphql.types')] | None
    storage_role: Annotated['DeviceRoleType', strawberry.lazy('dcim.graphql.types')] | None
    platform: Annotated['PlatformType', strawberry.lazy('dcim.graphql.types')] | None
    spine_platform: Annotated['PlatformType', strawberry.lazy('dcim.graphql.types')] | None
    rack: Annotated['RackType', strawberry.lazy('dcim.graphql.types')] | None
    last_applied_by: Annotated['UserType', strawberry.lazy('users.graphql.types')] | None
    config_backup_source: Annotated['DataSourceType', strawberry.lazy('core.graphql.types')] | None
    syslog_servers: list[str]
    ntp_servers: list[str]
    snmp_managers: list[str]
    sflow_collectors: list[str]
    streaming_collectors: list[str]
    traffic_classes: list[TrafficClassType]
    tenants: list[EVPNTenantType]
    nodes: list[Annotated['FabricNodeType', strawberry.lazy('netbox_aifabric.graphql.types')]]


@register_type(models.FabricNode, fields='__all__', filters=FabricNodeFilter, pagination=True)
class FabricNodeType(NetBoxObjectType):
    fabric: FabricType | None  # None where the user may not view the fabric
    device: Annotated['DeviceType', strawberry.lazy('dcim.graphql.types')] | None


@register_type(models.TrafficFlow, fields='__all__', filters=TrafficFlowFilter, pagination=True)
class TrafficFlowType(NetBoxObjectType):
    fabric: FabricType | None  # None where the user may not view the fabric
    source_class: TrafficClassType | None
    destination_class: TrafficClassType | None
