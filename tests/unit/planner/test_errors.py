"""Every invalid spec is rejected before allocation, with the field, the node and the numbers (one test each)."""

import pytest

from netbox_aifabric.planner import PlanWarning, PoolExhaustedError, SpecError, load_spec, plan_fabric
from netbox_aifabric.planner.previous import KNOWN_KINDS, check_previous
from netbox_aifabric.planner.warnings import spec_warnings
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure


def rejected(spec: dict, error=SpecError):
    with pytest.raises(error) as info:
        plan_fabric(load_spec(spec))
    return info.value


def test_pool_too_small_for_maximums():
    spec = example('evpn-vxlan')
    spec['pools']['p2p'] = '10.255.2.0/27'
    e = rejected(spec)
    assert e.field == 'pools.p2p'
    assert e.message == (
        'pool 10.255.2.0/27 is too small for the declared maximums: 64 point-to-point /31s needed, 16 available'
    )


def test_loopback_pool_too_small_counts_the_unused_first_address():
    spec = example('evpn-vxlan')
    spec['pools']['loopback'] = '10.255.0.0/29'
    e = rejected(spec)
    assert e.message == (
        'pool 10.255.0.0/29 is too small for the declared maximums: 12 loopback /32s needed (plus 1 unused at the '
        'start), 7 available'
    )


def test_overlapping_pools():
    spec = example('evpn-vxlan')
    spec['pools']['vtep'] = '10.255.0.0/25'
    e = rejected(spec)
    assert (e.field, e.message) == ('pools.vtep', 'pool 10.255.0.0/25 overlaps the loopback pool 10.255.0.0/24')


def test_wrong_address_family():
    spec = example('evpn-vxlan')
    spec['pools']['loopback'] = '2001:db8::/64'
    e = rejected(spec)
    assert (e.field, e.message) == ('pools.loopback', 'pool 2001:db8::/64 is IPv6; this pool must be IPv4')


def test_missing_pool():
    spec = example('evpn-vxlan')
    del spec['pools']['vtep']
    assert rejected(spec).message == 'the VTEP pool is required for this design'


def test_an_empty_loopback_pool_is_a_missing_pool():
    """A fabric without a loopback pool reaches the planner as '' (the spec's loopback is a string): it is the missing
    pool, not '"" is not a prefix'."""
    spec = example('routed')
    spec['pools']['loopback'] = ''
    error = rejected(spec)
    assert (error.field, error.message) == ('pools.loopback', 'the loopback pool is required for this design')


def test_duplicate_node_ids():
    spec = example('evpn-vxlan')
    spec['leaves'][1]['id'] = 1
    e = rejected(spec)
    assert (e.field, e.message) == ('leaves', 'duplicate node id 1 among the leaves')


def test_duplicate_node_names():
    spec = example('evpn-vxlan')
    spec['servers'][0]['name'] = 'leaf1'
    e = rejected(spec)
    assert (e.field, e.message, e.node) == ('nodes', 'duplicate node name "leaf1"', 'leaf1')


def test_node_id_beyond_maximum():
    spec = example('evpn-vxlan')
    spec['spines'].append({'id': 5, 'name': 'spine5'})
    e = rejected(spec)
    assert (e.field, e.node) == ('spines[2].id', 'spine5')
    assert e.message == (
        'id 5 is outside 1–4: the numbering has room for at most 4 spines (max spines); raise it first'
    )


def test_more_nodes_than_maximum():
    spec = example('evpn-vxlan')
    spec['maximums']['spines'] = 1
    spec['spines'] = [{'id': 1, 'name': 'spine1'}, {'id': 1, 'name': 'spine1b'}]
    assert rejected(spec).message == 'duplicate node id 1 among the spines'
    spec['spines'] = [{'id': 1, 'name': 'spine1'}, {'id': 2, 'name': 'spine2'}]
    e = rejected(spec)
    assert (e.field, e.message) == (
        'spines',
        '2 spines declared; the numbering has room for at most 1 spine (max spines)',
    )


