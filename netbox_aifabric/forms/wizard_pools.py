"""Pool and ASN proposals for a new fabric that are free in NetBox, not only among the fabrics' pools.

Before, the wizard skipped only the blocks other fabrics had as pools: after a fabric was deleted with its objects
left behind, it proposed the same blocks and ASNs again and the preview showed every leftover as a conflict. A block
is free here when no fabric has a pool overlapping it and NetBox holds no address and no prefix inside it (a prefix
equal to the block or containing it is fine: the wizard finds and uses it); an ASN block when no fabric uses an ASN
in it and NetBox has no ASN object in it.
"""

import netaddr

from ipam.models import ASN, IPAddress, Prefix

from netbox_aifabric.models import Fabric
from netbox_aifabric.models.fabrics import POOL_FIELDS

__all__ = ('POOL_DEFAULTS', 'free_pool_defaults')

# (field, third octet, prefix length) of the guide's documentation-style private prefixes: 10.<second>.<octet>.0/len
POOL_DEFAULTS = (('loopback_pool', 0, 24), ('vtep_pool', 1, 24), ('p2p_pool', 2, 24), ('mlag_peer_pool', 3, 28))
ASN_BLOCKS = range(65100, 65500, 100)  # spine ASN = the block's first, leaves the next 99


def _fabric_pools():
    networks, asns = [], []
    for fabric in Fabric.objects.select_related('leaf_asn_range', *POOL_FIELDS):
        networks.extend(
            netaddr.IPNetwork(str(getattr(fabric, f).prefix)) for f in POOL_FIELDS if getattr(fabric, f) is not None
        )
        if fabric.leaf_asn_range is not None:
            asns.append((fabric.leaf_asn_range.start, fabric.leaf_asn_range.end))
        if fabric.spine_asn is not None:
            asns.append((fabric.spine_asn, fabric.spine_asn))
    return networks, asns


def _block_free(block: str, pools) -> bool:
    network = netaddr.IPNetwork(block)
    if any(network in pool or pool in network for pool in pools):
        return False
    if IPAddress.objects.filter(address__net_host_contained=block).exists():
        return False
    return not Prefix.objects.filter(prefix__net_contained=block).exists()


def free_pool_defaults() -> dict:
    """``{field: 'a.b.c.d/len', 'spine_asn': n, 'leaf_asn_start': n + 1, 'leaf_asn_end': n + 99}``: the first of
    10.255.x, 10.254.x, … whose four blocks are all free, and the first free ASN block (fields left out when none)."""
    pools, asns = _fabric_pools()
    initial = {}
    for second in range(255, 200, -1):
        candidate = {field: f'10.{second}.{octet}.0/{length}' for field, octet, length in POOL_DEFAULTS}
        if all(_block_free(block, pools) for block in candidate.values()):
            initial.update(candidate)
            break
    for base in ASN_BLOCKS:
        used = any(start <= base + 99 and base <= end for start, end in asns)
        if not used and not ASN.objects.filter(asn__gte=base, asn__lte=base + 99).exists():
            initial.update({'spine_asn': base, 'leaf_asn_start': base + 1, 'leaf_asn_end': base + 99})
            break
    return initial
