"""Switch ports as allocations: every link end is a port handed out from its switch's port inventory and pinned by
``--previous`` like an address, so growing any count never moves an existing cable, and no port is used twice.

A switch's inventory is its platform's port blocks by use (server, RDMA, uplink, downlink, peer link). A new link end
takes the port its stable ids prefer (the same formulas as before ports were allocations) when that port is free,
else the first free port of the block; a full block is a named error with the role, speed and how many are missing.
"""

import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from netbox_aifabric.planner.errors import PoolExhaustedError, SpecError
from netbox_aifabric.planner.spec import FabricSpec, Platform, PortRange

__all__ = (
    'BLOCKS',
    'PARALLEL_CHOICES',
    'PORTS_MAX',
    'SPINE_CHOICES',
    'PortInventory',
    'UplinkFit',
    'check_name_pattern',
    'check_platform',
    'fit_uplinks',
    'lane_families',
    'lane_parent',
    'link_speed',
    'port_names',
)

_FORMATTER = string.Formatter()
_EXAMPLES = {'port': 'Ethernet{port}', 'number': 'Port-Channel{number}'}
_NUMBER_FORMAT = re.compile(r'\d*d?')  # '', 'd', '02d', '3': integer formats only


def check_name_pattern(field: str, pattern: str, placeholder: str) -> None:
    """``pattern`` must use ``{placeholder}`` (optionally with a numeric format such as ``{port:02d}``) and nothing
    else: no other field, no attribute or index access, no conversion."""
    try:
        parts = list(_FORMATTER.parse(pattern))
    except ValueError as e:
        raise SpecError(field, f'"{pattern}" is not a valid name pattern ({e})') from None
    used = False
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if name != placeholder or conversion or not _NUMBER_FORMAT.fullmatch(spec or ''):
            found = name + (f'!{conversion}' if conversion else '') + (f':{spec}' if spec else '')
            example = _EXAMPLES[placeholder]
            raise SpecError(field, f'"{pattern}" may only use {{{placeholder}}} (e.g. {example}), found {{{found}}}')
        used = True
    if not used:
        noun = 'LAG' if placeholder == 'number' else placeholder
        raise SpecError(field, f'"{pattern}" has no {{{placeholder}}}: every {noun} would get the same name')


BLOCKS = ('server_ports', 'rdma_ports', 'uplink_ports', 'downlink_ports', 'bmc_ports')
# more ports than any switch has, breakouts included (a 16-slot chassis of 36 ports broken out 4 ways has 2,304): a
# bound that keeps a mistyped count from making millions of port names
PORTS_MAX = 4096


# a breakout lane's name from its parent's: Ethernet65 → Ethernet65/1…/4, swp49 → swp49s0…s3 (SONiC numbers its
# lanes like ports: there a lane cannot be told from a port by its name)
_LANE_NAMES = (re.compile(r'(.*\d)/\d+'), re.compile(r'(swp\d+)s\d+'))


def lane_parent(name: str) -> str | None:
    """The port ``name`` would be a breakout lane of (``Ethernet65/2`` → ``Ethernet65``), or None."""
    for pattern in _LANE_NAMES:
        if match := pattern.fullmatch(name):
            return match[1]
    return None


def lane_families(names: Iterable[str]) -> dict[str, frozenset[str]]:
    """``{port: its parent and lanes among names}`` for the ports of one switch whose parent port or breakout lanes
    are in its inventory too: a port and its own lanes are one piece of hardware, never both cabled."""
    present = set(names)
    related: dict[str, set[str]] = {}
    for name in sorted(present):
        parent = lane_parent(name)
        if parent is not None and parent in present:
            related.setdefault(name, set()).add(parent)
            related.setdefault(parent, set()).add(name)
    return {name: frozenset(others) for name, others in related.items()}


def port_names(platform: Platform) -> dict[str, tuple[str, ...]]:
    """``{block: names}`` of a platform's port blocks, plus ``peer_link`` (the patterns must have been checked)."""
    names = {block: platform.names_of(getattr(platform, block)) for block in BLOCKS if getattr(platform, block)}
    return {**names, 'peer_link': platform.peer_link_interfaces()}


def check_platform(field: str, platform: Platform) -> None:
    """Check a platform's name patterns and port blocks. A port in two blocks (e.g. uplinks starting where the RDMA
    ports are) is an error naming both."""
    check_name_pattern(f'{field}.interface', platform.interface, 'port')
    check_name_pattern(f'{field}.lag', platform.lag, 'number')
    for block_name in BLOCKS:
        block: PortRange | None = getattr(platform, block_name)
        if block is None:
            continue
        if block.interface is not None:
            check_name_pattern(f'{field}.{block_name}.interface', block.interface, 'port')
        if block.names and block.count not in (0, len(block.names)):
            raise SpecError(
                f'{field}.{block_name}.count', f'count {block.count} does not match the {len(block.names)} names'
            )
    owner: dict[str, str] = {}
    for block_name, block_names in port_names(platform).items():
        for name in block_names:
            if name in owner:
                other = owner[name]
                raise SpecError(
                    f'{field}.{block_name}', f'port {name} is in {field}.{other} too: a port can have one use only'
                )
            owner[name] = block_name


