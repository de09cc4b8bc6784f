"""The fabric's Lab tab: the latest stored lab run (an acceptance run of kind lab: each check with expected and seen,
what is not verified on this host), the history of lab runs, the latest job's state, and a button that queues a new
run as a NetBox job (it boots the switches' FRR configs on the worker's host, so it needs the permission to apply the
fabric), or points to the fabric's lab job still pending or running instead of queueing a second one. Runs and
results shown are those the user may view (object constraints included). While the job is pending or running, the
"Latest run" card asks for itself again every few seconds (htmx, as NetBox's script results) and shows the finished
run without a reload; the checks are folded by kind, a kind with a failure open."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from netbox.views import generic
from utilities.htmx import htmx_partial
from utilities.views import ViewTab, register_model_view

from netbox_aifabric.lab.jobs import FabricLabJob, request_lab
from netbox_aifabric.models import Fabric
from netbox_aifabric.models.acceptance import AcceptanceResult, AcceptanceRun, AcceptanceRunKindChoices
from netbox_aifabric.tables import AcceptanceRunTable
from netbox_aifabric.ui.acceptance_fold import group_results
from netbox_aifabric.ui.jobs import POLL_SECONDS, last_fabric_job, polled_part, polling

__all__ = ('FabricLabRunView', 'FabricLabView')

STATUS_COLORS = {'passed': 'green', 'failed': 'red', 'not-verified': 'secondary'}
STATUS_LABELS = {'passed': _('passed'), 'failed': _('failed'), 'not-verified': _('not verified here')}
HISTORY = 20  # lab runs listed under the latest
# the lab's check kinds (lab/checks.py, lab/runner.py, lab/bfd.py) as the tab's group titles
GROUPS = {
    'convergence': _('Convergence'),
    'bgp': _('BGP sessions'),
    'bfd': _('BFD sessions'),
    'route': _('Routes and ECMP'),
    'reachability': _('Loopback reachability'),
    'mtu': _('Jumbo pings (MTU)'),
    'evpn': _('EVPN type-3 routes'),
    'link': _('Links'),
    'bonding': _('Bonds'),
    'vlan': _('VLAN interfaces'),
    'vrf': _('VRFs'),
}


def check_groups(results) -> list[dict]:
    """The run's checks by kind, each group with its counts; a group with a failure is open, the rest folded."""
    counted = ngettext_lazy('%(n)d check', '%(n)d checks', 'n')
    groups = []
    for fold in group_results(results):
        parts = [f'{n} {STATUS_LABELS[state]}' for state, n in fold.counts.items() if n and state in STATUS_LABELS]
        rows = [(r, STATUS_LABELS.get(r.status, r.status), STATUS_COLORS.get(r.status, 'secondary'))
                for r in (row[0] for row in fold.rows)]  # fmt: skip
        groups.append({
            'key': slugify(fold.key), 'label': GROUPS.get(fold.key, fold.key), 'open': fold.open, 'rows': rows,
            'summary': f'{counted % {"n": len(fold.rows)}}: {", ".join(parts)}',
        })  # fmt: skip
    return groups


def latest_context(request, instance) -> dict:
    """What the "Latest run" card shows (the tab and its polled partial): the fabric's newest lab job, the newest lab
    run the user may view with its checks folded by kind, the history, whether to keep polling."""
    job = last_fabric_job(instance, FabricLabJob)
    runs = AcceptanceRun.objects.restrict(request.user, 'view')
    runs = runs.filter(fabric=instance, kind=AcceptanceRunKindChoices.LAB)
    latest = runs.first()
    groups = []
    if latest is not None:
        groups = check_groups(AcceptanceResult.objects.restrict(request.user, 'view').filter(run=latest))
    history = AcceptanceRunTable(runs.select_related('fabric', 'user')[:HISTORY], orderable=False)
    history.columns.hide('fabric')
    error = job.data.get('error') if job and isinstance(job.data, dict) else None
    return {
        'object': instance,
        'last_job': job,
        'job_error': error,
        'polling': polling(job),
        'poll_seconds': POLL_SECONDS,
        'latest': latest,
        'groups': groups,
        'history': history if latest is not None else None,
        'can_run': request.user.has_perm('netbox_aifabric.apply_fabric', instance),
    }


@register_model_view(Fabric, 'lab', path='lab')
class FabricLabView(generic.ObjectView):
    """The tab; asked by htmx (its "Latest run" card polling while the lab job is pending or running), the card
    alone, through the same view and so the same permission: the fabric's view permission with its constraints, a
    fabric the user may not view is a 404. Polling stops (htmx's 286) once the job has finished."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_lab.html'
    tab = ViewTab(label=_('Lab'), weight=545, permission='netbox_aifabric.view_fabric')

    def get(self, request, **kwargs):
        if not htmx_partial(request):
            return super().get(request, **kwargs)
        return polled_part(
            request, 'netbox_aifabric/inc/lab_latest.html', latest_context(request, self.get_object(**kwargs))
        )

    def get_extra_context(self, request, instance):
        return latest_context(request, instance)


@register_model_view(Fabric, 'lab_run', path='lab/run')
class FabricLabRunView(generic.ObjectView):
    """POST: queue a lab run (the fabric's apply permission, object constraints included: the queryset is restricted
    to the fabrics the user may apply), or point to the one not finished yet (``request_lab``)."""

    queryset = Fabric.objects.all()

    def get_required_permission(self):
        return 'netbox_aifabric.apply_fabric'

    def get(self, request, **kwargs):
        return redirect('plugins:netbox_aifabric:fabric_lab', **kwargs)

    def post(self, request, **kwargs):
        fabric = self.get_object(**kwargs)
        queued = request_lab(fabric, request.user)
        if queued.reused:
            message = _('A lab run of this fabric is already {status}: <a href="{url}">job {id}</a>.')
        else:
            message = _('The lab runs in the background: <a href="{url}">job {id}</a>.')
        job = queued.job
        # the job link and status are built here, not from user input
        text = message.format(url=job.get_absolute_url(), id=job.pk, status=job.get_status_display().lower())
        messages.info(request, mark_safe(text))
        return redirect('plugins:netbox_aifabric:fabric_lab', pk=fabric.pk)
