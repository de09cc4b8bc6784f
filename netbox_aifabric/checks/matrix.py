"""The security-matrix proof: which class can reach which, evaluated on the rendered intent (the switches'
``aifabric`` contexts, or ACLs read back from rendered configs), compared with what the classes allow. Pure.

A host of class S sends to a host of class D. The fabric delivers it when, on a leaf where S has its gateway:

1. D is routed in the same VRF there: D's gateway is on that leaf, or on another leaf that announces it (``advertise``)
   in a VRF that travels the fabric (the default VRF or an L3VNI VRF of that leaf);
2. and the gateway's inbound ACL (``vlans[].acl`` → ``security.acls``), read first match wins with the implicit deny
   every NOS has at the end, permits source S's prefix to D's prefix; a gateway without ACL permits everything.

S without a gateway anywhere stays in its VLAN: it reaches nothing beyond it. The verdict is "reaches" if any leaf
delivers. :func:`violations` lists the pairs that reach each other against the intent (the guide's "prove that VLAN
20 users cannot reach VLAN 10 BMC addresses") and the management planes open beyond the jump-host subnets.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import netaddr

__all__ = ('Verdict', 'evaluate', 'management_violations', 'security_matrix', 'violations')

Contexts = Mapping[str, Mapping[str, Any]]  # {device name: aifabric context}
Gateways = dict[str, dict[str, dict[str, Any]]]  # {class name: {leaf: vlan entry}}


@dataclass(frozen=True)
class Verdict:
    """Whether ``source`` reaches ``destination`` through the fabric, and why (the leaf, VRF, ACL and rule)."""

    source: str
    destination: str
    reaches: bool
    reason: str


def _within(inner: str, outer: str) -> bool:
    if outer == 'any':
        return True
    return netaddr.IPNetwork(inner) in netaddr.IPNetwork(outer)


def acl_decision(acl: Mapping[str, Any] | None, source: str, destination: str) -> tuple[bool, str]:
    """First matching rule of ``acl`` for a packet from ``source`` to ``destination`` (prefixes), else deny."""
    if acl is None:
        return True, 'no ACL on the gateway'
    for rule in acl['rules']:
        if _within(source, rule['source']) and _within(destination, rule['destination']):
            return rule['action'] == 'permit', f'{acl["name"]} rule {rule["seq"]}: {rule["action"]}'
    return False, f'{acl["name"]}: no rule matches (implicit deny)'


def _gateways(contexts: Contexts) -> Gateways:
    """``{class name: {leaf: vlan entry}}`` of the VLANs with a gateway."""
    found: Gateways = {}
    for name, ctx in contexts.items():
        for vlan in ctx.get('vlans') or ():
            if vlan.get('gateway'):
                found.setdefault(vlan['name'], {})[name] = vlan
    return found


def _routed_to(contexts: Contexts, gateways: Gateways, leaf: str, vrf: str | None, destination: str) -> str | None:
    """How ``leaf`` routes to ``destination`` in ``vrf`` (None: it has no route)."""
    travels = vrf is None or vrf in {v['name'] for v in contexts[leaf].get('vrfs') or ()}
    for other, vlan in gateways.get(destination, {}).items():
        if vlan['vrf'] != vrf:
            continue
        if other == leaf:
            return f'{destination} has its gateway on {leaf} in VRF {vrf or "default"}'
        if vlan.get('advertise') and travels:
            return f'{other} announces {destination} in VRF {vrf or "default"}'
    return None


def _verdict(
    contexts: Contexts, gateways: Gateways, source: Mapping[str, Any], destination: Mapping[str, Any]
) -> Verdict:
    name, target = source['name'], destination['name']
    if not gateways.get(name):
        return Verdict(name, target, False, f'{name} has no gateway: it stays in its VLAN')
    reasons = []
    for leaf, vlan in sorted(gateways[name].items()):
        route = _routed_to(contexts, gateways, leaf, vlan['vrf'], target)
        if route is None:
            reasons.append(f'{leaf}: no route to {target} in VRF {vlan["vrf"] or "default"}')
            continue
        acls = {acl['name']: acl for acl in contexts[leaf]['security']['acls']}
        acl = acls.get(vlan.get('acl')) if vlan.get('acl') else None
        if vlan.get('acl') and acl is None:
            reasons.append(f'{leaf}: ACL {vlan["acl"]} is missing (deny)')
            continue
        permitted, why = acl_decision(acl, source['prefix'], destination['prefix'])
        if permitted:
            return Verdict(name, target, True, f'{leaf}: {route}; {why}')
        reasons.append(f'{leaf}: {why}')
    return Verdict(name, target, False, '; '.join(reasons))


def _classes(contexts: Contexts) -> list[dict[str, Any]]:
    for ctx in contexts.values():
        if ctx.get('security') and ctx['security']['classes']:
            classes: list[dict[str, Any]] = ctx['security']['classes']
            return classes
    return []


def evaluate(contexts: Contexts) -> dict[tuple[str, str], Verdict]:
    """``{(source class, destination class): Verdict}`` for every ordered pair of classes with a prefix."""
    gateways = _gateways(contexts)
    classes = [c for c in _classes(contexts) if c['prefix']]
    return {
        (s['name'], d['name']): _verdict(contexts, gateways, s, d)
        for s in classes
        for d in classes
        if s['name'] != d['name']
    }


def _allowed(source: Mapping[str, Any], destination: Mapping[str, Any]) -> bool:
    if source['name'] == destination['name'] or destination['reachability'] == 'any':
        return True
    return destination['reachability'] == 'listed' and source['name'] in destination['reachable_from']


def violations(contexts: Contexts) -> list[str]:
    """Pairs that reach each other though neither may reach the other (the stateless fabric lets an allowed pair talk
    both ways), and the management planes that violate the jump-host rule."""
    by_name = {c['name']: c for c in _classes(contexts)}
    found = []
    for (source, destination), verdict in sorted(evaluate(contexts).items()):
        s, d = by_name[source], by_name[destination]
        if verdict.reaches and not (_allowed(s, d) or _allowed(d, s)):
            found.append(f'{source} reaches {destination}, which it may not: {verdict.reason}')
    return found + management_violations(contexts)


def management_violations(contexts: Contexts) -> list[str]:
    """Switches whose management services accept sources other than the jump-host subnets, or listen outside the
    management VRF (no VRF), or have no jump-host subnet at all."""
    found = []
    for name, ctx in sorted(contexts.items()):
        if ctx.get('node_id') is None:
            continue  # a server: no switch management plane
        plane = ctx['management']
        if not plane['jump_hosts']:
            found.append(f'{name}: no jump-host subnet: its management services are open to every source')
        elif sorted(plane['allowed_sources']) != sorted(plane['jump_hosts']):
            extra = sorted(set(plane['allowed_sources']) - set(plane['jump_hosts']))
            found.append(f'{name}: management services accept {", ".join(extra) or "other sources"} beyond jump hosts')
        if not plane['vrf']:
            found.append(f'{name}: management services are not bound to a management VRF')
    return found


def _cell(source: Mapping[str, Any], destination: Mapping[str, Any], verdict: Verdict | None) -> dict[str, Any]:
    """One cell of the matrix: the intent, what the fabric does, and the state a reader needs (``ok``: both agree
    the pair talks; ``blocked``: both agree it does not; ``violation``: it talks though it may not; ``unreachable``:
    allowed, but the design gives it no path, e.g. a class that is not routed)."""
    if verdict is None:
        return {'state': 'self', 'allowed': True, 'reaches': True, 'reason': ''}
    allowed = _allowed(source, destination) or _allowed(destination, source)
    if verdict.reaches:
        state = 'ok' if allowed else 'violation'
    else:
        state = 'unreachable' if allowed else 'blocked'
    allowed_here = _allowed(source, destination)
    return {'state': state, 'allowed': allowed_here, 'reaches': verdict.reaches, 'reason': verdict.reason}


def security_matrix(contexts: Contexts) -> dict[str, Any]:
    """What the fabric's Security tab shows: ``classes``, ``rows`` (source class, its cells by destination),
    ``violations`` and each switch's management plane."""
    classes = [c for c in _classes(contexts) if c['prefix']]
    verdicts = evaluate(contexts)
    rows = [
        {'source': s, 'cells': [_cell(s, d, verdicts.get((s['name'], d['name']))) for d in classes]} for s in classes
    ]
    switches = sorted((name, ctx) for name, ctx in contexts.items() if ctx.get('node_id') is not None)
    planes = [{'device': name, **ctx['management']} for name, ctx in switches]
    return {'classes': classes, 'rows': rows, 'violations': violations(contexts), 'planes': planes}
