from collections.abc import Mapping
from functools import wraps

from django.utils.translation import gettext as _
from rest_framework import serializers

from core.api.serializers import DataSourceSerializer, JobSerializer
from dcim.api.serializers import (
    DeviceRoleSerializer,
    DeviceSerializer,
    DeviceTypeSerializer,
    PlatformSerializer,
    RackSerializer,
    SiteSerializer,
)
from extras.api.serializers import ConfigTemplateSerializer
from ipam.api.serializers import (
    ASNRangeSerializer,
    PrefixSerializer,
    RouteTargetSerializer,
    VLANSerializer,
    VRFSerializer,
)
from ipam.models import VLAN
from netbox.api.fields import ChoiceField, ContentTypeField, RelatedObjectCountField, SerializedPKRelatedField
from netbox.api.serializers import NetBoxModelSerializer, PrimaryModelSerializer
from netbox.api.serializers.features import ChangeLogMessageSerializer
from tenancy.api.serializers import TenantSerializer
from users.api.serializers import UserSerializer

from netbox_aifabric.choices import (
    BmcAttachmentChoices,
    BurstinessChoices,
    DesignOptionChoices,
    ECNThresholdUnitChoices,
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
from netbox_aifabric.models.fabrics import CONFIG_MANAGEMENT_FIELDS, TELEMETRY_FIELDS

__all__ = (
    'AcceptanceResultSerializer',
    'AcceptanceRunSerializer',
    'AcceptanceUploadSerializer',
    'ComplianceFindingSerializer',
    'ComplianceRunSerializer',
    'ConfigBackupSerializer',
    'EVPNTenantSerializer',
    'FabricNodeSerializer',
    'FabricSerializer',
    'QoSProfileSerializer',
    'TrafficClassSerializer',
    'TrafficFlowSerializer',
)


def _refuse_bad_lookups(to_internal_value):
    @wraps(to_internal_value)
    def wrapper(data):
        try:
            return to_internal_value(data)
        except (TypeError, ValueError) as e:
            raise serializers.ValidationError(
                _('Related object not found using the provided attributes: {error}').format(error=e)
            ) from None

    return wrapper


# Keys a client sends back unchanged from a GET (identity and timestamps): accepted and ignored, as NetBox does, so that
# a GET-modify-PUT round trip works. Every other read-only key, and any key the serializer does not have, is a 400.
ECHOED_FIELDS = frozenset({'id', 'url', 'display_url', 'display', 'created', 'last_updated'})


def refused_fields(serializer, data) -> dict[str, list[str]]:
    """``{key: [why]}`` for the keys of a request body ``serializer`` would silently drop: unknown ones and read-only
    ones (DRF ignores both; a tenant POST with ``import_targets`` answered 201 without route targets)."""
    fields = serializer.fields
    refused = {}
    for key in data:
        if key == 'changelog_message' and isinstance(serializer, ChangeLogMessageSerializer):
            continue  # NetBox's write-only key of every write, declared outside Meta.fields
        field = fields.get(key)
        if field is None:
            known = ', '.join(sorted(name for name, f in fields.items() if not f.read_only))
            refused[str(key)] = [_('Unknown field (the writable fields are: {known}).').format(known=known)]
        elif field.read_only and key not in ECHOED_FIELDS:
            refused[str(key)] = [_('This field is read-only: the plugin sets it, a request cannot.')]
    return refused


class StrictFieldsMixin:
    """A request body with a key the serializer does not declare, or a read-only one, is a 400 naming each such key,
    before anything else is validated (so nothing is written). Not for a nested (related-object) lookup."""

    def to_internal_value(self, data):
        if not getattr(self, 'nested', False) and isinstance(data, Mapping):
            if refused := refused_fields(self, data):
                raise serializers.ValidationError(refused)
        return super().to_internal_value(data)


class NestedLookupMixin(StrictFieldsMixin):
    """A related object given as attributes of the wrong type (``{"site": {"id": ""}}``) is a 400 on its field.

    NetBox 4.7 resolves such attributes with ``queryset.get(**attrs)`` and catches only ``DoesNotExist``,
    ``MultipleObjectsReturned`` and ``FieldError``, so the ``ValueError`` of ``{"id": ""}`` was a 500 (found by
    tests/integration/test_api_fuzz.py). The nested fields' instances are wrapped, not their classes, so the OpenAPI
    schema is NetBox's."""

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            nested = getattr(field, 'child', field)  # many=True: the list's child
            if getattr(nested, 'nested', False) and not field.read_only:
                nested.to_internal_value = _refuse_bad_lookups(nested.to_internal_value)
        return fields


class TrafficClassSerializer(NestedLookupMixin, PrimaryModelSerializer):
    purpose = ChoiceField(choices=TrafficPurposeChoices)
    vlan = VLANSerializer(nested=True, required=False, allow_null=True)
    vrf = VRFSerializer(nested=True, required=False, allow_null=True)
    prefix = PrefixSerializer(nested=True, required=False, allow_null=True)
    reachability = ChoiceField(choices=ReachabilityChoices, required=False)
    reachable_from = serializers.PrimaryKeyRelatedField(queryset=TrafficClass.objects.all(), many=True, required=False)

    class Meta:
        model = TrafficClass
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'name',
            'slug',
            'purpose',
            'vid',
            'vlan',
            'vrf',
            'prefix',
            'dscp',
            'switch_priority',
            'queue',
            'lossless',
            'ecn',
            'mtu',
            'routed',
            'reachability',
            'reachable_from',
            'description',
            'owner',
            'comments',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        brief_fields = ('description', 'display', 'id', 'name', 'purpose', 'slug', 'url', 'vid')


class QoSProfileSerializer(NestedLookupMixin, PrimaryModelSerializer):
    mode = ChoiceField(choices=QoSModeChoices)
    trust = ChoiceField(choices=QoSTrustChoices, required=False)
    ecn_threshold_unit = ChoiceField(choices=ECNThresholdUnitChoices, required=False)
    pfcwd_action = ChoiceField(choices=PFCWatchdogActionChoices, required=False, allow_null=True)
    fabric_count = RelatedObjectCountField('fabrics')

    class Meta:
        model = QoSProfile
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'name',
            'slug',
            'mode',
            'trust',
            'roce_dscp',
            'roce_priority',
            'roce_tc',
            'cnp_dscp',
            'cnp_priority',
            'cnp_tc',
            'pfc_priorities',
            'ecn_enabled',
            'ecn_threshold_unit',
            'ecn_min_threshold',
            'ecn_max_threshold',
            'ecn_probability',
            'ecn_tcs',
            'strict_tcs',
            'dwrr_weights',
            'pfc_watchdog',
            'pfcwd_poll_interval',
            'pfcwd_detection_polls',
            'pfcwd_detection_time',
            'pfcwd_restoration_time',
            'pfcwd_action',
            'cable_length',
            'mtu',
            'preset',
            'source',
            'description',
            'owner',
            'comments',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
            'fabric_count',
        )
        brief_fields = ('description', 'display', 'id', 'mode', 'name', 'slug', 'url')


