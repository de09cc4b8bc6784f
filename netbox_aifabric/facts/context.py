"""Plan + intent → the per-device ``aifabric`` config context (schema v1: ``docs/aifabric-context.v1.schema.json``).

The context is the device facts in their JSON form. :func:`netbox_aifabric.intent.intent_of` reads what it needs from
the fabric's NetBox objects into plain dicts (its QoS profile, traffic classes and name/design/underlay/MTU);
:func:`build_contexts` is then pure: the same plan and intent always give the same contexts. The apply stores each
device's context under the ``aifabric`` key of its local config context data, where NetBox's own config context merge
(and its 4.7 pre-rendered cache) serves it to ``config_context`` in the REST API, to ConfigTemplates and to
Ansible/Nornir inventories.
"""

from collections import defaultdict
from dataclasses import dataclass, field

import netaddr

from .cabling import PEER_LINK_LAG, SERVER_BOND, cabling_facts, server_port_modes
from .qos import PFC_KINDS, qos_facts
from .security import TRUSTED_KINDS, class_acls, cnp_policer, management_plane, security_classes
from .vlans import leaf_vlans

__all__ = ('CONTEXT_KEY', 'PEER_LINK_LAG', 'SCHEMA_VERSION', 'SERVER_BOND', 'build_contexts', 'server_port_modes')

CONTEXT_KEY = 'aifabric'
SCHEMA_VERSION = 1
MGMT_VRF = 'mgmt'
MGMT_SERVICES = ('ssh', 'https', 'snmp')
OSPF_AREA = '0.0.0.0'  # one backbone area: the underlay is a single two-tier Clos
DEFAULT_GATEWAY_MAC = '00:00:5e:00:01:01'  # NVIDIA Cumulus Linux's VRR default, for MLAG pairs without one
# NVIDIA's reserved range for the MLAG system MAC (44:38:39:ff:00:00-44:38:39:ff:ff:ff, [CL512 MLAG]): the pair's is
# 44:38:39:ff + its primary leaf's id as two bytes, the same on both peers, different per pair, stable.
MLAG_SYSTEM_MAC = '44:38:39:ff:{high:02x}:{low:02x}'
# AVD's default platform_settings reload delays (s) of an MLAG pair: mlag 300, non-mlag 330 (pyavd 6.4.0
# _eos_designs/schema platform_settings "default"; 900/1020 on the 7280R/7500R families only).
MLAG_RELOAD_DELAY = {'mlag': 300, 'non_mlag': 330}
# BFD timers (ms) when the fabric asks for BFD: FRR's and Cumulus Linux's defaults (300 ms transmit and receive,
# multiplier 3: a dead link detected in 0.9 s instead of BGP's 90 s hold time or OSPF's 40 s dead interval)
BFD_TIMERS = {'min_tx': 300, 'min_rx': 300, 'multiplier': 3}


def _host(address):
    return str(netaddr.IPNetwork(address).ip) if address else None


def _mac(value):
    """``value`` as ``aa:bb:cc:dd:ee:ff``; no value gives the VRR default MAC of NVIDIA Cumulus Linux."""
    return str(netaddr.EUI(value or DEFAULT_GATEWAY_MAC, dialect=netaddr.mac_unix_expanded))


def _qos(intent):
    """The context's ``qos``: the fabric's QoS facts (``facts.qos_facts``) as the schema's object, None without a
    profile."""
    facts = qos_facts(intent['qos'], intent['traffic_classes'])
    return facts.as_context() if facts is not None else None


def _management(intent, plan):
    """The fabric-wide management settings: the VRF, the services, the jump-host subnets and the gateway."""
    jump_hosts = (intent.get('management') or {}).get('jump_hosts') or []
    return {
        'vrf': MGMT_VRF,
        'services': list(MGMT_SERVICES),
        'jump_hosts': list(jump_hosts),
        'gateway': plan.management_gateway,
    }


@dataclass(frozen=True)
class _Fabric:
    """What every device's context shares: the fabric's settings and the facts computed once per fabric."""

    fabric: dict
    evpn: bool
    ebgp: bool
    nodes: dict
    qos: dict | None
    lossless: bool
    qos_intent: dict | None  # the profile as the intent gives it (its trust)
    management: dict
    classes: list
    purpose_of: dict
    class_mtu: dict
    gateway_mac: str
    bfd: dict | None  # the BFD timers of the underlay sessions, None without BFD
    hardware: dict  # role -> {interface name: platform facts (lanes, alias, index)}
    breakouts: dict  # role -> {lane port of a breakout: {parent, count, speed, mode}}


