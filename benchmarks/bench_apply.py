"""Apply benchmark: fabric M applied in-process against the same objects built one REST call at a time (pynetbox).

    .venv/bin/python benchmarks/bench_apply.py --url http://127.0.0.1:8000      # all of it: several minutes
    .venv/bin/python benchmarks/bench_apply.py --url … --no-rest --profile m.prof  # where the in-process time goes

Runs inside a NetBox process (the development configuration from scripts/run: ``.dev/``, ``NETBOX_CONFIGURATION``
defaults to ``aifabric_dev``) against the same database as the NetBox server at ``--url``, and in one invocation:

1. creates (once) five fabrics as Fabric rows, each with its own site, pools and ASNs: ``bench-warmup`` and
   ``bench-s`` (the guide's cluster: 2 spines, 2 leaves, 4 GPU servers, 1 storage node), ``bench-m``,
   ``bench-m-object`` and ``bench-m-rest`` (the shape of ``examples/size-m.yaml``: 4 spines, 16 leaves in MLAG
   pairs, 128 GPU servers, EVPN/VXLAN);
2. applies ``bench-warmup`` (imports and caches; it also creates or uses the manufacturer, device types, roles and
   route target that every fabric shares, so S, M and the REST side all use them as they are), then times the first
   ``apply_fabric`` of ``bench-s`` and of ``bench-m``, inside NetBox's ``event_tracking`` as the REST apply runs, so
   change logging and events cost what they cost there;
3. builds the same objects for ``bench-m-rest`` through the REST API with pynetbox, the way a script does today: the
   engine's own ``desired_objects`` list, one ``POST`` per object (tagged like the engine tags them), ``Ref``s
   resolved to the ids the server returned, one ``PATCH`` per switch for its primary IPv4, a ``GET`` for each
   existing object the engine would use as it is;
   ``bench-m-object`` is applied in-process with one ``save()`` per object (``apply_fabric(per_object=True)``, the
   equivalence oracle's reference; ``--no-per-object`` skips it);
4. checks that both sides created the same objects (per type, counted by the fabric's tag), times unchanged
   re-applies of S and M (best of ``--repeat``) and counts their SQL queries;
5. deletes what it applied (``--keep`` keeps it; leftovers of an interrupted run are deleted at the start).

The token for pynetbox is created for the first superuser and deleted at the end (``--token`` uses yours instead).
"""

import argparse
import cProfile
import os
import pstats
import re
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

from apply_phases import CopyFloor, PhaseTimer  # benchmarks/apply_phases.py
from sizes import SIZE_L, SIZE_M  # benchmarks/sizes.py (the script's own directory is on sys.path)

from netbox_aifabric.planner.guide import GUIDE_QOS_PRESET, GUIDE_SIZES, GUIDE_TENANT

ROOT = Path(__file__).resolve().parent.parent

