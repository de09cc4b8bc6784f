"""Compliance benchmark: a full compliance run (every rule, with the switches' configs rendered) of fabric S and M.

    .venv/bin/python benchmarks/bench_compliance.py                    # S and M, best of 3
    .venv/bin/python benchmarks/bench_compliance.py --profile m.prof   # and where M's time goes

Runs inside a NetBox process like ``bench_apply.py`` (its fabrics: ``bench-s``, the guide's cluster, and ``bench-m``,
the shape of ``examples/size-m.yaml``: 4 spines, 16 leaves, 128 GPU servers, EVPN/VXLAN), applied first when they are
not, with the shipped config templates loaded and the fabrics' switches on SONiC, so the Automation rules render
every switch. Then it times ``run_compliance`` (the facts gathered, every rule, the findings linked) best of
``--repeat``, with the seconds and SQL queries of each step, and prints the machine's load (the cores are shared).
Nothing is deleted (``bench_apply.py`` without ``--keep`` deletes the applied objects).
"""

import argparse
import cProfile
import pstats
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_apply  # noqa: E402  (its fabrics and its NetBox bootstrap)

TARGET_SECONDS = 10.0


def prepare(slugs):
    """The fabrics, applied once, their switches on SONiC with the shipped templates."""
    from django.contrib.auth import get_user_model

    from dcim.models import Platform

    from netbox_aifabric.apply.seed import load_config_templates
    from netbox_aifabric.models import Fabric, OwnedObject

    load_config_templates()
    user = get_user_model().objects.filter(is_superuser=True, is_active=True).order_by('pk').first()
    if user is None:  # a fresh database: the apply's change log needs a user
        user = get_user_model().objects.create_user('bench', is_superuser=True)
    sonic = Platform.objects.get(slug='sonic')
    fabrics = bench_apply.ensure_fabrics()
    for slug in slugs:
        Fabric.objects.filter(slug=slug).update(platform=sonic)
        if not OwnedObject.objects.filter(fabric=fabrics[slug]).exists():
            seconds, _queries, _changes = bench_apply.apply_in_process(slug, user)
            print(f'{slug}: applied in {seconds:.1f} s', flush=True)
    return {slug: Fabric.objects.get(slug=slug) for slug in slugs}


def one_run(fabric, profiler=None):
    """``(seconds, {step: seconds}, {step: queries}, result)`` of one ``run_compliance``."""
    from django.db import connection

    from netbox_aifabric.checks.compliance import run_compliance

    seconds, queries = Counter(), Counter()
    current = []

    def counter(execute, sql, params, many, context):
        if current:
            queries[current[-1]] += 1
        return execute(sql, params, many, context)

    @contextmanager
    def step(name):
        current.append(name)
        start = time.perf_counter()
        try:
            yield
        finally:
            seconds[name] += time.perf_counter() - start
            current.pop()

    with connection.execute_wrapper(counter):
        if profiler is not None:
            profiler.enable()
        start = time.perf_counter()
        result = run_compliance(fabric, step=step)
        total = time.perf_counter() - start
        if profiler is not None:
            profiler.disable()
    return total, dict(seconds), dict(queries), result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--profile', help='write a cProfile of one M run to this file and print its top')
    args = parser.parse_args(argv)
    bench_apply.setup_django()
    print(bench_apply.load(), flush=True)
    fabrics = prepare(['bench-s', 'bench-m'])
    for slug, fabric in fabrics.items():
        one_run(fabric)  # warm: imports, template compiles, content types
        runs = [one_run(fabric) for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r[0])
        total, seconds, queries, result = best
        counts = result.counts
        verdict = 'met' if total < TARGET_SECONDS else 'NOT met'
        print(
            f'{slug}: best {total:.2f} s of {[round(r[0], 2) for r in runs]} '
            f'(target < {TARGET_SECONDS:g} s: {verdict}); '
            f'{counts["rules"]} rules, {counts["pass"]} pass, {counts["fail"]} fail, {counts["skip"]} skip, '
            f'{counts["findings"]} findings; {bench_apply.load()}'
        )
        for name in seconds:
            print(f'    {name:<11} {seconds[name]:7.3f} s  {queries.get(name, 0):5d} queries')
    if args.profile:
        profiler = cProfile.Profile()
        one_run(fabrics['bench-m'], profiler)
        profiler.dump_stats(args.profile)
        pstats.Stats(profiler).sort_stats('cumulative').print_stats(25)
    return 0


if __name__ == '__main__':
    sys.exit(main())
