"""Plan + intent → the per-device ``aifabric`` config context (schema v1: ``docs/aifabric-context.v1.schema.json``).

The context is the device facts in their JSON form. :func:`~netbox_aifabric.intake.intent.intent_of` reads what it
needs from the fabric's NetBox objects into plain dicts (its QoS profile, traffic classes and name/design/
underlay/MTU);
:func:`build_contexts` is then pure: the same plan and intent always give the same contexts. The apply stores each
device's context under the ``aifabric`` key of its local config context data, where NetBox's own config context merge
(and its 4.7 pre-rendered cache) serves it to ``config_context`` in the REST API, to ConfigTemplates and to
Ansible/Nornir inventories.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import netaddr

from netbox_aifabric.facts.cabling import (
    PEER_LINK_LAG,
    SERVER_BOND,
    DeviceCabling,
    LagFacts,
    PortFacts,
    VlanMode,
    cabling_facts,
    server_port_modes,
)
from netbox_aifabric.facts.host import host_facts
from netbox_aifabric.facts.intent import FabricIntent, FabricSettings, QosIntent
from netbox_aifabric.facts.qos import PFC_KINDS, QosFacts, qos_facts
from netbox_aifabric.facts.routing import (
    bgp_facts,
    evpn_mh_facts,
    host,
    loopbacks,
    mlag_facts,
    ospf_facts,
    port_order,
    segment,
    vrf_facts,
)
from netbox_aifabric.facts.security import (
    TRUSTED_KINDS,
    Management,
    SecurityClass,
    class_acls,
    cnp_policer,
    management_plane,
    pass_rules,
    security_classes,
)
from netbox_aifabric.facts.sonic import (
    LINK_LOCAL,
    buffer_facts,
    cable_length,
    control_plane,
    platform_facts,
    system_mac,
)
from netbox_aifabric.facts.telemetry import TelemetryIntent, telemetry_facts, telemetry_intent
from netbox_aifabric.facts.vlans import leaf_vlans
from netbox_aifabric.planner.result import Attachment, NodePlan, Plan
from netbox_aifabric.planner.spec import BGP_UNDERLAYS, UNNUMBERED_UNDERLAYS

__all__ = (
    'CONTEXT_KEY',
    'PEER_LINK_LAG',
    'SCHEMA_VERSION',
    'SERVER_BOND',
    'build_contexts',
    'context_cabling',
    'server_port_modes',
)

Context = dict[str, Any]
Intent = FabricIntent

CONTEXT_KEY = 'aifabric'
SCHEMA_VERSION = 1
MGMT_VRF = 'mgmt'
MGMT_SERVICES = ('ssh', 'https', 'snmp')
DEFAULT_GATEWAY_MAC = '00:00:5e:00:01:01'  # NVIDIA Cumulus Linux's VRR default, for MLAG pairs without one
# BFD timers (ms) when the fabric asks for BFD: FRR's and Cumulus Linux's defaults (300 ms transmit and receive,
# multiplier 3: a dead link detected in 0.9 s instead of BGP's 90 s hold time or OSPF's 40 s dead interval)
BFD_TIMERS = {'min_tx': 300, 'min_rx': 300, 'multiplier': 3}


def _mac(value: str | None) -> str:
    """``value`` as ``aa:bb:cc:dd:ee:ff``; no value gives the VRR default MAC of NVIDIA Cumulus Linux."""
    return str(netaddr.EUI(value or DEFAULT_GATEWAY_MAC, dialect=netaddr.mac_unix_expanded))


@dataclass(frozen=True)
class _Fabric:
    """What every device's context shares: the fabric's settings and the facts computed once per fabric."""

    fabric: FabricSettings
    roles: Mapping[str, str]
    evpn: bool
    ebgp: bool  # eBGP on the fabric links, numbered or unnumbered
    unnumbered: bool  # the uplinks' sessions on their IPv6 link-local addresses (RFC 5549), no IPv4 on the links
    nodes: Mapping[str, NodePlan]
    qos: dict[str, Any] | None  # the QoS facts as the schema's object
    qos_intent: QosIntent | None  # the profile as the intent gives it (its trust)
    lossless: bool
    management: Management
    classes: tuple[SecurityClass, ...]
    purpose_of: Mapping[str, str]
    class_mtu: Mapping[str, int]
    gateway_mac: str
    bfd: dict[str, int] | None  # the BFD timers of the underlay sessions, None without BFD
    hardware: Mapping[str, Any]  # role -> {interface name: platform facts (lanes, alias, index)}
    breakouts: Mapping[str, Any]  # role -> {lane port of a breakout: {parent, count, speed, mode}}
    telemetry: TelemetryIntent  # the collectors every switch sends to and admits
    device_types: Mapping[str, str]  # role -> device type slug (the SONiC platform facts)
    qos_facts: QosFacts | None = None  # the servers' RoCE settings (facts/host.py)
    host_nic: str | None = None  # the servers' RDMA NIC family (intent['host_nic'])


def context_cabling(plan: Plan, intent: Intent) -> dict[str, DeviceCabling]:
    """The cabling facts the contexts are built from: the plan's, with the intent's platform facts, breakouts and
    underlay. The apply's interfaces read the same ones (their names, LAGs and descriptions)."""
    underlay = intent['fabric']['underlay']
    return cabling_facts(
        plan,
        intent.get('hardware') or {},
        underlay in BGP_UNDERLAYS,
        intent.get('breakouts') or {},
        unnumbered=underlay in UNNUMBERED_UNDERLAYS,
    )


