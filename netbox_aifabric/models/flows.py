from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from netbox.models import NetBoxModel

from netbox_aifabric.choices import BurstinessChoices, ServerGroupChoices
from netbox_aifabric.validators import validate_no_control_characters

__all__ = ('TrafficFlow',)


class TrafficFlow(NetBoxModel):
    """One row of a fabric's traffic matrix: each server of the source group sends ``gbps`` Gbit/s to the servers of
    the destination group, in a traffic class (the security matrix is checked between the two classes)."""

    fabric = models.ForeignKey(
        to='netbox_aifabric.Fabric', on_delete=models.CASCADE, related_name='traffic_flows', verbose_name=_('fabric')
    )
    source_group = models.CharField(verbose_name=_('source group'), max_length=20, choices=ServerGroupChoices)
    source_class = models.ForeignKey(
        to='netbox_aifabric.TrafficClass',
        on_delete=models.PROTECT,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('source class'),
    )
    destination_group = models.CharField(verbose_name=_('destination group'), max_length=20, choices=ServerGroupChoices)
    destination_class = models.ForeignKey(
        to='netbox_aifabric.TrafficClass',
        on_delete=models.PROTECT,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('destination class'),
    )
    gbps = models.DecimalField(
        verbose_name=_('Gbit/s per source server'),
        max_digits=9,
        decimal_places=3,
        validators=[MinValueValidator(Decimal('0.001')), MaxValueValidator(Decimal('100000'))],
        help_text=_('What each server of the source group sends, split evenly over the destination group'),
    )
    burstiness = models.CharField(
        verbose_name=_('burstiness'), max_length=10, choices=BurstinessChoices, default=BurstinessChoices.SUSTAINED
    )
    description = models.CharField(
        verbose_name=_('description'), max_length=200, blank=True, validators=[validate_no_control_characters]
    )

    clone_fields = ('fabric', 'source_group', 'source_class', 'destination_group', 'destination_class', 'burstiness')

    class Meta:
        ordering = ('fabric', 'pk')
        verbose_name = _('traffic flow')
        verbose_name_plural = _('traffic flows')

    def __str__(self):
        source = f'{self.source_group} ({self.source_class})' if self.source_class_id else self.source_group
        destination = self.destination_group
        if self.destination_class_id:
            destination = f'{destination} ({self.destination_class})'
        try:
            gbps = f'{Decimal(self.gbps).normalize():f}'
        except (TypeError, ArithmeticError, ValueError):
            gbps = str(self.gbps)
        return f'{source} → {destination}: {gbps} Gbit/s'

    def get_burstiness_color(self):
        return BurstinessChoices.colors.get(self.burstiness)

    def clean(self):
        super().clean()
        groups = (self.source_group, self.destination_group)
        if self.fabric_id and groups == (ServerGroupChoices.STORAGE,) * 2 and self.fabric.storage_count < 2:
            raise ValidationError(
                {
                    'destination_group': _('Storage to storage needs two storage nodes; the fabric has {n}.').format(
                        n=self.fabric.storage_count
                    )
                }
            )
