"""Address and number pools handed out by block index, with pinned (previous) allocations kept where they are."""

import netaddr

from netbox_aifabric.planner.errors import PoolExhaustedError
from netbox_aifabric.planner.labels import pool_label
from netbox_aifabric.planner.requirements import PoolNeed
from netbox_aifabric.planner.result import PoolUsage

__all__ = ('AsnPool', 'Blocks', 'ManagementPool', 'NumberPool', 'Pool')


class Blocks:
    """Numbered blocks handed out by index: a new item takes its preferred index (computed from stable ids and
    maximums) when that block is free; when a pinned allocation already holds it, the first free block.

    Subclasses set ``size`` (blocks), ``skip`` (leading blocks never used), ``field``, ``description`` and ``unit``
    (for errors) and implement ``pin``. ``reserved`` holds the keys of removed nodes' allocations, which stay held
    until ``--release``: an exhaustion error says how many blocks they hold.
    """

    skip = 0
    size: int
    field: str
    description: str
    unit: str
    name: str
    prefix: str

    def __init__(self) -> None:
        self.used: dict[int, str] = {}
        self.needed = 0
        self.reserved: set[str] = set()
        self._scan = self.skip

    def pin(self, key: str, value: str) -> None:
        """Hold the block of ``value``, an allocation of an earlier plan, under ``key``."""
        raise NotImplementedError

    def take(self, key: str, preferred: int, node: str) -> int:
        """The block index for ``key``: ``preferred`` when free, else the first free one."""
        if self.skip <= preferred < self.size and preferred not in self.used:
            index = preferred
        else:
            while self._scan < self.size and self._scan in self.used:
                self._scan += 1
            if self._scan >= self.size:
                raise PoolExhaustedError(self.field, self._exhausted(node), node)
            index = self._scan
        self.used[index] = key
        return index

    def _exhausted(self, node: str) -> str:
        """Counts only what the plan can use: the blocks of removed nodes' allocations (reserved until --release)
        are not usable (the message said "6 needed, 8 available" of a pool it called exhausted)."""
        total = self.size - self.skip
        held = sum(1 for key in self.used.values() if key in self.reserved)
        message = f'{self.description} is exhausted: {self.needed} {self.unit} needed, {total - held} usable'
        if held:
            message += (
                f' ({total} in the pool, {held} reserved: held by the allocations of removed nodes; plan with '
                '--release to free them)'
            )
        return f'{message}; first failed for {node}'

    def usage(self) -> PoolUsage:
        """How many blocks the pool holds, uses and has free."""
        size, used = self.size - self.skip, len(self.used)
        return PoolUsage(self.name, self.prefix, self.unit, size, used, size - used, _percent(used, size))


class Pool(Blocks):
    """Blocks of one prefix length inside a pool network. Pinned values outside the network (the pool changed since
    they were allocated) occupy no block here; they are kept as they are."""

    def __init__(self, name: str, network: netaddr.IPNetwork, need: PoolNeed, field: str | None = None) -> None:
        self.name = name
        self.network = network
        self.prefix = str(network)
        self.field = field or f'pools.{name}'
        self.description = f'pool {network} ({pool_label(name)})'
        self.unit = need.unit
        self.prefixlen = need.prefixlen
        self.shift = 32 - need.prefixlen
        self.skip = need.first_index
        self.size = need.size_of(network.prefixlen)
        super().__init__()

    def pin(self, key: str, value: str) -> None:
        """Hold the block of ``value`` when it lies inside this pool's network."""
        block = netaddr.IPNetwork(value)
        if block in self.network:
            self.used[(block.first - self.network.first) >> self.shift] = key

    def reserve(self, key: str, value: netaddr.IPNetwork) -> None:
        """Hold every block that overlaps ``value``, a pinned address of another pool: after pools are renumbered a
        new loopback must not land on a kept /31 end."""
        first, last = max(value.first, self.network.first), min(value.last, self.network.last)
        if first > last:
            return
        for index in range((first - self.network.first) >> self.shift, ((last - self.network.first) >> self.shift) + 1):
            self.used.setdefault(index, key)

    def address(self, index: int) -> str:
        """The block at ``index`` as ``address/prefixlen``."""
        return f'{netaddr.IPAddress(self.network.first + (index << self.shift))}/{self.prefixlen}'


class ManagementPool(Blocks):
    """Host addresses of the out-of-band management network, counted down from its last host: index ``i`` is the
    address ``broadcast − i`` (index 0, the broadcast address, is never used), written with the network's prefix
    length since the switch's management port sits on that network. The gateway's index is held."""

    skip = 1

    def __init__(self, network: netaddr.IPNetwork, gateway: netaddr.IPAddress, needed: int = 0) -> None:
        self.name = 'management'
        self.network = network
        self.prefix = str(network)
        self.field = 'pools.management'
        self.description = f'management network {network}'
        self.unit = 'management addresses'
        self.size = network.size - 1  # the network address (the last index) is never used either
        super().__init__()
        self.used[network.last - int(gateway)] = 'gateway'

    def pin(self, key: str, value: str) -> None:
        """Hold the address of ``value`` when it is a host of the management network."""
        address = netaddr.IPNetwork(value).ip
        if self.network.first < int(address) < self.network.last:
            self.used[self.network.last - int(address)] = key

    def address(self, index: int) -> str:
        """The address at ``index`` (counted down from the broadcast address) with the network's prefix length."""
        return f'{netaddr.IPAddress(self.network.last - index)}/{self.network.prefixlen}'

    def usage(self) -> PoolUsage:
        """As Blocks.usage, the gateway counted neither free nor allocated."""
        size, used = self.size - self.skip - 1, len(self.used) - 1  # the gateway is neither free nor allocated
        return PoolUsage(self.name, self.prefix, self.unit, size, used, size - used, _percent(used, size))


class NumberPool(Blocks):
    """Integers ``start``–``end`` handed out like a pool: the value is start + index."""

    def __init__(self, name: str, field: str, unit: str, start: int, end: int, description: str) -> None:
        self.name, self.field, self.unit = name, field, unit
        self.start, self.end = start, end
        self.size = end - start + 1
        self.prefix = f'{start}-{end}'
        self.description = description
        super().__init__()

    def pin(self, key: str, value: str) -> None:
        """Hold ``value`` when it lies in the range."""
        number = int(value)
        if self.start <= number <= self.end:
            self.used[number - self.start] = key


class AsnPool(NumberPool):
    """The leaf ASN range: ASN = start + (leaf id − 1) unless pinned elsewhere."""

    def __init__(self, start: int, end: int) -> None:
        super().__init__('leaf_asn', 'leaf_asn_range', 'ASNs', start, end, f'{pool_label("leaf_asn")} {start}–{end}')


def _percent(used: int, size: int) -> float:
    return round(100 * used / size, 1) if size else 0.0
