"""Which pools and ASNs a design needs, and how much of each pool the declared maximums need (shared by the spec
checks and NetBox's Fabric model, which asks for them before the fabric is whole)."""

__all__ = ('PoolNeed', 'asn_need', 'pool_needs', 'required_inputs')

from dataclasses import dataclass

from netbox_aifabric.planner.spec import BGP_UNDERLAYS, UNNUMBERED_UNDERLAYS


@dataclass(frozen=True)
class PoolNeed:
    """``blocks`` of ``/prefixlen`` needed from a pool; ``first_index`` blocks at the start are never used."""

    blocks: int
    prefixlen: int
    unit: str
    first_index: int = 0

    @property
    def span(self) -> int:
        """Blocks the pool must hold: the unused leading ones plus the needed ones."""
        return self.first_index + self.blocks

    def size_of(self, network_prefixlen: int) -> int:
        """How many ``/prefixlen`` blocks a pool of ``/network_prefixlen`` holds (0 when the pool is smaller)."""
        return 2 ** (self.prefixlen - network_prefixlen) if network_prefixlen <= self.prefixlen else 0


def pool_needs(max_spines: int, max_leaves: int, max_parallel_uplinks: int) -> dict[str, PoolNeed]:
    """Blocks each pool must hold for the declared maximums.

    Loopbacks are numbered pool + id (spines) and pool + max_spines + id (leaves), so address 0 is never used;
    VTEPs pool + leaf id; uplink /31 number (leaf − 1) × max_spines × max_parallel_uplinks + (spine − 1) ×
    max_parallel_uplinks + (uplink − 1); MLAG peer /31 number (primary leaf id − 1).
    """
    return {
        'loopback': PoolNeed(max_spines + max_leaves, 32, 'loopback /32s', first_index=1),
        'vtep': PoolNeed(max_leaves, 32, 'VTEP /32s', first_index=1),
        'p2p': PoolNeed(max_leaves * max_spines * max_parallel_uplinks, 31, 'point-to-point /31s'),
        'mlag_peer': PoolNeed(max(max_leaves - 1, 1), 31, 'MLAG peer /31s'),
    }


def asn_need(max_leaves: int) -> int:
    """Leaf ASNs are range start + (leaf id − 1): the range must hold ``max_leaves`` ASNs."""
    return max_leaves


def required_inputs(*, spines: int, max_spines: int, evpn: bool, mlag_pairs: bool, underlay: str) -> tuple[str, ...]:
    """The spec fields a design cannot plan without, in the order the spec checks ask for them: the loopback pool
    always; the point-to-point pool with spines now or room for them (not for an unnumbered underlay); the VTEP pool
    for an EVPN/VXLAN overlay; the MLAG peer pool for MLAG pairs; a spine ASN for an eBGP underlay or an EVPN
    overlay with spines; a leaf ASN range for an eBGP underlay (numbered or unnumbered)."""
    needed = {
        'pools.loopback': True,
        'pools.p2p': (spines > 0 or max_spines > 0) and underlay not in UNNUMBERED_UNDERLAYS,
        'pools.vtep': evpn,
        'pools.mlag_peer': mlag_pairs,
        'spine_asn': spines > 0 and (underlay in BGP_UNDERLAYS or evpn),
        'leaf_asn_range': underlay in BGP_UNDERLAYS,
    }
    return tuple(name for name, required in needed.items() if required)
