"""Leaf pairs and racks: which leaves a server may bond across, and the routed design's per-rack subnets.

A rack is a leaf pair (MLAG with its peer link, or in the EVPN/VXLAN design an EVPN multihoming pair) or a single
leaf. A server's bond spans the leaves of one pair (or one leaf); a bond across leaves that are not a pair cannot
come up as one LAG and is an error in every design. In the routed design VLANs stay local to their rack (the guide's
option 2): every routed class gets one subnet per rack, with its gateway only on that rack's leaves. When the plan has
a management network, the MGMT class keeps one more slot than the possible racks: the management network's own block
(BMCs, management switches) at the top of the class subnet, which no rack subnet covers (:func:`oob_block`).
"""

import math
from dataclasses import dataclass

import netaddr

from netbox_aifabric.planner.errors import SpecError
from netbox_aifabric.planner.result import RackSubnet, VlanPlan
from netbox_aifabric.planner.spec import FabricSpec, TrafficClass

__all__ = ('Rack', 'check_pairs', 'holds_oob_block', 'oob_block', 'rack_prefixlen', 'rack_subnet_reason', 'racks_of')

RACK_PREFIX_MAX = 30  # a rack subnet needs a gateway and at least one host


@dataclass(frozen=True)
class Rack:
    """A rack: its id (its lowest leaf id), its leaf ids and how they pair (``mlag``, ``evpn-mh`` or ``single``)."""

    id: int
    leaves: tuple[int, ...]
    kind: str


def racks_of(spec: FabricSpec) -> tuple[Rack, ...]:
    """The fabric's racks in id order."""
    racks: list[Rack] = []
    paired: set[int] = set()
    for kind, pairs in (('mlag', spec.mlag_pairs), ('evpn-mh', spec.mh_pairs)):
        for pair in pairs:
            leaves = tuple(sorted(pair))
            racks.append(Rack(leaves[0], leaves, kind))
            paired.update(leaves)
    racks.extend(Rack(leaf.id, (leaf.id,), 'single') for leaf in spec.leaves if leaf.id not in paired)
    return tuple(sorted(racks, key=lambda r: r.id))


def check_pairs(spec: FabricSpec) -> None:
    """EVPN multihoming pairs (EVPN/VXLAN design only, leaves in one pair at most) and every bond on one rack."""
    mlag = {leaf for pair in spec.mlag_pairs for leaf in pair}
    leaf_ids = {leaf.id for leaf in spec.leaves}
    if spec.mh_pairs and not spec.evpn:
        raise SpecError('mh_pairs', f'EVPN multihoming pairs need the evpn-vxlan design, not {spec.design}')
    seen: dict[int, int] = {}
    for index, pair in enumerate(spec.mh_pairs):
        field = f'mh_pairs[{index}]'
        if len(pair) != 2:
            raise SpecError(field, f'an EVPN multihoming pair needs exactly two leaves, got {len(pair)}')
        if pair[0] == pair[1]:
            raise SpecError(field, f'leaf id {pair[0]} cannot pair with itself')
        for leaf in pair:
            if leaf not in leaf_ids:
                raise SpecError(field, f'leaf id {leaf} is not a declared leaf')
            if leaf in mlag:
                raise SpecError(field, f'leaf id {leaf} is in an MLAG pair already; a leaf pairs one way only')
            if leaf in seen:
                raise SpecError(field, f'leaf id {leaf} is already in mh_pairs[{seen[leaf]}]')
            seen[leaf] = index
    rack_of = {leaf: rack for rack in racks_of(spec) for leaf in rack.leaves}
    names = {leaf.id: leaf.name for leaf in spec.leaves}
    for index, server in enumerate(spec.servers):
        racks = {rack_of[leaf].id for leaf in server.leaves if leaf in rack_of}
        if len(racks) > 1:
            listed = ', '.join(names.get(leaf, str(leaf)) for leaf in server.leaves)
            raise SpecError(
                f'servers[{index}].leaves',
                f'the bond of {server.name} spans {listed}, which are not a leaf pair: a LAG needs its members on '
                'one leaf or one MLAG / EVPN multihoming pair',
                server.name,
            )


