"""Ports as pinned allocations, racks (the routed design's per-rack subnets, bonds only on pairs), EVPN multihoming,
and warnings as data. Expectations are derived from the spec's numbers, not copied from a plan."""

import math
import os

import netaddr
import pytest

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.intake.cli import format_table
from netbox_aifabric.planner import PoolExhaustedError, SpecError, load_spec, plan_fabric
from netbox_aifabric.planner.ports import PORTS_MAX
from tests.render_fixtures import guide_intent
from tests.unit.planner.helpers import ROOT, example

pytestmark = pytest.mark.pure
GOLDEN = ROOT / 'tests' / 'unit' / 'planner' / 'golden'


def rejected(spec, previous=None, error=SpecError):
    with pytest.raises(error) as info:
        plan_fabric(load_spec(spec), previous=previous)
    return info.value


def cables(plan):
    return {(lk.a_node, lk.a_interface, lk.b_node, lk.b_interface) for lk in plan.links}


def grown(spec, racks=2):
    """The guide grown to ``racks`` racks: leaf pairs (3, 4), (5, 6), … with two GPU servers each (ids 16k + 1, +2 on
    pair k + 1, so each keeps the preferred port (id − 1) mod 16 of its pair)."""
    for k in range(1, racks):
        a, b = 2 * k + 1, 2 * k + 2
        spec['leaves'] += [{'id': a, 'name': f'leaf{a}'}, {'id': b, 'name': f'leaf{b}'}]
        spec['mlag_pairs'].append([a, b])
        spec['servers'] += [{'id': 16 * k + i, 'name': f'gpu{16 * k + i}', 'leaves': [a, b]} for i in (1, 2)]
    return spec


def four_leaves(spec):
    return grown(spec, 2)


# --- ports ---------------------------------------------------------------------------------------------------------


def test_raising_servers_per_leaf_keeps_every_cable():
    """(id − 1) mod servers_per_leaf moves when the maximum grows; the pinned ports do not."""
    spec = four_leaves(example('routed'))
    before = plan_fabric(load_spec(spec))
    spec['maximums']['servers_per_leaf'] = 32
    # 32 RDMA ports: the 16 it had (their cables stay) and 16 more beyond the uplinks and the peer link
    rdma = [f'Ethernet{n}' for n in (*range(49, 65), *range(100, 116))]
    spec['leaf_platform']['rdma_ports'] = {'names': rdma, 'speed': 100}
    spec['servers'].append({'id': 33, 'name': 'gpu33', 'leaves': [3, 4]})  # slot (33 − 1) mod 32 = 0: gpu17's port
    unpinned = plan_fabric(load_spec(spec))
    pinned = plan_fabric(load_spec(spec), previous=before)
    assert not cables(before) <= cables(unpinned)  # without the previous plan gpu17 would be re-cabled...
    assert cables(before) <= cables(pinned)  # ...with it every cable stays
    gpu33 = sorted((lk.a_node, lk.a_interface) for lk in pinned.links if lk.b_node == 'gpu33' and lk.kind == 'server')
    # gpu17 holds Ethernet1 (slot 0) on leaf3/leaf4; gpu18 Ethernet2: the first free server port is Ethernet3
    assert gpu33 == [('leaf3', 'Ethernet3'), ('leaf4', 'Ethernet3')]


def test_raising_parallel_uplinks_keeps_every_uplink_port():
    spec = example('routed')
    before = plan_fabric(load_spec(spec))
    spec['maximums']['parallel_uplinks'] = 4
    # 16 uplink ports around the peer link (73, 74): a block grown over a cabled port would move its cable
    uplinks = [f'Ethernet{n}' for n in (*range(65, 73), *range(75, 83))]
    spec['leaf_platform']['uplink_ports'] = {'names': uplinks, 'speed': 100}
    spec['spine_platform']['downlink_ports']['count'] = 32
    spec['uplinks_per_spine'] = 2
    after = plan_fabric(load_spec(spec), previous=before)
    assert cables(before) <= cables(after)
    assert sum(1 for lk in after.links if lk.kind == 'uplink') == 2 * 2 * 2  # leaves × spines × uplinks