def test_asn_range_too_small():
    spec = example('evpn-vxlan')
    spec['leaf_asn_range'] = [65101, 65104]
    e = rejected(spec)
    assert (e.field, e.message) == (
        'leaf_asn_range',
        'ASN range 65101–65104 holds 4 ASNs; the declared maximum of 8 leaves needs 8',
    )


def test_spine_asn_inside_leaf_range():
    spec = example('evpn-vxlan')
    spec['spine_asn'] = 65150
    assert rejected(spec).message == 'spine ASN 65150 lies inside the leaf ASN range 65101–65199'


def test_vni_outside_24_bits():
    spec = example('evpn-vxlan')
    spec['tenants'][0]['l3vni'] = 16_777_216
    e = rejected(spec)
    assert (e.field, e.message) == (
        'tenants[0].l3vni',
        'VNI 16777216 (L3VNI of tenant ai-cluster) is outside 1–16777215',
    )


def test_vni_above_the_route_distinguishers_16_bits():
    spec = example('evpn-vxlan')
    spec['tenants'][0]['l3vni'] = 65_536
    e = rejected(spec)
    assert (e.field, e.message) == (
        'tenants[0].l3vni',
        'VNI 65536 (L3VNI of tenant ai-cluster) is above 65535: the route distinguisher (router-id:VNI) and route '
        'target (VNI:VNI) carry it as a 16-bit number',
    )
    spec = example('evpn-vxlan')
    spec['l2vni_base'] = 65_500
    assert rejected(spec).message.startswith('VNI 65540 (L2VNI of tenant ai-cluster (VLAN 40)) is above 65535')
    spec['l2vni_base'] = 65_500 - 50  # VLAN 50 → 65500: every VNI fits
    assert plan_fabric(load_spec(spec)).vrfs


def test_vni_collision_across_tenants():
    spec = example('evpn-vxlan')
    spec['tenants'].append({'name': 'storage', 'vrf': 'STORAGE', 'l3vni': 10020})
    e = rejected(spec)
    assert (e.field, e.message) == (
        'tenants[1].l3vni',
        'VNI 10020 is used twice: L2VNI of tenant ai-cluster (VLAN 20) and L3VNI of tenant storage',
    )


def test_vlan_collision():
    spec = example('evpn-vxlan')
    spec['traffic_classes'][1]['vlan'] = 10
    e = rejected(spec)
    assert (e.field, e.message) == ('traffic_classes[1].vlan', 'VLAN 10 is used by MGMT and USERS')


def test_vlan_outside_range():
    spec = example('evpn-vxlan')
    spec['traffic_classes'][0]['vlan'] = 4095
    assert rejected(spec).message == 'VLAN 4095 is outside 1–4094'


def test_vlan_in_two_tenants():
    spec = example('evpn-vxlan')
    spec['tenants'].append({'name': 'b', 'vrf': 'B', 'l3vni': 50002, 'vlans': [40]})
    assert rejected(spec).message == 'VLAN 40 belongs to tenants ai-cluster and b'


def test_mlag_group_without_two_members():
    spec = example('evpn-vxlan')
    spec['mlag_pairs'] = [[1, 2, 3]]
    e = rejected(spec)
    assert (e.field, e.message) == ('mlag_pairs[0]', 'an MLAG group needs exactly two leaves, got 3')


def test_mlag_design_leaves_a_leaf_unpaired():
    spec = example('mlag')
    spec['maximums']['leaves'] = 4
    spec['leaves'].append({'id': 3, 'name': 'leaf3'})
    assert rejected(spec).message == 'MLAG dual-ToR pairs every leaf; leaf id 3 has no peer'


def test_more_uplinks_than_maximum():
    spec = example('evpn-vxlan')
    spec['uplinks_per_spine'] = 3
    e = rejected(spec)
    assert (e.field, e.message) == ('uplinks_per_spine', '3 uplinks per spine, outside 1–2 (max parallel uplinks)')


