import json as jsonlib

from django.core.management.base import BaseCommand, CommandError

from netbox_aifabric.acceptance.store import store_lab_run
from netbox_aifabric.lab import FAILED, LabUnavailable, run_lab
from netbox_aifabric.lab.fabric import lab_inputs
from netbox_aifabric.models import Fabric

MARK = {'passed': 'PASS', 'failed': 'FAIL', 'not-verified-here': 'N/V '}


class Command(BaseCommand):
    help = (
        "Boot a fabric's rendered FRR configs in Linux network namespaces (one per switch, veth pairs as cabled), "
        'wait for convergence, check sessions, routes, ECMP, jumbo pings and EVPN type-3 routes, and tear it all '
        'down. Stores the result as an acceptance run of kind lab (unless --no-store). Needs root and FRR. Exits '
        'non-zero when a check fails.'
    )

    def add_arguments(self, parser):
        parser.add_argument('fabric', help="The fabric's slug or name")
        parser.add_argument('--keep', action='store_true', help='Leave the namespaces and daemons running')
        parser.add_argument('--json', action='store_true', help='Print the result as JSON')
        parser.add_argument('--timeout', type=float, default=60.0, help='Seconds to wait for convergence (60)')
        parser.add_argument(
            '--no-store', action='store_true', help='Do not store the result as an acceptance run of kind lab'
        )

    def handle(self, *args, fabric, keep=False, json=False, timeout=60.0, no_store=False, **options):
        found = Fabric.objects.filter(slug=fabric).first() or Fabric.objects.filter(name=fabric).first()
        if found is None:
            raise CommandError(f'No fabric with the slug or name {fabric!r}.')
        contexts, configs = lab_inputs(found)
        if not configs:
            raise CommandError(f'{found}: no switch has an aifabric config context (apply the fabric first).')
        try:
            result = run_lab(contexts, configs, keep=keep, timeout=timeout)
        except LabUnavailable as e:
            raise CommandError(f'The lab cannot run here: {e}') from e
        # as the Job and the REST action: the run is kept as an acceptance run of kind lab (no user: a command's
        # change-log entry needs a request user, so none is written; the run itself is the record)
        run = None if no_store else store_lab_run(found, None, {**result.as_dict(), 'log': result.log})
        if json:
            self.stdout.write(_json({**result.as_dict(), 'acceptance_run': run.pk if run else None}))
        else:
            for check in result.checks:
                self.stdout.write(f'{MARK[check.status]} {check.name}: expected {check.expected}; seen {check.seen}')
            counts = result.counts()
            convergence = f'{result.convergence_seconds:.2f} s' if result.converged else 'no'
            self.stdout.write(
                f'{found}: {len(configs)} switches, {counts["passed"]} passed, {counts["failed"]} failed, '
                f'{counts["not-verified-here"]} not verified here; converged: {convergence}; {result.seconds:.1f} s'
            )
            if run:
                self.stdout.write(f'Stored as acceptance run {run.pk} ({run.status}): {run.get_absolute_url()}')
            if keep:
                self.stdout.write(
                    f'Kept: namespaces {", ".join(result.namespaces.values())}; files in {result.run_dir}'
                )
                first, ns = next(iter(result.namespaces.items()))
                folder = f'{result.run_dir}/{first}'
                self.stdout.write(
                    f'  e.g. ip netns exec {ns} vtysh --config_dir {folder} --vty_socket {folder}  ({first}); '
                    'the next lab run removes them'
                )
        failed = [c.name for c in result.checks if c.status == FAILED]
        if failed:
            raise CommandError(f'{len(failed)} check(s) failed: {"; ".join(failed)}')


def _json(data):
    return jsonlib.dumps(data, indent=2)
