"""The fabric wizard's steps as NetBox forms: design option, topology and devices (with the NOS per role and the
breakouts), pools, and traffic, QoS, tenants and telemetry, each with the initial values the wizard proposes
(``forms/wizard_defaults.py``, ``forms/wizard_pools.py``)."""

import netaddr
from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from dcim.models import DeviceType, Rack, Site
from utilities.forms.fields import DynamicModelChoiceField, DynamicModelMultipleChoiceField, SlugField
from utilities.forms.rendering import FieldSet

from netbox_aifabric.choices import (
    BmcAttachmentChoices,
    DesignOptionChoices,
    LeafPairingChoices,
    LinkSpeedChoices,
    RdmaNicFamilyChoices,
    UnderlayChoices,
)
from netbox_aifabric.facts.hardware import BREAKOUT, check_port_map_shape
from netbox_aifabric.facts.nos import NOS_REGISTRY
from netbox_aifabric.forms.fields import InvalidFieldsMixin
from netbox_aifabric.forms.model_forms import (
    FABRIC_DEVICES_FIELDSET,
    FABRIC_LINKS_FIELDSET,
    FABRIC_SIZE_FIELDSET,
    FABRIC_TELEMETRY_FIELDSET,
    FabricDevicesForm,
    FabricTelemetryForm,
)
from netbox_aifabric.forms.wizard_defaults import (
    intent_initial,
    management_switch_initial,
    proposed_jump_hosts,
    topology_initial,
)
from netbox_aifabric.forms.wizard_pools import free_pool_defaults
from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass
from netbox_aifabric.planner.registry import DESIGN_OPTIONS
from netbox_aifabric.planner.spec import UNNUMBERED_UNDERLAYS

__all__ = (
    'BREAKOUT_FIELDS',
    'DESIGN_ADVICE',
    'FIELD_STEP',
    'FORMS',
    'JUMP_HOSTS_WIDEST',
    'NOS_CHOICES',
    'NOS_FIELDS',
    'STEPS',
    'STEP_NAMES',
    'BreakoutListField',
    'DesignForm',
    'IntentForm',
    'PoolsForm',
    'PrefixTextField',
    'RadioChoices',
    'TopologyForm',
    'initial_form',
    'required_pools',
)


# The guide's one-line advice per design option (declared with the options in planner/registry.py)
DESIGN_ADVICE = {option.value: _(option.advice) for option in DESIGN_OPTIONS}


class RadioChoices(forms.RadioSelect):
    """Radio buttons as Bootstrap form-checks, one per line with its label (NetBox styles inputs as text boxes)."""

    template_name = 'netbox_aifabric/widgets/radio_cards.html'


class DesignForm(InvalidFieldsMixin, forms.Form):
    name = forms.CharField(label=_('Name'), max_length=100)
    slug = SlugField()
    site = DynamicModelChoiceField(queryset=Site.objects.all(), label=_('Site'))
    design_option = forms.ChoiceField(
        label=_('Design option'),
        choices=[
            (value, format_lazy('{label} — {advice}', label=label, advice=DESIGN_ADVICE[value]))
            for value, label, *_color in DesignOptionChoices.CHOICES
        ],
        initial=DesignOptionChoices.EVPN_VXLAN,
        widget=RadioChoices,
        help_text=_("The guide's advice for each option; the planner supports all three."),
    )
    underlay = forms.ChoiceField(label=_('Underlay'), choices=UnderlayChoices, initial=UnderlayChoices.EBGP)
    leaf_pairing = forms.ChoiceField(
        label=_('Leaf pairing'),
        choices=LeafPairingChoices,
        initial=LeafPairingChoices.MLAG,
        required=False,
        help_text=Fabric._meta.get_field('leaf_pairing').help_text,
    )
    bfd = forms.BooleanField(label=_('BFD'), required=False, help_text=Fabric._meta.get_field('bfd').help_text)
    description = forms.CharField(label=_('Description'), max_length=200, required=False)

    fieldsets = (
        FieldSet(
            'name', 'slug', 'site', 'design_option', 'underlay', 'leaf_pairing', 'bfd', 'description', name=_('Design')
        ),
    )


