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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeat', type=int, default=5, help='counted requests per page (best time reported)')
    parser.add_argument('--size', default='M', choices=('M', 'L'))
    args = parser.parse_args()
    setup_django()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from netbox_aifabric.apply.seed import load_demo
    from netbox_aifabric.ui.pages import fabric_pages

    database = settings.DATABASES['default']['NAME']
    if database in shared_databases():
        raise SystemExit(f'{database} is shared (dev server or tests): give the benchmark a database of its own.')
    load_demo()
    fabric = fabric_row(args.size)
    how = applied(fabric)
    devices = fabric.owned_objects.filter(object_type__model='device').count()
    print(f'== Fabric {fabric.slug} ({args.size}: {devices} devices, {how}); {load()}; DEBUG={settings.DEBUG} ==')
    user = get_user_model().objects.filter(username='aifabric-bench-pages').first()
    if user is None:
        user = get_user_model().objects.create_superuser('aifabric-bench-pages', 'bench@example.com', None)
    client = Client(HTTP_HOST='localhost')
    client.force_login(user)
    rows = []
    for name, url in fabric_pages(fabric):
        queries, seconds, size, _response = measure(client, url, repeat=args.repeat)
        rows.append((name, url, queries, f'{seconds * 1e3:.0f} ms', f'{size / 1024:.0f} KiB'))
    print(table(('page', 'URL', 'SQL queries', f'time (best of {args.repeat})', 'response'), rows, right=(2, 3, 4)))
    print(load())


if __name__ == '__main__':
    main()
