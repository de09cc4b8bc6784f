"""The fabric wizard: design option → topology and devices → pools → traffic, QoS, tenants and telemetry → preview
→ apply.

Each step is a NetBox form. What a step submits is kept in the user's session (``aifabric_wizard``), so Back,
the browser's back/forward buttons and a reload never lose it. Every step validates its own fields and then the whole
intent as far as it is known (``Fabric.clean()``, the same rules as the edit form and the REST API), showing each error
at its field. The preview builds the fabric, its pools and ASN range inside a transaction, computes the plan and the
diff an apply would make, and rolls everything back: nothing is written until "Create" (or "Create and apply").
"""

import re
import secrets
import zlib
from contextlib import nullcontext

import netaddr
from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.views import View

from dcim.models import DeviceType, Platform, Rack, Site
from ipam.models import RIR, ASNRange, Prefix
from utilities.forms.fields import DynamicModelChoiceField, DynamicModelMultipleChoiceField, SlugField
from utilities.forms.rendering import FieldSet

from .apply.engine import ApplyConflictError, diff_fabric, summarize
from .apply.hardware import BREAKOUT, check_port_map_shape
from .apply.permissions import ObjectPermissionError, ObjectPermissions, visible_changes
from .apply.service import MissingPermissionsError, apply_blockers, request_apply
from .apply.validation import pools_left_for_later
from .checks.intent import intent_warnings
from .checks.observability import observability_warning
from .choices import BmcAttachmentChoices, DesignOptionChoices, LeafPairingChoices, LinkSpeedChoices, UnderlayChoices
from .diff import readable_diff
from .forms.fields import InvalidFieldsMixin
from .forms.model_forms import (
    FABRIC_DEVICES_FIELDSET,
    FABRIC_LINKS_FIELDSET,
    FABRIC_SIZE_FIELDSET,
    FABRIC_TELEMETRY_FIELDSET,
    FabricDevicesForm,
    FabricTelemetryForm,
)
from .guide import GUIDE_SHAPE
from .intent import telemetry_of
from .jobs import ui_runs_in_background
from .models import EVPNTenant, Fabric, QoSProfile, TrafficClass
from .planner import PlanError
from .planner.registry import DESIGN_OPTIONS
from .pools import free_pool_defaults
from .seed import DEVICE_TEMPLATES, load_config_templates
from .shape import fitting_shape
from .topology import topology_svg
from .wizard_defaults import intent_initial, management_switch_initial, proposed_jump_hosts, topology_initial

__all__ = ('STEPS', 'FabricWizardView')

