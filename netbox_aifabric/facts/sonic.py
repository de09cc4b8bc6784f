"""SONiC's per-device facts: the platform of a shipped device type (HWSKU, platform string, ASIC buffer), the switch's
pinned system MAC, each link's cable length, and the buffer pools and profiles a lossless QoS profile needs.

Pure (stdlib), computed once per fabric. Facts are encoded by hand from the sources named beside them (read with the
search tool, never copied); docs/contexts.md's SONiC table cites them per line:

- [buffers-td3] sonic-net/sonic-buildimage ``device/arista/x86_64-arista_7050cx3_32s/Arista-7050CX3-32S-C28S4/
  BALANCED/buffers_defaults_t1.j2`` @6fb27aa2: SONiC's pool layout on a Broadcom Trident3 (the ASIC family of both
  shipped SONiC device types, whose own HWSKU directories carry no buffer template): one ingress pool
  ``ingress_lossless_pool`` of 32712448 bytes (dynamic, with the lossless PGs' headroom as its ``xoff``) that also
  holds ``ingress_lossy_profile``; ``egress_lossless_pool`` (static) and ``egress_lossy_pool`` (dynamic);
  ``egress_lossy_profile`` 1792 bytes at ``dynamic_th`` 3.
- [ini-td3] the same SKU's ``pg_profile_lookup.ini`` @3147b02a: per speed × cable length a lossless PG of size 4608,
  xon 4608, xon_offset 4608, threshold 0; rows only for 5m, 40m and 300m (and no 25G row).
- [buffermgr] sonic-net/sonic-swss ``cfgmgr/buffermgr.cpp`` @029506c5: in the traditional model buffermgrd creates
  ``BUFFER_PG|<port>|<pfc_enable PGs>`` for every port with a CABLE_LENGTH and ``pfc_enable``, naming the profile
  ``pg_lossless_<speed>_<cable>_profile``; it reuses a BUFFER_PROFILE of that name when CONFIG_DB has one, but first
  requires the speed/cable row in the HWSKU's ``pg_profile_lookup.ini`` (no file or no row: no lossless PG).
- [headroom] sonic-net/sonic-swss ``cfgmgr/buffer_headroom_mellanox.lua`` @18913fa3: the headroom (xoff) SONiC's
  dynamic model computes: lossless MTU + port MTU + the bytes on the cable both ways (2 × length × speed / 198,000,000
  m/s) + the peer's response time (IEEE 802.3 31B.3.7 pause quanta × 512 bit times), rounded up to 1024 bytes.
- [7050X3] Arista 7050X3 datasheet: "a fully shared packet buffer of up to 32MB" (Trident3).
- [caclmgrd] sonic-net/sonic-host-services ``scripts/caclmgrd`` @01d1adc3: CTRLPLANE services SSH (tcp 22), SNMP
  (tcp+udp 161), NTP (udp 123), EXTERNAL_CLIENT (tcp, the port from the rules' L4_DST_PORT) and ANY (every protocol
  and port); rules apply by PRIORITY (one rule per priority in a table: a dict keyed by it); once any rule exists,
  ``INPUT -j DROP`` ends the chain after loopback, established, ICMP, DHCP and BGP (179, not on eth0).
"""

import hashlib
import ipaddress
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = (
    'BETWEEN_RACKS_M',
    'IN_RACK_KINDS',
    'IN_RACK_M',
    'SONIC_PLATFORMS',
    'SonicPlatform',
    'buffer_facts',
    'cable_length',
    'control_plane',
    'platform_facts',
    'priority_to_pg',
    'system_mac',
)


@dataclass(frozen=True)
class SonicPlatform:
    """A device type's SONiC platform: DEVICE_METADATA's ``hwsku`` and ``platform`` (the HWSKU and platform directory
    names in sonic-buildimage ``device/<vendor>/<platform>/<hwsku>/``) and the ASIC's shared buffer in bytes."""

    hwsku: str
    platform: str
    asic: str
    buffer_bytes: int


