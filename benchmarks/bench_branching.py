r"""The demo fabric's apply in a NetBox Branching branch against the same apply in main, and Branching's merge and
revert of it, in one run (docs/benchmarks.md "Apply in a NetBox Branching branch").

Needs NetBox Branching enabled on a database of its own (single use: the run leaves main applied), e.g.::

    psql -U postgres -h localhost \
        -c "CREATE DATABASE aifabric_bench_branching TEMPLATE aifabric_core_4_7_3 OWNER netbox"
    cat > .dev/aifabric_bench_branching.py <<'EOF'
    from aifabric_test_branching import *  # noqa: F403
    DATABASES = DynamicSchemaDict(dev_databases('aifabric_bench_branching'))  # noqa: F405
    EOF
    PYTHONPATH=.dev NETBOX_CONFIGURATION=aifabric_bench_branching .venv/bin/netbox migrate
    NETBOX_CONFIGURATION=aifabric_bench_branching .venv/bin/python benchmarks/bench_branching.py

Steps, each timed (wall seconds, the machine's load printed beside): the demo loaded; a branch provisioned
(Branching's own copy of main's tables); the demo fabric applied in the branch (``request_apply`` under a request of a
superuser, as the REST apply: the per-object path) with the change records it wrote; the branch merged; the merge
reverted; the fabric applied in main with one save() per object (the path a branch takes, rolled back) and with the
bulk writer, with its change records.
"""

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup_django():
    sys.path.append(str(ROOT / '.dev'))
    os.environ.setdefault('NETBOX_ROOT', str(ROOT / '.dev'))
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'netbox.settings')
    if os.environ.get('NETBOX_CONFIGURATION', '').startswith(('aifabric_dev', 'aifabric_test')):
        sys.exit('bench_branching.py: a configuration of its own, not the dev or test one (see its docstring)')
    import django

    django.setup()


def load():
    return 'load average ' + ' '.join(f'{x:.2f}' for x in os.getloadavg())


def timed(label, func):
    start = time.perf_counter()
    result = func()
    print(f'{label:<34} {time.perf_counter() - start:8.2f} s   ({load()})', flush=True)
    return result


def main() -> int:
    setup_django()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from netbox_branching.models import Branch
    from netbox_branching.utilities import activate_branch

    from core.models import ObjectChange

    from netbox_aifabric.apply.request import as_request_of
    from netbox_aifabric.apply.seed import load_demo
    from netbox_aifabric.apply.service import request_apply
    from netbox_aifabric.apply.writes import apply_fabric
    from netbox_aifabric.models import Fabric

    if 'netbox_branching' not in settings.PLUGINS:
        sys.exit('bench_branching.py: NetBox Branching is not enabled in this configuration')
    timed('demo loaded', load_demo)
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    if fabric.owned_objects.exists():
        sys.exit('bench_branching.py: the demo fabric is applied already: use a fresh database (single use)')
    user = get_user_model().objects.filter(username='bench-branching').first()
    user = user or get_user_model().objects.create_superuser('bench-branching', 'bench@example.invalid', None)

    branch = Branch(name=f'bench-{int(time.time())}')
    branch.save(provision=False)
    timed('branch provisioned', lambda: branch.provision(user))
    branch.refresh_from_db()

    def apply_in_branch():
        with activate_branch(branch), as_request_of(user):
            return request_apply(Fabric.objects.get(pk=fabric.pk), user)

    timed('apply in the branch (per object)', apply_in_branch)
    in_branch = ObjectChange.objects.using(branch.connection_name).count()
    before = ObjectChange.objects.count()
    timed('merge', lambda: branch.merge(user))
    branch.refresh_from_db()
    timed('revert', lambda: branch.revert(user))

    class RolledBack(Exception):
        pass

    def per_object_in_main():  # the same path as in the branch, without Branching: rolled back afterwards
        try:
            with transaction.atomic(), as_request_of(user):
                apply_fabric(Fabric.objects.get(pk=fabric.pk), user=user, per_object=True)
                raise RolledBack
        except RolledBack:
            pass

    timed('apply in main, per object (undone)', per_object_in_main)

    def apply_in_main():
        with as_request_of(user):
            return request_apply(Fabric.objects.get(pk=fabric.pk), user)

    replayed = ObjectChange.objects.count() - before
    start = ObjectChange.objects.order_by('-pk').values_list('pk', flat=True).first() or 0
    timed('apply in main (bulk writer)', apply_in_main)
    in_main = ObjectChange.objects.filter(pk__gt=start).count()
    print(f'change records: {in_branch} written in the branch, {replayed} by the merge and the revert in main,')
    print(f'{in_main} by the apply in main')
    branch.refresh_from_db()
    branch.deprovision()
    return 0


if __name__ == '__main__':
    sys.exit(main())
