"""The servers' own addresses: one per traffic class a server interface is in, from that class's subnet.

A server is in its bond's data classes (a VLAN sub-interface ``bond0.<vid>`` each) and, with RDMA NICs, in the first
lossless class (each NIC ``rdma<n>`` an access port of it: ``facts.cabling.server_port_modes``). Each such interface
gets an address of the subnet it lands in: the class's subnet in the EVPN/VXLAN design (one anycast gateway), the rack
subnet of the leaf the interface is cabled to in the routed and MLAG designs. A class without a subnet gets none.

Where an address lies follows from stable ids and maximums only, as every allocation of the planner: counted up from
the first host after the gateway (and after the two switch addresses of a pair's rack subnet; in an EVPN subnet the
switches count down from the top), server n takes index n − 1 of the fabric's subnet, or its slot
((id − 1) mod servers_per_leaf) of a rack subnet, times its interfaces in the class (one on the bond, one per RDMA
NIC). A preferred address that is taken (a switch's, a BMC's, another server's) or outside the subnet gives way to the
lowest free one. Each is an allocation ``host:<vid>:server:<id>:<interface>``, pinned like every other: growth moves
no address; a pin its subnet can no longer hold is released with a warning.
"""

import ipaddress
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import netaddr

from netbox_aifabric.planner.oob import OOB_ADDRESS_KEYS
from netbox_aifabric.planner.previous import released_pin
from netbox_aifabric.planner.result import Attachment, HostAddress, PlanWarning, VlanPlan
from netbox_aifabric.planner.spec import NON_DATA_PURPOSES, FabricSpec
from netbox_aifabric.planner.validate import server_slot

__all__ = ('BOND', 'HOST_SUBNET_FULL', 'allocate_host_addresses', 'host_keys')

BOND = 'bond0'  # the server's bond (facts.cabling.SERVER_BOND names the same; the facts import the planner)
HOST_SUBNET_FULL = 'host-subnet-full'  # the warning of a subnet too small for its servers


@dataclass(frozen=True)
class _Request:
    key: str
    server: str
    interface: str
    vid: int
    leaf: str  # the leaf the interface is cabled to (its rack's subnet in the routed and MLAG designs)
    number: int  # the server's ordinal: id − 1 in the fabric's subnet, its slot in a rack subnet
    rack_number: int
    nic: int  # the interface's index among the server's interfaces in the class (0 on the bond)
    per_server: int  # the server's interfaces in the class


@dataclass(frozen=True)
class _Subnet:
    network: netaddr.IPNetwork
    gateway: str | None
    what: str  # how a message names it
    first: int  # the lowest address a server prefers: after the gateway and the addresses of a pair's switches
    per_rack: bool

    @cached_property
    def last(self) -> int:  # the broadcast address, as an integer
        return int(self.network.last)

    def address(self, value: int) -> str:
        """``value`` (an integer in the subnet) as an address with the subnet's prefix length."""
        return f'{ipaddress.IPv4Address(value)}/{self.prefixlen}'

    @cached_property
    def prefixlen(self) -> int:
        return int(self.network.prefixlen)

    def preferred(self, request: _Request) -> int | None:
        number = request.rack_number if self.per_rack else request.number
        value = self.first + number * request.per_server + request.nic
        return value if value < self.last else None


def _host_vlans(spec: FabricSpec) -> tuple[tuple[int, ...], int | None]:
    """The bond's data classes with a subnet, and the first lossless class (the RDMA NICs' one) when it has one."""
    bond = tuple(
        sorted(
            tc.vlan
            for tc in spec.traffic_classes
            if not tc.lossless and tc.purpose not in NON_DATA_PURPOSES and tc.subnet
        )
    )
    lossless = sorted((tc for tc in spec.traffic_classes if tc.lossless), key=lambda t: t.vlan)
    return bond, lossless[0].vlan if lossless and lossless[0].subnet else None


def host_keys(spec: FabricSpec) -> set[str]:
    """The allocation keys of this spec's server addresses (a previous plan's others belong to removed servers)."""
    bond, rdma = _host_vlans(spec)
    keys: set[str] = set()
    for server in spec.servers:
        if spec.nics.count:
            keys.update(f'host:{vid}:server:{server.id}:{BOND}.{vid}' for vid in bond)
        if rdma is not None:
            keys.update(f'host:{rdma}:server:{server.id}:rdma{r}' for r in range(1, spec.nics.rdma_count + 1))
    return keys


