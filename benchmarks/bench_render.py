"""Benchmark config rendering (context + device templates) against pyavd, and the device page/API query counts.

    .venv/bin/python benchmarks/bench_render.py [--sizes M,L] [--runs N] [--no-pyavd]
    PYTHONPATH=/tmp/rendercfg NETBOX_CONFIGURATION=aifabric_render .venv/bin/python benchmarks/bench_render.py --queries

Rendering (no database): for each size (M = ``examples/size-m.yaml``, L = ``examples/size-l.yaml``) the fabric is
planned once, then, best of ``--runs``:

- ``build_contexts(plan, intent)`` for the whole fabric (every switch and server), divided by the switch count;
- every switch rendered with each shipped template (EOS, FRR, SONiC, NVUE) the way a NetBox ConfigTemplate renders
  it (``utilities.jinja2.render_jinja2``: a new sandboxed environment and a fresh compile of the template for each
  device), and with the template compiled once in the same environment and rendered per switch;
- our AVD path: ``avd_structured_config(context)`` + ``pyavd.get_device_config`` per switch;
- pyavd on the equivalent fabric (``bench_planner.avd_inputs``): ``get_avd_facts`` + ``get_device_structured_config``
  + ``get_device_config`` per switch, and what the inputs cost (``validate_inputs``, ``AVDDesign``).

It prints ms per switch and the ratios, and checks that our EOS output, our AVD path's EOS output and pyavd's EOS CLI
agree on every switch's default-VRF BGP neighbours (address and kind: underlay, MLAG peer, EVPN overlay) and on its
EVPN route distinguishers.

Query counts (``--queries``, needs a database of its own, see docs/benchmarks.md): loads the demo and applies it
(fabric S), creates and applies a fabric shaped like size M (first apply: one to a few minutes), then counts the SQL
queries of the device page, its config-context tab and ``GET /api/dcim/devices/<id>/`` (with ``config_context``) for
a leaf of each, in-process with Django's test client (warmed once, then counted). Later runs re-use the applied
fabrics.
"""

import argparse
import gc
import importlib.util
import math
import os
import re
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(1, str(ROOT))  # tests.render_fixtures (bench_planner is next to this file)

from bench_planner import SPECS, avd_inputs, best_of, machine, run_pyavd, table, validated_inputs  # noqa: E402
from sizes import SIZE_L, SIZE_M  # noqa: E402

from netbox_aifabric.planner import load_spec, plan_fabric  # noqa: E402

TEMPLATES = {
    'EOS': 'eos/eos.cfg.j2',
    'FRR': 'frr/frr.conf.j2',
    'SONiC': 'sonic/config_db.json.j2',
    'NVUE': 'cumulus/startup.yaml.j2',
}
RUNS = {'M': 3, 'L': 2}  # timed runs of our side (best counts)
PYAVD_RUNS = {'M': 2, 'L': 1}
HAVE_PYAVD = importlib.util.find_spec('pyavd') is not None  # a benchmark-only dependency: pip install -e '.[benchmark]'
DEV_CONFIGURATIONS = ('aifabric_dev', 'aifabric_test', 'aifabric_core')  # scripts/run's and scripts/test's (.dev/)
BGP = re.compile(r'^router bgp .*?(?=^\S|\Z)', re.M | re.S)  # to the next top-level line or the end
NEIGHBOR = re.compile(r'^ {3}neighbor (\d+\.\d+\.\d+\.\d+) peer group (\S+)$', re.M)
RD = re.compile(r'^ {6}rd (\S+)$', re.M)
PEER_KIND = {
    'UNDERLAY': 'underlay',
    'IPv4-UNDERLAY-PEERS': 'underlay',
    'MLAG-PEER': 'mlag',
    'MLAG-IPv4-UNDERLAY-PEER': 'mlag',
    'EVPN-OVERLAY': 'evpn',
    'EVPN-OVERLAY-PEERS': 'evpn',
}
# Fabric M for the query counts: the shape and the pools of examples/size-m.yaml, apart from the demo's
FABRIC_M = {
    'slug': 'render-m',
    'sizes': SIZE_M,
    'pools': {
        'loopback_pool': '10.0.0.0/27',
        'vtep_pool': '10.1.0.0/27',
        'mlag_peer_pool': '10.2.0.0/27',
        'p2p_pool': '10.4.0.0/25',
    },
    'spine_asn': 65000,
    'leaf_asns': (65001, 65016),
    'tenant': {'slug': 'render-m-cluster', 'name': 'Render M cluster', 'vrf': 'RENDER-M', 'l3vni': 50002},
}
# Fabric L (--db-sizes S,M,L): the shape of examples/size-l.yaml, with pools, ASNs and a tenant of its own
FABRIC_L = {
    'slug': 'render-l',
    'sizes': SIZE_L,
    'pools': {
        'loopback_pool': '10.100.0.0/25',
        'vtep_pool': '10.101.0.0/25',
        'mlag_peer_pool': '10.102.0.0/25',
        'p2p_pool': '10.104.0.0/22',
    },
    'spine_asn': 4200001000,
    'leaf_asns': (4200001001, 4200001064),
    'tenant': {'slug': 'render-l-cluster', 'name': 'Render L cluster', 'vrf': 'RENDER-L', 'l3vni': 50003},
}
DB_SHAPES = {'M': FABRIC_M, 'L': FABRIC_L}


