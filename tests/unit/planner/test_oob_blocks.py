"""The management network never shares addresses with a rack: in the routed and MLAG designs the MGMT class is carved
into rack subnets (a gateway on each rack's leaves), and the BMCs and management switches get the class's own top
block, which no rack subnet covers, fixed by the maximums so growth never moves it. A pinned management address
that can no longer stay is released with a warning, never renumbered silently."""

import dataclasses

import netaddr
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.planner import PoolExhaustedError, SpecError, load_spec, plan_fabric
from tests.hypothesis_profiles import examples
from tests.unit.planner.helpers import example
from tests.unit.planner.test_oob import check_oob, rack_subnets

pytestmark = pytest.mark.pure

GUIDE = {'routed': 'routed', 'mlag': 'mlag', 'evpn-vxlan': 'evpn-vxlan'}


def fabric(design, racks, servers_per_rack, layout='pairs', max_leaves=8, ports=48):
    """The guide's spec of ``design`` with ``racks`` leaf pairs (or single leaves), ``servers_per_rack`` servers each
    (rack r's k-th server has id 16·r + k, so growth keeps every server's id),
    BMCs and every switch cabled to a management switch of ``ports`` ports; MGMT is the guide's 192.0.2.0/24."""
    data = example(GUIDE[design])
    data['maximums']['leaves'] = max_leaves
    data['management_switch'] = {'ports': [f'Ethernet{i}' for i in range(1, ports + 1)], 'name': 'oob{n}'}
    data['bmc'] = 'oob'
    leaves, pairs, servers = [], [], []
    for rack in range(racks):
        ids = [2 * rack + 1, 2 * rack + 2] if layout == 'pairs' else [rack + 1]
        leaves += [{'id': i, 'name': f'leaf{i}'} for i in ids]
        if layout == 'pairs':
            pairs.append(ids)
        for k in range(servers_per_rack):  # ids kept when a rack or a server is added: at most 16 a rack
            servers.append({'id': 16 * rack + k + 1, 'name': f'gpu{16 * rack + k + 1}', 'leaves': ids})
    data['leaves'], data['mlag_pairs'], data['servers'] = leaves, pairs, servers
    data.pop('mh_pairs', None)
    return load_spec(data)


def oob_addresses(plan):
    return {key: value for key, value in plan.allocations if key.startswith(('mgmt:bmc:', 'mgmt:oob:'))}


def check_apart(spec, plan):
    """No management address in a rack subnet of MGMT, none on a gateway or an SVI, the gateway not a rack's."""
    check_oob(spec, plan)
    racks = rack_subnets(plan, spec)
    hosts = {netaddr.IPNetwork(value).ip for value in oob_addresses(plan).values()}
    assert not [(h, r) for h in hosts for r in racks if h in r], 'a management address lies in a rack subnet'
    gateways = {netaddr.IPNetwork(g).ip for v in plan.vlans for g in [v.gateway, *(r.gateway for r in v.racks)] if g}
    svis = {netaddr.IPNetwork(a).ip for v in plan.vlans for _, a in v.switch_addresses}
    assert not hosts & (gateways | svis)
    if racks:
        assert netaddr.IPNetwork(plan.oob.gateway).ip not in gateways


def test_routed_four_pairs_of_sixteen_keep_the_bmcs_out_of_rack_7():
    """Found: 29 BMC addresses inside rack 7's 192.0.2.192/27, its network and broadcast among them."""
    spec = fabric('routed', 4, 16)
    plan = plan_fabric(spec)
    check_apart(spec, plan)
    assert plan.oob.subnet == '192.0.2.128/25'  # 9 slots (8 racks + the block) of /28: the top 8 are the block
    assert {r.prefixlen for r in rack_subnets(plan, spec)} == {28}


def test_eight_single_leaf_racks_keep_the_management_switches_out_of_rack_8():
    """Found: both management switches (.254, .253) inside rack 8's 192.0.2.224/27."""
    spec = fabric('routed', 8, 4, layout='singles', ports=24)
    plan = plan_fabric(spec)
    check_apart(spec, plan)
    assert len(plan.oob.switches) == 2
    rack8 = next(netaddr.IPNetwork(r.subnet) for v in plan.vlans if v.vid == 10 for r in v.racks if r.rack == 8)
    assert not {netaddr.IPNetwork(s.address).ip for s in plan.oob.switches} & set(rack8)


def test_mlag_one_rack_has_a_gateway_apart_from_the_racks():
    """Found: the one rack's subnet was the whole /24, its gateway .1 also the BMC network's gateway."""
    spec = fabric('mlag', 1, 4, max_leaves=2)
    plan = plan_fabric(spec)
    check_apart(spec, plan)
    assert rack_subnets(plan, spec) == [netaddr.IPNetwork('192.0.2.0/25')]
    assert (plan.oob.subnet, plan.oob.gateway) == ('192.0.2.128/25', '192.0.2.129/25')


