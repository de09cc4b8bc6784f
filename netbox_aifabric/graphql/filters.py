from typing import Annotated

import strawberry
import strawberry_django
from strawberry.scalars import ID
from strawberry_django import FilterLookup, StrFilterLookup

from netbox.graphql.filters import NetBoxModelFilter, PrimaryModelFilter, register_filter

from netbox_aifabric import models

__all__ = (
    'EVPNTenantFilter',
    'FabricFilter',
    'FabricNodeFilter',
    'QoSProfileFilter',
    'TrafficClassFilter',
    'TrafficFlowFilter',
)

IntegerLookup = Annotated['IntegerLookup', strawberry.lazy('netbox.graphql.filter_lookups')]
FloatLookup = Annotated['FloatLookup', strawberry.lazy('netbox.graphql.filter_lookups')]


@register_filter(models.TrafficClass, lookups=True)
class TrafficClassFilter(PrimaryModelFilter):
    name: StrFilterLookup | None = strawberry_django.filter_field()
    slug: StrFilterLookup | None = strawberry_django.filter_field()
    purpose: StrFilterLookup | None = strawberry_django.filter_field()
    vid: IntegerLookup | None = strawberry_django.filter_field()
    vrf_id: ID | None = strawberry_django.filter_field()
    switch_priority: IntegerLookup | None = strawberry_django.filter_field()
    queue: IntegerLookup | None = strawberry_django.filter_field()
    lossless: FilterLookup[bool] | None = strawberry_django.filter_field()
    ecn: FilterLookup[bool] | None = strawberry_django.filter_field()
    routed: FilterLookup[bool] | None = strawberry_django.filter_field()
    reachability: StrFilterLookup | None = strawberry_django.filter_field()
    mtu: IntegerLookup | None = strawberry_django.filter_field()


@register_filter(models.QoSProfile, lookups=True)
class QoSProfileFilter(PrimaryModelFilter):
    name: StrFilterLookup | None = strawberry_django.filter_field()
    slug: StrFilterLookup | None = strawberry_django.filter_field()
    mode: StrFilterLookup | None = strawberry_django.filter_field()
    trust: StrFilterLookup | None = strawberry_django.filter_field()
    cnp_dscp: IntegerLookup | None = strawberry_django.filter_field()
    ecn_enabled: FilterLookup[bool] | None = strawberry_django.filter_field()
    pfc_watchdog: FilterLookup[bool] | None = strawberry_django.filter_field()
    preset: StrFilterLookup | None = strawberry_django.filter_field()


@register_filter(models.EVPNTenant, lookups=True)
class EVPNTenantFilter(PrimaryModelFilter):
    name: StrFilterLookup | None = strawberry_django.filter_field()
    slug: StrFilterLookup | None = strawberry_django.filter_field()
    tenant_id: ID | None = strawberry_django.filter_field()
    vrf_id: ID | None = strawberry_django.filter_field()
    l3vni: IntegerLookup | None = strawberry_django.filter_field()
    l2vni_base: IntegerLookup | None = strawberry_django.filter_field()
    anycast_gateway_mac: StrFilterLookup | None = strawberry_django.filter_field()


@register_filter(models.Fabric, lookups=True)
class FabricFilter(PrimaryModelFilter):
    name: StrFilterLookup | None = strawberry_django.filter_field()
    slug: StrFilterLookup | None = strawberry_django.filter_field()
    site_id: ID | None = strawberry_django.filter_field()
    status: StrFilterLookup | None = strawberry_django.filter_field()
    design_option: StrFilterLookup | None = strawberry_django.filter_field()
    underlay: StrFilterLookup | None = strawberry_django.filter_field()
    leaf_pairing: StrFilterLookup | None = strawberry_django.filter_field()
    bfd: FilterLookup[bool] | None = strawberry_django.filter_field()
    bmc_attachment: StrFilterLookup | None = strawberry_django.filter_field()
    rdma_nic_family: StrFilterLookup | None = strawberry_django.filter_field()
    snmp_version: StrFilterLookup | None = strawberry_django.filter_field()
    oversubscription_target: FloatLookup | None = strawberry_django.filter_field()
    spine_count: IntegerLookup | None = strawberry_django.filter_field()
    leaf_count: IntegerLookup | None = strawberry_django.filter_field()
    server_count: IntegerLookup | None = strawberry_django.filter_field()
    qos_profile_id: ID | None = strawberry_django.filter_field()


@register_filter(models.FabricNode, lookups=True)
class FabricNodeFilter(NetBoxModelFilter):
    fabric_id: ID | None = strawberry_django.filter_field()
    role: StrFilterLookup | None = strawberry_django.filter_field()
    node_id: IntegerLookup | None = strawberry_django.filter_field()
    name: StrFilterLookup | None = strawberry_django.filter_field()
    pair: IntegerLookup | None = strawberry_django.filter_field()
    device_id: ID | None = strawberry_django.filter_field()


@register_filter(models.TrafficFlow, lookups=True)
class TrafficFlowFilter(NetBoxModelFilter):
    fabric_id: ID | None = strawberry_django.filter_field()
    source_group: StrFilterLookup | None = strawberry_django.filter_field()
    destination_group: StrFilterLookup | None = strawberry_django.filter_field()
    source_class_id: ID | None = strawberry_django.filter_field()
    destination_class_id: ID | None = strawberry_django.filter_field()
    burstiness: StrFilterLookup | None = strawberry_django.filter_field()
    description: StrFilterLookup | None = strawberry_django.filter_field()
