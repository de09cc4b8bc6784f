"""SONiC referential integrity of a rendered config_db: every reference SONiC's YANG models declare (a ``leafref``, or a
``must`` that names another list) must resolve to an entry of the same file.

A table of facts, encoded by hand from sonic-net/sonic-buildimage ``src/sonic-yang-models/yang-models/<module>.yang``
(and ``yang-templates/sonic-acl.yang.j2``), read with the search tool's file reader and never copied: each row names
the module and the leaf it was read from. ``Y:`` = ``src/sonic-yang-models/yang-models/``; the commit is the version
the index held. References the template never renders (the ``vrf_name`` of INTERFACE, PORTCHANNEL_INTERFACE and
LOOPBACK_INTERFACE, PORT_QOS_MAP ``scheduler``) are named in the comments, not as rows: each row is exercised by a
rendered file and its negative control, and such a field, once rendered, is reported as a field in no row. Where a
module keeps a reference only as a comment (libyang back-links), the row says so and cites what makes the order
binding instead.

The telemetry tables (syslog, NTP, SNMP and its traps, sFlow, gNMI, counter polling) are rows too, and so
are the ``must`` conditions that name another table (``MUSTS``: a VRF ``mgmt`` needs MGMT_VRF_CONFIG's
mgmtVrfEnabled). SNMP_TRAP_CONFIG, which no YANG model has, is a row cited from its reader and its writer instead.
A table YANG models as containers (NTP, SFLOW, TELEMETRY, GNMI, FLEX_COUNTER_TABLE, MGMT_VRF_CONFIG) names its only
entries and their leaves.

Nothing is skipped: a table of the output that has no row in ``TABLES`` is a violation, and so is a field of a known
table that is neither a reference nor listed as a plain (non-reference) field. A new table or field must be looked up
and added here with its source before the check passes.
"""

from dataclasses import dataclass, field

__all__ = ('MUSTS', 'REFS', 'TABLES', 'Must', 'Ref', 'Table', 'violations')

PORT, PORTCHANNEL = 'PORT', 'PORTCHANNEL'


@dataclass(frozen=True)
class Ref:
    """One reference: ``at`` is ``key[i]`` (the i-th ``|`` part of the entry's key), ``field:<name>`` (a leaf or every
    item of a leaf-list) or ``names`` (every field name of the entry, for YANG lists inside an entry). The value must
    be a key (its first ``|`` part, or the whole key for a target ending in ``!``) of one of ``targets``, or one of
    ``allow`` (a target ``T#`` is the address part of ``T``'s ``name|address/len`` keys; no targets: ``allow`` is the
    leaf's whole pattern)."""

    table: str
    at: str
    targets: tuple[str, ...]
    source: str
    allow: tuple[str, ...] = ()


@dataclass(frozen=True)
class Must:
    """A ``must`` naming another table: an entry of ``table`` whose ``field`` is ``value`` needs the entry
    ``needs[0]|needs[1]`` of the file to have ``needs[2]`` = ``needs[3]``."""

    table: str
    field: str
    value: str
    needs: tuple[str, str, str, str]
    source: str


@dataclass(frozen=True)
class Table:
    """A table the template may render: its YANG module and the fields that are not references (``plain``; ``None``
    for a map table whose field names are values, like DSCP_TO_TC_MAP's DSCPs). A table YANG models as containers,
    not a list, has ``entries``: its only entry names, each with the leaves it has (the references among them too)."""

    module: str
    plain: frozenset[str] | None = field(default_factory=frozenset)
    entries: dict[str, frozenset[str]] | None = None


def _plain(*names: str) -> frozenset[str]:
    return frozenset(names)