def build_contexts(
    plan: Plan, intent: Intent, cabling: Mapping[str, DeviceCabling] | None = None
) -> dict[str, Context]:
    """``{device name: context}`` for every switch and server of the plan; ``cabling``: :func:`context_cabling` of
    the same plan and intent when the caller has it (computed here otherwise)."""
    shared = _shared(plan, intent)
    if cabling is None:
        cabling = context_cabling(plan, intent)
    contexts = {
        node.name: _switch_context(plan, shared, cabling.get(node.name, DeviceCabling()), node) for node in plan.nodes
    }
    for attachment in plan.attachments:
        contexts[attachment.server] = _server_context(
            plan, shared, cabling.get(attachment.server, DeviceCabling()), attachment
        )
    return contexts


def _shared(plan: Plan, intent: Intent) -> _Fabric:
    fabric = intent['fabric']
    classes = security_classes(intent, plan)
    qos = qos_facts(intent['qos'], intent['traffic_classes'])
    # the virtual MAC of an MLAG pair's gateways (EOS needs one for `ip address virtual`)
    gateway_mac = next((v.anycast_gateway_mac for v in plan.vrfs if v.anycast_gateway_mac), None) or _mac(
        intent.get('anycast_gateway_mac')
    )
    return _Fabric(
        fabric=fabric,
        roles=intent['roles'],
        evpn=fabric['design'] == 'evpn-vxlan',
        ebgp=fabric['underlay'] in BGP_UNDERLAYS,
        unnumbered=fabric['underlay'] in UNNUMBERED_UNDERLAYS,
        nodes={n.name: n for n in plan.nodes},
        qos=qos.as_context() if qos is not None else None,
        qos_intent=intent['qos'],
        lossless=intent['qos'] is not None and intent['qos']['mode'] == 'lossless',
        management=_management(intent, plan),
        classes=classes,
        purpose_of={c.name: c.purpose for c in classes if c.purpose is not None},
        class_mtu={tc['name']: tc['mtu'] or fabric['mtu'] for tc in intent['traffic_classes']},
        gateway_mac=gateway_mac,
        bfd=dict(BFD_TIMERS) if intent.get('bfd') else None,
        hardware=intent.get('hardware') or {},
        breakouts=intent.get('breakouts') or {},
        telemetry=telemetry_intent(intent['telemetry']),
        device_types=intent.get('device_types') or {},
        qos_facts=qos,
        host_nic=intent.get('host_nic'),
    )


def _management(intent: Intent, plan: Plan) -> Management:
    jump_hosts = intent['management']['jump_hosts']
    return Management(MGMT_VRF, MGMT_SERVICES, tuple(jump_hosts), plan.management_gateway)