def test_full_server_port_inventory_is_a_named_error():
    """A removed server's ports stay held: the pair's 16 server ports are all taken for the new server."""
    spec = example('mlag')
    spec['servers'] = [{'id': i, 'name': f'gpu{i}', 'leaves': [1, 2]} for i in range(1, 17)]
    spec['leaf_platform']['server_ports']['count'] = 16
    previous = plan_fabric(load_spec(spec))
    spec['servers'][-1] = {'id': 17, 'name': 'gpu17', 'leaves': [1, 2]}
    e = rejected(spec, previous, PoolExhaustedError)
    assert (e.field, e.node) == ('leaf_platform.server_ports', 'leaf1')
    assert e.message == (
        'leaf1 has no free server port at 25G: 16 needed, 16 in the inventory, 15 of them in use and 1 held by removed '
        'links (reserved): plan with --release to free them'
    )
    released = plan_fabric(load_spec(spec), previous=previous, release=True)
    assert ('leaf1', 'Ethernet16', 'gpu17', 'nic1') in cables(released)


def test_overlapping_port_blocks_are_refused():
    spec = example('routed')
    spec['leaf_platform']['uplink_ports']['first'] = 60  # the RDMA ports are 49–64
    e = rejected(spec)
    assert (e.field, e.message) == (
        'leaf_platform.uplink_ports',
        'port Ethernet60 is in leaf_platform.rdma_ports too: a port can have one use only',
    )


@pytest.mark.parametrize(
    ('pattern', 'message'),
    [
        ('Ethernet', '"Ethernet" has no {port}: every port would get the same name'),
        ('Ethernet{slot}/{port}', '"Ethernet{slot}/{port}" may only use {port} (e.g. Ethernet{port}), found {slot}'),
        (
            'Eth{port.__class__}',
            '"Eth{port.__class__}" may only use {port} (e.g. Ethernet{port}), found {port.__class__}',
        ),
        ('Eth{port!r}', '"Eth{port!r}" may only use {port} (e.g. Ethernet{port}), found {port!r}'),
        ('Eth{port:>5}', '"Eth{port:>5}" may only use {port} (e.g. Ethernet{port}), found {port:>5}'),
        ('Eth{port', '"Eth{port" is not a valid name pattern (expected \'}\' before end of string)'),
    ],
)
def test_interface_name_patterns(pattern, message):
    spec = example('routed')
    spec['leaf_platform']['interface'] = pattern
    assert (rejected(spec).field, rejected(spec).message) == ('leaf_platform.interface', message)


def test_named_ports_and_numeric_format():
    """A block can be a list of names (a device type's interfaces, breakout lanes) or a pattern of its own."""
    spec = example('routed')
    spec['leaf_platform']['uplink_ports'] = {
        'names': [f'Ethernet{49 + i // 4}/{i % 4 + 1}' for i in range(8)],
        'speed': 100,
    }
    spec['leaf_platform']['rdma_ports'] = {'first': 1, 'count': 16, 'speed': 100, 'interface': 'Ethernet{port:02d}/1'}
    spec['leaf_platform']['peer_link_ports'] = []
    spec['leaf_platform']['peer_link_names'] = ['Ethernet55/1', 'Ethernet56/1']
    plan = plan_fabric(load_spec(spec))
    leaf1 = sorted(lk.b_interface for lk in plan.links if lk.kind == 'uplink' and lk.b_node == 'leaf1')
    # uplink index (spine − 1) × max parallel uplinks (2) + (n − 1): spine1 → 0, spine2 → 2
    assert leaf1 == ['Ethernet49/1', 'Ethernet49/3']
    assert {lk.a_interface for lk in plan.links if lk.kind == 'rdma' and lk.b_node == 'gpu1'} == {'Ethernet01/1'}
    assert {lk.a_interface for lk in plan.links if lk.kind == 'mlag-peer'} == {'Ethernet55/1', 'Ethernet56/1'}


@pytest.mark.parametrize(
    ('key', 'speed', 'field', 'message'),
    [
        ('speed', 100, 'nics.speed', 'a bonded server NIC at 100G is faster than the 25G ports it lands on'),
        ('speed', 10, 'nics.speed', 'a bonded server NIC at 10G: the ports run 25G, not 10G'),
        ('rdma_speed', 200, 'nics.rdma_speed', 'an RDMA NIC at 200G is faster than the 100G ports it lands on'),
    ],
)
def test_nic_speeds_must_fit_their_ports(key, speed, field, message):
    spec = example('routed')
    spec['nics'][key] = speed
    e = rejected(spec)
    assert (e.field, e.message) == (field, message)