TD3_BUFFER = 32712448  # [buffers-td3] ingress_lossless_pool size; [7050X3] "up to 32MB"
SONIC_PLATFORMS: Mapping[str, SonicPlatform] = {
    # sonic-buildimage device/arista/x86_64-arista_7050sx3_48yc8/Arista-7050SX3-48YC8/ (port_config.ini @c2ebae66,
    # td3-a7050sx3_48yc8-48x25G+8x100G.config.bcm @d462f3eb: a Trident3)
    'arista-dcs-7050sx3-48yc8-sonic': SonicPlatform(
        'Arista-7050SX3-48YC8', 'x86_64-arista_7050sx3_48yc8', 'Broadcom Trident3', TD3_BUFFER
    ),
    # sonic-buildimage device/accton/x86_64-accton_as7726_32x-r0/Accton-AS7726-32X/ (port_config.ini @5363cbd3,
    # td3-as7726-32x100G.config.bcm @d1b483af: a Trident3)
    '7726-32x-o': SonicPlatform('Accton-AS7726-32X', 'x86_64-accton_as7726_32x-r0', 'Broadcom Trident3', TD3_BUFFER),
}

# Cable lengths (metres) from the cabling plan, chosen among the rows SONiC's lookup tables carry ([ini-td3]; SONiC's
# factory buffers_config.j2 uses 5m toward servers, 40m between a ToR and the tier above): a server, BMC, rail or
# peer-link cable stays in its rack (DAC); a leaf-spine uplink runs between racks.
IN_RACK_KINDS = ('server', 'rdma', 'rail', 'bmc', 'mlag-peer')
IN_RACK_M = 5
BETWEEN_RACKS_M = 40

LOSSLESS_XON = 4608  # [ini-td3] size, xon and xon_offset of every lossless PG
LOSSLESS_THRESHOLD = '0'  # [ini-td3] threshold (dynamic_th, the pool being dynamic)
EGRESS_LOSSY_RESERVED = 1792  # [buffers-td3] egress_lossy_profile size
LOSSY_DYNAMIC_TH = '3'  # [buffers-td3] egress_lossy_profile dynamic_th
CABLE_SPEED_M_S = 198_000_000  # [headroom] speed of light in the cable
PAUSE_QUANTA = {10000: 67, 25000: 80, 40000: 118, 50000: 147, 100000: 394, 200000: 453, 400000: 905}  # [headroom]


def cable_length(kind: str) -> int:
    """A link's cable length in metres: in the rack for everything but the uplinks ([ini-td3] rows)."""
    return IN_RACK_M if kind in IN_RACK_KINDS else BETWEEN_RACKS_M


def system_mac(fabric_slug: str, role: str, node_id: int) -> str:
    """The switch's pinned system MAC (DEVICE_METADATA ``mac``): ``02`` (locally administered, unicast) and five
    bytes of SHA-256 over the fabric slug and the node's stable identity (its role and its id within the role: spine 1
    and leaf 1 are different switches), so the same switch keeps it across renders."""
    digest = hashlib.sha256(f'aifabric/{fabric_slug}/{role}/{node_id}'.encode()).digest()
    return ':'.join(f'{b:02x}' for b in (0x02, *digest[:5]))


def platform_facts(device_type_slug: str | None) -> SonicPlatform | None:
    """The SONiC platform of a device type, None when none is shipped for it."""
    return SONIC_PLATFORMS.get(device_type_slug or '')


def priority_to_pg(priority_to_tc: Mapping[int, int], pfc_priorities: Sequence[int]) -> dict[int, int]:
    """SONiC's TC_TO_PRIORITY_GROUP_MAP (its "TC" is our switch priority): a PFC priority to the PG of its own number
    (buffermgrd names the lossless PGs after ``pfc_enable``, [buffermgr]), every other priority (CNP's included) to
    PG 0, the lossy PG that has a buffer."""
    return {p: (p if p in pfc_priorities else 0) for p in sorted(priority_to_tc)}