class EVPNTenantSerializer(NestedLookupMixin, PrimaryModelSerializer):
    tenant = TenantSerializer(nested=True, required=False, allow_null=True)
    vrf = VRFSerializer(nested=True, required=False, allow_null=True)
    # read-only: the plan's route targets, written by each apply (apply/route_targets.py)
    import_targets = RouteTargetSerializer(nested=True, many=True, read_only=True)
    export_targets = RouteTargetSerializer(nested=True, many=True, read_only=True)
    traffic_classes = SerializedPKRelatedField(
        queryset=TrafficClass.objects.all(), serializer=TrafficClassSerializer, nested=True, required=False, many=True
    )
    vlans = SerializedPKRelatedField(
        queryset=VLAN.objects.all(), serializer=VLANSerializer, nested=True, required=False, many=True
    )

    class Meta:
        model = EVPNTenant
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'name',
            'slug',
            'tenant',
            'vrf',
            'l3vni',
            'l2vni_base',
            'import_targets',
            'export_targets',
            'anycast_gateway_mac',
            'traffic_classes',
            'vlans',
            'description',
            'owner',
            'comments',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        model_clean_fields = ('anycast_gateway_mac',)
        brief_fields = ('description', 'display', 'id', 'l3vni', 'name', 'slug', 'url')