def _count(label, initial, minimum=0):
    return forms.IntegerField(label=label, initial=initial, min_value=minimum, max_value=4096)


def _speed(label, initial):
    return forms.TypedChoiceField(label=label, choices=LinkSpeedChoices, coerce=int, initial=initial)


def _optional(model, label, **kwargs):
    return DynamicModelChoiceField(
        queryset=model.objects.all(), required=False, label=label, help_text=_('Empty: a generic one'), **kwargs
    )


# The network OS per switch role: a shipped ConfigTemplate and the platform that uses it (aifabric_load_templates)
NOS_FIELDS = {'leaf_nos': 'platform', 'spine_nos': 'spine_platform'}


NOS_CHOICES = [(t.platform_slug, t.platform) for t in NOS_REGISTRY] + [
    ('', _('None: the platform chosen below (it needs a config template, or no switch renders)'))
]


def _nos(label, help_text):
    return forms.ChoiceField(label=label, choices=NOS_CHOICES, required=False, help_text=help_text)


class BreakoutListField(forms.CharField):
    """A role's breakouts, ``port_map.<role>.breakout``: entries ``<ports>:<lanes>x<speed>G`` separated by commas
    or new lines (``swp49..swp50:4x25G``); each one checked for its shape here, its ports against the device type
    when the fabric is planned."""

    def __init__(self, role, **kwargs):
        self.role = role
        super().__init__(required=False, **kwargs)

    def clean(self, value):
        value = super().clean(value)
        entries = [entry.strip() for line in (value or '').splitlines() for entry in line.split(',') if entry.strip()]
        bad = [e for e in entries if check_port_map_shape({self.role: {BREAKOUT: [e]}})]
        if bad:
            raise ValidationError(
                _('{entries}: write "<ports>:<lanes>x<speed>G", e.g. "swp49..swp50:4x25G" (lanes 2, 4 or 8).').format(
                    entries=', '.join(bad)
                )
            )
        return entries


def _breakouts(role, label):
    return BreakoutListField(
        role,
        label=label,
        help_text=_(
            'Ports of the {role} device type split into lanes before any use, e.g. "swp49..swp50:4x25G" or '
            '"Ethernet49/1:4x25G" (comma-separated); needs the {role} device type above'
        ).format(role=role),
    )


# The topology step's breakout fields: the role whose port map they fill
BREAKOUT_FIELDS = {'leaf_breakouts': 'leaf', 'spine_breakouts': 'spine'}


