"""RoCE/QoS rules (the guide's list): PFC only on the RDMA class, ECN wherever PFC is, one DSCP → priority → queue map
matching the profile, one jumbo MTU along every path, and both ends of every RDMA link agreeing (the server NIC's
host config and its leaf port). On the devices' ``aifabric`` contexts and the intent. Pure."""

from collections.abc import Iterator, Mapping
from typing import Any

from netbox_aifabric.checks.engine import Facts, Finding, Obj, Rule, Skip
from netbox_aifabric.checks.fabric import device, interface, leaves, switches
from netbox_aifabric.facts import PFC_KINDS, qos_facts

__all__ = ('RULES',)

VXLAN_OVERHEAD = 50  # outer Ethernet, IPv4, UDP and VXLAN headers on an EVPN/VXLAN uplink
STANDARD_MTU = 1500


def vlan_obj(vlan: Mapping[str, Any]) -> Obj:
    return Obj('ipam.vlan', vlan['name'], pk=None)


def _need_intent(facts: Facts) -> dict[Any, Any]:
    """The intent, once the rules can run on it (else Skip)."""
    if facts.intent is None:
        raise Skip(facts.errors.get('intent') or 'no intent')
    if not switches(facts):
        raise Skip('no switch has an aifabric context (the fabric has not been applied)')
    return facts.intent


def _rdma_priorities(intent: Mapping[str, Any]) -> set[int]:
    """The priorities the RDMA traffic uses: the RDMA classes' and the profile's RoCE marking."""
    found = {
        tc['priority'] for tc in intent['traffic_classes'] if tc['purpose'] == 'rdma' and tc['priority'] is not None
    }
    return found | set((intent['qos'] or {}).get('roce_priority') or ())


def check_pfc(facts: Facts) -> Iterator[Finding]:
    """PFC priorities only those of RDMA; lossless VLANs only RDMA classes; PFC only on ports that carry RDMA."""
    intent = _need_intent(facts)
    rdma = _rdma_priorities(intent)
    for name, ctx in switches(facts).items():
        qos = ctx.get('qos')
        if qos and set(qos['pfc_priorities']) - rdma:
            yield Finding(
                (device(name),),
                f'PFC only on the RDMA priorities {sorted(rdma)}',
                f'PFC on {sorted(qos["pfc_priorities"])}',
            )
        for vlan in ctx.get('vlans') or ():
            if vlan.get('lossless') and vlan.get('purpose') != 'rdma':
                yield Finding(
                    (device(name), vlan_obj(vlan)),
                    'lossless (PFC) only on the RDMA class',
                    f'VLAN {vlan["vid"]} {vlan["name"]} ({vlan.get("purpose")}) is lossless',
                )
        for port in ctx['interfaces']:
            if port.get('pfc') and port['kind'] not in PFC_KINDS:
                yield Finding(
                    (interface(name, port['name']),),
                    f'PFC only on ports that carry RDMA ({", ".join(PFC_KINDS)})',
                    f'PFC on a {port["kind"]} port',
                )


def check_ecn(facts: Facts) -> Iterator[Finding]:
    """ECN marking on, on the traffic class of every PFC priority, so DCQCN slows senders before PFC pauses."""
    _need_intent(facts)
    for name, ctx in switches(facts).items():
        qos = ctx.get('qos')
        if not qos or not qos['pfc_priorities']:
            continue
        ecn = qos.get('ecn') or {}
        tcs = [qos['priority_to_tc'].get(str(p), p) for p in qos['pfc_priorities']]
        if not ecn.get('enabled'):
            yield Finding((device(name),), f'ECN enabled on TC {tcs} (PFC on {qos["pfc_priorities"]})', 'ECN off')
        elif missing := sorted(set(tcs) - set(ecn.get('tcs') or ())):
            yield Finding((device(name),), f'ECN on TC {sorted(tcs)}', f'ECN on TC {ecn.get("tcs")}, not {missing}')


def check_qos_map(facts: Facts) -> Iterator[Finding]:
    """Every switch's DSCP → priority and priority → traffic class maps and PFC priorities are the profile's."""
    intent = _need_intent(facts)
    fabric_qos = qos_facts(intent['qos'], intent['traffic_classes'])
    expected = fabric_qos.as_context() if fabric_qos is not None else None
    for name, ctx in switches(facts).items():
        qos = ctx.get('qos')
        if expected is None and qos is None:
            continue
        if expected is None or qos is None:  # exactly one of them (both None: skipped above)
            yield Finding(
                (device(name),),
                f'QoS profile {expected["profile"] if expected else "none"}',
                qos['profile'] if qos else 'no QoS',
            )
            continue
        for key in ('dscp_to_priority', 'priority_to_tc', 'pfc_priorities'):
            if qos[key] != expected[key]:
                yield Finding((device(name),), f'{key} {expected[key]} ({expected["profile"]})', f'{qos[key]}')