SIZES = {'S': GUIDE_SIZES, 'M': SIZE_M, 'L': SIZE_L}  # the guide's cluster, examples/size-m.yaml, size-l.yaml
# slug: (size, pools, spine ASN, leaf ASN range); pools and ASNs apart from the demo's and from each other
FABRICS = {
    'bench-warmup': (
        'S',
        {
            'loopback_pool': '10.200.0.0/24',
            'vtep_pool': '10.200.1.0/24',
            'p2p_pool': '10.200.2.0/24',
            'mlag_peer_pool': '10.200.3.0/28',
        },
        64600,
        (64601, 64699),
    ),
    'bench-s': (
        'S',
        {
            'loopback_pool': '10.201.0.0/24',
            'vtep_pool': '10.201.1.0/24',
            'p2p_pool': '10.201.2.0/24',
            'mlag_peer_pool': '10.201.3.0/28',
        },
        64700,
        (64701, 64799),
    ),
    'bench-s-rest': (
        'S',
        {
            'loopback_pool': '10.202.0.0/24',
            'vtep_pool': '10.202.1.0/24',
            'p2p_pool': '10.202.2.0/24',
            'mlag_peer_pool': '10.202.3.0/28',
        },
        65300,
        (65301, 65399),
    ),
    'bench-l': (
        'L',
        {
            'loopback_pool': '10.240.0.0/25',
            'vtep_pool': '10.241.0.0/25',
            'mlag_peer_pool': '10.242.0.0/25',
            'p2p_pool': '10.244.0.0/22',
        },
        4200002000,
        (4200002001, 4200002064),
    ),
    'bench-m': (
        'M',
        {
            'loopback_pool': '10.210.0.0/27',
            'vtep_pool': '10.211.0.0/27',
            'mlag_peer_pool': '10.212.0.0/27',
            'p2p_pool': '10.214.0.0/25',
        },
        64800,
        (64801, 64816),
    ),
    'bench-m-object': (
        'M',
        {
            'loopback_pool': '10.230.0.0/27',
            'vtep_pool': '10.231.0.0/27',
            'mlag_peer_pool': '10.232.0.0/27',
            'p2p_pool': '10.234.0.0/25',
        },
        65200,
        (65201, 65216),
    ),
    'bench-m-rest': (
        'M',
        {
            'loopback_pool': '10.220.0.0/27',
            'vtep_pool': '10.221.0.0/27',
            'mlag_peer_pool': '10.222.0.0/27',
            'p2p_pool': '10.224.0.0/25',
        },
        64900,
        (64901, 64916),
    ),
}
SLUGS = {
    'warm-up': 'bench-warmup',
    'S': 'bench-s',
    'M': 'bench-m',
    'M-REST': 'bench-m-rest',
    'S-REST': 'bench-s-rest',
    'L': 'bench-l',
    'M-OBJECT': 'bench-m-object',
}  # the roles of the fabrics above
TENANT = {'slug': 'bench-cluster', 'name': 'Bench cluster', 'vrf': 'BENCH', 'l3vni': 50901}
TENANT_CLASSES = GUIDE_TENANT['classes']
QOS_PROFILE = GUIDE_QOS_PRESET
CPU = {}  # slug -> CPU seconds of this process in its last apply (steadier than wall time on a shared machine)
STATEMENT = re.compile(r'^\s*(?:(UPDATE)\s+|(SELECT|INSERT|DELETE)\b.*?\b(?:FROM|INTO)\s+)"(\w+)"', re.S)


def setup_django():
    """Bootstrap NetBox as ``scripts/netbox`` does (configuration modules in ``.dev/``, after any on PYTHONPATH)."""
    sys.path.append(str(ROOT / '.dev'))
    os.environ.setdefault('NETBOX_CONFIGURATION', 'aifabric_dev')
    os.environ.setdefault('NETBOX_ROOT', str(ROOT / '.dev'))
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'netbox.settings')
    import django

    django.setup()


# ---------------------------------------------------------------------------------------------------------------
# Fixtures: the fabrics and what they need (created once, kept between runs)
# ---------------------------------------------------------------------------------------------------------------
def get_or_create(model, lookup, values=None):
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        obj = model(**lookup, **(values or {}))
        obj.full_clean()
        obj.save()
    return obj


def ensure_fabrics():
    """The benchmark fabrics (created when missing, with their sites, pools, ASN ranges and EVPN tenant), as
    ``{slug: Fabric}``."""
    from dcim.models import Site
    from ipam.models import RIR, VRF, ASNRange, Prefix

    from netbox_aifabric.apply.seed import load_qos_presets, load_traffic_classes
    from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass

    load_qos_presets()
    load_traffic_classes()
    classes = list(TrafficClass.objects.filter(slug__in=('mgmt', 'users', 'storage', 'rdma', 'telemetry')))
    rir = get_or_create(RIR, {'slug': 'private-asns'}, {'name': 'Private ASNs', 'is_private': True})
    vrf = get_or_create(VRF, {'name': TENANT['vrf']})
    tenant = EVPNTenant.objects.filter(slug=TENANT['slug']).first()
    if tenant is None:
        tenant = get_or_create(
            EVPNTenant, {'slug': TENANT['slug']}, {'name': TENANT['name'], 'vrf': vrf, 'l3vni': TENANT['l3vni']}
        )
        tenant.traffic_classes.set([tc for tc in classes if tc.slug in TENANT_CLASSES])
    qos = QoSProfile.objects.get(slug=QOS_PROFILE)

    fabrics = {}
    for slug, (size, pools, spine_asn, (first, last)) in FABRICS.items():
        fabric = Fabric.objects.filter(slug=slug).first()
        if fabric is None:
            site = get_or_create(Site, {'slug': slug}, {'name': f'Benchmark {slug}', 'status': 'active'})
            asn_range = get_or_create(
                ASNRange,
                {'slug': f'{slug}-leaves'},
                {'name': f'{slug} leaves', 'rir': rir, 'start': first, 'end': last},
            )
            prefixes = {
                field: get_or_create(
                    Prefix, {'prefix': prefix, 'vrf': None}, {'status': 'container', 'description': f'{slug} {field}'}
                )
                for field, prefix in pools.items()
            }
            fabric = Fabric(
                name=f'Benchmark {slug}',
                slug=slug,
                site=site,
                design_option='evpn-vxlan',
                underlay='ebgp',
                leaf_asn_range=asn_range,
                spine_asn=spine_asn,
                anycast_gateway_mac='02:00:00:00:00:aa',
                qos_profile=qos,
                description='Created by benchmarks/bench_apply.py',
                **SIZES[size],
                **prefixes,
            )
            fabric.full_clean()
            fabric.save()
            fabric.traffic_classes.set(classes)
            fabric.tenants.set([tenant])
        fabrics[slug] = fabric
    return fabrics


