"""The bill of materials (pure: the standard library only): what to buy for a :class:`Plan`, and the guide's tier.

Assumptions (documented in ``docs/traffic.md``): leaf–spine uplinks run rack to rack (two optics and a fibre per
link); every other link (server bonds, RDMA NICs, BMC ports, the MLAG peer link) stays in its rack (one DAC, or a
copper patch cable below 10G). Spares are a percentage of each hardware line, rounded up; licences have none. The
tiers are the guide's planning ranges, never prices.
"""

import math
from collections import Counter
from dataclasses import asdict, dataclass

from .errors import PlanError
from .result import Plan

__all__ = ('TIERS', 'BillOfMaterials', 'BomLine', 'Tier', 'bill_of_materials')

RACK_TO_RACK = ('uplink',)
SAME_RACK = ('server', 'rdma', 'rail', 'bmc', 'mlag-peer')


@dataclass(frozen=True)
class Tier:
    name: str
    budget: str
    what_to_buy: str
    best_fit: str


# The guide's table, verbatim ("planning ranges, not affiliate recommendations")
TIERS = (
    Tier(
        'Starter',
        '€3,000–€8,000 / $3,000–$8,000',
        'Two used/refurb 25GbE switches, DAC cables, 25GbE NICs, basic telemetry VM',
        'One rack, TCP workloads, learning EVPN later',
    ),
    Tier(
        'Balanced',
        '€12,000–€35,000 / $12,000–$35,000',
        'Two 25/100GbE leaf switches, 100GbE uplink optics/DACs, support, automation host, monitoring',
        '4–8 GPU servers, storage separation, first production jobs',
    ),
    Tier(
        'Expandable',
        '€40,000+ / $40,000+',
        'Two spines, multiple leaf pairs, EVPN/VXLAN licenses/support if required, 100/400G optics, telemetry platform',
        'Multiple racks, tenant separation, RDMA or strict SLA requirements',
    ),
)


@dataclass(frozen=True)
class BomLine:
    """``category``: switch, optic, cable, nic or licence; ``quantity`` what the plan uses, ``spares`` on top."""

    category: str
    item: str
    quantity: int
    spares: int
    note: str = ''

    @property
    def total(self) -> int:
        return self.quantity + self.spares


@dataclass(frozen=True)
class BillOfMaterials:
    lines: tuple[BomLine, ...]
    spares_percent: float
    tier: Tier
    tier_reasons: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            'lines': [asdict(line) | {'total': line.total} for line in self.lines],
            'spares_percent': self.spares_percent,
            'tier': asdict(self.tier),
            'tier_reasons': list(self.tier_reasons),
        }


def _spares(quantity: int, percent: float) -> int:
    return math.ceil(quantity * percent / 100 - 1e-9)


def bill_of_materials(
    plan: Plan,
    *,
    spine_device_type: str | None = None,
    leaf_device_type: str | None = None,
    server_device_type: str | None = None,
    spares_percent: float = 10,
) -> BillOfMaterials:
    """The BOM of ``plan``; device types are names (the fabric's choice), None when not chosen."""
    if (
        isinstance(spares_percent, bool)
        or not isinstance(spares_percent, int | float)
        or not math.isfinite(spares_percent)
        or not 0 <= spares_percent <= 100
    ):
        raise PlanError('spares_percent', f'{spares_percent!r} is not a percentage between 0 and 100')
    lines: list[BomLine] = []

    def line(category, item, quantity, note='', spares=True):
        if quantity:
            lines.append(BomLine(category, item, quantity, _spares(quantity, spares_percent) if spares else 0, note))

    roles = Counter(n.role for n in plan.nodes)
    role_of = {n.name: n.role for n in plan.nodes}
    for role, device_type in (('spine', spine_device_type), ('leaf', leaf_device_type)):
        speeds = sorted(
            {link.speed for link in plan.links if role in (role_of.get(link.a_node), role_of.get(link.b_node))}
        )
        note = 'ports used at ' + ', '.join(f'{s}G' for s in speeds) if speeds else ''
        line('switch', f'{role} switch: {device_type or "device type not chosen"}', roles[role], note)

    rack_to_rack = Counter(link.speed for link in plan.links if link.kind in RACK_TO_RACK)
    for speed, count in sorted(rack_to_rack.items()):
        line('optic', f'{speed}G optic (rack to rack)', 2 * count, f'{count} leaf–spine links × 2 ends')
        line('cable', f'{speed}G fibre patch cable (rack to rack)', count, f'{count} leaf–spine links')
    same_rack = Counter((link.speed, link.kind) for link in plan.links if link.kind in SAME_RACK)
    for speed in sorted({s for s, _ in same_rack}):
        count = sum(n for (s, _), n in same_rack.items() if s == speed)
        kinds = ', '.join(f'{n} {k}' for (s, k), n in sorted(same_rack.items()) if s == speed)
        item = f'{speed}G DAC (same rack)' if speed >= 10 else f'{speed}G copper patch cable (same rack)'
        line('cable', item, count, kinds)

    speed = {(link.a_node, link.a_interface): link.speed for link in plan.links}
    nics = Counter()
    for a in plan.attachments:
        for use, ports in (('bonded data NIC port', a.members), ('RDMA NIC port', a.rdma)):
            for leaf, port in ports:
                nics[(use, speed.get((leaf, port), 0))] += 1
    servers = len(plan.attachments)
    for (use, nic_speed), count in sorted(nics.items()):
        per_server = f'{count / servers:g} per server' if servers else ''
        line('nic', f'{nic_speed}G {use}', count, f'{per_server} ({server_device_type or "server type not chosen"})')

    if plan.design == 'evpn-vxlan':
        line(
            'licence',
            'EVPN/VXLAN feature licence or support (where the NOS needs one)',
            roles['spine'] + roles['leaf'],
            'one per switch',
            spares=False,
        )
    tier, reasons = _tier(plan, roles)
    return BillOfMaterials(tuple(lines), spares_percent, tier, reasons)


def _tier(plan: Plan, roles: Counter) -> tuple[Tier, tuple[str, ...]]:
    starter, balanced, expandable = TIERS
    top = max((link.speed for link in plan.links), default=0)
    gpus = sum(1 for a in plan.attachments if a.kind == 'gpu')
    reasons = []
    if roles['spine']:
        reasons.append(f'{roles["spine"]} spines')
    if roles['leaf'] > 2:
        reasons.append(f'{roles["leaf"]} leaves: several racks or leaf pairs')
    if plan.design == 'evpn-vxlan':
        reasons.append('EVPN/VXLAN design')
    if reasons:
        return expandable, tuple(reasons)
    if top <= 25:
        return starter, (f'{roles["leaf"]} leaves in one rack', f'links at {top}G at most (25G only)', 'no spines')
    return balanced, (
        f'{roles["leaf"]} leaves in one rack, no spines',
        f'links up to {top}G (25/100G leaves)',
        f'{gpus} GPU servers',
    )