def _requests(spec: FabricSpec, attachments: Sequence[Attachment]) -> Iterator[_Request]:
    """Each server interface that gets an address, servers by id, the bond's VLANs by VID, then the RDMA NICs."""
    bond, rdma = _host_vlans(spec)
    by_name = {a.server: a for a in attachments}
    for server in sorted(spec.servers, key=lambda s: s.id):
        attachment = by_name[server.name]
        ids = (server.id - 1, server_slot(spec, server.id))
        if attachment.members:
            first_leaf = attachment.members[0][0]
            for vid in bond:
                interface = f'{BOND}.{vid}'
                key = f'host:{vid}:server:{server.id}:{interface}'
                yield _Request(key, server.name, interface, vid, first_leaf, *ids, 0, 1)
        if rdma is not None:
            for r, (leaf, _port) in enumerate(attachment.rdma):
                key = f'host:{rdma}:server:{server.id}:rdma{r + 1}'
                yield _Request(key, server.name, f'rdma{r + 1}', rdma, leaf, *ids, r, spec.nics.rdma_count)


def _subnet_of(vlan: VlanPlan, leaf: str) -> _Subnet | None:
    """The subnet an interface cabled to ``leaf`` lands in (None: the class has none there)."""
    for rack in vlan.racks:
        if leaf in rack.leaves:
            network = netaddr.IPNetwork(rack.subnet).cidr
            switches = len(rack.leaves) if len(rack.leaves) > 1 else 0  # a single leaf's gateway is its address
            what = f'rack subnet of {", ".join(rack.leaves)}'
            return _Subnet(network, rack.gateway, what, network.first + 2 + switches, True)
    if vlan.racks or vlan.subnet is None:
        return None
    network = netaddr.IPNetwork(vlan.subnet).cidr
    return _Subnet(network, vlan.gateway, 'subnet', network.first + (2 if vlan.gateway else 1), False)


def _subnets(vlans: Sequence[VlanPlan], leaves: set[str]) -> dict[tuple[int, str], _Subnet]:
    """``{(vid, leaf): subnet}``: where an interface of each class cabled to each of ``leaves`` lands
    (:func:`_subnet_of`, computed once per leaf and class rather than once per interface)."""
    found: dict[tuple[int, str], _Subnet] = {}
    for vlan in vlans:
        if vlan.racks:
            for rack in vlan.racks:
                found.update({(vlan.vid, leaf): s for leaf in rack.leaves if (s := _subnet_of(vlan, leaf))})
        elif (subnet := _subnet_of(vlan, '')) is not None:
            found.update({(vlan.vid, leaf): subnet for leaf in leaves})
    return found


def _switch_held(vlans: Sequence[VlanPlan], held: Mapping[str, str]) -> set[netaddr.IPAddress]:
    """Addresses no server may take: every gateway and switch address, and the management addresses held."""
    taken = {netaddr.IPNetwork(value).ip for key, value in held.items() if key.startswith(OOB_ADDRESS_KEYS)}
    for vlan in vlans:
        gateways = [vlan.gateway, *(rack.gateway for rack in vlan.racks)]
        taken.update(netaddr.IPNetwork(g).ip for g in gateways if g)
        taken.update(netaddr.IPNetwork(address).ip for _, address in vlan.switch_addresses)
    return taken


def _stale(value: str, network: netaddr.IPNetwork, taken: set[int]) -> str | None:
    """Why a pinned server address cannot stay in ``network``, or None when it can."""
    address = netaddr.IPNetwork(value)
    if address.cidr != network:
        return f'{value} is not an address of its subnet {network} now: it takes a free address of it'
    if int(address.ip) in (network.first, network.last) or int(address.ip) in taken:
        return f'{value} is the network, broadcast, gateway or a switch address of {network}: it takes a free address'
    return None