def _mtu_of_vids(ctx: Mapping[str, Any]) -> dict[int, int | None]:
    return {v['vid']: v.get('mtu') for v in ctx.get('vlans') or ()}


def check_jumbo_mtu(facts: Facts) -> Iterator[Finding]:
    """One jumbo MTU along every path: each server-facing port carries the MTU of every class it carries (the RDMA
    class on RDMA ports), both ends of every switch link agree, and uplinks carry the largest class MTU (plus the
    VXLAN overhead in the EVPN/VXLAN design)."""
    intent = _need_intent(facts)
    contexts = facts.contexts
    classes = {tc['name']: tc['mtu'] or intent['fabric']['mtu'] for tc in intent['traffic_classes']}
    jumbo = max(classes.values(), default=STANDARD_MTU)
    rdma = [tc for tc in intent['traffic_classes'] if tc['purpose'] == 'rdma']
    rdma_mtu = max((classes[tc['name']] for tc in rdma), default=None)
    evpn = intent['fabric']['design'] == 'evpn-vxlan'
    for name, ctx in switches(facts).items():
        vlan_mtu = _mtu_of_vids(ctx)
        for port in ctx['interfaces']:
            here = interface(name, port['name'])
            mtu = port.get('mtu')
            if port['kind'] in ('uplink', 'mlag-peer'):
                need = jumbo + (VXLAN_OVERHEAD if evpn and port['kind'] == 'uplink' else 0)
                peer = next(
                    (
                        p
                        for p in (contexts.get(port['peer_device']) or {}).get('interfaces', ())
                        if p['name'] == port['peer_interface']
                    ),
                    None,
                )
                if mtu is None or mtu < need:
                    yield Finding((here,), f'MTU of at least {need} (largest class {jumbo})', f'{mtu}')
                if peer is not None and peer.get('mtu') != mtu and name < port['peer_device']:
                    yield Finding(
                        (here, interface(port['peer_device'], port['peer_interface'])),
                        'the same MTU on both ends',
                        f'{mtu} and {peer.get("mtu")}',
                    )
            elif port['kind'] in ('rdma', 'rail') and rdma_mtu is not None:
                if mtu is None or mtu < rdma_mtu:
                    yield Finding((here,), f'MTU of at least {rdma_mtu} (the RDMA class)', f'{mtu}')
            elif port['kind'] == 'server':
                carried = [vlan_mtu.get(v) or 0 for v in port.get('tagged_vlans') or ()]
                lag = next((g for g in ctx['lags'] if g['name'] == port.get('lag')), None)
                carried += [vlan_mtu.get(v) or 0 for v in (lag or {}).get('tagged_vlans') or ()]
                need = max(carried, default=0)
                if need and (mtu is None or mtu < need):
                    yield Finding((here,), f'MTU of at least {need} (the classes it carries)', f'{mtu}')
    for name, ctx in leaves(facts).items():
        for vlan in ctx['vlans']:
            if vlan.get('mtu') and vlan['mtu'] > jumbo:
                yield Finding(
                    (device(name), vlan_obj(vlan)), f'VLAN MTU at most the largest class {jumbo}', f'{vlan["mtu"]}'
                )


def _port(ctx: Mapping[str, Any] | None, name: str | None) -> Mapping[str, Any] | None:
    return next((p for p in (ctx or {}).get('interfaces') or () if p['name'] == name), None)


