"""The servers' own addresses (planner/hosts.py): one per class a server interface is in, from the subnet it lands in,
at a place that follows from ids and maximums, pinned, never a switch's or another server's."""

import copy

import netaddr
import pytest
from hypothesis import given

from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.hosts import HOST_SUBNET_FULL
from tests.render_fixtures import GUIDES, guide_spec, plan_of
from tests.unit.planner.test_properties import FAST, fabrics

pytestmark = pytest.mark.pure


def expected_subnet(plan, vid, leaf):
    """(subnet, gateway) an interface of class ``vid`` cabled to ``leaf`` must land in, read off the plan's VLANs."""
    vlan = next(v for v in plan.vlans if v.vid == vid)
    for rack in vlan.racks:
        if leaf in rack.leaves:
            return netaddr.IPNetwork(rack.subnet), rack.gateway
    return netaddr.IPNetwork(vlan.subnet), vlan.gateway


def check_host_addresses(plan):
    """Every server interface in a class with a subnet has one address in the subnet of the leaf it is cabled to,
    with that subnet's gateway; none is a network, broadcast, gateway or switch address; no two are equal."""
    lossless = [v for v in plan.vlans if v.lossless]
    switch = {netaddr.IPNetwork(a).ip for v in plan.vlans for _, a in v.switch_addresses}
    switch |= {netaddr.IPNetwork(g).ip for v in plan.vlans for g in [v.gateway, *(r.gateway for r in v.racks)] if g}
    full = {w.field for w in plan.warnings if w.code == HOST_SUBNET_FULL}
    seen = []
    for attachment in plan.attachments:
        wanted = {}
        if attachment.members:
            wanted.update({f'bond0.{vid}': (vid, attachment.members[0][0]) for vid in attachment.vlans})
        if lossless:
            wanted.update({f'rdma{n}': (lossless[0].vid, leaf) for n, (leaf, _) in enumerate(attachment.rdma, 1)})
        wanted = {i: w for i, w in wanted.items() if next(v for v in plan.vlans if v.vid == w[0]).subnet}
        got = {a.interface: a for a in attachment.addresses}
        assert set(got) <= set(wanted), attachment.server
        if not full:
            assert set(got) == set(wanted), attachment.server
        for interface, address in got.items():
            vid, leaf = wanted[interface]
            subnet, gateway = expected_subnet(plan, vid, leaf)
            ip = netaddr.IPNetwork(address.address)
            where = (attachment.server, interface)
            assert (address.vid, address.gateway, ip.cidr) == (vid, gateway, subnet.cidr), where
            assert ip.ip not in (subnet.network, subnet.broadcast) and ip.ip not in switch
            seen.append(ip.ip)
    assert len(seen) == len(set(seen))


@pytest.mark.parametrize('guide', GUIDES)
def test_the_guide_clusters_servers_are_numbered_in_their_subnets(guide):
    plan = plan_of(guide_spec(guide))
    check_host_addresses(plan)
    assert all(a.addresses for a in plan.attachments)


def test_the_guide_cluster_s_addresses_follow_the_server_ids():
    """EVPN: server n takes the (n+1)th host of the class subnet (the 1st is the anycast gateway; the leaves count
    down from the top). MLAG: the pair's rack subnet holds the gateway and both leaves' addresses first."""
    for guide, first in (('evpn-vxlan', 2), ('mlag', 4)):
        spec = guide_spec(guide)
        plan = plan_of(spec)
        ids = {s['name']: s['id'] for s in spec['servers']}
        for attachment in plan.attachments:
            for address in attachment.addresses:
                subnet, _ = expected_subnet(plan, address.vid, attachment.members[0][0])
                per_server = 1 if address.interface.startswith('bond0.') else spec['nics']['rdma_count']
                nic = 0 if per_server == 1 else int(address.interface.removeprefix('rdma')) - 1
                index = first + (ids[attachment.server] - 1) * per_server + nic
                assert address.address == f'{subnet[index]}/{subnet.prefixlen}', (guide, attachment.server)


