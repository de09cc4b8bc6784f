"""Switch ports as allocations: every link end is a port handed out from its switch's port inventory and pinned by
``--previous`` like an address, so growing any count never moves an existing cable, and no port is used twice.

A switch's inventory is its platform's port blocks by use (server, RDMA, uplink, downlink, peer link). A new link end
takes the port its stable ids prefer (the same formulas as before ports were allocations) when that port is free,
else the first free port of the block; a full block is a named error with the role, speed and how many are missing.
"""

import re
import string

from .errors import PoolExhaustedError, SpecError
from .spec import FabricSpec, Platform, PortRange

__all__ = ('BLOCKS', 'PORTS_MAX', 'PortInventory', 'check_name_pattern', 'check_platform', 'link_speed', 'port_names')

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

    def take(self, key: str, preferred: int) -> str:
        if 0 <= preferred < len(self.names) and self.names[preferred] not in self.taken:
            name = self.names[preferred]
        else:
            while self.scan < len(self.names) and self.names[self.scan] in self.taken:
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
                speed, field = getattr(platform, block_name).speed, f'{platform_field}.{block_name}'
            block = _Block(node, use.replace('_', ' '), field, names, speed, self.taken.setdefault(node, {}))
            block.reserved = self.reserved
            self.blocks[key] = block
        return self.blocks[key]

    def pin(self, node: str, key: str, name: str) -> None:
        """Mark port ``name`` of ``node`` taken by ``key``, an allocation of an earlier plan."""
        self.taken.setdefault(node, {})[name] = key
