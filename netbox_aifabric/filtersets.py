import django_filters
import netaddr
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from core.models import DataSource
from dcim.models import Device, DeviceRole, DeviceType, Platform, Rack, Site
from ipam.models import VLAN, VRF, ASNRange, Prefix, RouteTarget
from netbox.filtersets import NetBoxModelFilterSet, PrimaryModelFilterSet
from tenancy.filtersets import TenancyFilterSet
from users.models import User
from utilities.filters import NumericArrayFilter, TreeNodeMultipleChoiceFilter
from utilities.filtersets import register_filterset

from netbox_aifabric.checks.rules import RULES
from netbox_aifabric.choices import (
    BmcAttachmentChoices,
    BurstinessChoices,
    DesignOptionChoices,
    FabricNodeRoleChoices,
    FabricStatusChoices,
    LeafPairingChoices,
    PFCWatchdogActionChoices,
    QoSModeChoices,
    QoSTrustChoices,
    RdmaNicFamilyChoices,
    ReachabilityChoices,
    ServerGroupChoices,
    SnmpVersionChoices,
    TrafficPurposeChoices,
    UnderlayChoices,
)
from netbox_aifabric.models import (
    ComplianceFamilyChoices,
    ComplianceFinding,
    ComplianceRun,
    ComplianceRunStatusChoices,
    ComplianceSeverityChoices,
    ConfigBackup,
    ConfigBackupSourceChoices,
    EVPNTenant,
    Fabric,
    FabricNode,
    QoSProfile,
    TrafficClass,
    TrafficFlow,
)
from netbox_aifabric.models.acceptance import (
    AcceptanceResult,
    AcceptanceResultStatusChoices,
    AcceptanceRun,
    AcceptanceRunKindChoices,
    AcceptanceRunStatusChoices,
)
from netbox_aifabric.models.fabrics import COLLECTOR_FIELDS

__all__ = (
    'AcceptanceResultFilterSet',
    'AcceptanceRunFilterSet',
    'ComplianceFindingFilterSet',
    'ComplianceRunFilterSet',
    'ConfigBackupFilterSet',
    'EVPNTenantFilterSet',
    'FabricFilterSet',
    'FabricNodeFilterSet',
    'QoSProfileFilterSet',
    'TrafficClassFilterSet',
    'TrafficFlowFilterSet',
)


class NameSearchMixin:
    """Free-text ``q``: name, slug and description."""

    def search(self, queryset, name, value):
        if not value.strip():
            return queryset
        return queryset.filter(Q(name__icontains=value) | Q(slug__icontains=value) | Q(description__icontains=value))


def _multi(model, label, **kwargs):
    return django_filters.ModelMultipleChoiceFilter(queryset=model.objects.all(), label=label, **kwargs)


def _tree(model, field_name, label):
    """A filter on a nested (tree) model that also matches its descendants, as NetBox's own filters do."""
    return TreeNodeMultipleChoiceFilter(
        queryset=model.objects.all(), field_name=field_name, lookup_expr='in', label=label
    )


@register_filterset
class TrafficClassFilterSet(NameSearchMixin, PrimaryModelFilterSet):
    purpose = django_filters.MultipleChoiceFilter(choices=TrafficPurposeChoices)
    vlan_id = _multi(VLAN, _('VLAN (ID)'))
    vrf_id = _multi(VRF, _('VRF (ID)'))
    vrf = _multi(VRF, _('VRF (RD)'), field_name='vrf__rd', to_field_name='rd')
    prefix_id = _multi(Prefix, _('Prefix (ID)'))
    dscp = NumericArrayFilter(field_name='dscp', lookup_expr='contains')
    reachability = django_filters.MultipleChoiceFilter(choices=ReachabilityChoices)
    reachable_from_id = _multi(TrafficClass, _('Reachable from (ID)'), field_name='reachable_from')
    can_reach_id = _multi(TrafficClass, _('Can reach (ID)'), field_name='can_reach')
    evpn_tenant_id = _multi(EVPNTenant, _('EVPN tenant (ID)'), field_name='evpn_tenants')
    fabric_id = _multi(Fabric, _('Fabric (ID)'), field_name='fabrics')

    class Meta:
        model = TrafficClass
        fields = (
            'id',
            'name',
            'slug',
            'purpose',
            'vid',
            'switch_priority',
            'queue',
            'lossless',
            'ecn',
            'mtu',
            'routed',
            'description',
        )


