"""Ports where the NIC lands: a single-homed NIC (RDMA, a one-NIC server) takes a port on its own leaf
only, the leaf of a pair is chosen by the server id (or a declared rail) and pinned by ``--previous``; capacity is
counted per leaf as the plan uses the ports; a bond on a single leaf is valid in every design; and
``fit_uplinks`` derives the spines × parallel uplinks a leaf's ports hold."""

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.facts.cabling import cabling_facts
from netbox_aifabric.planner import SpecError, fit_uplinks, leaf_port_demand, load_spec, plan_fabric
from tests.hypothesis_profiles import examples
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure

# The ToR the guide implies, as a CLI leaf_platform: 48 x 25G server ports, then 8 x 100G: RDMA 49-52,
# uplinks 53-54, MLAG peer link 55-56
GUIDE_TOR = {
    'name': '48x25G+8x100G',
    'interface': 'Ethernet{port}',
    'server_ports': {'first': 1, 'count': 48, 'speed': 25},
    'rdma_ports': {'first': 49, 'count': 4, 'speed': 100},
    'uplink_ports': {'first': 53, 'count': 2, 'speed': 100},
    'peer_link_ports': [55, 56],
    'peer_link_speed': 100,
}


def guide_on_tor(design='mlag'):
    """The guide's cluster (4 GPU servers and a storage node, 2 x 25G bonded + 1 x 100G RDMA each, one leaf pair,
    two spines) on the 48+8 ToR: 2 spines x 1 uplink is what the 8 x 100G hold next to the peer link."""
    spec = example(design)
    spec['maximums'] = {'spines': 2, 'leaves': 2, 'parallel_uplinks': 1, 'servers_per_leaf': 48}
    spec['spines'] = [{'id': 1, 'name': 'spine1'}, {'id': 2, 'name': 'spine2'}]
    spec['leaf_platform'] = GUIDE_TOR
    return spec


def rdma_ports(plan):
    """``{leaf: [RDMA interfaces]}`` of the plan's RDMA links."""
    used = {}
    for link in plan.links:
        if link.kind == 'rdma':
            used.setdefault(link.a_node, []).append(link.a_interface)
    return used


@pytest.mark.parametrize('design', ['mlag', 'routed', 'evpn-vxlan'])
def test_the_guide_cluster_fits_the_48x25g_8x100g_tor(design):
    spec = guide_on_tor(design)
    plan = plan_fabric(load_spec(spec))
    # derived from the input: RDMA NIC of server s lands on leaf (s - 1) mod 2 of the pair, one port each
    expected = Counter(spec['servers'][i]['leaves'][(s['id'] - 1) % 2] for i, s in enumerate(spec['servers']))
    assert expected == {1: 3, 2: 2}
    used = rdma_ports(plan)
    assert {leaf: len(ports) for leaf, ports in used.items()} == {'leaf1': 3, 'leaf2': 2}
    # each leaf fills its RDMA ports from the first: 3 + 2 of the 4, nothing reserved on the other leaf
    assert sorted(used['leaf1']) == ['Ethernet49', 'Ethernet50', 'Ethernet51']
    assert sorted(used['leaf2']) == ['Ethernet49', 'Ethernet50']
    rdma_keys = [key for key, _ in plan.allocations if ':rdma:' in key]
    assert len(rdma_keys) == len(spec['servers'])
    uplinks = {(lk.b_node, lk.b_interface) for lk in plan.links if lk.kind == 'uplink'}
    assert uplinks == {(leaf, f'Ethernet{p}') for leaf in ('leaf1', 'leaf2') for p in (53, 54)}
    peer = {(lk.a_node, lk.a_interface) for lk in plan.links if lk.kind == 'mlag-peer'}
    assert peer == {('leaf1', 'Ethernet55'), ('leaf1', 'Ethernet56')}
    demand = leaf_port_demand(load_spec(spec))
    assert (demand[1, 'rdma'], demand[2, 'rdma'], demand[1, 'server'], demand[2, 'server']) == (3, 2, 5, 5)