def test_more_uplinks_than_leaf_ports():
    spec = example('evpn-vxlan')
    spec['maximums']['parallel_uplinks'] = 4
    spec['pools']['p2p'] = '10.255.4.0/23'
    e = rejected(spec)
    assert (e.field, e.message) == (
        'leaf_platform.uplink_ports',
        '4 spines × 4 parallel uplinks need 16 uplink ports per leaf; 48x25G+8x100G leaf has 8',
    )


def test_more_servers_than_leaf_ports():
    spec = example('evpn-vxlan')
    spec['maximums']['servers_per_leaf'] = 4
    e = rejected(spec)
    assert (e.field, e.node) == ('servers', 'leaf1')
    assert e.message == '5 servers attach to leaf leaf1; it has ports for 4 (servers per leaf)'


def test_servers_per_leaf_above_platform_ports():
    spec = example('evpn-vxlan')
    spec['maximums']['servers_per_leaf'] = 49
    assert rejected(spec).message == '49 servers per leaf declared; 48x25G+8x100G leaf has 48 server ports'


def test_two_servers_preferring_one_port_get_two_ports():
    """Ports are allocations: a server whose preferred port is taken gets the first free one (no longer an error)."""
    spec = example('evpn-vxlan')
    spec['servers'][4]['id'] = 17  # (17 − 1) mod 16 = 0: the port of gpu1
    plan = plan_fabric(load_spec(spec))
    ports = {(lk.b_node, lk.a_node): lk.a_interface for lk in plan.links if lk.kind == 'server'}
    taken = {ports[f'gpu{i}', 'leaf1'] for i in range(1, 5)}
    first_free = next(f'Ethernet{p}' for p in range(1, 49) if f'Ethernet{p}' not in taken)
    assert ports['storage1', 'leaf1'] == ports['storage1', 'leaf2'] == first_free


def test_evpn_gateways_without_anycast_mac():
    spec = example('evpn-vxlan')
    del spec['anycast_gateway_mac']
    e = rejected(spec)
    assert (e.field, e.message) == (
        'anycast_gateway_mac',
        'EVPN anycast gateways for USERS, STORAGE, RDMA need an anycast gateway MAC',
    )


def test_inconsistent_list_lengths_server_leaves():
    spec = example('evpn-vxlan')
    spec['servers'][0]['leaves'] = [1, 2, 1]  # one leaf (a bond on a single leaf) or one per NIC
    e = rejected(spec)
    assert (e.field, e.node) == ('servers[0].leaves', 'gpu1')
    assert e.message == (
        '3 leaves listed for 2 bonded NICs (nics.count): list one leaf per NIC, or one leaf for all of them (a bond '
        'on a single leaf)'
    )


def test_inconsistent_list_lengths_rail_group():
    spec = example('evpn-vxlan')
    spec['rail_groups'] = [{'leaves': [1, 2]}]
    e = rejected(spec)
    assert (e.field, e.message) == (
        'rail_groups[0].leaves',
        '2 rail leaves for 1 RDMA NICs per server (nics.rdma_count); lists must match',
    )


def test_unknown_leaf_reference():
    spec = example('evpn-vxlan')
    spec['servers'][0]['leaves'] = [1, 7]
    assert rejected(spec).message == 'leaf id 7 is not a declared leaf'


def test_unknown_key_is_never_dropped():
    spec = example('evpn-vxlan')
    spec['servers'][0]['nic_speed'] = 50
    e = rejected(spec)
    assert e.field == 'servers[0].nic_speed'
    assert e.message.startswith('unknown key (known: id, name, leaves')


def test_wrong_type():
    spec = example('evpn-vxlan')
    spec['maximums']['leaves'] = '8'
    e = rejected(spec)
    assert (e.field, e.message) == ('maximums.leaves', "expected an integer, got '8'")


def test_missing_required_key():
    spec = example('evpn-vxlan')
    del spec['maximums']
    assert (rejected(spec).field, rejected(spec).message) == ('maximums', 'required key is missing')


def test_ebgp_without_spine_asn():
    spec = example('evpn-vxlan')
    spec['spine_asn'] = None
    assert rejected(spec).message == 'the ebgp underlay needs a spine ASN'


