"""Running configs: the config backups (list, detail, delete, and the upload as their add view) and each fabric
switch's *Config compliance* tab: its newest backup against its rendered config, side by side, with the findings
and their remediation, the sections ignored and the normalisation applied. The upload calls the service the REST
API calls (``checks.backups.upload_backup``)."""

import difflib
import json
import re

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy as _

from dcim.models import Device
from extras.ui.panels import CustomFieldsPanel, TagsPanel
from netbox.object_actions import BulkDelete, BulkExport, DeleteObject
from netbox.ui import attrs, layout, panels
from netbox.views import generic
from utilities.views import ViewTab, register_model_view

from netbox_aifabric import filtersets, forms, tables
from netbox_aifabric.checks.backups import BackupError, fabric_of_device, nos_of_device, upload_backup
from netbox_aifabric.checks.compliance import device_config
from netbox_aifabric.checks.config_diff import NORMALISATION
from netbox_aifabric.models import ConfigBackup

__all__ = (
    'ConfigBackupBulkDeleteView',
    'ConfigBackupDeleteView',
    'ConfigBackupListView',
    'ConfigBackupUploadView',
    'ConfigBackupView',
    'DeviceConfigComplianceView',
)

STATE_COLORS = {'compliant': 'green', 'not compliant': 'red', 'never backed up': 'orange', 'not compared': 'gray'}
DIFF_WRAP = 90  # characters per column of the side-by-side diff


class ConfigBackupPanel(panels.ObjectAttributesPanel):
    device = attrs.RelatedObjectAttr('device', linkify=True)
    fabric = attrs.RelatedObjectAttr('fabric', linkify=True)
    time = attrs.DateTimeAttr('time')
    source = attrs.ChoiceAttr('source')
    origin = attrs.TextAttr('origin')
    data_file = attrs.RelatedObjectAttr('data_file', linkify=True, label=_('Data file'))
    user = attrs.RelatedObjectAttr('user')
    size = attrs.NumericAttr('size', label=_('Size (bytes)'))
    sha256 = attrs.TextAttr('sha256', label=_('SHA-256'), style='font-monospace')


@register_model_view(ConfigBackup, 'list', path='', detail=False)
class ConfigBackupListView(generic.ObjectListView):
    queryset = ConfigBackup.objects.select_related('fabric', 'device', 'user').defer('content')
    filterset = filtersets.ConfigBackupFilterSet
    filterset_form = forms.ConfigBackupFilterForm
    table = tables.ConfigBackupTable
    actions = (BulkExport, BulkDelete)


@register_model_view(ConfigBackup)
class ConfigBackupView(generic.ObjectView):
    queryset = ConfigBackup.objects.select_related('fabric', 'device', 'user', 'data_file')
    actions = (DeleteObject,)
    template_name = 'generic/object.html'
    layout = layout.SimpleLayout(
        left_panels=[ConfigBackupPanel(), TagsPanel()],
        right_panels=[CustomFieldsPanel()],
        bottom_panels=[panels.TextCodePanel('content', title=_('Running config'))],
    )


@register_model_view(ConfigBackup, 'delete')
class ConfigBackupDeleteView(generic.ObjectDeleteView):
    queryset = ConfigBackup.objects.all()


@register_model_view(ConfigBackup, 'bulk_delete', path='delete', detail=False)
class ConfigBackupBulkDeleteView(generic.BulkDeleteView):
    queryset = ConfigBackup.objects.all()
    filterset = filtersets.ConfigBackupFilterSet
    table = tables.ConfigBackupTable