class FabricSerializer(NestedLookupMixin, PrimaryModelSerializer):
    site = SiteSerializer(nested=True)
    status = ChoiceField(choices=FabricStatusChoices, required=False)
    design_option = ChoiceField(choices=DesignOptionChoices, required=False)
    underlay = ChoiceField(choices=UnderlayChoices, required=False)
    leaf_pairing = ChoiceField(choices=LeafPairingChoices, required=False)
    loopback_pool = PrefixSerializer(nested=True, required=False, allow_null=True)
    vtep_pool = PrefixSerializer(nested=True, required=False, allow_null=True)
    p2p_pool = PrefixSerializer(nested=True, required=False, allow_null=True)
    mlag_peer_pool = PrefixSerializer(nested=True, required=False, allow_null=True)
    management_pool = PrefixSerializer(nested=True, required=False, allow_null=True)
    jump_host_prefix = PrefixSerializer(nested=True, required=False, allow_null=True)
    bmc_attachment = ChoiceField(choices=BmcAttachmentChoices, required=False)
    rdma_nic_family = ChoiceField(choices=RdmaNicFamilyChoices, required=False)
    snmp_version = ChoiceField(choices=SnmpVersionChoices, required=False)
    leaf_asn_range = ASNRangeSerializer(nested=True, required=False, allow_null=True)
    config_backup_source = DataSourceSerializer(nested=True, required=False, allow_null=True)
    qos_profile = QoSProfileSerializer(nested=True, required=False, allow_null=True)
    spine_device_type = DeviceTypeSerializer(nested=True, required=False, allow_null=True)
    leaf_device_type = DeviceTypeSerializer(nested=True, required=False, allow_null=True)
    server_device_type = DeviceTypeSerializer(nested=True, required=False, allow_null=True)
    management_device_type = DeviceTypeSerializer(nested=True, required=False, allow_null=True)
    spine_role = DeviceRoleSerializer(nested=True, required=False, allow_null=True)
    leaf_role = DeviceRoleSerializer(nested=True, required=False, allow_null=True)
    server_role = DeviceRoleSerializer(nested=True, required=False, allow_null=True)
    storage_role = DeviceRoleSerializer(nested=True, required=False, allow_null=True)
    platform = PlatformSerializer(nested=True, required=False, allow_null=True)
    spine_platform = PlatformSerializer(nested=True, required=False, allow_null=True)
    rack = RackSerializer(nested=True, required=False, allow_null=True)
    # the lifecycle, written by the apply: null before the first apply (and after an apply with no user)
    last_applied_by = UserSerializer(nested=True, read_only=True, allow_null=True)
    node_count = RelatedObjectCountField('nodes')
    traffic_classes = SerializedPKRelatedField(
        queryset=TrafficClass.objects.all(), serializer=TrafficClassSerializer, nested=True, required=False, many=True
    )
    tenants = SerializedPKRelatedField(
        queryset=EVPNTenant.objects.all(), serializer=EVPNTenantSerializer, nested=True, required=False, many=True
    )

    class Meta:
        model = Fabric
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'name',
            'slug',
            'site',
            'status',
            'design_option',
            'underlay',
            'leaf_pairing',
            'bfd',
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
            'rdma_nic_family',
            'mtu',
            'oversubscription_target',
            'spine_device_type',
            'leaf_device_type',
            'server_device_type',
            'management_device_type',
            'spine_role',
            'leaf_role',
            'server_role',
            'storage_role',
            'platform',
            'spine_platform',
            'port_map',
            'rack',
            'node_count',
            'loopback_pool',
            'vtep_pool',
            'p2p_pool',
            'mlag_peer_pool',
            'leaf_asn_range',
            'spine_asn',
            'l2vni_base',
            'anycast_gateway_mac',
            'management_pool',
            'management_gateway',
            'jump_host_prefix',
            'bmc_attachment',
            *TELEMETRY_FIELDS,
            *CONFIG_MANAGEMENT_FIELDS,
            'qos_profile',
            'traffic_classes',
            'tenants',
            'description',
            'owner',
            'comments',
            'tags',
            'custom_fields',
            'last_applied',
            'last_applied_by',
            'last_plan_hash',
            'last_apply_request_id',
            'pending_change',
            'created',
            'last_updated',
        )
        model_clean_fields = ('anycast_gateway_mac',)
        brief_fields = ('description', 'design_option', 'display', 'id', 'name', 'slug', 'status', 'url')


