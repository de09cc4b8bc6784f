"""Benchmark the fabric planner on four fabric sizes and compare it with Arista AVD's pyavd on equivalent fabrics.

    .venv/bin/python benchmarks/bench_planner.py [--sizes S,M,L,XL] [--no-pyavd] [--pyavd-sizes M,L]

Sizes (spines × leaves × servers): S = ``examples/guide-evpn-vxlan.yaml`` (2 × 2 × 5), M = ``examples/size-m.yaml``
(4 × 16 × 128), L = ``examples/size-l.yaml`` (8 × 64 × 1,024), XL = ``examples/size-xl.yaml`` (64 × 512 × 16,384);
the M/L/XL files come from ``examples/make_sizes.py``.

For the planner it measures, per size: YAML parsing (pure-Python ``yaml.safe_load``, and libyaml's ``CSafeLoader``,
which the CLI uses when PyYAML has it), ``load_spec``, ``plan_fabric`` (best of several runs; two for XL), the peak
memory of ``plan_fabric`` (tracemalloc, in a separate untimed run), node and link counts and µs per link, and checks
that time grows no worse than linearly in links.

For pyavd (an optional benchmark-only dependency, ``pip install pyavd``) it builds, from the same spec and plan, the
inputs of an ``l3ls-evpn`` fabric with the same spines, leaves, MLAG pairs, uplinks, pools, ASNs, VLANs, VNIs, VRF
and server connections, validates them with ``pyavd.validate_inputs``, and times ``pyavd.get_avd_facts`` plus
``pyavd.get_device_structured_config`` for every device; it then checks that AVD's numbering agrees with the plan.
The structured-config loop stops by itself after ``--pyavd-budget`` seconds and reports how far it got.
"""

import argparse
import dataclasses
import gc
import math
import os
import platform
import re
import sys
import time
import tracemalloc
from importlib import metadata
from pathlib import Path

import netaddr
import yaml

from netbox_aifabric.planner import load_spec, plan_fabric

ROOT = Path(__file__).resolve().parent.parent
SPECS = {
    'S': ROOT / 'examples' / 'guide-evpn-vxlan.yaml',
    'M': ROOT / 'examples' / 'size-m.yaml',
    'L': ROOT / 'examples' / 'size-l.yaml',
    'XL': ROOT / 'examples' / 'size-xl.yaml',
}
RUNS = {'S': 20, 'M': 10, 'L': 5, 'XL': 2}  # timed plan_fabric runs (best one counts)
TARGETS = {'L': 0.5, 'XL': 10.0}  # plan_fabric seconds
PYAVD_RUNS = {'S': 3, 'M': 2, 'L': 1, 'XL': 1}


# --- helpers -----------------------------------------------------------------------------------------------------


def best_of(runs, fn, collect=True):
    """(best wall time in seconds, last result) of ``runs`` calls of ``fn``; garbage is collected before each.

    With ``collect=False`` the cyclic garbage collector is off during each call (reference counting still frees).
    """
    best, result = math.inf, None
    for _ in range(runs):
        result = None
        gc.collect()
        if not collect:
            gc.disable()
        try:
            start = time.perf_counter()
            result = fn()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best, result


