from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from core.models import DataSource
from dcim.models import Device, DeviceRole, DeviceType, Platform, Rack, Site
from ipam.models import VLAN, VRF, ASNRange, Prefix
from netbox.forms import NetBoxModelForm, PrimaryModelForm
from tenancy.models import Tenant
from utilities.forms import add_blank_choice
from utilities.forms.fields import DynamicModelChoiceField, DynamicModelMultipleChoiceField, JSONField, SlugField
from utilities.forms.rendering import FieldSet
from utilities.forms.widgets import HTMXSelect

from netbox_aifabric.choices import FabricNodeRoleChoices, RdmaNicFamilyChoices, SnmpVersionChoices
from netbox_aifabric.constants import DEFAULT_BACKUP_PATTERN
from netbox_aifabric.facts.catalog import qos_presets
from netbox_aifabric.facts.telemetry import DEFAULT_SFLOW_SAMPLING_RATE, DEFAULT_SNMP_USER
from netbox_aifabric.forms.fields import DSCPListField, InvalidFieldsMixin, PriorityListField
from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass
from netbox_aifabric.models.fabrics import CONFIG_MANAGEMENT_FIELDS, TELEMETRY_FIELDS

__all__ = ('EVPNTenantForm', 'FabricAdoptForm', 'FabricForm', 'FabricNodeForm', 'QoSProfileForm', 'TrafficClassForm')


class TrafficClassForm(InvalidFieldsMixin, PrimaryModelForm):
    slug = SlugField()
    vlan = DynamicModelChoiceField(queryset=VLAN.objects.all(), required=False, label=_('VLAN'), selector=True)
    vrf = DynamicModelChoiceField(queryset=VRF.objects.all(), required=False, label=_('VRF'))
    prefix = DynamicModelChoiceField(
        queryset=Prefix.objects.all(), required=False, label=_('Prefix'), query_params={'vrf_id': '$vrf'}
    )
    dscp = DSCPListField(label=_('DSCP values'))
    reachable_from = DynamicModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(),
        required=False,
        label=_('Reachable from'),
        help_text=_('Traffic classes allowed to reach this one'),
    )

    fieldsets = (
        FieldSet('name', 'slug', 'purpose', 'description', 'tags', name=_('Traffic class')),
        FieldSet('vid', 'vlan', 'vrf', 'prefix', 'routed', 'mtu', name=_('Network')),
        FieldSet('dscp', 'switch_priority', 'queue', 'lossless', 'ecn', name=_('QoS')),
        FieldSet('reachability', 'reachable_from', name=_('Security matrix')),
    )

    class Meta:
        model = TrafficClass
        fields = (
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
        )


# The preset's own keys that are not profile fields to fill (name and slug stay the user's)
PRESET_NOT_FILLED = ('slug', 'name')


def preset_initial(slug):
    """The form values of the shipped QoS preset ``slug`` (``data/qos_presets.json``), ``preset`` naming it; ``{}``
    for an unknown slug."""
    preset = next((p for p in qos_presets() if p['slug'] == slug), None)
    if preset is None:
        return {}
    return {**{k: v for k, v in preset.items() if k not in PRESET_NOT_FILLED}, 'preset': slug}


