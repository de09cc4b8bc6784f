"""Fabric rules: the underlay's shape on the devices' ``aifabric`` contexts, with the plan's pools and capacity."""

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import netaddr

from netbox_aifabric.checks.engine import Facts, Finding, Obj, Rule, Skip
from netbox_aifabric.planner.labels import field_label

__all__ = ('RULES', 'device', 'interface', 'leaves', 'spines', 'switches')

LEAF_ROLES = ('leaf', 'border')


def device(name: str) -> Obj:
    return Obj('dcim.device', name)


def interface(dev: str, name: str) -> Obj:
    return Obj('dcim.interface', name, device=dev)


def switches(facts: Facts) -> dict[str, dict[str, Any]]:
    return {n: c for n, c in sorted(facts.contexts.items()) if c.get('node_id') is not None}


def leaves(facts: Facts) -> dict[str, dict[str, Any]]:
    return {n: c for n, c in switches(facts).items() if c['role'] in LEAF_ROLES or c.get('vlans')}


def spines(facts: Facts) -> dict[str, dict[str, Any]]:
    return {n: c for n, c in switches(facts).items() if n not in leaves(facts)}


def _need_switches(facts: Facts) -> None:
    if not switches(facts):
        raise Skip('no switch has an aifabric context (the fabric has not been applied)')


def check_uplinks(facts: Facts) -> Iterator[Finding]:
    """Every leaf has its uplinks to every spine, as many as the plan says, and each is seen from both ends."""
    _need_switches(facts)
    planned: defaultdict[frozenset[str], int] = defaultdict(int)
    for link in getattr(facts.plan, 'links', ()):
        if link.kind == 'uplink':
            planned[frozenset((link.a_node, link.b_node))] += 1
    all_spines = spines(facts)
    for leaf, ctx in leaves(facts).items():
        for spine, spine_ctx in all_spines.items():
            ports = [i for i in ctx['interfaces'] if i['kind'] == 'uplink' and i['peer_device'] == spine]
            wanted = planned.get(frozenset((leaf, spine))) or 1
            if len(ports) < wanted:
                yield Finding(
                    (device(leaf), device(spine)),
                    f'{wanted} uplink(s) from {leaf} to {spine}',
                    f'{len(ports)}' + (f': {", ".join(i["name"] for i in ports)}' if ports else ''),
                )
            back = {(i['name'], i['peer_interface']) for i in spine_ctx['interfaces'] if i['peer_device'] == leaf}
            for port in ports:
                if (port['peer_interface'], port['name']) not in back:
                    yield Finding(
                        (interface(leaf, port['name']), interface(spine, port['peer_interface'])),
                        f'{spine} {port["peer_interface"]} cabled to {leaf} {port["name"]}',
                        f'{spine} has no such port towards {leaf}',
                    )


def _p2p_ends(facts: Facts) -> list[tuple[str, str, str, str | None]]:
    """``[(device, port, address, peer device)]`` of every numbered switch-to-switch port (uplinks, MLAG peer links)."""
    ends = []
    for name, ctx in switches(facts).items():
        for port in ctx['interfaces']:
            if port['kind'] == 'uplink' and port['address']:
                ends.append((name, port['name'], port['address'], port['peer_device']))
        for lag in ctx['lags']:
            if lag.get('address'):
                peer = (ctx.get('mlag') or {}).get('peer')
                ends.append((name, lag['name'], lag['address'], peer))
    return ends


def check_p2p(facts: Facts) -> Iterator[Finding]:
    """Each /31 is unique: on exactly two ends, which are each other's peers; an uplink numbered on one end only
    is caught too."""
    _need_switches(facts)
    by_subnet = defaultdict(list)
    for end in _p2p_ends(facts):
        by_subnet[str(netaddr.IPNetwork(end[2]).cidr)].append(end)
    for subnet, ends in sorted(by_subnet.items()):
        objects = tuple(interface(d, p) for d, p, _, _ in ends)
        if netaddr.IPNetwork(subnet).prefixlen != 31:
            yield Finding(objects, 'a /31 on a point-to-point link', subnet)
        if len(ends) != 2:
            found = ', '.join(f'{d} {p} {a}' for d, p, a, _ in ends)
            yield Finding(objects, f'{subnet} on the two ends of one link', f'{len(ends)} end(s): {found}')
            continue
        (d1, _, a1, peer1), (d2, _, a2, peer2) = ends
        if peer1 != d2 or peer2 != d1 or a1 == a2:
            yield Finding(objects, f'{subnet}: two addresses on two peers', f'{d1} {a1} (peer {peer1}), {d2} {a2}')
    # an uplink whose peer has an address on it, but not this end
    numbered = {(d, p) for d, p, _, _ in _p2p_ends(facts)}
    for name, ctx in switches(facts).items():
        for port in ctx['interfaces']:
            if (
                port['kind'] == 'uplink'
                and not port['address']
                and (port['peer_device'], port['peer_interface']) in (numbered)
            ):
                yield Finding(
                    (interface(name, port['name']), interface(port['peer_device'], port['peer_interface'])),
                    'an address of the /31 on both ends',
                    f'{name} {port["name"]} has none',
                )