class TopologyForm(FabricDevicesForm):
    leaf_nos = _nos(
        _('Leaf NOS'),
        _(
            "The leaves' network OS: its shipped config template renders every leaf right after the apply (sets "
            'the switch platform; the spines follow it unless they have their own)'
        ),
    )
    spine_nos = _nos(_('Spine NOS'), _("The spines' network OS (sets the spine platform)"))
    spine_count = _count(_('Spines'), 2)
    max_spines = _count(_('Max spines'), 4)
    leaf_count = _count(_('Leaves'), 2)
    max_leaves = _count(_('Max leaves'), 8, 1)
    uplinks_per_spine = _count(_('Uplinks per spine'), 1)
    max_parallel_uplinks = _count(_('Max parallel uplinks'), 2)
    server_count = _count(_('GPU servers'), 4)
    storage_count = _count(_('Storage nodes'), 1)
    uplink_speed = _speed(_('Uplink speed (Gbps)'), 100)
    server_nic_count = _count(_('Server NICs'), 2)
    server_nic_speed = _speed(_('Server NIC speed (Gbps)'), 25)
    rdma_nic_count = _count(_('RDMA NICs'), 1)
    rdma_nic_speed = _speed(_('RDMA NIC speed (Gbps)'), 100)
    rdma_nic_family = forms.ChoiceField(
        label=_('RDMA NIC family'),
        choices=RdmaNicFamilyChoices,
        initial=RdmaNicFamilyChoices.NVIDIA_MLX5,
        required=False,  # empty (a scripted wizard that never saw the field): the model's default
        help_text=Fabric._meta.get_field('rdma_nic_family').help_text,
    )
    mtu = forms.IntegerField(label=_('Fabric MTU'), initial=9216)
    oversubscription_target = forms.DecimalField(
        label=_('Oversubscription target'),
        required=False,
        initial=Fabric._meta.get_field('oversubscription_target').default,
        max_digits=5,
        decimal_places=2,
        help_text=Fabric._meta.get_field('oversubscription_target').help_text,
    )
    rack = _optional(Rack, _('Rack'))
    leaf_breakouts = _breakouts('leaf', _('Leaf breakouts'))
    spine_breakouts = _breakouts('spine', _('Spine breakouts'))

    fieldsets = (
        FABRIC_SIZE_FIELDSET,
        FABRIC_LINKS_FIELDSET,
        FieldSet('leaf_nos', 'spine_nos', name=_('Network OS')),
        FABRIC_DEVICES_FIELDSET,
        FieldSet('leaf_breakouts', 'spine_breakouts', name=_('Breakouts')),
    )

    def clean_rdma_nic_family(self):
        return self.cleaned_data['rdma_nic_family'] or RdmaNicFamilyChoices.NVIDIA_MLX5

    def clean(self):
        data = super().clean()
        for field, role in BREAKOUT_FIELDS.items():
            if data.get(field) and not data.get(f'{role}_device_type'):
                self.add_error(
                    field,
                    _(
                        'A breakout splits ports of a device type: choose the {role} device type (a generic one has no '
                        'ports to split).'
                    ).format(role=role),  # fmt: skip
                )
        return data


class PrefixTextField(forms.CharField):
    """An IPv4 prefix typed as text (``10.255.0.0/24``); the wizard finds or creates it as a container."""

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return value
        try:
            network = netaddr.IPNetwork(value)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise ValidationError(_('{value} is not an IP prefix (e.g. 10.255.0.0/24).').format(value=value))
        if network.version != 4 or '/' not in value:
            raise ValidationError(
                _('{value} is not an IPv4 prefix with a length (e.g. 10.255.0.0/24).').format(value=value)
            )
        if network.network != network.ip:
            raise ValidationError(
                _('{value} has host bits set: did you mean {cidr}?').format(value=value, cidr=network.cidr)
            )
        return str(network.cidr)


JUMP_HOSTS_WIDEST = 16  # a wider "jump-host subnet" (up to 0.0.0.0/0) would be an open management plane in disguise