REFS = (
    # Y:sonic-buffer-pg.yang @a3488c1a: BUFFER_PG_LIST leaf port (leafref PORT_LIST/name), leaf profile (union of a
    # leafref BUFFER_PROFILE_LIST/name and the string "NULL")
    Ref('BUFFER_PG', 'key[0]', (PORT,), 'sonic-buffer-pg.yang BUFFER_PG_LIST/port'),
    Ref('BUFFER_PG', 'field:profile', ('BUFFER_PROFILE',), 'sonic-buffer-pg.yang BUFFER_PG_LIST/profile', ('NULL',)),
    # Y:sonic-buffer-queue.yang @38d69e9b: BUFFER_QUEUE_LIST port (leafref PORT), profile (leafref BUFFER_PROFILE)
    Ref('BUFFER_QUEUE', 'key[0]', (PORT,), 'sonic-buffer-queue.yang BUFFER_QUEUE_LIST/port'),
    Ref('BUFFER_QUEUE', 'field:profile', ('BUFFER_PROFILE',), 'sonic-buffer-queue.yang BUFFER_QUEUE_LIST/profile'),
    # sonic-buffer-profile.yang (module imported by both above; not stored at Y: in the index, read in the search
    # excerpt of its BUFFER_PROFILE list): leaf pool, leafref BUFFER_POOL/name
    Ref('BUFFER_PROFILE', 'field:pool', ('BUFFER_POOL',), 'sonic-buffer-profile.yang BUFFER_PROFILE_LIST/pool'),
    # Y:sonic-cable-length.yang @9a8b7c00: inner list CABLE_LENGTH key port, leafref PORT_LIST/name
    Ref('CABLE_LENGTH', 'names', (PORT,), 'sonic-cable-length.yang CABLE_LENGTH_LIST/CABLE_LENGTH/port'),
    # Y:sonic-mgmt_interface.yang @5cfeac20: MGMT_INTERFACE_LIST leaf name, leafref MGMT_PORT_LIST/name
    Ref('MGMT_INTERFACE', 'key[0]', ('MGMT_PORT',), 'sonic-mgmt_interface.yang MGMT_INTERFACE_LIST/name'),
    # Y:sonic-vlan.yang @0bd5a1b8: VLAN_MEMBER_LIST name (leafref VLAN_LIST/name), port (union of leafrefs PORT and
    # PORTCHANNEL); VLAN_INTERFACE_LIST name (leafref VLAN), vrf_name (leafref VRF_LIST/name);
    # VLAN_INTERFACE_IPPREFIX_LIST name (leafref VLAN, must be in VLAN_INTERFACE_LIST)
    Ref('VLAN_MEMBER', 'key[0]', ('VLAN',), 'sonic-vlan.yang VLAN_MEMBER_LIST/name'),
    Ref('VLAN_MEMBER', 'key[1]', (PORT, PORTCHANNEL), 'sonic-vlan.yang VLAN_MEMBER_LIST/port'),
    Ref('VLAN_INTERFACE', 'key[0]', ('VLAN',), 'sonic-vlan.yang VLAN_INTERFACE_LIST/name'),
    Ref('VLAN_INTERFACE', 'key[0]', ('VLAN_INTERFACE!',), 'sonic-vlan.yang VLAN_INTERFACE_IPPREFIX_LIST/name must'),
    Ref('VLAN_INTERFACE', 'field:vrf_name', ('VRF',), 'sonic-vlan.yang VLAN_INTERFACE_LIST/vrf_name'),
    # Y:sonic-portchannel.yang @02ab3274: PORTCHANNEL_MEMBER_LIST name (leafref PORTCHANNEL_LIST/name), port (leafref
    # PORT); PORTCHANNEL_INTERFACE_LIST / _IPPREFIX_LIST name (leafref PORTCHANNEL), vrf_name (leafref VRF)
    Ref('PORTCHANNEL_MEMBER', 'key[0]', (PORTCHANNEL,), 'sonic-portchannel.yang PORTCHANNEL_MEMBER_LIST/name'),
    Ref('PORTCHANNEL_MEMBER', 'key[1]', (PORT,), 'sonic-portchannel.yang PORTCHANNEL_MEMBER_LIST/port'),
    Ref('PORTCHANNEL_INTERFACE', 'key[0]', (PORTCHANNEL,), 'sonic-portchannel.yang PORTCHANNEL_INTERFACE_LIST/name'),
    # Y:sonic-interface.yang @0459bc82: INTERFACE_LIST name (leafref PORT), vrf_name (leafref VRF);
    # INTERFACE_IPPREFIX_LIST name (leafref PORT, must be in INTERFACE_LIST)
    Ref('INTERFACE', 'key[0]', (PORT,), 'sonic-interface.yang INTERFACE_LIST/name'),
    Ref('INTERFACE', 'key[0]', ('INTERFACE!',), 'sonic-interface.yang INTERFACE_IPPREFIX_LIST/name must'),
    # Y:sonic-loopback-interface.yang @31cdb7de: LOOPBACK_INTERFACE_IPPREFIX_LIST name (leafref
    # ../../LOOPBACK_INTERFACE_LIST/name), LOOPBACK_INTERFACE_LIST vrf_name (leafref VRF)
    Ref('LOOPBACK_INTERFACE', 'key[0]', ('LOOPBACK_INTERFACE!',), 'sonic-loopback-interface.yang _IPPREFIX_LIST/name'),
    # Y:sonic-port-qos-map.yang @cef6bd26: PORT_QOS_MAP_LIST ifname (union "global" | leafref PORT) and the leafrefs
    # to each map list's name and to SCHEDULER_LIST/name
    Ref('PORT_QOS_MAP', 'key[0]', (PORT,), 'sonic-port-qos-map.yang PORT_QOS_MAP_LIST/ifname', ('global',)),
    Ref('PORT_QOS_MAP', 'field:dscp_to_tc_map', ('DSCP_TO_TC_MAP',), 'sonic-port-qos-map.yang dscp_to_tc_map'),
    Ref('PORT_QOS_MAP', 'field:tc_to_pg_map', ('TC_TO_PRIORITY_GROUP_MAP',), 'sonic-port-qos-map.yang tc_to_pg_map'),
    Ref('PORT_QOS_MAP', 'field:tc_to_queue_map', ('TC_TO_QUEUE_MAP',), 'sonic-port-qos-map.yang tc_to_queue_map'),
    Ref(
        'PORT_QOS_MAP',
        'field:pfc_to_queue_map',
        ('MAP_PFC_PRIORITY_TO_QUEUE',),
        'sonic-port-qos-map.yang pfc_to_queue_map',
    ),
    # Y:sonic-queue.yang @709ab091: QUEUE_LIST ifname (union leafref PORT | "CPU"), scheduler (leafref SCHEDULER),
    # wred_profile (leafref WRED_PROFILE)
    Ref('QUEUE', 'key[0]', (PORT,), 'sonic-queue.yang QUEUE_LIST/ifname', ('CPU',)),
    Ref('QUEUE', 'field:scheduler', ('SCHEDULER',), 'sonic-queue.yang QUEUE_LIST/scheduler'),
    Ref('QUEUE', 'field:wred_profile', ('WRED_PROFILE',), 'sonic-queue.yang QUEUE_LIST/wred_profile'),
    # Y:sonic-pfcwd.yang @9701fa53: PFC_WD_LIST ifname (union leafref PORT | "GLOBAL")
    Ref('PFC_WD', 'key[0]', (PORT,), 'sonic-pfcwd.yang PFC_WD_LIST/ifname', ('GLOBAL',)),
    # yang-templates/sonic-acl.yang.j2 @056a6387: ACL_RULE_LIST ACL_TABLE_NAME (leafref ACL_TABLE_LIST), ACL_TABLE_LIST
    # ports (leaf-list, union of leafrefs PORT and PORTCHANNEL and the empty string)
    Ref('ACL_RULE', 'key[0]', ('ACL_TABLE',), 'sonic-acl.yang.j2 ACL_RULE_LIST/ACL_TABLE_NAME'),
    Ref('ACL_TABLE', 'field:ports', (PORT, PORTCHANNEL), 'sonic-acl.yang.j2 ACL_TABLE_LIST/ports', ('',)),
    # Y:sonic-vxlan.yang @cde16485: VXLAN_TUNNEL_MAP_LIST name (leafref VXLAN_TUNNEL_LIST/name); VXLAN_EVPN_NVO_LIST
    # source_vtep (leafref VXLAN_TUNNEL); the map's vlan leafref is commented out (libyang back-links, a Vlan pattern
    # instead) but SONiC's EVPN HLD requires the VLAN before its map (nos-facts §7): kept as a reference here
    Ref('VXLAN_TUNNEL_MAP', 'key[0]', ('VXLAN_TUNNEL',), 'sonic-vxlan.yang VXLAN_TUNNEL_MAP_LIST/name'),
    Ref('VXLAN_TUNNEL_MAP', 'field:vlan', ('VLAN',), 'sonic-vxlan.yang VXLAN_TUNNEL_MAP_LIST/vlan (commented leafref)'),
    Ref('VXLAN_EVPN_NVO', 'field:source_vtep', ('VXLAN_TUNNEL',), 'sonic-vxlan.yang VXLAN_EVPN_NVO_LIST/source_vtep'),
    # Y:sonic-mclag.yang @9701fa53: MCLAG_DOMAIN_LIST peer_link (union leafrefs PORT, PORTCHANNEL); MCLAG_INTERFACE_LIST
    # domain_id (leafref MCLAG_DOMAIN_LIST/domain_id), if_name (leafref PORTCHANNEL); MCLAG_UNIQUE_IP_LIST if_name
    # (VLAN leafref commented out, a Vlan pattern; iccpd acts on an existing VLAN interface)
    Ref('MCLAG_DOMAIN', 'field:peer_link', (PORT, PORTCHANNEL), 'sonic-mclag.yang MCLAG_DOMAIN_LIST/peer_link'),
    Ref('MCLAG_INTERFACE', 'key[0]', ('MCLAG_DOMAIN',), 'sonic-mclag.yang MCLAG_INTERFACE_LIST/domain_id'),
    Ref('MCLAG_INTERFACE', 'key[1]', (PORTCHANNEL,), 'sonic-mclag.yang MCLAG_INTERFACE_LIST/if_name'),
    Ref('MCLAG_UNIQUE_IP', 'key[0]', ('VLAN',), 'sonic-mclag.yang MCLAG_UNIQUE_IP_LIST/if_name (commented leafref)'),
    # Y:sonic-device_neighbor.yang @a3488c1a: DEVICE_NEIGHBOR_LIST local_port, leafref PORT
    Ref('DEVICE_NEIGHBOR', 'field:local_port', (PORT,), 'sonic-device_neighbor.yang DEVICE_NEIGHBOR_LIST/local_port'),
    # Telemetry. Y:sonic-syslog.yang @455cd1c6: SYSLOG_SERVER_LIST vrf (union of a leafref VRF_LIST/name
    # and the enum default|mgmt; its must: see MUSTS); source an inet:ip-address (must: the server's family), no
    # leafref, but rsyslog binds it, so it must be an address the file gives the switch (MGMT_INTERFACE, a loopback)
    Ref('SYSLOG_SERVER', 'field:vrf', ('VRF',), 'sonic-syslog.yang SYSLOG_SERVER_LIST/vrf', ('default', 'mgmt')),
    Ref(
        'SYSLOG_SERVER',
        'field:source',
        ('MGMT_INTERFACE#', 'LOOPBACK_INTERFACE#'),
        'sonic-syslog.yang SYSLOG_SERVER_LIST/source (an own address)',
    ),
    # Y:sonic-ntp.yang @a3488c1a: NTP global vrf a pattern mgmt|default (must: MUSTS), no leafref; src_intf (leafrefs
    # PORT, PORTCHANNEL, LOOPBACK_INTERFACE, MGMT_PORT) and NTP_SERVER_LIST key (leafref NTP_KEY) are not rendered
    Ref('NTP', 'field:vrf', (), 'sonic-ntp.yang NTP/global/vrf (pattern)', ('default', 'mgmt')),
    # Y:sonic-sflow.yang @0cd29a1e: SFLOW_COLLECTOR_LIST collector_vrf a pattern mgmt|default (must: MUSTS);
    # SFLOW_SESSION_LIST port (union leafref PORT | "all"); SFLOW global agent_id (leafrefs PORT, PORTCHANNEL,
    # MGMT_PORT, LOOPBACK_INTERFACE) not rendered
    Ref(
        'SFLOW_COLLECTOR',
        'field:collector_vrf',
        (),
        'sonic-sflow.yang SFLOW_COLLECTOR_LIST/collector_vrf',
        ('default', 'mgmt'),
    ),
    Ref('SFLOW_SESSION', 'key[0]', (PORT,), 'sonic-sflow.yang SFLOW_SESSION_LIST/port', ('all',)),
    # SNMP traps: SNMP_TRAP_CONFIG has no YANG model (Y:sonic-snmp.yang @0c4a8a4e has SNMP, SNMP_COMMUNITY, SNMP_USER
    # and SNMP_AGENT_ADDRESS_CONFIG only); its reader is dockers/docker-snmp/snmpd.conf.j2 @0c4a8a4e (trapsink /
    # trap2sink <DestIp>:<DestPort>%<vrf> <Community>, the VRF part left out when vrf is the string 'None'), its
    # writer sonic-utilities config/main.py `config snmptrap modify` (vrf "mgmt/DataVrfName/None"): a data VRF must
    # be a VRF of the file
    Ref('SNMP_TRAP_CONFIG', 'field:vrf', ('VRF',), 'snmpd.conf.j2 SNMP_TRAP_CONFIG vrf', ('mgmt', 'None')),
)

