"""The bill of materials and the guide's tier, derived from the plan's own nodes and links."""

from collections import Counter

import pytest

from netbox_aifabric.planner import PlanError, load_spec, plan_fabric
from netbox_aifabric.planner.bom import TIERS, bill_of_materials

from ..planner.helpers import GUIDES, example

pytestmark = pytest.mark.pure


def plan(design, **changes):
    spec = example(design)
    spec.update(changes)
    return plan_fabric(load_spec(spec))


def quantities(bom, category):
    return sum(line.quantity for line in bom.lines if line.category == category)


@pytest.mark.parametrize('design', GUIDES)
def test_counts_equal_the_plan(design):
    p = plan(design)
    bom = bill_of_materials(p)
    roles = Counter(n.role for n in p.nodes)
    assert quantities(bom, 'switch') == roles['spine'] + roles['leaf']
    assert quantities(bom, 'cable') == len(p.links)  # one cable per planned link
    uplinks = sum(1 for link in p.links if link.kind == 'uplink')
    assert quantities(bom, 'optic') == 2 * uplinks
    ports = sum(len(a.members) + len(a.rdma) for a in p.attachments)
    assert quantities(bom, 'nic') == ports


def test_spares_percentage_rounds_up_per_line():
    p = plan('routed')
    for percent in (0, 10, 25, 100):
        for line in bill_of_materials(p, spares_percent=percent).lines:
            assert line.spares == -(-line.quantity * percent // 100)
    with pytest.raises(PlanError) as error:
        bill_of_materials(p, spares_percent=101)
    assert error.value.field == 'spares_percent'


def test_device_types_name_the_switches():
    bom = bill_of_materials(plan('routed'), spine_device_type='Arista 7050CX3', leaf_device_type='SN2410')
    items = [line.item for line in bom.lines if line.category == 'switch']
    assert items == ['spine switch: Arista 7050CX3', 'leaf switch: SN2410']


def test_evpn_licence_line_only_for_evpn():
    assert [line.quantity for line in bill_of_materials(plan('evpn-vxlan')).lines if line.category == 'licence'] == [
        len(plan('evpn-vxlan').nodes)
    ]
    assert not [line for line in bill_of_materials(plan('routed')).lines if line.category == 'licence']


def test_tiers_follow_the_guide():
    starter, balanced, expandable = TIERS
    assert bill_of_materials(plan('mlag')).tier == balanced  # 25/100G leaves, one rack, 4 GPU servers
    tcp_only = example('mlag')
    tcp_only['nics'] = {'count': 2, 'speed': 25, 'rdma_count': 0}
    tcp_only['leaf_platform']['peer_link_speed'] = 25
    tcp_only['traffic_classes'] = [c for c in tcp_only['traffic_classes'] if not c.get('lossless')]
    assert bill_of_materials(plan_fabric(load_spec(tcp_only))).tier == starter
    assert bill_of_materials(plan('routed')).tier == expandable  # spines
    bom = bill_of_materials(plan('evpn-vxlan'))
    assert bom.tier == expandable and 'EVPN/VXLAN design' in bom.tier_reasons
