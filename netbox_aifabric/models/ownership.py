from django.contrib.contenttypes.fields import GenericForeignKey
from django.db import models
from django.utils.translation import gettext_lazy as _

from netbox.models.features import ChangeLoggingMixin

__all__ = ('OwnedObject',)


class OwnedObject(ChangeLoggingMixin, models.Model):
    """
    A NetBox object that a fabric's apply created, under a stable key (``prefix:uplink:leaf:1:spine:2:1``,
    ``vlan:40``, …). A later apply updates or deletes only objects recorded here; everything else is never changed.

    Change-logged as NetBox logs its own bookkeeping rows that a change consists of (a cable's terminations): NetBox
    Branching carries a change from a branch to main (merge), back (revert) and from main into a branch (sync) by its
    change records alone, so ownership without them would stay behind in the branch.
    """

    fabric = models.ForeignKey(
        to='netbox_aifabric.Fabric', on_delete=models.CASCADE, related_name='owned_objects', verbose_name=_('fabric')
    )
    key = models.CharField(verbose_name=_('key'), max_length=200)
    object_type = models.ForeignKey(to='contenttypes.ContentType', on_delete=models.CASCADE, related_name='+')
    object_id = models.PositiveBigIntegerField()
    object = GenericForeignKey('object_type', 'object_id')
    adopted = models.BooleanField(
        verbose_name=_('adopted'),
        default=False,
        help_text=_('Existed before the fabric took it over (brownfield): released, never deleted, on shrink'),
    )

    _netbox_private = True

    class Meta:
        ordering = ('fabric', 'key')
        constraints = (
            models.UniqueConstraint(fields=('fabric', 'key'), name='netbox_aifabric_ownedobject_unique_key'),
        )
        indexes = (models.Index(fields=('object_type', 'object_id')),)
        verbose_name = _('owned object')
        verbose_name_plural = _('owned objects')

    def __str__(self):
        return f'{self.fabric}: {self.key}'