@register_filterset
class QoSProfileFilterSet(NameSearchMixin, PrimaryModelFilterSet):
    mode = django_filters.MultipleChoiceFilter(choices=QoSModeChoices)
    trust = django_filters.MultipleChoiceFilter(choices=QoSTrustChoices)
    pfcwd_action = django_filters.MultipleChoiceFilter(choices=PFCWatchdogActionChoices)
    roce_dscp = NumericArrayFilter(field_name='roce_dscp', lookup_expr='contains')
    roce_priority = NumericArrayFilter(field_name='roce_priority', lookup_expr='contains')
    roce_tc = NumericArrayFilter(field_name='roce_tc', lookup_expr='contains')
    pfc_priorities = NumericArrayFilter(field_name='pfc_priorities', lookup_expr='contains')
    ecn_tcs = NumericArrayFilter(field_name='ecn_tcs', lookup_expr='contains')
    strict_tcs = NumericArrayFilter(field_name='strict_tcs', lookup_expr='contains')

    class Meta:
        model = QoSProfile
        fields = (
            'id',
            'name',
            'slug',
            'mode',
            'trust',
            'cnp_dscp',
            'cnp_priority',
            'cnp_tc',
            'ecn_enabled',
            'ecn_threshold_unit',
            'ecn_min_threshold',
            'ecn_max_threshold',
            'ecn_probability',
            'pfc_watchdog',
            'pfcwd_poll_interval',
            'pfcwd_detection_polls',
            'pfcwd_detection_time',
            'pfcwd_restoration_time',
            'cable_length',
            'mtu',
            'preset',
            'source',
            'description',
        )


@register_filterset
class EVPNTenantFilterSet(NameSearchMixin, TenancyFilterSet, PrimaryModelFilterSet):
    vrf_id = _multi(VRF, _('VRF (ID)'))
    vrf = _multi(VRF, _('VRF (RD)'), field_name='vrf__rd', to_field_name='rd')
    import_target_id = _multi(RouteTarget, _('Import target (ID)'), field_name='import_targets')
    import_target = _multi(
        RouteTarget, _('Import target (name)'), field_name='import_targets__name', to_field_name='name'
    )
    export_target_id = _multi(RouteTarget, _('Export target (ID)'), field_name='export_targets')
    export_target = _multi(
        RouteTarget, _('Export target (name)'), field_name='export_targets__name', to_field_name='name'
    )
    traffic_class_id = _multi(TrafficClass, _('Traffic class (ID)'), field_name='traffic_classes')
    traffic_class = _multi(
        TrafficClass, _('Traffic class (slug)'), field_name='traffic_classes__slug', to_field_name='slug'
    )
    vlan_id = _multi(VLAN, _('VLAN (ID)'), field_name='vlans')
    fabric_id = _multi(Fabric, _('Fabric (ID)'), field_name='fabrics')

    class Meta:
        model = EVPNTenant
        fields = ('id', 'name', 'slug', 'l3vni', 'l2vni_base', 'anycast_gateway_mac', 'description')