def _switch_context(plan: Plan, shared: _Fabric, cabling: DeviceCabling, node: NodePlan) -> Context:
    is_leaf = node.role == 'leaf'
    own_loopbacks = loopbacks(node)
    vrfs = vrf_facts(plan, node) if is_leaf else ()
    fabric_mtu = shared.fabric['mtu']
    vlans = leaf_vlans(plan, node.name, shared.purpose_of, shared.class_mtu, fabric_mtu) if is_leaf else ()
    acls = class_acls(shared.classes, vlans)
    acl_of = {acl.vlan: acl.name for acl in acls}
    vrf_names = [v.name for v in vrfs]
    bgp = bgp_facts(plan, node, cabling, shared.evpn, shared.ebgp, own_loopbacks, vlans, vrf_names, shared.unnumbered)
    mlag = mlag_facts(shared.nodes, node, cabling, shared.gateway_mac)
    evpn_mh = evpn_mh_facts(node, cabling.lags)
    ospf = None if shared.ebgp else ospf_facts(node, cabling, own_loopbacks, vlans, [v.name for v in vrfs])
    interfaces = sorted(_ports(shared, True, cabling.ports), key=lambda i: port_order(i['name']))
    management = management_plane(shared.management, node).as_context()
    ospf_links = [
        (i['name'], i['address']) for i in interfaces if i['address'] and ospf and i['name'] in ospf.interfaces
    ]
    # an unnumbered session's BFD comes from the link's IPv6 link-local peer: admitted as the link-local range
    bfd_peers = list(dict.fromkeys(n.address or LINK_LOCAL for n in bgp.neighbors)) if bgp and shared.bfd else []
    telemetry = _telemetry(shared, node)
    return {
        **_identity(shared, node.name, node.role),
        'node_id': node.id,
        'asn': node.asn,
        'router_id': host(node.loopback),
        'loopbacks': [loopback.as_context() for loopback in own_loopbacks],
        'vtep': node.vtep,
        'mlag': mlag.as_context() if mlag else None,
        'evpn_mh': evpn_mh.as_context() if evpn_mh else None,
        'interfaces': interfaces,
        'lags': sorted(_lags(shared, True, cabling.lags), key=lambda i: port_order(i['name'])),
        'platform': _platform(shared, node, interfaces),
        'bgp': bgp.as_context() if bgp else None,
        'bfd': shared.bfd,
        'ospf': ospf.as_context() if ospf else None,
        'vlans': [
            {**vlan.as_context(), 'acl': acl_of.get(vlan.vid), 'gateway_mac': _gateway_mac(shared, node, vlan, vrfs)}
            for vlan in vlans
        ],
        'vrfs': [vrf.as_context() for vrf in vrfs],
        'qos': shared.qos,
        'mtu': {'fabric': fabric_mtu, 'classes': dict(shared.class_mtu)},
        'management': management,
        'control_plane': control_plane(
            management, mlag.peer_address if mlag else None, ospf_links, bfd_peers, telemetry
        ),
        'security': _security(shared, [acl.as_context() for acl in acls], pass_rules(shared.classes, acls, vlans)),
        'telemetry': telemetry,
        'host': None,
    }


def _server_context(plan: Plan, shared: _Fabric, cabling: DeviceCabling, attachment: Attachment) -> Context:
    name = attachment.server
    names = {v.vid: v.name for v in plan.vlans}
    fabric_mtu = shared.fabric['mtu']
    return {
        **_identity(shared, name, attachment.kind),
        'node_id': None,
        'asn': None,
        'router_id': None,
        'loopbacks': [],
        'vtep': None,
        'mlag': None,
        'evpn_mh': None,
        'interfaces': sorted(_ports(shared, False, cabling.ports), key=lambda i: port_order(i['name'])),
        'lags': _lags(shared, False, cabling.lags),
        'platform': None,
        'bgp': None,
        'bfd': None,
        'ospf': None,
        'vlans': [
            {'vid': vid, 'name': names.get(vid, str(vid)), 'mtu': shared.class_mtu.get(names.get(vid, ''), fabric_mtu)}
            for vid in attachment.vlans
        ],
        'vrfs': [],
        'qos': None,
        'mtu': {'fabric': fabric_mtu, 'classes': dict(shared.class_mtu)},
        'management': management_plane(shared.management, None).as_context(),
        'control_plane': [],
        'security': _security(shared, []),
        'telemetry': None,
        'host': _host(plan, shared, cabling, attachment),
    }


def _host(plan: Plan, shared: _Fabric, cabling: DeviceCabling, attachment: Attachment) -> Context:
    """The server's own config (facts/host.py): its bond, VLAN sub-interfaces, RDMA NICs and their RoCE settings."""
    mtu = shared.fabric['mtu']
    facts = host_facts(
        plan, attachment, cabling, shared.class_mtu, mtu, shared.qos_intent, shared.qos_facts, shared.host_nic
    )
    return facts.as_context()


def _platform(shared: _Fabric, node: NodePlan, interfaces: Sequence[Context]) -> Context:
    """The switch's platform: its pinned system MAC, and with a shipped SONiC device type its HWSKU, platform, ASIC
    and the buffer pools and profiles of the fabric's QoS profile (facts/sonic.py)."""
    # a border leaf is of the leaf device type (the fabric has leaf and spine device types only)
    platform = platform_facts(shared.device_types.get('spine' if node.role == 'spine' else 'leaf'))
    qos = shared.qos
    buffers = None
    if platform is not None and qos is not None:
        buffers = buffer_facts(
            platform, interfaces, qos['pfc_priorities'] if shared.lossless else [], shared.fabric['mtu']
        )
    return {
        'mac': system_mac(shared.fabric['slug'], node.role, node.id),
        'hwsku': platform.hwsku if platform else None,
        'platform': platform.platform if platform else None,
        'asic': platform.asic if platform else None,
        'buffers': buffers,
    }