# the musts that name another table: a VRF 'mgmt' needs the management VRF enabled (Y:sonic-mgmt_vrf.yang
# @965d8dbd: MGMT_VRF_CONFIG container vrf_global, leaf mgmtVrfEnabled, a boolean, default false)
_MGMT_VRF_ON = ('MGMT_VRF_CONFIG', 'vrf_global', 'mgmtVrfEnabled', 'true')
MUSTS = (
    Must('SYSLOG_SERVER', 'vrf', 'mgmt', _MGMT_VRF_ON, 'sonic-syslog.yang SYSLOG_SERVER_LIST/vrf must'),
    Must('NTP', 'vrf', 'mgmt', _MGMT_VRF_ON, 'sonic-ntp.yang NTP/global/vrf must'),
    Must('SFLOW_COLLECTOR', 'collector_vrf', 'mgmt', _MGMT_VRF_ON, 'sonic-sflow.yang collector_vrf must'),
    # no YANG must: snmpd binds the traps to the VRF device mgmt (``%mgmt``), which SONiC creates only with the
    # management VRF enabled (the must the other tables sending in VRF mgmt carry)
    Must('SNMP_TRAP_CONFIG', 'vrf', 'mgmt', _MGMT_VRF_ON, 'snmpd.conf.j2 SNMP_TRAP_CONFIG vrf %mgmt'),
)