def test_a_leaf_short_of_rdma_ports_is_named_with_the_speed_and_the_count():
    spec = guide_on_tor()
    spec['leaf_platform'] = {**GUIDE_TOR, 'rdma_ports': {'first': 49, 'count': 2, 'speed': 100}}
    with pytest.raises(SpecError) as caught:
        plan_fabric(load_spec(spec))
    e = caught.value
    assert (e.field, e.node) == ('leaf_platform.rdma_ports', 'leaf1')
    assert e.message == (
        'leaf1 needs 3 rdma ports at 100G (one per RDMA NIC that lands on it); leaf_platform.rdma_ports has 2: '
        '1 missing'
    )


def test_the_rdma_leaf_is_pinned_when_a_single_leaf_rack_becomes_a_pair():
    spec = example('routed')
    spec['leaves'] = [{'id': 1, 'name': 'leaf1'}]
    spec['mlag_pairs'] = []
    for server in spec['servers']:
        server['leaves'] = [1]  # a bond on the one leaf of the rack
    before = plan_fabric(load_spec(spec))
    grown = example('routed')  # the rack gets its second leaf: bonds span the pair now
    after = plan_fabric(load_spec(grown), previous=before)
    old = {k: v for k, v in before.allocations if ':rdma:' in k}
    assert old and {k: v for k, v in after.allocations if k in old} == old
    assert not [k for k in after.reserved if ':rdma:' in k]
    # without the previous plan the even servers' RDMA NICs would go to leaf2
    fresh = dict(plan_fabric(load_spec(grown)).allocations)
    assert any(key.startswith('port:leaf:2:rdma:') for key in fresh)


@pytest.mark.parametrize(
    ('design', 'leaves'), [('routed', [5]), ('routed', [5, 5]), ('evpn-vxlan', [5]), ('mlag', [1]), ('evpn-mh', [1, 1])]
)
def test_a_bond_on_a_single_leaf_in_every_design(design, leaves):
    spec = example(design)
    if design in ('routed', 'evpn-vxlan'):  # a single-leaf rack next to the pair
        spec['maximums']['leaves'] = max(spec['maximums']['leaves'], 5)
        spec['leaves'].append({'id': 5, 'name': 'leaf5'})
    spec['servers'].append({'id': 9, 'name': 'gpu9', 'leaves': leaves})
    plan = plan_fabric(load_spec(spec))
    leaf = f'leaf{leaves[0]}'
    bond = next(a for a in plan.attachments if a.server == 'gpu9')
    assert [m[0] for m in bond.members] == [leaf, leaf]  # both bonded NICs on the one leaf, two ports
    assert len({m[1] for m in bond.members}) == 2
    assert bond.lag is not None and bond.esi is None
    lag = next(lag for lag in cabling_facts(plan)[leaf].lags if lag.name == bond.lag)
    assert (lag.members, lag.dual_homed) == (tuple(m[1] for m in bond.members), False)
    other = next(a for a in plan.attachments if a.server == 'gpu1')
    other_lag = next(lag for lag in cabling_facts(plan)['leaf1'].lags if lag.name == other.lag)
    assert other_lag.dual_homed  # the pair's bonds stay MLAG interfaces / Ethernet segments
    rdma = [lk for lk in plan.links if lk.kind == 'rdma' and lk.b_node == 'gpu9']
    assert [lk.a_node for lk in rdma] == [leaf]


def test_a_bond_list_of_another_length_is_named():
    spec = example('mlag')
    spec['nics']['count'] = 3
    with pytest.raises(SpecError) as caught:
        plan_fabric(load_spec(spec))
    assert caught.value.field == 'servers[0].leaves'
    assert 'list one leaf per NIC, or one leaf for all of them' in caught.value.message