class PoolsForm(InvalidFieldsMixin, forms.Form):
    loopback_pool = PrefixTextField(label=_('Loopback pool'), help_text=_('Router-id loopbacks, a /32 each'))
    vtep_pool = PrefixTextField(label=_('VTEP pool'), required=False, help_text=_('EVPN/VXLAN: a /32 per leaf pair'))
    p2p_pool = PrefixTextField(
        label=_('Point-to-point pool'),
        required=False,
        help_text=_('Leaf–spine /31s (none with the unnumbered underlay)'),
    )
    mlag_peer_pool = PrefixTextField(label=_('MLAG peer pool'), required=False, help_text=_('A /31 per leaf pair'))
    leaf_asn_start = forms.IntegerField(
        label=_('Leaf ASNs from'), required=False, min_value=1, max_value=4294967295, initial=65101
    )
    leaf_asn_end = forms.IntegerField(
        label=_('Leaf ASNs to'), required=False, min_value=1, max_value=4294967295, initial=65199
    )
    spine_asn = forms.IntegerField(
        label=_('Spine ASN'), required=False, min_value=1, max_value=4294967295, initial=65100
    )
    jump_host_prefix = PrefixTextField(
        label=_('Jump-host subnet'),
        required=False,
        help_text=_(
            "The only source allowed to reach the switches' SSH, HTTPS/API and SNMP (proposed: a /28 inside the "
            "guide's MGMT class). Empty: the apply is blocked unless management is left open below"
        ),
    )
    open_management = forms.BooleanField(
        label=_('Leave management open'),
        required=False,
        help_text=_(
            "Without a jump-host subnet, every source reaches the switches' SSH, HTTPS/API and SNMP, against the "
            "guide's first checklist item: tick to apply so anyway"
        ),
    )
    management_pool = PrefixTextField(
        label=_('Management network'),
        required=False,
        help_text=_("The switches' out-of-band management ports: an address each, counted down from its last host"),
    )
    management_gateway = forms.GenericIPAddressField(
        label=_('Management gateway'),
        protocol='IPv4',
        required=False,
        help_text=_("Default route of the switches' management VRF (empty: the network's first host)"),
    )
    bmc_attachment = forms.ChoiceField(
        label=_('BMC attachment'),
        choices=BmcAttachmentChoices,
        required=False,
        initial=BmcAttachmentChoices.OOB,
        help_text=Fabric._meta.get_field('bmc_attachment').help_text,
    )
    management_device_type = DynamicModelChoiceField(
        queryset=DeviceType.objects.all(),
        required=False,
        label=_('Management switch type'),
        help_text=_(
            'The out-of-band switch for every BMC and switch management port: the apply creates it and cables them '
            '(proposed: the shipped 1G management switch). Empty: none is planned; the bill of materials still '
            'lists one to buy'
        ),
    )

    fieldsets = (
        FieldSet('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool', name=_('Address pools')),
        FieldSet('leaf_asn_start', 'leaf_asn_end', 'spine_asn', name=_('ASNs (eBGP underlay)')),
        FieldSet(
            'jump_host_prefix',
            'open_management',
            'management_pool',
            'management_gateway',
            'bmc_attachment',
            'management_device_type',
            name=_('Management plane'),
        ),
    )

    def clean(self):
        data = super().clean()
        jump_hosts = data.get('jump_host_prefix')
        if jump_hosts and netaddr.IPNetwork(jump_hosts).prefixlen < JUMP_HOSTS_WIDEST:
            self.add_error(
                'jump_host_prefix',
                _(
                    '{prefix} admits {count} sources: a jump-host subnet is a few admin hosts (a /{widest} at the '
                    'widest); to admit every source, clear it and tick "Leave management open".'
                ).format(prefix=jump_hosts, count=netaddr.IPNetwork(jump_hosts).size, widest=JUMP_HOSTS_WIDEST),
            )
        if data.get('jump_host_prefix') and data.get('open_management'):
            self.add_error(
                'open_management',
                _('Management is limited to the jump-host subnet {prefix}: clear it to leave management open.').format(
                    prefix=data['jump_host_prefix']
                ),
            )
        start, end = data.get('leaf_asn_start'), data.get('leaf_asn_end')
        if (start is None) != (end is None):
            self.add_error(
                'leaf_asn_end' if end is None else 'leaf_asn_start', _('Give both ends of the leaf ASN range.')
            )
        elif start is not None and end < start:
            self.add_error(
                'leaf_asn_end', _('The range ends ({end}) before it starts ({start}).').format(end=end, start=start)
            )
        return data