def cleanup(fabrics):
    """Delete what the benchmark applied (everything carrying a benchmark fabric's tag) and forget the allocations,
    so the next apply starts fresh. Outside event tracking: no change log, no events."""
    from django.db import transaction
    from django.db.models import ProtectedError

    from dcim.models import Cable, Device, DeviceRole, DeviceType, Manufacturer
    from extras.models import Tag
    from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix, RouteTarget, VLANGroup
    from vpn.models import L2VPN, L2VPNTermination

    from netbox_aifabric.models import Fabric, OwnedObject

    # Dependents first; interfaces go with their devices. Shared types and roles last and only when unused.
    order = (L2VPNTermination, L2VPN, Cable, IPAddress, Device, Prefix, ASN, VLAN, VLANGroup, VRF, RouteTarget)
    shared = (DeviceType, DeviceRole, Manufacturer)
    deleted = 0
    for fabric in fabrics.values():
        tag = Tag.objects.filter(slug=f'aifabric-{fabric.slug}').first()
        with transaction.atomic():
            if tag is not None:
                for model in order:
                    deleted += model.objects.filter(tags=tag).delete()[0]
            OwnedObject.objects.filter(fabric=fabric).delete()
            Fabric.objects.filter(pk=fabric.pk).update(applied_allocations={})
    for fabric in fabrics.values():
        tag = Tag.objects.filter(slug=f'aifabric-{fabric.slug}').first()
        if tag is None:
            continue
        for model in shared:
            for obj in model.objects.filter(tags=tag):
                try:
                    obj.delete()  # some NetBox models' delete() returns nothing
                    deleted += 1
                except ProtectedError:
                    pass  # used by a fabric outside the benchmark: kept
        tag.delete()
    return deleted


def tagged_counts(slug):
    """``{'app.model': n}`` of the objects carrying the fabric's tag, plus the tag itself."""
    from extras.models import Tag, TaggedItem

    tag = Tag.objects.filter(slug=f'aifabric-{slug}').first()
    if tag is None:
        return Counter()
    counts = Counter(
        f'{app}.{model}'
        for app, model in TaggedItem.objects.filter(tag=tag).values_list(
            'content_type__app_label', 'content_type__model'
        )
    )
    counts['extras.tag'] += 1
    return counts


# ---------------------------------------------------------------------------------------------------------------
# In-process side
# ---------------------------------------------------------------------------------------------------------------
def fake_request(user):
    """A request for NetBox's event tracking (change log with user and request id), as NetBox's scripts use."""
    from django.http import QueryDict
    from django.utils.datastructures import MultiValueDict

    from utilities.request import NetBoxFakeRequest

    return NetBoxFakeRequest(
        {
            'META': {},
            'COOKIES': {},
            'POST': QueryDict(),
            'GET': QueryDict(),
            'FILES': MultiValueDict(),
            'user': user,
            'method': 'POST',
            'path': '/bench/apply/',
            'path_info': '/bench/apply/',
            'id': uuid.uuid4(),
        }
    )


