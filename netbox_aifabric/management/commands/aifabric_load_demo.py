from django.core.management.base import BaseCommand, CommandError

from dcim.models import Platform

from netbox_aifabric.models import Fabric
from netbox_aifabric.seed import DEVICE_TEMPLATES, load_config_templates, load_demo, load_device_types

NOS = [t.platform_slug for t in DEVICE_TEMPLATES]


class Command(BaseCommand):
    help = (
        "Load the demo: the guide's site, traffic classes, QoS presets, an EVPN tenant and a draft fabric; the "
        'shipped config templates and switch device types; the demo fabric gets a NOS (its switch platform) unless '
        'it has one, so its switches render right after an apply'
    )

    def add_arguments(self, parser):
        parser.add_argument('--force', action='store_true', help='Reset locally edited demo objects')
        parser.add_argument(
            '--nos', default='sonic', help=f'The demo fabric\'s NOS: {", ".join(NOS)}, or "none" (default: sonic)'
        )

    def handle(self, *args, force=False, nos='sonic', **options):
        if nos not in (*NOS, 'none'):
            raise CommandError(f'--nos {nos}: choose one of {", ".join(NOS)} or none')
        report = load_demo(force)
        report.merge(load_config_templates())
        self.stdout.write(str(report))
        self.stdout.write(str(load_device_types()))
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        if nos != 'none' and fabric.platform is None:
            fabric.snapshot()
            fabric.platform = Platform.objects.get(slug=nos)
            fabric.full_clean()
            fabric.save()
            self.stdout.write(f'demo fabric: switch platform {fabric.platform}')