def peak_memory(fn):
    """Peak traced memory (bytes) while ``fn`` runs, its result included (tracemalloc; not timed)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def table(header, rows, right=()):
    rows = [[str(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells):
        return '  '.join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return '\n'.join([line(header), '  '.join('-' * w for w in widths), *(line(r) for r in rows)])


def secs(value):
    if value is None:
        return '—'
    if value < 0.001:
        return f'{value * 1e6:.0f} µs'
    if value < 1:
        return f'{value * 1e3:.1f} ms'
    return f'{value:.2f} s'


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as f:
            cpu = next((line.split(':', 1)[1].strip() for line in f if line.startswith('model name')), cpu)
        with open('/proc/meminfo', encoding='utf-8') as f:
            kib = int(next(line.split()[1] for line in f if line.startswith('MemTotal')))
        memory = f'{kib / 2**20:.1f} GiB'
    except (OSError, StopIteration):
        memory = '?'
    versions = []
    for package in ('netaddr', 'PyYAML', 'pyavd'):
        try:
            versions.append(f'{package} {metadata.version(package)}')
        except metadata.PackageNotFoundError:
            pass
    return (
        f'{cpu}, {os.cpu_count()} CPUs, {memory} RAM; {platform.python_implementation()} {platform.python_version()}'
        f' on {platform.system()} {platform.release()}; {", ".join(versions)}'
    )


# --- the planner -------------------------------------------------------------------------------------------------


def bench_planner(size):
    path = SPECS[size]
    text = path.read_text(encoding='utf-8')
    runs = RUNS[size]
    parse_runs = 1 if size == 'XL' else min(runs, 5)
    parse, data = best_of(parse_runs, lambda: yaml.safe_load(text))
    parse_c = None
    if getattr(yaml, '__with_libyaml__', False):
        parse_c, _ = best_of(parse_runs, lambda: yaml.load(text, Loader=yaml.CSafeLoader))
    load, spec = best_of(runs, lambda: load_spec(data))
    plan_time, plan = best_of(runs, lambda: plan_fabric(spec))
    nogc_time, _ = best_of(runs, lambda: plan_fabric(spec), collect=False)
    # The same fabric without servers splits the time between fabric links and server links (their mix varies)
    bare = dataclasses.replace(spec, servers=())
    fabric_time, fabric_plan = best_of(runs, lambda: plan_fabric(bare), collect=False)
    peak = peak_memory(lambda: plan_fabric(spec))
    return {
        'size': size,
        'spines': len(spec.spines),
        'leaves': len(spec.leaves),
        'servers': len(spec.servers),
        'nodes': len(plan.nodes),
        'links': len(plan.links),
        'parse': parse,
        'parse_c': parse_c,
        'load': load,
        'plan': plan_time,
        'nogc': nogc_time,
        'fabric_links': len(fabric_plan.links),
        'fabric_time': fabric_time,
        'runs': runs,
        'peak': peak,
        'spec': spec,
        'plan_obj': plan,
    }


def print_planner(results):
    rows = []
    for r in results:
        target = TARGETS.get(r['size'])
        verdict = '' if target is None else f'≤ {target:g} s: {"met" if r["plan"] <= target else "MISSED"}'
        peak = r['peak']
        rows.append(
            (
                r['size'],
                f'{r["spines"]}×{r["leaves"]}×{r["servers"]:,}',
                f'{r["nodes"]:,}',
                f'{r["links"]:,}',
                secs(r['parse']),
                secs(r['parse_c']),
                secs(r['load']),
                secs(r['plan']),
                r['runs'],
                f'{peak / 2**20:.1f} MiB' if peak >= 2**20 else f'{peak / 2**10:.0f} KiB',
                f'{r["plan"] / r["links"] * 1e6:.1f}',
                verdict,
            )
        )
    header = ('size', 'spines×leaves×servers', 'nodes', 'links', 'yaml (py)', 'yaml (C)', 'load_spec', 'plan')
    header += ('runs', 'peak mem', 'µs/link', 'target (plan)')
    print(table(header, rows, right=range(2, 11)))
    print(
        '\nnodes = switches in the plan; links = uplinks + MLAG peer links + server (bond) links + RDMA links.\n'
        'plan = best plan_fabric run; peak mem = tracemalloc peak of one separate plan_fabric run (its plan '
        'included);\nyaml (py) = pure-Python yaml.safe_load, yaml (C) = libyaml CSafeLoader (what the CLI '
        'uses);\nload_spec = dict → FabricSpec.'
    )
    sized = [r for r in results if r['size'] != 'S']  # S is fixed-cost dominated (a few dozen links)
    if len(sized) < 2:
        return
    shares = ', '.join(f'{r["size"]} {r["fabric_links"] / r["links"]:.0%}' for r in sized)
    print(
        f'\nGrowth in links. The share of fabric links (uplinks and MLAG peer links, each with a /31) changes with '
        f'size\n({shares}) and a fabric link costs more than a server link, so the time is also split by kind, with '
        'the cyclic\nGC off: fabric = plan_fabric on the same spec without servers, server = the rest (bond + RDMA '
        'links).'
    )

    def count_time(r, kind):
        if kind == 'all, GC on':
            return r['links'], r['plan']
        if kind == 'all, GC off':
            return r['links'], r['nogc']
        if kind == 'fabric':
            return r['fabric_links'], r['fabric_time']
        return r['links'] - r['fabric_links'], max(r['nogc'] - r['fabric_time'], 1e-9)

    kinds = ('all, GC on', 'all, GC off', 'fabric', 'server')
    rows = []
    for r in sized:
        row = [r['size']]
        for kind in kinds:
            links, seconds = count_time(r, kind)
            row += [secs(seconds), f'{seconds / links * 1e6:.1f}']
        rows.append(row)
    header = ['size']
    for kind in kinds:
        header += [f'{kind}', 'µs/link']
    print(table(header, rows, right=range(1, 9)))
    print('Exponent k in time ∝ links^k (1 = linear):')
    worst = {}
    for kind in kinds:
        steps = []
        pairs = [*zip(sized, sized[1:])] + ([(sized[0], sized[-1])] if len(sized) > 2 else [])
        for a, b in pairs:
            (la, ta), (lb, tb) = count_time(a, kind), count_time(b, kind)
            k = math.log(tb / ta) / math.log(lb / la)
            steps.append(f'{a["size"]}→{b["size"]} {k:.2f}')
            worst[kind] = k  # the last pair is first → last size
        print(f'  {kind:<12} ' + ', '.join(steps))
    first, last = sized[0]['size'], sized[-1]['size']
    algorithm = max(worst['fabric'], worst['server'])
    print(
        f"  {first} → {last}: the planner's own work (per kind, GC off) grows with k ≤ {algorithm:.2f}: "
        f'{"no worse than linear" if algorithm <= 1.1 else "WORSE than linear"} (tolerance 1.1);\n'
        f'  all links with the GC on: k = {worst["all, GC on"]:.2f}.'
    )
    big = sized[-1]
    print(
        f"  Cyclic GC share of {big['size']}'s plan time: {(big['plan'] - big['nogc']) / big['plan']:.0%} "
        f'({secs(big["plan"])} with, {secs(big["nogc"])} without).'
    )


# --- pyavd -------------------------------------------------------------------------------------------------------


def avd_inputs(spec, plan):
    """AVD ``eos_designs`` inputs (l3ls-evpn) for the fabric of ``spec``, cabled as ``plan`` cables it.

    Same hostnames, node ids, MLAG pairs (one node group each, sharing the pair's ASN), uplink and peer-link
    interfaces, loopback / VTEP / uplink / MLAG pools with the same index formulas (leaf loopback offset = max
    spines, max_uplink_switches = max spines, max_parallel_uplinks as declared), spine ASN, VLANs with the same
    VNIs: the tenant's VLANs as SVIs with an anycast gateway in its VRF (L3VNI), the other classes as L2 VLANs.
    Every server gets a trunk LACP bond on its two leaves (the non-lossless VLANs) and an access port in the lossless
    VLAN per RDMA NIC, on the leaf interfaces the plan chose.
    """
    m, leaf_p = spec.maximums, spec.leaf_platform
    spines = sorted(spec.spines, key=lambda n: n.id)
    leaves = {n.id: n for n in spec.leaves}
    uplinks = {}  # leaf → its uplinks in the plan's order (by spine id, then parallel link)
    for link in plan.links:
        if link.kind == 'uplink':
            uplinks.setdefault(link.b_node, []).append(link)
    per_spine = spec.uplinks_per_spine
    uplink_switches = [s.name for s in spines for _ in range(per_spine)]
    uplink_interfaces = [
        leaf_p.interface_name(leaf_p.uplink_ports.port((s.id - 1) * m.parallel_uplinks + n))
        for s in spines
        for n in range(per_spine)
    ]
    node_groups = []
    for index, pair in enumerate(spec.mlag_pairs, 1):
        primary = min(pair)
        nodes = []
        for leaf_id in sorted(pair):
            name = leaves[leaf_id].name
            nodes.append(
                {
                    'name': name,
                    'id': leaf_id,
                    'uplink_switch_interfaces': [link.a_interface for link in uplinks.get(name, [])],
                }
            )
        node_groups.append(
            {'group': f'{spec.name}-pair{index}', 'bgp_as': str(spec.leaf_asn_range[0] + primary - 1), 'nodes': nodes}
        )
    owner = {vid: tenant for tenant in spec.tenants for vid in tenant.vlans}
    tenants = []
    for tenant in spec.tenants:
        svis = []
        for tc in spec.traffic_classes:
            if tc.vlan in tenant.vlans:
                svi = {'id': tc.vlan, 'name': tc.name, 'enabled': True}
                if tc.subnet:
                    network = netaddr.IPNetwork(tc.subnet)
                    svi['ip_address_virtual'] = f'{network[1]}/{network.prefixlen}'
                if tc.mtu:
                    svi['mtu'] = tc.mtu
                svis.append(svi)
        tenants.append(
            {
                'name': tenant.name,
                'mac_vrf_vni_base': spec.l2vni_base if tenant.l2vni_base is None else tenant.l2vni_base,
                'vrfs': [{'name': tenant.vrf, 'vrf_vni': tenant.l3vni, 'svis': svis}],
            }
        )
    l2vlans = [{'id': tc.vlan, 'name': tc.name} for tc in spec.traffic_classes if tc.vlan not in owner]
    if l2vlans:
        tenants.append({'name': f'{spec.name}-l2', 'mac_vrf_vni_base': spec.l2vni_base, 'l2vlans': l2vlans})
    bond_vlans = ','.join(str(tc.vlan) for tc in sorted(spec.traffic_classes, key=lambda t: t.vlan) if not tc.lossless)
    rdma_vlans = ','.join(str(tc.vlan) for tc in sorted(spec.traffic_classes, key=lambda t: t.vlan) if tc.lossless)
    servers = []
    for attachment in plan.attachments:
        bond = {
            'endpoint_ports': [f'nic{i}' for i in range(1, len(attachment.members) + 1)],
            'switches': [node for node, _ in attachment.members],
            'switch_ports': [interface for _, interface in attachment.members],
            'speed': f'{spec.nics.speed}g',
            'mode': 'trunk',
            'vlans': bond_vlans,
        }
        if attachment.lag:
            bond['port_channel'] = {'mode': 'active', 'channel_id': int(re.search(r'\d+$', attachment.lag)[0])}
        rdma = [
            {
                'endpoint_ports': [f'rdma{r}'],
                'switches': [node],
                'switch_ports': [interface],
                'speed': f'{spec.nics.rdma_speed}g',
                **({'mode': 'access', 'vlans': rdma_vlans} if rdma_vlans else {}),
            }
            for r, (node, interface) in enumerate(attachment.rdma, 1)
        ]
        servers.append({'name': attachment.server, 'adapters': [bond, *rdma]})
    return {
        'fabric_name': re.sub(r'\W', '_', spec.name).upper(),
        'underlay_routing_protocol': 'ebgp',
        'overlay_routing_protocol': 'ebgp',
        'p2p_uplinks_mtu': spec.mtu,
        'spine': {
            'defaults': {'loopback_ipv4_pool': spec.pools.loopback, 'bgp_as': str(spec.spine_asn)},
            'nodes': [{'name': s.name, 'id': s.id} for s in spines],
        },
        'l3leaf': {
            'defaults': {
                'loopback_ipv4_pool': spec.pools.loopback,
                'loopback_ipv4_offset': m.spines,
                'vtep_loopback_ipv4_pool': spec.pools.vtep,
                'uplink_switches': uplink_switches,
                'uplink_interfaces': uplink_interfaces,
                'uplink_ipv4_pool': spec.pools.p2p,
                'max_uplink_switches': m.spines,
                'max_parallel_uplinks': m.parallel_uplinks,
                'uplink_interface_speed': f'{leaf_p.uplink_ports.speed}g',
                'mlag_interfaces': [leaf_p.interface_name(p) for p in leaf_p.peer_link_ports],
                'mlag_peer_ipv4_pool': spec.pools.mlag_peer,
                'mlag_peer_l3_vlan': 4094,  # L3 peering on the MLAG peer VLAN: one /31 per pair, as planned
                'virtual_router_mac_address': spec.anycast_gateway_mac,
            },
            'node_groups': node_groups,
        },
        'tenants': tenants,
        'servers': servers,
    }


def validated_inputs(data):
    """pyavd-validated inputs per node type (the fabric data is the same for every device of a type)."""
    from pyavd import validate_inputs

    validated = {}
    for node_type in ('spine', 'l3leaf'):
        result = validate_inputs({**data, 'type': node_type})
        problems = [f'{"/".join(map(str, v.path))}: {v.message}' for v in result.validation_result.violations]
        if problems or result.validated_data is None:
            raise SystemExit(f'pyavd rejected the generated {node_type} inputs:\n  ' + '\n  '.join(problems))
        validated[node_type] = result.validated_data
    return validated


def run_pyavd(spec, validated, budget):
    """One timed pyavd pass. AVD caches per-device state on its inputs, so each device gets its own AVDDesign."""
    from pyavd import get_avd_facts, get_device_structured_config
    from pyavd.api.schemas import AVDDesign

    hosts = [(s.name, 'spine') for s in spec.spines] + [(leaf.name, 'l3leaf') for leaf in spec.leaves]
    gc.collect()
    start = time.perf_counter()
    inputs = {host: AVDDesign._from_dict(validated[node_type]) for host, node_type in hosts}
    convert = time.perf_counter() - start
    gc.collect()
    start = time.perf_counter()
    facts = get_avd_facts(inputs)
    facts_time = time.perf_counter() - start
    configs = {}
    start = time.perf_counter()
    for host, _ in hosts:
        configs[host] = get_device_structured_config(host, inputs[host], facts)
        if time.perf_counter() - start > budget:
            break
    structured = time.perf_counter() - start
    return {'convert': convert, 'facts': facts_time, 'structured': structured, 'configs': configs, 'hosts': len(hosts)}


def compare(spec, plan, configs):
    """Where AVD's structured config and the plan agree: {check: (equal, total, example difference)}."""
    checks = {}

    def check(name, ours, theirs):
        differ = sorted(set(ours) ^ set(theirs))
        checks[name] = (len(set(ours) & set(theirs)), len(set(ours) | set(theirs)), differ[0] if differ else None)

    nodes = {n.name: n for n in plan.nodes}
    configs = {host: config._as_dict() for host, config in configs.items()}
    hosts = set(configs)
    ours_lo, ours_asn, ours_vtep, avd_lo, avd_asn, avd_vtep = set(), set(), set(), set(), set(), set()
    ours_routed, avd_routed, ours_server, avd_server, ours_vni, avd_vni = set(), set(), set(), set(), set(), set()
    for host in hosts:
        node = nodes[host]
        ours_lo.add((host, node.loopback))
        ours_asn.add((host, str(node.asn)))
        if node.vtep:  # AVD numbers VTEPs pool + loopback_ipv4_offset (= max spines) + MLAG primary id
            address = netaddr.IPNetwork(node.vtep)
            ours_vtep.add((host, f'{address.ip + spec.maximums.spines}/{address.prefixlen}'))
        config = configs[host]
        loopbacks = {lo['name']: lo.get('ip_address') for lo in config.get('loopback_interfaces', [])}
        avd_lo.add((host, loopbacks.get('Loopback0')))
        if 'Loopback1' in loopbacks:
            avd_vtep.add((host, loopbacks['Loopback1']))
        avd_asn.add((host, str(config.get('router_bgp', {}).get('as'))))
        for interface in config.get('ethernet_interfaces', []):
            meta = interface.get('metadata', {})
            if interface.get('ip_address'):
                avd_routed.add((host, interface['name'], interface['ip_address']))
            if meta.get('peer_type') == 'server':
                group = interface.get('channel_group', {}).get('id')
                avd_server.add((host, interface['name'], meta['peer'], meta['peer_interface'], group))
        for svi in config.get('vlan_interfaces', []):
            if svi['name'] == 'Vlan4094' and svi.get('ip_address'):
                avd_routed.add((host, 'mlag-peer', svi['ip_address']))
        vxlan = config.get('vxlan_interface', {}).get('vxlan1', {}).get('vxlan', {})
        avd_vni.update((host, 'vlan', v['id'], v['vni']) for v in vxlan.get('vlans', []))
        avd_vni.update((host, 'vrf', v['name'], v['vni']) for v in vxlan.get('vrfs', []))
    lags = {}
    for attachment in plan.attachments:
        for node, interface in attachment.members:
            lags[node, interface] = int(re.search(r'\d+$', attachment.lag)[0]) if attachment.lag else None
    for link in plan.links:
        if link.kind == 'uplink':
            ours_routed.add((link.a_node, link.a_interface, link.a_address))
            ours_routed.add((link.b_node, link.b_interface, link.b_address))
        elif link.kind == 'mlag-peer' and link.a_address:
            ours_routed.add((link.a_node, 'mlag-peer', link.a_address))
            ours_routed.add((link.b_node, 'mlag-peer', link.b_address))
        elif link.kind in ('server', 'rdma', 'rail'):
            lag = lags.get((link.a_node, link.a_interface)) if link.kind == 'server' else None
            ours_server.add((link.a_node, link.a_interface, link.b_node, link.b_interface, lag))
    for node in plan.nodes:
        if node.role == 'leaf':
            ours_vni.update((node.name, 'vlan', v.vid, v.l2vni) for v in plan.vlans if v.l2vni is not None)
            ours_vni.update((node.name, 'vrf', v.name, v.l3vni) for v in plan.vrfs)
    ours_routed = {item for item in ours_routed if item[0] in hosts}  # all hosts unless the budget stopped pyavd
    ours_server = {item for item in ours_server if item[0] in hosts}
    ours_vni = {item for item in ours_vni if item[0] in hosts}
    check('router-id loopbacks', ours_lo, avd_lo)
    check('BGP ASNs', ours_asn, avd_asn)
    check('uplink + MLAG peer addresses', ours_routed, avd_routed)
    check('server ports (leaf, port, server, NIC, LAG)', ours_server, avd_server)
    check('VLAN → L2VNI, VRF → L3VNI', ours_vni, avd_vni)
    check('VTEP loopbacks (AVD: + max spines)', ours_vtep, avd_vtep)
    return checks


def bench_pyavd(results, sizes, budget):
    try:
        import pyavd
    except ImportError:
        print('\npyavd is not installed (.venv/bin/pip install pyavd); skipping the comparison.')
        return
    by_size = {r['size']: r for r in results}
    print(f'\n== pyavd {pyavd.__version__}: get_avd_facts + get_device_structured_config for every device ==')
    # Warm up: pyavd imports much of itself lazily on first use; time only warm passes
    warm = by_size.get('S') or bench_planner('S')
    run_pyavd(warm['spec'], validated_inputs(avd_inputs(warm['spec'], warm['plan_obj'])), budget)
    rows, notes = [], []
    for size in sizes:
        if size not in by_size:
            by_size[size] = bench_planner(size)
        r = by_size[size]
        data = avd_inputs(r['spec'], r['plan_obj'])
        start = time.perf_counter()
        validated = validated_inputs(data)
        validate = time.perf_counter() - start
        best = None
        for _ in range(PYAVD_RUNS[size]):
            run = run_pyavd(r['spec'], validated, budget)
            if best is None or run['facts'] + run['structured'] < best['facts'] + best['structured']:
                best = run
        done = len(best['configs'])
        avd = best['facts'] + best['structured']
        ours = r['plan']
        full_avd, full_ours = validate + best['convert'] + avd, r['load'] + ours
        complete = done == best['hosts']
        if not complete:
            estimate = best['facts'] + best['structured'] / done * best['hosts']
            notes.append(
                f'{size}: stopped after the {budget:g} s budget with {done}/{best["hosts"]} devices configured; '
                f'a full run would take about {estimate:.0f} s (linear extrapolation)'
            )
        rows.append(
            (
                size,
                f'{best["hosts"]} ({done} done)' if not complete else best['hosts'],
                f'{len(r["spec"].servers):,}',
                secs(validate),
                secs(best['convert']),
                secs(best['facts']),
                secs(best['structured']),
                secs(avd),
                secs(ours),
                f'{avd / ours:,.0f}×' if complete else '—',
                f'{full_avd / full_ours:,.0f}×' if complete else '—',
                PYAVD_RUNS[size],
            )
        )
        r['avd_checks'] = compare(r['spec'], r['plan_obj'], best['configs'])
    print(
        table(
            (
                'size',
                'devices',
                'servers',
                'validate',
                'AVDDesign',
                'facts',
                'struct. config',
                'pyavd',
                'ours (plan)',
                'pyavd/ours',
                'with inputs',
                'runs',
            ),
            rows,
            right=range(2, 12),
        )
    )
    print(
        '\npyavd = get_avd_facts + get_device_structured_config for every device (best run); ours = plan_fabric.\n'
        'validate = pyavd.validate_inputs once per node type (spine, l3leaf); AVDDesign = AVDDesign._from_dict per '
        'device;\nwith inputs = (validate + AVDDesign + pyavd) / (load_spec + plan_fabric).'
    )
    for note in notes:
        print(f'  {note}')
    print("\nAgreement of AVD's structured configs with the plan (equal / total items, first difference):")
    for size in sizes:
        for name, (equal, total, example) in by_size.get(size, {}).get('avd_checks', {}).items():
            suffix = f'   e.g. {example}' if example else ''
            print(f'  {size:>2} {name:<45} {equal:>6} / {total:<6}{suffix}'.rstrip())
    print(
        '  (VTEPs are offset by design: AVD numbers them pool + loopback_ipv4_offset + MLAG primary id, the offset\n'
        '  set to max spines so that leaf router ids match; the planner numbers them pool + primary id.)'
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--sizes', default='S,M,L,XL', help='planner sizes to run (default S,M,L,XL)')
    parser.add_argument('--no-pyavd', action='store_true', help='skip the pyavd comparison')
    parser.add_argument(
        '--pyavd-sizes', help='sizes to compare with pyavd (default: M and L when they are among --sizes)'
    )
    parser.add_argument(
        '--pyavd-budget', type=float, default=300, help='seconds after which pyavd stops configuring more devices'
    )
    args = parser.parse_args(argv)
    sizes = [s.strip().upper() for s in args.sizes.split(',') if s.strip()]
    if args.pyavd_sizes is None:
        avd_sizes = [s for s in sizes if s in ('M', 'L')]
    else:
        avd_sizes = [s.strip().upper() for s in args.pyavd_sizes.split(',') if s.strip()]
    unknown = sorted(set(sizes + avd_sizes) - set(SPECS))
    if unknown:
        parser.error(f'unknown size {unknown[0]} (known: {", ".join(SPECS)})')
    print(f'Machine: {machine()}')
    print('\n== netbox_aifabric.planner: plan_fabric ==')
    started = time.perf_counter()
    results = []
    for size in sizes:
        results.append(bench_planner(size))
    print_planner(results)
    if not args.no_pyavd and avd_sizes:
        bench_pyavd(results, avd_sizes, args.pyavd_budget)
    print(f'\nTotal benchmark time: {time.perf_counter() - started:.0f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
