"""Page budgets: SQL queries and server time of the fabric's detail page and of each of its tabs, for the M fabric.

    PYTHONPATH=/tmp/pagescfg NETBOX_CONFIGURATION=aifabric_pages .venv/bin/python benchmarks/bench_pages.py

A benchmark, not a test: it needs a database of its own (it loads the demo and creates and applies a fabric shaped
like ``examples/size-m.yaml``: 4 spines, 16 leaves, 128 GPU servers, EVPN/VXLAN; the first apply takes one to three
minutes, later runs re-use it), refuses the development server's and the tests' databases, and requests each page
in-process with Django's test client as a superuser: once to warm up, then ``--repeat`` times, reporting the SQL
query count (every count seen) and the best time. The pages are the fabric's detail page and every tab registered on
the Fabric model (``netbox_aifabric.ui.pages.fabric_pages``), the same list the query-count test holds for the demo
fabric (``tests/integration/test_page_budgets.py``). See docs/benchmarks.md, *Page budgets*.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))
sys.path.insert(1, str(ROOT / 'benchmarks'))

from bench_planner import table  # noqa: E402
from bench_render import fabric_row, load, measure, setup_django, shared_databases  # noqa: E402


def applied(fabric):
    """Apply ``fabric`` unless it already was (its first apply is the slow part of a first run)."""
    from netbox_aifabric.apply.writes import apply_fabric
    from netbox_aifabric.models import OwnedObject

    if OwnedObject.objects.filter(fabric=fabric).exists():
        return 're-used'
    start = time.perf_counter()
    apply_fabric(fabric)
    return f'first apply {time.perf_counter() - start:.0f} s'


def stored_compliance_run(fabric):
    """A stored compliance run of ``fabric`` (the Compliance tab shows the latest), recorded once."""
    from netbox_aifabric.checks.compliance import run_compliance
    from netbox_aifabric.checks.runs import record_run
    from netbox_aifabric.models import ComplianceRun

    if not ComplianceRun.objects.filter(fabric=fabric).exists():
        record_run(fabric, run_compliance(fabric))


def hand_set_platforms(fabric):
    """Each switch of ``fabric`` its own platform carrying the demo's SONiC config template (what operators do to get
    configs rendered); returns ``restore()``, which puts the platforms back as they were and deletes the new ones."""
    from dcim.models import Device, Platform
    from extras.models import ConfigTemplate

    from netbox_aifabric.intake.plan import plan_of

    template = ConfigTemplate.objects.filter(name__icontains='sonic').order_by('pk').first()
    owned = fabric.owned_objects.filter(object_type__model='device').values('object_id')
    switches = {node.name for node in plan_of(fabric).nodes}
    devices = list(Device.objects.filter(pk__in=owned, name__in=switches))
    before = {device.pk: device.platform_id for device in devices}
    created = []
    for n, device in enumerate(devices, 1):
        platform = Platform.objects.create(name=f'bench own {n}', slug=f'bench-own-{n}', config_template=template)
        created.append(platform.pk)
        device.platform = platform
        device.save()

    def restore():
        for device in Device.objects.filter(pk__in=before):
            device.platform_id = before[device.pk]
            device.save()
        Platform.objects.filter(pk__in=created).delete()

    return len(devices), restore


def measure_pages(client, fabric, repeat, only=None):
    from netbox_aifabric.ui.pages import fabric_pages

    rows = []
    for name, url in fabric_pages(fabric):
        if only and name not in only:
            continue
        queries, seconds, size, _response = measure(client, url, repeat=repeat)
        rows.append((name, url, queries, f'{seconds * 1e3:.0f} ms', f'{size / 1024:.0f} KiB'))
    return table(('page', 'URL', 'SQL queries', f'time (best of {repeat})', 'response'), rows, right=(2, 3, 4))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeat', type=int, default=5, help='counted requests per page (best time reported)')
    parser.add_argument('--size', default='M', choices=('M', 'L'))
    parser.add_argument(
        '--platforms', action='store_true', help='then again with a hand-set platform of its own on each switch'
    )
    parser.add_argument('--pages', default='', help="comma-separated page names to measure (default: all), e.g. 'plan'")
    args = parser.parse_args()
    only = {name.strip() for name in args.pages.split(',') if name.strip()}
    setup_django()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from netbox_aifabric.apply.seed import load_demo

    database = settings.DATABASES['default']['NAME']
    if database in shared_databases():
        raise SystemExit(f'{database} is shared (dev server or tests): give the benchmark a database of its own.')
    load_demo()
    fabric = fabric_row(args.size)
    how = applied(fabric)
    stored_compliance_run(fabric)
    devices = fabric.owned_objects.filter(object_type__model='device').count()
    print(f'== Fabric {fabric.slug} ({args.size}: {devices} devices, {how}); {load()}; DEBUG={settings.DEBUG} ==')
    user = get_user_model().objects.filter(username='aifabric-bench-pages').first()
    if user is None:
        user = get_user_model().objects.create_superuser('aifabric-bench-pages', 'bench@example.com', None)
    client = Client(HTTP_HOST='localhost')
    client.force_login(user)
    print(measure_pages(client, fabric, args.repeat, only))
    print(load())
    if args.platforms:
        switches, restore = hand_set_platforms(fabric)
        try:
            print(f'\n== The same, each of the {switches} switches with a platform of its own (SONiC template) ==')
            print(measure_pages(client, fabric, args.repeat, only))
            print(load())
        finally:
            restore()


if __name__ == '__main__':
    main()
