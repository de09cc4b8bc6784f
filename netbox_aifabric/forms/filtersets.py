from django import forms
from django.utils.translation import gettext_lazy as _

from dcim.models import Device, Site
from ipam.models import VLAN, VRF, RouteTarget
from netbox.forms import NetBoxModelFilterSetForm, PrimaryModelFilterSetForm
from tenancy.models import Tenant
from users.models import User
from utilities.forms import BOOLEAN_WITH_BLANK_CHOICES
from utilities.forms.fields import DynamicModelChoiceField, DynamicModelMultipleChoiceField, TagFilterField
from utilities.forms.rendering import FieldSet

from netbox_aifabric.checks.rules import RULES
from netbox_aifabric.choices import (
    BmcAttachmentChoices,
    DesignOptionChoices,
    FabricNodeRoleChoices,
    FabricStatusChoices,
    LeafPairingChoices,
    QoSModeChoices,
    QoSTrustChoices,
    RdmaNicFamilyChoices,
    ReachabilityChoices,
    TrafficPurposeChoices,
    UnderlayChoices,
)
from netbox_aifabric.models import (
    ComplianceFamilyChoices,
    ComplianceFinding,
    ComplianceRun,
    ComplianceRunStatusChoices,
    ComplianceSeverityChoices,
    EVPNTenant,
    Fabric,
    FabricNode,
    QoSProfile,
    TrafficClass,
)

__all__ = (
    'ComplianceFindingFilterForm',
    'ComplianceRunFilterForm',
    'EVPNTenantFilterForm',
    'FabricFilterForm',
    'FabricNodeFilterForm',
    'QoSProfileFilterForm',
    'TrafficClassFilterForm',
)

OWNERSHIP = FieldSet('owner_group_id', 'owner_id', name=_('Ownership'))


def _yes_no(label):
    return forms.NullBooleanField(required=False, label=label, widget=forms.Select(choices=BOOLEAN_WITH_BLANK_CHOICES))


class TrafficClassFilterForm(PrimaryModelFilterSetForm):
    model = TrafficClass
    fieldsets = (
        FieldSet('q', 'filter_id', 'tag'),
        FieldSet('purpose', 'vid', 'vrf_id', 'routed', 'reachability', name=_('Network')),
        FieldSet('dscp', 'switch_priority', 'queue', 'lossless', 'ecn', name=_('QoS')),
        OWNERSHIP,
    )
    purpose = forms.MultipleChoiceField(choices=TrafficPurposeChoices, required=False, label=_('Purpose'))
    vid = forms.IntegerField(required=False, label=_('VLAN ID'))
    vrf_id = DynamicModelMultipleChoiceField(queryset=VRF.objects.all(), required=False, label=_('VRF'))
    dscp = forms.IntegerField(required=False, min_value=0, max_value=63, label=_('DSCP'))
    switch_priority = forms.IntegerField(required=False, min_value=0, max_value=7, label=_('Switch priority'))
    queue = forms.IntegerField(required=False, min_value=0, max_value=7, label=_('Queue'))
    lossless = _yes_no(_('Lossless (PFC)'))
    ecn = _yes_no(_('ECN'))
    routed = _yes_no(_('Routed'))
    reachability = forms.MultipleChoiceField(choices=ReachabilityChoices, required=False, label=_('Reachability'))
    tag = TagFilterField(model)


class QoSProfileFilterForm(PrimaryModelFilterSetForm):
    model = QoSProfile
    fieldsets = (
        FieldSet('q', 'filter_id', 'tag'),
        FieldSet('mode', 'trust', 'roce_dscp', 'pfc_priorities', 'ecn_enabled', 'pfc_watchdog', name=_('QoS')),
        OWNERSHIP,
    )
    mode = forms.MultipleChoiceField(choices=QoSModeChoices, required=False, label=_('Mode'))
    trust = forms.MultipleChoiceField(choices=QoSTrustChoices, required=False, label=_('Trust'))
    roce_dscp = forms.IntegerField(required=False, min_value=0, max_value=63, label=_('RoCE DSCP'))
    pfc_priorities = forms.IntegerField(required=False, min_value=0, max_value=7, label=_('PFC priority'))
    ecn_enabled = _yes_no(_('ECN'))
    pfc_watchdog = _yes_no(_('PFC watchdog'))
    tag = TagFilterField(model)


class EVPNTenantFilterForm(PrimaryModelFilterSetForm):
    model = EVPNTenant
    fieldsets = (
        FieldSet('q', 'filter_id', 'tag'),
        FieldSet('tenant_id', 'vrf_id', 'l3vni', 'import_target_id', 'export_target_id', name=_('EVPN')),
        FieldSet('traffic_class_id', 'vlan_id', name=_('Members')),
        OWNERSHIP,
    )
    tenant_id = DynamicModelMultipleChoiceField(queryset=Tenant.objects.all(), required=False, label=_('Tenant'))
    vrf_id = DynamicModelMultipleChoiceField(queryset=VRF.objects.all(), required=False, label=_('VRF'))
    l3vni = forms.IntegerField(required=False, label=_('L3VNI'))
    import_target_id = DynamicModelMultipleChoiceField(
        queryset=RouteTarget.objects.all(), required=False, label=_('Import target')
    )
    export_target_id = DynamicModelMultipleChoiceField(
        queryset=RouteTarget.objects.all(), required=False, label=_('Export target')
    )
    traffic_class_id = DynamicModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(), required=False, label=_('Traffic class')
    )
    vlan_id = DynamicModelMultipleChoiceField(queryset=VLAN.objects.all(), required=False, label=_('VLAN'))
    tag = TagFilterField(model)