def _headroom(speed_mbps: int, cable_m: int, mtu: int) -> int:
    """[headroom]'s xoff: two MTUs, the bytes in flight on the cable both ways and the peer's response time."""
    on_cable = 2 * cable_m * speed_mbps * 1_000_000 / CABLE_SPEED_M_S / 8
    response = PAUSE_QUANTA.get(speed_mbps, PAUSE_QUANTA[100000]) * 512 / 8
    return math.ceil((2 * mtu + on_cable + response) / 1024) * 1024


def lossless_profile_name(speed_mbps: int, cable_m: int) -> str:
    return f'pg_lossless_{speed_mbps}_{cable_m}m_profile'  # [buffermgr]


def buffer_facts(
    platform: SonicPlatform, ports: Sequence[Mapping[str, Any]], pfc_priorities: Sequence[int], mtu: int
) -> dict[str, Any]:
    """BUFFER_POOL and BUFFER_PROFILE for ``ports`` (the context's interfaces: ``speed`` in Gbit/s, ``cable_length``,
    ``pfc``) in [buffers-td3]'s layout sized from the platform's buffer, and the ``pg_profile_lookup.ini`` rows
    buffermgrd needs before it creates the lossless PGs ([buffermgr])."""
    size = platform.buffer_bytes
    lossless: dict[str, dict[str, str]] = {}
    rows: list[dict[str, Any]] = []
    headroom = 0
    for port in ports:
        if not (port['pfc'] and pfc_priorities):
            continue
        speed, cable = port['speed'] * 1000, port['cable_length']
        xoff = _headroom(speed, cable, mtu)
        headroom += xoff * len(pfc_priorities)
        name = lossless_profile_name(speed, cable)
        if name not in lossless:
            lossless[name] = {
                'pool': 'ingress_lossless_pool',
                'size': str(LOSSLESS_XON),
                'xon': str(LOSSLESS_XON),
                'xon_offset': str(LOSSLESS_XON),
                'xoff': str(xoff),
                'dynamic_th': LOSSLESS_THRESHOLD,
            }
            rows.append(
                {
                    'speed': speed,
                    'cable': f'{cable}m',
                    'size': LOSSLESS_XON,
                    'xon': LOSSLESS_XON,
                    'xoff': xoff,
                    'threshold': int(LOSSLESS_THRESHOLD),
                    'xon_offset': LOSSLESS_XON,
                }
            )
    pools: dict[str, dict[str, str]] = {
        'ingress_lossless_pool': {'mode': 'dynamic', 'size': str(size), 'type': 'ingress'},
        'egress_lossy_pool': {'mode': 'dynamic', 'size': str(size - headroom), 'type': 'egress'},
    }
    profiles: dict[str, dict[str, str]] = {
        'ingress_lossy_profile': {'dynamic_th': LOSSY_DYNAMIC_TH, 'pool': 'ingress_lossless_pool', 'size': '0'},
        'egress_lossy_profile': {
            'dynamic_th': LOSSY_DYNAMIC_TH,
            'pool': 'egress_lossy_pool',
            'size': str(EGRESS_LOSSY_RESERVED),
        },
    }
    if lossless:
        pools['ingress_lossless_pool']['xoff'] = str(headroom)
        pools['egress_lossless_pool'] = {'mode': 'static', 'size': str(size), 'type': 'egress'}
        profiles['egress_lossless_profile'] = {'pool': 'egress_lossless_pool', 'size': '0', 'static_th': str(size)}
        profiles.update(sorted(lossless.items()))
    return {'pools': pools, 'profiles': profiles, 'pg_profile_lookup': rows}


def _rules(prefix: str, sources: Sequence[str], port: int | None = None) -> list[dict[str, Any]]:
    return [
        {'name': f'{prefix}_{n}', 'priority': 9999 - n + 1, 'source': source, 'l4_dst_port': port}
        for n, source in enumerate(sources, 1)
    ]