@dataclass
class _Cabling:
    """Each device's cabled ports, LAGs (with the MLAG peer link's name) and BGP neighbours, from the plan's links."""

    interfaces: dict = field(default_factory=lambda: defaultdict(list))
    lags: dict = field(default_factory=lambda: defaultdict(dict))
    neighbors: dict = field(default_factory=lambda: defaultdict(list))
    peer_link: dict = field(default_factory=dict)  # switch -> its MLAG peer-link LAG


def build_contexts(plan, intent) -> dict:
    """``{device name: context}`` for every switch and server of the plan."""
    shared = _shared(plan, intent)
    cabling = _cabling(plan, shared)
    contexts = {node.name: _switch_context(plan, intent, shared, cabling, node) for node in plan.nodes}
    for attachment in plan.attachments:
        contexts[attachment.server] = _server_context(plan, intent, shared, cabling, attachment)
    return contexts


def _shared(plan, intent) -> _Fabric:
    fabric = intent['fabric']
    classes = security_classes(intent, plan)
    # the virtual MAC of an MLAG pair's gateways (EOS needs one for `ip address virtual`)
    gateway_mac = next((v.anycast_gateway_mac for v in plan.vrfs if v.anycast_gateway_mac), None) or _mac(
        intent.get('anycast_gateway_mac')
    )
    return _Fabric(
        fabric=fabric,
        evpn=fabric['design'] == 'evpn-vxlan',
        ebgp=fabric['underlay'] == 'ebgp',
        nodes={n.name: n for n in plan.nodes},
        qos=_qos(intent),
        lossless=intent['qos'] is not None and intent['qos']['mode'] == 'lossless',
        qos_intent=intent['qos'],
        management=_management(intent, plan),
        classes=classes,
        purpose_of={c['name']: c['purpose'] for c in classes},
        class_mtu={tc['name']: tc['mtu'] or fabric['mtu'] for tc in intent['traffic_classes']},
        gateway_mac=gateway_mac,
        bfd=dict(BFD_TIMERS) if intent.get('bfd') else None,
        hardware=intent.get('hardware') or {},
        breakouts=intent.get('breakouts') or {},
    )


def _cabling(plan, shared: _Fabric) -> _Cabling:
    """The cabling facts (``facts.cabling_facts``) as the schema's dicts: each port and LAG with the fabric's MTU,
    PFC, trust and CNP policing on switch ports, and the BGP sessions the links carry."""
    cabling = _Cabling()
    for device, facts in cabling_facts(plan, shared.hardware, shared.ebgp, shared.breakouts).items():
        switch = device in shared.nodes
        cabling.interfaces[device] = [_port(shared, switch, port) for port in facts.ports]
        cabling.lags[device] = {lag.name: _lag(shared, switch, lag) for lag in facts.lags}
        cabling.neighbors[device] = [
            {'address': n.address, 'remote_asn': n.remote_asn, 'peer': n.peer, 'interface': n.interface, 'kind': n.kind}
            for n in facts.neighbors
        ]
        if facts.peer_link is not None:
            cabling.peer_link[device] = facts.peer_link.name
    return cabling


def _port(shared, switch, port) -> dict:
    return {
        'name': port.name,
        'kind': port.kind,
        'description': port.description,
        'speed': port.speed,
        'mtu': shared.fabric['mtu'] if switch else None,
        'address': port.address,
        'peer_device': port.peer_device,
        'peer_interface': port.peer_interface,
        'lag': port.lag,
        'pfc': bool(switch and shared.lossless and port.kind in PFC_KINDS),
        'trust': _trust(shared.qos_intent, port.kind) if switch else None,
        'cnp_police': cnp_policer(shared.qos, port.kind, port.speed) if switch else None,
        **_mode(port.mode),
        'hardware': dict(port.hardware) if port.hardware else None,
        'breakout': dict(port.breakout) if port.breakout else None,
    }


def _lag(shared, switch, lag) -> dict:
    return {
        'name': lag.name,
        'kind': 'lag',
        'description': 'MLAG peer link' if lag.peer_link else f'{lag.peer_device} bond',
        'mtu': shared.fabric['mtu'] if switch else None,
        'address': lag.address,
        'members': list(lag.members),
        **_mode(lag.mode),
        **_segment(lag.esi),
    }