class FabricFilterForm(PrimaryModelFilterSetForm):
    model = Fabric
    fieldsets = (
        FieldSet('q', 'filter_id', 'tag'),
        FieldSet(
            'site_id',
            'status',
            'design_option',
            'underlay',
            'leaf_pairing',
            'bmc_attachment',
            'bfd',
            'rdma_nic_family',
            name=_('Fabric'),
        ),
        FieldSet('qos_profile_id', 'traffic_class_id', 'evpn_tenant_id', name=_('Intent')),
        OWNERSHIP,
    )
    site_id = DynamicModelMultipleChoiceField(queryset=Site.objects.all(), required=False, label=_('Site'))
    status = forms.MultipleChoiceField(choices=FabricStatusChoices, required=False, label=_('Status'))
    design_option = forms.MultipleChoiceField(choices=DesignOptionChoices, required=False, label=_('Design option'))
    underlay = forms.MultipleChoiceField(choices=UnderlayChoices, required=False, label=_('Underlay'))
    leaf_pairing = forms.MultipleChoiceField(choices=LeafPairingChoices, required=False, label=_('Leaf pairing'))
    bmc_attachment = forms.MultipleChoiceField(choices=BmcAttachmentChoices, required=False, label=_('BMC attachment'))
    rdma_nic_family = forms.MultipleChoiceField(
        choices=RdmaNicFamilyChoices, required=False, label=_('RDMA NIC family')
    )
    bfd = _yes_no(_('BFD'))
    qos_profile_id = DynamicModelMultipleChoiceField(
        queryset=QoSProfile.objects.all(), required=False, label=_('QoS profile')
    )
    traffic_class_id = DynamicModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(), required=False, label=_('Traffic class')
    )
    evpn_tenant_id = DynamicModelMultipleChoiceField(
        queryset=EVPNTenant.objects.all(), required=False, label=_('EVPN tenant')
    )
    tag = TagFilterField(model)


class FabricNodeFilterForm(NetBoxModelFilterSetForm):
    model = FabricNode
    fieldsets = (FieldSet('q', 'filter_id', 'tag'), FieldSet('fabric_id', 'role', 'adopted', name=_('Node')))
    fabric_id = DynamicModelMultipleChoiceField(queryset=Fabric.objects.all(), required=False, label=_('Fabric'))
    role = forms.MultipleChoiceField(choices=FabricNodeRoleChoices, required=False, label=_('Role'))
    adopted = _yes_no(_('Adopted'))
    tag = TagFilterField(model)


class ComplianceRunFilterForm(NetBoxModelFilterSetForm):
    model = ComplianceRun
    fieldsets = (FieldSet('q', 'filter_id', 'tag'), FieldSet('fabric_id', 'status', 'user_id', 'rule', name=_('Run')))
    fabric_id = DynamicModelMultipleChoiceField(queryset=Fabric.objects.all(), required=False, label=_('Fabric'))
    status = forms.MultipleChoiceField(choices=ComplianceRunStatusChoices, required=False, label=_('Status'))
    user_id = DynamicModelMultipleChoiceField(queryset=User.objects.all(), required=False, label=_('User'))
    rule = forms.CharField(required=False, label=_('With findings of rule'))
    tag = TagFilterField(model)


class ComplianceFindingFilterForm(NetBoxModelFilterSetForm):
    model = ComplianceFinding
    fieldsets = (
        FieldSet('q', 'filter_id', 'tag'),
        FieldSet('fabric_id', 'run_id', 'latest', 'family', 'severity', 'rule', 'device_id', name=_('Finding')),
    )
    fabric_id = DynamicModelMultipleChoiceField(queryset=Fabric.objects.all(), required=False, label=_('Fabric'))
    run_id = DynamicModelMultipleChoiceField(queryset=ComplianceRun.objects.all(), required=False, label=_('Run'))
    latest = _yes_no(_("Each fabric's latest run"))
    family = forms.MultipleChoiceField(choices=ComplianceFamilyChoices, required=False, label=_('Family'))
    severity = forms.MultipleChoiceField(choices=ComplianceSeverityChoices, required=False, label=_('Severity'))
    rule = forms.MultipleChoiceField(choices=[(r.id, r.id) for r in RULES], required=False, label=_('Rule'))
    device_id = DynamicModelChoiceField(queryset=Device.objects.all(), required=False, label=_('Device'))
    tag = TagFilterField(model)