# Y:sonic-flex_counter.yang @185f7f22: FLEX_COUNTER_TABLE is containers, one per counter group; every group has
# FLEX_COUNTER_STATUS and FLEX_COUNTER_DELAY_STATUS, most a POLL_INTERVAL (not DEBUG_COUNTER, PFCWD, PORT_RATES,
# RIF_RATES), some BULK_CHUNK_SIZE(_PER_PREFIX); no references
_FLEX = frozenset({'FLEX_COUNTER_STATUS', 'FLEX_COUNTER_DELAY_STATUS'})
_POLLED = _FLEX | {'POLL_INTERVAL'}
_BULK = _POLLED | {'BULK_CHUNK_SIZE', 'BULK_CHUNK_SIZE_PER_PREFIX'}
_FLEX_GROUPS = {
    **dict.fromkeys(('DEBUG_COUNTER', 'PFCWD', 'PORT_RATES', 'RIF_RATES'), _FLEX),
    **dict.fromkeys(('PG_DROP', 'PG_WATERMARK', 'PORT', 'PORT_BUFFER_DROP', 'QUEUE', 'QUEUE_WATERMARK'), _BULK),
    **dict.fromkeys(
        (
            'ACL',
            'BUFFER_POOL_WATERMARK',
            'DASH_METER',
            'ENI',
            'FLOW_CNT_ROUTE',
            'FLOW_CNT_TRAP',
            'HA_SET',
            'POLICER',
            'PORT_PHY_ATTR',
            'RIF',
            'SRV6',
            'SWITCH',
            'TUNNEL',
            'WRED_ECN_PORT',
            'WRED_ECN_QUEUE',
        ),
        _POLLED,
    ),
}
# Y:sonic-telemetry.yang @05f42c0b (TELEMETRY) and Y:sonic-gnmi.yang @02b13836 (GNMI): containers certs (ca_crt,
# server_crt, server_key: paths) and gnmi (booleans, port, log level, CRL); no references
_GNMI = {
    'certs': frozenset({'ca_crt', 'server_crt', 'server_key'}),
    'gnmi': frozenset(
        {'client_auth', 'crl_expire_duration', 'enable_crl', 'log_level', 'port', 'save_on_set', 'user_auth'}
    ),
}