@pytest.mark.parametrize(
    ('design', 'layout', 'racks', 'servers'),
    [('routed', 'pairs', 2, 16), ('routed', 'singles', 6, 4), ('mlag', 'pairs', 3, 16), ('evpn-vxlan', 'pairs', 1, 5)],
)
def test_a_new_rack_moves_no_management_address(design, layout, racks, servers):
    """Found: a new rack's gateway silently moved a pinned BMC (routed mgmt:bmc:22, MLAG mgmt:bmc:54), rc 0."""
    before = plan_fabric(fabric(design, racks, servers, layout))
    grown = fabric(design, racks + 1, servers, layout)
    after = plan_fabric(grown, previous=before)
    check_apart(grown, after)
    old = oob_addresses(before)
    assert {key: value for key, value in oob_addresses(after).items() if key in old} == old
    assert not [w for w in after.warnings if w.field.startswith('previous.allocations.mgmt:')]


def test_a_pinned_bmc_inside_a_rack_subnet_is_released_with_a_warning():
    """A plan made before the management network had its own block can pin a BMC inside a rack subnet: it gets a
    new address in the block, and the plan says so (a released pin), instead of renumbering it silently."""
    spec = fabric('routed', 2, 4)
    plan = plan_fabric(spec)
    previous = plan.to_dict()
    rack1 = netaddr.IPNetwork(next(r.subnet for v in plan.vlans if v.vid == 10 for r in v.racks if r.rack == 1))
    inside = f'{rack1[5]}/{rack1.prefixlen}'
    previous['allocations']['mgmt:bmc:3'] = inside
    after = plan_fabric(spec, previous=previous)
    check_apart(spec, after)
    warning = next(w for w in after.warnings if w.field == 'previous.allocations.mgmt:bmc:3')
    assert inside in warning.message and str(rack1) in warning.message
    assert dict(after.allocations)['mgmt:bmc:3'] == dict(plan.allocations)['mgmt:bmc:3']  # its own slot again


def test_a_new_racks_switch_address_comes_before_an_old_pinned_bmc():
    """Found: a new rack's gateway and switch addresses moved pinned BMCs silently, or failed with "no free switch
    address left" when BMCs filled the rack subnet. The rack subnet is the rack's: its SVI takes its own address,
    the BMC an earlier plan put there is released with a warning."""
    before = plan_fabric(fabric('routed', 2, 4))
    grown = fabric('routed', 3, 4)
    rack5 = netaddr.IPNetwork(
        next(r.subnet for v in plan_fabric(grown).vlans if v.vid == 10 for r in v.racks if r.rack == 5)
    )
    previous = before.to_dict()
    previous['allocations']['mgmt:bmc:1'] = f'{rack5[2]}/25'  # leaf5's own address (the pair's 2nd host)
    after = plan_fabric(grown, previous=previous)
    check_apart(grown, after)
    mgmt = next(v for v in after.vlans if v.vid == 10)
    assert dict(mgmt.switch_addresses)['leaf5'] == f'{rack5[2]}/{rack5.prefixlen}'
    warning = next(w for w in after.warnings if w.field == 'previous.allocations.mgmt:bmc:1')
    assert 'SVI' in warning.message and 'leaf5' in warning.message


def test_a_pinned_address_with_the_old_prefix_length_is_released_with_a_warning():
    spec = fabric('mlag', 1, 2, max_leaves=2)
    plan = plan_fabric(spec)
    previous = plan.to_dict()
    address = netaddr.IPNetwork(dict(plan.allocations)['mgmt:oob:1'])
    previous['allocations']['mgmt:oob:1'] = f'{address.ip}/24'  # the whole MGMT subnet's length, the old rule
    after = plan_fabric(spec, previous=previous)
    warning = next(w for w in after.warnings if w.field == 'previous.allocations.mgmt:oob:1')
    assert '192.0.2.128/25' in warning.message
    assert dict(after.allocations)['mgmt:oob:1'] == str(address)


def test_a_rack_subnet_pinned_inside_the_block_is_a_warning():
    """An earlier plan (before the block existed) may have put a rack subnet where the block is now: the rack keeps
    it, no management address is given inside it (the pinned ones there are released), and the plan says so."""
    spec = fabric('routed', 2, 4)
    plan = plan_fabric(spec)
    previous = plan.to_dict()
    previous['allocations']['subnet:10:rack:3'] = '192.0.2.224/27'  # rack 3's slot under 8 racks in a /24
    after = plan_fabric(spec, previous=previous)
    rack3 = netaddr.IPNetwork('192.0.2.224/27')
    assert rack3 in rack_subnets(after, spec)
    hosts = {netaddr.IPNetwork(value).ip for value in oob_addresses(after).values()}
    assert not [h for h in hosts if h in rack3]
    overlap = [w for w in after.warnings if w.code == 'oob-overlaps-rack']
    assert [(w.field, str(rack3) in w.message) for w in overlap] == [('traffic_classes[0].subnet', True)]
    moved = {k for k, v in oob_addresses(plan).items() if netaddr.IPNetwork(v).ip in rack3}
    assert moved and {w.field for w in after.warnings if w.code == 'released-pin'} >= {
        f'previous.allocations.{key}' for key in moved
    }


