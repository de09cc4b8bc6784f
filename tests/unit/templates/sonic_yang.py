"""The config_db tables, keys, fields and value types the SONiC template renders, as SONiC's YANG models define them.

Encoded by hand from sonic-net/sonic-buildimage ``src/sonic-yang-models/yang-models/<module>.yang`` (read with the
search tool's file reader; the YANG text is not copied here): each table names its module, the key pattern (the YANG
list's keys joined by ``|``, as config_db writes them) and, per field, the YANG type as a check on the string config_db
holds. Only what the template uses is encoded: a field the template does not render is absent, so a new one must be
looked up and added here with its source. Leafrefs are checked as the names they point at (a port, a VLAN, a VRF…);
whether the object exists is the tests' job, not this map's.

``UNREAD`` lists the tables whose YANG module was not re-read for this map (their fields come from the template's
existing sources, cited in templates/README.md): the walker accepts their fields without a type check and says so.
"""

import ipaddress
import re
from dataclasses import dataclass, field

__all__ = ('TABLES', 'UNREAD', 'violations')

PORT = r'Ethernet\d+'
PORTCHANNEL = r'PortChannel[0-9]{1,4}'  # sonic-portchannel.yang PORTCHANNEL_LIST name pattern
VLAN = r'Vlan(409[0-5]|40[0-8][0-9]|[1-3][0-9]{3}|[1-9][0-9]{2}|[1-9][0-9]|[2-9])'  # sonic-vlan.yang VLAN_LIST name
VRF = r'Vrf[a-zA-Z0-9_-]+'  # sonic-vrf.yang VRF_LIST name
MAP_NAME = r'[a-zA-Z0-9]([-a-zA-Z0-9_]{0,31})'  # the *_MAP and WRED_PROFILE name pattern


def pattern(regex):
    return lambda v: re.fullmatch(regex, v) is not None


def enum(*values):
    return lambda v: v in values


def uint(low, high):
    return lambda v: v.isdigit() and low <= int(v) <= high


def ip_address(v):
    try:
        ipaddress.ip_address(v)
    except ValueError:
        return False
    return True


def ip_prefix(v):
    try:
        ipaddress.ip_interface(v)
    except ValueError:
        return False
    return '/' in v


def string(low=0, high=None):
    return lambda v: isinstance(v, str) and low <= len(v) <= (high or len(v))


BOOLEAN = enum('true', 'false')
ADMIN_STATUS = enum('up', 'down')  # sonic-types.yang admin_status
TC = uint(0, 15)  # sonic-types.yang tc_type


@dataclass
class Table:
    module: str
    key: str  # regex of the whole config_db key
    fields: dict = field(default_factory=dict)  # field name -> check
    dynamic: tuple | None = None  # (regex of a field name, check of its value): YANG lists inside an entry
    mandatory: tuple = ()  # fields YANG marks `mandatory true`