@register_filterset
class FabricFilterSet(NameSearchMixin, PrimaryModelFilterSet):
    status = django_filters.MultipleChoiceFilter(choices=FabricStatusChoices)
    design_option = django_filters.MultipleChoiceFilter(choices=DesignOptionChoices)
    underlay = django_filters.MultipleChoiceFilter(choices=UnderlayChoices)
    leaf_pairing = django_filters.MultipleChoiceFilter(choices=LeafPairingChoices)
    site_id = _multi(Site, _('Site (ID)'))
    site = _multi(Site, _('Site (slug)'), field_name='site__slug', to_field_name='slug')
    loopback_pool_id = _multi(Prefix, _('Loopback pool (ID)'))
    vtep_pool_id = _multi(Prefix, _('VTEP pool (ID)'))
    p2p_pool_id = _multi(Prefix, _('Point-to-point pool (ID)'))
    mlag_peer_pool_id = _multi(Prefix, _('MLAG peer pool (ID)'))
    management_pool_id = _multi(Prefix, _('Management network (ID)'))
    jump_host_prefix_id = _multi(Prefix, _('Jump-host subnet (ID)'))
    bmc_attachment = django_filters.MultipleChoiceFilter(choices=BmcAttachmentChoices)
    rdma_nic_family = django_filters.MultipleChoiceFilter(choices=RdmaNicFamilyChoices)
    snmp_version = django_filters.MultipleChoiceFilter(choices=SnmpVersionChoices)
    observable = django_filters.BooleanFilter(method='filter_observable', label=_('Has a telemetry collector'))
    syslog_servers = django_filters.CharFilter(method='filter_collector', label=_('Syslog server (address)'))
    ntp_servers = django_filters.CharFilter(method='filter_collector', label=_('NTP server (address)'))
    snmp_managers = django_filters.CharFilter(method='filter_collector', label=_('SNMP manager (address)'))
    sflow_collectors = django_filters.CharFilter(method='filter_collector', label=_('sFlow collector (address)'))
    streaming_collectors = django_filters.CharFilter(
        method='filter_collector', label=_('Streaming collector (address)')
    )
    leaf_asn_range_id = _multi(ASNRange, _('Leaf ASN range (ID)'))
    spine_device_type_id = _multi(DeviceType, _('Spine device type (ID)'))
    leaf_device_type_id = _multi(DeviceType, _('Leaf device type (ID)'))
    server_device_type_id = _multi(DeviceType, _('Server device type (ID)'))
    management_device_type_id = _multi(DeviceType, _('Management switch device type (ID)'))
    spine_role_id = _tree(DeviceRole, 'spine_role', _('Spine role (ID)'))
    leaf_role_id = _tree(DeviceRole, 'leaf_role', _('Leaf role (ID)'))
    server_role_id = _tree(DeviceRole, 'server_role', _('GPU server role (ID)'))
    storage_role_id = _tree(DeviceRole, 'storage_role', _('Storage role (ID)'))
    platform_id = _tree(Platform, 'platform', _('Platform (ID)'))
    spine_platform_id = _tree(Platform, 'spine_platform', _('Spine platform (ID)'))
    rack_id = _multi(Rack, _('Rack (ID)'))
    qos_profile_id = _multi(QoSProfile, _('QoS profile (ID)'))
    qos_profile = _multi(QoSProfile, _('QoS profile (slug)'), field_name='qos_profile__slug', to_field_name='slug')
    traffic_class_id = _multi(TrafficClass, _('Traffic class (ID)'), field_name='traffic_classes')
    traffic_class = _multi(
        TrafficClass, _('Traffic class (slug)'), field_name='traffic_classes__slug', to_field_name='slug'
    )
    evpn_tenant_id = _multi(EVPNTenant, _('EVPN tenant (ID)'), field_name='tenants')
    last_applied_by_id = _multi(User, _('Last applied by (ID)'), field_name='last_applied_by')
    config_backup_source_id = _multi(DataSource, _('Config backup source (ID)'))

    class Meta:
        model = Fabric
        fields = (
            'id',
            'name',
            'slug',
            'status',
            'design_option',
            'underlay',
            'spine_count',
            'max_spines',
            'leaf_count',
            'max_leaves',
            'uplinks_per_spine',
            'max_parallel_uplinks',
            'server_count',
            'storage_count',
            'uplink_speed',
            'server_nic_count',
            'server_nic_speed',
            'rdma_nic_count',
            'rdma_nic_speed',
            'mtu',
            'oversubscription_target',
            'bfd',
            'spine_asn',
            'l2vni_base',
            'anycast_gateway_mac',
            'management_gateway',
            'last_applied',
            'last_plan_hash',
            'last_apply_request_id',
            'pending_change',
            'description',
            'snmp_user',
            'sflow_sampling_rate',
            'config_repository',
            'config_repository_branch',
            'config_backup_pattern',
        )

    def filter_collector(self, queryset, name, value):
        """Fabrics whose ``name`` list holds the address ``value`` (no fabric for a value that is not an IPv4
        address: the database would refuse it as inet)."""
        try:
            address = str(netaddr.IPAddress(value.strip(), version=4))
        except (netaddr.AddrFormatError, ValueError, TypeError):
            return queryset.none()
        return queryset.filter(**{f'{name}__contains': [address]})

    def filter_observable(self, queryset, name, value):
        """Fabrics with at least one telemetry collector (``True``) or none at all (``False``: nothing observable)."""
        none = Q()
        for field in COLLECTOR_FIELDS:
            none &= Q(**{field: []})
        return queryset.exclude(none) if value else queryset.filter(none)


