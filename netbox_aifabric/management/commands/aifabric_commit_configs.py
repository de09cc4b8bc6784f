from django.core.management.base import BaseCommand, CommandError

from netbox_aifabric.models import Fabric
from netbox_aifabric.render.config_commit import commit_fabric_configs
from netbox_aifabric.render.git_store import GitStoreError
from netbox_aifabric.render.jobs import request_commit


class Command(BaseCommand):
    help = (
        "Render every switch of a fabric and commit the configs into the fabric's Git repository (its config "
        'repository and branch), one file per device under <fabric slug>/; prints the new commit, or "nothing '
        'changed". Devices that do not render are listed and have no file.'
    )

    def add_arguments(self, parser):
        parser.add_argument('fabric', help="The fabric's slug or name")
        parser.add_argument(
            '--background',
            action='store_true',
            help='Queue it as a NetBox job (the RQ worker commits) and print the job',
        )

    def handle(self, *args, fabric, background=False, **options):
        found = Fabric.objects.filter(slug=fabric).first() or Fabric.objects.filter(name=fabric).first()
        if found is None:
            raise CommandError(f'No fabric with the slug or name {fabric!r}.')
        if not found.config_repository:
            raise CommandError(f'{found} has no config repository: set its "config repository" first.')
        if background:
            job, reused = request_commit(found)
            self.stdout.write(f'{found}: {"already queued" if reused else "queued"} as job {job.pk} ({job.job_id})')
            return
        try:
            outcome = commit_fabric_configs(found)
        except GitStoreError as e:
            raise CommandError(str(e)) from e
        for device, error in outcome.failed.items():
            self.stderr.write(f'{device} did not render, so it has no file: {error}')
        where = f'{outcome.repository} ({outcome.branch})'
        if outcome.commit is None:
            self.stdout.write(f'{found}: nothing changed in {where}, {len(outcome.files)} file(s)')
        else:
            self.stdout.write(outcome.commit)
            self.stdout.write(
                f'{found}: committed to {where}: {len(outcome.changed)} of {len(outcome.files)} file(s) changed'
            )