def apply_in_process(slug, user, profiler=None, capture=False, statements=None, per_object=False, phases=None):
    """``(seconds, queries, changes)`` of one ``apply_fabric`` inside NetBox's event tracking. Queries are counted
    with ``CaptureQueriesContext`` when ``capture`` (the no-op re-applies), else with a cheap execute wrapper (the
    first applies: tens of thousands of queries, whose SQL text need not be kept). ``statements``, a Counter, counts
    them by statement and table; ``phases``, a :class:`PhaseTimer`, times the apply's phases."""
    from contextlib import nullcontext

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from netbox.context_managers import event_tracking

    from netbox_aifabric.apply.writes import apply_fabric
    from netbox_aifabric.models import Fabric

    count = [0]

    def counter(execute, sql, params, many, context):
        count[0] += 1
        if statements is not None:
            statements[statement_kind(sql)] += 1
        return execute(sql, params, many, context)

    fabric = Fabric.objects.get(slug=slug)
    captured = CaptureQueriesContext(connection) if capture else nullcontext()
    timed = phases.active() if phases is not None else nullcontext()
    with captured, connection.execute_wrapper(counter), timed:
        if profiler is not None:
            profiler.enable()
        start, cpu = time.perf_counter(), time.process_time()
        with event_tracking(fake_request(user)):
            _plan, changes = apply_fabric(fabric, per_object=per_object)
        seconds = time.perf_counter() - start
        CPU[slug] = time.process_time() - cpu
        if profiler is not None:
            profiler.disable()
    return seconds, len(captured) if capture else count[0], changes


def peak_rss_mib():
    """The process's peak resident set size so far, in MiB (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def statement_kind(sql):
    """``'INSERT dcim_interface'``: the statement and its (first) table."""
    match = STATEMENT.search(sql)
    return f'{match[1] or match[2]} {match[3]}' if match else sql.split(None, 1)[0].upper()


def load():
    """The machine's load averages: other work on the same cores shows in the timings."""
    return 'load average ' + ' '.join(f'{x:.2f}' for x in os.getloadavg())


def created(changes):
    return sum(1 for c in changes if c.action == 'create')


def written(changes):
    return sum(1 for c in changes if c.action not in ('keep', 'use'))


# ---------------------------------------------------------------------------------------------------------------
# pynetbox side: the engine's desired objects, one REST call each
# ---------------------------------------------------------------------------------------------------------------
def endpoints(nb):
    from dcim.models import Cable, Device, DeviceRole, DeviceType, Interface, Manufacturer
    from extras.models import Tag
    from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix, RouteTarget, VLANGroup
    from vpn.models import L2VPN, L2VPNTermination

    return {
        VRF: nb.ipam.vrfs,
        Tag: nb.extras.tags,
        VLANGroup: nb.ipam.vlan_groups,
        VLAN: nb.ipam.vlans,
        Manufacturer: nb.dcim.manufacturers,
        DeviceType: nb.dcim.device_types,
        DeviceRole: nb.dcim.device_roles,
        Device: nb.dcim.devices,
        Interface: nb.dcim.interfaces,
        Cable: nb.dcim.cables,
        ASN: nb.ipam.asns,
        IPAddress: nb.ipam.ip_addresses,
        Prefix: nb.ipam.prefixes,
        RouteTarget: nb.ipam.route_targets,
        L2VPN: nb.vpn.l2vpns,
        L2VPNTermination: nb.vpn.l2vpn_terminations,
    }


def rest_body(mapping, ids, models):
    """A desired object's fields as a REST body: Refs → the ids the server returned, objects → ids, content types
    → ``app.model``, cable terminations → ``[{object_type, object_id}]``, other lists (many-to-many members) → ids,
    one key of a JSON field → ``{key: data}``; lookups (``x__y``) and nulls left out."""
    from django.contrib.contenttypes.models import ContentType
    from django.db.models import Model

    from netbox_aifabric.apply.objects import Ref

    def label(model):
        return f'{model._meta.app_label}.{model._meta.model_name}'

    def scalar(value):
        if isinstance(value, Ref):
            return ids[value.key]
        if isinstance(value, ContentType):
            return f'{value.app_label}.{value.model}'
        if isinstance(value, Model):
            return value.pk
        return value

    body = {}
    for name, value in mapping.items():
        if '__' in name or value is None:
            continue
        if name in ('a_terminations', 'b_terminations'):
            value = [{'object_type': label(models[v.key]), 'object_id': ids[v.key]} for v in value]
        elif isinstance(value, list):
            value = [scalar(v) for v in value]
        elif type(value).__name__ == 'JsonKey':  # a key of a JSON field (newer engines: a device's config context)
            value = {value.key: value.data}
        else:
            value = scalar(value)
        body[name] = value
    return body


