"""The fabric's Compliance tab: its latest stored compliance run (who or what ran it, when, its score and counts,
every rule's result by family with its findings linked to their objects and change-log entries), marked stale when
the fabric or its intent changed after it; a button that queues a new run as a NetBox job; the stored runs' history.
Nothing is checked on a view: the compliance job runs the rules and stores the run (``checks/runs.py``). While the
fabric's compliance job is pending or running, the tab asks for itself again every few seconds (htmx, as NetBox's
script results) and shows the new run when it is stored. And the stored compliance runs and findings (list, detail,
delete: the compliance job makes them, nobody edits them)."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from extras.ui.panels import CustomFieldsPanel, TagsPanel
from netbox.object_actions import BulkDelete, BulkExport, DeleteObject
from netbox.ui import attrs, layout, panels
from netbox.ui.panels import ObjectsTablePanel
from netbox.views import generic
from utilities.htmx import htmx_partial
from utilities.views import ViewTab, register_model_view

from netbox_aifabric import filtersets, forms, tables
from netbox_aifabric.checks.job import ComplianceJob, CompliancePermissionError, request_compliance
from netbox_aifabric.forms.compliance_tab import ComplianceTabFilterForm
from netbox_aifabric.models import ComplianceFinding, ComplianceRun, Fabric
from netbox_aifabric.ui.compliance_tab import config_rows, family_folds, rule_rows, stale_reason
from netbox_aifabric.ui.compliance_trend import trend_svg
from netbox_aifabric.ui.jobs import POLL_SECONDS, last_fabric_job, polled_part, polling

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

HISTORY = 20  # stored runs shown on the tab and in its trend


def last_job(fabric):
    return last_fabric_job(fabric, ComplianceJob)


def compliance_context(request, instance) -> dict:
    """What the tab shows (the page and its polled body): the latest stored run the user may view, its rules and
    findings (narrowed by the filter form), its switches' running-config states, whether it is stale, the fabric's
    newest compliance job and whether to keep polling, the history."""
    form = ComplianceTabFilterForm(request.GET or None)
    history = run_history(instance, request.user)
    run = history['runs'][0] if history['runs'] else None
    job = last_job(instance)
    families = rule_rows(run, request.user, form.rule_filter()) if run is not None else []
    return {
        'object': instance,
        'run': run,
        'stale': stale_reason(instance, run) if run is not None else None,
        'filter_form': form,
        'families': families,
        'family_folds': family_folds(families),
        'configs': config_rows(instance, run, request.user) if run is not None else None,
        'last_job': job,
        'polling': polling(job),
        'poll_seconds': POLL_SECONDS,
        'can_run': request.user.has_perm('netbox_aifabric.add_compliancerun'),
        'can_view_runs': request.user.has_perm('netbox_aifabric.view_compliancerun'),
        **history,
    }


@register_model_view(Fabric, 'compliance', path='compliance')
class FabricComplianceView(generic.ObjectView):
    """The latest stored run, read (the rules run in the compliance job): objects the user may not view are named,
    not linked. Asked by htmx (the tab's body polling while the fabric's compliance job is pending or running), the
    body alone, through the same view and so the same permission; polling stops (htmx's 286) once the job finished."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_compliance.html'
    tab = ViewTab(label=_('Compliance'), weight=530, permission='netbox_aifabric.view_fabric')

    def get(self, request, **kwargs):
        if not htmx_partial(request):
            return super().get(request, **kwargs)
        return polled_part(
            request, 'netbox_aifabric/inc/compliance_body.html', compliance_context(request, self.get_object(**kwargs))
        )

    def get_extra_context(self, request, instance):
        return compliance_context(request, instance)


def run_history(fabric, user, limit=HISTORY):
    """The fabric's newest stored runs the user may view (newest first; ``runs`` and, shown, ``history``) and their
    trend (oldest first) as SVG."""
    if not user.has_perm('netbox_aifabric.view_compliancerun'):
        return {'runs': [], 'history': None, 'trend': None}
    runs = list(
        ComplianceRun.objects.restrict(user, 'view')
        .filter(fabric=fabric)
        .select_related('user', 'job')
        .order_by('-created', '-pk')[:limit]
    )
    points = [(f'{r.created:%Y-%m-%d %H:%M}', r.score, r.status) for r in reversed(runs)]
    # svgwrite escapes every text it writes, so the document is safe to embed
    return {'runs': runs, 'history': runs or None, 'trend': mark_safe(trend_svg(points)) if runs else None}


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