def test_pool_exhausted_names_pool_numbers_and_node():
    """Only pinned allocations can exhaust a pool that fits the maximums: here removed leaves 8 and 9 still hold
    every /31 of the pool (they are kept reserved until released)."""
    spec = example('evpn-vxlan')
    spec['maximums'].update(spines=2, leaves=2, parallel_uplinks=1)
    spec['pools']['p2p'] = '10.255.2.8/29'  # 4 /31s = 2 leaves × 2 spines × 1 uplink
    pinned = {
        'fabric': spec['name'],  # a plan of this fabric (another fabric's is refused: test_previous_fit.py)
        'allocations': {
            'uplink:leaf:8:spine:1:1': '10.255.2.8/31',
            'uplink:leaf:8:spine:2:1': '10.255.2.10/31',
            'uplink:leaf:9:spine:1:1': '10.255.2.12/31',
            'uplink:leaf:9:spine:2:1': '10.255.2.14/31',
        },
    }
    with pytest.raises(PoolExhaustedError) as info:
        plan_fabric(load_spec(spec), previous=pinned)
    e = info.value
    assert (e.field, e.node) == ('pools.p2p', 'leaf1')
    # the reason is the removed leaves' reserved /31s: the message says so and how to free them
    # only the usable blocks are counted as such ("6 needed, 8 available" counted the reserved ones)
    assert e.message == (
        'pool 10.255.2.8/29 (point-to-point link subnets) is exhausted: 4 point-to-point /31s needed, 0 usable (4 in '
        'the pool, 4 reserved: held by the allocations of removed nodes; plan with --release to free them); first '
        'failed for leaf1'
    )
    # released, the same /31s serve the current leaves
    plan = plan_fabric(load_spec(spec), previous=pinned, release=True)
    assert sorted(lk.subnet for lk in plan.links if lk.kind == 'uplink') == [
        '10.255.2.10/31',
        '10.255.2.12/31',
        '10.255.2.14/31',
        '10.255.2.8/31',
    ]


# The whole document and odd values: every input is refused with a named error, never a traceback


def test_empty_spec():
    e = rejected(None)
    assert (e.field, e.message) == (
        'spec',
        'the spec is empty: expected a mapping with name, design, maximums and pools',
    )


def test_spec_that_is_not_a_mapping():
    e = rejected(['name', 'design'])
    assert (e.field, e.message) == ('spec', 'expected a mapping with name, design, maximums and pools, got list')


def test_unknown_keys_of_mixed_types_are_named():
    """YAML keys may be numbers or null: sorting them with the string keys must not fail."""
    spec = example('evpn-vxlan')
    spec[1] = 'x'
    spec['zz'] = 'y'
    e = rejected(spec)
    assert e.field == '1'
    assert e.message.startswith('unknown key (known: name, design, underlay')


def test_wrong_value_is_shown_short():
    spec = example('evpn-vxlan')
    spec['maximums']['leaves'] = 'x' * 100
    assert rejected(spec).message == f"expected an integer, got '{'x' * 59}…"
    spec['maximums']['leaves'] = [[1, 2], [3]]  # containers by their kind only: a YAML alias may make them endless
    assert rejected(spec).message == 'expected an integer, got list'


# Counts, speeds, ports and MTUs


@pytest.mark.parametrize(
    ('section', 'key', 'value', 'message'),
    [
        ('nics', 'count', 0, 'bonded NIC count 0 is below 1'),
        ('nics', 'count', -2, 'bonded NIC count -2 is below 1'),
        ('nics', 'rdma_count', -1, 'RDMA NIC count -1 is negative'),
        ('nics', 'speed', 0, 'NIC speed 0 Gbit/s is below 1 Gbit/s'),
        ('nics', 'rdma_speed', -100, 'RDMA NIC speed -100 Gbit/s is below 1 Gbit/s'),
        ('leaf_platform', 'peer_link_speed', 0, 'peer-link speed 0 Gbit/s is below 1 Gbit/s'),
    ],
)
def test_nic_and_link_numbers(section, key, value, message):
    spec = example('evpn-vxlan')
    spec[section][key] = value
    e = rejected(spec)
    assert (e.field, e.message) == (f'{section}.{key}', message)