class QoSProfileForm(InvalidFieldsMixin, PrimaryModelForm):
    # Not a model field: choosing a preset re-renders the form (NetBox's HTMX select) with the preset's values
    start_from = forms.ChoiceField(
        label=_('Start from preset'),
        required=False,
        widget=HTMXSelect(),
        help_text=_("Fills the fields below with a shipped preset's values; change what you need, then save"),
    )
    slug = SlugField()
    roce_dscp = DSCPListField(label=_('RoCE data DSCP'))
    roce_priority = PriorityListField(label=_('RoCE priority'), help_text=_('One per RoCE DSCP value (0–7)'))
    roce_tc = PriorityListField(label=_('RoCE traffic class'), help_text=_('One per RoCE DSCP value (0–7)'))
    pfc_priorities = PriorityListField(label=_('PFC priorities'))
    ecn_tcs = PriorityListField(label=_('ECN traffic classes'))
    strict_tcs = PriorityListField(label=_('Strict-priority traffic classes'))
    dwrr_weights = JSONField(
        required=False, label=_('DWRR weights'), help_text=_('Weight per traffic class, e.g. {"0": 50, "3": 50}')
    )

    fieldsets = (
        FieldSet('start_from', 'name', 'slug', 'mode', 'trust', 'mtu', 'description', 'tags', name=_('QoS profile')),
        FieldSet('roce_dscp', 'roce_priority', 'roce_tc', 'cnp_dscp', 'cnp_priority', 'cnp_tc', name=_('Marking')),
        FieldSet('pfc_priorities', 'cable_length', name=_('Priority flow control')),
        FieldSet(
            'ecn_enabled',
            'ecn_threshold_unit',
            'ecn_min_threshold',
            'ecn_max_threshold',
            'ecn_probability',
            'ecn_tcs',
            name=_('ECN'),
        ),
        FieldSet('strict_tcs', 'dwrr_weights', name=_('Scheduler')),
        FieldSet(
            'pfc_watchdog',
            'pfcwd_poll_interval',
            'pfcwd_detection_polls',
            'pfcwd_detection_time',
            'pfcwd_restoration_time',
            'pfcwd_action',
            name=_('PFC watchdog'),
        ),
        FieldSet('preset', 'source', name=_('Provenance')),
    )

    class Meta:
        model = QoSProfile
        fields = (
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
        )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

        self.fields['start_from'].choices = [('', '---------')] + [(p['slug'], p['name']) for p in qos_presets()]
        slug = self.initial.get('start_from')
        if slug and not self.is_bound:  # (a POST keeps what the user typed)
            for name, value in preset_initial(slug).items():
                if name in self.fields:
                    self.initial[name] = value


class EVPNTenantForm(InvalidFieldsMixin, PrimaryModelForm):
    slug = SlugField()
    tenant = DynamicModelChoiceField(queryset=Tenant.objects.all(), required=False, label=_('Tenant'))
    vrf = DynamicModelChoiceField(queryset=VRF.objects.all(), required=False, label=_('VRF'))
    # (no import/export targets: the plan derives them and each apply writes them, apply/route_targets.py)
    traffic_classes = DynamicModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(), required=False, label=_('Traffic classes')
    )
    vlans = DynamicModelMultipleChoiceField(queryset=VLAN.objects.all(), required=False, label=_('VLANs'))

    fieldsets = (
        FieldSet('name', 'slug', 'tenant', 'vrf', 'description', 'tags', name=_('EVPN tenant')),
        FieldSet('l3vni', 'l2vni_base', 'anycast_gateway_mac', name=_('EVPN')),
        FieldSet('traffic_classes', 'vlans', name=_('Members')),
    )

    class Meta:
        model = EVPNTenant
        fields = (
            'name',
            'slug',
            'tenant',
            'vrf',
            'l3vni',
            'l2vni_base',
            'anycast_gateway_mac',
            'traffic_classes',
            'vlans',
            'description',
            'owner',
            'comments',
            'tags',
        )


def _pool_choice(label):
    return DynamicModelChoiceField(
        queryset=Prefix.objects.all(), required=False, label=label, query_params={'family': 4}
    )


def _optional(model, label):
    return DynamicModelChoiceField(
        queryset=model.objects.all(), required=False, label=label, help_text=_('Empty: a generic one')
    )


class FabricDevicesForm(InvalidFieldsMixin, forms.Form):
    """The device types, roles and platform of a fabric's devices: fields shared by the fabric form and the
    wizard's topology step (each adds its own ``rack``)."""

    spine_device_type = _optional(DeviceType, _('Spine device type'))
    leaf_device_type = _optional(DeviceType, _('Leaf device type'))
    server_device_type = _optional(DeviceType, _('Server device type'))
    spine_role = _optional(DeviceRole, _('Spine role'))
    leaf_role = _optional(DeviceRole, _('Leaf role'))
    server_role = _optional(DeviceRole, _('GPU server role'))
    storage_role = _optional(DeviceRole, _('Storage role'))
    platform = _optional(Platform, _('Switch platform'))
    spine_platform = _optional(Platform, _('Spine platform'))


# The fabric's size, links and devices, as the fabric form and the wizard's topology step lay them out
FABRIC_SIZE_FIELDSET = FieldSet(
    'spine_count',
    'max_spines',
    'leaf_count',
    'max_leaves',
    'uplinks_per_spine',
    'max_parallel_uplinks',
    'server_count',
    'storage_count',
    name=_('Size'),
)
FABRIC_LINKS_FIELDSET = FieldSet(
    'uplink_speed',
    'server_nic_count',
    'server_nic_speed',
    'rdma_nic_count',
    'rdma_nic_speed',
    'rdma_nic_family',
    'mtu',
    'oversubscription_target',
    name=_('Links and NICs'),
)
FABRIC_DEVICES_FIELDSET = FieldSet(*FabricDevicesForm.base_fields, 'rack', name=_('Devices'))