def test_a_port_that_runs_a_lower_speed_takes_the_nic():
    spec = example('routed')
    spec['nics']['speed'] = 10
    spec['leaf_platform']['server_ports']['speeds'] = [10]
    plan = plan_fabric(load_spec(spec))
    assert {lk.speed for lk in plan.links if lk.kind == 'server'} == {10}


def test_uplinks_need_a_speed_both_ends_run():
    spec = example('routed')
    spec['spine_platform']['downlink_ports']['speed'] = 400
    e = rejected(spec)
    assert (e.field, e.message) == (
        'spine_platform.downlink_ports',
        'leaf-spine uplinks: the ports run 100G and 400G; they share no speed',
    )
    spec['spine_platform']['downlink_ports']['speeds'] = [100]
    assert {lk.speed for lk in plan_fabric(load_spec(spec)).links if lk.kind == 'uplink'} == {100}


# --- racks ---------------------------------------------------------------------------------------------------------


def test_bond_across_leaves_that_are_not_a_pair_is_refused_in_every_design():
    for design in ('routed', 'evpn-vxlan', 'mlag'):
        spec = example(design)
        spec['maximums']['leaves'] = max(spec['maximums']['leaves'], 4)
        spec['leaves'] += [{'id': 3, 'name': 'leaf3'}, {'id': 4, 'name': 'leaf4'}]
        spec['mlag_pairs'] = [[1, 2], [3, 4]]
        spec['servers'][0]['leaves'] = [2, 3]
        e = rejected(spec)
        assert (e.field, e.node) == ('servers[0].leaves', 'gpu1'), design
        assert e.message == (
            'the bond of gpu1 spans leaf2, leaf3, which are not a leaf pair: a LAG needs its members on one leaf or '
            'one MLAG / EVPN multihoming pair'
        )


def test_routed_design_gives_each_rack_its_own_subnet_and_gateway():
    spec = four_leaves(example('routed'))
    plan = plan_fabric(load_spec(spec))
    contexts = build_contexts(plan, _intent('routed'))
    classes = {tc['name']: tc for tc in spec['traffic_classes']}
    max_leaves = spec['maximums']['leaves']
    for vlan in plan.vlans:
        tc = classes[vlan.name]
        if not tc.get('routed', True):
            assert (vlan.racks, vlan.gateway) == ((), None)
            continue
        prefix = netaddr.IPNetwork(tc['subnet'])
        length = prefix.prefixlen + math.ceil(math.log2(max_leaves))  # room for max_leaves single-leaf racks
        blocks = list(prefix.subnet(length))
        expected = {1: blocks[0], 3: blocks[2]}  # block = the rack's lowest leaf id − 1
        assert {r.rack: netaddr.IPNetwork(r.subnet) for r in vlan.racks} == expected
        for rack in vlan.racks:
            assert rack.gateway == f'{expected[rack.rack][1]}/{length}'
            for leaf in rack.leaves:  # each leaf carries its own rack's gateway only
                mine = next(v for v in contexts[leaf]['vlans'] if v['vid'] == vlan.vid)
                assert (mine['subnet'], mine['gateway']) == (rack.subnet, rack.gateway)


@pytest.mark.parametrize('racks', [2, 4])
def test_routed_growth_keeps_the_rack_subnets(racks):
    """Golden: the guide's routed cluster grown from one rack to 2 and 4 (pinned), as reviewed allocation tables."""
    spec = example('routed')
    before = plan_fabric(load_spec(spec))
    plan = plan_fabric(load_spec(grown(spec, racks)), previous=before)
    assert {k: v for k, v in plan.allocations if k in dict(before.allocations)} == dict(before.allocations)
    assert cables(before) <= cables(plan)
    text = format_table(plan)
    path = GOLDEN / f'guide-routed-{racks}-racks.txt'
    if os.environ.get('UPDATE_GOLDEN'):
        path.write_text(text)
    assert text == path.read_text()


def test_class_too_small_for_its_racks():
    spec = example('routed')
    spec['traffic_classes'][1]['subnet'] = '198.51.100.0/29'  # USERS: 8 possible racks (maximums.leaves) need /32
    e = rejected(spec)
    assert (e.field, e.message) == (
        'traffic_classes[1].subnet',
        '198.51.100.0/29 is too small for a /30 per rack: 8 racks possible (max leaves), 2 fit; use a shorter '
        'prefix or set the rack prefix length',
    )


