import time
from collections import Counter

from django.contrib import messages
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header, urlencode
from django.utils.translation import gettext_lazy as _

from core.models import ObjectChange
from core.tables import ObjectChangeTable
from dcim.models import Device
from extras.ui.panels import CustomFieldsPanel, TagsPanel
from netbox.registry import registry
from netbox.ui import layout
from netbox.ui.panels import CommentsPanel, ContextTablePanel, ObjectsTablePanel, TemplatePanel
from netbox.views import generic
from netbox.views.generic.feature_views import ObjectChangeLogView
from utilities.views import ViewTab, get_default_template, register_model_view

from netbox_aifabric import filtersets, forms, tables
from netbox_aifabric.apply import branching
from netbox_aifabric.apply.collector import collections_paused
from netbox_aifabric.apply.diff import ApplyConflictError, diff_fabric, nothing_to_apply, summarize
from netbox_aifabric.apply.jobs import PLAN_MAX_NODES, plan_size_error, ui_runs_in_background
from netbox_aifabric.apply.lifecycle import apply_blockers, plan_hash
from netbox_aifabric.apply.permissions import ObjectPermissionError, visible_changes
from netbox_aifabric.apply.removal import objects_to_delete
from netbox_aifabric.apply.service import request_apply
from netbox_aifabric.checks.intent import intent_warnings
from netbox_aifabric.checks.matrix import security_matrix
from netbox_aifabric.checks.observability import observability_warning
from netbox_aifabric.intake.inputs import FabricInputs
from netbox_aifabric.intake.intent import telemetry_of
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.intake.route_targets import planned_route_targets
from netbox_aifabric.intake.traffic import fabric_traffic_warnings
from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, OwnedObject, QoSProfile, TrafficClass
from netbox_aifabric.planner import PlanError
from netbox_aifabric.planner.labels import field_label
from netbox_aifabric.render.configs import ConfigRenderer, configs_archive, fabric_devices
from netbox_aifabric.ui import panels
from netbox_aifabric.ui.diff import readable_diff
from netbox_aifabric.ui.pages import allocation_tables

#
# Traffic classes
#


@register_model_view(TrafficClass, 'list', path='', detail=False)
class TrafficClassListView(generic.ObjectListView):
    queryset = TrafficClass.objects.prefetch_related('vlan', 'vrf', 'prefix', 'reachable_from', 'tags')
    table = tables.TrafficClassTable
    filterset = filtersets.TrafficClassFilterSet
    filterset_form = forms.TrafficClassFilterForm


@register_model_view(TrafficClass)
class TrafficClassView(generic.ObjectView):
    queryset = TrafficClass.objects.all()
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[panels.TrafficClassPanel(), panels.TrafficClassQoSPanel(), TagsPanel()],
        right_panels=[CustomFieldsPanel(), CommentsPanel()],
        bottom_panels=[
            ObjectsTablePanel(
                model='netbox_aifabric.TrafficClass',
                filters={'reachable_from_id': lambda ctx: ctx['object'].pk},
                title=_('Classes this one may reach'),
            )
        ],
    )


@register_model_view(TrafficClass, 'add', detail=False)
@register_model_view(TrafficClass, 'edit')
class TrafficClassEditView(generic.ObjectEditView):
    queryset = TrafficClass.objects.all()
    form = forms.TrafficClassForm


@register_model_view(TrafficClass, 'delete')
class TrafficClassDeleteView(generic.ObjectDeleteView):
    queryset = TrafficClass.objects.all()


@register_model_view(TrafficClass, 'bulk_import', path='import', detail=False)
class TrafficClassBulkImportView(generic.BulkImportView):
    queryset = TrafficClass.objects.all()
    model_form = forms.TrafficClassImportForm


@register_model_view(TrafficClass, 'bulk_edit', path='edit', detail=False)
class TrafficClassBulkEditView(generic.BulkEditView):
    queryset = TrafficClass.objects.all()
    filterset = filtersets.TrafficClassFilterSet
    table = tables.TrafficClassTable
    form = forms.TrafficClassBulkEditForm


@register_model_view(TrafficClass, 'bulk_delete', path='delete', detail=False)
class TrafficClassBulkDeleteView(generic.BulkDeleteView):
    queryset = TrafficClass.objects.all()
    filterset = filtersets.TrafficClassFilterSet
    table = tables.TrafficClassTable