TABLES = {
    # sonic-breakout_cfg.yang: BREAKOUT_CFG_LIST key port (string 1..255, the parent port), brkout_mode string 1..64
    # (checked against the platform's platform.json by SONiC, not by YANG)
    'BREAKOUT_CFG': Table('sonic-breakout_cfg', rf'{PORT}', {'brkout_mode': string(1, 64)}),
    # sonic-port.yang: PORT_LIST key name (string 1..128); lanes string 1..128 `mandatory true` (but on chassis/VOQ
    # devices), speed uint32 1..1600000 mandatory, mtu uint16 68..9216, alias string 1..128, index uint16,
    # description string 0..255, admin_status stypes:admin_status
    'PORT': Table(
        'sonic-port',
        PORT,
        {
            'admin_status': ADMIN_STATUS,
            'alias': string(1, 128),
            'index': uint(0, 65535),
            'lanes': string(1, 128),
            'description': string(0, 255),
            'mtu': uint(68, 9216),
            'speed': uint(1, 1600000),
        },
        mandatory=('lanes', 'speed'),
    ),
    # sonic-mgmt_vrf.yang: container vrf_global, leaf mgmtVrfEnabled boolean
    'MGMT_VRF_CONFIG': Table('sonic-mgmt_vrf', 'vrf_global', {'mgmtVrfEnabled': BOOLEAN}),
    # sonic-mgmt_interface.yang: key "name ip_prefix", gwaddr inet:ip-address
    'MGMT_INTERFACE': Table('sonic-mgmt_interface', r'eth0\|[0-9.]+/\d+', {'gwaddr': ip_address}),
    # sonic-loopback-interface.yang: LOOPBACK_INTERFACE_LIST (name) and _IPPREFIX_LIST (name ip-prefix)
    'LOOPBACK_INTERFACE': Table('sonic-loopback-interface', r'Loopback\d+(\|[0-9.]+/\d+)?'),
    # sonic-interface.yang: INTERFACE_LIST (name: leafref PORT) and INTERFACE_IPPREFIX_LIST (name ip-prefix)
    'INTERFACE': Table('sonic-interface', rf'{PORT}(\|[0-9.]+/\d+)?'),
    # sonic-portchannel.yang
    'PORTCHANNEL': Table(
        'sonic-portchannel',
        PORTCHANNEL,
        {
            'admin_status': ADMIN_STATUS,  # mandatory
            'description': string(1, 255),
            'lacp_key': lambda v: v == 'auto' or uint(1, 65535)(v),
            'min_links': uint(1, 1024),
            'mtu': uint(1, 9216),
        },
    ),
    'PORTCHANNEL_MEMBER': Table('sonic-portchannel', rf'{PORTCHANNEL}\|{PORT}'),
    'PORTCHANNEL_INTERFACE': Table('sonic-portchannel', rf'{PORTCHANNEL}(\|[0-9.]+/\d+)?'),
    # sonic-vlan.yang
    'VLAN': Table(
        'sonic-vlan',
        VLAN,
        {
            'admin_status': ADMIN_STATUS,
            'description': string(1, 255),
            'mtu': uint(1, 9216),
            'vlanid': uint(2, 4094),  # must equal the name's number (checked in violations)
        },
    ),
    'VLAN_MEMBER': Table(
        'sonic-vlan',
        rf'{VLAN}\|({PORT}|{PORTCHANNEL})',
        {'tagging_mode': enum('tagged', 'untagged', 'priority_tagged')},
    ),
    'VLAN_INTERFACE': Table(
        'sonic-vlan',
        rf'{VLAN}(\|[0-9.]+/\d+)?',
        {'vrf_name': pattern(VRF), 'mac_addr': pattern(r'([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}')},
    ),
    # sonic-mclag.yang
    'MCLAG_DOMAIN': Table(
        'sonic-mclag',
        r'[0-9]+',
        {'source_ip': ip_address, 'peer_ip': ip_address, 'peer_link': pattern(rf'{PORT}|{PORTCHANNEL}')},
    ),
    'MCLAG_UNIQUE_IP': Table('sonic-mclag', VLAN, {'unique_ip': enum('enable')}),
    'MCLAG_INTERFACE': Table('sonic-mclag', rf'[0-9]+\|{PORTCHANNEL}', {'if_type': string()}),
    # sonic-vrf.yang: vni uint32 0..16777215
    'VRF': Table('sonic-vrf', VRF, {'vni': uint(0, 16777215)}),
    # sonic-vxlan.yang
    'VXLAN_TUNNEL': Table('sonic-vxlan', r'[^|]+', {'src_ip': ip_address}),
    'VXLAN_EVPN_NVO': Table('sonic-vxlan', r'[^|]+', {'source_vtep': string(1)}),
    'VXLAN_TUNNEL_MAP': Table(
        'sonic-vxlan',
        r'[^|]+\|[^|]+',
        {'vlan': pattern(r'Vlan([0-9]{1,3}|[1-3][0-9]{3}|[4][0][0-8][0-9]|[4][0][9][0-4])'), 'vni': uint(1, 16777215)},
    ),  # sonic-types.yang vnid_type 1..16777215
    # sonic-dscp-tc-map.yang: list DSCP_TO_TC_MAP (dscp pattern) -> tc tc_type
    'DSCP_TO_TC_MAP': Table('sonic-dscp-tc-map', MAP_NAME, dynamic=(r'6[0-3]|[1-5][0-9]?|[0-9]?', TC)),
    # sonic-tc-queue-map.yang: tc -> qindex "[0-9]?"
    'TC_TO_QUEUE_MAP': Table('sonic-tc-queue-map', MAP_NAME, dynamic=(r'1[0-5]|[0-9]', pattern(r'[0-9]?'))),
    # sonic-tc-priority-group-map.yang: tc -> pg "[0-7]?"
    'TC_TO_PRIORITY_GROUP_MAP': Table(
        'sonic-tc-priority-group-map', MAP_NAME, dynamic=(r'1[0-5]|[0-9]', pattern(r'[0-7]?'))
    ),
    # sonic-pfc-priority-queue-map.yang: pfc_priority "[0-7]?" -> qindex "[0-7]?"
    'MAP_PFC_PRIORITY_TO_QUEUE': Table(
        'sonic-pfc-priority-queue-map', MAP_NAME, dynamic=(r'[0-7]?', pattern(r'[0-7]?'))
    ),
    # sonic-port-qos-map.yang
    'PORT_QOS_MAP': Table(
        'sonic-port-qos-map',
        rf'{PORT}|global',
        {
            'dscp_to_tc_map': pattern(MAP_NAME),
            'tc_to_pg_map': pattern(MAP_NAME),
            'tc_to_queue_map': pattern(MAP_NAME),
            'pfc_to_queue_map': pattern(MAP_NAME),
            'pfc_enable': pattern(r'([0-7](,[0-7])*)?'),
        },
    ),
    # sonic-wred-profile.yang
    'WRED_PROFILE': Table(
        'sonic-wred-profile',
        MAP_NAME,
        {
            'ecn': enum(
                'ecn_none',
                'ecn_green',
                'ecn_yellow',
                'ecn_red',
                'ecn_green_yellow',
                'ecn_green_red',
                'ecn_yellow_red',
                'ecn_all',
            ),
            'wred_green_enable': BOOLEAN,
            'green_min_threshold': uint(0, 2**64 - 1),
            'green_max_threshold': uint(0, 2**64 - 1),
            'green_drop_probability': uint(0, 100),
        },
    ),
    # sonic-scheduler.yang: type DWRR|WRR|STRICT, weight uint8 1..100
    'SCHEDULER': Table('sonic-scheduler', r'[^|]+', {'type': enum('DWRR', 'WRR', 'STRICT'), 'weight': uint(1, 100)}),
    # sonic-queue.yang: key "ifname qindex", scheduler / wred_profile leafrefs
    'QUEUE': Table('sonic-queue', rf'{PORT}\|[0-9]+(-[0-9]+)?', {'scheduler': string(1), 'wred_profile': string(1)}),
    # sonic-pfcwd.yang: per port action/detection_time (100..5000)/restoration_time (100..60000); GLOBAL POLL_INTERVAL
    'PFC_WD': Table(
        'sonic-pfcwd',
        rf'{PORT}|GLOBAL',
        {
            'action': enum('drop', 'forward', 'alert'),
            'detection_time': uint(100, 5000),
            'restoration_time': uint(100, 60000),
            'POLL_INTERVAL': uint(100, 1000),
        },
    ),
    # sonic-cable-length.yang: list name pattern, inner list port -> length '[0-9]+m|None'
    'CABLE_LENGTH': Table('sonic-cable-length', MAP_NAME, dynamic=(PORT, pattern(r'[0-9]+m|None'))),
    # sonic-buffer-pg.yang: key "port pg_num" (pg_num "[0-7]((-)[0-7])?"), profile leafref BUFFER_PROFILE or "NULL"
    'BUFFER_PG': Table('sonic-buffer-pg', rf'{PORT}\|[0-7](-[0-7])?', {'profile': string(1)}),
    # sonic-buffer-queue.yang: key "port qindex" ("(1[0-5]|[0-9])((-)(1[0-5]|[0-9]))?"), profile leafref
    'BUFFER_QUEUE': Table('sonic-buffer-queue', rf'{PORT}\|(1[0-5]|[0-9])(-(1[0-5]|[0-9]))?', {'profile': string(1)}),
    # sonic-buffer-pool.yang (search excerpt of its BUFFER_POOL_LIST): type ingress|egress, mode static|dynamic,
    # size uint64, xoff (the shared headroom) uint64
    'BUFFER_POOL': Table(
        'sonic-buffer-pool',
        r'[^|]+',
        {
            'type': enum('ingress', 'egress'),
            'mode': enum('static', 'dynamic'),
            'size': uint(0, 2**64 - 1),
            'xoff': uint(0, 2**64 - 1),
        },
    ),
    # sonic-buffer-profile.yang (search excerpt of its BUFFER_PROFILE list): pool (leafref BUFFER_POOL: resolved by
    # sonic_refs.py), size/xon/xoff/xon_offset/static_th uint64, dynamic_th int64
    'BUFFER_PROFILE': Table(
        'sonic-buffer-profile',
        r'[^|]+',
        {
            'pool': string(1),
            'size': uint(0, 2**64 - 1),
            'xon': uint(0, 2**64 - 1),
            'xoff': uint(0, 2**64 - 1),
            'xon_offset': uint(0, 2**64 - 1),
            'static_th': uint(0, 2**64 - 1),
            'dynamic_th': pattern(r'-?[0-9]+'),
        },
    ),
    # sonic-device_neighbor.yang: key peer_name; name/port string 1..255, local_port leafref PORT
    'DEVICE_NEIGHBOR': Table(
        'sonic-device_neighbor',
        r'.{1,255}',
        {'name': string(1, 255), 'port': string(1, 255), 'local_port': pattern(PORT)},
    ),
    # sonic-bgp-neighbor.yang BGP_NEIGHBOR_TEMPLATE_LIST (key neighbor: an address) with sonic-bgp-common.yang's
    # leaves: asn uint32 1..4294967295, name string, local_addr inet:ip-address, admin_status
    'BGP_NEIGHBOR': Table(
        'sonic-bgp-neighbor',
        r'[0-9.]+',
        {'asn': uint(1, 4294967295), 'name': string(), 'local_addr': ip_address, 'admin_status': ADMIN_STATUS},
    ),
}