TABLES = {
    # the tables without references among the fields the template renders, each with the module read
    'DEVICE_METADATA': Table(  # Y:sonic-device_metadata.yang: localhost leaves, none a leafref
        'sonic-device_metadata',
        _plain(
            'bgp_asn',
            'default_pfcwd_status',
            'docker_routing_config_mode',
            'hostname',
            'hwsku',
            'mac',
            'platform',
            'type',
        ),
    ),
    'MGMT_PORT': Table('sonic-mgmt_port', _plain('admin_status', 'alias')),  # Configuration.md MGMT_PORT
    'MGMT_VRF_CONFIG': Table(
        'sonic-mgmt_vrf', entries={'vrf_global': _plain('in_band_mgmt_enabled', 'mgmtVrfEnabled')}
    ),
    'MGMT_INTERFACE': Table('sonic-mgmt_interface', _plain('gwaddr')),
    # Y:sonic-snmp.yang @0c4a8a4e: SNMP_AGENT_ADDRESS_CONFIG key "agent_ip port vrf_name", vrf_name a pattern
    # ('' | mgmt | Vrf...), not a leafref
    'SNMP_AGENT_ADDRESS_CONFIG': Table('sonic-snmp'),
    'LOOPBACK_INTERFACE': Table('sonic-loopback-interface'),
    # Y:sonic-breakout_cfg.yang @9701fa53: port is a string, deliberately not a leafref (the parent may be absent)
    'BREAKOUT_CFG': Table('sonic-breakout_cfg', _plain('brkout_mode')),
    'PORT': Table('sonic-port', _plain('admin_status', 'alias', 'description', 'index', 'lanes', 'mtu', 'speed')),
    'INTERFACE': Table('sonic-interface'),
    'PORTCHANNEL': Table('sonic-portchannel', _plain('admin_status', 'description', 'lacp_key', 'min_links', 'mtu')),
    'PORTCHANNEL_MEMBER': Table('sonic-portchannel'),
    'PORTCHANNEL_INTERFACE': Table('sonic-portchannel'),
    'VLAN': Table('sonic-vlan', _plain('admin_status', 'description', 'mtu', 'vlanid')),
    'VLAN_MEMBER': Table('sonic-vlan', _plain('tagging_mode')),
    'VLAN_INTERFACE': Table('sonic-vlan', _plain('mac_addr')),
    'MCLAG_DOMAIN': Table('sonic-mclag', _plain('peer_ip', 'source_ip')),
    'MCLAG_UNIQUE_IP': Table('sonic-mclag', _plain('unique_ip')),
    'MCLAG_INTERFACE': Table('sonic-mclag', _plain('if_type')),
    'VXLAN_TUNNEL': Table('sonic-vxlan', _plain('src_ip')),
    'VXLAN_EVPN_NVO': Table('sonic-vxlan'),
    'VXLAN_TUNNEL_MAP': Table('sonic-vxlan', _plain('vni')),
    'VRF': Table('sonic-vrf', _plain('vni')),  # Y:sonic-vrf.yang @23c8d8f2: vni a uint32
    # Y:sonic-dscp-tc-map.yang, sonic-tc-queue-map.yang, sonic-tc-priority-group-map.yang,
    # sonic-pfc-priority-queue-map.yang: lists of (value -> value), no references
    'DSCP_TO_TC_MAP': Table('sonic-dscp-tc-map', None),
    'TC_TO_QUEUE_MAP': Table('sonic-tc-queue-map', None),
    'TC_TO_PRIORITY_GROUP_MAP': Table('sonic-tc-priority-group-map', None),
    'MAP_PFC_PRIORITY_TO_QUEUE': Table('sonic-pfc-priority-queue-map', None),
    'PORT_QOS_MAP': Table('sonic-port-qos-map', _plain('pfc_enable')),
    'WRED_PROFILE': Table(
        'sonic-wred-profile',
        _plain('ecn', 'green_drop_probability', 'green_max_threshold', 'green_min_threshold', 'wred_green_enable'),
    ),
    'SCHEDULER': Table('sonic-scheduler', _plain('type', 'weight')),
    'QUEUE': Table('sonic-queue'),
    'PFC_WD': Table('sonic-pfcwd', _plain('POLL_INTERVAL', 'action', 'detection_time', 'restoration_time')),
    'CABLE_LENGTH': Table('sonic-cable-length', frozenset()),
    # sonic-buffer-pool.yang (search excerpt): name, type, mode, size, xoff; no references
    'BUFFER_POOL': Table('sonic-buffer-pool', _plain('mode', 'size', 'type', 'xoff')),
    'BUFFER_PROFILE': Table(
        'sonic-buffer-profile', _plain('dynamic_th', 'size', 'static_th', 'xoff', 'xon', 'xon_offset')
    ),
    'BUFFER_PG': Table('sonic-buffer-pg'),
    'BUFFER_QUEUE': Table('sonic-buffer-queue'),
    'ACL_TABLE': Table('sonic-acl', _plain('policy_desc', 'services', 'stage', 'type')),
    'ACL_RULE': Table(
        'sonic-acl',
        _plain('DST_IP', 'ETHER_TYPE', 'IP_PROTOCOL', 'L4_DST_PORT', 'PACKET_ACTION', 'PRIORITY', 'SRC_IP', 'SRC_IPV6'),
    ),
    # sonic-bgp-neighbor.yang (tests/unit/templates/sonic_yang.py): asn, name, local_addr (an address), admin_status
    'BGP_NEIGHBOR': Table('sonic-bgp-neighbor', _plain('admin_status', 'asn', 'local_addr', 'name')),
    'DEVICE_NEIGHBOR': Table('sonic-device_neighbor', _plain('name', 'port')),
    # telemetry: the plain leaves of each list, read in the modules REFS cites
    'SYSLOG_SERVER': Table('sonic-syslog', _plain('filter', 'filter_regex', 'port', 'protocol', 'severity')),
    'NTP': Table(
        'sonic-ntp',
        entries={'global': _plain('admin_state', 'authentication', 'dhcp', 'server_role', 'src_intf', 'vrf')},
    ),
    'NTP_SERVER': Table(
        'sonic-ntp', _plain('admin_state', 'association_type', 'iburst', 'resolve_as', 'trusted', 'version')
    ),
    # Y:sonic-snmp.yang @0c4a8a4e: SNMP_COMMUNITY_LIST (TYPE) and SNMP_USER_LIST (type, permission, auth and
    # encryption type and password): strings and enums, no references
    'SNMP_COMMUNITY': Table('sonic-snmp', _plain('TYPE')),
    'SNMP_USER': Table(
        'sonic-snmp',
        _plain(
            'SNMP_USER_AUTH_PASSWORD',
            'SNMP_USER_AUTH_TYPE',
            'SNMP_USER_ENCRYPTION_PASSWORD',
            'SNMP_USER_ENCRYPTION_TYPE',
            'SNMP_USER_PERMISSION',
            'SNMP_USER_TYPE',
        ),
    ),
    'SFLOW': Table(
        'sonic-sflow', entries={'global': _plain('admin_state', 'agent_id', 'polling_interval', 'sample_direction')}
    ),
    'SFLOW_COLLECTOR': Table('sonic-sflow', _plain('collector_ip', 'collector_port')),
    'SFLOW_SESSION': Table('sonic-sflow', _plain('admin_state', 'sample_direction', 'sample_rate')),
    # no YANG (see REFS): one entry per SNMP version, the four fields snmpd.conf.j2 reads
    'SNMP_TRAP_CONFIG': Table(
        'no YANG model: docker-snmp snmpd.conf.j2',
        entries=dict.fromkeys(('v1TrapDest', 'v2TrapDest', 'v3TrapDest'), _plain('Community', 'DestIp', 'DestPort')),
    ),
    'TELEMETRY': Table('sonic-telemetry', entries=_GNMI),
    'GNMI': Table('sonic-gnmi', entries=_GNMI),
    'FLEX_COUNTER_TABLE': Table('sonic-flex_counter', entries=_FLEX_GROUPS),
}