def _switch_context(plan, intent, shared: _Fabric, cabling: _Cabling, node) -> dict:
    is_leaf = node.role == 'leaf'
    loopbacks = [{'name': 'Loopback0', 'address': node.loopback, 'purpose': 'router-id'}]
    if node.vtep:
        loopbacks.append({'name': 'Loopback1', 'address': node.vtep, 'purpose': 'vtep'})
    vrfs = _vrfs(plan, node) if is_leaf else []
    vlans = _leaf_vlans(plan, node, vrfs, shared.purpose_of, shared.class_mtu, shared.fabric['mtu']) if is_leaf else []
    acls = class_acls(shared.classes, vlans)
    acl_of = {acl['vlan']: acl['name'] for acl in acls}
    for vlan in vlans:
        vlan['acl'] = acl_of.get(vlan['vid'])
    lags = cabling.lags[node.name]
    return {
        **_identity(intent, shared, node.name, node.role),
        'node_id': node.id,
        'asn': node.asn,
        'router_id': _host(node.loopback),
        'loopbacks': loopbacks,
        'vtep': node.vtep,
        'mlag': _mlag(shared, cabling, node),
        'evpn_mh': _evpn_mh(node, lags),
        'interfaces': sorted(cabling.interfaces[node.name], key=lambda i: _port_order(i['name'])),
        'lags': sorted(lags.values(), key=lambda i: _port_order(i['name'])),
        'bgp': _bgp(plan, shared, cabling, node),
        'bfd': shared.bfd,
        'ospf': None if shared.ebgp else _ospf(node, cabling.interfaces[node.name], loopbacks, vlans, vrfs),
        'vlans': vlans,
        'vrfs': vrfs,
        'qos': shared.qos,
        'mtu': {'fabric': shared.fabric['mtu'], 'classes': shared.class_mtu},
        'management': management_plane(shared.management, node),
        'security': {'default': 'deny', 'classes': shared.classes, 'acls': acls},
    }


def _server_context(plan, intent, shared: _Fabric, cabling: _Cabling, attachment) -> dict:
    name = attachment.server
    names = {v.vid: v.name for v in plan.vlans}
    return {
        **_identity(intent, shared, name, attachment.kind),
        'node_id': None,
        'asn': None,
        'router_id': None,
        'loopbacks': [],
        'vtep': None,
        'mlag': None,
        'evpn_mh': None,
        'interfaces': sorted(cabling.interfaces[name], key=lambda i: _port_order(i['name'])),
        'lags': list(cabling.lags[name].values()),
        'bgp': None,
        'bfd': None,
        'ospf': None,
        'vlans': [
            {
                'vid': vid,
                'name': names.get(vid, str(vid)),
                'mtu': shared.class_mtu.get(names.get(vid, ''), shared.fabric['mtu']),
            }
            for vid in attachment.vlans
        ],
        'vrfs': [],
        'qos': None,
        'mtu': {'fabric': shared.fabric['mtu'], 'classes': shared.class_mtu},
        'management': management_plane(shared.management, None),
        'security': {'default': 'deny', 'classes': shared.classes, 'acls': []},
    }


def _identity(intent, shared: _Fabric, name: str, role: str) -> dict:
    return {
        'schema_version': SCHEMA_VERSION,
        'fabric': shared.fabric,
        'hostname': name,
        'role': intent['roles'].get(name, role),
    }


def _bgp(plan, shared: _Fabric, cabling: _Cabling, node):
    """A switch's BGP: its underlay neighbours (eBGP, the MLAG peer) and, with EVPN, the overlay peers (leaves peer
    with the spines, spines with the leaves). None without BGP (an OSPF underlay without EVPN)."""
    if not (shared.ebgp or shared.evpn):
        return None
    evpn_peers = []
    if shared.evpn:
        others = {'spine': 'leaf', 'leaf': 'spine'}.get(node.role)
        for other in (n for n in plan.nodes if n.role == others):
            evpn_peers.append({'address': _host(other.loopback), 'remote_asn': other.asn, 'peer': other.name})
    return {
        'asn': node.asn,
        'router_id': _host(node.loopback),
        'neighbors': sorted(cabling.neighbors[node.name], key=lambda n: (n['kind'], n['interface'])),
        'evpn_peers': evpn_peers,
        'address_families': ['ipv4-unicast'] + (['l2vpn-evpn'] if shared.evpn else []),
    }


def _vrfs(plan, node) -> list[dict]:
    """A leaf's L3VNI VRFs with its own route distinguisher."""
    return [
        {
            'name': vrf.name,
            'tenant': vrf.tenant,
            'l3vni': vrf.l3vni,
            'rd': dict(vrf.route_distinguishers).get(node.name),
            'route_target': vrf.route_target,
            'anycast_gateway_mac': vrf.anycast_gateway_mac,
        }
        for vrf in plan.vrfs
    ]