def ms(seconds):
    return f'{seconds * 1e3:.2f}' if seconds < 0.01 else f'{seconds * 1e3:.1f}'


def ratio(slow, fast):
    return f'{slow / fast:.1f}×' if slow < 10 * fast else f'{slow / fast:.0f}×'


def load():
    return 'load average ' + ' '.join(f'{x:.2f}' for x in os.getloadavg())


def setup_django():
    """NetBox's settings for its sandboxed Jinja environment and the plugin's filters (and, with ``--queries``, the
    database). Configuration modules come from PYTHONPATH, then ``.dev/``; the render part alone reads nothing but
    NetBox's configuration, so it defaults to the test configuration."""
    sys.path.append(str(ROOT / '.dev'))
    os.environ.setdefault('NETBOX_CONFIGURATION', 'aifabric_test')
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'netbox.settings')
    import django

    django.setup()


# --- rendering ---------------------------------------------------------------------------------------------------


def intent_for(spec):
    """The guide's intent (five traffic classes, the lossless RoCE profile) with the spec's name and MTU."""
    from tests.render_fixtures import guide_intent

    intent = guide_intent(spec.design)
    intent['fabric'] = {**intent['fabric'], 'name': spec.name, 'slug': spec.name, 'mtu': spec.mtu}
    return intent


def netbox_render(code, context):
    """What ``ConfigTemplate.render`` does with a device's context: ``render_jinja2`` (new environment, compile)."""
    from utilities.jinja2 import render_jinja2

    return render_jinja2(code, {'aifabric': context}).replace('\r\n', '\n')


def compiled(code):
    """The template compiled once in the environment ``render_jinja2`` builds (NetBox's, plugin and user filters)."""
    from jinja2 import BaseLoader
    from jinja2.sandbox import SandboxedEnvironment

    from utilities.jinja2 import _jinja2_filters

    environment = SandboxedEnvironment(loader=BaseLoader())
    environment.filters.update(_jinja2_filters())
    return environment.from_string(code)


def bench_ours(size, spec, plan, runs):
    from netbox_aifabric.facts.context import build_contexts
    from netbox_aifabric.render.avd import avd_structured_config

    intent = intent_for(spec)
    switches = [node.name for node in plan.nodes]
    context_time, contexts = best_of(runs, lambda: build_contexts(plan, intent))
    result = {'switches': switches, 'devices': len(contexts), 'context': context_time, 'nos': {}}
    for nos, path in TEMPLATES.items():
        code = (ROOT / 'templates' / path).read_text(encoding='utf-8')
        netbox_time, outputs = best_of(runs, lambda code=code: {s: netbox_render(code, contexts[s]) for s in switches})
        compile_time, template = best_of(runs, lambda code=code: compiled(code))
        once_time, once = best_of(
            runs, lambda t=template: {s: t.render(aifabric=contexts[s]).replace('\r\n', '\n') for s in switches}
        )
        if once != outputs:
            raise SystemExit(f'{size} {nos}: the compiled-once template renders differently from render_jinja2')
        result['nos'][nos] = {
            'netbox': netbox_time,
            'compile': compile_time,
            'once': once_time,
            'bytes': sum(len(text) for text in outputs.values()),
            'outputs': outputs if nos == 'EOS' else None,
        }
    result['avd'] = None
    if HAVE_PYAVD:
        from pyavd import get_device_config

        structured_time, structured = best_of(runs, lambda: {s: avd_structured_config(contexts[s]) for s in switches})
        cli_time, cli = best_of(runs, lambda: {s: get_device_config(structured[s]) for s in switches})
        result['avd'] = {'structured': structured_time, 'cli': cli_time, 'outputs': cli}
    return result