#
# QoS profiles
#


@register_model_view(QoSProfile, 'list', path='', detail=False)
class QoSProfileListView(generic.ObjectListView):
    queryset = QoSProfile.objects.prefetch_related('tags')
    table = tables.QoSProfileTable
    filterset = filtersets.QoSProfileFilterSet
    filterset_form = forms.QoSProfileFilterForm


@register_model_view(QoSProfile)
class QoSProfileView(generic.ObjectView):
    queryset = QoSProfile.objects.all()
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[panels.QoSProfilePanel(), panels.QoSMarkingPanel(), TagsPanel()],
        right_panels=[panels.QoSECNPanel(), panels.QoSWatchdogPanel(), CustomFieldsPanel(), CommentsPanel()],
        bottom_panels=[
            ObjectsTablePanel(model='netbox_aifabric.Fabric', filters={'qos_profile_id': lambda ctx: ctx['object'].pk})
        ],
    )


@register_model_view(QoSProfile, 'add', detail=False)
@register_model_view(QoSProfile, 'edit')
class QoSProfileEditView(generic.ObjectEditView):
    queryset = QoSProfile.objects.all()
    form = forms.QoSProfileForm


@register_model_view(QoSProfile, 'delete')
class QoSProfileDeleteView(generic.ObjectDeleteView):
    queryset = QoSProfile.objects.all()


@register_model_view(QoSProfile, 'bulk_import', path='import', detail=False)
class QoSProfileBulkImportView(generic.BulkImportView):
    queryset = QoSProfile.objects.all()
    model_form = forms.QoSProfileImportForm


@register_model_view(QoSProfile, 'bulk_edit', path='edit', detail=False)
class QoSProfileBulkEditView(generic.BulkEditView):
    queryset = QoSProfile.objects.all()
    filterset = filtersets.QoSProfileFilterSet
    table = tables.QoSProfileTable
    form = forms.QoSProfileBulkEditForm


@register_model_view(QoSProfile, 'bulk_delete', path='delete', detail=False)
class QoSProfileBulkDeleteView(generic.BulkDeleteView):
    queryset = QoSProfile.objects.all()
    filterset = filtersets.QoSProfileFilterSet
    table = tables.QoSProfileTable


#
# EVPN tenants
#


@register_model_view(EVPNTenant, 'list', path='', detail=False)
class EVPNTenantListView(generic.ObjectListView):
    queryset = EVPNTenant.objects.prefetch_related(
        'tenant', 'vrf', 'import_targets', 'export_targets', 'traffic_classes', 'vlans', 'tags'
    )
    table = tables.EVPNTenantTable
    filterset = filtersets.EVPNTenantFilterSet
    filterset_form = forms.EVPNTenantFilterForm


@register_model_view(EVPNTenant)
class EVPNTenantView(generic.ObjectView):
    queryset = EVPNTenant.objects.all()
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[panels.EVPNTenantPanel(), TagsPanel()],
        right_panels=[
            TemplatePanel('netbox_aifabric/inc/tenant_route_targets.html'),
            CustomFieldsPanel(),
            CommentsPanel(),
        ],
        bottom_panels=[
            ObjectsTablePanel(model='netbox_aifabric.Fabric', filters={'evpn_tenant_id': lambda ctx: ctx['object'].pk})
        ],
    )

    def get_extra_context(self, request, instance):
        # one truth: the plan's route targets, not a second copy the user could set (apply/route_targets.py)
        return {'planned_route_targets': planned_route_targets(instance)}


@register_model_view(EVPNTenant, 'add', detail=False)
@register_model_view(EVPNTenant, 'edit')
class EVPNTenantEditView(generic.ObjectEditView):
    queryset = EVPNTenant.objects.all()
    form = forms.EVPNTenantForm


@register_model_view(EVPNTenant, 'delete')
class EVPNTenantDeleteView(generic.ObjectDeleteView):
    queryset = EVPNTenant.objects.all()


@register_model_view(EVPNTenant, 'bulk_import', path='import', detail=False)
class EVPNTenantBulkImportView(generic.BulkImportView):
    queryset = EVPNTenant.objects.all()
    model_form = forms.EVPNTenantImportForm


@register_model_view(EVPNTenant, 'bulk_edit', path='edit', detail=False)
class EVPNTenantBulkEditView(generic.BulkEditView):
    queryset = EVPNTenant.objects.all()
    filterset = filtersets.EVPNTenantFilterSet
    table = tables.EVPNTenantTable
    form = forms.EVPNTenantBulkEditForm


