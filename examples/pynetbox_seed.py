"""Build the guide's 4-node GPU cluster end to end through the REST API, as a pynetbox user would.

    python examples/pynetbox_seed.py http://127.0.0.1:8000 nbt_<key>.<token>            # intent + the plan's diff
    python examples/pynetbox_seed.py http://127.0.0.1:8000 nbt_<key>.<token> --apply    # … and apply it
    python examples/pynetbox_seed.py … --nos eos --apply   # the switches run Arista EOS (default: SONiC)

Idempotent: every object is looked up first and created only when missing, so a second run creates nothing and its
apply changes nothing. What it builds (next to the demo's ``ai-lab-fabric``, with its own pools and ASNs):

- the site ``ai-lab`` (used when it exists) and the tenant VRF ``AI-CLUSTER`` (its route targets are the plan's: each
  apply writes them);
- four pool prefixes (10.254.0.0/24 loopbacks, 10.254.1.0/24 VTEPs, 10.254.2.0/24 leaf-spine /31s, 10.254.3.0/28
  MLAG peer links), the RIR ``private-asns`` and the leaf ASN range 65201–65299 (spines: 65200);
- an EVPN tenant (L3VNI 50001; VLANs of USERS, STORAGE and RDMA) and the fabric ``ai-lab-pynetbox``: EVPN/VXLAN,
  2 spines, 2 leaves, 4 GPU servers and a storage node, the guide's five traffic classes and the NVIDIA Cumulus
  lossless QoS profile (traffic classes and QoS presets must exist: ``netbox aifabric_load_presets``);
- the switches' NOS (``--nos``, default ``sonic``): the fabric's switch platform, whose ConfigTemplate renders every
  switch's config (the platforms and templates must exist: ``netbox aifabric_load_templates``), and the NOS's shipped
  leaf and spine device types when they are loaded (``netbox aifabric_load_device_types``; else generic ones), with
  the largest growth their ports hold. ``--nos none`` sets no platform: then no config renders. A fabric the seed
  made earlier without a platform gets it;

then ``POST /api/plugins/aifabric/fabrics/{id}/plan/`` and, with --apply, ``…/apply/``, and prints the summary (and the
plan's warnings).
"""

import argparse
import sys
import time

import pynetbox