def check_unnumbered(facts: Facts) -> Iterator[Finding]:
    """With an unnumbered (RFC 5549) underlay every uplink carries no IPv4 address and, on both ends, an eBGP
    session on that interface to the far end's ASN: the neighbour names the port, the peer and the peer's AS."""
    _need_switches(facts)
    routers = switches(facts)
    if not any((c.get('fabric') or {}).get('underlay') == 'ebgp-unnumbered' for c in routers.values()):
        return  # a numbered underlay: its /31s are fabric-p2p's
    for name, ctx in routers.items():
        sessions = {n['interface']: n for n in (ctx.get('bgp') or {}).get('neighbors') or () if not n['address']}
        for port in ctx['interfaces']:
            if port['kind'] != 'uplink':
                continue
            obj = (interface(name, port['name']),)
            if port['address']:
                yield Finding(obj, 'no IPv4 address on an unnumbered uplink', port['address'])
            peer_asn = (routers.get(port['peer_device']) or {}).get('asn')
            session = sessions.get(port['name'])
            if session is None:
                yield Finding(obj, f'an interface session to {port["peer_device"]} (AS {peer_asn})', 'none')
            elif (session['peer'], session['remote_asn']) != (port['peer_device'], peer_asn):
                yield Finding(
                    obj,
                    f'an interface session to {port["peer_device"]} (AS {peer_asn})',
                    f'{session["peer"]} (AS {session["remote_asn"]})',
                )


def _pool(facts: Facts, name: str) -> netaddr.IPNetwork | None:
    for pool in getattr(facts.plan, 'pools', ()):
        if pool.name == name:
            return netaddr.IPNetwork(pool.prefix)
    return None


def check_loopbacks(facts: Facts) -> Iterator[Finding]:
    """Router-id loopbacks unique; VTEPs unique (an MLAG pair shares one) and apart from the loopbacks; both inside
    their pools."""
    _need_switches(facts)
    routers = switches(facts)
    loopbacks, vteps = defaultdict(list), defaultdict(list)
    for name, ctx in routers.items():
        for lo in ctx['loopbacks']:
            if lo['purpose'] == 'router-id':
                loopbacks[str(netaddr.IPNetwork(lo['address']).ip)].append(name)
        if ctx.get('vtep'):
            vteps[str(netaddr.IPNetwork(ctx['vtep']).ip)].append(name)
    for address, names in sorted(loopbacks.items()):
        if len(names) > 1:
            yield Finding(tuple(device(n) for n in names), f'router-id {address} on one switch', ', '.join(names))
        if address in vteps:
            yield Finding(
                tuple(device(n) for n in names + vteps[address]),
                'VTEP and router-id addresses apart',
                f'{address} is both',
            )
    for address, names in sorted(vteps.items()):
        pair = {names[0], (routers[names[0]].get('mlag') or {}).get('peer')}
        if len(names) > 2 or not set(names) <= pair:
            yield Finding(
                tuple(device(n) for n in names), f'VTEP {address} on one switch or one MLAG pair', ', '.join(names)
            )
    for pool_name, found, what in (('loopback', loopbacks, 'router-id'), ('vtep', vteps, 'VTEP')):
        pool = _pool(facts, pool_name)
        if pool is None:
            continue
        for address, names in sorted(found.items()):
            if netaddr.IPAddress(address) not in pool:
                yield Finding(
                    tuple(device(n) for n in names),
                    f'{what} inside the {field_label(f"pools.{pool_name}")} {pool}',
                    f'{address}',
                )