def allocate_host_addresses(
    spec: FabricSpec,
    attachments: Sequence[Attachment],
    vlans: Sequence[VlanPlan],
    pinned: dict[str, str],
    held: Mapping[str, str],
    elsewhere: Iterable[str] = (),
) -> tuple[list[Attachment], dict[str, str], list[PlanWarning]]:
    """The attachments with their ``addresses``, the allocations made (key → address/prefix length) and the
    warnings: pins released, and subnets too small for their servers. ``pinned``: this spec's pinned allocations (a
    released pin is dropped from it); ``held``: every allocation of the previous plan kept (a removed server's
    addresses stay taken until released); ``elsewhere``: addresses used outside the fabric, which no new address
    takes (a pinned one keeps its place).

    A subnet full before every server interface in it has an address is not an error (plans made before servers were
    numbered stay valid): the interfaces left over get none, and one ``host-subnet-full`` warning per subnet names
    them, the class's ``subnet`` field and the fix.
    """
    vlan_of = {vlan.vid: vlan for vlan in vlans}
    subnets = _subnets(vlans, {leaf for a in attachments for leaf, _ in (*a.members, *a.rdma)})
    requests = [(r, s) for r in _requests(spec, attachments) if (s := subnets.get((r.vid, r.leaf))) is not None]
    taken = {int(a) for a in _switch_held(vlans, held)}
    released: list[PlanWarning] = []
    for request, subnet in requests:
        if request.key in pinned and (reason := _stale(pinned[request.key], subnet.network, taken)) is not None:
            del pinned[request.key]
            released.append(released_pin(request.key, f'{request.server} {request.interface}: {reason}'))
    current = {r.key for r, _ in requests}
    used = set(taken) | {int(netaddr.IPNetwork(value).ip) for value in elsewhere}
    used.update(int(netaddr.IPNetwork(v).ip) for k, v in held.items() if k.startswith('host:') and k not in current)
    used.update(int(netaddr.IPNetwork(pinned[r.key]).ip) for r, _ in requests if r.key in pinned)
    values = {r.key: pinned[r.key] for r, _ in requests if r.key in pinned}
    for request, subnet in requests:  # first every preferred address that is free, then the lowest free ones
        preferred = subnet.preferred(request)
        if request.key not in values and preferred is not None and preferred not in used:
            used.add(preferred)
            values[request.key] = subnet.address(preferred)
    cursor: dict[netaddr.IPNetwork, int] = {}
    addresses: dict[str, list[HostAddress]] = {}
    short: dict[_Subnet, list[_Request]] = {}
    for request, subnet in requests:
        value = values.get(request.key) or _free(subnet, used, cursor)
        if value is None:
            short.setdefault(subnet, []).append(request)
            continue
        values[request.key] = value
        host = HostAddress(request.interface, request.vid, value, subnet.gateway)
        addresses.setdefault(request.server, []).append(host)
    attached = [replace(a, addresses=tuple(addresses.get(a.server, ()))) for a in attachments]
    return attached, values, [*released, *_shortages(spec, vlan_of, short)]


def _free(subnet: _Subnet, used: set[int], cursor: dict[netaddr.IPNetwork, int]) -> str | None:
    """The subnet's lowest free host address (taken into ``used``), None when it is full; ``cursor``: where the last
    search in it stopped (addresses are handed out in ascending order)."""
    network = subnet.network
    value = cursor.get(network, network.first + 1)
    while value < network.last and value in used:
        value += 1
    cursor[network] = value
    if value >= network.last:
        return None
    used.add(value)
    return subnet.address(value)


def _shortages(
    spec: FabricSpec, vlan_of: Mapping[int, VlanPlan], short: Mapping[_Subnet, Sequence[_Request]]
) -> Iterator[PlanWarning]:
    """One warning per subnet that could not number every server interface in it."""
    field_of = {tc.vlan: f'traffic_classes[{i}].subnet' for i, tc in enumerate(spec.traffic_classes)}
    for subnet, requests in short.items():
        vid = requests[0].vid
        named = ', '.join(f'{r.server} {r.interface}' for r in requests[:3]) + (' …' if len(requests) > 3 else '')
        yield PlanWarning(
            HOST_SUBNET_FULL,
            field_of[vid],
            f'the {subnet.what} {subnet.network} of {vlan_of[vid].name} has no address left for {len(requests)} '
            f'server interfaces ({named}): its {max(subnet.network.size - 2, 0)} host addresses hold the gateway, '
            'the switch addresses and the other servers; those interfaces get no address: use a shorter prefix '
            '(or a shorter rack_prefixlen)',
        )