def test_rack_subnets_pinned_over_the_whole_block_are_a_named_error():
    """When rack subnets an earlier plan pinned fill the block, no management address fits: the error names them."""
    spec = fabric('routed', 2, 4)
    previous = plan_fabric(spec).to_dict()
    previous['allocations']['subnet:10:rack:3'] = '192.0.2.128/25'  # the whole block
    with pytest.raises(PoolExhaustedError) as error:
        plan_fabric(spec, previous=previous)
    assert error.value.field == 'traffic_classes.MGMT.subnet'
    assert 'subnet:10:rack:3 192.0.2.128/25' in error.value.message and 'renumbered' in error.value.message


def test_no_room_for_the_management_block_is_a_named_error():
    """rack_prefixlen /27 gives 8 slots, all of them for the 8 racks maximums.leaves allows."""
    spec = fabric('routed', 2, 2)
    mgmt = next(i for i, tc in enumerate(spec.traffic_classes) if tc.purpose == 'management')
    classes = list(spec.traffic_classes)
    classes[mgmt] = dataclasses.replace(classes[mgmt], rack_prefixlen=27)
    with pytest.raises(SpecError) as error:
        plan_fabric(dataclasses.replace(spec, traffic_classes=tuple(classes)))
    assert error.value.field == f'traffic_classes[{mgmt}].subnet'
    assert '8 racks possible' in error.value.message and "management network's own block need 9" in error.value.message


def test_without_a_management_switch_the_racks_keep_the_whole_class():
    spec = dataclasses.replace(fabric('routed', 2, 2), management_switch=None)
    plan = plan_fabric(spec)
    assert {r.prefixlen for r in rack_subnets(plan, spec)} == {27}  # 8 racks possible: /24 in 8


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(['routed', 'mlag', 'evpn-vxlan']),
    st.sampled_from(['pairs', 'singles']),
    st.integers(min_value=1, max_value=3),
    st.integers(min_value=1, max_value=15),  # the grown fabric adds one: 16 per leaf (maximums.servers_per_leaf)
    st.sampled_from([12, 48]),
)
def test_property_management_addresses_stay_apart_and_pinned(design, layout, racks, servers, ports):
    if layout == 'singles' and design != 'routed':
        layout = 'pairs'  # single-leaf racks: the routed design's layout
    spec = fabric(design, racks, servers, layout, ports=ports)
    plan = plan_fabric(spec)
    check_apart(spec, plan)
    grown = fabric(design, racks + 1, servers + 1, layout, ports=ports)
    after = plan_fabric(grown, previous=plan)
    check_apart(grown, after)
    old = oob_addresses(plan)
    assert {key: value for key, value in oob_addresses(after).items() if key in old} == old


def _with_jump_hosts(spec, prefix):
    return dataclasses.replace(spec, management_switch=dataclasses.replace(spec.management_switch, keep_free=(prefix,)))


def _jump_host_warnings(plan):
    return [w for w in plan.warnings if w.code == 'jump-hosts-in-rack-subnets']


@pytest.mark.parametrize('design', ['routed', 'mlag'])
def test_jump_hosts_where_racks_are_carved_are_a_warning(design):
    """The guide's second /28 of MGMT (the wizard's proposal for the EVPN design) is a rack's whole MGMT subnet once
    the class is carved for the management network's block: its hosts would be admitted as jump hosts."""
    spec = fabric(design, 2, 2)
    mgmt = next(tc for tc in spec.traffic_classes if tc.purpose == 'management')
    second = str(list(netaddr.IPNetwork(mgmt.subnet).subnet(28))[1])
    plan = plan_fabric(_with_jump_hosts(spec, second))
    block = netaddr.IPNetwork(plan.oob.subnet)
    assert [(w.field, second in w.message, str(block) in w.message) for w in _jump_host_warnings(plan)] == [
        ('management_switch.keep_free[0]', True, True)
    ]
    inside = str(list(block.subnet(28))[1])  # the block's second /28: clear of its gateway and of the racks
    assert _jump_host_warnings(plan_fabric(_with_jump_hosts(spec, inside))) == []


def test_jump_hosts_in_the_evpn_design_are_no_warning():
    """One anycast MGMT subnet (no rack subnets): the jump hosts are hosts of that VLAN, as in the guide's demo."""
    spec = fabric('evpn-vxlan', 2, 2)
    mgmt = next(tc for tc in spec.traffic_classes if tc.purpose == 'management')
    second = str(list(netaddr.IPNetwork(mgmt.subnet).subnet(28))[1])
    assert _jump_host_warnings(plan_fabric(_with_jump_hosts(spec, second))) == []