@st.composite
def racks(draw):
    """A spec of 1-3 racks (pairs or single leaves), servers with 1 or 2 bonded NICs (one NIC listed on its pair or
    one leaf) and 1-3 RDMA NICs on them, some on one leaf; BMCs on the leaves or out of band."""
    design = draw(st.sampled_from(['mlag', 'routed', 'evpn-vxlan']))
    spec = example(design)
    rdma = draw(st.integers(1, 3))
    spec['nics']['count'] = draw(st.sampled_from([1, 2]))
    kinds = draw(
        st.lists(st.sampled_from(['pair', 'single'] if design != 'mlag' else ['pair']), min_size=1, max_size=3)
    )
    leaves, pairs, rack_leaves = [], [], []
    for index, kind in enumerate(kinds):
        first = 2 * index + 1
        ids = [first, first + 1] if kind == 'pair' else [first]
        leaves += [{'id': i, 'name': f'leaf{i}'} for i in ids]
        rack_leaves.append(ids)
        if kind == 'pair':
            pairs.append(ids)
    servers = []
    for sid in sorted(draw(st.sets(st.integers(1, 40), min_size=1, max_size=12))):
        ids = draw(st.sampled_from(rack_leaves))
        single = len(ids) == 1 or draw(st.booleans())
        servers.append({'id': sid, 'name': f'gpu{sid}', 'leaves': [draw(st.sampled_from(ids))] if single else ids})
    spec.update(leaves=leaves, servers=servers, mlag_pairs=pairs, mh_pairs=[])
    spec['maximums'].update(leaves=6, servers_per_leaf=40)
    spec['nics']['rdma_count'] = rdma
    spec['leaf_platform']['rdma_ports'] = {'first': 300, 'count': 120, 'speed': 100}
    spec['leaf_platform']['server_ports'] = {'first': 200, 'count': 80, 'speed': 25}
    if draw(st.booleans()):
        spec['bmc'] = 'leaf'
        spec['leaf_platform']['bmc_ports'] = {'first': 500, 'count': 40, 'speed': 1}
    return spec


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(racks())
def test_no_single_homed_nic_reserves_a_port_on_another_leaf(spec):
    plan = plan_fabric(load_spec(spec))
    names = {leaf['id']: leaf['name'] for leaf in spec['leaves']}
    per_leaf = Counter()
    for server in spec['servers']:
        own = {names[leaf] for leaf in server['leaves']}
        links = [lk for lk in plan.links if lk.kind == 'rdma' and lk.b_node == server['name']]
        assert len(links) == spec['nics']['rdma_count']  # one port per NIC, not one per leaf of the pair
        assert {lk.a_node for lk in links} <= own
        if len(own) == 2 and spec['nics']['rdma_count'] > 1:
            assert {lk.a_node for lk in links} == own  # a pair's leaves both carry RDMA
        per_leaf.update(lk.a_node for lk in links)
    keys = [k for k, _ in plan.allocations if ':rdma:' in k]
    assert len(keys) == len(spec['servers']) * spec['nics']['rdma_count']
    demand = leaf_port_demand(load_spec(spec))
    assert {names[leaf]: n for (leaf, use), n in demand.items() if use == 'rdma'} == dict(per_leaf)
    check_single_homed_ports(spec, plan, names, demand)


def check_single_homed_ports(spec, plan, names, demand):
    """A one-NIC server and a BMC on the leaves take one port, on one of the server's leaves: of a pair the one its
    id gives (odd ids the first listed, even ids the second), counted on that leaf only."""
    per_leaf = Counter()
    for server in spec['servers']:
        home = names[server['leaves'][(server['id'] - 1) % len(server['leaves'])]]
        nics = [lk.a_node for lk in plan.links if lk.kind == 'server' and lk.b_node == server['name']]
        if spec['nics']['count'] == 1:
            assert nics == [home]
        elif len(server['leaves']) == 2:
            assert nics == [names[leaf] for leaf in server['leaves']]  # NIC k to leaves[k]
        else:
            assert nics == [home, home]  # a bond on a single leaf
        bmcs = [lk.a_node for lk in plan.links if lk.kind == 'bmc' and lk.b_node == server['name']]
        assert bmcs == ([home] if spec.get('bmc') == 'leaf' else [])
        per_leaf.update(nics)
    assert {names[leaf]: n for (leaf, use), n in demand.items() if use == 'server'} == dict(per_leaf)


