from django import forms
from django.utils.translation import gettext_lazy as _

from dcim.models import Device
from netbox.forms import NetBoxModelFilterSetForm
from utilities.forms.fields import DynamicModelChoiceField, DynamicModelMultipleChoiceField, TagFilterField
from utilities.forms.rendering import FieldSet

from netbox_aifabric.constants import CONFIG_BACKUP_MAX_BYTES
from netbox_aifabric.models import ConfigBackup, ConfigBackupSourceChoices, Fabric

__all__ = ('ConfigBackupFilterForm', 'ConfigBackupUploadForm')


class ConfigBackupUploadForm(forms.Form):
    """A switch's running config, uploaded as a file or pasted (``checks.backups.store_backup`` checks it)."""

    device = DynamicModelChoiceField(queryset=Device.objects.all(), label=_('Device'))
    file = forms.FileField(
        required=False,
        label=_('File'),
        help_text=_('The running config as the switch prints it (at most {size} MiB)').format(
            size=CONFIG_BACKUP_MAX_BYTES // (1024 * 1024)
        ),
    )
    content = forms.CharField(
        required=False,
        label=_('Or paste it'),
        widget=forms.Textarea(attrs={'rows': 8, 'class': 'font-monospace'}),
        strip=False,
    )

    fieldsets = (FieldSet('device', 'file', 'content', name=_('Running config')),)

    def clean(self):
        data = super().clean()
        upload, pasted = data.get('file'), data.get('content')
        if bool(upload) == bool(pasted):
            raise forms.ValidationError(_('Give the running config once: a file or pasted text.'))
        if upload is not None:
            if upload.size > CONFIG_BACKUP_MAX_BYTES:
                raise forms.ValidationError(
                    {'file': _('The file is {size:,} bytes; a running config is at most {most:,}.').format(
                        size=upload.size, most=CONFIG_BACKUP_MAX_BYTES
                    )}
                )  # fmt: skip
            data['content'] = upload.read(CONFIG_BACKUP_MAX_BYTES + 1)
        return data


class ConfigBackupFilterForm(NetBoxModelFilterSetForm):
    model = ConfigBackup
    fabric_id = DynamicModelMultipleChoiceField(queryset=Fabric.objects.all(), required=False, label=_('Fabric'))
    device_id = DynamicModelMultipleChoiceField(queryset=Device.objects.all(), required=False, label=_('Device'))
    source = forms.MultipleChoiceField(choices=ConfigBackupSourceChoices, required=False, label=_('Source'))
    tag = TagFilterField(model)

    fieldsets = (FieldSet('q', 'filter_id', 'tag'), FieldSet('fabric_id', 'device_id', 'source', name=_('Backup')))