@register_model_view(ConfigBackup, 'add', detail=False)
class ConfigBackupUploadView(generic.ObjectView):
    """GET: the upload form (``?device=<id>`` preselects the switch); POST: the running config checked and stored,
    or the form again with the refusal at its field (nothing stored). The add permission on config backups, its
    constraints checked on the stored row."""

    queryset = ConfigBackup.objects.all()
    template_name = 'netbox_aifabric/configbackup_upload.html'

    def get_required_permission(self):
        return 'netbox_aifabric.add_configbackup'

    def get(self, request, **kwargs):
        form = forms.ConfigBackupUploadForm(initial={'device': request.GET.get('device')})
        return render(request, self.template_name, {'object': ConfigBackup(), 'form': form, **_back(request)})

    def post(self, request, **kwargs):
        form = forms.ConfigBackupUploadForm(request.POST, request.FILES)
        if form.is_valid():
            device = form.cleaned_data['device']
            try:
                backup, created = upload_backup(request.user, device, form.cleaned_data['content'])
            except BackupError as e:
                form.add_error('content' if e.field == 'content' else 'device', e.message)
            else:
                text = _('{device}: backup stored') if created else _('{device}: the same as its newest backup')
                messages.success(request, text.format(device=device))
                return redirect(_back(request)['return_url'] or backup.get_absolute_url())
        context = {'object': ConfigBackup(), 'form': form, **_back(request)}
        return render(request, self.template_name, context, status=400)


def _back(request):
    url = request.POST.get('return_url') or request.GET.get('return_url') or ''
    safe = url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}, require_https=request.is_secure())
    return {'return_url': url if safe else ''}


def _is_fabric_switch(device) -> bool:
    return nos_of_device(device) is not None and fabric_of_device(device) is not None


def _display_lines(nos, text):
    """The lines shown side by side: JSON re-indented with sorted keys (key order and spacing mean nothing there)."""
    if nos == 'sonic':
        try:
            return json.dumps(json.loads(text), indent=2, sort_keys=True).splitlines()
        except ValueError:
            pass
    return text.splitlines()


# difflib's in-page jump-link cells, and the column groups laid out for them
NEXT_CHANGE_LINKS = re.compile(r'<t([dh]) class="diff_next"[^>]*>.*?</t\1>|<colgroup></colgroup>')


def side_by_side(nos, intended, running):
    """The HTML table of difflib's side-by-side diff (it escapes both texts), changed lines with 3 of context, without
    difflib's jump-link column (its anchors point into a page of its own)."""
    differ = difflib.HtmlDiff(tabsize=4, wrapcolumn=DIFF_WRAP)
    table = differ.make_table(
        _display_lines(nos, intended),
        _display_lines(nos, running),
        str(_('Rendered (intended)')),
        str(_('Running (newest backup)')),
        context=True,
        numlines=3,
    )
    return NEXT_CHANGE_LINKS.sub('', table)


@register_model_view(Device, 'aifabric_config', path='config-compliance')
class DeviceConfigComplianceView(generic.ObjectView):
    """A fabric switch's running config against its rendered config. The tab needs view permission on the device and
    on config backups; the comparison (lines of both configs) also needs the newest backup within the user's view
    constraints and NetBox's render-config permission on the device, as its *Render Config* tab does: without them
    the page names the state only."""

    queryset = Device.objects.all()
    template_name = 'netbox_aifabric/device_config_compliance.html'
    tab = ViewTab(
        label=_('Config compliance'),
        visible=_is_fabric_switch,
        weight=2100,
        permission='netbox_aifabric.view_configbackup',
    )

    def get_extra_context(self, request, instance):
        fabric = fabric_of_device(instance)
        config = device_config(fabric, instance) if fabric is not None else None
        backups = ConfigBackup.objects.restrict(request.user, 'view').filter(device=instance)
        table = tables.ConfigBackupTable(backups.defer('content')[:10], exclude=('device', 'fabric'), orderable=False)
        table.configure(request)
        newest = backups.filter(pk=config.backup['id']).first() if config is not None and config.backup else None
        may_compare = newest is not None and request.user.has_perm('dcim.render_config_device', instance)
        diff = None
        if may_compare and config.comparison is not None and not config.comparison.compliant:
            diff = side_by_side(config.nos, config.intended, newest.content)
        return {
            'fabric': fabric,
            'config': config,
            'may_compare': may_compare,
            'state_color': STATE_COLORS.get(config.state) if config else None,
            'normalisation': NORMALISATION.get(config.nos, ()) if config else (),
            'diff': diff,
            'backups': table,
            'can_upload': request.user.has_perm('netbox_aifabric.add_configbackup'),
        }