def _model_field(name):
    """The form field of the Fabric model's field ``name``, as a model form would make it (label, help text,
    validation: the collectors' IPv4 base field and their maximum count)."""
    return Fabric._meta.get_field(name).formfield()


class FabricTelemetryForm(forms.Form):
    """The fabric's telemetry collectors and settings: fields shared by the fabric form and the wizard's intent
    step, so both validate them by the model's rules."""

    syslog_servers = _model_field('syslog_servers')
    ntp_servers = _model_field('ntp_servers')
    snmp_managers = _model_field('snmp_managers')
    # the settings with a default: empty in the form means the default (a browser, the view tests, an edit)
    snmp_version = forms.ChoiceField(choices=SnmpVersionChoices, required=False, label=_('SNMP version'))
    snmp_user = forms.CharField(
        required=False,
        max_length=32,
        label=_('SNMPv3 user'),
        help_text=_('Empty: {user}').format(user=DEFAULT_SNMP_USER),
    )
    sflow_collectors = _model_field('sflow_collectors')
    sflow_sampling_rate = forms.IntegerField(
        required=False,
        label=_('sFlow sampling rate'),
        help_text=_('1 in N packets on every port (256 to 8388608; empty: {rate})').format(
            rate=DEFAULT_SFLOW_SAMPLING_RATE
        ),
    )
    streaming_collectors = _model_field('streaming_collectors')

    def clean_snmp_version(self):
        return self.cleaned_data['snmp_version'] or SnmpVersionChoices.V3

    def clean_snmp_user(self):
        return self.cleaned_data['snmp_user'] or DEFAULT_SNMP_USER

    def clean_sflow_sampling_rate(self):
        rate = self.cleaned_data['sflow_sampling_rate']
        return DEFAULT_SFLOW_SAMPLING_RATE if rate is None else rate


# The previews' observability warning links to this fieldset's id (the fabric form's and the wizard's)
FABRIC_TELEMETRY_FIELDSET = FieldSet(*TELEMETRY_FIELDS, name=_('Telemetry'), html_id='telemetry')