def _names(db: dict, target: str) -> set[str]:
    if target.endswith('!'):  # the list's own entries: the keys without a '|' part
        return {key for key in db.get(target[:-1], {}) if '|' not in key}
    if target.endswith('#'):  # the addresses of a name|address/len list, without the length
        return {key.split('|')[1].split('/')[0] for key in db.get(target[:-1], {}) if '|' in key}
    return {key.split('|')[0] for key in db.get(target, {})}


def _values(ref: Ref, key: str, entry: dict) -> list[str]:
    """The values ``ref`` points with in one entry (none when the entry has no such part or field)."""
    if ref.at == 'names':
        return list(entry)
    if ref.at.startswith('key['):
        parts = key.split('|')
        index = int(ref.at[4:-1])
        # a self reference (the IPPREFIX list's name) only concerns keys that have an address part
        if ref.targets[0].endswith('!') and len(parts) == 1:
            return []
        return [parts[index]] if index < len(parts) else []
    value = entry.get(ref.at.removeprefix('field:'))
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _must_violations(db: dict) -> list[str]:
    found = []
    for must in MUSTS:
        table, key, leaf, value = must.needs
        for name, entry in db.get(must.table, {}).items():
            if entry.get(must.field) == must.value and db.get(table, {}).get(key, {}).get(leaf) != value:
                found.append(
                    f'{must.table}|{name}: {must.field} {must.value!r} needs {table}|{key} {leaf} {value!r} '
                    f'({must.source})'
                )
    return found