def bench_pyavd(spec, plan, runs):
    """Best of ``runs`` pyavd passes: facts + structured config (bench_planner.run_pyavd) + EOS CLI per device."""
    from pyavd import get_device_config

    start = time.perf_counter()
    validated = validated_inputs(avd_inputs(spec, plan))
    validate = time.perf_counter() - start
    best = None
    for _ in range(runs):
        run = run_pyavd(spec, validated, math.inf)
        gc.collect()
        start = time.perf_counter()
        run['outputs'] = {host: get_device_config(config) for host, config in run['configs'].items()}
        run['cli'] = time.perf_counter() - start
        run['total'] = run['facts'] + run['structured'] + run['cli']
        run.pop('configs')
        if best is None or run['total'] < best['total']:
            best = run
    best['validate'] = validate
    return best


def bgp_facts(config):
    """``({(neighbour address, kind)}, {route distinguisher})`` of the default VRF's ``router bgp`` in EOS CLI."""
    match = BGP.search(config)
    if match is None:
        return set(), set()
    neighbors = {(address, PEER_KIND.get(group, group)) for address, group in NEIGHBOR.findall(match[0])}
    return neighbors, set(RD.findall(match[0]))


def agreement(ours, theirs):
    """``(switches that agree, first difference)`` between two ``{switch: EOS CLI}``."""
    agree, first = 0, None
    for switch, text in ours.items():
        mine, other = bgp_facts(text), bgp_facts(theirs[switch])
        if mine == other:
            agree += 1
        elif first is None:
            only = sorted((mine[0] - other[0]) | (mine[1] - other[1]))
            missing = sorted((other[0] - mine[0]) | (other[1] - mine[1]))
            first = f'{switch}: only ours {only[:3]}, only theirs {missing[:3]}'
    return agree, first


def warm_up():
    """Imports, pyavd's schemas and templates, Jinja: one pass of everything on the guide's fabric (S)."""
    spec = load_spec(yaml.safe_load(SPECS['S'].read_text(encoding='utf-8')))
    plan = plan_fabric(spec)
    bench_ours('S', spec, plan, 1)
    if not HAVE_PYAVD:
        return
    from pyavd import get_device_config

    run = run_pyavd(spec, validated_inputs(avd_inputs(spec, plan)), math.inf)
    for config in run['configs'].values():
        get_device_config(config)