def _collector_admissions(telemetry: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The telemetry collectors' CTRLPLANE tables: SNMP polling from the managers, gNMI from the streaming
    collectors; none without collectors."""
    if not telemetry:
        return []
    tables = []
    if telemetry['snmp']['managers']:
        tables.append(
            {
                'table': 'AIFABRIC_SNMP',
                'description': 'SNMP polling from the telemetry managers',
                'services': ['SNMP'],
                'rules': _rules('MANAGER', telemetry['snmp']['manager_sources']),
            }
        )
    streaming = telemetry['streaming']
    if streaming['collectors']:
        tables.append(
            {
                'table': 'AIFABRIC_GNMI',
                'description': 'gNMI from the streaming telemetry collectors',
                'services': ['EXTERNAL_CLIENT'],
                'rules': _rules('COLLECTOR', streaming['allowed_sources'], streaming['gnmi_port']),
            }
        )
    return tables


LINK_LOCAL = 'fe80::/10'  # an unnumbered (RFC 5549) session's peer: the far end's IPv6 link-local address


def control_plane(
    management: Mapping[str, Any],
    mlag_peer: str | None,
    ospf_links: Sequence[tuple[str, str]],
    bfd_peers: Sequence[str],
    telemetry: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """SONiC's CTRLPLANE tables in caclmgrd's terms ([caclmgrd]): ``{table, description, services, rules: [{name,
    priority, source, l4_dst_port}]}``. The first tables admit a service to its sources (the management services
    from the jump hosts); once there is one, caclmgrd drops everything else, so the fabric's own protocols follow:
    MCLAG's ICCP (TCP 8888) from the peer, OSPF from the links (``ospf_links``: (interface, address) pairs), BFD
    (UDP 3784/4784) from the underlay neighbours (``bfd_peers``: addresses, or ``LINK_LOCAL`` for unnumbered
    sessions). OSPF and BFD take the service ANY: caclmgrd reads L4_DST_PORT for EXTERNAL_CLIENT only, which is TCP,
    so a peer is admitted as a whole. To admit another service (collectors), add its table to ``admissions``: the
    collectors of ``telemetry`` (the switch's telemetry context) are, SNMP from the managers and gNMI
    (EXTERNAL_CLIENT on its port) from the streaming collectors, where the jump hosts' table makes caclmgrd drop the
    rest."""
    services = {'ssh': 'SSH', 'snmp': 'SNMP', 'https': 'EXTERNAL_CLIENT'}
    admissions = []
    if management.get('allowed_sources'):
        admissions.extend(_collector_admissions(telemetry))
        admissions.append(
            {
                'table': 'AIFABRIC_MGMT',
                'description': 'management services only from the jump hosts',
                'services': [services[s] for s in management['services'] if s in services],
                'rules': _rules(
                    'JUMP_HOST', management['allowed_sources'], 443 if 'https' in management['services'] else None
                ),
            }
        )
    if not admissions:
        return []
    fabric = []
    if mlag_peer:
        iccp = _rules('MCLAG_PEER', [f'{mlag_peer}/32'], 8888)
        iccp[0]['name'] = 'MCLAG_PEER'
        fabric.append(
            {
                'table': 'AIFABRIC_ICCP',
                'description': 'MCLAG ICCP from the peer',
                'services': ['EXTERNAL_CLIENT'],
                'rules': iccp,
            }
        )
    links = [
        {
            'name': name,
            'priority': 9999 - n,
            'source': str(ipaddress.ip_interface(address).network),
            'l4_dst_port': None,
        }
        for n, (name, address) in enumerate(ospf_links)
    ]
    if links:
        fabric.append(
            {'table': 'AIFABRIC_OSPF', 'description': 'OSPF from the fabric links', 'services': ['ANY'], 'rules': links}
        )
    sources = [p if '/' in p else f'{p}/32' for p in bfd_peers]
    # caclmgrd makes a table IPv4 or IPv6 from its rules and ignores a rule of the other family: one table each
    for table, family in (('AIFABRIC_BFD', [s for s in sources if ':' not in s]),
                          ('AIFABRIC_BFD_V6', [s for s in sources if ':' in s])):  # fmt: skip
        if family:
            fabric.append(
                {
                    'table': table,
                    'description': 'BFD (UDP 3784/4784) from the underlay neighbours',
                    'services': ['ANY'],
                    'rules': _rules('NEIGHBOR', family),
                }
            )
    return admissions + fabric
