"""The fabric's Compliance tab: every rule's result by family, with severity, findings linked to their objects and
change-log entries; a button that runs the same checks as a NetBox job; the stored runs' history. And the stored
compliance runs and findings (list, detail, delete: the compliance job makes them, nobody edits them)."""

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from dcim.models import Device
from extras.ui.panels import CustomFieldsPanel, TagsPanel
from netbox.object_actions import BulkDelete, BulkExport, DeleteObject
from netbox.ui import attrs, layout, panels
from netbox.ui.panels import ObjectsTablePanel
from netbox.views import generic
from utilities.views import ViewTab, register_model_view

from netbox_aifabric import filtersets, forms, tables
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.job import ComplianceJob, CompliancePermissionError, request_compliance
from netbox_aifabric.forms.compliance_tab import ComplianceTabFilterForm
from netbox_aifabric.models import ComplianceFinding, ComplianceRun, Fabric
from netbox_aifabric.render.configs import fabric_devices
from netbox_aifabric.ui.compliance_trend import trend_svg
from netbox_aifabric.ui.jobs import last_fabric_job

__all__ = (
    'ComplianceFindingBulkDeleteView',
    'ComplianceFindingDeleteView',
    'ComplianceFindingListView',
    'ComplianceFindingView',
    'ComplianceRunBulkDeleteView',
    'ComplianceRunDeleteView',
    'ComplianceRunListView',
    'ComplianceRunView',
    'FabricComplianceRunView',
    'FabricComplianceView',
)

STATUS_COLORS = {'pass': 'green', 'fail': 'red', 'skip': 'secondary', 'error': 'orange'}
SEVERITY_COLORS = {'error': 'red', 'warning': 'orange', 'info': 'blue'}
HISTORY = 20  # stored runs shown on the tab and in its trend


def last_job(fabric):
    return last_fabric_job(fabric, ComplianceJob)


@register_model_view(Fabric, 'compliance', path='compliance')
class FabricComplianceView(generic.ObjectView):
    """Runs the checks live (they only read) for the user: objects they may not view are named, not linked."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_compliance.html'
    tab = ViewTab(label=_('Compliance'), weight=530, permission='netbox_aifabric.view_fabric')

    def get_extra_context(self, request, instance):
        result = run_compliance(instance, user=request.user)
        form = ComplianceTabFilterForm(request.GET or None)
        return {
            'compliance': result,
            'counts': result.counts,  # the score is every rule's, whatever the filter shows
            'filter_form': form,
            'families': rule_rows(result, form.rule_filter()),
            'last_job': last_job(instance),
            'can_run': request.user.has_perm('netbox_aifabric.add_compliancerun'),
            'config_rows': config_rows(instance, result, request.user),
            **run_history(instance, request.user),
        }


CONFIG_STATE_COLORS = {'compliant': 'green', 'not compliant': 'red', 'never backed up': 'orange'}


def config_rows(fabric, result, user):
    """``[{name, state, color, url}]``: each switch's running-config state, linked to its Config compliance tab
    when the user may view the device."""
    if result.configs is None:
        return []
    visible = dict(
        Device.objects.restrict(user, 'view')
        .filter(name__in=list(result.configs['devices']), pk__in=fabric_devices(fabric).values('pk'))
        .values_list('name', 'pk')
    )
    return [
        {
            'name': name,
            'state': state,
            'color': CONFIG_STATE_COLORS.get(state, 'gray'),
            'url': reverse('dcim:device_aifabric_config', kwargs={'pk': visible[name]}) if name in visible else None,
        }
        for name, state in result.configs['devices'].items()
    ]


def rule_rows(result, keep=None):
    """``[(family label, rows)]`` of the rules ``keep`` accepts (all without it); a family with none is left out.
    The filter only narrows what is shown: the rules all ran, so it adds no query."""
    families = []
    for _family, label, results in result.by_family():
        rows = [
            {
                'result': r,
                'rule': r.rule,
                'status_color': STATUS_COLORS[r.status],
                'severity_color': SEVERITY_COLORS[r.rule.severity],
            }
            for r in results
            if keep is None or keep(r.rule)
        ]
        if rows:
            families.append((label, rows))
    return families


def run_history(fabric, user, limit=HISTORY):
    """The fabric's newest stored runs the user may view (newest first) and their trend (oldest first) as SVG."""
    if not user.has_perm('netbox_aifabric.view_compliancerun'):
        return {'history': None, 'trend': None}
    runs = list(
        ComplianceRun.objects.restrict(user, 'view')
        .filter(fabric=fabric)
        .select_related('user', 'job')
        .order_by('-created', '-pk')[:limit]
    )
    points = [(f'{r.created:%Y-%m-%d %H:%M}', r.score, r.status) for r in reversed(runs)]
    # svgwrite escapes every text it writes, so the document is safe to embed
    return {'history': runs, 'trend': mark_safe(trend_svg(points)) if runs else None}