def bench_render(sizes, runs, with_pyavd):
    print(f'\n== Rendering: context + one template per switch, in memory ({load()}) ==')
    started = time.perf_counter()
    warm_up()
    print(f'warm-up on S: {time.perf_counter() - started:.1f} s')
    rows, checks, pyavd_per_switch = [], [], {}
    for size in sizes:
        spec = load_spec(yaml.safe_load(SPECS[size].read_text(encoding='utf-8')))
        plan = plan_fabric(spec)
        n = runs or RUNS[size]
        started = time.perf_counter()
        ours = bench_ours(size, spec, plan, n)
        switches = len(ours['switches'])
        ctx = ours['context'] / switches
        avd = None
        if with_pyavd:
            avd = bench_pyavd(spec, plan, PYAVD_RUNS[size])
            if avd['hosts'] != switches:
                raise SystemExit(f'{size}: pyavd configured {avd["hosts"]} devices, the plan has {switches} switches')
        pyavd_ms = avd['total'] / switches if avd else None
        pyavd_per_switch[size] = pyavd_ms
        pyavd_inputs = (avd['total'] + avd['validate'] + avd['convert']) / switches if avd else None
        label = f'{size} ({switches} switches, {len(spec.servers):,} servers)'

        def row(what, render, compile_time=None, parts=None, label=label):
            total = ctx + render
            cells = [label, what, ms(ctx), ' + '.join(ms(p) for p in parts) if parts else ms(render), ms(total)]
            cells.append('' if compile_time is None else ms(compile_time))
            cells.append(ratio(pyavd_ms, total) if pyavd_ms else '—')
            rows.append(cells)

        for nos, r in ours['nos'].items():
            row(f'{nos}, NetBox render (compile per device)', r['netbox'] / switches)
            row(f'{nos}, template compiled once', r['once'] / switches, r['compile'])
        if ours['avd']:
            parts = (ours['avd']['structured'] / switches, ours['avd']['cli'] / switches)
            row('AVD path: avd_structured_config + get_device_config', sum(parts), parts=parts)
        if avd:
            rows.append(
                [
                    label,
                    'pyavd: facts + structured config + get_device_config',
                    '',
                    f'{ms(avd["facts"] / switches)} + {ms(avd["structured"] / switches)} + {ms(avd["cli"] / switches)}',
                    ms(pyavd_ms),
                    '',
                    '1×',
                ]
            )
            rows.append([label, 'pyavd with inputs (+ validate_inputs + AVDDesign)', '', '', ms(pyavd_inputs), '', ''])
            eos = ours['nos']['EOS']['outputs']
            for name, mine in (('our EOS template', eos), ('our AVD path', ours['avd']['outputs'])):
                agree, first = agreement(mine, avd['outputs'])
                checks.append((size, name, agree, switches, first))
            leaf = next(s for s in ours['switches'] if s.startswith('leaf'))
            checks.append((size, f'example {leaf}', bgp_facts(eos[leaf]), bgp_facts(avd['outputs'][leaf])))
        print(
            f'{size}: {time.perf_counter() - started:.0f} s, best of {n} (ours) / {PYAVD_RUNS[size]} (pyavd); '
            f'{ours["devices"]} contexts; EOS output {ours["nos"]["EOS"]["bytes"] / switches / 1024:.1f} KiB/switch '
            f'({load()})'
        )
    print()
    print(
        table(
            ('fabric', 'per switch', 'context', 'render', 'total ms/switch', 'compile (once)', 'pyavd / this'),
            rows,
            right=range(2, 7),
        )
    )
    print(
        '\ncontext = build_contexts for the whole fabric (switches and servers) / switches; render = the template for '
        'every\nswitch / switches; NetBox render = utilities.jinja2.render_jinja2 as ConfigTemplate.render calls it '
        '(new sandboxed\nenvironment, template compiled for every device); compiled once = the same environment and '
        'template, compiled\nonce (its time in the compile column, not in the total); pyavd = get_avd_facts + '
        'get_device_structured_config +\nget_device_config per device (its three parts in the render column), '
        'inputs from bench_planner.avd_inputs;\nAVD path = our avd_structured_config + pyavd.get_device_config per '
        'switch (its two parts in the render column).'
    )
    if checks:
        print("\nAgreement with pyavd's EOS CLI (default-VRF BGP neighbours by address and kind, EVPN RDs):")
        for check in checks:
            if len(check) == 5:
                size, name, agree, total, first = check
                print(
                    f'  {size} {name:<17} {agree}/{total} switches agree'
                    + (f'; first difference {first}' if first else '')
                )
            else:
                size, name, (neighbors, rds), (avd_neighbors, avd_rds) = check
                same = 'the same' if (neighbors, rds) == (avd_neighbors, avd_rds) else 'DIFFERENT'
                kinds = {}
                for address, kind in sorted(neighbors, key=lambda n: (n[1], tuple(int(p) for p in n[0].split('.')))):
                    kinds.setdefault(kind, []).append(address)
                listed = '; '.join(f'{kind} {", ".join(addresses)}' for kind, addresses in kinds.items())
                print(f'  {size} {name}: {listed}; RDs {", ".join(sorted(rds))} — pyavd: {same}')
    return pyavd_per_switch


# --- query counts ------------------------------------------------------------------------------------------------


def _get_or_create(model, lookup, values=None):
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        obj = model(**lookup, **(values or {}))
        obj.full_clean()
        obj.save()
    return obj


