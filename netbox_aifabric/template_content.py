from django.contrib.contenttypes.models import ContentType

from netbox.plugins import PluginTemplateExtension

from .models import OwnedObject

__all__ = ('DeviceFabricPanel', 'template_extensions')


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
        if owned is None:
            return ''
        return self.render('netbox_aifabric/inc/device_fabric_panel.html', extra_context={'owned': owned})


template_extensions = [DeviceFabricPanel]