@pytest.mark.parametrize(
    ('platform', 'block', 'key', 'value', 'message'),
    [
        ('leaf_platform', 'server_ports', 'first', -1, 'first port -1 is negative'),
        ('leaf_platform', 'rdma_ports', 'count', -16, 'port count -16 is negative'),
        ('leaf_platform', 'uplink_ports', 'speed', 0, 'port speed 0 Gbit/s is below 1 Gbit/s'),
        ('spine_platform', 'downlink_ports', 'speed', -400, 'port speed -400 Gbit/s is below 1 Gbit/s'),
    ],
)
def test_port_range_numbers(platform, block, key, value, message):
    spec = example('evpn-vxlan')
    spec[platform][block][key] = value
    e = rejected(spec)
    assert (e.field, e.message) == (f'{platform}.{block}.{key}', message)


def test_negative_peer_link_port():
    spec = example('mlag')
    spec['leaf_platform']['peer_link_ports'][1] = -74
    e = rejected(spec)
    assert (e.field, e.message) == ('leaf_platform.peer_link_ports[1]', 'peer-link port -74 is negative')


@pytest.mark.parametrize('mtu', [67, 0, -1500, 9217])
def test_fabric_mtu_outside_68_9216(mtu):
    spec = example('routed')
    spec['mtu'] = mtu
    e = rejected(spec)
    assert (e.field, e.message) == ('mtu', f'MTU {mtu} is outside 68–9216')


def test_traffic_class_mtu_outside_68_9216():
    spec = example('routed')
    spec['traffic_classes'][3]['mtu'] = 9999
    e = rejected(spec)
    name = spec['traffic_classes'][3]['name']
    assert (e.field, e.message) == ('traffic_classes[3].mtu', f'MTU 9999 of {name} is outside 68–9216')


def test_traffic_class_mtu_above_the_fabric_mtu_is_a_warning():
    """Not refused: NetBox shows the same concern as an intent warning next to a plan (checks/intent.py)."""
    spec = example('routed')
    spec['mtu'] = 1500
    rdma = spec['traffic_classes'][3]
    assert spec_warnings(load_spec(spec)) == [
        PlanWarning(
            'class-mtu-above-fabric',
            'traffic_classes[3].mtu',
            f'MTU {rdma["mtu"]} of {rdma["name"]} is above the fabric MTU 1500 (mtu): the fabric links would drop its '
            'largest frames',
        )
    ]
    assert plan_fabric(load_spec(spec)).vlans
    spec['mtu'] = rdma['mtu']  # equal is fine
    assert spec_warnings(load_spec(spec)) == []


def test_l2vni_bases_below_1():
    spec = example('evpn-vxlan')
    spec['l2vni_base'] = 0
    e = rejected(spec)
    assert (e.field, e.message) == ('l2vni_base', 'VNI 0 (L2VNI base) is outside 1–16777215')
    spec = example('evpn-vxlan')
    spec['tenants'][0]['l2vni_base'] = -10  # + VLAN 40 would have given VNI 30
    e = rejected(spec)
    assert (e.field, e.message) == (
        'tenants[0].l2vni_base',
        'VNI -10 (L2VNI base of tenant ai-cluster) is outside 1–16777215',
    )


@pytest.mark.parametrize(
    ('key', 'template', 'message'),
    [
        ('interface', 'Ethernet{slot}', '"Ethernet{slot}" may only use {port} (e.g. Ethernet{port}), found {slot}'),
        ('interface', 'Ethernet1', '"Ethernet1" has no {port}: every port would get the same name'),
        (
            'interface',
            'Ethernet{port.real}',
            '"Ethernet{port.real}" may only use {port} (e.g. Ethernet{port}), found {port.real}',
        ),
        (  # the width would grow with the port number
            'interface',
            'Ethernet{port:>{port}}',
            '"Ethernet{port:>{port}}" may only use {port} (e.g. Ethernet{port}), found {port:>{port}}',
        ),
        ('lag', 'Po{number!z}', '"Po{number!z}" may only use {number} (e.g. Port-Channel{number}), found {number!z}'),
        ('lag', 'Po', '"Po" has no {number}: every LAG would get the same name'),
    ],
)
def test_name_template_without_its_placeholder(key, template, message):
    """A wrong placeholder used to fail while planning (KeyError: 'slot')."""
    spec = example('evpn-vxlan')
    spec['leaf_platform'][key] = template
    e = rejected(spec)
    assert (e.field, e.message) == (f'leaf_platform.{key}', message)