@register_model_view(EVPNTenant, 'bulk_delete', path='delete', detail=False)
class EVPNTenantBulkDeleteView(generic.BulkDeleteView):
    queryset = EVPNTenant.objects.all()
    filterset = filtersets.EVPNTenantFilterSet
    table = tables.EVPNTenantTable


#
# Fabrics
#


@register_model_view(Fabric, 'list', path='', detail=False)
class FabricListView(generic.ObjectListView):
    queryset = Fabric.objects.prefetch_related(
        'site',
        'qos_profile',
        'loopback_pool',
        'vtep_pool',
        'p2p_pool',
        'mlag_peer_pool',
        'leaf_asn_range',
        'traffic_classes',
        'tenants',
        'tags',
    )
    table = tables.FabricTable
    filterset = filtersets.FabricFilterSet
    filterset_form = forms.FabricFilterForm


def members_table(table_class, related):
    """A panel's table of the fabric's ``related`` members the user may view, built while the page renders."""

    def build(context):
        request = context['request']
        queryset = getattr(context['object'], related).restrict(request.user, 'view')
        table = table_class(queryset, orderable=False)
        table.configure(request)
        return table

    return build


@register_model_view(Fabric)
class FabricView(generic.ObjectView):
    queryset = Fabric.objects.all()
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[panels.FabricPanel(), panels.FabricSizePanel(), panels.FabricDevicesPanel(), TagsPanel()],
        right_panels=[
            TemplatePanel('netbox_aifabric/inc/fabric_lifecycle.html'),
            panels.FabricIntentPanel(),
            panels.FabricManagementPanel(),
            panels.FabricTelemetryPanel(),
            panels.FabricConfigManagementPanel(),
            CustomFieldsPanel(),
            CommentsPanel(),
        ],
        # rendered with the page (ObjectsTablePanel fetched them afterwards: 3-5 s later on a loaded server)
        bottom_panels=[
            ContextTablePanel(members_table(tables.TrafficClassTable, 'traffic_classes'), title=_('Traffic classes')),
            ContextTablePanel(members_table(tables.EVPNTenantTable, 'tenants'), title=_('EVPN tenants')),
        ],
    )


class FabricChangeLogView(ObjectChangeLogView):
    """NetBox's changelog tab, plus every change made in the requests that changed the fabric: an apply records
    itself on the fabric (``Fabric.mark_applied``), so its devices, cables, addresses… are listed here, each with its
    request id (NetBox's ``request_id`` filter link)."""

    def get(self, request, model, **kwargs):
        fabric = get_object_or_404(model.objects.restrict(request.user, 'view'), **kwargs)
        content_type = ContentType.objects.get_for_model(model)
        own = Q(changed_object_type=content_type, changed_object_id=fabric.pk) | Q(
            related_object_type=content_type, related_object_id=fabric.pk
        )
        requests = ObjectChange.objects.filter(own).values('request_id')
        changes = (
            ObjectChange.objects.restrict(request.user, 'view')
            .prefetch_related('user', 'changed_object_type')
            .filter(own | Q(request_id__in=requests))
        )
        table = ObjectChangeTable(data=changes, orderable=False)
        table.configure(request)
        table.columns.show('request_id')
        return render(
            request,
            'extras/object_changelog.html',
            {'object': fabric, 'table': table, 'base_template': get_default_template(model), 'tab': self.tab},
        )


def _replace_changelog_view():
    """NetBox registers its changelog view for every model when it starts; the fabric's is replaced in place (a
    second registration would give a second URL of the same name, and Django resolves the first)."""
    for entry in registry['views']['netbox_aifabric']['fabric']:
        if entry['name'] == 'changelog':
            entry['view'] = FabricChangeLogView


_replace_changelog_view()


@register_model_view(Fabric, 'add', detail=False)
@register_model_view(Fabric, 'edit')
class FabricEditView(generic.ObjectEditView):
    queryset = Fabric.objects.all()
    form = forms.FabricForm

    def get_return_url(self, request, obj=None):
        # after a save: where the new servers went (Fabric.sync_nodes balances them over the leaf pairs)
        if obj is not None and request.method == 'POST':
            for line in obj.placement_messages():
                messages.info(request, _('New servers placed: {line}').format(line=line))
        return super().get_return_url(request, obj)


