"""The fabric's Lab tab: the latest stored lab run (an acceptance run of kind lab: each check with expected and seen,
what is not verified on this host), the history of lab runs, the latest job's state, and a button that queues a new
run as a NetBox job (it boots the switches' FRR configs on the worker's host, so it needs the permission to apply the
fabric), or points to the fabric's lab job still pending or running instead of queueing a second one. Runs and
results shown are those the user may view (object constraints included)."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from netbox.views import generic
from utilities.views import ViewTab, register_model_view

from netbox_aifabric.lab.jobs import FabricLabJob, request_lab
from netbox_aifabric.models import Fabric
from netbox_aifabric.models.acceptance import AcceptanceResult, AcceptanceRun, AcceptanceRunKindChoices
from netbox_aifabric.tables import AcceptanceRunTable
from netbox_aifabric.ui.jobs import last_fabric_job

__all__ = ('FabricLabRunView', 'FabricLabView')

STATUS_COLORS = {'passed': 'green', 'failed': 'red', 'not-verified': 'secondary'}
HISTORY = 20  # lab runs listed under the latest


@register_model_view(Fabric, 'lab', path='lab')
class FabricLabView(generic.ObjectView):
    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_lab.html'
    tab = ViewTab(label=_('Lab'), weight=545, permission='netbox_aifabric.view_fabric')

    def get_extra_context(self, request, instance):
        job = last_fabric_job(instance, FabricLabJob)
        runs = AcceptanceRun.objects.restrict(request.user, 'view').filter(
            fabric=instance, kind=AcceptanceRunKindChoices.LAB
        )
        latest = runs.first()
        checks = []
        if latest is not None:
            results = AcceptanceResult.objects.restrict(request.user, 'view').filter(run=latest)
            checks = [(r, STATUS_COLORS.get(r.status, 'secondary')) for r in results]
        history = AcceptanceRunTable(runs.select_related('fabric', 'user')[:HISTORY], orderable=False)
        history.columns.hide('fabric')
        error = job.data.get('error') if job and isinstance(job.data, dict) else None
        return {
            'last_job': job,
            'job_error': error,
            'latest': latest,
            'checks': checks,
            'history': history if latest is not None else None,
            'can_run': request.user.has_perm('netbox_aifabric.apply_fabric', instance),
        }


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