@register_model_view(Fabric, 'compliance_run', path='compliance/run')
class FabricComplianceRunView(generic.ObjectView):
    """POST: run the checks as a NetBox job (view permission on the fabric and the add permission on compliance runs;
    the job records the user), or point to the one already queued (``request_compliance``)."""

    queryset = Fabric.objects.all()

    def get(self, request, **kwargs):
        return redirect('plugins:netbox_aifabric:fabric_compliance', **kwargs)

    def post(self, request, **kwargs):
        fabric = self.get_object(**kwargs)
        try:
            queued = request_compliance(fabric, request.user)
        except CompliancePermissionError:
            return self.handle_no_permission()
        if queued.reused:
            message = _('A compliance run of this fabric is already queued: <a href="{url}">job {id}</a>.')
        else:
            message = _('The compliance checks run in the background: <a href="{url}">job {id}</a>.')
        # the job link is built here, not from user input
        messages.info(request, mark_safe(message.format(url=queued.job.get_absolute_url(), id=queued.job.pk)))
        return redirect('plugins:netbox_aifabric:fabric_compliance', pk=fabric.pk)


#
# Stored runs and findings
#


class ComplianceRunPanel(panels.ObjectAttributesPanel):
    fabric = attrs.RelatedObjectAttr('fabric', linkify=True)
    created = attrs.DateTimeAttr('created', label=_('Time'))
    user = attrs.RelatedObjectAttr('user', label=_('User'))
    job = attrs.RelatedObjectAttr('job', linkify=True, label=_('Job'))
    status = attrs.ChoiceAttr('status')
    score = attrs.NumericAttr('score', label=_('Score (%)'))
    rules = attrs.NumericAttr('rules')
    passed = attrs.NumericAttr('passed')
    failed = attrs.NumericAttr('failed')
    skipped = attrs.NumericAttr('skipped')
    errored = attrs.NumericAttr('errored', label=_('Broke'))
    finding_count = attrs.NumericAttr('finding_count', label=_('Findings'))
    context_source = attrs.TextAttr('context_source', label=_('Contexts from'))


class ComplianceFindingPanel(panels.ObjectAttributesPanel):
    run = attrs.RelatedObjectAttr('run', linkify=True)
    rule = attrs.TextAttr('rule', style='font-monospace')
    title = attrs.TextAttr('title')
    family = attrs.ChoiceAttr('family')
    severity = attrs.ChoiceAttr('severity')
    object = attrs.GenericForeignKeyAttr('object', linkify=True, label=_('Object'))
    object_repr = attrs.TextAttr('object_repr', label=_('Object (at the run)'))
    expected = attrs.TextAttr('expected')
    found = attrs.TextAttr('found')
    fix = attrs.TextAttr('fix', label=_('Fix'))


@register_model_view(ComplianceRun, 'list', path='', detail=False)
class ComplianceRunListView(generic.ObjectListView):
    queryset = ComplianceRun.objects.select_related('fabric', 'user', 'job')
    filterset = filtersets.ComplianceRunFilterSet
    filterset_form = forms.ComplianceRunFilterForm
    table = tables.ComplianceRunTable
    actions = (BulkExport, BulkDelete)


@register_model_view(ComplianceRun)
class ComplianceRunView(generic.ObjectView):
    actions = (DeleteObject,)
    queryset = ComplianceRun.objects.select_related('fabric', 'user', 'job')
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[ComplianceRunPanel(), TagsPanel()],
        right_panels=[CustomFieldsPanel()],
        bottom_panels=[
            ObjectsTablePanel(
                model='netbox_aifabric.ComplianceFinding',
                filters={'run_id': lambda ctx: ctx['object'].pk},
                exclude_columns=['run'],
            )
        ],
    )


@register_model_view(ComplianceRun, 'delete')
class ComplianceRunDeleteView(generic.ObjectDeleteView):
    queryset = ComplianceRun.objects.all()


@register_model_view(ComplianceRun, 'bulk_delete', path='delete', detail=False)
class ComplianceRunBulkDeleteView(generic.BulkDeleteView):
    queryset = ComplianceRun.objects.all()
    filterset = filtersets.ComplianceRunFilterSet
    table = tables.ComplianceRunTable


@register_model_view(ComplianceFinding, 'list', path='', detail=False)
class ComplianceFindingListView(generic.ObjectListView):
    queryset = ComplianceFinding.objects.select_related('run', 'run__fabric', 'object_type')
    filterset = filtersets.ComplianceFindingFilterSet
    filterset_form = forms.ComplianceFindingFilterForm
    table = tables.ComplianceFindingTable
    actions = (BulkExport, BulkDelete)


@register_model_view(ComplianceFinding)
class ComplianceFindingView(generic.ObjectView):
    actions = (DeleteObject,)
    queryset = ComplianceFinding.objects.select_related('run', 'object_type')
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[ComplianceFindingPanel(), TagsPanel()], right_panels=[CustomFieldsPanel()]
    )


@register_model_view(ComplianceFinding, 'delete')
class ComplianceFindingDeleteView(generic.ObjectDeleteView):
    queryset = ComplianceFinding.objects.all()


@register_model_view(ComplianceFinding, 'bulk_delete', path='delete', detail=False)
class ComplianceFindingBulkDeleteView(generic.BulkDeleteView):
    queryset = ComplianceFinding.objects.all()
    filterset = filtersets.ComplianceFindingFilterSet
    table = tables.ComplianceFindingTable
