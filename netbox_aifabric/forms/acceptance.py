from django import forms
from django.utils.translation import gettext_lazy as _

from netbox.forms import NetBoxModelFilterSetForm, NetBoxModelForm
from utilities.forms.fields import DynamicModelChoiceField, DynamicModelMultipleChoiceField, TagFilterField
from utilities.forms.rendering import FieldSet

from netbox_aifabric.acceptance.judge import MAX_OUTPUT, TOOLS
from netbox_aifabric.acceptance.lldp import LLDP_TOOLS
from netbox_aifabric.forms.fields import InvalidFieldsMixin
from netbox_aifabric.models import Fabric
from netbox_aifabric.models.acceptance import (
    AcceptanceResult,
    AcceptanceResultStatusChoices,
    AcceptanceRun,
    AcceptanceRunKindChoices,
    AcceptanceRunStatusChoices,
)

__all__ = ('AcceptanceResultFilterForm', 'AcceptanceRunFilterForm', 'AcceptanceRunForm', 'AcceptanceUploadForm')


class AcceptanceRunForm(InvalidFieldsMixin, NetBoxModelForm):
    """A manual run (the lab makes its own runs): results are uploaded to it afterwards."""

    fabric = DynamicModelChoiceField(queryset=Fabric.objects.all(), label=_('Fabric'))

    fieldsets = (FieldSet('fabric', 'time', 'description', 'tags', name=_('Acceptance run')),)

    class Meta:
        model = AcceptanceRun
        fields = ('fabric', 'time', 'description', 'tags')

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:  # its results were judged against this fabric (and a lab run's time is the lab's)
            self.fields['fabric'].disabled = True
            self.fields['time'].disabled = self.instance.kind == AcceptanceRunKindChoices.LAB


class AcceptanceRunFilterForm(NetBoxModelFilterSetForm):
    model = AcceptanceRun
    fabric_id = DynamicModelMultipleChoiceField(queryset=Fabric.objects.all(), required=False, label=_('Fabric'))
    kind = forms.MultipleChoiceField(choices=AcceptanceRunKindChoices, required=False, label=_('Kind'))
    status = forms.MultipleChoiceField(choices=AcceptanceRunStatusChoices, required=False, label=_('Status'))
    tag = TagFilterField(model)

    fieldsets = (FieldSet('q', 'filter_id', 'tag'), FieldSet('fabric_id', 'kind', 'status', name=_('Run')))


class AcceptanceResultFilterForm(NetBoxModelFilterSetForm):
    model = AcceptanceResult
    run_id = DynamicModelMultipleChoiceField(queryset=AcceptanceRun.objects.all(), required=False, label=_('Run'))
    fabric_id = DynamicModelMultipleChoiceField(queryset=Fabric.objects.all(), required=False, label=_('Fabric'))
    status = forms.MultipleChoiceField(choices=AcceptanceResultStatusChoices, required=False, label=_('Status'))
    category = forms.CharField(required=False, label=_('Category'))
    tag = TagFilterField(model)

    fieldsets = (
        FieldSet('q', 'filter_id', 'tag'),
        FieldSet('run_id', 'fabric_id', 'status', 'category', name=_('Result')),
    )


class AcceptanceUploadForm(InvalidFieldsMixin, forms.Form):
    """A tool's output as it printed it: pasted, or as a file (the file wins)."""

    tool = forms.ChoiceField(choices=[(t, t) for t in (*TOOLS, *LLDP_TOOLS)], label=_('Tool'))
    source = forms.CharField(
        required=False,
        max_length=100,
        label=_('Source'),
        help_text=_('iperf3: the client server (a plan name); ib_write_bw: <server>:<RDMA NIC>'),
    )
    destination = forms.CharField(
        required=False,
        max_length=100,
        label=_('Destination'),
        help_text=_('iperf3: the server it sent to; ib_write_bw: <server>:<RDMA NIC>'),
    )
    subject = forms.CharField(
        required=False,
        max_length=200,
        label=_('Subject'),
        help_text=_('ping: what was pinged, e.g. gpu1 -> gpu3; an LLDP table: the device it was taken on'),
    )
    output = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={'rows': 12, 'class': 'font-monospace'}),
        label=_('Output'),
        help_text=_(
            'iperf3 --json output, ping output, a perftest report (ib_write_bw --report_gbits, ib_send_lat), or an '
            'LLDP neighbour table (eos-lldp, nvue-lldp, sonic-lldp, lldpctl: JSON)'
        ),
    )
    file = forms.FileField(required=False, label=_('Or a file'))
    before = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={'rows': 6, 'class': 'font-monospace'}),
        label=_('Before'),
        help_text=_('Counter snapshots (ethtool, sonic-*, eos-*, nvue-*): the one taken before the load'),
    )

    def clean(self):
        data = super().clean()
        upload = data.get('file')
        if upload is not None:
            if upload.size > MAX_OUTPUT:
                message = _('{n} bytes, at most {max}').format(n=upload.size, max=MAX_OUTPUT)
                raise forms.ValidationError({'file': message})
            try:
                data['output'] = upload.read().decode('utf-8')
            except UnicodeDecodeError:
                raise forms.ValidationError({'file': _('not UTF-8 text: upload what the tool printed')}) from None
        if not data.get('output'):
            raise forms.ValidationError({'output': _('Paste the output or choose a file.')})
        return data