def test_a_one_nic_server_keeps_the_leaf_an_earlier_plan_gave():
    """One-NIC servers listed on one leaf of the pair (all on leaf1), then on the pair: with the earlier plan each
    keeps its port (and its BMC's); planned afresh the even ids go to leaf2."""
    spec = example('mlag')
    spec['nics']['count'] = 1
    spec['bmc'] = 'leaf'
    spec['leaf_platform']['bmc_ports'] = {'first': 100, 'count': 16, 'speed': 1}
    for server in spec['servers']:
        server['leaves'] = [1]
    before = plan_fabric(load_spec(spec))
    for server in spec['servers']:
        server['leaves'] = [1, 2]
    after = plan_fabric(load_spec(spec), previous=before)
    old = {k: v for k, v in before.allocations if k.startswith('port:leaf:')}
    assert {k: v for k, v in after.allocations if k in old} == old
    assert not after.reserved
    fresh = dict(plan_fabric(load_spec(spec)).allocations)
    even = [s['id'] for s in spec['servers'] if s['id'] % 2 == 0]
    assert even and all(f'port:leaf:2:server:{i}' in fresh and f'port:leaf:2:bmc:{i}' in fresh for i in even)


@pytest.mark.parametrize(
    ('speeds', 'kwargs', 'shape', 'free'),
    [
        ([25] * 48 + [100] * 8, {'rdma': 3, 'rdma_speed': 100}, (2, 1), 1),  # the guide's ToR, its cluster
        ([25] * 48 + [100] * 8, {'rdma': 2, 'rdma_speed': 100}, (4, 1), 0),
        ([25] * 48 + [100] * 8, {'rdma': 8, 'rdma_speed': 25}, (4, 1), 2),  # RDMA on the 25G ports
        ([100] * 32, {'rdma': 4, 'rdma_speed': 100}, (4, 2), 18),
        ([25] * 48 + [100] * 8, {'peer_link': 0, 'rdma': 0}, (4, 2), 0),
    ],
)
def test_fit_uplinks(speeds, kwargs, shape, free):
    fit = fit_uplinks(speeds, 100, **kwargs)
    assert (fit.spines, fit.parallel_uplinks, fit.free) == (*shape, free)
    assert fit.ports - fit.peer_link - fit.rdma - fit.uplinks == fit.free


def test_fit_uplinks_plans_the_guide_cluster_on_its_tor():
    speeds = [25] * 48 + [100] * 8
    demand = leaf_port_demand(load_spec(guide_on_tor()))
    fit = fit_uplinks(speeds, 100, rdma=max(n for (_, use), n in demand.items() if use == 'rdma'), rdma_speed=100)
    assert fit.reason == (
        '8 ports at 100G: 2 for the MLAG peer link, 3 for RDMA NICs, 2 spines × 1 parallel uplinks, 1 free'
    )
    spec = guide_on_tor()
    spec['maximums'].update(spines=fit.spines, parallel_uplinks=fit.parallel_uplinks)
    assert plan_fabric(load_spec(spec)).summary[0] == ('spines', 2)


def test_fit_uplinks_names_a_leaf_without_room():
    with pytest.raises(SpecError) as caught:
        fit_uplinks([25] * 48 + [100] * 4, 100, rdma=3, rdma_speed=100)
    assert caught.value.field == 'leaf_platform.uplink_ports'
    assert caught.value.message == '4 ports at 100G cannot hold 2 for the peer link, 3 for RDMA NICs and 1 uplink'
    with pytest.raises(SpecError):
        fit_uplinks([100] * 32, 100, spine_port_speeds=[100] * 8, max_leaves=10)