@register_filterset
class FabricNodeFilterSet(NetBoxModelFilterSet):
    fabric_id = _multi(Fabric, _('Fabric (ID)'))
    fabric = _multi(Fabric, _('Fabric (slug)'), field_name='fabric__slug', to_field_name='slug')
    role = django_filters.MultipleChoiceFilter(choices=FabricNodeRoleChoices)
    device_id = _multi(Device, _('Adopted device (ID)'))
    adopted = django_filters.BooleanFilter(field_name='device', lookup_expr='isnull', exclude=True, label=_('Adopted'))

    class Meta:
        model = FabricNode
        fields = ('id', 'node_id', 'name', 'pair')

    def search(self, queryset, name, value):
        if not value.strip():
            return queryset
        return queryset.filter(name__icontains=value)


@register_filterset
class TrafficFlowFilterSet(NetBoxModelFilterSet):
    fabric_id = _multi(Fabric, _('Fabric (ID)'))
    fabric = _multi(Fabric, _('Fabric (slug)'), field_name='fabric__slug', to_field_name='slug')
    source_group = django_filters.MultipleChoiceFilter(choices=ServerGroupChoices)
    destination_group = django_filters.MultipleChoiceFilter(choices=ServerGroupChoices)
    source_class_id = _multi(TrafficClass, _('Source class (ID)'))
    destination_class_id = _multi(TrafficClass, _('Destination class (ID)'))
    burstiness = django_filters.MultipleChoiceFilter(choices=BurstinessChoices)

    class Meta:
        model = TrafficFlow
        fields = ('id', 'gbps', 'description')

    def search(self, queryset, name, value):
        if not value.strip():
            return queryset
        return queryset.filter(
            Q(description__icontains=value)
            | Q(source_class__name__icontains=value)
            | Q(destination_class__name__icontains=value)
        )


@register_filterset
class AcceptanceRunFilterSet(NetBoxModelFilterSet):
    fabric_id = _multi(Fabric, _('Fabric (ID)'))
    fabric = _multi(Fabric, _('Fabric (slug)'), field_name='fabric__slug', to_field_name='slug')
    kind = django_filters.MultipleChoiceFilter(choices=AcceptanceRunKindChoices)
    status = django_filters.MultipleChoiceFilter(choices=AcceptanceRunStatusChoices)

    class Meta:
        model = AcceptanceRun
        fields = ('id', 'time', 'user', 'passed', 'failed', 'not_verified', 'description')

    def search(self, queryset, name, value):
        if not value.strip():
            return queryset
        return queryset.filter(Q(description__icontains=value) | Q(fabric__name__icontains=value))


@register_filterset
class AcceptanceResultFilterSet(NetBoxModelFilterSet):
    run_id = _multi(AcceptanceRun, _('Run (ID)'))
    fabric_id = _multi(Fabric, _('Fabric (ID)'), field_name='run__fabric')
    kind = django_filters.MultipleChoiceFilter(
        choices=AcceptanceRunKindChoices, field_name='run__kind', label=_('Run kind')
    )
    status = django_filters.MultipleChoiceFilter(choices=AcceptanceResultStatusChoices)

    class Meta:
        model = AcceptanceResult
        fields = ('id', 'name', 'category', 'subject', 'value')

    def search(self, queryset, name, value):
        if not value.strip():
            return queryset
        return queryset.filter(Q(name__icontains=value) | Q(subject__icontains=value) | Q(category__icontains=value))


