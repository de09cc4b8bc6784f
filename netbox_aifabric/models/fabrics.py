import netaddr
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from ipam.fields import ASNField
from netbox.models import PrimaryModel
from netbox.models.features import JobsMixin

from ..choices import DesignOptionChoices, FabricStatusChoices, LinkSpeedChoices, UnderlayChoices
from ..constants import MTU_MAX, MTU_MIN
from ..planner import asn_need, pool_needs
from ..validators import check_pool, find_vni_reuse, m2m_members, normalize_mac, validate_mac, validate_vni

__all__ = ('Fabric',)

POOL_FIELDS = ('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool')


def _count_field(verbose_name, default, help_text=''):
    return models.PositiveSmallIntegerField(verbose_name=verbose_name, default=default, help_text=help_text)


def _pool_field(verbose_name, help_text):
    return models.ForeignKey(
        to='ipam.Prefix',
        on_delete=models.PROTECT,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=verbose_name,
        help_text=help_text,
    )


class Fabric(JobsMixin, PrimaryModel):
    """
    The design intent of one leaf-spine fabric: the design option, the sizes with their explicit maximums (so that
    growing never renumbers), link speeds, the server NIC layout, the address/ASN/VNI pools and the traffic classes,
    QoS profile and EVPN tenants it carries. It stores intent only; the planner turns it into allocations.
    """

    name = models.CharField(verbose_name=_('name'), max_length=100, unique=True)
    slug = models.SlugField(verbose_name=_('slug'), max_length=100, unique=True)
    site = models.ForeignKey(to='dcim.Site', on_delete=models.PROTECT, related_name='+', verbose_name=_('site'))
    status = models.CharField(
        verbose_name=_('status'), max_length=30, choices=FabricStatusChoices, default=FabricStatusChoices.DRAFT
    )
    design_option = models.CharField(
        verbose_name=_('design option'), max_length=20, choices=DesignOptionChoices, default=DesignOptionChoices.ROUTED
    )
    underlay = models.CharField(
        verbose_name=_('underlay'), max_length=10, choices=UnderlayChoices, default=UnderlayChoices.EBGP
    )

    # Sizes and their explicit maximums
    spine_count = _count_field(_('spines'), 2)
    max_spines = _count_field(_('max spines'), 4, _('Spines the numbering reserves room for'))
    leaf_count = _count_field(_('leaves'), 2)
    max_leaves = _count_field(_('max leaves'), 8, _('Leaves the numbering reserves room for'))
    uplinks_per_spine = _count_field(_('uplinks per spine'), 1, _('Parallel links from each leaf to each spine'))
    max_parallel_uplinks = _count_field(_('max parallel uplinks'), 2)
    server_count = _count_field(_('GPU servers'), 4)
    storage_count = _count_field(_('storage nodes'), 1)

    # Speeds and NIC layout
    uplink_speed = models.PositiveIntegerField(
        verbose_name=_('uplink speed (Gbps)'), choices=LinkSpeedChoices, default=100
    )
    server_nic_count = models.PositiveSmallIntegerField(
        verbose_name=_('server NICs'), default=2, help_text=_('General-traffic NICs per server, bonded across leaves')
    )
    server_nic_speed = models.PositiveIntegerField(
        verbose_name=_('server NIC speed (Gbps)'), choices=LinkSpeedChoices, default=25
    )
    rdma_nic_count = models.PositiveSmallIntegerField(
        verbose_name=_('RDMA NICs'), default=1, help_text=_('GPU/RDMA NICs per server (0 for none)')
    )
    rdma_nic_speed = models.PositiveIntegerField(
        verbose_name=_('RDMA NIC speed (Gbps)'), choices=LinkSpeedChoices, default=100
    )
    mtu = models.PositiveIntegerField(
        verbose_name=_('fabric MTU'), default=9216, validators=[MinValueValidator(MTU_MIN), MaxValueValidator(MTU_MAX)]
    )

    # Pools
    loopback_pool = _pool_field(_('loopback pool'), _('IPv4 prefix for router-id loopbacks (/32 each)'))
    vtep_pool = _pool_field(_('VTEP pool'), _('IPv4 prefix for VTEP loopbacks (/32 each, EVPN/VXLAN)'))
    p2p_pool = _pool_field(_('point-to-point pool'), _('IPv4 prefix for leaf–spine links (/31 each)'))
    mlag_peer_pool = _pool_field(_('MLAG peer pool'), _('IPv4 prefix for MLAG peer links (/31 per pair)'))
    leaf_asn_range = models.ForeignKey(
        to='ipam.ASNRange',
        on_delete=models.PROTECT,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('leaf ASN range'),
    )
    spine_asn = ASNField(
        verbose_name=_('spine ASN'), blank=True, null=True, help_text=_('The ASN all spines share (eBGP underlay)')
    )

    # Overlay
    l2vni_base = models.PositiveIntegerField(
        verbose_name=_('L2VNI base'),
        default=10000,
        validators=[validate_vni],
        help_text=_('L2VNI = base + VLAN ID for tenants without their own base'),
    )
    anycast_gateway_mac = models.CharField(
        verbose_name=_('anycast gateway MAC'), max_length=17, blank=True, validators=[validate_mac]
    )

    # Intent it carries
    qos_profile = models.ForeignKey(
        to='netbox_aifabric.QoSProfile',
        on_delete=models.SET_NULL,
        related_name='fabrics',
        blank=True,
        null=True,
        verbose_name=_('QoS profile'),
    )
    traffic_classes = models.ManyToManyField(
        to='netbox_aifabric.TrafficClass', related_name='fabrics', blank=True, verbose_name=_('traffic classes')
    )
    tenants = models.ManyToManyField(
        to='netbox_aifabric.EVPNTenant', related_name='fabrics', blank=True, verbose_name=_('EVPN tenants')
    )

    applied_allocations = models.JSONField(
        verbose_name=_('applied allocations'),
        default=dict,
        blank=True,
        editable=False,
        help_text=_('The allocations of the last apply; pinned by the next plan so nothing existing moves'),
    )

    clone_fields = (
        'site',
        'status',
        'design_option',
        'underlay',
        'max_spines',
        'max_leaves',
        'max_parallel_uplinks',
        'uplink_speed',
        'server_nic_count',
        'server_nic_speed',
        'rdma_nic_count',
        'rdma_nic_speed',
        'mtu',
        'qos_profile',
        'l2vni_base',
        'anycast_gateway_mac',
    )

    class Meta:
        ordering = ('name',)
        verbose_name = _('fabric')
        verbose_name_plural = _('fabrics')
        permissions = (('apply_fabric', 'Apply the fabric plan to NetBox objects'),)

    def __str__(self):
        return self.name

    def get_status_color(self):
        return FabricStatusChoices.colors.get(self.status)

    def get_design_option_color(self):
        return DesignOptionChoices.colors.get(self.design_option)

    @property
    def is_mlag(self):
        return self.design_option == DesignOptionChoices.MLAG

    @property
    def is_evpn(self):
        return self.design_option == DesignOptionChoices.EVPN_VXLAN

    def pool_needs(self):
        """``{pool field: PoolNeed}`` for the declared maximums, as the planner computes them."""
        needs = pool_needs(self.max_spines, self.max_leaves, self.max_parallel_uplinks)
        return {f'{name}_pool': need for name, need in needs.items()}

    def clean(self):
        super().clean()
        errors = {}

        # Counts never exceed their declared maximums
        for count, maximum in (
            ('spine_count', 'max_spines'),
            ('leaf_count', 'max_leaves'),
            ('uplinks_per_spine', 'max_parallel_uplinks'),
        ):
            if getattr(self, count) > getattr(self, maximum):
                errors[count] = _('{count} is above the declared maximum {field} = {maximum}.').format(
                    count=getattr(self, count), field=maximum, maximum=getattr(self, maximum)
                )
        if self.max_leaves < 1:
            errors['max_leaves'] = _('A fabric needs room for at least one leaf.')
        if self.spine_count and self.uplinks_per_spine < 1:
            errors['uplinks_per_spine'] = _('Each leaf needs at least one uplink to each spine.')
        if self.is_mlag:
            for field in ('leaf_count', 'max_leaves'):
                if getattr(self, field) % 2:
                    errors.setdefault(
                        field,
                        _('MLAG dual-ToR pairs leaves: {field} must be even (got {n}).').format(
                            field=field, n=getattr(self, field)
                        ),
                    )

        # Pools: IPv4, big enough for the maximums, not overlapping each other
        for field, need in self.pool_needs().items():
            errors.update(check_pool(field, getattr(self, field), need))
        seen = {}
        for field in POOL_FIELDS:
            prefix = getattr(self, field)
            if prefix is None or field in errors:
                continue
            network = netaddr.IPNetwork(str(prefix.prefix))
            for other, other_network in seen.items():
                if network in other_network or other_network in network:
                    errors[field] = _('Pool {pool} overlaps the {other} {other_pool}.').format(
                        pool=network, other=self._meta.get_field(other).verbose_name, other_pool=other_network
                    )
                    break
            seen[field] = network

        # ASNs
        if self.underlay == UnderlayChoices.EBGP and self.leaf_asn_range is not None:
            size = self.leaf_asn_range.end - self.leaf_asn_range.start + 1
            if size < asn_need(self.max_leaves):
                errors['leaf_asn_range'] = _(
                    'ASN range {range} holds {size} ASNs; the declared maximum of {n} leaves needs {need}.'
                ).format(range=self.leaf_asn_range, size=size, n=self.max_leaves, need=asn_need(self.max_leaves))
            elif self.spine_asn is not None and self.leaf_asn_range.start <= self.spine_asn <= self.leaf_asn_range.end:
                errors['spine_asn'] = _('Spine ASN {asn} lies inside the leaf ASN range {range}.').format(
                    asn=self.spine_asn, range=self.leaf_asn_range
                )

        if self.anycast_gateway_mac and 'anycast_gateway_mac' not in errors:
            self.anycast_gateway_mac = normalize_mac(self.anycast_gateway_mac)
        self._clean_members(errors)
        if errors:
            raise ValidationError(errors)

    def _clean_members(self, errors):
        """Rules over the many-to-many members: two traffic classes on one VLAN, a VNI used twice among the
        tenants, EVPN tenants without an anycast gateway MAC."""
        vlans = {}
        for tc in m2m_members(self, 'traffic_classes'):
            if tc.vid is not None and tc.vid in vlans:
                errors.setdefault(
                    'traffic_classes',
                    _('Traffic classes {a} and {b} both use VLAN {vid}.').format(a=vlans[tc.vid], b=tc, vid=tc.vid),
                )
            vlans.setdefault(tc.vid, tc)
        tenants = m2m_members(self, 'tenants')
        entries = []
        for tenant in tenants:
            entries.extend(tenant.get_vnis(default_l2vni_base=self.l2vni_base))
        if message := find_vni_reuse(entries):
            errors.setdefault('tenants', message)
        if tenants and not self.anycast_gateway_mac:
            missing = [t.name for t in tenants if not t.anycast_gateway_mac]
            if missing:
                errors.setdefault(
                    'anycast_gateway_mac',
                    _('EVPN tenants {names} need an anycast gateway MAC: set one here or on each tenant.').format(
                        names=', '.join(missing)
                    ),
                )
