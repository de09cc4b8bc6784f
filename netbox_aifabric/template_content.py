from django.contrib.contenttypes.models import ContentType

from netbox.plugins import PluginTemplateExtension

from netbox_aifabric.apply.jobs import ApplyFabricJob, job_progress
from netbox_aifabric.models import ComplianceFinding, ComplianceRun, FabricNode, OwnedObject

__all__ = ('DeviceCompliancePanel', 'DeviceFabricPanel', 'FabricButtons', 'JobProgressPanel', 'template_extensions')


class DeviceFabricPanel(PluginTemplateExtension):
    """On a device's page: the fabric that created (owns) the device."""

    models = ['dcim.device']

    def right_page(self):
        device = self.context['object']
        owned = (
            OwnedObject.objects.filter(object_type=ContentType.objects.get_for_model(device), object_id=device.pk)
            .select_related('fabric', 'fabric__site')
            .first()
        )
        node = FabricNode.objects.filter(device=device).select_related('fabric').first()
        if node is None and owned is not None:
            node = FabricNode.objects.filter(fabric=owned.fabric, name=device.name).first()
        fabric = node.fabric if node is not None else owned.fabric if owned is not None else None
        if fabric is None:
            return ''
        return self.render(
            'netbox_aifabric/inc/device_fabric_panel.html', extra_context={'fabric': fabric, 'node': node}
        )


class FabricButtons(PluginTemplateExtension):
    """On a fabric's page: adopt existing devices (brownfield)."""

    models = ['netbox_aifabric.fabric']

    def buttons(self):
        if not self.context['request'].user.has_perm('netbox_aifabric.change_fabric'):
            return ''
        return self.render('netbox_aifabric/inc/fabric_buttons.html')


class JobProgressPanel(PluginTemplateExtension):
    """On the page of a background apply job: how far the apply has got (objects written of all to write)."""

    models = ['core.job']

    def right_page(self):
        job = self.context['object']
        if job.name != ApplyFabricJob.Meta.name:
            return ''
        progress = job_progress(job.pk)
        if progress is None:
            return ''
        return self.render('netbox_aifabric/inc/job_progress.html', extra_context={'progress': progress})


class DeviceCompliancePanel(PluginTemplateExtension):
    """On a device's page: the device's findings in the latest compliance run of the fabric that owns it (as far as
    the user may view runs and findings)."""

    models = ['dcim.device']

    def right_page(self):
        device, user = self.context['object'], self.context['request'].user
        if not user.has_perm('netbox_aifabric.view_compliancerun'):
            return ''
        owned = OwnedObject.objects.filter(
            object_type=ContentType.objects.get_for_model(device), object_id=device.pk
        ).first()
        if owned is None:
            return ''
        run = (
            ComplianceRun.objects.restrict(user, 'view')
            .filter(fabric_id=owned.fabric_id)
            .select_related('fabric')
            .order_by('-created', '-pk')
            .first()
        )
        findings = []
        if run is not None and user.has_perm('netbox_aifabric.view_compliancefinding'):
            findings = list(
                ComplianceFinding.objects.restrict(user, 'view').filter(run=run, device_ids__contains=[device.pk])
            )
        return self.render(
            'netbox_aifabric/inc/device_compliance_panel.html',
            extra_context={'run': run, 'findings': findings, 'fabric_id': owned.fabric_id},
        )


template_extensions = [DeviceFabricPanel, DeviceCompliancePanel, FabricButtons, JobProgressPanel]
