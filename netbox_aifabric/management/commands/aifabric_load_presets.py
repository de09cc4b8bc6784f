from django.core.management.base import BaseCommand

from netbox_aifabric.apply.seed import load_qos_presets, load_traffic_classes


class Command(BaseCommand):
    help = "Load the shipped RoCE QoS presets and the guide's five traffic classes (idempotent)"

    def add_arguments(self, parser):
        parser.add_argument('--force', action='store_true', help='Reset locally edited presets to the shipped values')

    def handle(self, *args, force=False, **options):
        report = load_qos_presets(force).merge(load_traffic_classes(force))
        self.stdout.write(str(report))
