"""The wizard's create: the Fabric of the steps' cleaned data, and with ``save`` its pools, ASN range, platforms
and the fabric written (the caller's transaction decides whether they stay), each write allowed to the user as
NetBox's views allow it."""

from contextlib import nullcontext

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from dcim.models import Platform
from ipam.models import RIR, ASNRange, Prefix

from netbox_aifabric.apply.permissions import ObjectPermissionError, ObjectPermissions
from netbox_aifabric.apply.seed import load_config_templates
from netbox_aifabric.choices import BmcAttachmentChoices, LeafPairingChoices
from netbox_aifabric.facts.hardware import BREAKOUT
from netbox_aifabric.forms.wizard import BREAKOUT_FIELDS, NOS_FIELDS
from netbox_aifabric.intake.spec import fabric_spec
from netbox_aifabric.intake.validation import pools_left_for_later
from netbox_aifabric.models import Fabric
from netbox_aifabric.models.fabrics import REQUIRED_FIELDS
from netbox_aifabric.planner import PlanError
from netbox_aifabric.planner.requirements import required_inputs

__all__ = ('PREFIX_FIELDS', 'CreatePermissionError', 'build_fabric', 'port_map_error_field', 'unused_pools')


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
    unused = unused_pools(fabric)
    pools = {field: value for field, value in pools.items() if field not in unused}
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


def unused_pools(fabric):
    """The pool fields the fabric's design numbers nothing from, even grown to its maximums (the planner's rule,
    ``planner.requirements.required_inputs``): the VTEP pool outside EVPN/VXLAN, the point-to-point pool of
    unnumbered links, the MLAG peer pool of EVPN multihoming pairs. The wizard creates no prefix for them, even when
    one was typed."""
    needed = required_inputs(
        spines=fabric.max_spines,
        max_spines=fabric.max_spines,
        evpn=fabric.is_evpn,
        mlag_pairs=not fabric.is_evpn_mh and fabric.max_leaves >= 2,
        underlay=fabric.underlay,
    )
    return {field for name, field in REQUIRED_FIELDS.items() if field.endswith('_pool') and name not in needed}


def _port_map(topology):
    """The fabric's ``port_map`` of the topology step: ``{role: {"breakout": [entries]}}`` for each role given."""
    return {role: {BREAKOUT: topology[field]} for field, role in BREAKOUT_FIELDS.items() if topology.get(field)}


def port_map_error_field(fabric):
    """The wizard field of a planner error on the fabric's port map: ``<role>_breakouts`` for an error on
    ``port_map.<role>.breakout`` (a port the device type lacks, lanes faster than the port), ``<role>_device_type``
    for another use of that role (its device type has too few ports of a speed), else None (the step's own error)."""
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


class CreatePermissionError(ObjectPermissionError):
    """The user may not create the pools, RIR, ASN range or fabric the wizard would write."""
