from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from netbox_aifabric.apply.diff import summarize
from netbox_aifabric.apply.lifecycle import after_apply
from netbox_aifabric.apply.seed import demo_hardware, load_config_templates, load_demo, load_device_types
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks.runs import run_and_record
from netbox_aifabric.facts.nos import HOST_TEMPLATES, NOS_REGISTRY
from netbox_aifabric.models import Fabric
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices

NOS = [t.platform_slug for t in NOS_REGISTRY]


class Command(BaseCommand):
    help = (
        "Load the demo: the guide's site, traffic classes, QoS presets, an EVPN tenant and a draft fabric; the "
        'shipped config templates and switch device types; the demo fabric gets a NOS (its switch platform) and the '
        "NOS's shipped leaf and spine device types unless it has its own, so its switches render right after an "
        'apply; with --apply the fabric is applied (when not yet), its switches rendered and, without one, a '
        'compliance run stored'
    )

    def add_arguments(self, parser):
        parser.add_argument('--force', action='store_true', help='Reset locally edited demo objects')
        parser.add_argument(
            '--nos', default='sonic', help=f'The demo fabric\'s NOS: {", ".join(NOS)}, or "none" (default: sonic)'
        )
        parser.add_argument(
            '--apply',
            action='store_true',
            help='Apply the demo fabric (unless applied already) and render its switches',
        )

    def handle(self, *args, force=False, nos='sonic', apply=False, **options):
        if nos not in (*NOS, 'none'):
            raise CommandError(f'--nos {nos}: choose one of {", ".join(NOS)} or none')
        with transaction.atomic():
            report = load_demo(force)
            report.merge(load_config_templates())
            self.stdout.write(str(report))
            self.stdout.write(str(load_device_types()))
            fabric = Fabric.objects.get(slug='ai-lab-fabric')
            for line in demo_hardware(fabric, nos) if nos != 'none' else ():
                self.stdout.write(line)
        if apply:
            self._apply(Fabric.objects.get(pk=fabric.pk))

    def _apply(self, fabric):
        if fabric.last_applied is None:
            with transaction.atomic():  # as the service's apply: the objects, then the fabric's apply record
                plan, changes = apply_fabric(fabric)
                after_apply(fabric, plan, None, changes)
            created = sum(actions.get('create', 0) for actions in summarize(changes).values())
            self.stdout.write(f'demo fabric: applied, {created} objects created')
        configs = ConfigRenderer().render_all(fabric_devices(fabric))
        hosts = {entry.template_name for entry in HOST_TEMPLATES}
        templated = [c for c in configs if c.config_template is not None]
        switches = [c for c in templated if c.config_template.name not in hosts]
        servers = [c for c in templated if c.config_template.name in hosts]
        failed = [c for c in templated if not c.rendered]
        self.stdout.write(
            f'demo fabric: {sum(c.rendered for c in switches)} of {fabric.spine_count + fabric.leaf_count} switches '
            f'rendered ({", ".join(sorted({str(c.config_template) for c in switches})) or "no config template"}); '
            f'{sum(c.rendered for c in servers)} servers rendered (host config)'
        )
        if failed:
            raise CommandError(f'{len(failed)} device(s) failed to render: {", ".join(str(c.device) for c in failed)}')
        if not fabric.compliance_runs.exists():  # the Compliance tab shows the latest stored run: the demo has one
            _result, run = run_and_record(fabric)
            self.stdout.write(
                f'demo fabric: compliance run stored ({run.passed} of {run.rules} rules passed, score {run.score})'
            )