class FabricNodeSerializer(NestedLookupMixin, NetBoxModelSerializer):
    fabric = FabricSerializer(nested=True)
    role = ChoiceField(choices=FabricNodeRoleChoices)
    device = DeviceSerializer(nested=True, required=False, allow_null=True)

    class Meta:
        model = FabricNode
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'fabric',
            'role',
            'node_id',
            'name',
            'pair',
            'device',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        brief_fields = ('display', 'id', 'name', 'node_id', 'role', 'url')


class RenderedDeviceConfigSerializer(serializers.Serializer):
    """One device of ``POST …/fabrics/{id}/render-config/``: its configuration, or NetBox's render error."""

    device = DeviceSerializer(nested=True, read_only=True)
    config_template = ConfigTemplateSerializer(nested=True, read_only=True)
    content = serializers.CharField(read_only=True, allow_null=True, help_text='The rendered configuration.')
    error = serializers.CharField(read_only=True, allow_null=True, help_text='Why the template did not render.')


class FabricRenderConfigSerializer(serializers.Serializer):
    """The response of ``POST …/fabrics/{id}/render-config/``."""

    fabric = serializers.IntegerField(read_only=True)
    count = serializers.IntegerField(read_only=True, help_text='Devices rendered.')
    errors = serializers.IntegerField(read_only=True, help_text='Devices whose template raised an error.')
    results = RenderedDeviceConfigSerializer(many=True, read_only=True)
    skipped = DeviceSerializer(
        nested=True, many=True, read_only=True, help_text='Devices without a config template (device, role, platform).'
    )


# Request bodies of the fabric actions. Unlike NetBox's REST API, a key a serializer does not declare is a 400 naming it
# (a misspelt ``confirm_delete`` is not silently a plan without deletions); render-config alone passes other keys on
# as template context, as NetBox's own render-config does.


class FabricPlanInputSerializer(StrictFieldsMixin, serializers.Serializer):
    """The body of ``POST …/fabrics/{id}/plan/`` (optional)."""

    confirm_delete = serializers.BooleanField(
        required=False, default=False, help_text='Plan the deletion of owned objects the plan no longer has.'
    )


class FabricApplyInputSerializer(FabricPlanInputSerializer):
    """The body of ``POST …/fabrics/{id}/apply/`` (optional)."""

    confirm_delete = serializers.BooleanField(
        required=False, default=False, help_text='Also delete owned objects the plan no longer has.'
    )
    background = serializers.BooleanField(
        required=False, default=False, help_text='Run the apply as a job (answers 202 with the job).'
    )


class FabricRenderConfigInputSerializer(serializers.Serializer):
    """The body of ``POST …/fabrics/{id}/render-config/`` (optional); other keys are added to every device's
    template context."""

    config_template_id = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=2**63 - 1,
        help_text='Render every device with this ConfigTemplate instead of its own.',
    )


# Responses of the fabric actions (for the OpenAPI schema; the views build plain dicts of this shape).


class FabricChangeSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=['create', 'update', 'adopt', 'keep', 'use', 'delete', 'conflict'])
    key = serializers.CharField()
    model = serializers.CharField(help_text='app_label.model of the NetBox object.')
    object = serializers.CharField()
    fields = serializers.DictField(help_text='The fields the change sets.')
    reason = serializers.CharField(allow_null=True, allow_blank=True)


class FabricPoolUsageSerializer(serializers.Serializer):
    name = serializers.CharField()
    prefix = serializers.CharField()
    size = serializers.IntegerField()
    used = serializers.IntegerField()
    free = serializers.IntegerField()
    percent = serializers.FloatField()


class FabricLeafCapacitySerializer(serializers.Serializer):
    leaf = serializers.CharField()
    downlink = serializers.IntegerField(help_text='Gbit/s to servers.')
    uplink = serializers.IntegerField(help_text='Gbit/s to spines.')
    ratio = serializers.FloatField(allow_null=True)


class FabricPlanWarningSerializer(serializers.Serializer):
    code = serializers.CharField()
    field = serializers.CharField()
    message = serializers.CharField()


class FabricPlanSerializer(serializers.Serializer):
    """The response of ``POST …/fabrics/{id}/plan/`` and of a synchronous ``…/apply/``."""

    fabric = serializers.IntegerField()
    applied = serializers.BooleanField()
    summary = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()), help_text='{model: {action: count}}'
    )
    changes = FabricChangeSerializer(many=True, help_text='Every change that is not a keep.')
    pools = FabricPoolUsageSerializer(many=True)
    capacity = FabricLeafCapacitySerializer(many=True)
    warnings = FabricPlanWarningSerializer(many=True)
    traffic_warnings = FabricPlanWarningSerializer(
        many=True, help_text='The warnings of the traffic matrix (docs/traffic.md).'
    )