class IntentForm(InvalidFieldsMixin, FabricTelemetryForm):
    """Traffic classes, QoS, tenants and the telemetry collectors (the fabric form's fields: empty by default, as
    the operator's collector addresses cannot be guessed; the preview warns which services have none)."""

    # quick_add: NetBox's "+" beside the select opens the traffic-class form in a modal and selects the new class
    traffic_classes = DynamicModelMultipleChoiceField(
        queryset=TrafficClass.objects.all(), required=False, label=_('Traffic classes'), quick_add=True
    )
    qos_profile = DynamicModelChoiceField(queryset=QoSProfile.objects.all(), required=False, label=_('QoS profile'))
    tenants = DynamicModelMultipleChoiceField(
        queryset=EVPNTenant.objects.all(), required=False, label=_('EVPN tenants')
    )
    l2vni_base = forms.IntegerField(label=_('L2VNI base'), initial=10000, min_value=1, max_value=16777215)
    anycast_gateway_mac = forms.CharField(label=_('Anycast gateway MAC'), required=False, initial='02:00:00:00:00:aa')

    fieldsets = (
        FieldSet('traffic_classes', 'qos_profile', name=_('Traffic and QoS')),
        FieldSet('tenants', 'l2vni_base', 'anycast_gateway_mac', name=_('EVPN')),
        FABRIC_TELEMETRY_FIELDSET,
    )


STEPS = (
    ('design', _('Design'), DesignForm),
    ('topology', _('Topology and devices'), TopologyForm),
    ('pools', _('Pools'), PoolsForm),
    ('intent', _('Traffic, QoS, tenants and telemetry'), IntentForm),
    ('preview', _('Preview and apply'), None),
)


STEP_NAMES = [name for name, _label, _form in STEPS]


FORMS = {name: form for name, _label, form in STEPS if form is not None}


FIELD_STEP = {field: name for name, form in FORMS.items() for field in form.base_fields}
# Fabric fields the pools step fills from its own fields
FIELD_STEP.update({'leaf_asn_range': 'pools', 'port_map': 'topology'})


def required_pools(cleaned):
    """``{field: message}`` for the pools and ASNs the chosen design, leaf pairing and sizes need
    (``Fabric.required_pools``) but the pools step left empty: an MLAG peer pool whenever leaves are MLAG-paired (in
    the routed design too), none for EVPN multihoming."""
    design, topology, pools = (cleaned.get(step, {}) for step in ('design', 'topology', 'pools'))
    fabric = Fabric(
        design_option=design.get('design_option'),
        underlay=design.get('underlay'),
        leaf_pairing=design.get('leaf_pairing') or LeafPairingChoices.MLAG,
        spine_count=topology.get('spine_count', 2),
        max_spines=topology.get('max_spines', 4),
        leaf_count=topology.get('leaf_count', 2),
    )
    needed = {
        'leaf_asn_start' if field == 'leaf_asn_range' else field: message
        for field, message in fabric.required_pools().items()
    }
    return {field: message for field, message in needed.items() if pools.get(field) in (None, '')}


def initial_form(step, underlay=None, design=None):
    """The step's form before anything was submitted: the proposals of :mod:`.wizard_defaults` (free pools and
    ASNs, a jump-host subnet inside MGMT, the shipped management switch, the NOS with device types and a shape that
    fits them, the guide's classes, QoS preset and tenant)."""
    form_class, note = FORMS[step], None
    if step == 'pools':
        initial = {
            **free_pool_defaults(),
            'jump_host_prefix': proposed_jump_hosts(),
            'management_device_type': management_switch_initial(),
        }
        if underlay in UNNUMBERED_UNDERLAYS:
            del initial['p2p_pool']  # unnumbered links take no /31s: no pool to propose
        if design is not None and design != DesignOptionChoices.EVPN_VXLAN:
            initial.pop('vtep_pool', None)  # no VTEPs outside EVPN/VXLAN: no pool to propose
    elif step == 'topology':
        initial, note = topology_initial()
    elif step == 'intent':
        initial = intent_initial()
    else:
        initial = None
    form = form_class(initial=initial)
    if note:
        form.fields['max_parallel_uplinks'].help_text = note
    return form
