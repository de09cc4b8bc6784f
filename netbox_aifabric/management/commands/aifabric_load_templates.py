from django.core.management.base import BaseCommand

from netbox_aifabric.apply.seed import load_config_templates


class Command(BaseCommand):
    help = (
        'Load the shipped device-config templates (SONiC, NVIDIA Cumulus NVUE, Arista EOS, FRR) as NetBox '
        'ConfigTemplates and create one platform per NOS using its template (idempotent)'
    )

    def add_arguments(self, parser):
        parser.add_argument('--force', action='store_true', help='Reset locally edited templates to the shipped ones')
        parser.add_argument('--no-platforms', action='store_true', help='Only the ConfigTemplates, no platforms')

    def handle(self, *args, force=False, no_platforms=False, **options):
        self.stdout.write(str(load_config_templates(force=force, platforms=not no_platforms)))