@register_model_view(Fabric, 'delete')
class FabricDeleteView(generic.ObjectDeleteView):
    queryset = Fabric.objects.all()

    def _get_dependent_objects(self, obj):
        """What the deletion deletes: the objects the fabric's applies created (``apply/removal.py``), not the
        ownership records that only pointed at them (the confirmation said "133 owned objects" and kept them)."""
        dependent = {m: o for m, o in super()._get_dependent_objects(obj).items() if m is not OwnedObject}
        return {**dependent, **objects_to_delete(obj)}


@register_model_view(Fabric, 'bulk_import', path='import', detail=False)
class FabricBulkImportView(generic.BulkImportView):
    queryset = Fabric.objects.all()
    model_form = forms.FabricImportForm


@register_model_view(Fabric, 'bulk_edit', path='edit', detail=False)
class FabricBulkEditView(generic.BulkEditView):
    queryset = Fabric.objects.all()
    filterset = filtersets.FabricFilterSet
    table = tables.FabricTable
    form = forms.FabricBulkEditForm


@register_model_view(Fabric, 'bulk_delete', path='delete', detail=False)
class FabricBulkDeleteView(generic.BulkDeleteView):
    queryset = Fabric.objects.all()
    filterset = filtersets.FabricFilterSet
    table = tables.FabricTable


#
# Fabric plan preview and topology
#


@register_model_view(Fabric, 'plan', path='plan')
class FabricPlanView(generic.ObjectView):
    """The plan and the diff an apply would make; users with the ``apply`` permission get the Apply button."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_plan.html'
    tab = ViewTab(label=_('Plan'), weight=500)

    def get(self, request, *args, **kwargs):
        with collections_paused():  # the page holds the whole diff until it is rendered (apply/collector.py)
            return super().get(request, *args, **kwargs)

    def get_extra_context(self, request, instance):
        if too_large := plan_size_error(instance):  # as the REST plan: not planned and diffed in the request
            return {
                'plan': None,
                'plan_error': PlanError(PLAN_MAX_NODES, too_large),
                'plan_too_large': True,
                'can_apply': request.user.has_perm('netbox_aifabric.apply_fabric', instance),
            }
        try:
            plan, changes = diff_fabric(instance, confirm_delete=True)
        except PlanError as e:
            return {'plan': None, 'plan_error': e}
        unchanged = _nothing_to_apply(instance, plan, changes)  # of every change, those the user may not view too
        changes = visible_changes(request.user, changes)  # as NetBox's views: only objects the user may view
        return {
            'plan': plan,
            'plan_error': None,
            'nothing_to_apply': unchanged,
            # (NetBox's object template already uses `actions` for its buttons)
            'apply_diff': summarize(changes),
            'diff_groups': readable_diff(changes),
            'apply_conflicts': any(c.action == 'conflict' for c in changes),
            'apply_blockers': apply_blockers(plan),
            'can_apply': request.user.has_perm('netbox_aifabric.apply_fabric', instance),
            'background_default': ui_runs_in_background(instance, None),
            'intent_warnings': intent_warnings(instance),
            'traffic_warnings': fabric_traffic_warnings(instance, plan),
            'observability': observability_warning(telemetry_of(instance), _telemetry_edit_url(request, instance)),
        }


def _nothing_to_apply(fabric, plan, changes) -> bool:
    """An apply would write nothing and record nothing (``after_apply``): every object is kept or used as it is, the
    plan is the one the last apply recorded and the intent has not changed since."""
    return nothing_to_apply(changes) and not fabric.pending_change and fabric.last_plan_hash == plan_hash(plan)


def _telemetry_edit_url(request, fabric):
    """The fabric's edit form at its Telemetry fieldset, back to the Plan tab after saving (None without the change
    permission: the warning then only names the place)."""
    if not request.user.has_perm('netbox_aifabric.change_fabric', fabric):
        return None
    edit = reverse('plugins:netbox_aifabric:fabric_edit', kwargs={'pk': fabric.pk})
    plan = reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': fabric.pk})
    return f'{edit}?{urlencode({"return_url": plan})}#telemetry'


@register_model_view(Fabric, 'security', path='security')
class FabricSecurityView(generic.ObjectView):
    """The security matrix: which class may reach which (the intent) against what the rendered intent enforces
    (``checks.matrix``), and the switches' management plane."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_security.html'
    tab = ViewTab(label=_('Security'), weight=520)

    def get_extra_context(self, request, instance):
        try:
            contexts = FabricInputs(instance).contexts
        except PlanError as e:
            return {'plan_error': e}
        return {'plan_error': None, **security_matrix(contexts)}


