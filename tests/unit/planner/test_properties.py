"""Property-based checks of the planner's guarantees over random valid specs and random growth."""

from collections import defaultdict

import netaddr
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.planner import load_spec, plan_fabric
from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.pure

POOLS = {'loopback': '10.0.0.0/16', 'vtep': '10.1.0.0/16', 'p2p': '10.2.0.0/16', 'mlag_peer': '10.3.0.0/16'}
CLASSES = [
    {'name': 'MGMT', 'vlan': 10, 'subnet': '192.0.2.0/24'},
    {'name': 'USERS', 'vlan': 20, 'subnet': '198.51.100.0/24'},
    {'name': 'RDMA', 'vlan': 40, 'subnet': '10.40.0.0/24', 'lossless': True},
]
FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def fabrics(draw):
    """(spec dict, a grown copy of it): the grown one adds spines, leaf pairs and servers within the maximums."""
    design = draw(st.sampled_from(['mlag', 'routed', 'evpn-vxlan']))
    max_spines = draw(st.integers(1, 6))
    max_pairs = draw(st.integers(1, 6))
    parallel = draw(st.integers(1, 3))
    per_leaf = draw(st.integers(2, 12))
    # how a rack's two leaves pair: MLAG (every design), EVPN multihoming (EVPN/VXLAN), or not at all (routed: then
    # each server has one bonded NIC on one leaf, since a bond across leaves that are not a pair is refused)
    pairing = draw(
        st.sampled_from({'mlag': ['mlag'], 'routed': ['mlag', None], 'evpn-vxlan': ['mlag', 'evpn-mh']}[design])
    )
    paired = pairing is not None

    def pick(ids):
        return sorted(draw(st.sets(st.sampled_from(ids), min_size=1)) if ids else [])

    spines_all = list(range(1, max_spines + 1))
    pairs_all = list(range(1, max_pairs + 1))
    spines_b = pick(spines_all)
    spines_a = sorted(draw(st.sets(st.sampled_from(spines_b), min_size=1)))
    pairs_b = pick(pairs_all)
    pairs_a = sorted(draw(st.sets(st.sampled_from(pairs_b), min_size=1)))
    server_ids = [s for s in range(1, per_leaf * max_pairs + 1) if (s - 1) // per_leaf + 1 in pairs_b]
    servers_b = sorted(draw(st.sets(st.sampled_from(server_ids), max_size=12))) if server_ids else []
    servers_a = [s for s in servers_b if (s - 1) // per_leaf + 1 in pairs_a and draw(st.booleans())]
    uplinks = draw(st.integers(1, parallel))

    def spec(spine_ids, pair_ids, server_list):
        leaves = [leaf for p in pair_ids for leaf in (2 * p - 1, 2 * p)]
        data = {
            'name': 'prop',
            'design': design,
            'maximums': {
                'spines': max_spines,
                'leaves': 2 * max_pairs,
                'parallel_uplinks': parallel,
                'servers_per_leaf': per_leaf,
            },
            'uplinks_per_spine': uplinks,
            'pools': {k: v for k, v in POOLS.items() if k != 'vtep' or design == 'evpn-vxlan'},
            'spine_asn': 64512,
            'leaf_asn_range': [65001, 65500],
            'spines': [{'id': s, 'name': f'spine{s}'} for s in spine_ids],
            'leaves': [{'id': leaf, 'name': f'leaf{leaf}'} for leaf in leaves],
            'mlag_pairs': [[2 * p - 1, 2 * p] for p in pair_ids] if pairing == 'mlag' else [],
            'mh_pairs': [[2 * p - 1, 2 * p] for p in pair_ids] if pairing == 'evpn-mh' else [],
            'nics': {'count': 2 if paired else 1, 'speed': 25, 'rdma_count': 1, 'rdma_speed': 100},
            'servers': [
                {
                    'id': s,
                    'name': f'gpu{s}',
                    'leaves': [2 * ((s - 1) // per_leaf) + 1, 2 * ((s - 1) // per_leaf) + 2][: 2 if paired else 1],
                }
                for s in server_list
            ],
            'traffic_classes': CLASSES,
            'anycast_gateway_mac': '02:00:00:00:00:aa',
            'leaf_platform': {
                'server_ports': {'first': 1, 'count': 16, 'speed': 25},
                'rdma_ports': {'first': 17, 'count': 16, 'speed': 100},
                'uplink_ports': {'first': 33, 'count': 18, 'speed': 100},
                'peer_link_ports': [51, 52],
            },
            'spine_platform': {'downlink_ports': {'first': 1, 'count': 36, 'speed': 100}},
        }
        if design == 'evpn-vxlan':
            data['tenants'] = [{'name': 't', 'vrf': 'T', 'l3vni': 50001, 'vlans': [20, 40]}]
        if pairing != 'mlag':
            del data['pools']['mlag_peer']
        return data

    return spec(spines_a, pairs_a, servers_a), spec(spines_b, pairs_b, servers_b)


def _in(value, pool):
    return netaddr.IPNetwork(value) in netaddr.IPNetwork(pool)


def check_invariants(spec, plan):
    nodes = plan.nodes
    loopbacks = [n.loopback for n in nodes]
    assert len(set(loopbacks)) == len(loopbacks)
    assert all(_in(lo, POOLS['loopback']) for lo in loopbacks)
    leaves = [n for n in nodes if n.role == 'leaf']
    primaries = [n for n in leaves if n.mlag_role != 'secondary']
    if spec['design'] == 'evpn-vxlan':
        vteps = [n.vtep for n in primaries]
        assert len(set(vteps)) == len(vteps) and all(_in(v, POOLS['vtep']) for v in vteps)
    asns = [n.asn for n in primaries]
    assert len(set(asns)) == len(asns) and all(65001 <= a <= 65500 for a in asns)
    subnets = [lk.subnet for lk in plan.links if lk.subnet]
    assert len(set(subnets)) == len(subnets)
    for lk in plan.links:
        if lk.kind == 'uplink':
            assert _in(lk.subnet, POOLS['p2p'])
            assert netaddr.IPNetwork(lk.a_address).ip + 1 == netaddr.IPNetwork(lk.b_address).ip
        if lk.kind == 'mlag-peer' and lk.subnet:
            assert _in(lk.subnet, POOLS['mlag_peer'])
    uplinks = {}
    for lk in plan.links:
        if lk.kind == 'uplink':
            uplinks[lk.b_node, lk.a_node] = uplinks.get((lk.b_node, lk.a_node), 0) + 1
    assert uplinks == {
        (leaf['name'], spine['name']): spec['uplinks_per_spine'] for leaf in spec['leaves'] for spine in spec['spines']
    }
    ports = [(lk.a_node, lk.a_interface) for lk in plan.links] + [(lk.b_node, lk.b_interface) for lk in plan.links]
    assert len(set(ports)) == len(ports)  # no port, switch or server, is cabled twice
    pair_of = {leaf: tuple(p) for key in ('mlag_pairs', 'mh_pairs') for p in spec[key] for leaf in p}
    names = {leaf['name']: leaf['id'] for leaf in spec['leaves']}
    for attachment in plan.attachments:  # every bond's members on one leaf or one pair
        leaves = {names[leaf] for leaf, _ in attachment.members}
        assert len(leaves) == 1 or leaves == set(pair_of[min(leaves)])
    esis = [a.esi for a in plan.attachments if a.esi]
    assert len(set(esis)) == len(esis)
    assert bool(esis) == bool(spec['mh_pairs'] and spec['servers'])
    lags = defaultdict(list)  # LAG names unique on each leaf
    for attachment in plan.attachments:
        for leaf, _ in attachment.members if attachment.lag else ():
            lags[leaf].append(attachment.lag)
    assert all(len(set(names)) == len(names) for names in lags.values())
    for vlan in plan.vlans:  # no two racks share a routed subnet; each inside its class's prefix
        subnets = [netaddr.IPNetwork(r.subnet) for r in vlan.racks]
        assert all(a == b or (a not in b and b not in a) for a in subnets for b in subnets)
        assert len(set(subnets)) == len(subnets)
        assert all(subnet in netaddr.IPNetwork(vlan.subnet) for subnet in subnets)
    vnis = [v.l2vni for v in plan.vlans if v.l2vni] + [v.l3vni for v in plan.vrfs]
    assert len(set(vnis)) == len(vnis)
    vids = [v.vid for v in plan.vlans]
    assert len(set(vids)) == len(vids)


@FAST
@given(fabrics())
def test_invariants_hold(pair):
    small, big = pair
    for spec in (small, big):
        plan = plan_fabric(load_spec(spec))
        check_invariants(spec, plan)
        assert plan == plan_fabric(load_spec(spec))  # deterministic


@FAST
@given(fabrics())
def test_growth_never_renumbers(pair):
    """Without any previous plan: allocations depend only on stable ids and maximums, not on what else exists."""
    small, big = pair
    before = dict(plan_fabric(load_spec(small)).allocations)
    after = dict(plan_fabric(load_spec(big)).allocations)
    assert {k: after[k] for k in before} == before


@FAST
@given(fabrics(), st.integers(1, 2))
def test_previous_plan_is_pinned_when_maximums_and_pools_change(pair, bump):
    small, big = pair
    previous = plan_fabric(load_spec(small))
    big['maximums']['spines'] += bump  # every formula index moves...
    big['maximums']['parallel_uplinks'] += bump
    big['maximums']['servers_per_leaf'] += bump  # ...and so does every server port...
    big['uplinks_per_spine'] = min(big['uplinks_per_spine'] + bump, big['maximums']['parallel_uplinks'])
    big['nics']['rdma_count'] += bump  # more RDMA NICs per server: new links, the old ones stay
    # 64 uplink ports: the ones it had and more after every other block; the peer link keeps its ports (a block
    # grown over them would move its cables: test_previous_fit.py)
    had = small['leaf_platform']['uplink_ports']
    uplinks = [*range(had['first'], had['first'] + had['count']), *range(201, 201 + 64 - had['count'])]
    big['leaf_platform']['uplink_ports'] = {'names': [f'Ethernet{n}' for n in uplinks], 'speed': 100}
    # the server and RDMA blocks grow where no port is in use: a pinned port stays in the block of its use (one now
    # of a use at another speed is re-cabled: test_previous_fit.py)
    extra_servers = [f'Ethernet{n}' for n in range(99, 99 + bump)]
    extra_rdma = [f'Ethernet{n}' for n in range(99 + bump, 99 + bump + (16 + bump) * (1 + bump) - 16)]
    big['leaf_platform']['server_ports'] = {
        'names': [f'Ethernet{n}' for n in range(1, 17)] + extra_servers,
        'speed': 25,
    }
    big['leaf_platform']['rdma_ports'] = {'names': [f'Ethernet{n}' for n in range(17, 33)] + extra_rdma, 'speed': 100}
    big['spine_platform']['downlink_ports']['count'] = 64
    big['pools']['loopback'] = '10.8.0.0/15'  # ...and the loopback pool moves (pinned loopbacks stay outside)
    plan = plan_fabric(load_spec(big), previous=previous)
    after = dict(plan.allocations)
    assert {k: after[k] for k, _ in previous.allocations} == dict(previous.allocations)
    addresses = [v for k, v in plan.allocations if k.split(':')[0] in ('loopback', 'vtep', 'uplink', 'mlag')]
    assert len(set(addresses)) == len(addresses)
    # every cable of the smaller plan is still there, end to end
    assert _cables(previous) <= _cables(plan)
    ports = [(lk.a_node, lk.a_interface) for lk in plan.links] + [(lk.b_node, lk.b_interface) for lk in plan.links]
    assert len(set(ports)) == len(ports)


def _cables(plan):
    return {(lk.a_node, lk.a_interface, lk.b_node, lk.b_interface) for lk in plan.links}


@FAST
@given(fabrics(), st.integers(1, 3))
def test_renumbered_pools_never_duplicate_an_address(pair, shift):
    """Pools moved onto each other's old space: a new loopback must not take a kept /31 end (or the reverse)."""
    small, big = pair
    previous = plan_fabric(load_spec(small))
    big['pools']['loopback'], big['pools']['p2p'] = POOLS['p2p'], f'10.{20 + shift}.0.0/16'
    plan = plan_fabric(load_spec(big), previous=previous)
    hosts = []
    for key, value in plan.allocations:
        if key.split(':')[0] in ('loopback', 'vtep', 'uplink', 'mlag'):
            network = netaddr.IPNetwork(value)
            hosts.extend(str(a) for a in (network if network.prefixlen >= 31 else [network.ip]))
    shared_vteps = {n.vtep for n in plan.nodes if n.mlag_role == 'secondary'}
    assert len(set(hosts)) == len(hosts), sorted(h for h in hosts if hosts.count(h) > 1 and h not in shared_vteps)


@FAST
@given(fabrics())
def test_removed_nodes_stay_reserved_until_released(pair):
    small, big = pair
    previous = plan_fabric(load_spec(big))
    kept = plan_fabric(load_spec(small), previous=previous)
    gone = set(dict(previous.allocations)) - set(dict(plan_fabric(load_spec(small)).allocations))
    assert set(kept.reserved) == gone
    assert {k: v for k, v in kept.allocations if k in gone} == {k: v for k, v in previous.allocations if k in gone}
    released = plan_fabric(load_spec(small), previous=previous, release=True)
    assert released.reserved == ()
    assert not gone & set(dict(released.allocations))


@FAST
@given(fabrics())
def test_pinned_and_fresh_paths_give_the_same_plan(pair):
    """Equivalence oracle of the /31 fast path: a fresh plan computes link addresses from block indexes, a pinned
    one parses the stored values; re-planning a plan against itself must change nothing."""
    for spec in pair:
        fresh = plan_fabric(load_spec(spec))
        assert plan_fabric(load_spec(spec), previous=fresh) == fresh
        assert plan_fabric(load_spec(spec), previous=fresh.to_dict()) == fresh
