"""The guide's security as per-device facts, pure (no Django): the management plane and the security matrix.

The guide asks for three things: management services (SSH, HTTPS/API, SNMP) reachable only from a jump-host subnet,
in a management VRF; "a compromised notebook should not have direct access to BMC interfaces or backup
repositories" (the matrix of which traffic class may reach which); and, for RoCE, DSCP marking under the fabric's
control. This module turns the intent into data the templates print and the matrix proof
(:mod:`netbox_aifabric.checks.matrix`) evaluates:

- **who may reach whom**: class Y is reachable from class X when X is Y, or Y's ``reachability`` is ``any``, or it is
  ``listed`` and X is in Y's ``reachable_from``. ``none`` closes Y to every other class. Switch ACLs are stateless,
  so an allowed pair may exchange packets both ways (replies included); who opens the connection is a firewall's
  job, not the fabric's.
- **enforcement**: classes in different VRFs are apart by routing (no route leaking is rendered). Classes that share
  a VRF get an inbound ACL on each gateway (SVI): permit the classes of an allowed pair, deny the others of that
  VRF, permit the rest (traffic that leaves the fabric's classes, e.g. towards a border).
- **advertising**: a management or telemetry class, and any class in a VRF without an L3VNI other than the default,
  stays local to its leaves: never announced into the underlay or a tenant VRF.
- **DSCP trust boundary**: switch ports towards other switches and the RDMA NICs trust the host's marking; server
  bonds and BMC ports do not (``trust`` is ``none``: every packet goes to the default class), so a host on a user
  bond cannot mark its way into the lossless or the CNP queue. CNPs entering on an RDMA port are policed.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from netbox_aifabric.facts.intent import FabricIntent
from netbox_aifabric.facts.vlans import LOCAL_PURPOSES, LeafVlan, vlan_is_advertised
from netbox_aifabric.planner.result import NodePlan, Plan

__all__ = (
    'ACL_PREFIX',
    'ACL_PRIORITY_STEP',
    'ACL_PRIORITY_TOP',
    'CNP_POLICER_BURST_BYTES',
    'CNP_POLICER_PERCENT',
    'LOCAL_PURPOSES',
    'PASS_PRIORITY_TOP',
    'TRUSTED_KINDS',
    'Acl',
    'AclRule',
    'Management',
    'ManagementPlane',
    'SecurityClass',
    'allowed',
    'class_acls',
    'cnp_policer',
    'management_plane',
    'pass_rules',
    'reaches',
    'security_classes',
    'vlan_is_advertised',
)

TRUSTED_KINDS = ('uplink', 'mlag-peer', 'rdma', 'rail')  # ports whose DSCP marking the switch trusts
ACL_PREFIX = 'AIFABRIC-'
# Priorities (higher first) where a NOS holds every gateway's ACL in one table (SONiC's AIFABRIC_MATRIX): rule ``seq``
# of the ACL on VLAN ``vid`` at ACL_PRIORITY_TOP - ACL_PRIORITY_STEP * vid - seq (descending in rule order, a block of
# 200 per VLAN, above 171000 for VID 4094); then a pass per class without an ACL at PASS_PRIORITY_TOP, 999, … (below
# every ACL rule, above the table's DHCP and default rules at 2 and 1)
ACL_PRIORITY_TOP = 990000
ACL_PRIORITY_STEP = 200
PASS_PRIORITY_TOP = 1000
# The CNP policer on RDMA ports: a plugin default, not a vendor figure (no vendor documents one). CNPs are
# minimum-size frames sent at most once per congestion-notification interval per flow; 1 % of the port's speed is far
# above what a healthy NIC sends and bounds what a faulty or hostile one can push into the strict-priority queue.
CNP_POLICER_PERCENT = 1
CNP_POLICER_BURST_BYTES = 65_536


def allowed(source: Mapping[str, Any], destination: Mapping[str, Any]) -> bool:
    """Whether class ``source`` may reach class ``destination`` (the intent, one direction)."""
    reach, listed = destination.get('reachability'), destination.get('reachable_from')
    return reaches(source['name'], destination['name'], reach, listed)


def reaches(source: str, destination: str, reachability: str | None, reachable_from: Iterable[str] | None) -> bool:
    """The matrix's rule: a class reaches itself, any class open to ``any``, and a ``listed`` class listing it."""
    if source == destination:
        return True
    reach = reachability or 'listed'
    if reach == 'any':
        return True
    return reach == 'listed' and source in (reachable_from or ())


@dataclass(frozen=True)
class SecurityClass:
    """A class with a VLAN in the plan: name, VID, VRF, purpose, prefix and who may reach it."""

    name: str
    vid: int
    vrf: str | None
    purpose: str | None
    prefix: str | None
    reachability: str
    reachable_from: tuple[str, ...]

    def may_reach(self, other: 'SecurityClass') -> bool:
        return reaches(self.name, other.name, other.reachability, other.reachable_from)

    def as_context(self) -> dict[str, Any]:
        return {**asdict(self), 'reachable_from': list(self.reachable_from)}


def pair_allowed(a: SecurityClass, b: SecurityClass) -> bool:
    """Stateless enforcement: a pair exchanges packets when either may reach the other."""
    return a.may_reach(b) or b.may_reach(a)