def rack_prefixlen(
    spec: FabricSpec, field: str, network: netaddr.IPNetwork, requested: int | None, oob: bool = False
) -> int:
    """The per-rack prefix length of a routed class: ``requested``, else the longest prefix that gives every possible
    rack a subnet (every leaf a rack of its own in the routed design; every pair in the MLAG design) and, with
    ``oob``, one more slot for the management network's block."""
    possible = _possible_racks(spec) + (1 if oob else 0)
    if requested is not None:
        if not network.prefixlen <= requested <= RACK_PREFIX_MAX:
            raise SpecError(
                field, f'rack prefix length /{requested} must lie between /{network.prefixlen} and /{RACK_PREFIX_MAX}'
            )
        return requested
    length: int = network.prefixlen + math.ceil(math.log2(possible)) if possible > 1 else network.prefixlen
    if length > RACK_PREFIX_MAX:
        fit = 2 ** (RACK_PREFIX_MAX - network.prefixlen)
        racks = f'{possible} racks possible (max leaves)'
        if oob:
            racks = f"{possible - 1} racks possible (max leaves) and the management network's own block"
        raise SpecError(
            field,
            f'{network} is too small for a /{RACK_PREFIX_MAX} per rack: {racks}, {fit} fit; use a shorter prefix '
            'or set the rack prefix length',
        )
    return length


def rack_subnet_reason(vlan: VlanPlan, rack: RackSubnet) -> str:
    """Why a rack subnet has its size, from the plan alone (the guide's /24 per class becomes a /26 or /27 per rack
    only here): ``/26: USERS 198.51.100.0/24 split into 4 rack subnets, one per rack; up to 59 hosts each (62
    addresses less the gateway and the leaf pair's own two)``. The split is one subnet per rack the maximums allow
    (rounded up to a power of two) unless the class sets its rack prefix length; a single leaf's gateway is its own
    address."""
    network = netaddr.IPNetwork(rack.subnet)
    whole = netaddr.IPNetwork(vlan.subnet) if vlan.subnet else network
    addresses = max(network.size - 2, 0)
    switches = 2 if len(rack.leaves) == 2 else 0
    hosts = max(addresses - 1 - switches, 0)
    slots = 2 ** max(network.prefixlen - whole.prefixlen, 0)
    less = "the gateway and the leaf pair's own two" if switches else 'the gateway'
    split = f'split into {slots} rack subnets, one per rack' if slots > 1 else 'kept whole for its one rack'
    return (
        f'/{network.prefixlen}: {vlan.name} {whole.cidr} {split}; up to {hosts} hosts each ({addresses} addresses '
        f'less {less})'
    )


def holds_oob_block(spec: FabricSpec, tc: TrafficClass) -> bool:
    """Whether ``tc`` is the MGMT class of a plan with a management network, carved into rack subnets: its top
    block is the management network's own (BMCs, management switches), not a rack's."""
    mgmt = next((t for t in spec.traffic_classes if t.purpose == 'management' and t.subnet), None)
    return (
        spec.management_switch is not None and mgmt is not None and tc.vlan == mgmt.vlan and tc.routed and not spec.evpn
    )


def oob_block(spec: FabricSpec, field: str, network: netaddr.IPNetwork, length: int) -> netaddr.IPNetwork:
    """The management network's block in a class carved into /``length`` rack subnets: the largest aligned block at
    the top of ``network`` above every possible rack's preferred slot. It depends only on the maximums and the
    class, so growth never moves it.

    Raises:
        SpecError: every slot belongs to a possible rack (``rack_prefixlen`` set too short for the maximums).
    """
    slots = 2 ** (length - network.prefixlen)
    possible = _possible_racks(spec)
    if slots <= possible:
        raise SpecError(
            field,
            f'{network} in /{length} rack subnets holds {slots}; the {possible} racks possible (max leaves) and '
            f"the management network's own block need {possible + 1}: use a shorter prefix, a longer rack prefix "
            'length or lower max leaves',
        )
    size = 2 ** int(math.log2(slots - possible))  # slots, a power of two: the block is aligned at the top
    first = network.first + ((slots - size) << (32 - length))
    return netaddr.IPNetwork(f'{netaddr.IPAddress(first)}/{length - int(math.log2(size))}')


def _possible_racks(spec: FabricSpec) -> int:
    return max(spec.maximums.leaves // 2, 1) if spec.design == 'mlag' else spec.maximums.leaves


def rack_index(spec: FabricSpec, rack: Rack) -> int:
    """The rack's preferred subnet block: its lowest leaf id − 1 (pair number − 1 in the MLAG design)."""
    return (rack.id - 1) // 2 if spec.design == 'mlag' else rack.id - 1
