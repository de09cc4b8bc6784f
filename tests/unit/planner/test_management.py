"""The planner's part of the guide's security: switch management addresses on the out-of-band network, server bonds
that carry only the data classes, BMC ports on the leaves. Expectations are derived from the spec's numbers."""

import netaddr
import pytest

from netbox_aifabric.planner import SpecError, load_spec, plan_fabric
from netbox_aifabric.planner.spec import NON_DATA_PURPOSES
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure
DESIGNS = ('mlag', 'routed', 'evpn-vxlan', 'evpn-mh')


def rejected(spec):
    with pytest.raises(SpecError) as info:
        plan_fabric(load_spec(spec))
    return info.value


def with_bmc_ports(spec, speed=1):
    spec['bmc'] = 'leaf'
    spec['leaf_platform']['bmc_ports'] = {'first': 101, 'count': 48, 'speed': speed}
    return spec


@pytest.mark.parametrize('design', DESIGNS)
def test_switch_management_addresses_count_down_from_the_last_host(design):
    spec = example(design)
    network = netaddr.IPNetwork(spec['pools']['management'])
    max_spines = spec['maximums']['spines']
    plan = plan_fabric(load_spec(spec))
    expected = {}
    for node in spec['spines']:
        expected[node['name']] = f'{network[-1 - node["id"]]}/{network.prefixlen}'
    for node in spec['leaves']:
        expected[node['name']] = f'{network[-1 - max_spines - node["id"]]}/{network.prefixlen}'
    assert {n.name: n.management for n in plan.nodes} == expected
    assert plan.management_gateway == str(network[1])
    assert dict(plan.allocations)[f'mgmt:leaf:{spec["leaves"][0]["id"]}'] == expected[spec['leaves'][0]['name']]


def test_management_addresses_are_pinned_and_skip_the_gateway():
    spec = example('evpn-vxlan')
    before = plan_fabric(load_spec(spec))
    # the gateway moves onto spine 1's preferred address: a new plan keeps the pinned one, a fresh plan goes around
    spec['management_gateway'] = '172.16.0.254'
    assert rejected_not(spec, before)['mgmt:spine:1'] == '172.16.0.254/24'
    fresh = dict(plan_fabric(load_spec(spec)).allocations)
    assert fresh['mgmt:spine:1'] == '172.16.0.253/24'  # the first free address from the top, past the gateway
    assert '172.16.0.254/24' not in fresh.values()


def rejected_not(spec, previous):
    return dict(plan_fabric(load_spec(spec), previous=previous).allocations)


def test_no_management_network_gives_no_addresses():
    spec = example('mlag')
    del spec['pools']['management']
    plan = plan_fabric(load_spec(spec))
    assert {n.management for n in plan.nodes} == {None}
    assert plan.management_gateway is None
    assert not [key for key, _ in plan.allocations if key.startswith('mgmt:')]


@pytest.mark.parametrize(
    ('change', 'field', 'message'),
    [
        ({'management': '172.16.0.0/29'}, 'pools.management', 'management network 172.16.0.0/29 has 6 host addresses'),
        ({'management': '10.255.0.0/23'}, 'pools.management', 'overlaps the loopback pool 10.255.0.0/24'),
        ({'management': '172.16.0.1/24'}, 'pools.management', 'has host bits set; use 172.16.0.0/24'),
        ({'management': 'fd00::/64'}, 'pools.management', 'pool fd00::/64 is IPv6; this pool must be IPv4'),
        ({'management_gateway': '172.16.1.1'}, 'management_gateway', 'gateway 172.16.1.1 is not a host address'),
        ({'management_gateway': '172.16.0.255'}, 'management_gateway', 'gateway 172.16.0.255 is not a host address'),
        ({'management_gateway': 'gw'}, 'management_gateway', '"gw" is not an IPv4 address'),
    ],
)
def test_management_network_errors(change, field, message):
    spec = example('evpn-vxlan')
    for key, value in change.items():
        if key == 'management':
            spec['pools']['management'] = value
        else:
            spec[key] = value
    error = rejected(spec)
    assert error.field == field
    assert message in error.message


def test_management_network_needs_room_for_gateway_and_every_possible_switch():
    spec = example('evpn-vxlan')
    switches = spec['maximums']['spines'] + spec['maximums']['leaves']  # 12: a /28 (14 hosts) holds 13
    spec['pools']['management'] = '172.16.0.0/28'
    assert len(plan_fabric(load_spec(spec)).nodes) == 4
    spec['maximums']['leaves'] += 14 - switches  # 14 switches + the gateway: one too many
    spec['pools']['mlag_peer'] = '10.255.3.0/27'  # room for the extra leaves' peer links
    error = rejected(spec)
    assert (error.field, error.message) == (
        'pools.management',
        'management network 172.16.0.0/28 has 14 host addresses; the gateway and 14 switches '
        '(max spines + max leaves) need 15',
    )