def security_classes(intent: FabricIntent, plan: Plan) -> tuple[SecurityClass, ...]:
    """Every class with a VLAN in the plan, in the intent's order."""
    vrf_of = {v.vid: v.vrf for v in plan.vlans}
    return tuple(
        SecurityClass(
            name=tc['name'],
            vid=tc['vid'],
            vrf=vrf_of[tc['vid']],
            purpose=tc['purpose'],
            prefix=tc['prefix'],
            reachability=tc.get('reachability') or 'listed',
            reachable_from=tuple(sorted(tc.get('reachable_from') or ())),
        )
        for tc in intent['traffic_classes']
        if tc['vid'] in vrf_of
    )


def acl_name(vlan: LeafVlan) -> str:
    return f'{ACL_PREFIX}{vlan.name}-IN'


@dataclass(frozen=True)
class AclRule:
    seq: int
    action: str  # permit or deny
    source: str
    destination: str
    remark: str
    priority: int  # its place among every ACL rule of the switch in one table (ACL_PRIORITY_TOP), higher first


@dataclass(frozen=True)
class Acl:
    """The inbound ACL of one gateway (SVI): first match wins, ending in a permit of everything else."""

    name: str
    vlan: int
    vrf: str | None
    rules: tuple[AclRule, ...]

    def as_context(self) -> dict[str, Any]:
        return {'name': self.name, 'vlan': self.vlan, 'vrf': self.vrf, 'rules': [asdict(r) for r in self.rules]}


def class_acls(classes: Sequence[SecurityClass], vlans: Sequence[LeafVlan]) -> tuple[Acl, ...]:
    """The inbound ACLs of a leaf's gateways (SVIs) whose class shares its VRF with other classes."""
    by_name = {c.name: c for c in classes}
    acls = []
    for vlan in vlans:
        me = by_name.get(vlan.name)
        if me is None or not vlan.gateway or not me.prefix:
            continue
        others = [c for c in classes if c.name != me.name and c.vrf == me.vrf and c.prefix]
        if others:
            acls.append(Acl(acl_name(vlan), vlan.vid, vlan.vrf, _acl_rules(me, me.prefix, others, vlan.vid)))
    return tuple(acls)


def _acl_rules(me: SecurityClass, source: str, others: Sequence[SecurityClass], vid: int) -> tuple[AclRule, ...]:
    rules = []
    for other in others:
        action = 'permit' if pair_allowed(me, other) else 'deny'
        verb = 'may reach' if action == 'permit' else 'may not reach'
        rules.append((action, other.prefix or 'any', f'{me.name} {verb} {other.name}'))
    rules.append(('permit', 'any', 'traffic leaving the fabric classes'))
    top = ACL_PRIORITY_TOP - ACL_PRIORITY_STEP * vid
    return tuple(AclRule(10 * (i + 1), a, source, d, r, top - 10 * (i + 1)) for i, (a, d, r) in enumerate(rules))


def pass_rules(
    classes: Sequence[SecurityClass], acls: Sequence[Acl], vlans: Sequence[LeafVlan]
) -> list[dict[str, Any]]:
    """Where a NOS binds one ACL table to every gateway's ports (SONiC): a pass of each class with a prefix but no
    ACL of its own on this switch (its VLAN may share a bond), ``{name, prefix, priority}`` below every ACL rule;
    none without ACLs (no table)."""
    if not acls:
        return []
    with_acl = {vlan.name for vlan in vlans if vlan.vid in {acl.vlan for acl in acls}}
    passing = [c for c in classes if c.prefix and c.name not in with_acl]
    return [{'name': c.name, 'prefix': c.prefix, 'priority': PASS_PRIORITY_TOP - i} for i, c in enumerate(passing)]


@dataclass(frozen=True)
class Management:
    """The fabric-wide management settings: the VRF, the services, the jump-host subnets and the gateway."""

    vrf: str
    services: tuple[str, ...]
    jump_hosts: tuple[str, ...]
    gateway: str | None


@dataclass(frozen=True)
class ManagementPlane:
    """A device's management plane: the management VRF, its address and default route, the services and the only
    sources allowed to reach them (the jump-host subnets)."""

    vrf: str
    services: tuple[str, ...]
    address: str | None
    gateway: str | None
    jump_hosts: tuple[str, ...]
    allowed_sources: tuple[str, ...]

    def as_context(self) -> dict[str, Any]:
        return {
            **asdict(self),
            'services': list(self.services),
            'jump_hosts': list(self.jump_hosts),
            'allowed_sources': list(self.allowed_sources),
        }


def management_plane(management: Management, node: NodePlan | None) -> ManagementPlane:
    """``node``'s management plane (a server's when ``node`` is None: no switch address)."""
    return ManagementPlane(
        vrf=management.vrf,
        services=management.services,
        address=node.management if node is not None else None,
        gateway=management.gateway,
        jump_hosts=management.jump_hosts,
        allowed_sources=management.jump_hosts,
    )


def cnp_policer(qos: Mapping[str, Any] | None, kind: str, speed: int | None) -> dict[str, int] | None:
    """The CNP policer of an RDMA-facing port (lossless profiles with a CNP DSCP), else None."""
    if qos is None or qos['mode'] != 'lossless' or kind not in ('rdma', 'rail') or not speed:
        return None
    if qos['cnp']['dscp'] is None:
        return None
    return {
        'dscp': qos['cnp']['dscp'],
        'rate_kbps': speed * 1_000_000 * CNP_POLICER_PERCENT // 100,
        'burst_bytes': CNP_POLICER_BURST_BYTES,
    }