FABRIC = {'name': 'AI Lab fabric (pynetbox)', 'slug': 'ai-lab-pynetbox'}
SITE = {'name': 'AI Lab', 'slug': 'ai-lab', 'status': 'active'}
POOLS = {  # fabric field: (prefix, description); the demo fabric uses 10.255.0.0/22
    'loopback_pool': ('10.254.0.0/24', 'AI fabric (pynetbox) loopbacks'),
    'vtep_pool': ('10.254.1.0/24', 'AI fabric (pynetbox) VTEP loopbacks'),
    'p2p_pool': ('10.254.2.0/24', 'AI fabric (pynetbox) leaf-spine /31 links'),
    'mlag_peer_pool': ('10.254.3.0/28', 'AI fabric (pynetbox) MLAG peer links'),
}
RIR = {'name': 'Private ASNs', 'slug': 'private-asns', 'is_private': True}
ASN_RANGE = {'name': 'AI Lab (pynetbox) leaves', 'slug': 'ai-lab-pynetbox-leaves', 'start': 65201, 'end': 65299}
SPINE_ASN = 65200
TRAFFIC_CLASSES = ('mgmt', 'users', 'storage', 'rdma', 'telemetry')  # the guide's five, loaded with the presets
# The guide's cluster, copied from netbox_aifabric/planner/guide.py on purpose: this script is standalone (it runs
# wherever pynetbox is installed, against a remote NetBox, without the plugin).
# tests/unit/test_guide_shape.py holds the copy equal to the source; change both together.
GUIDE_SHAPE = {
    'spine_count': 2,
    'max_spines': 4,
    'leaf_count': 2,
    'max_leaves': 8,
    'uplinks_per_spine': 1,
    'max_parallel_uplinks': 2,
    'server_count': 4,
    'storage_count': 1,
    'uplink_speed': 100,
    'server_nic_count': 2,
    'server_nic_speed': 25,
    'rdma_nic_count': 1,
    'rdma_nic_speed': 100,
    'mtu': 9216,
}
GUIDE_OVERLAY = {'l2vni_base': 10000, 'anycast_gateway_mac': '02:00:00:00:00:aa'}
TENANT_CLASSES = ('users', 'storage', 'rdma')
QOS_PROFILE = 'nvidia-cumulus-lossless'
# The switch NOS: its platform slug and shipped (leaf, spine) device types, copied from
# netbox_aifabric/facts/nos.py (NOS_REGISTRY) for the same reason; tests/unit/test_pynetbox_seed.py holds them equal.
NOS_HARDWARE = {
    'sonic': ('sonic', 'arista-dcs-7050sx3-48yc8-sonic', '7726-32x-o'),
    'nvue': ('cumulus', 'msn2410-bb2fc', 'sn2700'),
    'eos': ('arista-eos', 'arista-dcs-7050sx3-48yc8', 'arista-dcs-7060cx-32s'),
    'frr': ('frr', '', ''),
}
DEFAULT_NOS = 'sonic'
# (max spines, max parallel uplinks), most growth first: tried in turn with the NOS's device types, the first the
# server's port check accepts is kept (netbox_aifabric/apply/shape.py's SHAPE_CANDIDATES, the same rule)
SHAPE_CANDIDATES = ((4, 2), (3, 2), (4, 1), (2, 2), (3, 1), (2, 1))
VRF = {'name': 'AI-CLUSTER', 'rd': '65100:50001'}
EVPN_TENANT = {'name': 'AI Cluster (pynetbox)', 'slug': 'ai-cluster-pynetbox', 'l3vni': 50001}
FABRIC_VALUES = {
    'status': 'draft',
    'design_option': 'evpn-vxlan',
    'underlay': 'ebgp',
    **GUIDE_SHAPE,
    'spine_asn': SPINE_ASN,  # its own ASNs and pools, apart from the demo's
    **GUIDE_OVERLAY,
    'description': "The guide's 4-node GPU cluster, built with pynetbox (examples/pynetbox_seed.py)",
}


class SeedError(Exception):
    pass


def ensure(endpoint, what, lookup, values=None):
    """The object matching ``lookup`` (a dict of filters), created with ``lookup`` + ``values`` when missing."""
    found = list(endpoint.filter(**lookup))
    if len(found) > 1:
        raise SeedError(f'{what}: {len(found)} objects match {lookup}; expected at most one')
    if found:
        print(f'  exists   {what}')
        return found[0]
    obj = endpoint.create({**lookup, **(values or {})})
    print(f'  created  {what}')
    return obj


def ensure_prefix(nb, prefix, description):
    # A pool is a global (VRF-less) prefix; a prefix of the same value inside some VRF is a different object
    found = [p for p in nb.ipam.prefixes.filter(prefix=prefix) if p.vrf is None]
    if found:
        print(f'  exists   prefix {prefix}')
        return found[0]
    obj = nb.ipam.prefixes.create(prefix=prefix, status='container', description=description)
    print(f'  created  prefix {prefix}')
    return obj


def lookup_intent(nb):
    """The traffic classes and QoS profile the demo (or ``netbox aifabric_load_presets``) loaded."""
    aifabric = nb.plugins.aifabric
    classes = {tc.slug: tc for tc in aifabric.traffic_classes.filter(slug=list(TRAFFIC_CLASSES))}
    qos = aifabric.qos_profiles.get(slug=QOS_PROFILE)
    missing = [slug for slug in TRAFFIC_CLASSES if slug not in classes] + ([QOS_PROFILE] if qos is None else [])
    if missing:
        raise SeedError(f'missing {", ".join(missing)}: load the presets first (netbox aifabric_load_presets)')
    print(f'  found    traffic classes {", ".join(classes[s].name for s in TRAFFIC_CLASSES)}; QoS profile {qos.name}')
    return classes, qos


