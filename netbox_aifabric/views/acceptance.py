"""Acceptance runs and results (list, detail, delete), the upload of a tool's output to a manual run, and the fabric's
acceptance runbook (a page and a shell script). The upload calls the service the REST action calls
(``acceptance.store.upload_result``)."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from extras.ui.panels import CustomFieldsPanel, TagsPanel
from netbox.object_actions import AddObject, BulkDelete, BulkExport, CloneObject, DeleteObject, EditObject
from netbox.ui import attrs, layout, panels
from netbox.views import generic
from utilities.views import ViewTab, register_model_view

from netbox_aifabric import filtersets, forms, tables
from netbox_aifabric.acceptance.fabric import fabric_runbook
from netbox_aifabric.acceptance.judge import UploadError
from netbox_aifabric.acceptance.runbook import runbook_script
from netbox_aifabric.acceptance.store import upload_result
from netbox_aifabric.models import Fabric
from netbox_aifabric.models.acceptance import AcceptanceResult, AcceptanceRun, AcceptanceRunKindChoices
from netbox_aifabric.planner import PlanError
from netbox_aifabric.ui.acceptance_chart import bars_of, throughput_svg
from netbox_aifabric.ui.acceptance_fold import FAILED, NOT_RUN, NOT_VERIFIED, PASSED, Fold, fold_runbook, step_keys

__all__ = (
    'AcceptanceResultBulkDeleteView',
    'AcceptanceResultDeleteView',
    'AcceptanceResultListView',
    'AcceptanceResultView',
    'AcceptanceRunBulkDeleteView',
    'AcceptanceRunDeleteView',
    'AcceptanceRunEditView',
    'AcceptanceRunListView',
    'AcceptanceRunUploadView',
    'AcceptanceRunView',
    'FabricAcceptanceScriptView',
    'FabricAcceptanceView',
)


class AcceptanceRunPanel(panels.ObjectAttributesPanel):
    fabric = attrs.RelatedObjectAttr('fabric', linkify=True)
    kind = attrs.ChoiceAttr('kind')
    time = attrs.DateTimeAttr('time')
    user = attrs.RelatedObjectAttr('user')
    status = attrs.ChoiceAttr('status')
    passed = attrs.NumericAttr('passed')
    failed = attrs.NumericAttr('failed')
    not_verified = attrs.NumericAttr('not_verified', label=_('Not verified'))
    convergence_seconds = attrs.NumericAttr('convergence_seconds', label=_('Convergence (s)'))
    description = attrs.TextAttr('description')


class AcceptanceResultPanel(panels.ObjectAttributesPanel):
    run = attrs.RelatedObjectAttr('run', linkify=True)
    name = attrs.TextAttr('name', label=_('Check'))
    category = attrs.TextAttr('category')
    subject = attrs.TextAttr('subject')
    status = attrs.ChoiceAttr('status')
    expected = attrs.TextAttr('expected')
    seen = attrs.TextAttr('seen')
    value = attrs.NumericAttr('value')


@register_model_view(AcceptanceRun, 'list', path='', detail=False)
class AcceptanceRunListView(generic.ObjectListView):
    queryset = AcceptanceRun.objects.select_related('fabric', 'user')
    filterset = filtersets.AcceptanceRunFilterSet
    filterset_form = forms.AcceptanceRunFilterForm
    table = tables.AcceptanceRunTable
    actions = (AddObject, BulkExport, BulkDelete)


@register_model_view(AcceptanceRun)
class AcceptanceRunView(generic.ObjectView):
    queryset = AcceptanceRun.objects.select_related('fabric', 'user')
    actions = (CloneObject, EditObject, DeleteObject)
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[AcceptanceRunPanel(), TagsPanel()],
        right_panels=[
            panels.TemplatePanel('netbox_aifabric/inc/acceptance_run_actions.html', title=_('Upload and chart')),
            CustomFieldsPanel(),
        ],
        bottom_panels=[
            panels.ObjectsTablePanel(
                'netbox_aifabric.acceptanceresult',
                filters={'run_id': lambda ctx: ctx['object'].pk},
                exclude_columns=['run'],
            ),
            panels.TextCodePanel('log', title=_('Log')),
        ],
    )

    def get_extra_context(self, request, instance):
        results = AcceptanceResult.objects.restrict(request.user, 'view').filter(run=instance)
        return {
            'throughput_chart': throughput_svg(bars_of(results)),
            'can_upload': instance.kind == AcceptanceRunKindChoices.MANUAL
            and request.user.has_perm('netbox_aifabric.change_acceptancerun', instance)
            and request.user.has_perm('netbox_aifabric.add_acceptanceresult'),
        }


@register_model_view(AcceptanceRun, 'add', detail=False)
@register_model_view(AcceptanceRun, 'edit')
class AcceptanceRunEditView(generic.ObjectEditView):
    queryset = AcceptanceRun.objects.all()
    form = forms.AcceptanceRunForm

    def alter_object(self, obj, request, url_args, url_kwargs):
        if obj.pk is None:
            obj.user = request.user  # a manual run is the user's who opened it
        return obj


@register_model_view(AcceptanceRun, 'delete')
class AcceptanceRunDeleteView(generic.ObjectDeleteView):
    queryset = AcceptanceRun.objects.all()


@register_model_view(AcceptanceRun, 'bulk_delete', path='delete', detail=False)
class AcceptanceRunBulkDeleteView(generic.BulkDeleteView):
    queryset = AcceptanceRun.objects.all()
    filterset = filtersets.AcceptanceRunFilterSet
    table = tables.AcceptanceRunTable


@register_model_view(AcceptanceRun, 'upload', path='upload')
class AcceptanceRunUploadView(generic.ObjectView):
    """GET: the form; POST: judge the output against the plan and store it as a result (nothing on a bad upload).
    The change permission on the run (its constraints included) and the add permission on results."""

    queryset = AcceptanceRun.objects.all()
    template_name = 'netbox_aifabric/acceptancerun_upload.html'

    def get_required_permission(self):
        return 'netbox_aifabric.change_acceptancerun'

    def _check_add(self, request):
        return request.user.has_perm('netbox_aifabric.add_acceptanceresult')

    def get(self, request, **kwargs):
        run = self.get_object(**kwargs)
        if not self._check_add(request):
            return self.handle_no_permission()
        return render(request, self.template_name, {'object': run, 'form': forms.AcceptanceUploadForm()})

    def post(self, request, **kwargs):
        run = self.get_object(**kwargs)
        if not self._check_add(request):
            return self.handle_no_permission()
        form = forms.AcceptanceUploadForm(request.POST, request.FILES)
        if form.is_valid():
            data = form.cleaned_data
            try:
                result = upload_result(
                    run, data['tool'], data['output'], data['source'], data['destination'], data['subject'],
                    data.get('before'),
                )  # fmt: skip
            except UploadError as e:
                form.add_error(e.field if e.field in form.fields else None, e.message)
            else:
                messages.success(request, _('{name}: {status}').format(name=result.name, status=result.status))
                return redirect(run.get_absolute_url())
        return render(request, self.template_name, {'object': run, 'form': form}, status=400)


@register_model_view(AcceptanceResult, 'list', path='', detail=False)
class AcceptanceResultListView(generic.ObjectListView):
    queryset = AcceptanceResult.objects.select_related('run__fabric')
    filterset = filtersets.AcceptanceResultFilterSet
    filterset_form = forms.AcceptanceResultFilterForm
    table = tables.AcceptanceResultTable
    actions = (BulkExport, BulkDelete)


@register_model_view(AcceptanceResult)
class AcceptanceResultView(generic.ObjectView):
    queryset = AcceptanceResult.objects.select_related('run__fabric')
    actions = (DeleteObject,)
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[AcceptanceResultPanel(), TagsPanel()],
        right_panels=[CustomFieldsPanel()],
        bottom_panels=[panels.TextCodePanel('raw', title=_('Raw output'))],
    )


@register_model_view(AcceptanceResult, 'delete')
class AcceptanceResultDeleteView(generic.ObjectDeleteView):
    queryset = AcceptanceResult.objects.all()


@register_model_view(AcceptanceResult, 'bulk_delete', path='delete', detail=False)
class AcceptanceResultBulkDeleteView(generic.BulkDeleteView):
    queryset = AcceptanceResult.objects.all()
    filterset = filtersets.AcceptanceResultFilterSet
    table = tables.AcceptanceResultTable


# (key, label, why, how its steps are counted)
SECTIONS = (
    (
        'physical',
        _('Physical checks per port'),
        _("Speed, FEC, CRC/FCS errors and link flaps, per NOS; each device's LLDP neighbours."),
        ngettext_lazy('%(n)d check', '%(n)d checks', 'n'),
    ),
    (
        'mtu',
        _('MTU pings'),
        _('ping -M do -s <MTU-28>: every jumbo link and leaf loopback to leaf loopback.'),
        ngettext_lazy('%(n)d ping', '%(n)d pings', 'n'),
    ),
    (
        'evpn',
        _('EVPN'),
        _('Sessions, VNI state, MAC/IP and IMET routes per switch; the anycast gateway of every leaf.'),
        ngettext_lazy('%(n)d check', '%(n)d checks', 'n'),
    ),
    (
        'roce',
        _('RoCE counters'),
        _(
            "PFC pause frames, queue drops and ECN marks per switch, and the server NICs' counters (ethtool -S), "
            'before and after the load; uploaded and judged.'
        ),
        ngettext_lazy('%(n)d snapshot', '%(n)d snapshots', 'n'),
    ),
    (
        'throughput',
        _('iperf3 -P 8 pairs'),
        _('Same-leaf, leaf-to-leaf and to storage, with a ping during the load.'),
        ngettext_lazy('%(n)d pair', '%(n)d pairs', 'n'),
    ),
    (
        'rdma',
        _('RDMA (perftest) pairs'),
        _(
            "ib_write_bw and ib_send_lat over rdma_cm in the lossless class's ToS between the RDMA NICs: same-leaf, "
            "cross-leaf and cross-rack, the NICs' and leaves' RoCE counters before and after each pair."
        ),
        ngettext_lazy('%(n)d pair', '%(n)d pairs', 'n'),
    ),
    (
        'security',
        _('Security matrix'),
        _('A host of each class pings a host of every other class.'),
        ngettext_lazy('%(n)d pair of classes', '%(n)d pairs of classes', 'n'),
    ),
    (
        'ansible',
        _('Ansible check mode'),
        _('The shipped playbook with --check --diff: what it would change.'),
        ngettext_lazy('%(n)d check', '%(n)d checks', 'n'),
    ),
)
STATE_LABELS = {PASSED: _('passed'), FAILED: _('failed'), NOT_VERIFIED: _('not verified'), NOT_RUN: _('not run')}
STATE_COLORS = {PASSED: 'green', FAILED: 'red', NOT_VERIFIED: 'secondary', NOT_RUN: 'gray'}


def fold_summary(fold: Fold, counted, run, uploaded: bool) -> str:
    """'6 pairs: 4 passed, 1 failed, 1 not run' (only the states seen); without a run, the count alone."""
    total = counted % {'n': len(fold.rows)}
    if run is None or not fold.rows:
        return str(total)
    if not uploaded:
        return _('{total}: judged by the script, not uploaded').format(total=total)
    parts = [f'{n} {STATE_LABELS[state]}' for state, n in fold.counts.items() if n]
    return f'{total}: {", ".join(parts)}'


def shown_rows(fold: Fold) -> list[dict]:
    """Each row of ``fold`` with its state's label and colour (the template cannot look them up)."""
    return [
        {'item': item, 'state': state, 'label': STATE_LABELS[state], 'color': STATE_COLORS[state], 'results': results}
        for item, state, results in fold.rows
    ]