def link_speed(field: str, a: PortRange, b: PortRange, what: str) -> int:
    """The highest speed both port blocks can run; a named error when they share none."""
    common = {a.speed, *a.speeds} & {b.speed, *b.speeds}
    if not common:
        raise SpecError(field, f'{what}: the ports run {_speeds(a)} and {_speeds(b)}; they share no speed')
    return max(common)


def check_nic_speed(field: str, block: PortRange | None, speed: int, what: str) -> None:
    """A NIC faster than its leaf port, or at a speed the port cannot run, is an error."""
    if block is None:
        return
    if speed > block.speed:
        raise SpecError(field, f'{what} at {speed}G is faster than the {block.speed}G ports it lands on')
    if not block.runs(speed):
        raise SpecError(field, f'{what} at {speed}G: the ports run {_speeds(block)}, not {speed}G')


def _speeds(block: PortRange) -> str:
    return '/'.join(f'{s}G' for s in sorted({block.speed, *block.speeds}))


class _Block:
    """One use's ports on one switch, handed out by index like a pool block."""

    def __init__(self, node: str, use: str, field: str, names: tuple[str, ...], speed: int, taken: dict[str, str]):
        self.node, self.use, self.field, self.names, self.speed = node, use, field, names, speed
        self.index = {name: i for i, name in enumerate(names)}
        self.taken = taken  # every port of the switch in use: name -> allocation key
        self.needed = 0
        self.scan = 0
        self.reserved: set[str] = set()  # keys of removed links' ports, held until --release
        self.family: Mapping[str, frozenset[str]] = {}  # lane_families of the switch's inventory

    def free(self, name: str) -> bool:
        """Whether ``name`` is free: neither taken nor its parent port or one of its lanes taken."""
        return name not in self.taken and not any(other in self.taken for other in self.family.get(name, ()))

    def take(self, key: str, preferred: int) -> str:
        if 0 <= preferred < len(self.names) and self.free(self.names[preferred]):
            name = self.names[preferred]
        else:
            while self.scan < len(self.names) and not self.free(self.names[self.scan]):
                self.scan += 1
            if self.scan >= len(self.names):
                raise PoolExhaustedError(self.field, self._exhausted(), self.node)
            name = self.names[self.scan]
        self.taken[name] = key
        return name

    def _exhausted(self) -> str:
        size = len(self.names)
        message = (
            f'{self.node} has no free {self.use} port at {self.speed}G: {self.needed} needed, {size} in the inventory'
        )
        if self.needed > size:
            return f'{message}, {self.needed - size} missing'
        held = sum(1 for name in self.names if self.taken.get(name) in self.reserved)
        message += f', {size - held} of them in use'
        if held:
            message += f' and {held} held by removed links (reserved): plan with --release to free them'
        return message


# why a switch needs the ports of a use, for the message of a use that runs out before anything is handed out
_DEMAND = {
    'server': 'one per bonded server NIC that lands on it',
    'rdma': 'one per RDMA NIC that lands on it',
    'bmc': 'one per BMC that lands on it',
    'uplink': 'spines × uplinks per spine',
    'downlink': 'leaves × uplinks per spine',
    'peer_link': 'the MLAG peer-link members',
}

_NIC_SPEEDS: dict[str, Callable[[FabricSpec], int]] = {
    'server': lambda spec: spec.nics.speed,
    'rdma': lambda spec: spec.nics.rdma_speed,
    'bmc': lambda spec: spec.nics.bmc_speed,
}


class PortInventory:
    """Every switch's ports by use; pinned ports (from a previous plan) are taken first, new ones around them."""

    def __init__(self, spec: FabricSpec):
        self.spec = spec
        # validate_spec has checked both platforms (check_platform)
        self.leaf_names = port_names(spec.leaf_platform)
        self.spine_names = port_names(spec.spine_platform)
        self.taken: dict[str, dict[str, str]] = {}
        self.blocks: dict[tuple[str, str], _Block] = {}
        self.reserved: set[str] = set()
        self.families: dict[str, Mapping[str, frozenset[str]]] = {}

    def block(self, node: str, role: str, use: str) -> _Block:
        """The port block of ``node`` for ``use`` (uplink, server, peer_link ...), made on first use."""
        key = (node, use)
        if key not in self.blocks:
            platform_field = f'{role}_platform'
            platform = getattr(self.spec, platform_field)
            block_name = 'peer_link' if use == 'peer_link' else f'{use}_ports'
            names = (self.leaf_names if role == 'leaf' else self.spine_names).get(block_name, ())
            if use == 'peer_link':
                speed, field = platform.peer_link_speed, f'{platform_field}.peer_link_ports'
            else:
                ports: PortRange | None = getattr(platform, block_name)
                # a platform without the block has no such port: check_demand names the speed the NICs run
                speed = ports.speed if ports else _NIC_SPEEDS[use](self.spec) if use in _NIC_SPEEDS else 0
                field = f'{platform_field}.{block_name}'
            block = _Block(node, use.replace('_', ' '), field, names, speed, self.taken.setdefault(node, {}))
            block.reserved = self.reserved
            block.family = self.family(role)
            self.blocks[key] = block
        return self.blocks[key]

    def family(self, role: str) -> Mapping[str, frozenset[str]]:
        """:func:`lane_families` of the role's inventory (every switch of a role has the same ports)."""
        if role not in self.families:
            names = self.leaf_names if role == 'leaf' else self.spine_names
            self.families[role] = lane_families(name for block in names.values() for name in block)
        return self.families[role]

    def check_demand(self) -> None:
        """Each switch's ports per use as the plan uses them against its inventory, before any is handed out: a
        switch that needs more ports of a use than its platform has is a named error with the switch, the use, the
        speed and the counts. Only the ports a link end really takes count (an RDMA NIC on one leaf of a pair takes
        no port on the other)."""
        for (node, use), block in sorted(self.blocks.items()):
            size = len(block.names)
            if block.needed > size:
                raise SpecError(
                    block.field,
                    f'{node} needs {block.needed} {block.use} ports at {block.speed}G ({_DEMAND[use]}); '
                    f'{block.field} has {size}: {block.needed - size} missing',
                    node,
                )

    def pin(self, node: str, key: str, name: str) -> None:
        """Mark port ``name`` of ``node`` taken by ``key``, an allocation of an earlier plan."""
        self.taken.setdefault(node, {})[name] = key