def build_with_pynetbox(url, token, slug):
    """Create ``slug``'s objects through REST; returns ``(seconds, calls, changes)``."""
    import pynetbox

    from extras.models import Tag

    from netbox_aifabric.apply.desired import desired_objects
    from netbox_aifabric.apply.diff import changes_of
    from netbox_aifabric.intake.inputs import FabricInputs
    from netbox_aifabric.models import Fabric

    inputs = FabricInputs(Fabric.objects.get(slug=slug))
    changes = changes_of(inputs)  # what the engine would do: create, or use an existing object as it is
    action = {c.key: c.action for c in changes}
    desired = desired_objects(inputs)
    unexpected = Counter(
        action[i.key] for i in desired if not i.attribute_of and action[i.key] not in ('create', 'use')
    )
    if unexpected:
        raise SystemExit(f'{slug} is not in a fresh state ({dict(unexpected)}): run without --keep once to clean up')
    models = {item.key: item.model for item in desired}

    nb = pynetbox.api(url, token=token)
    api = endpoints(nb)
    ids, records, calls = {}, {}, Counter()
    start = time.perf_counter()
    for item in desired:
        endpoint = api[item.model]
        if item.attribute_of:  # the switch's primary IPv4, once its loopback exists
            records[item.attribute_of].update(rest_body(item.values, ids, models))
            calls['PATCH'] += 1
            continue
        if action[item.key] == 'use':
            record = endpoint.get(**rest_body(item.lookup, ids, models))
            calls['GET'] += 1
        else:
            m2m = getattr(item, 'm2m', {})  # many-to-many members (newer engines), set in the same POST
            body = rest_body({**item.lookup, **item.values, **item.create_only, **m2m}, ids, models)
            if item.model is not Tag:
                body['tags'] = [ids['tag']]
            record = endpoint.create(body)
            calls['POST'] += 1
        ids[item.key] = record.id
        records[item.key] = record
    return time.perf_counter() - start, calls, changes


# ---------------------------------------------------------------------------------------------------------------
# Profile summary
# ---------------------------------------------------------------------------------------------------------------
PACKAGES = (  # (label, path fragment), first match wins
    ('plugin: apply engine', '/netbox_aifabric/apply/'),
    ('plugin: planner', '/netbox_aifabric/planner/'),
    ('plugin: other', '/netbox_aifabric/'),
    ('Django', '/site-packages/django/'),
    ('django-taggit', '/site-packages/taggit/'),
    ('psycopg', '/site-packages/psycopg'),
    ('netaddr', '/site-packages/netaddr/'),
    ('NetBox dcim', '/site-packages/dcim/'),
    ('NetBox ipam', '/site-packages/ipam/'),
    ('NetBox extras', '/site-packages/extras/'),
    ('NetBox core', '/site-packages/core/'),
    ('NetBox netbox', '/site-packages/netbox/'),
    ('NetBox utilities', '/site-packages/utilities/'),
    ('NetBox vpn', '/site-packages/vpn/'),
    ('NetBox users, tenancy', '/site-packages/users/'),
)


def statement_summary(statements, queries, objects, size):
    print(f'\nSQL statements of the first apply of {size} ({queries:,}; {queries / objects:.1f} per object created):')
    for kind, n in statements.most_common(25):
        print(f'  {kind:48} {n:7,}  {n / objects:5.2f} per object')


def profile_summary(profiler, seconds, top=30, size='M'):
    """Own time per package, then the top cumulative entries."""
    stats = pstats.Stats(profiler)
    own = Counter()
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        label = next((lbl for lbl, part in PACKAGES if part in filename), 'other (stdlib, C built-ins, …)')
        own[label] += tottime
    total = sum(own.values())
    print(f'\nProfile of the first in-process apply of {size} ({seconds:.1f} s under cProfile): own time per package')
    for label, t in own.most_common():
        print(f'  {label:32} {t:8.1f} s  {100 * t / total:5.1f} %')
    print(f'\nTop {top} by cumulative time:')
    stats.sort_stats('cumulative').print_stats(top)