def chosen_run(request, runs):
    """The run named by ``?run=`` among ``runs`` (those the user may view), else the latest."""
    wanted = request.GET.get('run')
    if wanted and wanted.isdigit():
        found = runs.filter(pk=int(wanted)).first()
        if found is not None:
            return found
    return runs.first()


@register_model_view(Fabric, 'acceptance', path='acceptance')
class FabricAcceptanceView(generic.ObjectView):
    """The fabric's acceptance runbook as a page (view permission on the fabric, its constraints included), with
    its download as a shell script and the fabric's manual runs. Each section is folded, its header counting its
    steps by the verdict the chosen manual run (the latest, or ``?run=``) gives them; a section with a failure is
    open. The run's results that belong to no step are grouped by category below."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_acceptance.html'
    tab = ViewTab(label=_('Acceptance'), weight=550, permission='netbox_aifabric.view_fabric')

    def get_extra_context(self, request, instance):
        try:
            book = fabric_runbook(instance)
        except PlanError as e:
            return {'plan_error': e}
        runs = AcceptanceRun.objects.restrict(request.user, 'view').filter(
            fabric=instance, kind=AcceptanceRunKindChoices.MANUAL
        )
        run = chosen_run(request, runs)
        results = AcceptanceResult.objects.restrict(request.user, 'view').filter(run=run) if run else []
        folds, others = fold_runbook([(key, book.section(key)) for key, *_ in SECTIONS], results)
        sections = []
        for (key, label, why, counted), fold in zip(SECTIONS, folds, strict=True):
            uploaded = any(step_keys(row[0]) for row in fold.rows)
            summary = fold_summary(fold, counted, run, uploaded)
            sections.append({'key': key, 'label': label, 'why': why, 'open': fold.open, 'summary': summary,
                             'rows': shown_rows(fold)})  # fmt: skip
        results_counted = ngettext_lazy('%(n)d result', '%(n)d results', 'n')
        groups = [
            {'key': slugify(g.key), 'label': _('Results of category {category}').format(category=g.key),
             'open': g.open, 'rows': shown_rows(g), 'summary': fold_summary(g, results_counted, run, True)}
            for g in others
        ]  # fmt: skip
        return {'plan_error': None, 'sections': sections, 'other_results': groups, 'run': run, 'runs': runs[:10]}


@register_model_view(Fabric, 'acceptance_script', path='acceptance/script')
class FabricAcceptanceScriptView(generic.ObjectView):
    """The runbook as a bash script (a download)."""

    queryset = Fabric.objects.all()

    def get(self, request, **kwargs):
        fabric = self.get_object(**kwargs)
        filename = f'{fabric.slug}-acceptance.sh'
        try:
            script = runbook_script(fabric_runbook(fabric), filename)
        except PlanError as e:
            return HttpResponse(f'{fabric} has no valid plan: {e}\n', status=409, content_type='text/plain')
        response = HttpResponse(script, content_type='text/x-shellscript; charset=utf-8')
        response['Content-Disposition'] = f'attachment; filename="{filename}"'
        return response
