from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from netbox.models import PrimaryModel

from netbox_aifabric.constants import VLAN_VID_MAX, VNI_MAX
from netbox_aifabric.validators import (
    find_vni_reuse,
    m2m_members,
    normalize_mac,
    validate_mac,
    validate_no_control_characters,
    validate_vni,
)

__all__ = ('EVPNTenant',)


class EVPNTenant(PrimaryModel):
    """
    An EVPN tenant: a VRF with its L3VNI and route targets, the L2VNIs of its member VLANs (L2VNI = base + VLAN id)
    and the anycast gateway MAC its SVIs share on every leaf.
    """

    name = models.CharField(
        verbose_name=_('name'), max_length=100, unique=True, validators=[validate_no_control_characters]
    )
    slug = models.SlugField(verbose_name=_('slug'), max_length=100, unique=True)
    tenant = models.ForeignKey(
        to='tenancy.Tenant', on_delete=models.PROTECT, related_name='+', blank=True, null=True, verbose_name=_('tenant')
    )
    vrf = models.ForeignKey(
        to='ipam.VRF', on_delete=models.PROTECT, related_name='+', blank=True, null=True, verbose_name=_('VRF')
    )
    l3vni = models.PositiveIntegerField(
        verbose_name=_('L3VNI'),
        validators=[validate_vni],
        help_text=_('VXLAN network identifier of the tenant VRF (1–16,777,215)'),
    )
    l2vni_base = models.PositiveIntegerField(
        verbose_name=_('L2VNI base'),
        blank=True,
        null=True,
        validators=[validate_vni],
        help_text=_("L2VNI = base + VLAN ID; empty uses the fabric's L2VNI base"),
    )
    import_targets = models.ManyToManyField(
        to='ipam.RouteTarget', related_name='+', blank=True, verbose_name=_('import route targets')
    )
    export_targets = models.ManyToManyField(
        to='ipam.RouteTarget', related_name='+', blank=True, verbose_name=_('export route targets')
    )
    anycast_gateway_mac = models.CharField(
        verbose_name=_('anycast gateway MAC'),
        max_length=17,
        blank=True,
        validators=[validate_mac],
        help_text=_("Virtual MAC of the distributed gateway; empty uses the fabric's"),
    )
    traffic_classes = models.ManyToManyField(
        to='netbox_aifabric.TrafficClass', related_name='evpn_tenants', blank=True, verbose_name=_('traffic classes')
    )
    vlans = models.ManyToManyField(to='ipam.VLAN', related_name='+', blank=True, verbose_name=_('VLANs'))

    clone_fields = ('tenant', 'l2vni_base', 'anycast_gateway_mac')

    class Meta:
        ordering = ('name',)
        verbose_name = _('EVPN tenant')
        verbose_name_plural = _('EVPN tenants')

    def __str__(self):
        return self.name

    def clean(self):
        super().clean()
        if self.anycast_gateway_mac:
            self.anycast_gateway_mac = normalize_mac(self.anycast_gateway_mac)
        if self.l2vni_base is not None and self.l2vni_base + VLAN_VID_MAX > VNI_MAX:
            raise ValidationError(
                {
                    'l2vni_base': _(
                        'L2VNI base {base} leaves no room for VLAN {vid} (base + {vid} must stay ≤ {max}).'
                    ).format(base=self.l2vni_base, vid=VLAN_VID_MAX, max=VNI_MAX)
                }
            )

        # A VNI is never used twice: within this tenant, nor with the other tenants of any fabric it belongs to
        traffic_classes = m2m_members(self, 'traffic_classes')
        vlans = m2m_members(self, 'vlans')
        fabrics = list(self.fabrics.prefetch_related('tenants__traffic_classes', 'tenants__vlans')) if self.pk else []
        for fabric in fabrics or [None]:
            base = fabric.l2vni_base if fabric else None
            entries = self.get_vnis(base, traffic_classes, vlans)
            if fabric:
                for other in fabric.tenants.all():
                    if other.pk != self.pk:
                        entries.extend(other.get_vnis(base))
            if message := find_vni_reuse(entries):
                field = 'l3vni' if str(entries[0][1]) in message else 'l2vni_base'
                raise ValidationError({field: message})

    def get_member_vids(self, traffic_classes=None, vlans=None):
        """VLAN ids of the member traffic classes and VLANs, sorted and without repeats."""
        if traffic_classes is None:
            traffic_classes = self.traffic_classes.all() if self.pk else []
        if vlans is None:
            vlans = self.vlans.all() if self.pk else []
        vids = {tc.vid for tc in traffic_classes if tc.vid is not None}
        vids.update(vlan.vid for vlan in vlans)
        return sorted(vids)

    def get_vnis(self, default_l2vni_base=None, traffic_classes=None, vlans=None):
        """Every VNI this tenant uses: ``[(vni, 'L3VNI of tenant X'), (vni, 'L2VNI of tenant X (VLAN 40)'), …]``."""
        vnis = [(self.l3vni, _('L3VNI of tenant {name}').format(name=self.name))]
        base = self.l2vni_base if self.l2vni_base is not None else default_l2vni_base
        if base is not None:
            for vid in self.get_member_vids(traffic_classes, vlans):
                vnis.append((base + vid, _('L2VNI of tenant {name} (VLAN {vid})').format(name=self.name, vid=vid)))
        return vnis