def lookup_hardware(nb, nos):
    """``{fabric field: id}`` of the NOS's platform and, when loaded, its shipped device types (``{}``: ``none``)."""
    if nos == 'none':
        print('  no NOS   the switches get no platform: no config renders')
        return {}
    platform_slug, leaf_slug, spine_slug = NOS_HARDWARE[nos]
    platform = nb.dcim.platforms.get(slug=platform_slug)
    if platform is None:
        raise SeedError(f'missing platform {platform_slug}: load the templates first (netbox aifabric_load_templates)')
    hardware = {'platform': platform.id}
    if not leaf_slug:  # FRR ships no device types (an empty slug filter would match them all)
        print(f'  found    platform {platform.name}')
        return hardware
    types = {field: nb.dcim.device_types.get(slug=slug) for field, slug in (('leaf', leaf_slug), ('spine', spine_slug))}
    if all(types.values()):
        hardware |= {f'{field}_device_type': device_type.id for field, device_type in types.items()}
        names = f'; device types {types["leaf"].model} / {types["spine"].model}'
    else:
        names = '; its device types are not loaded (netbox aifabric_load_device_types): generic ones'
    print(f'  found    platform {platform.name}{names}')
    return hardware


def create_fabric(nb, values):
    """The fabric with the NOS's device types: the first of ``SHAPE_CANDIDATES`` whose ports they have (the server
    judges, a 400 names the port that runs out); without device types, the guide's shape as it is."""
    if 'leaf_device_type' not in values:
        return nb.plugins.aifabric.fabrics.create(values)
    error = None
    for max_spines, max_parallel in SHAPE_CANDIDATES:
        if max_spines < values['spine_count'] or max_parallel < values['uplinks_per_spine']:
            continue
        try:
            return nb.plugins.aifabric.fabrics.create(
                {**values, 'max_spines': max_spines, 'max_parallel_uplinks': max_parallel}
            )
        except pynetbox.RequestError as e:
            if e.req.status_code != 400:
                raise
            error = e
    raise error


def ensure_fabric(nb, values):
    """The fabric by slug, created when missing; one the seed made before without a platform gets the NOS's."""
    found = nb.plugins.aifabric.fabrics.get(slug=FABRIC['slug'])
    if found is None:
        fabric = create_fabric(nb, values)
        print(f'  created  fabric {FABRIC["slug"]}')
        return fabric
    print(f'  exists   fabric {FABRIC["slug"]}')
    if found.platform is None and values.get('platform'):
        found.platform = values['platform']
        found.save()
        print(f'  updated  fabric {FABRIC["slug"]}: switch platform')
        found = nb.plugins.aifabric.fabrics.get(found.id)
    return found


def build(nb, nos=DEFAULT_NOS):
    """Everything the fabric needs, then the fabric; returns the fabric record."""
    print('Intent:')
    site = ensure(nb.dcim.sites, f'site {SITE["slug"]}', {'slug': SITE['slug']}, {'name': SITE['name']})
    pools = {field: ensure_prefix(nb, prefix, description) for field, (prefix, description) in POOLS.items()}
    rir = ensure(nb.ipam.rirs, f'RIR {RIR["slug"]}', {'slug': RIR['slug']}, {'name': RIR['name'], 'is_private': True})
    asn_range = ensure(
        nb.ipam.asn_ranges,
        f'ASN range {ASN_RANGE["start"]}-{ASN_RANGE["end"]}',
        {'slug': ASN_RANGE['slug']},
        {'name': ASN_RANGE['name'], 'rir': rir.id, 'start': ASN_RANGE['start'], 'end': ASN_RANGE['end']},
    )
    classes, qos = lookup_intent(nb)
    hardware = lookup_hardware(nb, nos)
    vrf = ensure(nb.ipam.vrfs, f'VRF {VRF["name"]}', {'name': VRF['name']}, {'rd': VRF['rd']})
    tenant = ensure(
        nb.plugins.aifabric.evpn_tenants,
        f'EVPN tenant {EVPN_TENANT["slug"]}',
        {'slug': EVPN_TENANT['slug']},
        {
            'name': EVPN_TENANT['name'],
            'vrf': vrf.id,
            'l3vni': EVPN_TENANT['l3vni'],
            'traffic_classes': [classes[slug].id for slug in TENANT_CLASSES],
        },
    )
    return ensure_fabric(
        nb,
        {
            'slug': FABRIC['slug'],
            'name': FABRIC['name'],
            'site': site.id,
            **FABRIC_VALUES,
            **{field: prefix.id for field, prefix in pools.items()},
            'leaf_asn_range': asn_range.id,
            'qos_profile': qos.id,
            'traffic_classes': [classes[slug].id for slug in TRAFFIC_CLASSES],
            'tenants': [tenant.id],
            **hardware,
        },
    )