# Traffic class subnets


def test_class_subnet_overlapping_a_pool():
    spec = example('evpn-vxlan')
    spec['traffic_classes'][1]['subnet'] = '10.255.2.128/25'  # inside pools.p2p 10.255.2.0/24
    e = rejected(spec)
    assert (e.field, e.message) == (
        'traffic_classes[1].subnet',
        f'subnet 10.255.2.128/25 of USERS overlaps the point-to-point pool {spec["pools"]["p2p"]}',
    )


def test_two_class_subnets_overlapping():
    spec = example('evpn-vxlan')
    spec['traffic_classes'][4]['subnet'] = '10.40.0.0/16'  # holds RDMA's 10.40.0.0/24
    e = rejected(spec)
    assert (e.field, e.message) == (
        'traffic_classes[4].subnet',
        'subnet 10.40.0.0/16 of TELEMETRY overlaps subnet 10.40.0.0/24 of RDMA (traffic_classes[3])',
    )


def test_class_subnet_with_host_bits():
    spec = example('evpn-vxlan')
    spec['traffic_classes'][0]['subnet'] = '192.0.2.1/24'
    e = rejected(spec)
    assert (e.field, e.message) == (
        'traffic_classes[0].subnet',
        'subnet 192.0.2.1/24 of MGMT has host bits set; use 192.0.2.0/24',
    )


@pytest.mark.parametrize(('subnet', 'longest'), [('192.0.2.0/31', 30), ('192.0.2.7/32', 30), ('2001:db8::/127', 126)])
def test_class_subnet_without_room_for_hosts(subnet, longest):
    """A /32 used to fail while planning (no address for the gateway)."""
    spec = example('evpn-vxlan')
    spec['traffic_classes'][0]['subnet'] = subnet
    e = rejected(spec)
    assert (e.field, e.message) == (
        'traffic_classes[0].subnet',
        f'subnet {subnet} of MGMT has no room for a gateway and hosts: needs /{longest} or shorter',
    )


def test_ipv6_class_subnet_still_plans():
    spec = example('evpn-vxlan')
    spec['traffic_classes'][0]['subnet'] = '2001:db8:10::/64'
    mgmt = next(v for v in plan_fabric(load_spec(spec)).vlans if v.name == 'MGMT')
    assert (mgmt.subnet, mgmt.gateway) == ('2001:db8:10::/64', '2001:db8:10::1/64')


# ASNs: reserved and documentation ASNs are errors (public ones warnings: test_public_asn_warnings)

PRIVATE = 'use a private ASN: 64512–65534 or 4200000000–4294967294 (RFC 6996)'


@pytest.mark.parametrize(
    ('asn', 'why'),
    [
        (0, 'reserved (RFC 7607)'),
        (23456, 'AS_TRANS, reserved for 2-byte/4-byte ASN transition (RFC 6793)'),
        (64496, 'reserved for documentation (RFC 5398)'),
        (64511, 'reserved for documentation (RFC 5398)'),
        (65535, 'reserved (RFC 7300)'),
        (65551, 'reserved for documentation (RFC 5398)'),
        (4294967295, 'reserved (RFC 7300)'),
    ],
)
def test_reserved_spine_asn(asn, why):
    spec = example('evpn-vxlan')
    spec['spine_asn'] = asn
    e = rejected(spec)
    assert (e.field, e.message) == ('spine_asn', f'ASN {asn} is {why}; {PRIVATE}')