# ---------------------------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', default='http://127.0.0.1:8000', help='the NetBox server on the same database')
    parser.add_argument('--token', help='API token (nbt_<key>.<token>); default: a temporary one for a superuser')
    parser.add_argument('--no-rest', action='store_true', help='skip the pynetbox side')
    parser.add_argument(
        '--profile', metavar='FILE', help='profile the first in-process apply of M (of L with --l-only) into FILE'
    )
    parser.add_argument('--repeat', type=int, default=3, help='no-op re-applies per size (best is shown)')
    parser.add_argument(
        '--no-per-object', action='store_true', help='skip the per-object reference apply of M (one save() per object)'
    )
    parser.add_argument('--l', action='store_true', help='also the first apply of L (17,066 objects; minutes)')
    parser.add_argument(
        '--l-only', action='store_true', help='only the warm-up and the first apply of L (with --profile: of L)'
    )
    parser.add_argument('--keep', action='store_true', help='keep the applied objects (default: delete them)')
    args = parser.parse_args(argv)

    setup_django()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from users.models import Token

    user = get_user_model().objects.filter(is_superuser=True, is_active=True).order_by('pk').first()
    if user is None:
        raise SystemExit('no active superuser in the database (scripts/run creates admin)')
    db = settings.DATABASES['default']['NAME']
    print(f'NetBox {settings.RELEASE.version} on database {db!r} (DEBUG={settings.DEBUG}); server {args.url}')

    fabrics = ensure_fabrics()
    start = time.perf_counter()
    n = cleanup(fabrics)
    if n:
        print(f'cleanup of an earlier run: {n} objects deleted ({time.perf_counter() - start:.1f} s)')

    token = None
    if not args.no_rest and not args.token:
        token = Token.objects.create(user=user, description='benchmarks/bench_apply.py (temporary)')
        args.token = f'nbt_{token.key}.{token.token}'
    try:
        report(run(args, user))
    finally:
        if token is not None:
            token.delete()
        if not args.keep:
            start = time.perf_counter()
            n = cleanup(fabrics)
            print(f'\ncleanup: {n} objects deleted ({time.perf_counter() - start:.1f} s)')
    return 0


def run(args, user):
    from netbox_aifabric.apply.diff import summarize

    results = {}
    seconds, _q, changes = apply_in_process(SLUGS['warm-up'], user)
    print(f'warm-up: S-sized fabric applied, {created(changes)} objects in {seconds:.2f} s')
    if args.l_only:
        return first_apply_l(user, args.profile)
    seconds, queries, changes = apply_in_process(SLUGS['S'], user)
    results['s_first'] = (created(changes), seconds, queries)
    print(
        f'S first apply in-process: {created(changes)} objects, {seconds:.2f} s (CPU {CPU[SLUGS["S"]]:.2f} s), '
        f'{queries} queries ({load()})'
    )

    profiler = cProfile.Profile() if args.profile else None
    statements = Counter() if args.profile else None
    print('M first apply in-process …', flush=True)
    rss = peak_rss_mib()
    phases, floor = PhaseTimer(), CopyFloor()
    floor.mark()
    seconds, queries, changes = apply_in_process(SLUGS['M'], user, profiler, statements=statements, phases=phases)
    engine_counts = tagged_counts(SLUGS['M'])
    results['m_first'] = (created(changes), seconds, queries)
    results['m_floor'] = floor_report('M', seconds, floor.measure())
    phases.report('M')
    results['m_rss'] = (rss, peak_rss_mib())
    print(
        f'M first apply in-process: {created(changes)} objects, {written(changes)} writes, {seconds:.1f} s '
        f'(CPU {CPU[SLUGS["M"]]:.1f} s), '
        f'{queries} queries, peak RSS {rss:.0f} -> {peak_rss_mib():.0f} MiB ({load()})'
    )
    for model, counts in summarize(changes).items():
        print(f'  {model:24} ' + ', '.join(f'{n} {a}' for a, n in counts.items() if n))
    if profiler is not None:
        profiler.dump_stats(args.profile)
        profile_summary(profiler, seconds)
        statement_summary(statements, queries, created(changes), 'M')

    if not args.no_per_object:
        results['m_object'] = per_object_m(user, engine_counts)

    if not args.no_rest:
        for size in ('S', 'M'):
            results[f'{size.lower()}_rest'] = rest_side(args, size, tagged_counts(SLUGS[size]))

    for size in ('S', 'M'):
        slug = SLUGS[size]
        runs = [apply_in_process(slug, user, capture=True) for _ in range(args.repeat)]
        if any(written(c) for _s, _q, c in runs):
            raise SystemExit(f'the re-apply of {slug} changed something: {summarize(runs[0][2])}')
        objects = sum(1 for c in runs[0][2] if c.action in ('keep', 'use'))
        best = min(s for s, _q, _c in runs)
        query_counts = sorted({q for _s, q, _c in runs})
        results[f'noop_{size}'] = (objects, best, query_counts)
        print(
            f'{size} no-op re-apply: {objects} objects unchanged, best {best:.3f} s of {args.repeat}, '
            f'{"/".join(map(str, query_counts))} queries'
        )
    if args.l:
        results.update(first_apply_l(user))
    return results