@register_filterset
class ComplianceRunFilterSet(NetBoxModelFilterSet):
    fabric_id = _multi(Fabric, _('Fabric (ID)'))
    fabric = _multi(Fabric, _('Fabric (slug)'), field_name='fabric__slug', to_field_name='slug')
    status = django_filters.MultipleChoiceFilter(choices=ComplianceRunStatusChoices)
    user_id = django_filters.ModelMultipleChoiceFilter(queryset=User.objects.all(), label=_('User (ID)'))
    user = django_filters.ModelMultipleChoiceFilter(
        queryset=User.objects.all(), field_name='user__username', to_field_name='username', label=_('User (name)')
    )
    rule = django_filters.CharFilter(method='filter_rule', label=_('A finding of this rule (ID)'))

    class Meta:
        model = ComplianceRun
        fields = ('id', 'score', 'rules', 'passed', 'failed', 'skipped', 'errored', 'finding_count', 'context_source')

    def search(self, queryset, name, value):
        if not value.strip():
            return queryset
        return queryset.filter(Q(fabric__name__icontains=value) | Q(user__username__icontains=value))

    def filter_rule(self, queryset, name, value):
        """Runs in which the rule has findings (rule ids are the engine's; an unknown one matches no run)."""
        return queryset.filter(findings__rule=value.strip()).distinct()


@register_filterset
class ComplianceFindingFilterSet(NetBoxModelFilterSet):
    run_id = _multi(ComplianceRun, _('Run (ID)'))
    fabric_id = _multi(Fabric, _('Fabric (ID)'), field_name='run__fabric')
    fabric = _multi(Fabric, _('Fabric (slug)'), field_name='run__fabric__slug', to_field_name='slug')
    rule = django_filters.MultipleChoiceFilter(choices=[(r.id, r.id) for r in RULES], label=_('Rule'))
    family = django_filters.MultipleChoiceFilter(choices=ComplianceFamilyChoices)
    severity = django_filters.MultipleChoiceFilter(choices=ComplianceSeverityChoices)
    device_id = django_filters.ModelChoiceFilter(
        queryset=Device.objects.all(), method='filter_device', label=_('Device (ID)')
    )
    latest = django_filters.BooleanFilter(method='filter_latest', label=_("Only each fabric's latest run"))

    class Meta:
        model = ComplianceFinding
        fields = ('id', 'object_type_id', 'object_id', 'object_repr')

    def search(self, queryset, name, value):
        if not value.strip():
            return queryset
        return queryset.filter(
            Q(rule__icontains=value)
            | Q(title__icontains=value)
            | Q(object_repr__icontains=value)
            | Q(expected__icontains=value)
            | Q(found__icontains=value)
        )

    def filter_device(self, queryset, name, value):
        return queryset.filter(device_ids__contains=[value.pk]) if value else queryset

    def filter_latest(self, queryset, name, value):
        if value is None:
            return queryset
        # by fabric_id: 'fabric' would sort by the Fabric's own ordering, which DISTINCT ON refuses
        runs = ComplianceRun.objects.order_by('fabric_id', '-created', '-pk').distinct('fabric_id')
        latest = list(runs.values_list('pk', flat=True))
        return queryset.filter(run__in=latest) if value else queryset.exclude(run__in=latest)


@register_filterset
class ConfigBackupFilterSet(NetBoxModelFilterSet):
    fabric_id = _multi(Fabric, _('Fabric (ID)'))
    fabric = _multi(Fabric, _('Fabric (slug)'), field_name='fabric__slug', to_field_name='slug')
    device_id = _multi(Device, _('Device (ID)'))
    device = _multi(Device, _('Device (name)'), field_name='device__name', to_field_name='name')
    source = django_filters.MultipleChoiceFilter(choices=ConfigBackupSourceChoices)

    class Meta:
        model = ConfigBackup
        fields = ('id', 'time', 'sha256', 'size', 'origin')

    def search(self, queryset, name, value):
        if not value.strip():
            return queryset
        return queryset.filter(Q(device__name__icontains=value) | Q(origin__icontains=value))