def test_negative_spine_asn():
    spec = example('evpn-vxlan')
    spec['spine_asn'] = -1
    e = rejected(spec)
    assert (e.field, e.message) == ('spine_asn', 'ASN -1 is outside 1–4294967295')


@pytest.mark.parametrize(
    ('first', 'last', 'asn', 'why'),
    [
        (65500, 65600, 65535, 'reserved (RFC 7300)'),  # crosses 65535/65536
        (64400, 64600, 64496, 'reserved for documentation (RFC 5398)'),
        (65536, 65700, 65536, 'reserved for documentation (RFC 5398)'),
        (23000, 24000, 23456, 'AS_TRANS, reserved for 2-byte/4-byte ASN transition (RFC 6793)'),
        (0, 100, 0, 'reserved (RFC 7607)'),
    ],
)
def test_leaf_asn_range_with_a_reserved_asn(first, last, asn, why):
    spec = example('evpn-vxlan')
    spec['leaf_asn_range'] = [first, last]
    e = rejected(spec)
    assert (e.field, e.message) == (
        'leaf_asn_range',
        f'ASN range {first}–{last} contains ASN {asn}, {why}; use a private range: 64512–65534 or '
        '4200000000–4294967294 (RFC 6996)',
    )


def test_unused_asns_are_not_checked():
    """An OSPF underlay without EVPN uses no ASN: what the spec still carries is not looked at."""
    spec = example('mlag')
    spec.update(underlay='ospf', spine_asn=65535, leaf_asn_range=[65500, 65600])
    assert plan_fabric(load_spec(spec)).nodes


def test_public_asn_warnings():
    """Public ASNs are allowed, with a warning (the planner puts them in Plan.warnings)."""
    spec = example('evpn-vxlan')
    assert spec_warnings(load_spec(spec)) == []  # 65100 and 65101–65199 are private
    spec.update(spine_asn=13335, leaf_asn_range=[4199999990, 4200000500])
    assert spec_warnings(load_spec(spec)) == [
        PlanWarning(
            'public-asn',
            'spine_asn',
            'spine ASN 13335 is public (the private ASNs are 64512–65534 or 4200000000–4294967294 (RFC 6996)); use it '
            'only if it is registered to you',
        ),
        PlanWarning(
            'public-asn',
            'leaf_asn_range',
            'leaf ASN range 4199999990–4200000500 holds public ASNs from 4199999990 on (the private ASNs are '
            '64512–65534 or 4200000000–4294967294 (RFC 6996)); use them only if they are registered to you',
        ),
    ]
    assert plan_fabric(load_spec(spec)).nodes  # a warning never stops the plan


def test_public_asn_warning_names_the_first_public_asn_of_the_range():
    spec = example('routed')
    spec['leaf_asn_range'] = [65000, 65534]  # private up to the last private 2-byte ASN
    assert spec_warnings(load_spec(spec)) == []
    spec['leaf_asn_range'] = [100, 200]
    (warning,) = spec_warnings(load_spec(spec))
    assert (warning.code, warning.field) == ('public-asn', 'leaf_asn_range')
    assert warning.message.startswith('leaf ASN range 100–200 holds public ASNs from 100 on')
    spec['underlay'] = 'ospf'  # no eBGP: the range is not used, so no warning
    assert spec_warnings(load_spec(spec)) == []


# The previous plan (--previous): checked before anything is pinned


def previous_rejected(previous):
    with pytest.raises(SpecError) as info:
        check_previous(previous)
    return info.value


def test_previous_plan_round_trips():
    plan = plan_fabric(load_spec(example('evpn-vxlan')))
    assert check_previous(plan) == dict(plan.allocations)
    assert check_previous(plan.to_dict()) == dict(plan.allocations)
    assert check_previous(dict(plan.allocations)) == dict(plan.allocations)  # the bare form the NetBox apply passes
    assert check_previous(None) == {}
    assert check_previous({'allocations': {'asn:leaf:1': 65101}}) == {'asn:leaf:1': '65101'}