def per_object_m(user, engine_counts):
    """The first apply of M with one save() per object (the oracle's reference): ``(objects, seconds, queries)``."""
    print('M first apply in-process, one save() per object (the reference path) …', flush=True)
    object_seconds, object_queries, object_changes = apply_in_process(SLUGS['M-OBJECT'], user, per_object=True)
    print(
        f'M per object: {created(object_changes)} objects, {object_seconds:.1f} s '
        f'(CPU {CPU[SLUGS["M-OBJECT"]]:.1f} s), {object_queries} queries ({load()})'
    )
    if tagged_counts(SLUGS['M-OBJECT']) != engine_counts:
        raise SystemExit('MISMATCH: the per-object apply tagged other objects than the bulk apply')
    return created(object_changes), object_seconds, object_queries


def first_apply_l(user, profile=None):
    """The first apply of L: ``{'l_first': (objects, seconds, queries), 'l_rss': (before, after)}``; profiled into
    the file ``profile`` when given."""
    results = {}
    print('L first apply in-process …', flush=True)
    rss = peak_rss_mib()
    profiler = cProfile.Profile() if profile else None
    statements = Counter() if profile else None
    phases, floor = PhaseTimer(), CopyFloor()
    floor.mark()
    seconds, queries, changes = apply_in_process(SLUGS['L'], user, profiler, statements=statements, phases=phases)
    results['l_first'] = (created(changes), seconds, queries)
    results['l_floor'] = floor_report('L', seconds, floor.measure())
    phases.report('L')
    results['l_rss'] = (rss, peak_rss_mib())
    print(
        f'L first apply in-process: {created(changes)} objects, {seconds:.1f} s (CPU {CPU[SLUGS["L"]]:.1f} s), '
        f'{queries} queries, '
        f'peak RSS {rss:.0f} -> {peak_rss_mib():.0f} MiB ({load()})'
    )
    if profiler is not None:
        profiler.dump_stats(profile)
        profile_summary(profiler, seconds, size='L')
        statement_summary(statements, queries, created(changes), 'L')
    return results


def floor_report(size, seconds, measured):
    """Print the COPY floor of the rows the first apply of ``size`` inserted; ``(rows, floor seconds)``."""
    rows, floor_seconds, per_table = measured
    largest = sorted(per_table.items(), key=lambda kv: -kv[1])[:8]
    print(
        f'{size}: the same {rows:,} rows by bare COPY into tables like theirs: {floor_seconds:.2f} s; '
        f'apply / COPY floor = **{seconds / floor_seconds:.1f}×** (largest: '
        + ', '.join(f'{table} {n:,}' for table, n in largest)
        + ')'
    )
    return rows, floor_seconds


