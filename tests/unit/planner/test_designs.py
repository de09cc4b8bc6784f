"""Design variants beyond the guide's examples: rail-optimized back end, OSPF underlay, growth of the guide."""

import pytest

from netbox_aifabric.planner import load_spec, plan_fabric
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure


def test_rail_optimized_back_end():
    """RDMA NIC n of every server in the group goes to leaf n of the group (rail n), on the server's own port."""
    spec = example('evpn-vxlan')
    spec['leaves'] += [{'id': i, 'name': f'rail{i - 2}'} for i in range(3, 7)]
    spec['nics']['rdma_count'] = 4
    spec['rail_groups'] = [{'leaves': [3, 4, 5, 6]}]
    for server in spec['servers']:
        server['rail_group'] = 0
    plan = plan_fabric(load_spec(spec))
    rails = [(lk.b_node, lk.b_interface, lk.a_node, lk.a_interface) for lk in plan.links if lk.kind == 'rail']
    assert rails[:8] == [
        ('gpu1', 'rdma1', 'rail1', 'Ethernet49'),
        ('gpu1', 'rdma2', 'rail2', 'Ethernet49'),
        ('gpu1', 'rdma3', 'rail3', 'Ethernet49'),
        ('gpu1', 'rdma4', 'rail4', 'Ethernet49'),
        ('gpu2', 'rdma1', 'rail1', 'Ethernet50'),
        ('gpu2', 'rdma2', 'rail2', 'Ethernet50'),
        ('gpu2', 'rdma3', 'rail3', 'Ethernet50'),
        ('gpu2', 'rdma4', 'rail4', 'Ethernet50'),
    ]
    assert len(rails) == 5 * 4
    assert not [lk for lk in plan.links if lk.kind == 'rdma']
    capacity = {c.leaf: (c.downlink, c.uplink, c.ratio) for c in plan.capacity}
    assert capacity['rail1'] == (500, 200, 2.5)  # 5 × 100G down, 2 spines × 100G up
    assert dict(plan.summary)['rail_links'] == 20


def test_ospf_underlay_routed_has_no_asns():
    spec = example('routed')
    spec['underlay'] = 'ospf'
    del spec['leaf_asn_range']
    plan = plan_fabric(load_spec(spec))
    assert {n.asn for n in plan.nodes} == {None}
    assert 'leaf_asn' not in [p.name for p in plan.pools]
    assert [p.name for p in plan.pools][:4] == ['loopback', 'management', 'mlag_peer', 'p2p']


def test_ospf_underlay_evpn_uses_ibgp_overlay_asn():
    spec = example('evpn-vxlan')
    spec['underlay'] = 'ospf'
    plan = plan_fabric(load_spec(spec))
    assert {n.asn for n in plan.nodes} == {65100}


def test_guide_grows_to_four_spines_and_four_leaves_without_renumbering():
    spec = example('evpn-vxlan')
    before = dict(plan_fabric(load_spec(spec)).allocations)
    spec['spines'] += [{'id': 3, 'name': 'spine3'}, {'id': 4, 'name': 'spine4'}]
    spec['leaves'] += [{'id': 3, 'name': 'leaf3'}, {'id': 4, 'name': 'leaf4'}]
    spec['mlag_pairs'].append([3, 4])
    spec['servers'].append({'id': 17, 'name': 'gpu5', 'leaves': [3, 4]})
    plan = plan_fabric(load_spec(spec))
    after = dict(plan.allocations)
    assert {k: after[k] for k in before} == before
    nodes = {n.name: n for n in plan.nodes}
    assert (nodes['spine3'].loopback, nodes['leaf3'].loopback, nodes['leaf3'].vtep) == (
        '10.255.0.3/32',
        '10.255.0.7/32',
        '10.255.1.3/32',
    )
    assert (nodes['leaf3'].asn, nodes['leaf4'].asn) == (65103, 65103)
    assert dict(plan.summary)['uplinks'] == 16