# Tables the template renders whose YANG module was not re-read for this map (see the module docstring): sonic-port
# (PORT), sonic-device_metadata (DEVICE_METADATA), sonic-snmp (SNMP_AGENT_ADDRESS_CONFIG), sonic-acl.yang.j2
# (ACL_TABLE, ACL_RULE), sonic-mgmt_port (MGMT_PORT: not in the index; its fields from Configuration.md).
UNREAD = {'DEVICE_METADATA', 'SNMP_AGENT_ADDRESS_CONFIG', 'ACL_TABLE', 'ACL_RULE', 'MGMT_PORT'}


def violations(db: dict) -> list[str]:
    """Every table, key, field or value of a rendered config_db that the map above does not allow."""
    found = []
    for table, entries in db.items():
        if table in UNREAD:
            continue
        spec = TABLES.get(table)
        if spec is None:
            found.append(f'{table}: no such table in the encoded YANG map')
            continue
        for key, entry in entries.items():
            if not re.fullmatch(spec.key, key):
                found.append(f'{table}|{key}: key does not match {spec.key} ({spec.module})')
            if not isinstance(entry, dict):
                found.append(f'{table}|{key}: not an object')
                continue
            found += [
                f'{table}|{key}: {name} is mandatory ({spec.module})' for name in spec.mandatory if name not in entry
            ]
            for name, value in entry.items():
                if spec.dynamic:
                    name_pattern, check = spec.dynamic
                    if not re.fullmatch(name_pattern, name):
                        found.append(f'{table}|{key}: {name!r} is not a {name_pattern} entry ({spec.module})')
                elif name not in spec.fields:
                    found.append(f'{table}|{key}: field {name!r} is not in {spec.module}')
                    continue
                else:
                    check = spec.fields[name]
                if not isinstance(value, str) or not check(value):
                    found.append(f'{table}|{key}: {name} = {value!r} has the wrong type ({spec.module})')
            if table == 'VLAN' and entry.get('vlanid') and key != f'Vlan{entry["vlanid"]}':
                found.append(f"{table}|{key}: vlanid {entry['vlanid']} is not the name's ({spec.module} must)")
    return found