def fabric_row(size):
    """A Fabric row shaped like examples/size-<size>.yaml (created when missing), with its own site, pools, ASNs and
    EVPN tenant; the demo's traffic classes and QoS profile."""
    from dcim.models import Site
    from ipam.models import RIR, VRF, ASNRange, Prefix

    from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass

    shape = DB_SHAPES[size]
    slug = shape['slug']
    fabric = Fabric.objects.filter(slug=slug).first()
    if fabric is not None:
        return fabric
    classes = list(TrafficClass.objects.filter(slug__in=('mgmt', 'users', 'storage', 'rdma', 'telemetry')))
    spec = shape['tenant']
    vrf = _get_or_create(VRF, {'name': spec['vrf']})
    tenant = _get_or_create(
        EVPNTenant, {'slug': spec['slug']}, {'name': spec['name'], 'vrf': vrf, 'l3vni': spec['l3vni']}
    )
    tenant.traffic_classes.set([tc for tc in classes if tc.slug in ('users', 'storage', 'rdma')])
    rir = _get_or_create(RIR, {'slug': 'private-asns'}, {'name': 'Private ASNs', 'is_private': True})
    first, last = shape['leaf_asns']
    asn_range = _get_or_create(
        ASNRange, {'slug': f'{slug}-leaves'}, {'name': f'{slug} leaves', 'rir': rir, 'start': first, 'end': last}
    )
    site = _get_or_create(Site, {'slug': slug}, {'name': f'Render {size}', 'status': 'active'})
    pools = {
        field: _get_or_create(Prefix, {'prefix': prefix, 'vrf': None}, {'status': 'container', 'description': slug})
        for field, prefix in shape['pools'].items()
    }
    fabric = Fabric(
        name=f'Render {size}',
        slug=slug,
        site=site,
        design_option='evpn-vxlan',
        underlay='ebgp',
        leaf_asn_range=asn_range,
        spine_asn=shape['spine_asn'],
        anycast_gateway_mac='02:00:00:00:00:aa',
        qos_profile=QoSProfile.objects.get(slug='nvidia-cumulus-lossless'),
        description='Created by benchmarks/bench_render.py',
        **shape['sizes'],
        **pools,
    )
    fabric.full_clean()
    fabric.save()
    fabric.traffic_classes.set(classes)
    fabric.tenants.set([tenant])
    return fabric


def leaf_of(fabric):
    from dcim.models import Device

    from netbox_aifabric.models import FabricNode

    node = FabricNode.objects.filter(fabric=fabric, role='leaf').order_by('node_id').first()
    if node is not None and node.device_id:
        return node.device
    return Device.objects.get(site=fabric.site, name=node.name if node else 'leaf1')


