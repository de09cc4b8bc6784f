from django import forms
from django.utils.translation import gettext_lazy as _

from netbox.forms import NetBoxModelBulkEditForm, NetBoxModelFilterSetForm, NetBoxModelForm, NetBoxModelImportForm
from utilities.forms import add_blank_choice
from utilities.forms.fields import (
    CSVChoiceField,
    CSVModelChoiceField,
    DynamicModelChoiceField,
    DynamicModelMultipleChoiceField,
    TagFilterField,
)
from utilities.forms.rendering import FieldSet

from netbox_aifabric.choices import BurstinessChoices, ServerGroupChoices
from netbox_aifabric.forms.fields import InvalidFieldsMixin
from netbox_aifabric.models import Fabric, TrafficClass, TrafficFlow

__all__ = ('TrafficFlowBulkEditForm', 'TrafficFlowFilterForm', 'TrafficFlowForm', 'TrafficFlowImportForm')

FIELDS = (
    'fabric',
    'source_group',
    'source_class',
    'destination_group',
    'destination_class',
    'gbps',
    'burstiness',
    'description',
)


class TrafficFlowForm(InvalidFieldsMixin, NetBoxModelForm):
    fabric = DynamicModelChoiceField(queryset=Fabric.objects.all(), label=_('Fabric'))
    source_class = DynamicModelChoiceField(queryset=TrafficClass.objects.all(), required=False, label=_('Source class'))
    destination_class = DynamicModelChoiceField(
        queryset=TrafficClass.objects.all(), required=False, label=_('Destination class')
    )

    fieldsets = (
        FieldSet('fabric', 'description', 'tags', name=_('Traffic flow')),
        FieldSet('source_group', 'source_class', name=_('From')),
        FieldSet('destination_group', 'destination_class', name=_('To')),
        FieldSet('gbps', 'burstiness', name=_('Load')),
    )

    class Meta:
        model = TrafficFlow
        fields = (*FIELDS, 'tags')


class TrafficFlowImportForm(NetBoxModelImportForm):
    fabric = CSVModelChoiceField(queryset=Fabric.objects.all(), to_field_name='slug', label=_('Fabric (slug)'))
    source_group = CSVChoiceField(choices=ServerGroupChoices, label=_('Source group'))
    destination_group = CSVChoiceField(choices=ServerGroupChoices, label=_('Destination group'))
    source_class = CSVModelChoiceField(
        queryset=TrafficClass.objects.all(), to_field_name='name', required=False, label=_('Source class')
    )
    destination_class = CSVModelChoiceField(
        queryset=TrafficClass.objects.all(), to_field_name='name', required=False, label=_('Destination class')
    )
    burstiness = CSVChoiceField(choices=BurstinessChoices, required=False, label=_('Burstiness'))

    class Meta:
        model = TrafficFlow
        fields = (*FIELDS, 'tags')


class TrafficFlowBulkEditForm(NetBoxModelBulkEditForm):
    model = TrafficFlow
    gbps = forms.DecimalField(required=False, min_value=0.001, max_digits=9, decimal_places=3, label=_('Gbit/s'))
    burstiness = forms.ChoiceField(choices=add_blank_choice(BurstinessChoices), required=False, label=_('Burstiness'))
    description = forms.CharField(max_length=200, required=False, label=_('Description'))

    fieldsets = (FieldSet('gbps', 'burstiness', 'description'),)
    nullable_fields = ('description',)


class TrafficFlowFilterForm(NetBoxModelFilterSetForm):
    model = TrafficFlow
    fieldsets = (
        FieldSet('q', 'filter_id', 'tag'),
        FieldSet('fabric_id', 'source_group', 'destination_group', 'burstiness', name=_('Flow')),
    )
    fabric_id = DynamicModelMultipleChoiceField(queryset=Fabric.objects.all(), required=False, label=_('Fabric'))
    source_group = forms.MultipleChoiceField(choices=ServerGroupChoices, required=False, label=_('Source group'))
    destination_group = forms.MultipleChoiceField(
        choices=ServerGroupChoices, required=False, label=_('Destination group')
    )
    burstiness = forms.MultipleChoiceField(choices=BurstinessChoices, required=False, label=_('Burstiness'))
    tag = TagFilterField(model)
