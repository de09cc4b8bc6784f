"""Each leaf's own SVI address next to the shared gateway (``svi:<vid>:leaf:<id>``), derived from the spec: in a rack
subnet of a leaf pair the primary (lower id) takes the 2nd host and the secondary the 3rd (the gateway is the 1st); in
an EVPN anycast subnet leaf id n takes the last host − (n − 1); a single leaf's gateway is its own address."""

import json

import netaddr
import pytest

from netbox_aifabric.planner import SpecError, load_spec, plan_fabric
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure


def addresses(plan):
    return {(v.vid, leaf): address for v in plan.vlans for leaf, address in v.switch_addresses}


def host(subnet, n):
    """The n-th host of ``subnet`` (1 = the first, -1 = the last) with its prefix length."""
    network = netaddr.IPNetwork(subnet)
    hosts = list(network.iter_hosts())
    return f'{hosts[n - 1 if n > 0 else n]}/{network.prefixlen}'


@pytest.mark.parametrize('design', ['routed', 'mlag'])
def test_rack_pair_primary_second_host_secondary_third(design):
    raw = example(design)
    plan = plan_fabric(load_spec(raw))
    names = {leaf['id']: leaf['name'] for leaf in raw['leaves']}
    expected = {}
    for vlan in plan.vlans:
        for rack in vlan.racks:
            pair = [p for p in raw['mlag_pairs'] if names[min(p)] in rack.leaves]
            if pair:
                primary, secondary = sorted(pair[0])
                expected[vlan.vid, names[primary]] = host(rack.subnet, 2)
                expected[vlan.vid, names[secondary]] = host(rack.subnet, 3)
                assert rack.gateway == host(rack.subnet, 1)
    assert expected  # the guide's rack is an MLAG pair
    assert addresses(plan) == expected
    allocations = dict(plan.allocations)
    for (vid, leaf), address in expected.items():
        leaf_id = next(i for i, name in names.items() if name == leaf)
        assert allocations[f'svi:{vid}:leaf:{leaf_id}'] == address


@pytest.mark.parametrize('design', ['evpn-vxlan', 'evpn-mh'])
def test_evpn_leaf_n_takes_last_host_minus_n_minus_1(design):
    raw = example(design)
    plan = plan_fabric(load_spec(raw))
    expected = {
        (tc['vlan'], leaf['name']): host(tc['subnet'], -leaf['id'])
        for tc in raw['traffic_classes']
        if tc.get('subnet') and tc.get('routed', True)
        for leaf in raw['leaves']
    }
    assert expected
    assert addresses(plan) == expected


def test_single_leaf_racks_need_no_switch_address():
    raw = example('routed')
    del raw['mlag_pairs'], raw['pools']['mlag_peer'], raw['leaf_platform']['peer_link_ports']
    raw['nics']['count'] = 1
    for server in raw['servers']:
        server['leaves'] = [server['id'] % 2 + 1]
    plan = plan_fabric(load_spec(raw))
    assert addresses(plan) == {}
    assert not [key for key, _ in plan.allocations if key.startswith('svi:')]


@pytest.mark.parametrize('design', ['routed', 'evpn-vxlan'])
def test_switch_addresses_never_the_gateway_and_unique(design):
    plan = plan_fabric(load_spec(example(design)))
    for vlan in plan.vlans:
        gateways = {r.gateway for r in vlan.racks} | {vlan.gateway}
        values = [address for _, address in vlan.switch_addresses]
        assert len(set(values)) == len(values)
        assert not set(values) & gateways


def test_rack_subnet_too_small_for_a_pair_is_a_named_error():
    raw = example('routed')
    users = next(i for i, tc in enumerate(raw['traffic_classes']) if tc['name'] == 'USERS')
    raw['traffic_classes'][users]['rack_prefixlen'] = 30  # 2 hosts: the gateway and one switch
    with pytest.raises(SpecError) as error:
        plan_fabric(load_spec(raw))
    assert error.value.field == f'traffic_classes[{users}].subnet'
    assert 'two switch addresses of a leaf pair need 3' in str(error.value)


def test_evpn_subnet_too_small_for_every_leaf_is_a_named_error():
    raw = example('evpn-vxlan')
    users = next(i for i, tc in enumerate(raw['traffic_classes']) if tc['name'] == 'USERS')
    raw['traffic_classes'][users]['subnet'] = '198.51.100.0/29'  # 6 hosts; the gateway and 8 leaves need 9
    with pytest.raises(SpecError) as error:
        plan_fabric(load_spec(raw))
    assert error.value.field == f'traffic_classes[{users}].subnet'
    assert 'need 9' in str(error.value)


def test_pinned_by_previous():
    raw = example('evpn-vxlan')
    first = json.loads(json.dumps(plan_fabric(load_spec(raw)).to_dict()))
    subnet = next(tc['subnet'] for tc in raw['traffic_classes'] if tc['vlan'] == 20)
    moved = host(subnet, 100)
    first['allocations']['svi:20:leaf:1'] = moved
    plan = plan_fabric(load_spec(raw), previous=first)
    assert addresses(plan)[20, 'leaf1'] == moved
    # a new leaf whose preferred address is held takes the highest free host instead, never a pinned one
    first['allocations']['svi:20:leaf:1'] = host(subnet, -2)  # leaf2's preferred address
    del first['allocations']['svi:20:leaf:2']  # leaf2 as if new
    plan = plan_fabric(load_spec(raw), previous=first)
    got = addresses(plan)
    assert got[20, 'leaf1'] == host(subnet, -2)
    assert got[20, 'leaf2'] == host(subnet, -1)


def test_removed_leaf_keeps_its_address_reserved():
    raw = example('evpn-vxlan')
    first = plan_fabric(load_spec(raw)).to_dict()
    first['allocations']['svi:20:leaf:7'] = host(raw['traffic_classes'][1]['subnet'], -7)
    plan = plan_fabric(load_spec(raw), previous=first)
    assert 'svi:20:leaf:7' in plan.reserved
    released = plan_fabric(load_spec(raw), previous=first, release=True)
    assert 'svi:20:leaf:7' not in dict(released.allocations)


@pytest.mark.parametrize('value', ['198.51.100.0/24', '198.51.100.2', 'leaf1', '2001:db8::2/64'])
def test_previous_svi_value_checked(value):
    raw = example('evpn-vxlan')
    first = plan_fabric(load_spec(raw)).to_dict()
    first['allocations']['svi:20:leaf:1'] = value
    with pytest.raises(SpecError) as error:
        plan_fabric(load_spec(raw), previous=first)
    assert error.value.field == 'previous.allocations.svi:20:leaf:1'