def test_explicit_rack_prefix_that_holds_fewer_racks_than_the_fabric_has():
    spec = five_single_leaf_racks()
    spec['traffic_classes'][1]['rack_prefixlen'] = 26  # a /24 holds 4 /26s
    e = rejected(spec)
    assert (e.field, e.message) == (
        'traffic_classes[1].subnet',
        '198.51.100.0/24 holds 4 rack subnets of /26; the fabric has 5 racks (leaf pairs and single leaves), each '
        'needs one: use a shorter prefix or a longer rack prefix length',
    )


def five_single_leaf_racks():
    spec = example('routed')
    spec['mlag_pairs'] = []
    del spec['pools']['mlag_peer']
    spec['nics']['count'] = 1
    spec['leaves'] = [{'id': i, 'name': f'leaf{i}'} for i in range(1, 6)]
    spec['servers'] = [{'id': i, 'name': f'gpu{i}', 'leaves': [i]} for i in range(1, 6)]
    return spec


def test_unrouted_class_across_racks_is_a_warning():
    plan = plan_fabric(load_spec(five_single_leaf_racks()))
    rdma = next(i for i, tc in enumerate(example('routed')['traffic_classes']) if tc['name'] == 'RDMA')
    warnings = [w for w in plan.warnings if w.code == 'unrouted-class-across-racks']
    assert [(w.field, w.message) for w in warnings] == [
        (
            f'traffic_classes[{rdma}].routed',
            'RDMA (VLAN 40) is not routed, but servers in 5 racks carry it and the racks share no L2 in the routed '
            'design: hosts in different racks cannot reach each other in it',
        )
    ]
    assert not [w for w in plan_fabric(load_spec(example('routed'))).warnings if w.code == warnings[0].code]


def test_oversubscription_above_target_is_a_warning():
    spec = example('routed')
    spec['oversubscription_target'] = 2
    plan = plan_fabric(load_spec(spec))
    expected = []
    for leaf in ('leaf1', 'leaf2'):
        down = sum(lk.speed for lk in plan.links if lk.a_node == leaf and lk.kind in ('server', 'rdma'))
        up = sum(lk.speed for lk in plan.links if lk.b_node == leaf and lk.kind == 'uplink')
        if down / up > 2:
            expected.append(
                f'{leaf}: {down}G to servers over {up}G of uplinks is {round(down / up, 2)}:1, above the target of 2:1'
            )
    assert expected  # leaf1 carries three RDMA NICs, leaf2 two: only leaf1 is above 2:1
    assert [w.message for w in plan.warnings if w.code == 'oversubscription'] == expected


# --- EVPN multihoming ----------------------------------------------------------------------------------------------


def test_evpn_multihoming_pair():
    spec = example('evpn-mh')
    plan = plan_fabric(load_spec(spec))
    nodes = {n.name: n for n in plan.nodes}
    assert (nodes['leaf1'].mh_peer, nodes['leaf2'].mh_peer) == ('leaf2', 'leaf1')
    assert nodes['leaf1'].mlag_peer is None and nodes['leaf1'].vtep != nodes['leaf2'].vtep  # each leaf its own VTEP
    assert not [lk for lk in plan.links if lk.kind == 'mlag-peer']
    for server in spec['servers']:
        esi = next(a.esi for a in plan.attachments if a.server == server['name'])
        # type 3: the pair's system MAC 02:ae:00:00 + primary leaf id (2 bytes), local id = the server id (3 bytes)
        local = server['id'].to_bytes(3, 'big').hex(':')
        assert esi == f'03:02:ae:00:00:00:01:{local}'
    contexts = build_contexts(plan, _intent('evpn-vxlan'))
    for a in plan.attachments:
        segments = {ctx['evpn_mh']['peer']: ctx['lags'] for ctx in (contexts['leaf1'], contexts['leaf2'])}
        for lags in segments.values():
            lag = next(x for x in lags if x['name'] == a.lag)
            assert (lag['esi'], lag['es_id'], lag['es_sys_mac']) == (
                a.esi,
                int(a.esi.replace(':', '')[-6:], 16),
                a.esi[3:20],
            )


def test_esis_are_pinned():
    spec = example('evpn-mh')
    before = plan_fabric(load_spec(spec))
    spec['servers'] = spec['servers'][1:] + [{'id': 9, 'name': 'gpu9', 'leaves': [1, 2]}]
    after = plan_fabric(load_spec(spec), previous=before)
    kept = {a.server: a.esi for a in before.attachments if a.server != 'gpu1'}
    assert {a.server: a.esi for a in after.attachments if a.server in kept} == kept
    assert next(a.esi for a in after.attachments if a.server == 'gpu9').endswith(':00:00:09')