def rest_side(args, size, engine_counts):
    """The pynetbox side of ``size``: ``(calls, seconds, objects)``; the same objects as the in-process apply of that
    size, else a MISMATCH and exit."""
    slug = SLUGS[f'{size}-REST']
    print(f'{size} with pynetbox against {args.url} …', flush=True)
    rest_seconds, calls, rest_changes = build_with_pynetbox(args.url, args.token, slug)
    rest_counts = tagged_counts(slug)
    print(f'{size} with pynetbox: {dict(calls)} in {rest_seconds:.1f} s ({load()})')
    if (
        rest_counts != engine_counts
        or calls['POST'] != sum(rest_counts.values())
        or created(rest_changes) != calls['POST']
    ):
        print('MISMATCH between the two sides:', file=sys.stderr)
        for model in sorted(set(engine_counts) | set(rest_counts)):
            print(f'  {model:24} in-process {engine_counts[model]:5}  pynetbox {rest_counts[model]:5}', file=sys.stderr)
        raise SystemExit(1)
    print(
        f'same objects on both sides: {sum(engine_counts.values())} '
        f'({", ".join(f"{n} {m}" for m, n in sorted(engine_counts.items()))})'
    )
    return calls, rest_seconds, sum(rest_counts.values())


def report(results):
    print('\n## Results\n')
    print('| First apply | objects | seconds | ms per object | calls / queries |')
    print('|---|---:|---:|---:|---|')
    rows = (
        ('s_first', 'S, in-process `apply_fabric` (bulk writer)'),
        ('m_first', 'M, in-process `apply_fabric` (bulk writer)'),
        ('m_object', 'M, in-process, one save() per object'),
        ('l_first', 'L, in-process `apply_fabric` (bulk writer)'),
    )
    for key, label in rows:
        if key in results:
            objects, seconds, queries = results[key][:3]
            print(
                f'| {label} | {objects:,} | {seconds:.1f} | {1000 * seconds / objects:.1f} | {queries:,} SQL queries |'
            )
    for size in ('S', 'M'):
        if f'{size.lower()}_rest' in results:
            calls, rest_seconds, tagged = results[f'{size.lower()}_rest']
            shown = ', '.join(f'{n:,} {method}' for method, n in sorted(calls.items(), key=lambda kv: -kv[1]))
            print(
                f'| {size}, pynetbox: one REST call per object | {tagged:,} | {rest_seconds:.1f} | '
                f'{1000 * rest_seconds / tagged:.1f} | {shown} |'
            )
    print()
    for size in ('M', 'L'):
        if f'{size.lower()}_rss' in results:
            before, after = results[f'{size.lower()}_rss']
            print(f'{size}: peak RSS of the process {before:.0f} MiB before the first apply, {after:.0f} MiB after it')
    if 'm_first' not in results:
        return
    seconds = results['m_first'][1]
    for size in ('M', 'L'):
        if f'{size.lower()}_floor' in results:
            rows, floor_seconds = results[f'{size.lower()}_floor']
            ratio = results[f'{size.lower()}_first'][1] / floor_seconds
            verdict = 'met' if ratio <= 10 else 'NOT met'
            print(f'{size}: first apply / COPY floor of its {rows:,} rows = **{ratio:.1f}×** (target ≤ 10×: {verdict})')
    if 'm_object' in results:
        print(f'M: per object / bulk = **{results["m_object"][1] / seconds:.2f}×**')
    for size in ('S', 'M'):
        if f'{size.lower()}_rest' in results:
            ratio = results[f'{size.lower()}_rest'][1] / results[f'{size.lower()}_first'][1]
            verdict = 'met' if ratio >= 40 else 'NOT met'
            print(f'{size}: pynetbox / in-process = **{ratio:.2f}×** (target ≥ 40×: {verdict})')
    print('\n| No-op re-apply | objects | seconds (best) | SQL queries |')
    print('|---|---:|---:|---:|')
    for size in ('S', 'M'):
        objects, best, query_counts = results[f'noop_{size}']
        print(f'| {size} | {objects:,} | {best:.3f} | {"/".join(map(str, query_counts))} |')
    s_q, m_q = results['noop_S'][2], results['noop_M'][2]
    verdict = 'does not grow with the fabric: target met' if max(m_q) <= max(s_q) else 'GROWS: target NOT met'
    print(f'\nno-op query count: S {"/".join(map(str, s_q))}, M {"/".join(map(str, m_q))} ({verdict})')


if __name__ == '__main__':
    sys.exit(main())