def post(nb, token, url, body=None):
    response = nb.http_session.post(url, json=body or {}, headers={'Authorization': f'Bearer {token}'})
    try:
        data = response.json()
    except ValueError:
        data = {'detail': response.text[:500]}
    return response.status_code, data


def print_summary(summary, per_type=True):
    """Print the ``{model: {action: n}}`` summary (per object type, then the totals); returns the totals."""
    totals = {}
    for model, counts in summary.items():
        if per_type:
            print(f'  {model:24} ' + ', '.join(f'{n} {action}' for action, n in counts.items() if n))
        for action, n in counts.items():
            totals[action] = totals.get(action, 0) + n
    print('  total: ' + ', '.join(f'{n} {action}' for action, n in totals.items()))
    return totals


def wait_for_job(nb, job, timeout=1800):
    """A background apply (plans above ``background_apply_threshold`` links): poll the job until it ends."""
    print(f'  running in the background as job {job["id"]}', end='', flush=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = nb.core.jobs.get(job['id'])
        status = record.status.value if hasattr(record.status, 'value') else record.status
        if status in ('completed', 'errored', 'failed'):
            print(f': {status}')
            return status == 'completed', dict(record.data or {})
        print('.', end='', flush=True)
        time.sleep(2)
    print(': still running, giving up waiting')
    return False, {}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('url', help='NetBox base URL, e.g. http://127.0.0.1:8000')
    parser.add_argument('token', help='API token (nbt_<key>.<token>)')
    parser.add_argument('--apply', action='store_true', help='apply the plan (default: only show it)')
    parser.add_argument(
        '--nos',
        choices=[*NOS_HARDWARE, 'none'],
        default=DEFAULT_NOS,
        help=f"the switches' NOS: its platform picks the config template (default: {DEFAULT_NOS}; none: no platform)",
    )
    args = parser.parse_args(argv)

    nb = pynetbox.api(args.url, token=args.token)
    try:
        fabric = build(nb, args.nos)
    except (SeedError, pynetbox.RequestError) as e:
        print(f'error: {getattr(e, "error", e)}', file=sys.stderr)
        return 1

    code, body = post(nb, args.token, f'{fabric.url}plan/')
    if code != 200:
        print(f'plan failed ({code}): {body}', file=sys.stderr)
        return 2
    print(f'Plan (POST …/fabrics/{fabric.id}/plan/):')
    print_summary(body['summary'], per_type=not args.apply)
    for warning in body.get('warnings', []):  # design concerns (e.g. a leaf above the oversubscription target)
        print(f'  warning  {warning["code"]}: {warning["message"]}')
    if not args.apply:
        print('nothing written (plan only; --apply applies it)')
        return 0

    code, body = post(nb, args.token, f'{fabric.url}apply/')
    if code == 202:
        ok, data = wait_for_job(nb, body['job'])
        if not ok:
            print(f'apply failed: see job {body["job"]["id"]}', file=sys.stderr)
            return 3
        body = {'summary': data.get('summary', {}), 'applied': True}
    elif code != 200:
        print(f'apply failed ({code}): {body}', file=sys.stderr)
        return 3
    print(f'Apply (POST …/fabrics/{fabric.id}/apply/):')
    totals = print_summary(body['summary'])
    written = {action: n for action, n in totals.items() if n and action in ('create', 'update', 'adopt', 'delete')}
    print('applied: ' + (', '.join(f'{n} {action}' for action, n in written.items()) or 'nothing changed'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