SESSION_KEY = 'aifabric_wizard'

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
NOS_CHOICES = [(t.platform_slug, t.platform) for t in DEVICE_TEMPLATES] + [
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
    p2p_pool = PrefixTextField(label=_('Point-to-point pool'), required=False, help_text=_('Leaf–spine /31s'))
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


class WizardState:
    """The submitted data of every step, kept in the session as ``{step: {field: [values]}}``."""

    def __init__(self, request):
        self.session = request.session
        self.data = self.session.get(SESSION_KEY) or {}

    def querydict(self, step):
        qd = QueryDict(mutable=True)
        for key, values in self.data.get(step, {}).items():
            qd.setlist(key, values)
        return qd

    def has(self, step):
        return step in self.data

    def save(self, step, post):
        form = FORMS[step]
        self.data[step] = {key: post.getlist(key) for key in form.base_fields if key in post}
        self.session[SESSION_KEY] = self.data
        self.session.modified = True

    def clear(self):
        self.session.pop(SESSION_KEY, None)

    def form(self, step, bound=True):
        form_class = FORMS[step]
        if bound and self.has(step):
            return form_class(self.querydict(step))
        return initial_form(step)

    def cleaned(self):
        """``{step: cleaned_data}`` of every valid step, and the first step that is not valid (or None)."""
        cleaned = {}
        for step in FORMS:
            form = self.form(step)
            if not form.is_bound or not form.is_valid():
                return cleaned, step
            cleaned[step] = form.cleaned_data
        return cleaned, None


def initial_form(step):
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


# the fabric's prefixes the pools step types as text and the wizard finds or creates
PREFIX_FIELDS = ('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool', 'management_pool', 'jump_host_prefix')


def _pool(prefix, fabric_name, field, created):
    if not prefix:
        return None
    existing = Prefix.objects.filter(prefix=prefix, vrf=None).first()
    if existing is not None:
        return existing
    pool = Prefix(
        prefix=prefix,
        status='container',
        description=f'AI fabric {fabric_name}: {Fabric._meta.get_field(field).verbose_name}'[:200],
    )
    pool.full_clean()
    pool.save()
    created.append(pool)
    return pool


def _asn_range(start, end, fabric_name, slug, created):
    if start is None:
        return None
    existing = ASNRange.objects.filter(start=start, end=end).first()
    if existing is not None:
        return existing
    rir = RIR.objects.filter(is_private=True).order_by('pk').first()
    if rir is None:
        rir = RIR(name='Private ASNs', slug='private-asns', is_private=True)
        rir.full_clean()
        rir.save()
        created.append(rir)
    asn_range = ASNRange(name=f'{fabric_name} leaves'[:100], slug=f'{slug}-leaves'[:100], rir=rir, start=start, end=end)
    asn_range.full_clean()
    asn_range.save()
    created.append(asn_range)
    return asn_range


def build_fabric(cleaned, save, user=None):
    """The Fabric of the wizard's data; with ``save`` the pools, ASN range and fabric are written (the caller's
    transaction decides whether they stay). Raises ValidationError with the fabric's field errors.

    With ``user``, what is written must be allowed to that user, as NetBox's views allow it: the add permission of
    every Prefix, RIR and ASNRange created (and the fabric), within the constraints of the user's ObjectPermissions;
    else :class:`~netbox_aifabric.apply.permissions.ObjectPermissionError` (the caller rolls back)."""
    design, topology, pools, intent = (cleaned.get(step, {}) for step in ('design', 'topology', 'pools', 'intent'))
    name = design.get('name', '')
    fabric = Fabric(
        name=name,
        slug=design.get('slug', ''),
        site=design.get('site'),
        design_option=design.get('design_option'),
        underlay=design.get('underlay'),
        leaf_pairing=design.get('leaf_pairing') or LeafPairingChoices.MLAG,
        description=design.get('description', ''),
        bfd=bool(design.get('bfd')),
        port_map=_port_map(topology),
        spine_asn=pools.get('spine_asn'),
        management_gateway=pools.get('management_gateway') or None,
        bmc_attachment=pools.get('bmc_attachment') or BmcAttachmentChoices.OOB,
        management_device_type=pools.get('management_device_type'),
        **{k: v for k, v in topology.items() if k not in NOS_FIELDS and k not in BREAKOUT_FIELDS},
        **{k: v for k, v in intent.items() if k not in ('traffic_classes', 'tenants')},
    )
    if intent.get('l2vni_base') is None:
        fabric.l2vni_base = 10000
    created = []
    if save:
        for field in PREFIX_FIELDS:
            setattr(fabric, field, _pool(pools.get(field), name, field, created))
        fabric.leaf_asn_range = _asn_range(
            pools.get('leaf_asn_start'), pools.get('leaf_asn_end'), name, fabric.slug, created
        )
        _set_nos(fabric, topology, created)
        _check_adds(user, created)
    else:
        for field in PREFIX_FIELDS:
            if pools.get(field):
                setattr(fabric, field, Prefix(prefix=pools[field]))
        if pools.get('leaf_asn_start') is not None:
            start, end = pools['leaf_asn_start'], pools['leaf_asn_end']
            fabric.leaf_asn_range = ASNRange(name=f'{start}–{end}', start=start, end=end)
    fabric._m2m_values = {
        'traffic_classes': list(intent.get('traffic_classes') or []),
        'tenants': list(intent.get('tenants') or []),
    }
    try:
        # before its pools step the wizard checks a fabric it does not save: its pools and ASNs may still be empty
        with nullcontext() if save or 'pools' in cleaned else pools_left_for_later():
            fabric.full_clean(exclude=[] if save else ['leaf_asn_range'])
    except ValidationError as e:
        e.fabric = fabric  # the wizard finds which breakout field a port-map error belongs to
        raise
    if save:
        fabric.save()
        fabric.traffic_classes.set(fabric._m2m_values['traffic_classes'])
        fabric.tenants.set(fabric._m2m_values['tenants'])
        _check_adds(user, [fabric])
    return fabric


def _port_map(topology):
    """The fabric's ``port_map`` of the topology step: ``{role: {"breakout": [entries]}}`` for each role given."""
    return {role: {BREAKOUT: topology[field]} for field, role in BREAKOUT_FIELDS.items() if topology.get(field)}


def port_map_error_field(fabric):
    """The wizard field of a planner error on the fabric's port map: ``<role>_breakouts`` for an error on
    ``port_map.<role>.breakout`` (a port the device type lacks, lanes faster than the port), ``<role>_device_type``
    for another use of that role (its device type has too few ports of a speed), else None (the step's own error)."""
    from .apply.spec import fabric_spec

    try:
        fabric_spec(fabric, pending=True)
    except PlanError as e:
        parts = e.field.split('.')
        if len(parts) == 3 and parts[0] == 'port_map' and parts[1] in BREAKOUT_FIELDS.values():
            return f'{parts[1]}_breakouts' if parts[2] == BREAKOUT else f'{parts[1]}_device_type'
    return None


def _set_nos(fabric, topology, created):
    """The chosen NOS per role becomes the role's platform: the shipped ConfigTemplates and their platforms are
    loaded (idempotent; ``created`` gets what is new), so NetBox resolves each switch's template through its
    platform. A platform of that slug without a config template (edited locally) is an error at the NOS field."""
    chosen = {field: topology.get(field) for field in NOS_FIELDS if topology.get(field)}
    if not chosen:
        return
    created.extend(load_config_templates().created)
    errors = {}
    for field, slug in chosen.items():
        platform = Platform.objects.filter(slug=slug).select_related('config_template').first()
        if platform is None or platform.config_template is None:
            errors[field] = _(
                'The platform {slug} has no config template, so its switches would not render: give it one or '
                'run aifabric_load_templates --force.'
            ).format(slug=slug)
            continue
        setattr(fabric, NOS_FIELDS[field], platform)
    if errors:
        raise ValidationError(errors)


def _check_adds(user, created):
    """``user`` may add each of ``created`` (just saved): its model's add permission and its constraints."""
    if user is None or not created:
        return
    perms = {f'{o._meta.app_label}.add_{o._meta.model_name}' for o in created}
    missing = sorted(perm for perm in perms if not user.has_perm(perm))
    if missing:
        raise CreatePermissionError(
            _('Nothing was written: creating this fabric needs these permissions: {perms}.').format(
                perms=', '.join(missing)
            )
        )
    permissions = ObjectPermissions(user)
    for obj in created:
        permissions.add(obj, 'add')
    try:
        permissions.check()
    except ObjectPermissionError as e:
        raise CreatePermissionError(*e.args) from e


def wizard_blockers(cleaned, fabric):
    """``[(step, field, message)]``: what the wizard's defaults promise and this fabric would break, each blocking
    "Create and apply" (shown next to the button): a switch role whose devices would render no config (no NOS, or a
    platform and role without a config template), and management open to every source (no jump-host subnet) unless
    the pools step says so on purpose."""
    blockers = []
    for role, platform, device_role in (
        ('leaf', fabric.platform, fabric.leaf_role),
        ('spine', fabric.spine_platform or fabric.platform, fabric.spine_role),
    ):
        if not any(obj is not None and obj.config_template_id for obj in (platform, device_role)):
            blockers.append(
                (
                    'topology',
                    'leaf_nos' if role == 'leaf' or fabric.platform is None else 'spine_nos',
                    _(
                        'No {role} config would render: choose a NOS (or a platform with a config template) in step 2.'
                    ).format(role=role),
                )
            )
    pools = cleaned.get('pools', {})
    if not pools.get('jump_host_prefix') and not pools.get('open_management'):
        blockers.append(
            (
                'pools',
                'jump_host_prefix',
                _(
                    "No jump-host subnet: the switches' SSH, HTTPS/API and SNMP would accept every source. Give "
                    'one in step 3 (or tick "Leave management open").'
                ),
            )
        )
    return blockers


class CreatePermissionError(ObjectPermissionError):
    """The user may not create the pools, RIR, ASN range or fabric the wizard would write."""


class _Rollback(Exception):
    pass


class WizardBlockedError(Exception):
    """The wizard's own blockers (``wizard_blockers``) refuse the apply; nothing is written."""


class _AlreadySubmitted(Exception):
    def __init__(self, fabric):
        super().__init__(fabric)
        self.fabric = fabric


# One submission of the preview's form: a random token in a hidden field; what it created is kept in NetBox's cache
SUBMISSION_FIELD = 'submission'
SUBMISSION_TOKEN = re.compile(r'[0-9a-f]{32}')
SUBMISSION_TTL = 24 * 3600
SUBMISSION_LOCK_CLASS = 0x41494657  # 'AIFW': the two-key advisory lock space of the wizard's submissions


def new_submission_token():
    return secrets.token_hex(16)


def _submission_key(token):
    return f'netbox_aifabric.wizard.submission.{token}'


def earlier_submission(token):
    """The fabric an earlier POST of ``token`` created, or None. Takes the token's advisory lock until the caller's
    transaction ends, so a second POST (a double click) waits for the first's commit or rollback, then finds what it
    created; a rolled-back first POST left no fabric of that pk."""
    if not token:
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT pg_advisory_xact_lock(%s, %s)', [SUBMISSION_LOCK_CLASS, zlib.crc32(token.encode()) - 2**31]
        )
    pk = cache.get(_submission_key(token))
    return Fabric.objects.filter(pk=pk).first() if pk is not None else None


