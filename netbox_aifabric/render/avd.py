"""The ``aifabric`` context of a switch as Arista AVD structured config (the ``eos_cli_config_gen`` schema), for EOS
teams that render their configs with AVD. Pure: a context in, a dict out; the tests validate it with
``pyavd.validate_structured_config`` and render it with ``pyavd.get_device_config``.

Mapped: hostname, routing model, loopbacks, VLANs, VRFs, anycast gateways (``ip address virtual`` on an MLAG pair or
an EVPN leaf, else a plain address), routed and switched Ethernet ports, server bonds and the MLAG peer link
(port-channels with trunk groups), MLAG (peer SVI ``Vlan4094``), EVPN multihoming (each bond's
``evpn_ethernet_segment`` and ``lacp_id``), VXLAN (VLAN and VRF VNIs), BGP (underlay, MLAG and EVPN peer groups, EVPN
VLANs and VRFs with RD/RT; the unnumbered underlay as eos_designs' ``underlay_rfc5549`` writes it: docs/avd.md),
OSPF underlay (the rack subnets redistributed from the connected gateways through a prefix list of exactly
``ospf.networks``), QoS (DSCP → traffic-class map, trust, PFC no-drop priorities per port, the
PFC watchdog's timeout, polling interval, recovery time and drop action; every DSCP the profile leaves out to the
default traffic class; ``qos trust disabled`` on the untrusted
ports, the context's ``none``), MLAG reload delays (``mlag.reload_delay``) and AVD's ``RM-MLAG-PEER-IN`` on the
MLAG-peer iBGP session, the management plane (``Management1`` in VRF ``mgmt`` with its address and default
route, the standard ACL ``AIFABRIC-MGMT`` of the jump hosts on SSH, the HTTPS API and SNMP, in the management and the
default VRF), the security matrix (``ip_access_lists`` of ``security.acls``, each the ``access_group_in`` of its
gateway SVI), the VLANs of a VRF without L3VNI in a local VRF of that name, and only the subnets with ``advertise`` in
BGP (``network`` statements, in the default VRF or the L3VNI VRF), the fabric's collectors (``telemetry``: logging,
NTP, SNMP users/communities/hosts/traps, sFlow, gNMI, LANZ; docs/avd.md). Not mapped: ECN/WRED thresholds and scheduler
weights (AVD models them through platform-specific QoS profiles), and the CNP policer (``cnp_police``).
"""

from collections.abc import Iterable, Mapping
from typing import Any

from netbox_aifabric.render.filters import eos_esi, eos_mac, eos_management_vrf, seconds

__all__ = ('EOS_MAX_MTU', 'MLAG_PEER_VLAN', 'avd_structured_config')

EOS_MAX_MTU = 9214  # the largest MTU most EOS platforms accept (AVD's default for routed uplinks too)
MLAG_PEER_VLAN = 4094
UNDERLAY = 'IPv4-UNDERLAY-PEERS'
MLAG_PEER = 'MLAG-IPv4-UNDERLAY-PEER'
OVERLAY = 'EVPN-OVERLAY-PEERS'
OSPF_NETWORKS = 'AIFABRIC-OSPF-NETWORKS'  # the prefix list and route map of the rack subnets redistributed in OSPF
MGMT_ACL = 'AIFABRIC-MGMT'  # the standard ACL of the jump hosts, as the EOS template names it
SNMP_ACL = 'AIFABRIC-SNMP'  # the jump hosts and the SNMP managers, when the fabric has managers (the EOS template's)
GNMI_ACL = 'AIFABRIC-GNMI'  # the streaming collectors, the only gNMI clients
GNMI_TRANSPORT = 'AIFABRIC'
SNMP_VIEW = SNMP_GROUP = 'AIFABRIC-RO'  # the v3 user's read-only view and group, as the EOS template names them
MGMT_INTERFACE = 'Management1'
MLAG_PEER_ROUTE_MAP = 'RM-MLAG-PEER-IN'  # AVD's name for it
DEFAULT_RECOVERY_MS = 200  # SONiC's pfcwd default restoration time (nos-facts §3), when the profile has none
TRUST = {'none': 'disabled'}  # the context's trust → AVD's qos.trust (dscp and cos are the same words)