def measure(client, url, repeat=5):
    """``(queries, best seconds, bytes, response)`` of ``GET url``: warmed once, then counted ``repeat`` times."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f'GET {url}: HTTP {response.status_code}')
    counts, best = set(), math.inf
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            response = client.get(url)
            best = min(best, time.perf_counter() - start)
        counts.add(len(captured))
    return '/'.join(str(c) for c in sorted(counts)), best, len(response.content), response


def shared_databases():
    """The databases of the development server and the tests (their names, test databases and template)."""
    names = set()
    for module in DEV_CONFIGURATIONS:
        try:
            config = importlib.import_module(module)
        except ImportError:
            continue
        default = config.DATABASES['default']
        names.update(v for v in (default['NAME'], *default.get('TEST', {}).values()) if isinstance(v, str))
    return names


def bench_queries(sizes):
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from netbox_aifabric.apply.seed import load_demo
    from netbox_aifabric.apply.writes import apply_fabric
    from netbox_aifabric.models import Fabric, OwnedObject

    database = settings.DATABASES['default']['NAME']
    print(f'\n== Queries: device page and REST API for a leaf of {", ".join(sizes)} (database {database}, {load()}) ==')
    if database in shared_databases():
        raise SystemExit(
            f'--queries writes fabrics into its database; {database} is shared (dev server or tests). '
            'Give it a database of its own (docs/benchmarks.md).'
        )
    load_demo()
    fabrics = {'S': Fabric.objects.get(slug='ai-lab-fabric')}
    fabrics.update({size: fabric_row(size) for size in sizes if size != 'S'})
    for size, fabric in fabrics.items():
        first = not OwnedObject.objects.filter(fabric=fabric).exists()
        start = time.perf_counter()
        _plan, changes = apply_fabric(fabric)
        written = sum(1 for change in changes if change.action not in ('keep', 'use'))
        print(
            f'{size}: {"first apply" if first else "re-apply"} of {fabric.slug} in {time.perf_counter() - start:.1f} s '
            f'({written} objects written)'
        )
    user = get_user_model().objects.filter(username='aifabric-bench-render').first()
    if user is None:
        user = get_user_model().objects.create_superuser('aifabric-bench-render', 'bench@example.com', None)
    client = Client(HTTP_HOST='localhost')
    client.force_login(user)
    rows, counts = [], {}
    for size, fabric in fabrics.items():
        device = leaf_of(fabric)
        interfaces = device.interfaces.count()
        for what, url in (
            ('device page', f'/dcim/devices/{device.pk}/'),
            ('config context tab', f'/dcim/devices/{device.pk}/config-context/'),
            ('REST API (with config_context)', f'/api/dcim/devices/{device.pk}/'),
        ):
            queries, seconds, size_bytes, response = measure(client, url)
            if what.startswith('REST'):
                context = response.json().get('config_context', {}).get('aifabric')
                if not context:
                    raise SystemExit(f'{url}: no aifabric config context in the response')
                what += f', {len(context["interfaces"])} ports in the context'
            counts[size, what.split(',')[0]] = queries
            rows.append(
                (
                    size,
                    f'{device.name} ({interfaces} interfaces)',
                    what,
                    queries,
                    f'{seconds * 1e3:.0f} ms',
                    f'{size_bytes / 1024:.1f} KiB',
                )
            )
    print(table(('fabric', 'leaf', 'request', 'SQL queries', 'time (best of 5)', 'response'), rows, right=range(3, 6)))
    grew = sorted({what for (size, what), q in counts.items() if size != 'S' and q != counts['S', what]})
    print(
        f'Query counts {" → ".join(fabrics)}: '
        + ('the same for every request' if not grew else 'differ for ' + ', '.join(grew))
    )
    return fabrics


# --- the product's render paths, from the database -----------------------------------------------------------------


def bench_configs(fabrics, pyavd_per_switch, runs):
    """Every switch of S and M rendered from the database with the shipped ConfigTemplates (as platforms): NetBox's
    ``render-config`` once per switch, the plugin's fabric ``render-config`` (one request), and ``ConfigRenderer``
    in-process; pyavd's ms/switch from the rendering part of the same run."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from dcim.models import Device, Platform
    from users.constants import TOKEN_PREFIX
    from users.models import Token

    from netbox_aifabric.apply.seed import load_config_templates
    from netbox_aifabric.facts.nos import NOS_REGISTRY
    from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices

    print(f'\n== Configurations from the database: every switch, one template each ({load()}) ==')
    load_config_templates()
    # NetBox's background job pre-renders config contexts; this database has no worker: the same, inline
    stale = Device.objects.filter(_config_context_data__isnull=True).annotate_config_context_data()
    filled = sum(Device.objects.filter(pk=d.pk).update(_config_context_data=d.render_config_context()) for d in stale)
    print(f"{filled} devices had no pre-rendered config context: rendered as NetBox's job does")
    user = get_user_model().objects.get(username='aifabric-bench-render')
    Token.objects.filter(user=user).delete()  # a stored token's secret is not readable: a new one for each run
    token = Token.objects.create(user=user)
    client = Client(HTTP_HOST='localhost', HTTP_AUTHORIZATION=f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}')
    rows = []
    for size, fabric in fabrics.items():
        switches = [
            d
            for d in fabric_devices(fabric)
            if (d.local_context_data or {}).get('aifabric', {}).get('role') in ('spine', 'leaf', 'border')
        ]
        n = runs or RUNS.get(size, 3)
        pyavd_ms = pyavd_per_switch.get(size)
        for entry in NOS_REGISTRY:
            Device.objects.filter(pk__in=[d.pk for d in switches]).update(
                platform=Platform.objects.get(slug=entry.platform_slug)
            )
            urls = [reverse('dcim-api:device-render-config', kwargs={'pk': d.pk}) for d in switches]
            fabric_url = reverse('plugins-api:netbox_aifabric-api:fabric-render-config', kwargs={'pk': fabric.pk})

            def per_device(urls=urls):
                outputs = []
                for url in urls:
                    response = client.post(url, {}, content_type='application/json')
                    if response.status_code != 200:
                        raise SystemExit(f'POST {url}: HTTP {response.status_code} {response.content[:200]!r}')
                    outputs.append(response.json()['content'])
                return outputs

            def fabric_endpoint(url=fabric_url):
                data = client.post(url, {}, content_type='application/json').json()
                return {r['device']['name']: r['content'] for r in data['results']}

            def in_process(fabric=fabric):
                return {c.device.name: c.content for c in ConfigRenderer().render_all(fabric_devices(fabric))}

            per_device()  # warm-up: imports, the ObjectType cache, connections
            netbox_time, netbox_out = best_of(n, per_device)
            endpoint_time, endpoint_out = best_of(n, fabric_endpoint)
            renderer_time, renderer_out = best_of(n, in_process)
            expected = dict(zip((d.name for d in switches), netbox_out))
            if endpoint_out != expected or {k: renderer_out[k] for k in expected} != expected:
                raise SystemExit(f"{size} {entry.platform}: the fabric render differs from NetBox's render-config")
            label = f'{size} ({len(switches)} switches)'
            for what, seconds in (
                ("NetBox's render-config, one request per switch", netbox_time),
                ('fabric render-config, one request', endpoint_time),
                ('ConfigRenderer in-process (from the DB)', renderer_time),
            ):
                per_switch = seconds / len(switches)
                rows.append(
                    [
                        label,
                        entry.platform,
                        what,
                        ms(per_switch),
                        ratio(netbox_time, seconds) if seconds != netbox_time else '1×',
                        ratio(pyavd_ms, per_switch) if pyavd_ms and entry.platform_slug == 'arista-eos' else '',
                    ]
                )
    print(table(('fabric', 'NOS', 'path', 'ms/switch', 'vs render-config', 'pyavd / this'), rows, right=(3, 4, 5)))
    print(
        "Best of the runs; every output equal to NetBox's render-config for the same switch (checked). pyavd / this: "
        "pyavd's\nfacts + structured config + EOS CLI per switch, in memory, from the rendering part of this run (EOS "
        'rows only).'
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--sizes', default='M,L', help='fabrics to render (default M,L; S works too)')
    parser.add_argument('--runs', type=int, help='timed runs of our side, best counts (default 3 for M, 2 for L)')
    parser.add_argument('--no-pyavd', action='store_true', help='skip pyavd')
    parser.add_argument('--no-render', action='store_true', help='skip the rendering part')
    parser.add_argument(
        '--queries', action='store_true', help='also count the device page and API queries and render from the DB'
    )
    parser.add_argument('--db-sizes', default='S,M', help='fabrics applied for --queries (default S,M; L: +15 min)')
    args = parser.parse_args(argv)
    sizes = [s.strip().upper() for s in args.sizes.split(',') if s.strip()]
    unknown = sorted(set(sizes) - {'S', 'M', 'L'})
    if unknown:
        parser.error(f'unknown size {unknown[0]} (known: S, M, L)')
    RUNS.setdefault('S', 5)
    PYAVD_RUNS.setdefault('S', 3)
    setup_django()
    started = time.perf_counter()
    print(f'Machine: {machine()}')
    pyavd_per_switch = {}
    if not args.no_render:
        if not HAVE_PYAVD:
            print('pyavd is not installed (.venv/bin/pip install -e ".[benchmark]"): no AVD path, no comparison.')
        pyavd_per_switch = bench_render(sizes, args.runs, HAVE_PYAVD and not args.no_pyavd)
    if args.queries:
        db_sizes = [x.strip().upper() for x in args.db_sizes.split(',') if x.strip()]
        if not set(db_sizes) <= {'S', 'M', 'L'} or 'S' not in db_sizes:
            parser.error('--db-sizes: S and any of M, L')
        fabrics = bench_queries(db_sizes)
        bench_configs(fabrics, pyavd_per_switch, args.runs)
    print(f'\nTotal benchmark time: {time.perf_counter() - started:.0f} s ({load()})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
