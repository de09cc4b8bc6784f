from django.core.management.base import BaseCommand

from netbox_aifabric.seed import load_demo


class Command(BaseCommand):
    help = "Load the demo: the guide's site, traffic classes, QoS presets, an EVPN tenant and a draft fabric"

    def add_arguments(self, parser):
        parser.add_argument('--force', action='store_true', help='Reset locally edited demo objects')

    def handle(self, *args, force=False, **options):
        report = load_demo(force)
        self.stdout.write(str(report))
