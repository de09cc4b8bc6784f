from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from netbox.models import PrimaryModel

from netbox_aifabric.choices import ReachabilityChoices, TrafficPurposeChoices
from netbox_aifabric.constants import (
    DSCP_MAX,
    DSCP_MIN,
    MTU_MAX,
    MTU_MIN,
    PRIORITY_MAX,
    PRIORITY_MIN,
    VLAN_VID_MAX,
    VLAN_VID_MIN,
)
from netbox_aifabric.validators import validate_no_control_characters

__all__ = ('TrafficClass',)


class TrafficClass(PrimaryModel):
    """
    One entry of the fabric's traffic inventory (MGMT, USERS, STORAGE, RDMA, TELEMETRY, …): the VLAN/VRF/subnet it
    lives in, how switches mark, queue and protect it, and which other classes may reach it (the security matrix).
    """

    name = models.CharField(
        verbose_name=_('name'), max_length=100, unique=True, validators=[validate_no_control_characters]
    )
    slug = models.SlugField(verbose_name=_('slug'), max_length=100, unique=True)
    purpose = models.CharField(verbose_name=_('purpose'), max_length=30, choices=TrafficPurposeChoices)
    vid = models.PositiveSmallIntegerField(
        verbose_name=_('VLAN ID'),
        blank=True,
        null=True,
        validators=[MinValueValidator(VLAN_VID_MIN), MaxValueValidator(VLAN_VID_MAX)],
        help_text=_('802.1Q VLAN ID (1–4094) of this class on server-facing ports'),
    )
    vlan = models.ForeignKey(
        to='ipam.VLAN',
        on_delete=models.SET_NULL,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('VLAN'),
        help_text=_('The NetBox VLAN, if it already exists'),
    )
    vrf = models.ForeignKey(
        to='ipam.VRF', on_delete=models.SET_NULL, related_name='+', blank=True, null=True, verbose_name=_('VRF')
    )
    prefix = models.ForeignKey(
        to='ipam.Prefix', on_delete=models.SET_NULL, related_name='+', blank=True, null=True, verbose_name=_('prefix')
    )
    dscp = ArrayField(
        base_field=models.PositiveSmallIntegerField(
            validators=[MinValueValidator(DSCP_MIN), MaxValueValidator(DSCP_MAX)]
        ),
        verbose_name=_('DSCP values'),
        blank=True,
        default=list,
        help_text=_('DSCP code points (0–63) that classify this traffic'),
    )
    switch_priority = models.PositiveSmallIntegerField(
        verbose_name=_('switch priority'),
        blank=True,
        null=True,
        validators=[MinValueValidator(PRIORITY_MIN), MaxValueValidator(PRIORITY_MAX)],
        help_text=_('Internal switch priority / 802.1p PCP (0–7)'),
    )
    queue = models.PositiveSmallIntegerField(
        verbose_name=_('traffic class (queue)'),
        blank=True,
        null=True,
        validators=[MinValueValidator(PRIORITY_MIN), MaxValueValidator(PRIORITY_MAX)],
        help_text=_('Egress traffic class / queue (0–7)'),
    )
    lossless = models.BooleanField(verbose_name=_('lossless (PFC)'), default=False)
    ecn = models.BooleanField(verbose_name=_('ECN'), default=False)
    mtu = models.PositiveIntegerField(
        verbose_name=_('MTU'),
        blank=True,
        null=True,
        validators=[MinValueValidator(MTU_MIN), MaxValueValidator(MTU_MAX)],
    )
    routed = models.BooleanField(
        verbose_name=_('routed'), default=True, help_text=_('Whether the class is routed beyond its VLAN')
    )
    reachability = models.CharField(
        verbose_name=_('reachability'),
        max_length=10,
        choices=ReachabilityChoices,
        default=ReachabilityChoices.LISTED,
        help_text=_('Who may reach this class: the classes listed below, any class, or no other class'),
    )
    reachable_from = models.ManyToManyField(
        to='self',
        symmetrical=False,
        related_name='can_reach',
        blank=True,
        verbose_name=_('reachable from'),
        help_text=_('Traffic classes allowed to reach this one (the security matrix)'),
    )

    clone_fields = ('purpose', 'vrf', 'switch_priority', 'queue', 'lossless', 'ecn', 'mtu', 'routed', 'reachability')

    class Meta:
        ordering = ('vid', 'name')
        verbose_name = _('traffic class')
        verbose_name_plural = _('traffic classes')

    def __str__(self):
        return self.name

    def get_purpose_color(self):
        return TrafficPurposeChoices.colors.get(self.purpose)

    def clean(self):
        super().clean()
        errors = {}
        if self.vlan is not None:
            if self.vid is None:
                self.vid = self.vlan.vid
            elif self.vlan.vid != self.vid:
                errors['vlan'] = _('VLAN {vlan} has VID {vlan_vid}, but the VLAN ID of this class is {vid}.').format(
                    vlan=self.vlan, vlan_vid=self.vlan.vid, vid=self.vid
                )
        if self.dscp and len(set(self.dscp)) != len(self.dscp):
            errors['dscp'] = _('DSCP values must not repeat: {values}.').format(
                values=', '.join(str(v) for v in self.dscp)
            )
        if self.prefix is not None and self.vrf is not None and self.prefix.vrf_id not in (None, self.vrf.pk):
            errors['prefix'] = _('Prefix {prefix} is in VRF {prefix_vrf}, not in {vrf}.').format(
                prefix=self.prefix, prefix_vrf=self.prefix.vrf, vrf=self.vrf
            )
        if errors:
            raise ValidationError(errors)
