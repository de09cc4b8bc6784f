from django.utils.translation import gettext_lazy as _

from dcim.models import Device, Site
from ipam.models import VLAN, VRF, ASNRange, Prefix
from netbox.forms import NetBoxModelImportForm, PrimaryModelImportForm
from tenancy.models import Tenant
from utilities.forms.fields import CSVChoiceField, CSVModelChoiceField, CSVModelMultipleChoiceField, SlugField

from netbox_aifabric.choices import (
    BmcAttachmentChoices,
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
    TrafficPurposeChoices,
    UnderlayChoices,
)
from netbox_aifabric.forms.fields import DSCPListField, PriorityListField
from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass

__all__ = (
    'EVPNTenantImportForm',
    'FabricImportForm',
    'FabricNodeImportForm',
    'QoSProfileImportForm',
    'TrafficClassImportForm',
)


class ModelDefaultsMixin:
    """Columns left out of an import take the model's default (e.g. ``max_spines`` = 4) instead of being required."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self._meta.model._meta.concrete_fields:
            if field.has_default() and field.name in self.fields:
                self.fields[field.name].required = False


class TrafficClassImportForm(PrimaryModelImportForm):
    slug = SlugField()
    purpose = CSVChoiceField(choices=TrafficPurposeChoices, label=_('Purpose'))
    reachability = CSVChoiceField(choices=ReachabilityChoices, required=False, label=_('Reachability'))
    vlan = CSVModelChoiceField(
        queryset=VLAN.objects.all(),
        required=False,
        to_field_name='name',
        label=_('VLAN'),
        help_text=_('Name of an existing VLAN'),
    )
    vrf = CSVModelChoiceField(queryset=VRF.objects.all(), required=False, to_field_name='name', label=_('VRF'))
    prefix = CSVModelChoiceField(
        queryset=Prefix.objects.all(), required=False, to_field_name='prefix', label=_('Prefix')
    )
    dscp = DSCPListField(label=_('DSCP values'))
    reachable_from = CSVModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(),
        required=False,
        to_field_name='slug',
        label=_('Reachable from'),
        help_text=_('Slugs of the traffic classes allowed to reach this one, comma-separated'),
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


class QoSProfileImportForm(ModelDefaultsMixin, PrimaryModelImportForm):
    slug = SlugField()
    mode = CSVChoiceField(choices=QoSModeChoices, label=_('Mode'))
    trust = CSVChoiceField(choices=QoSTrustChoices, required=False, label=_('Trust'))
    ecn_threshold_unit = CSVChoiceField(choices=ECNThresholdUnitChoices, required=False, label=_('ECN unit'))
    pfcwd_action = CSVChoiceField(choices=PFCWatchdogActionChoices, required=False, label=_('Watchdog action'))
    roce_dscp = DSCPListField(label=_('RoCE data DSCP'))
    roce_priority = PriorityListField(label=_('RoCE priority'))
    roce_tc = PriorityListField(label=_('RoCE traffic class'))
    pfc_priorities = PriorityListField(label=_('PFC priorities'))
    ecn_tcs = PriorityListField(label=_('ECN traffic classes'))
    strict_tcs = PriorityListField(label=_('Strict-priority traffic classes'))

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


class EVPNTenantImportForm(PrimaryModelImportForm):
    slug = SlugField()
    tenant = CSVModelChoiceField(queryset=Tenant.objects.all(), required=False, to_field_name='name', label=_('Tenant'))
    vrf = CSVModelChoiceField(queryset=VRF.objects.all(), required=False, to_field_name='name', label=_('VRF'))
    traffic_classes = CSVModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(), required=False, to_field_name='slug', label=_('Traffic classes')
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
            'description',
            'owner',
            'comments',
            'tags',
        )


class FabricImportForm(ModelDefaultsMixin, PrimaryModelImportForm):
    slug = SlugField()
    site = CSVModelChoiceField(queryset=Site.objects.all(), to_field_name='slug', label=_('Site'))
    status = CSVChoiceField(choices=FabricStatusChoices, required=False, label=_('Status'))
    design_option = CSVChoiceField(choices=DesignOptionChoices, label=_('Design option'))
    underlay = CSVChoiceField(choices=UnderlayChoices, required=False, label=_('Underlay'))
    leaf_pairing = CSVChoiceField(choices=LeafPairingChoices, required=False, label=_('Leaf pairing'))
    bmc_attachment = CSVChoiceField(choices=BmcAttachmentChoices, required=False, label=_('BMC attachment'))
    rdma_nic_family = CSVChoiceField(choices=RdmaNicFamilyChoices, required=False, label=_('RDMA NIC family'))
    management_pool = CSVModelChoiceField(
        queryset=Prefix.objects.all(), required=False, to_field_name='prefix', label=_('Management network')
    )
    jump_host_prefix = CSVModelChoiceField(
        queryset=Prefix.objects.all(), required=False, to_field_name='prefix', label=_('Jump-host subnet')
    )
    loopback_pool = CSVModelChoiceField(
        queryset=Prefix.objects.all(), required=False, to_field_name='prefix', label=_('Loopback pool')
    )
    vtep_pool = CSVModelChoiceField(
        queryset=Prefix.objects.all(), required=False, to_field_name='prefix', label=_('VTEP pool')
    )
    p2p_pool = CSVModelChoiceField(
        queryset=Prefix.objects.all(), required=False, to_field_name='prefix', label=_('Point-to-point pool')
    )
    mlag_peer_pool = CSVModelChoiceField(
        queryset=Prefix.objects.all(), required=False, to_field_name='prefix', label=_('MLAG peer pool')
    )
    leaf_asn_range = CSVModelChoiceField(
        queryset=ASNRange.objects.all(), required=False, to_field_name='slug', label=_('Leaf ASN range')
    )
    qos_profile = CSVModelChoiceField(
        queryset=QoSProfile.objects.all(), required=False, to_field_name='slug', label=_('QoS profile')
    )
    traffic_classes = CSVModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(), required=False, to_field_name='slug', label=_('Traffic classes')
    )
    tenants = CSVModelMultipleChoiceField(
        queryset=EVPNTenant.objects.all(), required=False, to_field_name='slug', label=_('EVPN tenants')
    )

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
            'qos_profile',
            'traffic_classes',
            'tenants',
            'description',
            'owner',
            'comments',
            'tags',
        )


class FabricNodeImportForm(NetBoxModelImportForm):
    """Nodes by fabric slug, role, node id, name and leaf pair (and an adopted device by name)."""

    fabric = CSVModelChoiceField(queryset=Fabric.objects.all(), to_field_name='slug', label=_('Fabric'))
    role = CSVChoiceField(choices=FabricNodeRoleChoices, label=_('Role'))
    device = CSVModelChoiceField(
        queryset=Device.objects.all(), required=False, to_field_name='name', label=_('Adopted device')
    )

    class Meta:
        model = FabricNode
        fields = ('fabric', 'role', 'node_id', 'name', 'pair', 'device', 'tags')