class FabricForm(FabricDevicesForm, FabricTelemetryForm, PrimaryModelForm):
    slug = SlugField()
    site = DynamicModelChoiceField(queryset=Site.objects.all(), label=_('Site'))
    loopback_pool = _pool_choice(_('Loopback pool'))
    vtep_pool = _pool_choice(_('VTEP pool'))
    p2p_pool = _pool_choice(_('Point-to-point pool'))
    mlag_peer_pool = _pool_choice(_('MLAG peer pool'))
    management_pool = _pool_choice(_('Management network'))
    jump_host_prefix = _pool_choice(_('Jump-host subnet'))
    management_device_type = DynamicModelChoiceField(
        queryset=DeviceType.objects.all(),
        required=False,
        label=_('Management switch type'),
        help_text=_(
            'The out-of-band switch for every BMC and switch management port: the apply creates it and its cables. '
            'Empty: none is planned (the bill of materials still lists one)'
        ),
    )
    leaf_asn_range = DynamicModelChoiceField(queryset=ASNRange.objects.all(), required=False, label=_('Leaf ASN range'))
    # defaulted fields, optional in the form (empty: the default), as the telemetry form's SNMP user and sFlow rate
    rdma_nic_family = forms.ChoiceField(
        required=False,
        choices=add_blank_choice(RdmaNicFamilyChoices),
        label=_('RDMA NIC family'),
        help_text=_(
            "The servers' RDMA NICs: whose tools the host config sets their RoCE settings with (empty: NVIDIA)"
        ),
    )
    config_repository_branch = forms.CharField(
        required=False,
        max_length=100,
        label=_('Config repository branch'),
        help_text=_('The branch the commits go to (empty: main)'),
    )
    config_backup_pattern = forms.CharField(
        required=False,
        max_length=200,
        label=_('Config backup file name'),
        help_text=format_lazy(
            '{help} (empty: {default})',
            help=Fabric._meta.get_field('config_backup_pattern').help_text,
            default=DEFAULT_BACKUP_PATTERN,
        ),
    )
    config_backup_source = DynamicModelChoiceField(
        queryset=DataSource.objects.all(),
        required=False,
        label=_('Config backup source'),
        help_text=Fabric._meta.get_field('config_backup_source').help_text,
    )
    qos_profile = DynamicModelChoiceField(queryset=QoSProfile.objects.all(), required=False, label=_('QoS profile'))
    traffic_classes = DynamicModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(), required=False, label=_('Traffic classes')
    )
    tenants = DynamicModelMultipleChoiceField(
        queryset=EVPNTenant.objects.all(), required=False, label=_('EVPN tenants')
    )
    rack = DynamicModelChoiceField(
        queryset=Rack.objects.all(), required=False, label=_('Rack'), query_params={'site_id': '$site'}
    )
    port_map = JSONField(
        required=False,
        label=_('Port map'),
        help_text=_(
            'Which ports of the leaf and spine device types serve which use: {"leaf": {"uplink": ["Ethernet53/1", '
            '"Ethernet54/1"], "server": ["Ethernet1..Ethernet48"]}}; leaf uses server, rdma, uplink, peer_link, '
            'bmc; spine uses downlink. Uses left out are derived from the speeds. Ignored for generic device types'
        ),
    )

    fieldsets = (
        FieldSet(
            'name',
            'slug',
            'site',
            'status',
            'design_option',
            'underlay',
            'leaf_pairing',
            'bfd',
            'description',
            'tags',
            name=_('Fabric'),
        ),
        FABRIC_SIZE_FIELDSET,
        FABRIC_LINKS_FIELDSET,
        FieldSet(
            'loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool', 'leaf_asn_range', 'spine_asn', name=_('Pools')
        ),
        FABRIC_DEVICES_FIELDSET,
        FieldSet('port_map', name=_('Hardware')),
        FieldSet('l2vni_base', 'anycast_gateway_mac', 'tenants', name=_('Overlay')),
        FieldSet(
            'management_pool',
            'management_gateway',
            'jump_host_prefix',
            'bmc_attachment',
            'management_device_type',
            name=_('Management plane'),
        ),
        FieldSet('qos_profile', 'traffic_classes', name=_('Traffic')),
        FABRIC_TELEMETRY_FIELDSET,
        FieldSet(*CONFIG_MANAGEMENT_FIELDS, name=_('Configuration management'), html_id='config-management'),
    )

    def clean_rdma_nic_family(self):
        return self.cleaned_data['rdma_nic_family'] or RdmaNicFamilyChoices.NVIDIA_MLX5

    def clean_config_repository_branch(self):
        return self.cleaned_data['config_repository_branch'] or 'main'

    def clean_config_backup_pattern(self):
        return self.cleaned_data['config_backup_pattern'] or DEFAULT_BACKUP_PATTERN

    class Meta:
        model = Fabric
        fields = (
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
            'spine_role',
            'leaf_role',
            'server_role',
            'storage_role',
            'platform',
            'spine_platform',
            'port_map',
            'rack',
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
            'management_device_type',
            *TELEMETRY_FIELDS,
            *CONFIG_MANAGEMENT_FIELDS,
            'qos_profile',
            'traffic_classes',
            'tenants',
            'description',
            'owner',
            'comments',
            'tags',
        )


class FabricNodeForm(InvalidFieldsMixin, NetBoxModelForm):
    fabric = DynamicModelChoiceField(queryset=Fabric.objects.all(), label=_('Fabric'))
    device = DynamicModelChoiceField(
        queryset=Device.objects.all(),
        required=False,
        label=_('Adopted device'),
        help_text=_('An existing device this node takes over (brownfield)'),
        selector=True,
    )

    fieldsets = (FieldSet('fabric', 'role', 'node_id', 'name', 'pair', 'device', 'tags', name=_('Fabric node')),)

    class Meta:
        model = FabricNode
        fields = ('fabric', 'role', 'node_id', 'name', 'pair', 'device', 'tags')


class FabricAdoptForm(InvalidFieldsMixin, forms.Form):
    """Pick existing devices of the fabric's site by their device role and adopt them as nodes of one role."""

    device_role = DynamicModelChoiceField(queryset=DeviceRole.objects.all(), label=_('Device role'))
    role = forms.ChoiceField(choices=FabricNodeRoleChoices, label=_('Adopt as'))

    fieldsets = (FieldSet('device_role', 'role', name=_('Adopt existing devices')),)