@pytest.mark.parametrize(
    ('previous', 'field', 'message'),
    [
        ([1, 2], 'previous', 'expected a plan (a mapping with an allocations mapping), got list'),
        ('plan.json', 'previous', 'expected a plan (a mapping with an allocations mapping), got str'),
        ({'fabric': 'ai-lab', 'nodes': []}, 'previous', 'not a plan: it has no allocations mapping'),
        (
            {'allocations': ['loopback:leaf:1']},
            'previous.allocations',
            'expected a mapping of allocation key to value, got list',
        ),
    ],
)
def test_previous_that_is_not_a_plan(previous, field, message):
    e = previous_rejected(previous)
    assert (e.field, e.message) == (field, message)


@pytest.mark.parametrize(
    ('key', 'value', 'message'),
    [
        ('asn:leaf:1', 65101.0, 'expected a string or an integer, got float'),
        ('loopback:leaf:1', None, 'expected a string or an integer, got NoneType'),
        ('asn:leaf:1', True, 'expected a string or an integer, got bool'),
        ('gateway:leaf:1', '10.0.0.1', f'unknown allocation kind "gateway" (known: {", ".join(KNOWN_KINDS)})'),
        ('loopback', '10.0.0.1/32', '"loopback" is not an allocation key (<kind>:<what>, like loopback:leaf:1)'),
        ('loopback:leaf:1', '10.255.0.5/24', '"10.255.0.5/24" is not an IPv4 /32 address'),
        ('loopback:leaf:1', '10.255.0.5', '"10.255.0.5" is not an IPv4 /32 address'),
        ('vtep:leaf:1', '2001:db8::1/128', '"2001:db8::1/128" is not an IPv4 /32 address'),
        ('uplink:leaf:1:spine:1:1', '10.255.2.1/31', '"10.255.2.1/31" is not an IPv4 /31 prefix'),
        ('mlag:leaf:1', 'ten', '"ten" is not an IPv4 /31 prefix'),
        ('asn:leaf:1', '0x10', '"0x10" is not an ASN (1–4294967295)'),
        ('asn:leaf:1', 0, '"0" is not an ASN (1–4294967295)'),
        ('asn:leaf:1', 4294967296, '"4294967296" is not an ASN (1–4294967295)'),
        ('port:leaf:1:server:1', ' ', '" " is not a port name'),
        ('lag:leaf:1:server:1', '4095', '"4095" is not a LAG number (1–4094)'),
        (
            'esi:leaf:1:server:1',
            '00:11:22:33:44:55:66:77:88',
            '"00:11:22:33:44:55:66:77:88" is not an ESI (10 colon-separated hex bytes)',
        ),
        ('subnet:10:rack:1', '10.1.0.1/24', '"10.1.0.1/24" is not an IPv4 rack subnet of /30 or shorter'),
        ('subnet:10:rack:1', '10.1.0.0/31', '"10.1.0.0/31" is not an IPv4 rack subnet of /30 or shorter'),
    ],
)
def test_previous_allocation_that_its_kind_cannot_hold(key, value, message):
    e = previous_rejected({'allocations': {key: value}})
    assert (e.field, e.message) == (f'previous.allocations.{key}', message)


def test_previous_allocation_key_that_is_not_a_string():
    e = previous_rejected({'allocations': {7: '10.0.0.1/32'}})
    assert (e.field, e.message) == ('previous.allocations.7', 'an allocation key is a string, got int')


def test_previous_allocations_of_the_new_kinds():
    allocations = {
        'port:leaf:1:server:1': 'Ethernet1',
        'lag:leaf:1:server:1': '1',
        'esi:leaf:1:server:1': '00:11:22:33:44:55:66:77:88:99',
        'subnet:leaf:1:vlan:10': '10.1.0.0/24',
    }
    assert check_previous({'allocations': allocations}) == allocations


def test_empty_key_is_named():
    """Found by test_fuzz: an empty key made an error with an empty field."""
    spec = example('routed')
    spec['nics'][''] = 1
    e = rejected(spec)
    assert (e.field, e.message) == ("nics.''", 'unknown key (known: count, speed, rdma_count, rdma_speed, bmc_speed)')