def record_submission(token, fabric):
    """Remember what ``token``'s POST created; written before the commit (under the token's lock), so a waiting
    second POST reads it right after."""
    if token:
        cache.set(_submission_key(token), fabric.pk, SUBMISSION_TTL)


class FabricWizardView(View):
    """``GET ?step=<name>`` shows a step with what was submitted before; ``POST`` validates it and goes on."""

    template_name = 'netbox_aifabric/fabric_wizard.html'

    def dispatch(self, request, *args, **kwargs):
        if not request.user.has_perm('netbox_aifabric.add_fabric'):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            raise PermissionDenied(_('Creating a fabric needs the add permission on fabrics.'))
        return super().dispatch(request, *args, **kwargs)

    def _step(self, request):
        step = request.GET.get('step') or STEP_NAMES[0]
        return step if step in STEP_NAMES else STEP_NAMES[0]

    def _url(self, step):
        return f'{reverse("plugins:netbox_aifabric:fabric_wizard")}?step={step}'

    def _render(self, request, step, form=None, **context):
        state = WizardState(request)
        index = STEP_NAMES.index(step)
        return render(
            request,
            self.template_name,
            {
                'step': step,
                'steps': [
                    {'name': name, 'label': label, 'done': state.has(name), 'url': self._url(name)}
                    for name, label, _form in STEPS
                ],
                'step_number': index + 1,
                'previous_url': self._url(STEP_NAMES[index - 1]) if index else None,
                'form': form,
                **context,
            },
        )

    def get(self, request):
        step = self._step(request)
        state = WizardState(request)
        if request.GET.get('reset'):
            state.clear()
            return redirect(self._url(STEP_NAMES[0]))
        if step == 'preview':
            return self._preview(request, state)
        form = state.form(step)
        if form.is_bound:
            form.is_valid()  # show the stored data's errors at their fields
            self._whole(state, step, form)
        return self._render(request, step, form)

    def post(self, request):
        step = self._step(request)
        state = WizardState(request)
        if step == 'preview':
            return self._create(request, state)
        state.save(step, request.POST)
        index = STEP_NAMES.index(step)
        if request.POST.get('_back'):
            return redirect(self._url(STEP_NAMES[max(index - 1, 0)]))
        form = state.form(step)
        if not form.is_valid() or not self._whole(state, step, form):
            return self._render(request, step, form)
        return redirect(self._url(STEP_NAMES[index + 1]))

    def _whole(self, state, step, form):
        """Check the fabric as far as the wizard knows it; put the errors of this step's fields on the form.
        Returns whether this step is free of errors."""
        if form.errors:
            return False
        cleaned, _first_invalid = state.cleaned()
        cleaned[step] = form.cleaned_data
        if step == 'pools':
            for field, message in required_pools(cleaned).items():
                form.add_error(field, message)
        try:
            build_fabric(cleaned, save=False)
        except ValidationError as e:
            for field, messages_ in _errors_of(e).items():
                target = FIELD_STEP.get(field, 'design' if field in ('name', 'slug', '__all__') else None)
                if field == 'leaf_asn_range':
                    field = 'leaf_asn_start'
                if field == 'port_map' and step == 'topology':
                    # the breakout or device-type field at fault
                    field = port_map_error_field(e.fabric)
                    for message in messages_:
                        form.add_error(field, message)
                    if field in ('leaf_device_type', 'spine_device_type'):
                        self._shape_hint(form, e.fabric, field)
                    continue
                if target == step and field in form.fields and field not in form.errors:  # one message a field
                    for message in messages_:
                        form.add_error(field, message)
        return not form.errors

    def _shape_hint(self, form, fabric, field):
        """Where the device types lack ports for the declared maximums: the largest maximums they hold (the same
        planner check on the step's ``fabric``), at the device type's ``field`` beside the error; nothing when the
        counts themselves do not fit."""
        sizes = {name: getattr(fabric, name) for name in GUIDE_SHAPE if not name.startswith('max_')}
        sizes['max_leaves'] = fabric.max_leaves
        shape, _error = fitting_shape(
            sizes, fabric.leaf_device_type, fabric.spine_device_type, fabric.design_option, fabric.leaf_pairing
        )
        if shape is not None and (shape['max_spines'], shape['max_parallel_uplinks']) != (
            fabric.max_spines,
            fabric.max_parallel_uplinks,
        ):
            form.add_error(
                field,
                _('These device types hold at most max spines {spines} × max parallel uplinks {parallel}.').format(
                    spines=shape['max_spines'], parallel=shape['max_parallel_uplinks']
                ),
            )

    def _preview(self, request, state):
        cleaned, invalid = state.cleaned()
        if invalid is not None:
            messages.warning(request, _('Complete this step first.'))
            return redirect(self._url(invalid))
        context = {}
        try:
            with transaction.atomic():
                fabric = build_fabric(cleaned, save=True, user=request.user)
                try:
                    plan, changes = diff_fabric(fabric)
                    changes = visible_changes(request.user, changes)
                    context = {
                        'plan': plan,
                        'apply_diff': summarize(changes),
                        'diff_groups': readable_diff(changes),
                        # svgwrite escapes every name it writes, so the drawing is safe to embed
                        'svg': mark_safe(topology_svg(plan)),
                        'fabric_links': [link for link in plan.links if link.subnet],
                        'apply_conflicts': [c for c in changes if c.action == 'conflict'],
                        'apply_blockers': apply_blockers(plan),
                        'intent_warnings': intent_warnings(fabric),
                        'observability': observability_warning(
                            telemetry_of(fabric), f'{self._url("intent")}#{FABRIC_TELEMETRY_FIELDSET.html_id}'
                        ),
                        'fabric_preview': fabric,
                        'background_default': ui_runs_in_background(fabric, None),
                    }
                except PlanError as e:
                    context = {'plan_error': e}
                context['wizard_blockers'] = [
                    {'step': step, 'url': self._url(step), 'field': field, 'message': message}
                    for step, field, message in wizard_blockers(cleaned, fabric)
                ]
                raise _Rollback
        except _Rollback:
            pass
        except ValidationError as e:
            return self._back_to_error(request, state, e)
        except CreatePermissionError as e:
            messages.error(request, str(e))
            return redirect(self._url('pools'))
        context['can_apply'] = request.user.has_perm('netbox_aifabric.apply_fabric')
        context['apply_reasons'] = apply_reasons(context)
        context['submission'] = new_submission_token()
        return self._render(request, 'preview', **context)

    def _back_to_error(self, request, state, error):
        errors = _errors_of(error)
        for field in errors:
            step = FIELD_STEP.get(field, 'design')
            if step in FORMS:
                return redirect(self._url(step))
        messages.error(request, '; '.join(f'{k}: {" ".join(v)}' for k, v in errors.items()))
        return redirect(self._url('design'))

    def _create(self, request, state):
        token = request.POST.get(SUBMISSION_FIELD) or ''
        if token and not SUBMISSION_TOKEN.fullmatch(token):
            messages.error(
                request, _('{field}: not a token of this wizard; nothing was written.').format(field=SUBMISSION_FIELD)
            )
            return redirect(self._url('preview'))
        try:
            with transaction.atomic():
                earlier = earlier_submission(token)  # waits until an earlier POST of this token has ended
                if earlier is not None:
                    raise _AlreadySubmitted(earlier)
                return self._create_once(request, state, token)
        except _AlreadySubmitted as e:
            state.clear()
            messages.info(
                request,
                _('This form was submitted already: that submission created the fabric {fabric}.').format(
                    fabric=e.fabric
                ),
            )
            return redirect(e.fabric.get_absolute_url())

    def _create_once(self, request, state, token):
        """Create (and apply) the fabric, in the caller's transaction; ``token`` (if any) records it."""
        cleaned, invalid = state.cleaned()
        if invalid is not None:
            return redirect(self._url(invalid))
        apply, queued = bool(request.POST.get('_apply')), False
        if apply and not request.user.has_perm('netbox_aifabric.apply_fabric'):
            messages.error(request, _('You may create the fabric but not apply it (the apply permission is missing).'))
            return redirect(self._url('preview'))
        try:
            with transaction.atomic():
                fabric = build_fabric(cleaned, save=True, user=request.user)
                blockers = wizard_blockers(cleaned, fabric) if apply else []
                if blockers:
                    raise WizardBlockedError(' '.join(str(message) for _step, _field, message in blockers))
                if apply:
                    background = ui_runs_in_background(fabric, request.POST.get('background'))
                    queued = request_apply(fabric, request.user, background=background, on_commit=True).queued
                    if queued:
                        messages.info(
                            request, _('The fabric was created; its apply runs in the background (its Jobs tab).')
                        )
                    else:
                        messages.success(request, _('Fabric {fabric} created and applied.').format(fabric=fabric))
                else:
                    messages.success(request, _('Fabric {fabric} created (not applied yet).').format(fabric=fabric))
                record_submission(token, fabric)
        except ValidationError as e:
            return self._back_to_error(request, state, e)
        except CreatePermissionError as e:  # the pools, RIR, ASN range or fabric
            messages.error(request, str(e))
            return redirect(self._url('pools'))
        except (PlanError, ApplyConflictError, MissingPermissionsError, WizardBlockedError) as e:
            messages.error(request, _('Nothing was written: {error}').format(error=e))
            return redirect(self._url('preview'))
        except ObjectPermissionError as e:  # the apply's objects, outside the user's constraints
            messages.error(request, str(e))
            return redirect(self._url('preview'))
        state.clear()
        if apply and queued:  # the job is queued on commit: the fabric's Jobs tab lists it with its progress
            return redirect(reverse('plugins:netbox_aifabric:fabric_jobs', kwargs={'pk': fabric.pk}))
        return redirect(fabric.get_absolute_url())