def _mlag(shared: _Fabric, cabling: _Cabling, node):
    """An MLAG leaf's pair: the peer, its role, the peer link and its /31, the pair's gateway and system MACs, the
    peer's loopback and management address (NVUE's backup), the reload delays. None outside a pair."""
    if not node.mlag_peer:
        return None
    peer_link = cabling.lags[node.name].get(cabling.peer_link.get(node.name))
    peer_ip = next((n['address'] for n in cabling.neighbors[node.name] if n['kind'] == 'mlag-peer'), None)
    peer_node = shared.nodes[node.mlag_peer]
    primary_id = node.id if node.mlag_role == 'primary' else peer_node.id
    return {
        'peer': node.mlag_peer,
        'role': node.mlag_role,
        'peer_link': peer_link['name'] if peer_link else None,
        'local_address': peer_link['address'] if peer_link else None,
        'peer_address': peer_ip,
        'anycast_gateway_mac': shared.gateway_mac,
        'peer_loopback': _host(peer_node.loopback),
        'peer_management': _host(peer_node.management),
        'system_mac': MLAG_SYSTEM_MAC.format(high=primary_id >> 8, low=primary_id & 0xFF),
        'reload_delay': dict(MLAG_RELOAD_DELAY),
    }


def _leaf_vlans(plan, node, vrfs, purpose_of, class_mtu, fabric_mtu):
    """A leaf's VLANs (``facts.leaf_vlans``) as the schema's objects: VNI, VRF, its subnet and gateway there, its own
    address next to the gateway, and whether it announces the subnet."""
    return [vlan.as_context() for vlan in leaf_vlans(plan, node.name, purpose_of, class_mtu, fabric_mtu)]


def _trust(qos, kind):
    """What a switch port trusts: the profile's marking on links to switches and RDMA NICs, nothing (``none``: all
    traffic in the default class) on server bonds and BMC ports; None without a QoS profile."""
    if qos is None:
        return None
    return qos['trust'] if kind in TRUSTED_KINDS else 'none'


def _ospf(node, ports, loopbacks, vlans, vrfs):
    """A switch's OSPF underlay: its router id and area, the interfaces OSPF runs on (the uplinks, the router-id
    loopback and the VTEP, whose address must reach the other VTEPs) and ``networks``: the subnets it announces
    from its gateways (the SVIs stay passive), those of its VLANs without an L2VNI and outside an L3VNI VRF, as the
    FRR template announces them in BGP with an eBGP underlay (its rack's routed subnets in the routed and MLAG
    designs; none on a spine or an EVPN leaf, whose subnets travel in EVPN)."""
    l3vni_vrfs = {vrf['name'] for vrf in vrfs}
    return {
        'router_id': _host(node.loopback),
        'area': OSPF_AREA,
        'interfaces': [i['name'] for i in ports if i['kind'] == 'uplink'] + [lo['name'] for lo in loopbacks],
        'networks': [v['subnet'] for v in vlans if v['advertise'] and not v['l2vni'] and v['vrf'] not in l3vni_vrfs],
    }


def _segment(esi):
    """An EVPN multihoming bond's Ethernet segment: the type-3 ESI and its parts as the NOSes take them (FRR's
    ``es-id`` and ``es-sys-mac``; the 6-byte ES-import route target EOS derives from the ESI)."""
    if esi is None:
        return {}
    octets = esi.split(':')
    return {
        'esi': esi,
        'es_sys_mac': ':'.join(octets[1:7]),
        'es_id': int(''.join(octets[7:10]), 16),
        'es_import_rt': ':'.join(octets[4:10]),
    }


def _evpn_mh(node, lags):
    """A leaf of an EVPN multihoming pair: its peer and its Ethernet segments (bond name → ESI)."""
    if not node.mh_peer:
        return None
    segments = [{'lag': lag['name'], 'esi': lag['esi']} for lag in lags.values() if lag.get('esi')]
    return {'peer': node.mh_peer, 'segments': sorted(segments, key=lambda s: _port_order(s['lag']))}


def _mode(mode):
    if mode is None:
        return {'mode': None, 'untagged_vlan': None, 'tagged_vlans': []}
    return {'mode': mode.mode, 'untagged_vlan': mode.untagged, 'tagged_vlans': list(mode.tagged)}


def _port_order(name):
    digits = ''.join(c if c.isdigit() else ' ' for c in name).split()
    return (''.join(c for c in name if not c.isdigit()), [int(d) for d in digits])