def test_gateway_without_a_management_network():
    spec = example('mlag')
    del spec['pools']['management']
    spec['management_gateway'] = '172.16.0.1'
    assert rejected(spec).field == 'management_gateway'


def test_management_network_may_share_only_an_unrouted_class_subnet():
    spec = example('evpn-vxlan')
    spec['pools']['management'] = '192.0.2.0/24'  # the MGMT class's subnet, routed: its gateway would collide
    error = rejected(spec)
    assert error.field == 'traffic_classes[0].subnet'
    assert 'overlaps the management network 192.0.2.0/24' in error.message
    spec['traffic_classes'][0]['routed'] = False
    plan = plan_fabric(load_spec(spec))
    assert {n.management.split('/')[0] for n in plan.nodes} <= {str(ip) for ip in netaddr.IPNetwork('192.0.2.0/24')}


@pytest.mark.parametrize('design', DESIGNS)
def test_server_bonds_carry_only_the_data_classes(design):
    spec = example(design)
    data = sorted(
        tc['vlan']
        for tc in spec['traffic_classes']
        if not tc.get('lossless') and tc.get('purpose', 'other') not in NON_DATA_PURPOSES
    )
    assert data == [20, 30]  # the guide: USERS and STORAGE; MGMT (BMCs) and TELEMETRY stay off the bonds
    plan = plan_fabric(load_spec(spec))
    assert {a.vlans for a in plan.attachments} == {tuple(data)}


def test_a_class_without_purpose_rides_the_bond():
    spec = example('mlag')
    del spec['traffic_classes'][4]['purpose']  # TELEMETRY becomes 'other'
    plan = plan_fabric(load_spec(spec))
    assert {a.vlans for a in plan.attachments} == {(20, 30, 50)}


def test_unknown_purpose_is_named():
    spec = example('mlag')
    spec['traffic_classes'][1]['purpose'] = 'office'
    error = rejected(spec)
    assert error.field == 'traffic_classes[1].purpose'
    assert '"office" is not one of management' in error.message


@pytest.mark.parametrize('design', DESIGNS)
def test_bmc_ports_on_their_home_leaf_in_the_management_vlan(design):
    """A BMC is single-homed: of a pair, odd server ids on the first leaf listed, even ids on the second."""
    spec = with_bmc_ports(example(design))
    plan = plan_fabric(load_spec(spec))
    leaves = {leaf['id']: leaf['name'] for leaf in spec['leaves']}
    mgmt_vid = next(tc['vlan'] for tc in spec['traffic_classes'] if tc.get('purpose') == 'management')
    bmc_links = [lk for lk in plan.links if lk.kind == 'bmc']
    assert len(bmc_links) == len(spec['servers'])
    for server in spec['servers']:
        attachment = next(a for a in plan.attachments if a.server == server['name'])
        leaf = leaves[server['leaves'][(server['id'] - 1) % len(server['leaves'])]]
        assert attachment.bmc[0] == leaf and attachment.bmc_vlan == mgmt_vid
        link = next(lk for lk in bmc_links if lk.b_node == server['name'])
        assert (link.a_node, link.a_interface, link.b_interface, link.speed) == (leaf, attachment.bmc[1], 'bmc', 1)
        assert 101 <= int(attachment.bmc[1].removeprefix('Ethernet')) < 101 + 48
    # one port per server per leaf: no port is used twice
    ends = [(lk.a_node, lk.a_interface) for lk in plan.links]
    assert len(ends) == len(set(ends))


def test_bmc_on_the_leaves_needs_ports_a_management_class_and_a_speed_they_run():
    spec = example('mlag')
    spec['bmc'] = 'leaf'
    assert rejected(spec).field == 'leaf_platform.bmc_ports'
    spec = with_bmc_ports(example('mlag'), speed=25)
    error = rejected(spec)
    assert (error.field, error.message) == ('nics.bmc_speed', 'a BMC port at 1G: the ports run 25G, not 1G')
    spec = with_bmc_ports(example('mlag'))
    spec['traffic_classes'][0]['purpose'] = 'other'
    assert rejected(spec).field == 'bmc'
    spec = example('mlag')
    spec['bmc'] = 'switch'
    assert rejected(spec).message == '"switch" is not one of oob, leaf'


def test_bmc_ports_are_pinned_allocations():
    spec = with_bmc_ports(example('evpn-vxlan'))
    before = plan_fabric(load_spec(spec))
    keys = {key: value for key, value in before.allocations if ':bmc:' in key}
    assert len(keys) == len(spec['servers'])
    spec['servers'].insert(0, {'id': 9, 'name': 'gpu9', 'leaves': [1, 2]})
    after = dict(plan_fabric(load_spec(spec), previous=before).allocations)
    assert {key: after[key] for key in keys} == keys