def _gateway_mac(shared: _Fabric, node: NodePlan, vlan: Any, vrfs: Sequence[Any]) -> str | None:
    """The MAC of an anycast gateway (the same gateway address on every leaf of an EVPN fabric): its VRF's anycast
    gateway MAC, else the fabric's; None where the gateway is not anycast (no L2VNI or no gateway)."""
    if not (shared.evpn and node.vtep and vlan.gateway and vlan.l2vni):
        return None
    return next(
        (v.anycast_gateway_mac for v in vrfs if v.name == vlan.vrf and v.anycast_gateway_mac), shared.gateway_mac
    )


def _identity(shared: _Fabric, name: str, role: str) -> Context:
    return {
        'schema_version': SCHEMA_VERSION,
        'fabric': dict(shared.fabric),
        'hostname': name,
        'role': shared.roles.get(name, role),
    }


def _security(shared: _Fabric, acls: list[Context], passes: list[Context] | None = None) -> Context:
    return {
        'default': 'deny',
        'classes': [c.as_context() for c in shared.classes],
        'acls': acls,
        'passes': passes or [],
    }


def _telemetry(shared: _Fabric, node: NodePlan) -> Context | None:
    """The switch's telemetry: sent from its management VRF and address; the histograms on the lossless and ECN
    traffic classes of the QoS profile."""
    qos = shared.qos or {}
    to_tc = qos.get('priority_to_tc') or {}
    pfc_tcs = [to_tc.get(str(p), p) for p in qos.get('pfc_priorities') or ()] if shared.lossless else []
    ecn = qos.get('ecn') or {}
    return telemetry_facts(
        shared.telemetry,
        shared.management.vrf,
        host(node.management) if node.management else None,
        shared.management.jump_hosts,
        pfc_tcs,
        ecn.get('tcs') or () if ecn.get('enabled') else (),
    )


def _ports(shared: _Fabric, switch: bool, ports: Sequence[PortFacts]) -> list[Context]:
    """The cabled ports as the schema's objects: with the fabric's MTU, PFC, trust and CNP policing on switch ports."""
    return [
        {
            'name': port.name,
            'kind': port.kind,
            'description': port.description,
            'speed': port.speed,
            'mtu': shared.fabric['mtu'] if switch else None,
            'address': port.address,
            'unnumbered': bool(switch and shared.unnumbered and port.kind == 'uplink'),
            'peer_device': port.peer_device,
            'peer_interface': port.peer_interface,
            'lag': port.lag,
            'pfc': bool(switch and shared.lossless and port.kind in PFC_KINDS),
            'trust': _trust(shared.qos_intent, port.kind) if switch else None,
            'cnp_police': cnp_policer(shared.qos, port.kind, port.speed) if switch else None,
            'cable_length': cable_length(port.kind),
            **_mode(port.mode),
            'hardware': dict(port.hardware) if port.hardware else None,
            'breakout': dict(port.breakout) if port.breakout else None,
        }
        for port in ports
    ]


def _lags(shared: _Fabric, switch: bool, lags: Sequence[LagFacts]) -> list[Context]:
    return [
        {
            'name': lag.name,
            'kind': 'lag',
            'description': 'MLAG peer link' if lag.peer_link else f'{lag.peer_device} bond',
            'mtu': shared.fabric['mtu'] if switch else None,
            'address': lag.address,
            'members': list(lag.members),
            'dual_homed': lag.dual_homed,
            **_mode(lag.mode),
            **segment(lag.esi),
        }
        for lag in lags
    ]


def _trust(qos: QosIntent | None, kind: str) -> str | None:
    """What a switch port trusts: the profile's marking on links to switches and RDMA NICs, nothing (``none``: all
    traffic in the default class) on server bonds and BMC ports; None without a QoS profile."""
    if qos is None:
        return None
    return str(qos['trust']) if kind in TRUSTED_KINDS else 'none'


def _mode(mode: VlanMode | None) -> Context:
    if mode is None:
        return {'mode': None, 'untagged_vlan': None, 'tagged_vlans': []}
    return {'mode': mode.mode, 'untagged_vlan': mode.untagged, 'tagged_vlans': list(mode.tagged)}