def apply_reasons(context):
    """Why "Create and apply" is disabled, ``[{'code', 'message', 'url'}]`` shown next to the button: the plan's
    error, its conflicts with NetBox, the guide's hard rules it breaks, the wizard's blockers (with a link to their
    step) and a missing permission."""
    reasons = []
    if context.get('plan_error'):
        reasons.append(('plan-error', _('The plan has an error (above): {error}').format(error=context['plan_error'])))
    conflicts = context.get('apply_conflicts') or []
    if conflicts:
        message = _('{count} planned objects conflict with objects already in NetBox (see the changes above).')
        reasons.append(('conflicts', message.format(count=len(conflicts))))
    for warning in context.get('apply_blockers') or []:
        message = _('The plan breaks a hard rule ({code}): {message}')
        reasons.append((warning.code, message.format(code=warning.code, message=warning.message)))
    reasons = [{'code': code, 'message': message, 'url': None} for code, message in reasons]
    for blocker in context.get('wizard_blockers') or []:
        reasons.append({'code': blocker['field'], 'message': blocker['message'], 'url': blocker['url']})
    if not context.get('can_apply'):
        message = _('Applying needs the apply permission on fabrics; you may create the fabric.')
        reasons.append({'code': 'permission', 'message': message, 'url': None})
    return reasons


def _errors_of(error):
    if hasattr(error, 'error_dict'):
        return {field: [m for e in errors for m in e.messages] for field, errors in error.error_dict.items()}
    return {'__all__': error.messages}
