"""Human labels for the identifiers the planner uses: pool names (``leaf_asn``, ``p2p``, ``rack_subnets:USERS``) and
spec field paths (``pools.mlag_peer``, ``maximums.leaves``, ``traffic_classes[2].subnet``).

The identifiers stay what machines read (an API error's ``field``, a pool's ``name`` in a plan's JSON); a message a
person reads says the label instead (``max_leaves = 8``, ``leaf_asn`` and ``mlag_peer`` once reached the pages).
Pure data and string functions: no Django import.
"""

import re

__all__ = (
    'FIELD_LABELS',
    'POOL_LABELS',
    'RACK_POOL_PREFIX',
    'at_most',
    'field_label',
    'identifiers',
    'pool_label',
    'rack_pool_name',
)

# The pools of a plan (Plan.pools[].name, planner/pools.py) and what a person calls them
POOL_LABELS = {
    'loopback': 'loopback addresses',
    'vtep': 'VTEP addresses',
    'p2p': 'point-to-point link subnets',
    'mlag_peer': 'MLAG peer-link subnets',
    'leaf_asn': 'leaf ASN range',
    'management': 'management network',
}
# A routed class's per-rack subnets are a pool of their own, named after the class
RACK_POOL_PREFIX = 'rack_subnets:'

# The spec's field paths (indices dropped) a PlanError names, as the fabric's form says them
FIELD_LABELS = {
    'design': 'design',
    'underlay': 'underlay',
    'spines': 'spines',
    'leaves': 'leaves',
    'servers': 'servers',
    'servers.leaves': "server's leaves",
    'servers.kind': 'server kind',
    'servers.rail_group': 'rail group',
    'nodes': 'node names',
    'mlag_pairs': 'MLAG pairs',
    'mh_pairs': 'EVPN multihoming pairs',
    'rail_groups': 'rail groups',
    'rail_groups.leaves': 'rail leaves',
    'uplinks_per_spine': 'uplinks per spine',
    'maximums': 'maximums',
    'maximums.spines': 'max spines',
    'maximums.leaves': 'max leaves',
    'maximums.parallel_uplinks': 'max parallel uplinks',
    'maximums.servers_per_leaf': 'servers per leaf',
    'pools.loopback': 'loopback pool',
    'pools.p2p': 'point-to-point pool',
    'pools.vtep': 'VTEP pool',
    'pools.mlag_peer': 'MLAG peer pool',
    'pools.management': 'management network',
    'management_gateway': 'management gateway',
    'management_switch': 'management switch',
    'management_switch.keep_free': 'jump-host subnet',
    'nics.count': 'server NICs',
    'nics.speed': 'server NIC speed',
    'nics.rdma_count': 'RDMA NICs',
    'nics.rdma_speed': 'RDMA NIC speed',
    'nics.bmc_speed': 'BMC port speed',
    'bmc': 'BMC attachment',
    'leaf_platform': 'leaf device type',
    'spine_platform': 'spine device type',
    'leaf_platform.uplink_ports': "leaf device type's uplink ports",
    'leaf_platform.server_ports': "leaf device type's server ports",
    'leaf_platform.rdma_ports': "leaf device type's RDMA ports",
    'leaf_platform.bmc_ports': "leaf device type's BMC ports",
    'leaf_platform.peer_link_ports': "leaf device type's peer-link ports",
    'spine_platform.downlink_ports': "spine device type's downlink ports",
    'spine_asn': 'spine ASN',
    'leaf_asn_range': 'leaf ASN range',
    'l2vni_base': 'L2VNI base',
    'anycast_gateway_mac': 'anycast gateway MAC',
    'traffic_classes': 'traffic classes',
    'traffic_classes.subnet': 'traffic class subnet',
    'traffic_classes.vlan': 'traffic class VLAN',
    'traffic_classes.name': 'traffic class name',
    'traffic_classes.mtu': 'traffic class MTU',
    'traffic_classes.purpose': 'traffic class purpose',
    'traffic_classes.routed': 'traffic class routing',
    'tenants': 'EVPN tenants',
    'tenants.vrf': 'tenant VRF',
    'tenants.vlans': "tenant's VLANs",
    'tenants.l3vni': 'tenant L3VNI',
    'tenants.l2vni_base': "tenant's L2VNI base",
    'mtu': 'fabric MTU',
    'oversubscription_target': 'oversubscription target',
    'rack_prefixlen': 'rack prefix length',
    'port_map': 'port map',
    'reach': 'cable reach',
    'applied_allocations': 'last apply',
    'previous': 'previous plan',
}
_INDEX = re.compile(r'\[[^\]]*\]')


def rack_pool_name(class_name: str) -> str:
    """The pool name of a routed class's per-rack subnets."""
    return f'{RACK_POOL_PREFIX}{class_name}'


def pool_label(name: str) -> str:
    """``leaf_asn`` → ``leaf ASN range``, ``rack_subnets:USERS`` → ``per-rack USERS subnets``; an unknown name with
    its underscores as spaces."""
    if name.startswith(RACK_POOL_PREFIX):
        return f'per-rack {name[len(RACK_POOL_PREFIX) :]} subnets'
    return POOL_LABELS.get(name, name.replace('_', ' '))


def field_label(field: str) -> str:
    """A spec field path as the form says it: the longest known path of ``field`` with its indices dropped
    (``traffic_classes[2].subnet`` → ``traffic class subnet``, ``pools.p2p`` → ``point-to-point pool``); an unknown
    path with its dots and underscores as spaces."""
    path = _INDEX.sub('', field)
    probe = path
    while probe:
        if probe in FIELD_LABELS:
            return FIELD_LABELS[probe]
        probe = probe.rpartition('.')[0]
    return path.replace('.', ' ').replace('_', ' ') or field


# the singular of the roles a maximum counts
_ONE = {'spines': 'spine', 'leaves': 'leaf', 'servers': 'server'}


def at_most(count: int, role: str) -> str:
    """``at most 8 leaves`` (``at most 1 leaf``): a declared maximum (``maximums.<role>``) in words."""
    return f'at most {count} {_ONE.get(role, role) if count == 1 else role}'


def identifiers(class_names: tuple[str, ...] = ()) -> frozenset[str]:
    """The identifiers a page must not show a person: the pool names (with the per-rack pools of ``class_names``)
    and the field paths that are not plain words (those with ``_``, ``.``, ``:`` or a digit)."""
    names = {*POOL_LABELS, *FIELD_LABELS, *(rack_pool_name(name) for name in class_names)}
    return frozenset(name for name in names if re.search(r'[_.:0-9]', name))
