from django.core.management.base import BaseCommand

from netbox_aifabric.apply.seed import load_device_types


class Command(BaseCommand):
    help = (
        "Load the shipped leaf and spine device types (data/device_types/*.yaml, the NetBox device-type library's "
        'format): manufacturers, device types and their interface templates (idempotent)'
    )

    def add_arguments(self, parser):
        parser.add_argument(
            '--force', action='store_true', help='Reset locally edited device types to the shipped ones'
        )

    def handle(self, *args, force=False, **options):
        self.stdout.write(str(load_device_types(force=force)))