@pytest.mark.parametrize(
    ('change', 'field', 'message'),
    [
        (
            {'design': 'routed', 'mh_pairs': [[1, 2]], 'mlag_pairs': []},
            'mh_pairs',
            'EVPN multihoming pairs need the evpn-vxlan design, not routed',
        ),
        ({'mh_pairs': [[1, 2]], 'mlag_pairs': [[1, 2]]}, 'mh_pairs[0]', None),
        ({'mh_pairs': [[1, 1]]}, 'mh_pairs[0]', 'leaf id 1 cannot pair with itself'),
        ({'mh_pairs': [[1, 2, 3]]}, 'mh_pairs[0]', 'an EVPN multihoming pair needs exactly two leaves, got 3'),
        ({'mh_pairs': [[1, 7]]}, 'mh_pairs[0]', 'leaf id 7 is not a declared leaf'),
    ],
)
def test_multihoming_pair_errors(change, field, message):
    spec = example('evpn-mh')
    spec.update(change)
    if spec['design'] == 'routed':
        spec.pop('tenants', None)
    if spec.get('mlag_pairs'):
        spec['pools']['mlag_peer'] = '10.255.3.0/28'
        spec['leaf_platform']['peer_link_ports'] = [73, 74]
    e = rejected(spec)
    assert e.field == field
    if message is None:  # a leaf in both kinds of pair: MLAG is checked first
        assert 'already' in e.message
    else:
        assert e.message == message


def _intent(design):
    return guide_intent(design)


def test_a_removed_servers_lag_number_stays_reserved_until_released():
    """Like its ports: a new server whose preferred LAG number a removed server held gets another one."""
    spec = example('mlag')
    before = plan_fabric(load_spec(spec))
    removed = spec['servers'].pop(4)  # storage1, id 5: LAG number (5 − 1) mod 16 + 1 = 5
    per_leaf = spec['maximums']['servers_per_leaf']
    newcomer = removed['id'] + per_leaf  # the same preferred number
    spec['servers'].append({'id': newcomer, 'name': 'gpu-new', 'leaves': [1, 2]})
    held = plan_fabric(load_spec(spec), previous=before)
    lag = dict(before.allocations)[f'lag:server:{removed["id"]}']
    assert dict(held.allocations)[f'lag:server:{newcomer}'] != lag
    released = plan_fabric(load_spec(spec), previous=before, release=True)
    assert dict(released.allocations)[f'lag:server:{newcomer}'] == lag


@pytest.mark.parametrize(
    ('block', 'field', 'message'),
    [
        (
            {'names': ['Ethernet49/1', 'Ethernet49/2'], 'count': 3, 'speed': 100},
            'leaf_platform.uplink_ports.count',
            'count 3 does not match the 2 names',
        ),
        (
            {'first': 65, 'speed': 100},
            'leaf_platform.uplink_ports.count',
            'required key is missing (or give the ports as names)',
        ),
        (
            {'first': 65, 'count': 8, 'speed': 100, 'interface': 'Et{slot}'},
            'leaf_platform.uplink_ports.interface',
            '"Et{slot}" may only use {port} (e.g. Ethernet{port}), found {slot}',
        ),
        (
            {'names': ['Ethernet49/1', 'Ethernet49/1'], 'speed': 100},
            'leaf_platform.uplink_ports',
            'port Ethernet49/1 is in leaf_platform.uplink_ports too: a port can have one use only',
        ),
    ],
)
def test_port_block_errors(block, field, message):
    spec = example('routed')
    spec['leaf_platform']['uplink_ports'] = block
    e = rejected(spec)
    assert (e.field, e.message) == (field, message)


@pytest.mark.parametrize('block', ['server_ports', 'rdma_ports', 'uplink_ports'])
def test_a_port_count_no_switch_has_is_refused(block):
    """A mistyped count used to make that many port names (16,777,216 took gigabytes): now a named error."""
    spec = example('routed')
    spec['leaf_platform'][block]['count'] = PORTS_MAX + 1
    e = rejected(spec)
    assert (e.field, e.message) == (
        f'leaf_platform.{block}.count',
        f'port count {PORTS_MAX + 1} is above {PORTS_MAX}: no switch has that many ports',
    )