def _link_mismatches(
    nic: Mapping[str, Any], roce: Mapping[str, Any], port: Mapping[str, Any], qos: Mapping[str, Any]
) -> list[tuple[str, Any, Any]]:
    """(what, the NIC's value, the leaf's value) for each setting the two ends of one RDMA link disagree on."""
    dscp, priority = roce['roce_dscp'], roce['roce_priority']
    to_tc = qos.get('priority_to_tc') or {}
    ecn = qos.get('ecn') or {}
    leaf_ecn = sorted(to_tc.get(str(p), p) for p in roce['ecn_priorities'] if p is not None)
    checks = (
        ('trust', roce['trust'], port.get('trust')),
        (f'DSCP {dscp} → priority', priority, (qos.get('dscp_to_priority') or {}).get(str(dscp))),
        ('RDMA-CM ToS → DSCP', roce['tos'] >> 2, dscp),
        (
            'PFC priorities',
            list(roce['pfc_priorities']),
            list(qos.get('pfc_priorities') or ()) if port.get('pfc') else [],
        ),
        ('CNP DSCP', roce['cnp_dscp'], (qos.get('cnp') or {}).get('dscp')),
        ('CNP priority', roce['cnp_priority'], (qos.get('cnp') or {}).get('priority')),
        (
            f'ECN on the queue of priority {priority} (TC {to_tc.get(str(priority), priority)})',
            bool(roce['ecn']),
            bool(ecn.get('enabled')) and set(leaf_ecn) <= set(ecn.get('tcs') or ()),
        ),
        ('an MTU the leaf port carries', nic['mtu'], min(nic['mtu'], port.get('mtu') or 0)),
    )
    return [(what, mine, theirs) for what, mine, theirs in checks if mine != theirs]


def check_host_nic(facts: Facts) -> Iterator[Finding]:
    """Both ends of every RDMA link name the same marking: the server NIC's RoCE settings (its ``host`` context) and
    its leaf port's trust, PFC, DSCP → priority → queue map, CNP marking and ECN, and an MTU the port carries."""
    _need_intent(facts)
    servers = {n: c['host'] for n, c in sorted(facts.contexts.items()) if c.get('node_id') is None and c.get('host')}
    links = [(n, nic, host['roce']) for n, host in servers.items() if host.get('roce') for nic in host['rdma']]
    if not links:
        raise Skip(
            'no server has an RDMA NIC with RoCE settings in its host config (no QoS profile, no RDMA NIC, or '
            'the servers were applied before host configs)'
        )
    for server, nic, roce in links:
        leaf = nic.get('peer_device')
        port = _port(facts.contexts.get(leaf), nic.get('peer_interface'))
        here = interface(server, nic['name'])
        if port is None:
            yield Finding((here,), f'a leaf port {leaf} {nic.get("peer_interface")} in the fabric', 'none')
            continue
        qos = facts.contexts[leaf].get('qos') or {}
        for what, mine, theirs in _link_mismatches(nic, roce, port, qos):
            yield Finding(
                (here, interface(leaf, port['name'])),
                f'{what}: the same on both ends',
                f'{server} {nic["name"]}: {mine}; {leaf} {port["name"]}: {theirs}',
            )


RULES = (
    Rule(
        'roce-pfc-rdma-only',
        'roce',
        'PFC only on the RDMA class',
        'error',
        'The guide enables PFC only for the RDMA class: pausing any other traffic spreads head-of-line blocking and '
        'pause storms across the fabric.',
        "Make only the RDMA class lossless and keep the QoS profile's PFC priorities to its priority.",
        check_pfc,
    ),
    Rule(
        'roce-ecn-with-pfc',
        'roce',
        'ECN wherever PFC is',
        'error',
        'ECN/WRED must mark before the queues fill, so DCQCN slows senders before PFC has to pause the link.',
        'Enable ECN in the QoS profile on the traffic class of every PFC priority.',
        check_ecn,
    ),
    Rule(
        'roce-qos-map',
        'roce',
        'DSCP → priority → queue map identical everywhere and matching the profile',
        'error',
        'The guide asks for an exact, documented DSCP/CoS map from NIC to switch queue: one device that maps DSCP 26 '
        'elsewhere drops RoCE into a lossy queue.',
        "Re-apply (or save the fabric) so every device gets the profile's map; set the NICs to the same marking.",
        check_qos_map,
    ),
    Rule(
        'roce-jumbo-mtu',
        'roce',
        'MTU consistent along every jumbo path',
        'error',
        'One jumbo MTU tested on every path (server NIC, leaf, uplink, spine): a single smaller hop silently drops '
        'or fragments large RDMA and storage frames.',
        "Set the fabric MTU on every switch port (at least the largest class's MTU, plus 50 bytes for VXLAN), then "
        'prove it with ping -M do -s 8972.',
        check_jumbo_mtu,
    ),
    Rule(
        'roce-host-nic',
        'roce',
        'Server NIC and leaf port agree on the RoCE marking',
        'error',
        'The guide: document the exact marking from server NIC to switch queue. A NIC that marks RoCE or its CNPs '
        'with another DSCP, or pauses another priority, than its leaf port expects lands RoCE in a lossy queue: it '
        'works until the first congestion, then drops.',
        "Re-apply the fabric so the servers' host configs follow the QoS profile, and run each server's rendered "
        'host config (its ConfigTemplate) on the server.',
        check_host_nic,
    ),
)