def _lag_id(name: str) -> int:
    return int(''.join(c for c in name if c.isdigit()))


def _switchport(port: Mapping[str, Any], mlag_trunk: bool = False) -> dict[str, Any] | None:
    if mlag_trunk:
        return {'enabled': True, 'mode': 'trunk', 'trunk': {'groups': ['MLAG']}}
    if port.get('mode') == 'access':
        return {'enabled': True, 'mode': 'access', 'access_vlan': port['untagged_vlan']}
    if port.get('mode') == 'tagged':
        allowed = ','.join(str(v) for v in port['tagged_vlans']) or 'none'
        trunk = {'allowed_vlan': allowed}
        if port.get('untagged_vlan'):
            trunk['native_vlan'] = port['untagged_vlan']
        return {'enabled': True, 'mode': 'trunk', 'trunk': trunk}
    return None


def _ethernet(port: Mapping[str, Any], qos: Mapping[str, Any] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {'name': port['name'], 'description': port['description'], 'shutdown': False}
    if port['mtu']:
        entry['mtu'] = min(port['mtu'], EOS_MAX_MTU)
    if port['lag']:
        entry['channel_group'] = {'id': _lag_id(port['lag']), 'mode': 'active'}
    elif port['address']:
        entry['switchport'] = {'enabled': False}
        entry['ip_address'] = port['address']
    elif port.get('unnumbered'):
        # RFC 5549: a routed port without IPv4, its BGP session on the IPv6 link-local address (eos_designs'
        # underlay_rfc5549 sets the uplink's ipv6_enable and no ip_address)
        entry['switchport'] = {'enabled': False}
        entry['ipv6_enable'] = True
    elif switchport := _switchport(port):
        entry['switchport'] = switchport
    if qos is not None and port['trust']:
        entry['qos'] = {'trust': TRUST.get(port['trust'], port['trust'])}
    if qos is not None and port['pfc'] and qos['pfc_priorities']:
        entry['priority_flow_control'] = {
            'enabled': True,
            'priorities': [{'priority': p, 'no_drop': True} for p in qos['pfc_priorities']],
        }
    return entry


def _watchdog(watchdog: Mapping[str, Any]) -> dict[str, str | float]:
    """The context's PFC watchdog (ms) as AVD's ``priority_flow_control.watchdog`` (seconds). Without an action the
    stuck queue drops (EOS's own default errdisables the port; SONiC's and NVUE's watchdogs drop the queue) and
    recovers after the restoration time, else SONiC's default 200 ms, as the EOS template renders it."""
    entry: dict[str, str | float] = {'action': 'drop'} if watchdog['action'] in (None, 'drop') else {}
    for key, value in (
        ('timeout', watchdog['timeout']),
        ('polling_interval', watchdog['poll_interval']),
        ('recovery_time', watchdog['restoration_time'] or DEFAULT_RECOVERY_MS),
    ):
        if value:
            entry[key] = float(seconds(value))
    return entry


def _ethernet_segment(lag: Mapping[str, Any]) -> dict[str, Any]:
    """An EVPN multihoming bond's Ethernet segment as AVD's port-channel keys: EOS's type-0 identifier made of the
    context's type-3 ESI (``aifabric_eos_esi``), the ES-import route target and the LACP system id (the ESI's MAC)."""
    return {
        'evpn_ethernet_segment': {'identifier': eos_esi(lag['esi']), 'route_target': lag['es_import_rt']},
        'lacp_id': eos_mac(lag['es_sys_mac']),
    }


def avd_structured_config(context: Mapping[str, Any]) -> dict[str, Any]:
    """AVD ``eos_cli_config_gen`` structured config of one switch (spine or leaf) from its ``aifabric`` context."""
    config: dict[str, Any] = {
        'hostname': context['hostname'],
        'service_routing_protocols_model': 'multi-agent',
        'ip_routing': True,
        'loopback_interfaces': [
            {'name': lo['name'], 'description': lo['purpose'].upper(), 'shutdown': False, 'ip_address': lo['address']}
            for lo in context['loopbacks']
        ],
        'ethernet_interfaces': [_ethernet(port, context['qos']) for port in context['interfaces']],
    }
    if any(n['address'] is None for n in (context['bgp'] or {}).get('neighbors') or ()):
        _rfc5549_routing(config)  # by the sessions, not bgp.unnumbered: a fabric without uplinks routes as before
    _port_channels(context, config)
    _vlans(context, config)
    _vrfs_and_vtep(context, config)
    _management(context, config)
    _telemetry(context, config)
    if context['security']['acls']:
        config['ip_access_lists'] = [_access_list(acl) for acl in context['security']['acls']]
    _routing(context, config)
    _qos(context['qos'], config)
    config['config_end'] = True  # the final `end` line
    return config


def _rfc5549_routing(config: dict[str, Any]) -> None:
    """IPv4 routed over interfaces without IPv4 addresses (IPv6 link-local next hops): eos_designs' ``ip_routing``
    contributor with ``underlay_rfc5549`` sets ``ip_routing_ipv6_interfaces`` in place of ``ip_routing``, and
    ``ipv6_unicast_routing``."""
    del config['ip_routing']
    config['ip_routing_ipv6_interfaces'] = True
    config['ipv6_unicast_routing'] = True


def _port_channels(context: Mapping[str, Any], config: dict[str, Any]) -> None:
    """The LAGs: the MLAG peer link (a trunk of the MLAG group) and the bonds (with their MLAG id, or their Ethernet
    segment on an EVPN multihoming pair)."""
    mlag = context['mlag']
    port_channels: list[dict[str, Any]] = []
    for lag in context['lags']:
        peer_link = mlag is not None and lag['name'] == mlag['peer_link']
        entry: dict[str, Any] = {'name': lag['name'], 'description': lag['description'], 'shutdown': False}
        if switchport := _switchport(lag, mlag_trunk=peer_link):
            entry['switchport'] = switchport
        if mlag is not None and not peer_link and lag.get('dual_homed', True):
            entry['mlag'] = _lag_id(lag['name'])
        if context['evpn_mh'] and lag.get('esi'):
            entry.update(_ethernet_segment(lag))
        port_channels.append(entry)
    if port_channels:
        config['port_channel_interfaces'] = port_channels


def _vlans(context: Mapping[str, Any], config: dict[str, Any]) -> None:
    """VLANs and their SVIs (an anycast gateway (VARP) on an MLAG pair or an EVPN leaf; a single leaf's gateway is
    its own address), and an MLAG pair's peering VLAN, SVI and ``mlag configuration``."""
    mlag = context['mlag']
    vlans = [{'id': v['vid'], 'name': v['name']} for v in context['vlans']]
    gateway_key = 'ip_address_virtual' if mlag or context['vrfs'] else 'ip_address'
    svis = [
        {
            'name': f'Vlan{v["vid"]}',
            'description': v['name'],
            'shutdown': False,
            gateway_key: v['gateway'],
            'mtu': min(v['mtu'], EOS_MAX_MTU),
            **({'vrf': v['vrf']} if v['vrf'] else {}),
            **({'access_group_in': v['acl']} if v.get('acl') else {}),
        }
        for v in context['vlans']
        if v['gateway']
    ]
    if mlag is not None:
        vlans.append({'id': MLAG_PEER_VLAN, 'name': 'MLAG', 'trunk_groups': ['MLAG']})
        svis.insert(0, _mlag_svi(context, mlag))
        config['mlag_configuration'] = {
            'domain_id': f'{context["fabric"]["slug"]}-mlag',
            'local_interface': f'Vlan{MLAG_PEER_VLAN}',
            'peer_address': mlag['peer_address'],
            'peer_link': mlag['peer_link'],
            # AVD's default platform settings (eos_designs platform_settings "default": mlag 300, non_mlag 330)
            'reload_delay_mlag': str(mlag['reload_delay']['mlag']),
            'reload_delay_non_mlag': str(mlag['reload_delay']['non_mlag']),
        }
        config['spanning_tree'] = {'no_spanning_tree_vlan': str(MLAG_PEER_VLAN)}
    if vlans:
        config['vlans'] = sorted(vlans, key=lambda v: v['id'])
    if svis:
        config['vlan_interfaces'] = svis


def _mlag_svi(context: Mapping[str, Any], mlag: Mapping[str, Any]) -> dict[str, Any]:
    return {
        'name': f'Vlan{MLAG_PEER_VLAN}',
        'description': 'MLAG peering',
        'shutdown': False,
        'ip_address': mlag['local_address'],
        'mtu': min(context['fabric']['mtu'], EOS_MAX_MTU),
        'no_autostate': True,
    }


def _vrfs_and_vtep(context: Mapping[str, Any], config: dict[str, Any]) -> None:
    """The VRFs (L3VNI ones and those of local gateways), the virtual-router MAC of the gateways, the VXLAN VTEP."""
    mlag = context['mlag']
    vrfs = [vrf['name'] for vrf in context['vrfs']]
    vrfs += sorted({v['vrf'] for v in context['vlans'] if v['gateway'] and v['vrf']} - set(vrfs))  # local VRFs
    if vrfs:
        config['vrfs'] = [{'name': name, 'ip_routing': True} for name in vrfs]
    mac = mlag['anycast_gateway_mac'] if mlag else next((v['anycast_gateway_mac'] for v in context['vrfs']), None)
    if mac and any(vlan['gateway'] for vlan in context['vlans']):
        config['ip_virtual_router_mac_address'] = mac
    if context['vtep']:
        config['vxlan_interface'] = {
            'vxlan1': {
                'description': f'{context["hostname"]} VTEP',
                'vxlan': {
                    'source_interface': 'Loopback1',
                    'udp_port': 4789,
                    'vlans': [{'id': v['vid'], 'vni': v['l2vni']} for v in context['vlans'] if v['l2vni']],
                    'vrfs': [{'name': vrf['name'], 'vni': vrf['l3vni']} for vrf in context['vrfs']],
                },
            }
        }


def _routing(context: Mapping[str, Any], config: dict[str, Any]) -> None:
    """BGP (with the MLAG-peer route map), the OSPF underlay and BFD."""
    bfd = context.get('bfd')
    if context['bgp']:
        config['router_bgp'] = _bgp(context)
        if any(n['kind'] == 'mlag-peer' for n in context['bgp']['neighbors']):
            _mlag_peer_route_map(config)
    if context['ospf']:
        _ospf(context['ospf'], config, bfd)
    if bfd:
        config['router_bfd'] = {'interval': bfd['min_tx'], 'min_rx': bfd['min_rx'], 'multiplier': bfd['multiplier']}


def _qos(qos: Mapping[str, Any] | None, config: dict[str, Any]) -> None:
    """The DSCP → traffic-class map (every unmapped DSCP to the default class) and the PFC watchdog."""
    if qos is None:
        return
    config['qos'] = {
        'map': {
            'dscp': [
                f'{dscp} to traffic-class {qos["priority_to_tc"].get(str(priority), priority)}'
                for dscp, priority in qos['dscp_to_priority'].items()
            ]
            + _default_dscp_map(qos)
        }
    }
    if qos['pfc_watchdog']:
        config['priority_flow_control'] = {'watchdog': _watchdog(qos['pfc_watchdog'])}


def _default_dscp_map(qos: Mapping[str, Any]) -> list[str]:
    """Every DSCP the profile does not map, to the default traffic class (switch priority 0's, else 0), eight values a
    line as the EOS template writes them."""
    default_tc = qos['priority_to_tc'].get('0', 0)
    rest = [str(dscp) for dscp in range(64) if str(dscp) not in qos['dscp_to_priority']]
    return [f'{" ".join(rest[i : i + 8])} to traffic-class {default_tc}' for i in range(0, len(rest), 8)]


def _mlag_peer_route_map(config: dict[str, Any]) -> None:
    """AVD's RM-MLAG-PEER-IN (eos_designs ``mlag_ibgp_origin_incomplete``, default true): the MLAG peer's routes with
    origin incomplete, so the spines prefer each leaf's own path."""
    config.setdefault('route_maps', []).append(
        {
            'name': MLAG_PEER_ROUTE_MAP,
            'sequence_numbers': [
                {
                    'sequence': 10,
                    'type': 'permit',
                    'description': 'Make routes learned over MLAG Peer-link less preferred on spines to ensure optimal '
                    'routing',
                    'set': ['origin incomplete'],
                }
            ],
        }
    )


def _management(context: Mapping[str, Any], config: dict[str, Any]) -> None:
    """Management1 in the management VRF with its address and default route; SSH, the HTTPS API and SNMP only from
    the jump hosts (standard ACL ``AIFABRIC-MGMT``), in the management VRF and in the default VRF."""
    plane = context['management']
    if not plane or not plane['vrf']:
        return
    vrf = eos_management_vrf(context)
    config.setdefault('vrfs', []).insert(0, {'name': vrf, 'ip_routing': False})
    if plane['address']:
        config['management_interfaces'] = [
            {
                'name': MGMT_INTERFACE,
                'description': 'out-of-band management',
                'shutdown': False,
                'vrf': vrf,
                'ip_address': plane['address'],
                **({'gateway': plane['gateway']} if plane['gateway'] else {}),
                'type': 'oob',
            }
        ]
    if plane['gateway']:
        config['static_routes'] = [{'vrf': vrf, 'prefix': '0.0.0.0/0', 'next_hop': plane['gateway']}]
    if not plane['allowed_sources']:
        return
    config['standard_access_lists'] = [
        {
            'name': MGMT_ACL,
            'entries': [
                {'sequence': 10 * n, 'action': 'permit', 'source': source}
                for n, source in enumerate(plane['allowed_sources'], 1)
            ],
        }
    ]
    if 'ssh' in plane['services']:
        config['management_ssh'] = {
            'ip_access_group_in': MGMT_ACL,
            'vrfs': [{'name': vrf, 'enable': True, 'ip_access_group_in': MGMT_ACL}],
        }
    if 'https' in plane['services']:
        config['management_api_http'] = {
            'enable_https': True,
            'enable_vrfs': [{'name': name, 'access_group': MGMT_ACL} for name in ('default', vrf)],
        }
    if 'snmp' in plane['services']:
        acl = SNMP_ACL if (context.get('telemetry') or {}).get('snmp', {}).get('managers') else MGMT_ACL
        config['snmp_server'] = {
            'ipv4_acls': [{'name': acl}, {'name': acl, 'vrf': vrf}],
            'vrfs': [{'name': vrf, 'enable': True}],
        }


def _access_list(acl: Mapping[str, Any]) -> dict[str, Any]:
    """A gateway's inbound ACL of the security matrix (first match wins, EOS's implicit deny at the end)."""
    return {
        'name': acl['name'],
        'entries': [
            {
                'sequence': rule['seq'],
                'action': rule['action'],
                'protocol': 'ip',
                'source': rule['source'],
                'destination': rule['destination'],
            }
            for rule in acl['rules']
        ],
    }


def _ospf(ospf: Mapping[str, Any], config: dict[str, Any], bfd: Mapping[str, Any] | None = None) -> None:
    """The OSPF underlay: point-to-point uplinks, the loopbacks, and the rack subnets ``ospf.networks`` redistributed
    from the connected gateways through a prefix list of exactly those subnets, as the EOS template does (the export
    keeps every gateway in the default VRF when the fabric has no L3VNI VRF, so all of them)."""
    process: dict[str, Any] = {
        'id': 100,
        'router_id': ospf['router_id'],
        'passive_interface_default': True,
        'no_passive_interfaces': [i for i in ospf['interfaces'] if i != 'Loopback0'],
        'max_lsa': 12000,
    }
    if bfd:
        process['bfd_enable'] = True
    config['router_ospf'] = {'process_ids': [process]}
    for port in config['ethernet_interfaces']:
        if port['name'] in ospf['interfaces']:
            port['ospf_network_point_to_point'] = True
            port['ospf_area'] = ospf['area']
    for lo in config['loopback_interfaces']:
        lo['ospf_area'] = ospf['area']
    if ospf['networks']:
        process['redistribute'] = {'connected': {'enabled': True, 'route_map': OSPF_NETWORKS}}
        config['prefix_lists'] = [
            {
                'name': OSPF_NETWORKS,
                'sequence_numbers': [
                    {'sequence': n, 'action': f'permit {subnet}'} for n, subnet in enumerate(ospf['networks'], 1)
                ],
            }
        ]
        config.setdefault('route_maps', []).append(
            {
                'name': OSPF_NETWORKS,
                'sequence_numbers': [
                    {'sequence': 10, 'type': 'permit', 'match': [f'ip address prefix-list {OSPF_NETWORKS}']}
                ],
            }
        )


def _underlay_sessions(
    bgp: Mapping[str, Any], groups: list[dict[str, Any]], families: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The underlay and MLAG-peer sessions: ``neighbors`` by address, and ``neighbor_interfaces`` for the unnumbered
    uplinks (RFC 5549: eos_designs' ``router_bgp.neighbor_interfaces`` with ``underlay_rfc5549``, each in the
    underlay peer group with its remote AS). Adds the MLAG-peer group to ``groups`` and ``families`` when used."""
    neighbors: list[dict[str, Any]] = []
    interfaces: list[dict[str, Any]] = []
    for n in bgp['neighbors']:
        if n['kind'] == 'mlag-peer':
            if not any(g['name'] == MLAG_PEER for g in groups):
                groups.append(
                    {
                        'name': MLAG_PEER,
                        'remote_as': str(n['remote_asn']),
                        'next_hop_self': True,
                        'send_community': 'all',
                        'route_map_in': MLAG_PEER_ROUTE_MAP,
                    }
                )
                families.append({'name': MLAG_PEER, 'activate': True})
            neighbors.append({'ip_address': n['address'], 'peer_group': MLAG_PEER, 'description': n['peer']})
            continue
        session = {'peer_group': UNDERLAY, 'remote_as': str(n['remote_asn'])}
        description = {'description': f'{n["peer"]} {n["interface"]}'}
        if n['address'] is None:  # unnumbered: the session is the interface's
            interfaces.append({'name': n['interface'], **session, **description})
        else:
            neighbors.append({'ip_address': n['address'], **session, **description})
    return neighbors, interfaces


def _bgp(context: Mapping[str, Any]) -> dict[str, Any]:
    """``router_bgp``: the underlay and MLAG-peer groups and sessions, the default VRF's networks, the EVPN overlay."""
    bgp = context['bgp']
    groups: list[dict[str, Any]] = [{'name': UNDERLAY, 'send_community': 'all', 'maximum_routes': 12000}]
    families: list[dict[str, Any]] = [{'name': UNDERLAY, 'activate': True}]
    neighbors, interfaces = _underlay_sessions(bgp, groups, families)
    if context.get('bfd'):
        for group in groups:
            group['bfd'] = True  # the underlay and MLAG-peer groups; the overlay group is added below, without
    config: dict[str, Any] = {
        'as': str(bgp['asn']),
        'router_id': bgp['router_id'],
        'maximum_paths': {'paths': 4},
        'bgp': {'default': {'ipv4_unicast': False}},
        'peer_groups': groups,
        'neighbors': neighbors,
        **({'neighbor_interfaces': interfaces} if interfaces else {}),
        'address_family_ipv4': {
            'peer_groups': families,
            # the loopbacks and the advertised subnets of the default VRF, as the FRR and EOS templates announce them
            'networks': [{'prefix': lo['address']} for lo in context['loopbacks']]
            + [
                {'prefix': v['subnet']}
                for v in context['vlans']
                if v.get('advertise') and not v['l2vni'] and not v['vrf']
            ],
        },
    }
    if interfaces:
        # IPv4 routes with IPv6 next hops on the underlay group (eos_designs' set_once_peer_group_ipv4_underlay_peers
        # with underlay_rfc5549): `neighbor IPv4-UNDERLAY-PEERS next-hop address-family ipv6 originate`
        families[0]['next_hop'] = {'address_family_ipv6': {'enabled': True, 'originate': True}}
    if bgp['evpn_peers']:
        _evpn_overlay(context, config, groups, families, neighbors)
    return config


def _spine_overlay_options(bgp: Mapping[str, Any]) -> dict[str, bool]:
    """A spine's EVPN peer-group options: with eBGP peers (the eBGP underlay) it relays the leaves' EVPN routes with
    their own VTEP as next hop (``next_hop_unchanged``, AVD's EVPN route servers); with iBGP peers (one ASN, the
    OSPF underlay) it reflects them (``route_reflector_client``). The EOS template sets the same per neighbour."""
    ibgp = [p for p in bgp['evpn_peers'] if p['remote_asn'] == bgp['asn']]
    options: dict[str, bool] = {}
    if ibgp:
        options['route_reflector_client'] = True
    if len(ibgp) < len(bgp['evpn_peers']):
        options['next_hop_unchanged'] = True
    return options


def _evpn_overlay(
    context: Mapping[str, Any],
    config: dict[str, Any],
    groups: list[dict[str, Any]],
    families: list[dict[str, Any]],
    neighbors: list[dict[str, Any]],
) -> None:
    """The EVPN overlay: its peer group and loopback sessions, the MAC-VRF VLANs and the L3VNI VRFs."""
    bgp = context['bgp']
    groups.append({'name': OVERLAY, 'update_source': 'Loopback0', 'ebgp_multihop': 3, 'send_community': 'all'})
    if context['role'] == 'spine':
        groups[-1].update(_spine_overlay_options(bgp))
    families.append({'name': OVERLAY, 'activate': False})
    for p in bgp['evpn_peers']:
        neighbors.append(
            {
                'ip_address': p['address'],
                'peer_group': OVERLAY,
                'remote_as': str(p['remote_asn']),
                'description': f'{p["peer"]} Loopback0',
            }
        )
    config['address_family_evpn'] = {'peer_groups': [{'name': OVERLAY, 'activate': True}]}
    config['vlans'] = [
        {
            'id': v['vid'],
            'rd': f'{bgp["router_id"]}:{v["l2vni"]}',
            'route_targets': {'both': [f'{v["l2vni"]}:{v["l2vni"]}']},
            'redistribute_routes': ['learned'],
        }
        for v in context['vlans']
        if v['l2vni']
    ]
    config['vrfs'] = [
        {
            'name': vrf['name'],
            'rd': vrf['rd'],
            'route_targets': {
                'import': [{'address_family': 'evpn', 'route_targets': [vrf['route_target']]}],
                'export': [{'address_family': 'evpn', 'route_targets': [vrf['route_target']]}],
            },
            'router_id': bgp['router_id'],
            'address_family_ipv4': {
                'networks': [
                    {'prefix': v['subnet']} for v in context['vlans'] if v.get('advertise') and v['vrf'] == vrf['name']
                ]
            },
        }
        for vrf in context['vrfs']
    ]


def _standard_acl(name: str, sources: Iterable[str]) -> dict[str, Any]:
    entries = [{'sequence': 10 * n, 'action': 'permit', 'source': source} for n, source in enumerate(sources, 1)]
    return {'name': name, 'entries': entries}


def _telemetry(context: Mapping[str, Any], config: dict[str, Any]) -> None:
    """The fabric's collectors (``telemetry``), all reached from Management1 in the management VRF, as the EOS
    template renders them: syslog, NTP, SNMP (polling ACL, v3 user or v2c community, traps), sFlow, gNMI and LANZ.
    Keys of pyavd 6.4.0's eos_cli_config_gen schema (docs/avd.md, "Telemetry"); the secrets stay the context's
    named placeholders."""
    telemetry = context.get('telemetry')
    if not telemetry:
        return
    vrf = eos_management_vrf(context)
    if telemetry['snmp']['managers']:
        _snmp(telemetry['snmp'], vrf, config)
    if telemetry['syslog']['servers']:
        config['logging'] = {'vrfs': [_logging_vrf(telemetry['syslog'], vrf)]}
    if telemetry['ntp']['servers']:
        config['ntp'] = {
            'local_interface': {'name': MGMT_INTERFACE, 'vrf': vrf},
            'vrf': vrf,  # one VRF for every server (pyavd 6 moved it from servers[].vrf to ntp.vrf)
            'servers': [
                {'name': server, **({'iburst': True} if telemetry['ntp']['iburst'] else {})}
                for server in telemetry['ntp']['servers']
            ],
        }
    if telemetry['sflow']['collectors']:
        config['sflow'] = _sflow(telemetry['sflow'], vrf)
    streaming = telemetry['streaming']
    if streaming['collectors']:
        config.setdefault('standard_access_lists', []).append(_standard_acl(GNMI_ACL, streaming['allowed_sources']))
        transport = {'name': GNMI_TRANSPORT, 'port': streaming['gnmi_port'], 'vrf': vrf, 'ip_access_group': GNMI_ACL}
        config['management_api_gnmi'] = {'transport': {'grpc': [transport]}}
    config['queue_monitor_length'] = {'enabled': True}  # LANZ: the queue depths the guide asks for


def _logging_vrf(syslog: Mapping[str, Any], vrf: str) -> dict[str, Any]:
    hosts = [
        {'name': server, 'protocol': syslog['protocol'], 'ports': [syslog['port']]} for server in syslog['servers']
    ]
    return {'name': vrf, 'source_interface': MGMT_INTERFACE, 'hosts': hosts}


def _sflow(sflow: Mapping[str, Any], vrf: str) -> dict[str, Any]:
    destinations = [{'destination': collector, 'port': sflow['port']} for collector in sflow['collectors']]
    return {
        'sample': sflow['sampling_rate'],
        # a rate below 16384 is refused without `dangerous` (sflow.sample_dangerous)
        **({'dangerous': True} if sflow['aggressive'] else {}),
        'polling_interval': sflow['polling_interval'],
        'vrfs': [{'name': vrf, 'destinations': destinations, 'source_interface': MGMT_INTERFACE}],
        'run': True,
    }


def _snmp(snmp: Mapping[str, Any], vrf: str, config: dict[str, Any]) -> None:
    """SNMP polled only from the jump hosts and the managers (``AIFABRIC-SNMP``, bound by ``_management``), a v3
    user (SHA/AES, in a read-only group of a view of everything) or a v2c read-only community, traps to the
    managers."""
    config.setdefault('standard_access_lists', []).append(_standard_acl(SNMP_ACL, snmp['allowed_sources']))
    server = config.setdefault('snmp_server', {})
    server['local_interfaces'] = [{'name': MGMT_INTERFACE, 'vrf': vrf}]
    if snmp['version'] == 'v3':
        server['views'] = [{'name': SNMP_VIEW, 'mib_family_name': 'iso', 'included': True}]
        server['groups'] = [{'name': SNMP_GROUP, 'version': 'v3', 'authentication': 'priv', 'read': SNMP_VIEW}]
        server['users'] = [
            {
                'name': snmp['user'],
                'group': SNMP_GROUP,
                'version': 'v3',
                'auth': 'sha',
                'auth_passphrase': snmp['auth'],
                'priv': 'aes',
                'priv_passphrase': snmp['priv'],
            }
        ]
        host_auth: dict[str, Any] = {
            'version': '3',
            'users': [{'username': snmp['user'], 'authentication_level': 'priv'}],
        }
    else:
        server['communities'] = [{'name': snmp['community'], 'access': 'ro', 'access_list_ipv4': {'name': SNMP_ACL}}]
        host_auth = {'version': '2c', 'community': snmp['community']}
    server['hosts'] = [{'host': manager, 'vrf': vrf, **host_auth} for manager in snmp['managers']]
    server['traps'] = {'enable': True}
