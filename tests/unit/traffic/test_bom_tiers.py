"""BOM goldens for the guide's three tiers: a fabric that must come out Starter, the guide's own cluster (Balanced,
with its management switch and the part numbers of the shipped device types) and a multi-rack 400G one
(Expandable). Every expected line is derived from the spec (its counts, NICs, speeds) and the shipped device-type
files (model, part number), never copied from the output."""

import math

import pytest

from netbox_aifabric.facts.catalog import device_type_seed
from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.bom import TIERS, DeviceModel, bill_of_materials, medium
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure

STARTER, BALANCED, EXPANDABLE = TIERS
DAC = ', in the rack (up to 3 m)'
ROOM = ', across the room (up to 100 m)'


def shipped(slug):
    """The shipped device type as the BOM sees it (what ``traffic.device_model`` reads from NetBox)."""
    entry = next(e for e in device_type_seed() if e['slug'] == slug)
    ports = {i['name']: i['type'] for i in entry['interfaces'] if not i.get('mgmt_only')}
    access = sum(1 for t in ports.values() if t == '1000base-t')
    verified = entry.get('part_number_verified', True)
    return DeviceModel(entry['manufacturer'], entry['model'], entry['part_number'], ports, access, verified)


def lines_of(bom):
    return {line.item: (line.quantity, line.part_number) for line in bom.lines}


def test_the_guides_cluster_is_balanced_with_a_management_switch_and_part_numbers():
    spec = example('routed')  # the guide's cluster: 2 spines, one leaf pair, 4 GPU servers + storage
    plan = plan_fabric(load_spec(spec))
    leaf, spine, oob = (
        shipped('arista-dcs-7050sx3-48yc8'),
        shipped('arista-dcs-7060cx-32s'),
        shipped('arista-dcs-7010tx-48'),
    )
    bom = bill_of_materials(plan, spine_device_type=spine, leaf_device_type=leaf, management_device_type=oob)
    assert bom.tier == BALANCED
    servers, spines, leaves = len(spec['servers']), len(spec['spines']), len(spec['leaves'])
    nics = spec['nics']
    uplinks = spines * leaves * spec['uplinks_per_spine']
    peer = len(spec['leaf_platform']['peer_link_ports'])
    got = lines_of(bom)
    assert got['Spine switch: Arista DCS-7060CX-32S'] == (spines, 'DCS-7060CX-32S')
    assert got['Leaf switch (top of rack): Arista DCS-7050SX3-48YC8'] == (leaves, 'DCS-7050SX3-48YC8')
    assert got['Management switch (out of band): Arista DCS-7010TX-48'] == (1, 'DCS-7010TX-48')
    assert oob.access_ports == 48
    # every BMC and every switch management port on a copper patch cable to the management switch
    assert got[f'Cat6 copper patch cable (1000BASE-T){DAC}'][0] == servers + spines + leaves
    # in the rack: the bond NICs and RDMA NICs on DACs of their speed and form factor, the MLAG peer link too
    assert got[f'{nics["speed"]}G SFP28 passive DAC{DAC}'][0] == servers * nics['count']
    assert got[f'{nics["rdma_speed"]}G QSFP28 passive DAC{DAC}'][0] == servers * nics['rdma_count'] + peer
    # uplinks across the room: 100GBASE-SR4 on both ends (the device types' QSFP28 ports), an MPO-12 OM4 trunk each
    assert got['100GBASE-SR4 QSFP28 optic'][0] == 2 * uplinks
    assert got[f'100G multimode OM4 fibre trunk, MPO-12{ROOM}'][0] == uplinks
    assert not any('400G' in item for item in got)


def test_a_tcp_only_single_rack_fabric_is_starter():
    spec = example('mlag')
    spec['nics'] = {'count': 2, 'speed': 25, 'rdma_count': 0}
    spec['leaf_platform']['peer_link_speed'] = 25
    spec['traffic_classes'] = [c for c in spec['traffic_classes'] if not c.get('lossless')]
    plan = plan_fabric(load_spec(spec))
    bom = bill_of_materials(plan)
    assert bom.tier == STARTER
    assert not [line for line in bom.lines if line.category == 'optic']  # DACs only, as the guide's Starter row
    servers, leaves = len(spec['servers']), len(spec['leaves'])
    peer = len(spec['leaf_platform']['peer_link_ports'])
    assert lines_of(bom)[f'25G SFP28 passive DAC{DAC}'][0] == servers * 2 + peer
    assert lines_of(bom)['Management switch (out of band): device type not chosen'] == (
        math.ceil((servers + leaves) / 48),
        '',
    )


def test_several_racks_at_400g_are_expandable():
    spec = example('routed')
    racks = 2
    spec['leaves'] = [{'id': i, 'name': f'leaf{i}'} for i in range(1, 2 * racks + 1)]
    spec['mlag_pairs'] = [[1, 2], [3, 4]]
    for i, server in enumerate(spec['servers']):
        server['leaves'] = [1, 2] if i % 2 == 0 else [3, 4]
    spec['leaf_platform']['uplink_ports']['speed'] = 400
    spec['spine_platform']['downlink_ports']['speed'] = 400
    plan = plan_fabric(load_spec(spec))
    leaf, spine = shipped('msn4700-ws2fc'), shipped('arista-dcs-7060dx5-64s')
    bom = bill_of_materials(
        plan, spine_device_type=spine, leaf_device_type=leaf, reach={'uplink': 'building'}, spares_percent=0
    )
    assert bom.tier == EXPANDABLE
    assert any(reason.startswith(f'{racks} racks') for reason in bom.tier_reasons)
    assert any(reason.startswith('links at 400G') for reason in bom.tier_reasons)
    got = lines_of(bom)
    spines, leaves = len(spec['spines']), len(spec['leaves'])
    uplinks = spines * leaves * spec['uplinks_per_spine']
    assert got['Spine switch: Arista DCS-7060DX5-64S'] == (spines, 'DCS-7060DX5-64S')
    # no vendor source confirmed the SN4700's part number (its file says which were checked): shown as unverified
    assert got['Leaf switch (top of rack): Mellanox MSN4700-WS2FC'] == (leaves, 'MSN4700-WS2FC (unverified)')
    # 400G uplinks across the building: 400GBASE-DR4 optics (500 m) on an MPO-12 single-mode trunk
    assert got['400GBASE-DR4 QSFP-DD optic'][0] == 2 * uplinks
    assert got['400G single-mode OS2 fibre trunk, MPO-12 APC, across the building (up to 500 m)'][0] == uplinks


@pytest.mark.parametrize(
    ('speed', 'reach', 'expected'),
    [
        (25, 'same-rack', ('dac', None)),
        (25, 'next-rack', ('aoc', None)),
        (25, 'rack-to-rack', ('optical', '25GBASE-SR')),
        (100, 'next-rack', ('aoc', None)),
        (100, 'rack-to-rack', ('optical', '100GBASE-SR4')),
        (100, 'building', ('optical', '100GBASE-DR')),
        (100, 'campus', ('optical', '100GBASE-FR1')),
        (400, 'rack-to-rack', ('optical', '400GBASE-SR8')),
        (400, 'campus', ('optical', '400GBASE-FR4')),
        (1, 'rack-to-rack', ('copper', None)),
    ],
)
def test_media_by_speed_and_reach(speed, reach, expected):
    assert medium(speed, reach)[:2] == expected