class FabricApplyJobSerializer(serializers.Serializer):
    """The 202 response of ``POST …/fabrics/{id}/apply/`` run in the background."""

    fabric = serializers.IntegerField()
    applied = serializers.BooleanField()
    job = JobSerializer()


class FabricApplyConflictSerializer(serializers.Serializer):
    """The 409 response of ``POST …/fabrics/{id}/apply/``: nothing was written."""

    detail = serializers.CharField()
    changes = FabricChangeSerializer(many=True)


class FabricAVDSerializer(serializers.Serializer):
    """The response of ``GET …/fabrics/{id}/avd/``."""

    fabric = serializers.IntegerField()
    devices = serializers.DictField(child=serializers.DictField(), help_text='{switch name: AVD structured config}')


class TrafficFlowSerializer(NestedLookupMixin, NetBoxModelSerializer):
    fabric = FabricSerializer(nested=True)
    source_group = ChoiceField(choices=ServerGroupChoices)
    destination_group = ChoiceField(choices=ServerGroupChoices)
    source_class = TrafficClassSerializer(nested=True, required=False, allow_null=True)
    destination_class = TrafficClassSerializer(nested=True, required=False, allow_null=True)
    burstiness = ChoiceField(choices=BurstinessChoices, required=False)

    class Meta:
        model = TrafficFlow
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'fabric',
            'source_group',
            'source_class',
            'destination_group',
            'destination_class',
            'gbps',
            'burstiness',
            'description',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        brief_fields = ('description', 'display', 'gbps', 'id', 'url')


class AcceptanceRunSerializer(NestedLookupMixin, NetBoxModelSerializer):
    fabric = FabricSerializer(nested=True)
    kind = ChoiceField(choices=AcceptanceRunKindChoices, required=False)
    user = UserSerializer(nested=True, read_only=True, allow_null=True)  # null: a lab run of no user
    status = ChoiceField(choices=AcceptanceRunStatusChoices, read_only=True)
    results_count = RelatedObjectCountField('results')

    class Meta:
        model = AcceptanceRun
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'fabric',
            'kind',
            'time',
            'user',
            'status',
            'passed',
            'failed',
            'not_verified',
            'convergence_seconds',
            'description',
            'log',
            'results_count',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        read_only_fields = ('passed', 'failed', 'not_verified', 'convergence_seconds', 'log')
        brief_fields = ('description', 'display', 'id', 'kind', 'status', 'url')

    def validate_kind(self, value):
        # a lab run is made by the lab job alone, with the lab's checks: over the API only manual runs
        current = self.instance.kind if self.instance is not None else AcceptanceRunKindChoices.MANUAL
        if value != current:
            raise serializers.ValidationError(
                _('Only the lab creates runs of kind lab; a run keeps its kind ({kind}).').format(kind=current)
            )
        return value

    def validate_fabric(self, value):
        # a run's results were judged against its fabric: moving it to another would make them wrong
        if self.instance is not None and value != self.instance.fabric:
            raise serializers.ValidationError(_('A run stays on the fabric it was made for.'))
        return value

    def create(self, validated_data):
        request = self.context.get('request')
        if request is not None and getattr(request, 'user', None) and request.user.is_authenticated:
            validated_data['user'] = request.user
        return super().create(validated_data)


class AcceptanceResultSerializer(StrictFieldsMixin, NetBoxModelSerializer):
    """Read-only over the API: results come from the lab or from an upload (``acceptance-runs/{id}/upload/``)."""

    run = AcceptanceRunSerializer(nested=True, read_only=True)
    status = ChoiceField(choices=AcceptanceResultStatusChoices, read_only=True)

    class Meta:
        model = AcceptanceResult
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'run',
            'name',
            'category',
            'subject',
            'status',
            'expected',
            'seen',
            'value',
            'raw',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        read_only_fields = ('name', 'category', 'subject', 'expected', 'seen', 'value', 'raw')
        brief_fields = ('display', 'id', 'name', 'status', 'url')


