import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from extras.models import ConfigTemplate

from netbox_aifabric.models import Fabric
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices


class Command(BaseCommand):
    help = (
        "Render every device of a fabric with its NetBox ConfigTemplate (the device's, its role's or its platform's; "
        'each template compiled once) and write one file per device, <device>.<extension>, into a folder'
    )

    def add_arguments(self, parser):
        parser.add_argument('fabric', help="The fabric's slug or name")
        parser.add_argument('--output', '-o', default='.', help='Folder for the files (created; default: here)')
        parser.add_argument('--template', help='Render every device with this ConfigTemplate (name or ID)')

    def handle(self, *args, fabric, output, template=None, **options):
        found = Fabric.objects.filter(slug=fabric).first() or Fabric.objects.filter(name=fabric).first()
        if found is None:
            raise CommandError(f'No fabric with the slug or name {fabric!r}.')
        override = None
        if template:
            lookup = {'pk': int(template)} if template.isdigit() else {'name': template}
            override = ConfigTemplate.objects.filter(**lookup).first()
            if override is None:
                raise CommandError(f'No config template {template!r}.')
        start = time.perf_counter()
        renderer = ConfigRenderer(config_template=override)
        configs = renderer.render_all(fabric_devices(found))
        seconds = time.perf_counter() - start
        folder = Path(output)
        folder.mkdir(parents=True, exist_ok=True)
        failed = []
        for config in configs:
            if config.rendered:
                (folder / config.filename).write_text(config.content, encoding='utf-8')
                self.stdout.write(f'{folder / config.filename}')
            elif config.error is not None:
                failed.append(config)
                self.stderr.write(f'{config.device}: {config.error}')
        written = sum(1 for c in configs if c.rendered)
        skipped = sum(1 for c in configs if c.config_template is None)
        self.stdout.write(
            f'{found}: {written} configuration(s) written to {folder} in {seconds * 1000:.0f} ms '
            f'({renderer.templates} config template(s), {renderer.compiled} compiled); '
            f'{skipped} device(s) without a config template' + (f'; {len(failed)} failed' if failed else '')
        )
        if failed:
            raise CommandError(f'{len(failed)} device(s) failed to render: {", ".join(str(c.device) for c in failed)}')