def _unknown_fields(table: str, spec: Table, key: str, entry: dict, referencing: set[str]) -> list[str]:
    """The fields of one entry that are neither a reference nor a plain leaf (for a container table: the entry
    itself when YANG has no such container)."""
    if spec.entries is not None:
        if key not in spec.entries:
            return [f'{table}|{key}: no such container in {spec.module}.yang']
        known = spec.entries[key]
    elif spec.plain is None:
        return []
    else:
        known = spec.plain
    return [
        f'{table}|{key}: field {name!r} is in no row of the table of references'
        for name in entry
        if name not in referencing and name not in known
    ]


def _dangling(table: str, refs: list[Ref], db: dict, key: str, entry: dict) -> list[str]:
    found = []
    for ref in refs:
        targets = set().union(*(_names(db, t) for t in ref.targets))
        for value in _values(ref, key, entry):
            if value not in targets and value not in ref.allow:
                where = '/'.join(ref.targets) or '|'.join(ref.allow)
                found.append(f'{table}|{key}: {ref.at} {value!r} is no entry of {where} ({ref.source})')
    return found


def violations(db: dict) -> list[str]:
    """Every reference of ``db`` that resolves to nothing in ``db``, every ``must`` of MUSTS it breaks, every table
    without a row and every field (or container) that is neither a reference nor a known plain field."""
    found = []
    refs_of: dict[str, list[Ref]] = {}
    for ref in REFS:
        refs_of.setdefault(ref.table, []).append(ref)
    for table, entries in db.items():
        spec = TABLES.get(table)
        if spec is None:
            found.append(f'{table}: no row in the table of references (sonic_refs.TABLES): look it up and add it')
            continue
        refs = refs_of.get(table, [])
        referencing = {ref.at.removeprefix('field:') for ref in refs if ref.at.startswith('field:')}
        names_ref = any(ref.at == 'names' for ref in refs)
        for key, entry in entries.items():
            found += _dangling(table, refs, db, key, entry)
            if not names_ref:
                found += _unknown_fields(table, spec, key, entry, referencing)
    return found + _must_violations(db)