def check_vnis(facts: Facts) -> Iterator[Finding]:
    """L2VNIs: one per VLAN on every leaf, as planned, never shared; L3VNIs: one per VRF; the two sets apart."""
    _need_switches(facts)
    vni_of_vlan, vlans_of_vni, vni_of_vrf, vrfs_of_vni = (defaultdict(set) for _ in range(4))
    where = defaultdict(set)
    for name, ctx in leaves(facts).items():
        for vlan in ctx['vlans']:
            if vlan.get('l2vni') is not None:
                vni_of_vlan[vlan['vid']].add(vlan['l2vni'])
                vlans_of_vni[vlan['l2vni']].add(vlan['vid'])
                where[vlan['l2vni']].add(name)
        for vrf in ctx['vrfs']:
            if vrf.get('l3vni') is not None:
                vni_of_vrf[vrf['name']].add(vrf['l3vni'])
                vrfs_of_vni[vrf['l3vni']].add(vrf['name'])
                where[vrf['l3vni']].add(name)
    if not where:
        return
    planned = {v.vid: v.l2vni for v in getattr(facts.plan, 'vlans', ()) if v.l2vni is not None}
    for vid, vnis in sorted(vni_of_vlan.items()):
        names = sorted(set().union(*(where[v] for v in vnis)))
        if len(vnis) > 1:
            yield Finding(tuple(device(n) for n in names), f'VLAN {vid}: one L2VNI on every leaf', f'{sorted(vnis)}')
        elif vid in planned and vnis != {planned[vid]}:
            yield Finding(tuple(device(n) for n in names), f'VLAN {vid}: L2VNI {planned[vid]}', f'{sorted(vnis)}')
    for vni, vids in sorted(vlans_of_vni.items()):
        if len(vids) > 1:
            yield Finding(
                tuple(device(n) for n in sorted(where[vni])), f'L2VNI {vni} on one VLAN', f'VLANs {sorted(vids)}'
            )
    for vrf, vnis in sorted(vni_of_vrf.items()):
        if len(vnis) > 1:
            yield Finding((Obj('ipam.vrf', vrf),), f'VRF {vrf}: one L3VNI on every leaf', f'{sorted(vnis)}')
    for vni, vrfs in sorted(vrfs_of_vni.items()):
        if len(vrfs) > 1:
            yield Finding(tuple(Obj('ipam.vrf', v) for v in sorted(vrfs)), f'L3VNI {vni} on one VRF', f'{sorted(vrfs)}')
        if vni in vlans_of_vni:
            yield Finding(
                tuple(device(n) for n in sorted(where[vni])),
                f'VNI {vni} used once (L2 or L3)',
                f'L3VNI of {sorted(vrfs)} and L2VNI of VLAN {sorted(vlans_of_vni[vni])}',
            )


def _mac(value: str) -> str:
    return str(netaddr.EUI(value, dialect=netaddr.mac_unix_expanded))


def check_gateway_mac(facts: Facts) -> Iterator[Finding]:
    """One anycast gateway MAC on every leaf (MLAG pairs' virtual MAC and the VRFs')."""
    _need_switches(facts)
    macs = defaultdict(set)
    for name, ctx in leaves(facts).items():
        values = [(ctx.get('mlag') or {}).get('anycast_gateway_mac')]
        values += [vrf.get('anycast_gateway_mac') for vrf in ctx['vrfs']]
        for value in values:
            if value:
                macs[_mac(value)].add(name)
    if len(macs) > 1:
        common = max(macs, key=lambda m: (len(macs[m]), m))
        for mac, names in sorted(macs.items()):
            if mac != common:
                yield Finding(tuple(device(n) for n in sorted(names)), f'anycast gateway MAC {common}', mac)


def check_pairs(facts: Facts) -> Iterator[Finding]:
    """MLAG pairs complete (each the other's peer, one primary and one secondary, a peer link, one VTEP) and the
    planned pairs present; EVPN multihoming pairs with the same Ethernet segments on both leaves."""
    _need_switches(facts)
    contexts = switches(facts)
    planned = {n.name: n.mlag_peer for n in getattr(facts.plan, 'nodes', ()) if n.mlag_peer}
    for name, peer in sorted(planned.items()):
        if name in contexts and not contexts[name].get('mlag'):
            yield Finding((device(name),), f'MLAG with {peer}', 'no MLAG')
    for name, ctx in contexts.items():
        mlag = ctx.get('mlag')
        if mlag:
            peer = contexts.get(mlag['peer']) or {}
            other = peer.get('mlag') or {}
            if other.get('peer') != name:
                yield Finding(
                    (device(name), device(mlag['peer'])), f'{mlag["peer"]} has {name} as its MLAG peer', str(other)
                )
            elif name > mlag['peer']:
                pass  # the pair is checked once, from its first leaf
            elif {mlag['role'], other.get('role')} != {'primary', 'secondary'}:
                yield Finding(
                    (device(name), device(mlag['peer'])),
                    'one primary, one secondary',
                    f'{mlag["role"]}/{other["role"]}',
                )
            elif ctx.get('vtep') != peer.get('vtep'):
                yield Finding(
                    (device(name), device(mlag['peer'])), 'one VTEP for the pair', f'{ctx["vtep"]}, {peer["vtep"]}'
                )
            if not mlag.get('peer_link'):
                yield Finding((device(name),), 'an MLAG peer link', 'none')
        mh = ctx.get('evpn_mh')
        if mh and name < mh['peer']:
            peer_mh = (contexts.get(mh['peer']) or {}).get('evpn_mh') or {}
            if peer_mh.get('peer') != name:
                yield Finding((device(name), device(mh['peer'])), f'{mh["peer"]} paired with {name}', str(peer_mh))
                continue
            mine: dict[str, str] = {s['esi']: s['lag'] for s in mh['segments']}
            theirs: dict[str, str] = {s['esi']: s['lag'] for s in peer_mh['segments']}
            for esi in sorted(set(mine) ^ set(theirs)):
                holder = name if esi in mine else mh['peer']
                lag = mine[esi] if esi in mine else theirs[esi]  # in one of the two
                yield Finding(
                    (interface(holder, lag), device(name if holder != name else mh['peer'])),
                    f'Ethernet segment {esi} on both leaves of the pair',
                    f'only on {holder} {lag}',
                )


