"""Running configurations: a :class:`ConfigBackup` is one switch's configuration as it ran at a time, read from a NetBox
Data Source (the directory or Git repository where Oxidized, RANCID or an Ansible backup playbook write) or uploaded
(UI or REST). The config-* compliance rules compare the newest backup of each switch with its rendered config."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from netbox.models import NetBoxModel
from utilities.choices import ChoiceSet

__all__ = ('ConfigBackup', 'ConfigBackupSourceChoices')


class ConfigBackupSourceChoices(ChoiceSet):
    key = 'ConfigBackup.source'

    DATA_SOURCE = 'data-source'
    UPLOAD = 'upload'

    CHOICES = [(DATA_SOURCE, _('Data source'), 'blue'), (UPLOAD, _('Upload'), 'purple')]


class ConfigBackup(NetBoxModel):
    """One switch's running configuration at ``time`` (the backup's own time: the data file's, or the upload's), from
    ``source``; ``origin`` says where exactly (the data source and file, or who uploaded it)."""

    fabric = models.ForeignKey(
        to='netbox_aifabric.Fabric', on_delete=models.CASCADE, related_name='config_backups', verbose_name=_('fabric')
    )
    device = models.ForeignKey(to='dcim.Device', on_delete=models.CASCADE, related_name='+', verbose_name=_('device'))
    time = models.DateTimeField(verbose_name=_('time'), default=timezone.now)
    source = models.CharField(verbose_name=_('source'), max_length=20, choices=ConfigBackupSourceChoices)
    origin = models.CharField(verbose_name=_('origin'), max_length=300, blank=True)
    data_file = models.ForeignKey(
        to='core.DataFile',
        on_delete=models.SET_NULL,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('data file'),
    )
    user = models.ForeignKey(
        to=settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('user'),
    )
    content = models.TextField(verbose_name=_('content'))
    sha256 = models.CharField(verbose_name=_('SHA-256'), max_length=64)
    size = models.PositiveIntegerField(verbose_name=_('size (bytes)'))

    class Meta:
        ordering = ('-time', '-pk')
        indexes = (models.Index(fields=('device', '-time')), models.Index(fields=('fabric', '-time')))
        verbose_name = _('config backup')
        verbose_name_plural = _('config backups')

    def __str__(self):
        when = self.time.strftime('%Y-%m-%d %H:%M') if self.time else '…'
        return f'{self.device}: {when}'

    def get_source_color(self):
        return ConfigBackupSourceChoices.colors.get(self.source)
