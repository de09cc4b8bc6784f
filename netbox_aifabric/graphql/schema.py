import strawberry
import strawberry_django

from netbox_aifabric.graphql.types import (
    EVPNTenantType,
    FabricNodeType,
    FabricType,
    QoSProfileType,
    TrafficClassType,
    TrafficFlowType,
)


@strawberry.type(name='Query')
class AIFabricQuery:
    netbox_aifabric_traffic_class: TrafficClassType = strawberry_django.field()
    netbox_aifabric_traffic_class_list: list[TrafficClassType] = strawberry_django.field()

    netbox_aifabric_qos_profile: QoSProfileType = strawberry_django.field()
    netbox_aifabric_qos_profile_list: list[QoSProfileType] = strawberry_django.field()

    netbox_aifabric_evpn_tenant: EVPNTenantType = strawberry_django.field()
    netbox_aifabric_evpn_tenant_list: list[EVPNTenantType] = strawberry_django.field()

    netbox_aifabric_fabric: FabricType = strawberry_django.field()
    netbox_aifabric_fabric_list: list[FabricType] = strawberry_django.field()

    netbox_aifabric_fabric_node: FabricNodeType = strawberry_django.field()
    netbox_aifabric_fabric_node_list: list[FabricNodeType] = strawberry_django.field()

    netbox_aifabric_traffic_flow: TrafficFlowType = strawberry_django.field()
    netbox_aifabric_traffic_flow_list: list[TrafficFlowType] = strawberry_django.field()


schema = [AIFabricQuery]
