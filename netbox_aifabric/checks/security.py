"""Security rules (the guide's matrix), evaluated on the rendered intent (the devices' ``aifabric`` contexts) by the
matrix proof in :mod:`.matrix`: USERS never reaches MGMT, no class reaches one it may not, management only from the
jump hosts, the management VLAN never on a server's data ports. Pure."""

from collections.abc import Iterator
from typing import Any

from netbox_aifabric.checks.engine import Facts, Finding, Obj, Rule, Skip
from netbox_aifabric.checks.fabric import device, interface, switches
from netbox_aifabric.checks.matrix import evaluate, management_violations, violations
from netbox_aifabric.facts import PEER_LINK_LAG

__all__ = ('RULES',)

HIDDEN_PURPOSES = ('management', 'telemetry')  # never on a server's data bond


def _classes(facts: Facts) -> dict[str, dict[str, Any]]:
    for ctx in facts.contexts.values():
        if (ctx.get('security') or {}).get('classes'):
            return {c['name']: c for c in ctx['security']['classes']}
    raise Skip('no context carries the security matrix (the fabric has not been applied)')


def _class(name: str) -> Obj:
    return Obj('netbox_aifabric.trafficclass', name)


def _leaf_of(reason: str, facts: Facts) -> tuple[Obj, ...]:
    """The leaf a verdict's reason starts with (``leaf1: …``), when it names one."""
    head = reason.split(':', 1)[0]
    return (device(head),) if head in facts.contexts else ()


def check_users_mgmt(facts: Facts) -> Iterator[Finding]:
    """The guide's acceptance test: no user-access class reaches a management class, whatever the intent allows."""
    classes = _classes(facts)
    for (source, destination), verdict in sorted(evaluate(facts.contexts).items()):
        if (
            verdict.reaches
            and classes[source]['purpose'] == 'user-access'
            and classes[destination]['purpose'] == 'management'
        ):
            yield Finding(
                (_class(source), _class(destination), *_leaf_of(verdict.reason, facts)),
                f'{source} cannot reach {destination}',
                f'reaches: {verdict.reason}',
            )


def check_matrix(facts: Facts) -> Iterator[Finding]:
    """Pairs that reach each other though neither may reach the other (``matrix.violations``)."""
    _classes(facts)
    planes = set(management_violations(facts.contexts))
    verdicts = evaluate(facts.contexts)
    for text in violations(facts.contexts):
        if text in planes:
            continue
        pair = next(p for p in verdicts if text.startswith(f'{p[0]} reaches {p[1]}, which it may not: '))
        verdict = verdicts[pair]
        yield Finding(
            (_class(pair[0]), _class(pair[1]), *_leaf_of(verdict.reason, facts)),
            f'{pair[0]} cannot reach {pair[1]} (neither may reach the other)',
            f'reaches: {verdict.reason}',
        )


def check_management_plane(facts: Facts) -> Iterator[Finding]:
    """Every switch's management services only from the jump-host subnets, in the management VRF
    (``matrix.management_violations``)."""
    if not switches(facts):
        raise Skip('no switch has an aifabric context (the fabric has not been applied)')
    for text in management_violations(facts.contexts):
        name = text.split(':', 1)[0]
        plane = facts.contexts[name]['management']
        yield Finding(
            (device(name),),
            f'SSH/HTTPS/SNMP only from {", ".join(plane["jump_hosts"]) or "a jump-host subnet"} in VRF mgmt',
            text.split(': ', 1)[1],
        )


def check_bmc_vlan(facts: Facts) -> Iterator[Finding]:
    """No management or telemetry VLAN on a server's data port or bond (a BMC port on a leaf is its own port)."""
    classes = _classes(facts)
    hidden = {c['vid']: name for name, c in classes.items() if c['purpose'] in HIDDEN_PURPOSES}
    for name, ctx in sorted(facts.contexts.items()):
        bonds = [g for g in ctx['lags'] if g['name'] != PEER_LINK_LAG]  # the peer link is a trunk of every VLAN
        for port in [p for p in ctx['interfaces'] if p['kind'] == 'server'] + bonds:
            vids = set(port.get('tagged_vlans') or ()) | (
                {port['untagged_vlan']} if port.get('untagged_vlan') else set()
            )
            for vid in sorted(vids & set(hidden)):
                yield Finding(
                    (interface(name, port['name']), _class(hidden[vid])),
                    f'{hidden[vid]} (VLAN {vid}) off the server data ports',
                    f'VLAN {vid} on {name} {port["name"]}',
                )
        if ctx.get('node_id') is None:
            for vlan in ctx.get('vlans') or ():
                if vlan['vid'] in hidden:
                    yield Finding(
                        (device(name), _class(hidden[vlan['vid']])),
                        f"{hidden[vlan['vid']]} (VLAN {vlan['vid']}) not on the server's bond",
                        f'{name} carries VLAN {vlan["vid"]}',
                    )


RULES = (
    Rule(
        'security-users-mgmt',
        'security',
        'USERS cannot reach MGMT (BMC)',
        'error',
        'Prove that VLAN 20 users cannot reach VLAN 10 BMC addresses: a compromised notebook must not reach the BMCs.',
        "Keep USERS out of MGMT's reachable-from, MGMT in its own VRF, and re-apply so the gateway ACLs deny it.",
        check_users_mgmt,
    ),
    Rule(
        'security-matrix',
        'security',
        'No class reaches one it may not',
        'error',
        'Separate storage and RDMA from user access: each class reaches only the classes its reachable-from allows.',
        "Correct the classes' reachability (or their VRFs) and re-apply so the gateway ACLs follow.",
        check_matrix,
    ),
    Rule(
        'security-management-plane',
        'security',
        'Management only from the jump hosts',
        'error',
        'Create a management VRF and permit SSH/HTTPS/SNMP only from a jump-host subnet.',
        "Set the fabric's jump-host subnet and re-apply; never widen a switch's management ACL by hand.",
        check_management_plane,
    ),
    Rule(
        'security-bmc-vlan',
        'security',
        'Management VLAN never on server data ports',
        'error',
        'Root on any node could tag the management VLAN on its bond and reach every BMC: MGMT and TELEMETRY stay off '
        'server data ports.',
        'Remove the management/telemetry VLAN from the bond (BMCs attach out of band or to their own leaf port).',
        check_bmc_vlan,
    ),
)
