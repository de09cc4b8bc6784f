"""The running-config comparison per NOS (``checks.config_diff.compare_config``): the guide's EVPN/VXLAN leaf rendered
for each NOS, compared with itself (every line parsed, normalised and matched; no finding), median of ``--repeat``.

    .venv/bin/python benchmarks/bench_config_compare.py [--repeat 20]

Pure (no database): the renders come from ``tests.render_fixtures`` and the shipped templates, in NetBox's Jinja
environment as ``render-config`` renders them: what the Compliance tab adds per switch with a backup.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup():
    sys.path[:0] = [str(ROOT), str(ROOT / '.dev')]
    os.environ.setdefault('NETBOX_CONFIGURATION', 'aifabric_test')
    os.environ.setdefault('NETBOX_ROOT', str(ROOT / '.dev'))
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'netbox.settings')
    import django

    django.setup()
    from django.core.cache import cache  # render_jinja2 reads NetBox's configuration from its cache

    cache.add('config', {}, None)
    cache.add('config_version', None, None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=20)
    args = parser.parse_args()
    setup()
    from netbox_aifabric.checks.config_diff import compare_config
    from netbox_aifabric.facts.nos import NOS_REGISTRY
    from tests.render_fixtures import guide_contexts
    from tests.unit.templates.helpers import render

    context = guide_contexts('evpn-vxlan')['leaf1']
    for nos in NOS_REGISTRY:
        text = render(nos.template, context)
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            assert compare_config(nos.key, text, text).compliant
            runs.append(time.perf_counter() - start)
        print(f'{nos.key:6} {len(text.encode()):7,} bytes  median {statistics.median(runs) * 1000:6.1f} ms')


if __name__ == '__main__':
    main()