class AcceptanceUploadSerializer(StrictFieldsMixin, serializers.Serializer):
    """The body of ``POST …/acceptance-runs/{id}/upload/``: a tool's output as it printed it."""

    tool = serializers.CharField(
        help_text='iperf3 (its --json output), ping (its output, -q too), perftest (ib_write_bw --report_gbits, '
        'ib_send_lat, ib_read_lat: their text report), or a counter snapshot: ethtool (ethtool -S '
        'of an mlx5 NIC), sonic-pfc (show pfc counters), sonic-queue (show queue counters), eos-errors, eos-pfc, '
        'eos-ecn (EOS | json), nvue-errors, nvue-pfc, nvue-queue, nvue-ecn (NVUE text); or an LLDP neighbour table, '
        'its subject the device it was taken on: eos-lldp (show lldp neighbors | json), nvue-lldp (nv show interface '
        'lldp-detail -o json), sonic-lldp and lldpctl (lldpctl -f json): see docs/lab.md and docs/lldp.md'
    )
    output = serializers.CharField(trim_whitespace=False, help_text='What the tool printed')
    source = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text='iperf3: the client server (plan name); perftest: the client NIC as <server>:<NIC>, e.g. gpu1:rdma1',
    )
    destination = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text='iperf3: the server it sent to (plan name); perftest: the server side NIC as <server>:<NIC>',
    )
    subject = serializers.CharField(required=False, allow_blank=True, help_text='ping: what was pinged, e.g. a pair')
    before = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False,
        help_text='counter snapshots: the one before the load (output: the one after)',
    )  # fmt: skip


#
# Compliance runs and findings (read-only: the compliance job makes them)
#


class ComplianceRunSerializer(StrictFieldsMixin, NetBoxModelSerializer):
    fabric = FabricSerializer(nested=True, read_only=True)
    user = UserSerializer(nested=True, read_only=True, allow_null=True)  # null: a scheduled run
    job = JobSerializer(nested=True, read_only=True, allow_null=True)  # null: the job was deleted
    status = ChoiceField(choices=ComplianceRunStatusChoices, read_only=True)

    class Meta:
        model = ComplianceRun
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'fabric',
            'user',
            'job',
            'status',
            'score',
            'rules',
            'passed',
            'failed',
            'skipped',
            'errored',
            'finding_count',
            'context_source',
            'rule_results',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        read_only_fields = fields
        brief_fields = ('display', 'failed', 'finding_count', 'id', 'score', 'status', 'url')


class ComplianceFindingSerializer(StrictFieldsMixin, NetBoxModelSerializer):
    run = ComplianceRunSerializer(nested=True, read_only=True)
    family = ChoiceField(choices=ComplianceFamilyChoices, read_only=True)
    severity = ChoiceField(choices=ComplianceSeverityChoices, read_only=True)
    object_type = ContentTypeField(read_only=True, allow_null=True)  # null: a finding about no one object

    class Meta:
        model = ComplianceFinding
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'run',
            'rule',
            'title',
            'family',
            'severity',
            'object_type',
            'object_id',
            'object_repr',
            'targets',
            'device_ids',
            'expected',
            'found',
            'fix',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        read_only_fields = fields
        brief_fields = ('display', 'id', 'object_repr', 'rule', 'severity', 'url')


class ConfigBackupSerializer(StrictFieldsMixin, NetBoxModelSerializer):
    """A switch's running config. Created by an upload (``device`` and ``content``; the fabric is the device's, the
    time now, the source ``upload``), checked by ``checks.backups.store_backup``; never edited."""

    fabric = FabricSerializer(nested=True, read_only=True)
    device = DeviceSerializer(nested=True)
    source = ChoiceField(choices=ConfigBackupSourceChoices, read_only=True)
    user = UserSerializer(nested=True, read_only=True, allow_null=True)
    content = serializers.CharField(trim_whitespace=False)

    class Meta:
        model = ConfigBackup
        fields = (
            'id',
            'url',
            'display_url',
            'display',
            'fabric',
            'device',
            'time',
            'source',
            'origin',
            'user',
            'size',
            'sha256',
            'content',
            'tags',
            'custom_fields',
            'created',
            'last_updated',
        )
        read_only_fields = ('time', 'origin', 'size', 'sha256')
        brief_fields = ('device', 'display', 'id', 'time', 'url')

    def validate(self, data):
        # the model's own validation runs on the row store_backup builds (fabric, hash and size derived there)
        return data