@register_model_view(Fabric, 'apply', path='apply')
class FabricApplyView(generic.ObjectView):
    """POST: apply the fabric's plan (one transaction), then back to the Plan tab with the outcome."""

    queryset = Fabric.objects.all()

    def get_required_permission(self):
        return 'netbox_aifabric.apply_fabric'

    def get(self, request, **kwargs):
        return redirect(reverse('plugins:netbox_aifabric:fabric_plan', kwargs=kwargs))

    def post(self, request, **kwargs):
        fabric = self.get_object(**kwargs)
        confirm_delete = bool(request.POST.get('confirm_delete'))
        background = ui_runs_in_background(fabric, request.POST.get('background'))
        try:
            outcome = request_apply(fabric, request.user, confirm_delete, background)
            if outcome.queued:
                job = outcome.job
                messages.info(
                    request,
                    _('The apply runs in the background as job {id}: this page shows its progress.').format(id=job.pk),
                )
                return redirect(job.get_absolute_url())  # NetBox's job page, with the apply's progress
            # per object, as the Plan tab counts them: a new device's primary IPv4 and context are its creation
            counts = Counter()
            for group in readable_diff(outcome.changes):
                counts.update(group.counts)
            messages.success(
                request,
                _('Applied: {create} created, {update} updated, {delete} deleted, {keep} unchanged.').format(
                    create=counts['create'],
                    update=counts['update'],
                    delete=counts['delete'] if confirm_delete else 0,
                    keep=counts['keep'] + counts['use'],
                ),
            )
        except PlanError as e:
            messages.error(request, f'{field_label(e.field)}: {e.message}')  # the field as the form says it
        except ApplyConflictError as e:
            messages.error(request, _('Nothing was applied: {error}').format(error=e))
        except ObjectPermissionError as e:
            messages.error(request, str(e))
        return redirect(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': fabric.pk}))


@register_model_view(Fabric, 'allocations', path='allocations')
class FabricAllocationsView(generic.ObjectView):
    """The plan's numbering as tables: nodes (loopback, VTEP, ASN, MLAG), links (/31s), VLANs and VNIs, VRFs."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_allocations.html'
    tab = ViewTab(label=_('Allocations'), weight=505)

    def get_extra_context(self, request, instance):
        try:
            plan = plan_of(instance)  # the plan only: its diff is the Plan tab's
        except PlanError as e:
            return {'plan': None, 'plan_error': e}
        return {'plan': plan, 'plan_error': None, **allocation_tables(plan)}


@register_model_view(Fabric, 'configs', path='configurations')
class FabricConfigsView(generic.ObjectView):
    """Every device of the fabric rendered with its ConfigTemplate (each template compiled once), with a link to the
    device's own Render Config tab; ``?export=tar`` downloads them all as a gzipped tar."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_configs.html'
    tab = ViewTab(label=_('Configurations'), permission='dcim.render_config_device', weight=515)

    def get_required_permission(self):
        return 'netbox_aifabric.view_fabric'

    def _render(self, request, fabric):
        start = time.perf_counter()
        renderer = ConfigRenderer()
        configs = renderer.render_all(fabric_devices(fabric, request.user))
        return configs, renderer, time.perf_counter() - start

    def get(self, request, **kwargs):
        fabric = self.get_object(**kwargs)
        if not request.user.has_perm('dcim.render_config_device'):
            messages.error(request, _('Rendering configurations needs the render_config permission on devices.'))
            return redirect(fabric.get_absolute_url())
        configs, renderer, seconds = self._render(request, fabric)
        if request.GET.get('export') == 'tar':
            response = HttpResponse(configs_archive(configs, fabric.slug), content_type='application/gzip')
            response['Content-Disposition'] = content_disposition_header(
                as_attachment=True, filename=f'{fabric.slug}-configs.tar.gz'
            )
            return response
        return render(
            request,
            self.get_template_name(),
            {
                'object': fabric,
                'tab': self.tab,
                'configs': configs,
                'rendered': sum(1 for c in configs if c.rendered),
                'errors': sum(1 for c in configs if c.error is not None),
                'templates': renderer.templates,
                'milliseconds': round(seconds * 1000),
            },
        )


@register_model_view(Fabric, 'nodes', path='nodes')
class FabricNodesView(generic.ObjectChildrenView):
    queryset = Fabric.objects.all()
    child_model = FabricNode
    table = tables.FabricNodeTable
    filterset = filtersets.FabricNodeFilterSet
    filterset_form = forms.FabricNodeFilterForm
    tab = ViewTab(
        label=_('Nodes'), badge=lambda obj: obj.nodes.count(), permission='netbox_aifabric.view_fabricnode', weight=490
    )

    def get_children(self, request, parent):
        return self.child_model.objects.restrict(request.user, 'view').filter(fabric=parent)


@register_model_view(Fabric, 'adopt', path='adopt')
class FabricAdoptView(generic.ObjectView):
    """Brownfield: adopt the existing devices of the fabric's site that have a device role, as nodes of one role."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_adopt.html'

    def get_required_permission(self):
        return 'netbox_aifabric.change_fabric'

    def get_extra_context(self, request, instance):
        return {'form': forms.FabricAdoptForm(request.GET or None)}

    def post(self, request, **kwargs):
        fabric = self.get_object(**kwargs)
        if not request.user.has_perm('netbox_aifabric.add_fabricnode') or not request.user.has_perm(
            'netbox_aifabric.change_fabricnode'
        ):
            messages.error(request, _('Adopting devices needs the add and change permissions on fabric nodes.'))
            return redirect(fabric.get_absolute_url())
        form = forms.FabricAdoptForm(request.POST)
        if form.is_valid():
            devices = Device.objects.restrict(request.user, 'view').filter(
                site=fabric.site, role=form.cleaned_data['device_role']
            )
            try:
                with branching.atomic():
                    nodes = fabric.adopt_devices(devices, form.cleaned_data['role'])
            except ValidationError as e:
                messages.error(request, _('Nothing was adopted: {error}').format(error='; '.join(e.messages)))
            else:
                messages.success(
                    request,
                    _('Adopted {n} device(s): {names}. Review the plan before applying.').format(
                        n=len(nodes), names=', '.join(n.name for n in nodes) or '—'
                    ),
                )
                return redirect(reverse('plugins:netbox_aifabric:fabric_nodes', kwargs={'pk': fabric.pk}))
        return render(request, self.template_name, {'object': fabric, 'form': form})


#
# Fabric nodes
#


@register_model_view(FabricNode, 'list', path='', detail=False)
class FabricNodeListView(generic.ObjectListView):
    queryset = FabricNode.objects.select_related('fabric', 'device')
    filterset = filtersets.FabricNodeFilterSet
    filterset_form = forms.FabricNodeFilterForm
    table = tables.FabricNodeTable


@register_model_view(FabricNode)
class FabricNodeView(generic.ObjectView):
    queryset = FabricNode.objects.all()
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[panels.FabricNodePanel(), TagsPanel()], right_panels=[CustomFieldsPanel()]
    )


@register_model_view(FabricNode, 'add', detail=False)
@register_model_view(FabricNode, 'edit')
class FabricNodeEditView(generic.ObjectEditView):
    queryset = FabricNode.objects.all()
    form = forms.FabricNodeForm


@register_model_view(FabricNode, 'delete')
class FabricNodeDeleteView(generic.ObjectDeleteView):
    queryset = FabricNode.objects.all()


@register_model_view(FabricNode, 'bulk_import', path='import', detail=False)
class FabricNodeBulkImportView(generic.BulkImportView):
    queryset = FabricNode.objects.all()
    model_form = forms.FabricNodeImportForm


@register_model_view(FabricNode, 'bulk_edit', path='edit', detail=False)
class FabricNodeBulkEditView(generic.BulkEditView):
    queryset = FabricNode.objects.select_related('fabric', 'device')
    filterset = filtersets.FabricNodeFilterSet
    table = tables.FabricNodeTable
    form = forms.FabricNodeBulkEditForm


@register_model_view(FabricNode, 'bulk_delete', path='delete', detail=False)
class FabricNodeBulkDeleteView(generic.BulkDeleteView):
    queryset = FabricNode.objects.all()
    filterset = filtersets.FabricNodeFilterSet
    table = tables.FabricNodeTable
