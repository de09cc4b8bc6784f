"""The management (out-of-band) network: every BMC and every switch management port cabled exactly once to a
management switch port, addresses unique in the MGMT class's subnet and apart from every address the plan already
gives (in the routed and MLAG designs in the MGMT class's own block, outside every rack subnet), deterministic and
pinned as the fabric grows."""

import dataclasses
from collections import Counter

import netaddr
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.planner import PoolExhaustedError, SpecError, load_spec, plan_fabric
from netbox_aifabric.planner.spec import ManagementSwitch, PortRange, Server
from tests.hypothesis_profiles import examples
from tests.unit.planner.helpers import GUIDES, example

pytestmark = pytest.mark.pure


def spec_of(design, ports=48, servers=None, bmc='oob', keep_free=()):
    spec = load_spec(example(design))
    if servers is not None:
        leaves = spec.servers[0].leaves
        spec = dataclasses.replace(spec, servers=tuple(Server(i, f'gpu{i}', leaves) for i in range(1, servers + 1)))
    switch = ManagementSwitch(tuple(f'Ethernet{i}' for i in range(1, ports + 1)), 'lab-oob{n}', keep_free)
    return dataclasses.replace(spec, management_switch=switch, bmc=bmc)


def mgmt_subnet(spec):
    return netaddr.IPNetwork(next(tc.subnet for tc in spec.traffic_classes if tc.purpose == 'management'))