# The shapes fit_uplinks tries, most first: more spines before more parallel uplinks (a smaller failure domain and
# more leaves per spine), as the guide's 2-spine cluster and the 4-spine growth it names
SPINE_CHOICES = (4, 2, 1)
PARALLEL_CHOICES = (2, 1)


@dataclass(frozen=True)
class UplinkFit:
    """The uplink shape a leaf's ports hold: ``spines`` × ``parallel_uplinks`` (the Fabric's ``max_spines`` and
    ``max_parallel_uplinks``) and how the ports at the uplink speed are used."""

    spines: int
    parallel_uplinks: int
    speed: int
    ports: int  # the leaf's ports at the uplink speed
    peer_link: int
    rdma: int  # RDMA ports taken from the ports at the uplink speed
    free: int  # left after the peer link, the RDMA ports and the uplinks

    @property
    def uplinks(self) -> int:
        return self.spines * self.parallel_uplinks

    @property
    def reason(self) -> str:
        """What decided the shape, for a form's help text."""
        parts = [f'{self.peer_link} for the MLAG peer link'] if self.peer_link else []
        if self.rdma:
            parts.append(f'{self.rdma} for RDMA NICs')
        parts.append(f'{self.spines} spines × {self.parallel_uplinks} parallel uplinks')
        return f'{self.ports} ports at {self.speed}G: ' + ', '.join(parts) + f', {self.free} free'


def fit_uplinks(
    port_speeds: Iterable[int],
    uplink_speed: int,
    *,
    peer_link: int = 2,
    rdma: int = 0,
    rdma_speed: int = 0,
    spine_port_speeds: Iterable[int] | None = None,
    max_leaves: int = 0,
) -> UplinkFit:
    """The most spines × parallel uplinks (first of :data:`SPINE_CHOICES` × :data:`PARALLEL_CHOICES`) a leaf
    device type holds next to its peer link and RDMA ports.

    Args:
        port_speeds: the speed (Gbit/s) of each data port of the leaf, e.g. ``[25] * 48 + [100] * 8``.
        uplink_speed: the uplinks' speed; the uplinks, like the peer link, take ports of exactly that speed.
        peer_link: peer-link ports per leaf (2 on an MLAG pair, 0 otherwise).
        rdma: RDMA ports the busiest leaf takes (:func:`~netbox_aifabric.planner.leaf_port_demand`); they come
            from the same ports when ``rdma_speed`` is the uplink speed.
        spine_port_speeds, max_leaves: with both, a spine must also hold max leaves × parallel uplinks downlinks.

    Raises:
        SpecError: on ``leaf_platform.uplink_ports`` when not even one spine with one uplink fits, naming the ports.
    """
    at_speed = sum(1 for speed in port_speeds if speed == uplink_speed)
    taken_rdma = rdma if rdma_speed == uplink_speed else 0
    room = at_speed - peer_link - taken_rdma
    downlinks = None
    if spine_port_speeds is not None and max_leaves:
        downlinks = sum(1 for speed in spine_port_speeds if speed == uplink_speed)
    for spines in SPINE_CHOICES:
        for parallel in PARALLEL_CHOICES:
            if spines * parallel <= room and (downlinks is None or max_leaves * parallel <= downlinks):
                free = room - spines * parallel
                return UplinkFit(spines, parallel, uplink_speed, at_speed, peer_link, taken_rdma, free)
    needs = f'{peer_link} for the peer link, {taken_rdma} for RDMA NICs and 1 uplink'
    if downlinks is not None and max_leaves > downlinks:
        needs = f'a spine with {max_leaves} downlinks at {uplink_speed}G (max leaves); it has {downlinks}'
    raise SpecError('leaf_platform.uplink_ports', f'{at_speed} ports at {uplink_speed}G cannot hold {needs}')