def check_oversubscription(facts: Facts) -> Iterator[Finding]:
    """Each leaf's downlink:uplink ratio within the fabric's target (the planner's capacity)."""
    if facts.plan is None:
        raise Skip(facts.errors.get('plan') or 'no plan')
    target = facts.oversubscription_target
    if target is None:
        raise Skip('the fabric sets no oversubscription target')
    for c in facts.plan.capacity:
        if c.ratio is not None and c.ratio > float(target):  # None: no uplinks, the traffic stays on the leaves
            yield Finding(
                (device(c.leaf),), f'at most {float(target):g}:1', f'{c.ratio}:1 ({c.downlink}G over {c.uplink}G)'
            )


RULES = (
    Rule(
        'fabric-uplinks',
        'fabric',
        'Every leaf has its uplinks to every spine',
        'error',
        'A leaf-spine fabric gives every leaf an equal-cost path through every spine; a missing uplink halves a '
        "leaf's capacity through that spine and breaks ECMP.",
        'Cable the missing uplink as the plan says (the Plan tab), then apply.',
        check_uplinks,
    ),
    Rule(
        'fabric-p2p',
        'fabric',
        '/31s unique and on both ends',
        'error',
        'The routed underlay numbers each leaf-spine link with its own /31 (spine the even, leaf the odd address); a '
        'shared or one-sided /31 is a BGP session that never comes up.',
        'Re-apply the fabric to restore the planned addresses; never reuse a /31 by hand.',
        check_p2p,
    ),
    Rule(
        'fabric-unnumbered',
        'fabric',
        'Unnumbered uplinks: an interface session on both ends',
        'error',
        'An unnumbered (RFC 5549) underlay runs each leaf-spine eBGP session on the link itself, over its IPv6 '
        'link-local addresses, with IPv4 routes over IPv6 next hops; an uplink with no interface session, or one '
        'to the wrong AS, is a path through a spine that never carries traffic.',
        "Re-apply the fabric so both ends' contexts name the session, or fix the cabling the plan expects.",
        check_unnumbered,
    ),
    Rule(
        'fabric-loopbacks',
        'fabric',
        'Loopbacks and VTEPs unique and inside their pools',
        'error',
        'Loopbacks are the router ids and VTEPs the tunnel ends: a duplicate splits BGP or VXLAN, and an address '
        "outside its pool escapes the fabric's numbering.",
        "Give each switch the plan's loopback (Allocations tab) and re-apply; widen the pool if it is exhausted.",
        check_loopbacks,
    ),
    Rule(
        'fabric-vnis',
        'fabric',
        'VNIs unique and mapped to the right VLAN and VRF',
        'error',
        'EVPN/VXLAN maps each VLAN to one L2VNI and each VRF to one L3VNI on every leaf; a mismatch bridges or routes '
        'traffic into the wrong segment.',
        "Keep the tenant's VNI base and L3VNI unique, and re-apply so every leaf gets the same mapping.",
        check_vnis,
    ),
    Rule(
        'fabric-anycast-mac',
        'fabric',
        'One anycast gateway MAC on every leaf',
        'error',
        'The anycast gateway needs the same virtual MAC on every leaf, or hosts that move (or hash to the other leaf '
        'of a pair) keep a stale gateway MAC.',
        'Set one anycast gateway MAC on the fabric (or the tenants) and re-apply.',
        check_gateway_mac,
    ),
    Rule(
        'fabric-pairs',
        'fabric',
        'MLAG and EVPN multihoming pairs complete',
        'error',
        'Servers bond to two leaves; the pair must agree on its peer, roles, peer link and VTEP (MLAG) or carry every '
        'Ethernet segment on both leaves (ESI-LAG), or a bond loses its second leg.',
        'Fix the pair in the fabric nodes (explicit MLAG pairs) and re-apply.',
        check_pairs,
    ),
    Rule(
        'fabric-oversubscription',
        'fabric',
        'Oversubscription within the target',
        'warning',
        'Write down the traffic matrix before you buy switches: per leaf, downlink capacity over uplink capacity '
        'decides whether the design fits (GPU back ends aim for 1:1).',
        'Add uplinks (uplinks per spine) or spines, or move servers to another leaf.',
        check_oversubscription,
    ),
)