def oob_subnet(spec):
    """The management network's subnet, from the input: the MGMT class's subnet, or where the class is carved into
    rack subnets (routed and MLAG designs) its top block above the rack slots of the maximums (one slot more than
    the racks possible, so at least one slot is free), as large as the free slots allow."""
    tc = next(tc for tc in spec.traffic_classes if tc.purpose == 'management')
    subnet = netaddr.IPNetwork(tc.subnet)
    if spec.evpn or not tc.routed:
        return subnet
    possible = max(spec.maximums.leaves // 2, 1) if spec.design == 'mlag' else spec.maximums.leaves
    slots = 2 ** (tc.rack_prefixlen - subnet.prefixlen) if tc.rack_prefixlen else 1 << possible.bit_length()
    block = 1 << ((slots - possible).bit_length() - 1)  # free slots, rounded down to a power of two
    prefixlen = subnet.prefixlen + slots.bit_length() - block.bit_length()
    return netaddr.IPNetwork(f'{netaddr.IPAddress(subnet.last + 1 - (subnet.size // slots) * block)}/{prefixlen}')


def rack_subnets(plan, spec):
    """The MGMT class's rack subnets in the plan."""
    vid = next(tc.vlan for tc in spec.traffic_classes if tc.purpose == 'management')
    return [netaddr.IPNetwork(r.subnet) for v in plan.vlans if v.vid == vid for r in v.racks]


def held(plan):
    """Every address the rest of the plan gives (switch management, gateways, SVIs)."""
    addresses = {n.management for n in plan.nodes if n.management}
    for vlan in plan.vlans:
        addresses.update(g for g in [vlan.gateway, *(r.gateway for r in vlan.racks)] if g)
        addresses.update(a for _, a in vlan.switch_addresses)
    return {str(netaddr.IPNetwork(a).ip) for a in addresses}


def check_oob(spec, plan):
    oob = plan.oob
    expected = Counter({('bmc', s.name): 1 for s in spec.servers} if spec.bmc == 'oob' else {})
    expected.update({('switch-management', n.name): 1 for n in (*spec.spines, *spec.leaves)})
    assert Counter((link.kind, link.device) for link in oob.links) == expected  # every port exactly once
    ends = [(link.switch, link.interface) for link in oob.links]
    assert len(set(ends)) == len(ends), 'a management switch port is cabled twice'
    assert {s for s, _ in ends} <= {s.name for s in oob.switches}
    assert all(port in spec.management_switch.ports for _, port in ends)
    per_switch = len(spec.management_switch.ports)
    assert len(oob.switches) == -(-len(expected) // per_switch)  # as few switches as the ports need
    subnet = oob_subnet(spec)
    assert plan.oob.subnet == str(subnet) and plan.oob.gateway == f'{subnet.ip + 1}/{subnet.prefixlen}'
    assert not [r for r in rack_subnets(plan, spec) if r.first <= subnet.last and subnet.first <= r.last]
    addresses = [link.address for link in oob.links if link.kind == 'bmc'] + [s.address for s in oob.switches]
    assert all(addresses)
    hosts = [str(netaddr.IPNetwork(a).ip) for a in addresses]
    assert len(set(hosts)) == len(hosts), 'an address is given twice'
    assert all(netaddr.IPNetwork(a).prefixlen == subnet.prefixlen and netaddr.IPAddress(h) in subnet
               for a, h in zip(addresses, hosts, strict=True))  # fmt: skip
    assert not set(hosts) & held(plan)
    assert str(subnet.ip + 1) not in hosts  # the BMC network's gateway stays free
    switches = {n.name: n.management for n in plan.nodes}
    assert all(link.address == switches[link.device] for link in oob.links if link.kind == 'switch-management')


@pytest.mark.parametrize('design', GUIDES)
def test_the_guides_cluster_cables_every_bmc_and_management_port_once(design):
    spec = spec_of(design)
    plan = plan_fabric(spec)
    check_oob(spec, plan)
    assert len(plan.oob.switches) == 1 and plan.oob.switches[0].name == 'lab-oob1'
    subnet = oob_subnet(spec)
    # the slots follow the stable ids and the maximums: spines, then leaves, then the servers' BMCs
    m = spec.maximums
    port = {link.device: link.interface for link in plan.oob.links}
    assert port[spec.leaves[0].name] == f'Ethernet{m.spines + spec.leaves[0].id}'
    assert port[spec.servers[0].name] == f'Ethernet{m.spines + m.leaves + spec.servers[0].id}'
    # addresses count down from the top: switch 1 at the last host the plan does not already give (the EVPN
    # design's leaves hold the top of MGMT for their own SVI addresses), server id k at broadcast − 8 − k
    taken = held(plan)
    first_free = next(a for a in range(int(subnet.broadcast) - 1, 0, -1) if str(netaddr.IPAddress(a)) not in taken)
    assert plan.oob.switches[0].address == f'{netaddr.IPAddress(first_free)}/{subnet.prefixlen}'
    bmc = {link.device: link.address for link in plan.oob.links if link.kind == 'bmc'}
    server = spec.servers[0]
    assert str(subnet.broadcast - 8 - server.id) not in taken
    assert bmc[server.name] == f'{subnet.broadcast - 8 - server.id}/{subnet.prefixlen}'
    assert plan.to_dict()['oob']['switches'][0]['name'] == 'lab-oob1'


def test_without_a_management_switch_the_plan_is_unchanged():
    spec = load_spec(example('routed'))
    plan = plan_fabric(spec)
    assert plan.oob is None and 'oob' not in plan.to_dict()
    assert not [key for key, _ in plan.allocations if ':oob:' in key or key.startswith('mgmt:bmc')]


def test_bmcs_on_the_leaves_leave_only_the_switch_management_ports():
    spec = spec_of('routed', bmc='leaf')
    bmc_ports = PortRange(75, 16, 1)  # after the example's uplinks (65-72) and peer link (73-74)
    spec = dataclasses.replace(spec, leaf_platform=dataclasses.replace(spec.leaf_platform, bmc_ports=bmc_ports))
    plan = plan_fabric(spec)
    check_oob(spec, plan)
    assert {link.kind for link in plan.oob.links} == {'switch-management'}
    assert sum(1 for link in plan.links if link.kind == 'bmc') == len(spec.servers)  # the BMCs are on the leaves


def test_jump_hosts_are_kept_free():
    subnet = mgmt_subnet(spec_of('routed'))
    top = netaddr.IPNetwork(f'{subnet.broadcast - 15}/28')  # the last 16 addresses
    spec = spec_of('routed', keep_free=(str(top.cidr),))
    plan = plan_fabric(spec)
    check_oob(spec, plan)
    hosts = {str(netaddr.IPNetwork(link.address).ip) for link in plan.oob.links if link.kind == 'bmc'}
    assert not {h for h in hosts if netaddr.IPAddress(h) in top.cidr}


def test_growth_keeps_every_cable_and_address():
    small = spec_of('routed', ports=8, servers=4)
    before = plan_fabric(small)
    grown = spec_of('routed', ports=8, servers=12)
    after = plan_fabric(grown, previous=before)
    check_oob(grown, after)
    old = {(link.device, link.switch, link.interface, link.address) for link in before.oob.links}
    assert old <= {(link.device, link.switch, link.interface, link.address) for link in after.oob.links}
    assert not after.reserved  # the management network's keys are the plan's own, not a removed node's
    assert len(after.oob.switches) > len(before.oob.switches)  # 8 ports per switch: growth added one
    assert plan_fabric(grown, previous=after) == after  # pinned: the same plan again


def test_new_spines_go_around_the_bmcs_that_took_their_slots():
    """With 8 ports a switch, the BMCs' preferred slots (after 4 spines and 8 leaves) lie beyond the first switch, so
    they took the free slots of spines 3 and 4; the spines added later find those taken and take free ones."""
    small = spec_of('routed', ports=8, servers=4)
    before = plan_fabric(small)
    taken = {link.interface for link in before.oob.links if link.switch == 'lab-oob1'}
    assert {'Ethernet3', 'Ethernet4'} <= taken  # spine 3's and 4's preferred ports, held by BMCs
    spines = (*small.spines, *(dataclasses.replace(small.spines[0], id=i, name=f'spine{i}') for i in (3, 4)))
    grown = dataclasses.replace(small, spines=spines)
    after = plan_fabric(grown, previous=before)
    check_oob(grown, after)
    old = {(link.device, link.switch, link.interface) for link in before.oob.links}
    assert old <= {(link.device, link.switch, link.interface) for link in after.oob.links}


def test_a_full_mgmt_subnet_is_a_named_error():
    spec = spec_of('routed')  # 5 BMCs and a management switch: 6 addresses, and the gateway; a /29 has 6 hosts
    small = dataclasses.replace(
        spec,
        traffic_classes=tuple(
            dataclasses.replace(tc, subnet='192.0.2.0/29', routed=False) if tc.purpose == 'management' else tc
            for tc in spec.traffic_classes
        ),
    )
    with pytest.raises(PoolExhaustedError) as error:
        plan_fabric(small)
    assert error.value.field.endswith('.subnet') and 'MGMT' in error.value.message


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(GUIDES),
    st.integers(min_value=1, max_value=48),
    st.integers(min_value=1, max_value=24),
    st.sampled_from(['oob', 'leaf']),
)
def test_property_every_port_once_addresses_unique(design, ports, servers, bmc):
    spec = spec_of(design, ports=ports, servers=servers, bmc=bmc)
    try:
        plan = plan_fabric(spec)
    except Exception as error:  # a spec the planner refuses (e.g. no BMC block on the leaves) names its field
        assert hasattr(error, 'field'), error
        return
    check_oob(spec, plan)
    assert plan_fabric(spec, previous=plan) == plan


def test_a_spec_file_plans_the_management_network():
    data = example('routed')
    data['management_switch'] = {'ports': [f'Ethernet{i}' for i in range(1, 49)], 'name': 'lab-oob{n}'}
    spec = load_spec(data)
    check_oob(spec, plan_fabric(spec))


@pytest.mark.parametrize(
    ('switch', 'field'),
    [
        ({'ports': []}, 'management_switch.ports'),
        ({'ports': ['e1', 'e1']}, 'management_switch.ports'),
        ({'ports': ['e1'], 'name': 'oob'}, 'management_switch.name'),
        ({'ports': ['e1'], 'name': 'oob{x}'}, 'management_switch.name'),
        ({'ports': ['e1'], 'name': 'oob{n'}, 'management_switch.name'),
        ({'ports': ['e1'], 'keep_free': ['nonsense']}, 'management_switch.keep_free[0]'),
        ({'ports': ['e1'], 'keep_free': ['2001:db8::/64']}, 'management_switch.keep_free[0]'),
        ({'name': 'oob{n}'}, 'management_switch.ports'),
        ('e1', 'management_switch'),
    ],
)
def test_a_bad_management_switch_is_a_named_error(switch, field):
    data = example('routed')
    data['management_switch'] = switch
    with pytest.raises(SpecError) as error:
        plan_fabric(load_spec(data))
    assert error.value.field == field


def test_svis_of_new_leaves_go_around_the_management_network():
    """EVPN: leaf n's SVI in the MGMT class prefers its last host − (n − 1), where the management switches' and BMCs'
    addresses are counted down too. Leaves added later take SVI addresses around the management network the earlier
    plan gave: every BMC and management-switch address stays, and none is given twice."""
    small = example('evpn-vxlan')
    grown = example('evpn-vxlan')
    grown['leaves'] += [{'id': 3, 'name': 'leaf3'}, {'id': 4, 'name': 'leaf4'}]
    grown['mlag_pairs'].append([3, 4])

    def with_switch(spec):
        switch = ManagementSwitch(tuple(f'Ethernet{i}' for i in range(1, 49)), 'lab-oob{n}', ())
        return dataclasses.replace(load_spec(spec), management_switch=switch)

    before = plan_fabric(with_switch(small))
    after = plan_fabric(with_switch(grown), previous=before)
    check_oob(with_switch(grown), after)
    given = {link.device: link.address for link in before.oob.links if link.kind == 'bmc'}
    given.update({s.name: s.address for s in before.oob.switches})
    kept = {link.device: link.address for link in after.oob.links if link.kind == 'bmc'}
    kept.update({s.name: s.address for s in after.oob.switches})
    assert {name: kept[name] for name in given} == given
    mgmt = next(v for v in after.vlans if v.name == 'MGMT')
    svis = dict(mgmt.switch_addresses)
    assert {'leaf3', 'leaf4'} <= set(svis)  # the new leaves got SVI addresses, apart from the management network's
    assert not {netaddr.IPNetwork(a).ip for a in svis.values()} & {netaddr.IPNetwork(a).ip for a in given.values()}
