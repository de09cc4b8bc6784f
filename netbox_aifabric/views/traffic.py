"""Traffic flows (the fabric's traffic matrix rows) and the fabric's Traffic tab: utilisation per server port, leaf,
uplink and spine, the matrix's warnings, and the bill of materials with the guide's tier."""

import math

from django.http import HttpResponse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from extras.ui.panels import CustomFieldsPanel, TagsPanel
from netbox.ui import attrs, layout, panels
from netbox.views import generic
from utilities.views import ViewTab, register_model_view

from netbox_aifabric import filtersets, forms, tables
from netbox_aifabric.intake.traffic import fabric_bom, fabric_traffic
from netbox_aifabric.models import Fabric, TrafficFlow
from netbox_aifabric.planner import PlanError
from netbox_aifabric.ui.traffic_chart import utilisation_svg

__all__ = (
    'FabricBomView',
    'FabricTrafficView',
    'TrafficFlowBulkDeleteView',
    'TrafficFlowBulkEditView',
    'TrafficFlowBulkImportView',
    'TrafficFlowDeleteView',
    'TrafficFlowEditView',
    'TrafficFlowListView',
    'TrafficFlowView',
)

KIND_LABELS = {
    'server-port': _('Server ports'),
    'leaf-downlinks': _('Leaf downlinks (all server ports of a leaf)'),
    'uplink': _('Uplinks (ECMP over the spines)'),
    'peer-link': _('MLAG peer links (leaves without uplinks)'),
    'spine': _('Spines'),
}


class TrafficFlowPanel(panels.ObjectAttributesPanel):
    fabric = attrs.RelatedObjectAttr('fabric', linkify=True)
    source_group = attrs.ChoiceAttr('source_group')
    source_class = attrs.RelatedObjectAttr('source_class', linkify=True)
    destination_group = attrs.ChoiceAttr('destination_group')
    destination_class = attrs.RelatedObjectAttr('destination_class', linkify=True)
    gbps = attrs.NumericAttr('gbps', label=_('Gbit/s per source server'))
    burstiness = attrs.ChoiceAttr('burstiness')
    description = attrs.TextAttr('description')


@register_model_view(TrafficFlow, 'list', path='', detail=False)
class TrafficFlowListView(generic.ObjectListView):
    queryset = TrafficFlow.objects.select_related('fabric', 'source_class', 'destination_class')
    filterset = filtersets.TrafficFlowFilterSet
    filterset_form = forms.TrafficFlowFilterForm
    table = tables.TrafficFlowTable


@register_model_view(TrafficFlow)
class TrafficFlowView(generic.ObjectView):
    queryset = TrafficFlow.objects.all()
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(left_panels=[TrafficFlowPanel(), TagsPanel()], right_panels=[CustomFieldsPanel()])


@register_model_view(TrafficFlow, 'add', detail=False)
@register_model_view(TrafficFlow, 'edit')
class TrafficFlowEditView(generic.ObjectEditView):
    queryset = TrafficFlow.objects.all()
    form = forms.TrafficFlowForm


@register_model_view(TrafficFlow, 'delete')
class TrafficFlowDeleteView(generic.ObjectDeleteView):
    queryset = TrafficFlow.objects.all()


@register_model_view(TrafficFlow, 'bulk_import', path='import', detail=False)
class TrafficFlowBulkImportView(generic.BulkImportView):
    queryset = TrafficFlow.objects.all()
    model_form = forms.TrafficFlowImportForm


@register_model_view(TrafficFlow, 'bulk_edit', path='edit', detail=False)
class TrafficFlowBulkEditView(generic.BulkEditView):
    queryset = TrafficFlow.objects.all()
    filterset = filtersets.TrafficFlowFilterSet
    table = tables.TrafficFlowTable
    form = forms.TrafficFlowBulkEditForm


@register_model_view(TrafficFlow, 'bulk_delete', path='delete', detail=False)
class TrafficFlowBulkDeleteView(generic.BulkDeleteView):
    queryset = TrafficFlow.objects.all()
    filterset = filtersets.TrafficFlowFilterSet
    table = tables.TrafficFlowTable


def _percent(value):
    return None if value is None else round(100 * value, 1)


@register_model_view(Fabric, 'traffic', path='traffic')
class FabricTrafficView(generic.ObjectView):
    """The traffic matrix on the fabric's plan and its bill of materials; reads only. View permission on the fabric
    (its object constraints included); the flows shown are the fabric's, as the matrix uses them all."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_traffic.html'
    tab = ViewTab(label=_('Traffic'), weight=535, permission='netbox_aifabric.view_fabric')

    def get(self, request, **kwargs):
        """``?export=csv``: the loads per element as CSV (NetBox's export style); otherwise the tab."""
        if request.GET.get('export') != 'csv':
            return super().get(request, **kwargs)
        instance = self.get_object(**kwargs)
        try:
            _rows, result = fabric_traffic(instance)
        except PlanError as e:
            return HttpResponse(f'{e.field}: {e.message}\n', status=400, content_type='text/plain; charset=utf-8')
        response = HttpResponse(result.to_csv(), content_type='text/csv; charset=utf-8')
        response['Content-Disposition'] = f'attachment; filename="{instance.slug}-traffic.csv"'
        return response

    def get_extra_context(self, request, instance):
        try:
            rows, result = fabric_traffic(instance)
        except PlanError as e:
            return {'plan_error': e}
        groups = [
            (
                label,
                [
                    {'load': load, 'percent': _percent(load.utilisation), 'over': load.peak > load.capacity}
                    for load in result.by_kind(kind)
                ],
            )
            for kind, label in KIND_LABELS.items()
        ]
        return {
            'plan_error': None,
            'flows': list(zip(rows, result.flows, strict=True)),
            'groups': groups,
            'traffic_warnings': result.warnings,
            # svgwrite escapes every name it writes, so the document is safe to embed (as the topology)
            'chart': mark_safe(utilisation_svg(result)) if result.loads else None,
        }


def spares_from(raw: str) -> float:
    """The ``spares_percent`` query parameter as a number (NaN when it is not one: the BOM names the error)."""
    try:
        return float(raw)
    except ValueError:
        return math.nan


@register_model_view(Fabric, 'bom', path='bom')
class FabricBomView(generic.ObjectView):
    """The bill of materials and the guide's tier; ``?export=csv`` downloads the lines (NetBox's export style),
    ``?spares_percent=`` sets the spares (0–100, default 10). View permission on the fabric, constraints included."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_bom.html'
    tab = ViewTab(label=_('Bill of materials'), weight=540, permission='netbox_aifabric.view_fabric')

    def get(self, request, **kwargs):
        if request.GET.get('export') != 'csv':
            return super().get(request, **kwargs)
        instance = self.get_object(**kwargs)
        try:
            bom = fabric_bom(instance, spares_percent=spares_from(request.GET.get('spares_percent', '10')))
        except PlanError as e:
            return HttpResponse(f'{e.field}: {e.message}\n', status=400, content_type='text/plain; charset=utf-8')
        response = HttpResponse(bom.to_csv(), content_type='text/csv; charset=utf-8')
        response['Content-Disposition'] = f'attachment; filename="{instance.slug}-bom.csv"'
        return response

    def get_extra_context(self, request, instance):
        spares = request.GET.get('spares_percent', '10')
        try:
            bom = fabric_bom(instance, spares_percent=spares_from(spares))
        except PlanError as e:
            return {'plan_error': e}
        return {'plan_error': None, 'bom': bom, 'spares_query': spares}