def test_addresses_are_allocations_pinned_by_the_next_plan():
    spec = guide_spec('evpn-vxlan')
    plan = plan_of(spec)
    hosts = {k: v for k, v in plan.allocations if k.startswith('host:')}
    count = sum(len(a.addresses) for a in plan.attachments)
    assert len(hosts) == count
    previous = plan.to_dict()
    key = next(k for k in hosts if k.endswith(':bond0.20'))
    moved = str(netaddr.IPNetwork(hosts[key]).ip + 100) + '/24'  # a free address of the same subnet, kept as given
    previous['allocations'][key] = moved
    again = plan_fabric(load_spec(spec), previous)
    assert dict(again.allocations)[key] == moved
    assert {k: v for k, v in again.allocations if k.startswith('host:') and k != key} == {
        k: v for k, v in hosts.items() if k != key
    }


def test_a_pinned_address_on_a_gateway_is_released_with_a_warning():
    spec = guide_spec('evpn-vxlan')
    plan = plan_of(spec)
    previous = plan.to_dict()
    key = next(k for k, _ in plan.allocations if k.startswith('host:20:'))
    gateway = next(v.gateway for v in plan.vlans if v.vid == 20)
    previous['allocations'][key] = gateway
    again = plan_fabric(load_spec(spec), previous)
    assert dict(again.allocations)[key] != gateway
    warning = next(w for w in again.warnings if w.field == f'previous.allocations.{key}')
    assert 'gateway' in warning.message and warning.code == 'released-pin'


def test_a_removed_servers_address_is_not_given_to_a_new_one():
    spec = guide_spec('evpn-vxlan')
    plan = plan_of(spec)
    removed = spec['servers'][0]
    gone = {k: v for k, v in plan.allocations if k.startswith('host:') and f':server:{removed["id"]}:' in k}
    grown = copy.deepcopy(spec)
    grown['servers'] = spec['servers'][1:]
    new = {**removed, 'id': max(s['id'] for s in spec['servers']) + 1, 'name': 'gpu-new'}
    grown['servers'].append(new)
    again = plan_fabric(load_spec(grown), plan)
    assert set(gone) <= set(again.reserved)
    values = {v for k, v in again.allocations if k.startswith('host:') and f':server:{new["id"]}:' in k}
    assert values and not values & set(gone.values())


def test_a_rack_subnet_too_small_for_its_servers_warns_and_names_them():
    spec = guide_spec('routed')
    index = next(i for i, tc in enumerate(spec['traffic_classes']) if tc['vlan'] == 20)
    spec['traffic_classes'][index]['rack_prefixlen'] = 29  # 6 hosts: the gateway, the pair's two, 3 servers
    plan = plan_of(spec)
    warning = next(w for w in plan.warnings if w.code == HOST_SUBNET_FULL)
    servers = len(spec['servers'])
    assert servers > 3
    assert warning.field == f'traffic_classes[{index}].subnet'
    assert f'has no address left for {servers - 3} server interfaces' in warning.message
    assert sum(1 for a in plan.attachments for h in a.addresses if h.vid == 20) == 3
    check_host_addresses(plan)


@FAST
@given(fabrics())
def test_every_servers_addresses_lie_in_its_racks_subnet_and_stay_under_growth(pair):
    small, big = pair
    before = plan_fabric(load_spec(small))
    check_host_addresses(before)
    after = plan_fabric(load_spec(big), before)
    check_host_addresses(after)
    hosts = {k: v for k, v in before.allocations if k.startswith('host:')}
    assert {k: dict(after.allocations)[k] for k in hosts} == hosts


def test_addresses_used_elsewhere_are_skipped_and_a_pinned_one_stays():
    """Another fabric's servers in a class both share (``taken``): a new server address skips them; a pinned one
    keeps its place (the apply names the conflict, as for every object)."""
    spec = guide_spec('evpn-vxlan')
    plan = plan_of(spec)
    first = next(a for a in plan.attachments).addresses[0]
    again = plan_fabric(load_spec(spec), taken=[first.address.split('/')[0]])
    moved = dict(again.allocations)
    key = next(k for k, v in plan.allocations if v == first.address and k.startswith('host:'))
    assert moved[key] != first.address
    assert first.address not in {v for k, v in again.allocations if k.startswith('host:')}
    check_host_addresses(again)
    pinned = plan_fabric(load_spec(spec), plan, taken=[first.address])
    assert dict(pinned.allocations)[key] == first.address
