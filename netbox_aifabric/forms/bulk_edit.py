from django import forms
from django.utils.translation import gettext_lazy as _

from dcim.models import Site
from ipam.models import VRF
from netbox.forms import NetBoxModelBulkEditForm, PrimaryModelBulkEditForm
from tenancy.models import Tenant
from utilities.forms import add_blank_choice
from utilities.forms.fields import DynamicModelChoiceField
from utilities.forms.rendering import FieldSet
from utilities.forms.widgets import BulkEditNullBooleanSelect

from netbox_aifabric.choices import (
    BmcAttachmentChoices,
    DesignOptionChoices,
    FabricStatusChoices,
    LeafPairingChoices,
    QoSModeChoices,
    QoSTrustChoices,
    RdmaNicFamilyChoices,
    ReachabilityChoices,
    TrafficPurposeChoices,
    UnderlayChoices,
)
from netbox_aifabric.constants import MTU_MAX, MTU_MIN, PRIORITY_MAX, PRIORITY_MIN
from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass
from netbox_aifabric.models.fabrics import OVERSUBSCRIPTION_MAX, OVERSUBSCRIPTION_MIN

__all__ = (
    'EVPNTenantBulkEditForm',
    'FabricBulkEditForm',
    'FabricNodeBulkEditForm',
    'QoSProfileBulkEditForm',
    'TrafficClassBulkEditForm',
)


def _choice(choices, label):
    return forms.ChoiceField(choices=add_blank_choice(choices), required=False, label=label)


def _flag(label):
    return forms.NullBooleanField(required=False, widget=BulkEditNullBooleanSelect(), label=label)


def _mtu():
    return forms.IntegerField(required=False, min_value=MTU_MIN, max_value=MTU_MAX, label=_('MTU'))


class TrafficClassBulkEditForm(PrimaryModelBulkEditForm):
    purpose = _choice(TrafficPurposeChoices, _('Purpose'))
    vrf = DynamicModelChoiceField(queryset=VRF.objects.all(), required=False, label=_('VRF'))
    switch_priority = forms.IntegerField(
        required=False, min_value=PRIORITY_MIN, max_value=PRIORITY_MAX, label=_('Switch priority')
    )
    queue = forms.IntegerField(required=False, min_value=PRIORITY_MIN, max_value=PRIORITY_MAX, label=_('Queue'))
    lossless = _flag(_('Lossless (PFC)'))
    ecn = _flag(_('ECN'))
    routed = _flag(_('Routed'))
    reachability = _choice(ReachabilityChoices, _('Reachability'))
    mtu = _mtu()

    model = TrafficClass
    fieldsets = (
        FieldSet('purpose', 'vrf', 'routed', 'reachability', 'mtu', 'description'),
        FieldSet('switch_priority', 'queue', 'lossless', 'ecn', name=_('QoS')),
    )
    nullable_fields = ('vrf', 'switch_priority', 'queue', 'mtu', 'description', 'comments')


class QoSProfileBulkEditForm(PrimaryModelBulkEditForm):
    mode = _choice(QoSModeChoices, _('Mode'))
    trust = _choice(QoSTrustChoices, _('Trust'))
    ecn_enabled = _flag(_('ECN'))
    pfc_watchdog = _flag(_('PFC watchdog'))
    cable_length = forms.IntegerField(required=False, min_value=0, label=_('Cable length (m)'))
    mtu = _mtu()

    model = QoSProfile
    fieldsets = (FieldSet('mode', 'trust', 'ecn_enabled', 'pfc_watchdog', 'cable_length', 'mtu', 'description'),)
    nullable_fields = ('cable_length', 'mtu', 'description', 'comments')


class EVPNTenantBulkEditForm(PrimaryModelBulkEditForm):
    tenant = DynamicModelChoiceField(queryset=Tenant.objects.all(), required=False, label=_('Tenant'))
    l2vni_base = forms.IntegerField(required=False, min_value=1, label=_('L2VNI base'))
    anycast_gateway_mac = forms.CharField(required=False, max_length=17, label=_('Anycast gateway MAC'))

    model = EVPNTenant
    fieldsets = (FieldSet('tenant', 'l2vni_base', 'anycast_gateway_mac', 'description'),)
    nullable_fields = ('tenant', 'l2vni_base', 'description', 'comments')


class FabricBulkEditForm(PrimaryModelBulkEditForm):
    site = DynamicModelChoiceField(queryset=Site.objects.all(), required=False, label=_('Site'))
    status = _choice(FabricStatusChoices, _('Status'))
    design_option = _choice(DesignOptionChoices, _('Design option'))
    underlay = _choice(UnderlayChoices, _('Underlay'))
    leaf_pairing = _choice(LeafPairingChoices, _('Leaf pairing'))
    bfd = _flag(_('BFD'))
    bmc_attachment = _choice(BmcAttachmentChoices, _('BMC attachment'))
    rdma_nic_family = _choice(RdmaNicFamilyChoices, _('RDMA NIC family'))
    qos_profile = DynamicModelChoiceField(queryset=QoSProfile.objects.all(), required=False, label=_('QoS profile'))
    mtu = _mtu()
    oversubscription_target = forms.DecimalField(
        required=False,
        min_value=OVERSUBSCRIPTION_MIN,
        max_value=OVERSUBSCRIPTION_MAX,
        max_digits=5,
        decimal_places=2,
        label=_('Oversubscription target'),
    )

    model = Fabric
    fieldsets = (
        FieldSet(
            'site',
            'status',
            'design_option',
            'underlay',
            'leaf_pairing',
            'bfd',
            'bmc_attachment',
            'rdma_nic_family',
            'qos_profile',
            'mtu',
            'oversubscription_target',
            'description',
        ),
    )
    nullable_fields = ('qos_profile', 'oversubscription_target', 'description', 'comments')


class FabricNodeBulkEditForm(NetBoxModelBulkEditForm):
    """Move nodes between leaf pairs (e.g. servers to a new rack) at once; ids and names stay per node."""

    pair = forms.IntegerField(required=False, min_value=1, label=_('Leaf pair'))

    model = FabricNode
    fieldsets = (FieldSet('pair', name=_('Fabric node')),)
    nullable_fields = ('pair',)
