"""The fabric's Compliance tab: every rule's result by family, with severity, findings linked to their objects and
change-log entries; and a button that runs the same checks as a NetBox job."""

from django.shortcuts import redirect
from django.utils.translation import gettext_lazy as _

from netbox.views import generic
from utilities.views import ViewTab, register_model_view

from .checks.compliance import run_compliance
from .checks.job import ComplianceJob
from .models import Fabric
from .ui.jobs import last_fabric_job, queue_fabric_job

__all__ = ('FabricComplianceRunView', 'FabricComplianceView')

STATUS_COLORS = {'pass': 'green', 'fail': 'red', 'skip': 'secondary', 'error': 'orange'}
SEVERITY_COLORS = {'error': 'red', 'warning': 'orange', 'info': 'blue'}


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
        families = [
            (
                label,
                [
                    {
                        'result': r,
                        'rule': r.rule,
                        'status_color': STATUS_COLORS[r.status],
                        'severity_color': SEVERITY_COLORS[r.rule.severity],
                    }
                    for r in results
                ],
            )
            for _family, label, results in result.by_family()
        ]
        return {'compliance': result, 'counts': result.counts, 'families': families, 'last_job': last_job(instance)}


@register_model_view(Fabric, 'compliance_run', path='compliance/run')
class FabricComplianceRunView(generic.ObjectView):
    """POST: run the checks as a NetBox job (view permission on the fabric; the job records the user)."""

    queryset = Fabric.objects.all()

    def get(self, request, **kwargs):
        return redirect('plugins:netbox_aifabric:fabric_compliance', **kwargs)

    def post(self, request, **kwargs):
        message = _('The compliance checks run in the background: <a href="{url}">job {id}</a>.')
        return queue_fabric_job(request, ComplianceJob, self.get_object(**kwargs), message, 'compliance')
