"""Plan → NetBox objects: the desired objects of a fabric, their diff against NetBox, and the atomic apply.

The desired objects are everything the plan implies: the fabric's tag, VLAN group and VLANs, the device types, roles
(the fabric's chosen ones or generic ones) and devices of its nodes, their loopbacks, LAGs and cabled interfaces (MTU,
LAG membership, VLAN modes on the leaves' server ports), the cables, leaf/spine ASNs, the /31 prefixes of uplinks and
MLAG peer links, the per-rack subnets of the routed classes (routed and MLAG designs), the loopback, VTEP and link
addresses on their interfaces (the loopback as primary IPv4), tenant VRFs with their route targets, and one VXLAN-EVPN
L2VPN per L2VNI with its VLAN termination.

Every object the apply creates is recorded as owned by the fabric (:class:`~netbox_aifabric.models.OwnedObject`)
and tagged; objects the fabric does not own are never changed. An object that already exists in NetBox where the
plan wants one of its own (a /31 or address in the pool used elsewhere, an ASN of the leaf range) is a conflict, and
an apply with conflicts writes nothing. Brownfield: the devices of adopted nodes, their existing interfaces and the
addresses already where the plan puts them are taken over (``adopt``): owned from then on, released but never
deleted on shrink; an adopted switch's router-id address is pinned when it lies in the loopback pool and is a
conflict when it does not.
"""

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import netaddr
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist
from django.db import connection, transaction

from dcim.models import Cable, Device, DeviceRole, DeviceType, Interface, InterfaceTemplate, Manufacturer
from extras.models import Tag
from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix, RouteTarget, VLANGroup
from netbox.constants import ADVISORY_LOCK_KEYS
from netbox.context import query_cache
from vpn.models import L2VPN, L2VPNTermination

from ..facts import PEER_LINK_LAG, cabling_facts, server_port_modes
from ..facts.context import CONTEXT_KEY, build_contexts
from ..intent import intent_of
from ..models import Fabric, OwnedObject
from ..planner import PlanError, plan_fabric
from .permissions import ObjectPermissions
from .spec import fabric_spec
from .writer import BulkWriter, full_collections_deferred

__all__ = ('ApplyConflictError', 'Change', 'apply_fabric', 'diff_fabric', 'plan_of', 'refresh_contexts')

ACTIONS = ('create', 'update', 'adopt', 'keep', 'use', 'delete', 'conflict')
DELETE_ORDER = (
    'l2vpn-termination',
    'l2vpn',
    'ip',
    'cable',
    'interface',
    'prefix',
    'vrf',
    'rt',
    'asn',
    'vlan',
    'vlan-group',
    'device',
    'device-type',
    'role',
    'manufacturer',
    'tag',
)
INTERFACE_TYPES = {
    1: '1000base-t',
    10: '10gbase-x-sfpp',
    25: '25gbase-x-sfp28',
    40: '40gbase-x-qsfpp',
    50: '50gbase-x-sfp56',
    100: '100gbase-x-qsfp28',
    200: '200gbase-x-qsfp56',
    400: '400gbase-x-qsfpdd',
    800: '800gbase-x-qsfpdd',
}
ROLES = {
    'spine': ('Spine', '2196f3'),
    'leaf': ('Leaf', '4caf50'),
    'gpu': ('GPU server', '9c27b0'),
    'storage': ('Storage server', 'ff9800'),
}


@dataclass(frozen=True)
class Ref:
    """A reference to another desired object, resolved to the NetBox object when applying."""

    key: str


@dataclass(frozen=True)
class JsonKey:
    """One key of a JSON field (a device's local context data): compared and set alone, other keys kept."""

    key: str
    data: dict

    def __str__(self):
        return f'{{{self.key!r}: {len(self.data)} entries}}'


@dataclass
class Desired:
    """One object the plan wants: where to look for an identical existing one, and its attribute values."""

    key: str
    model: type
    lookup: dict
    values: dict
    adoptable: bool = False  # an identical object owned by nobody may be used as it is (route targets, ASNs)
    reason: str = ''
    create_only: dict = field(default_factory=dict)  # set on creation, never compared afterwards (e.g. statuses)
    from_parent: bool = False  # may already exist, made by its owned parent (interfaces from a device type)
    attribute_of: str = ''  # not an object of its own: values set on the object desired under this key
    m2m: dict = field(default_factory=dict)  # many-to-many members, compared as sets: {'tagged_vlans': [Ref, …]}
    # Brownfield: an existing object found by the lookup that passes this check (existing, resolved values) is taken
    # over: owned from now on, updated like the fabric's own objects, but only released (never deleted) on shrink
    adopt: Callable | None = None


@dataclass
class Change:
    action: str
    key: str
    model: str
    object: str
    fields: dict = field(default_factory=dict)
    reason: str = ''
    pk: int | None = None  # the existing NetBox object's, when there is one (for view permissions)

    def to_dict(self) -> dict:
        return {
            'action': self.action,
            'key': self.key,
            'model': self.model,
            'object': self.object,
            'fields': self.fields,
            'reason': self.reason,
        }


class ApplyConflictError(Exception):
    """The plan collides with objects the fabric does not own; nothing was written."""

    def __init__(self, changes):
        self.changes = changes
        conflicts = [c for c in changes if c.action == 'conflict']
        super().__init__(
            f'{len(conflicts)} conflict(s): ' + '; '.join(f'{c.object}: {c.reason}' for c in conflicts[:5])
        )


def _label(model) -> str:
    return f'{model._meta.app_label}.{model._meta.model_name}'


def desired_objects(fabric: Fabric, plan) -> list[Desired]:
    """Every NetBox object the plan implies, in dependency order."""
    adopted = {n.name for n in fabric.planned_nodes()[0] if n.device_id}
    return [
        *_vlan_objects(fabric, plan),
        *_device_objects(fabric, plan),
        *_asn_objects(fabric, plan),
        *_loopback_addresses(plan, adopted),
        *_link_objects(plan, adopted),
        *_rack_subnets(fabric, plan),
        *_management_addresses(fabric, plan, adopted),
        *_device_attributes(fabric, plan),
        *_oob_objects(fabric, plan),
        *_vrf_objects(fabric, plan),
        *_l2vpn_objects(fabric, plan),
    ]


def _vlan_objects(fabric, plan):
    """The fabric's tag, its VLAN group and the plan's VLANs."""
    slug = fabric.slug
    yield Desired('tag', Tag, {'slug': f'aifabric-{slug}'}, {'name': f'AI fabric {fabric.name}'[:100]})
    yield Desired(
        'vlan-group',
        VLANGroup,
        {'slug': f'{slug}-vlans'},
        {'name': f'{fabric.name} VLANs'[:100], 'description': f'VLANs of AI fabric {fabric.name}'},
    )
    for vlan in plan.vlans:
        yield Desired(
            f'vlan:{vlan.vid}',
            VLAN,
            {'group': Ref('vlan-group'), 'vid': vlan.vid},
            {'name': vlan.name, 'status': 'active'},
        )


def _asn_objects(fabric, plan):
    """The nodes' ASNs: one of the leaf range is the fabric's own, any other (the spines') may be used as it is."""
    asn_range = fabric.leaf_asn_range
    for asn in sorted({n.asn for n in plan.nodes if n.asn is not None}):
        in_range = asn_range is not None and asn_range.start <= asn <= asn_range.end
        rir = asn_range.rir if asn_range else None
        if rir is None:
            continue
        yield Desired(
            f'asn:{asn}',
            ASN,
            {'asn': asn},
            # the number too: an owned ASN is found by its record, so a number changed by hand is a difference
            {'asn': asn, 'rir': rir, 'description': f'AI fabric {fabric.name}'},
            adoptable=not in_range,
            reason='an ASN of the leaf range is already used elsewhere in NetBox' if in_range else '',
        )


def _loopback_addresses(plan, adopted):
    """Each node's router-id loopback address, and the leaves' VTEP address (one per MLAG pair)."""
    for node in plan.nodes:
        yield Desired(
            f'ip:loopback:{node.role}:{node.id}',
            IPAddress,
            {'address__net_host': node.loopback.split('/')[0], 'vrf': None},
            {
                'address': node.loopback,
                'status': 'active',
                'role': 'loopback',
                'description': f'{node.name} router id',
                **_on(f'interface:{node.name}:Loopback0'),
            },
            adopt=_same_assignment if node.name in adopted else None,
            reason='the loopback address is already used elsewhere in NetBox',
        )
        if node.vtep and node.mlag_role != 'secondary':
            yield Desired(
                f'ip:vtep:leaf:{node.id}',
                IPAddress,
                {'address__net_host': node.vtep.split('/')[0], 'vrf': None},
                {
                    'address': node.vtep,
                    'status': 'active',
                    'role': 'anycast' if node.mlag_peer else 'loopback',
                    'description': f'{node.name} VTEP' + (f' (shared with {node.mlag_peer})' if node.mlag_peer else ''),
                    **_on(f'interface:{node.name}:Loopback1'),
                },
                reason='the VTEP address is already used elsewhere in NetBox',
            )


def _link_objects(plan, adopted):
    """The /31 of each numbered link (uplinks, MLAG peer links) and the addresses of its two ends."""
    for link in plan.links:
        if not link.subnet:
            continue
        name = f'{link.a_node} {link.a_interface} — {link.b_node} {link.b_interface}'
        key = f'{link.kind}:{link.a_node}:{link.a_interface}'
        yield Desired(
            f'prefix:{key}',
            Prefix,
            {'prefix': link.subnet, 'vrf': None},
            {'prefix': link.subnet, 'status': 'active', 'description': name[:200]},  # a /31 changed by hand differs
            reason='the /31 is already used elsewhere in NetBox',
        )
        for end, address, node, interface in (
            ('a', link.a_address, link.a_node, link.a_interface),
            ('b', link.b_address, link.b_node, link.b_interface),
        ):
            yield Desired(
                f'ip:{key}:{end}',
                IPAddress,
                {'address__net_host': address.split('/')[0], 'vrf': None},
                {
                    'address': address,
                    'status': 'active',
                    'role': None,
                    'description': f'{node} {interface}',
                    **_on(f'interface:{node}:{PEER_LINK_LAG if link.kind == "mlag-peer" else interface}'),
                },
                adopt=_same_assignment if node in adopted else None,
                reason='the link address is already used elsewhere in NetBox',
            )


def _device_attributes(fabric, plan):
    """Values set on the devices: the loopback as primary IPv4, the ``aifabric`` context (local context data)."""
    for node in plan.nodes:
        yield Desired(
            f'primary-ip:{node.name}',
            Device,
            {},
            {'primary_ip4': Ref(f'ip:loopback:{node.role}:{node.id}')},
            attribute_of=f'device:{node.name}',
        )
    contexts = build_contexts(plan, intent_of(fabric))
    for name in sorted(contexts):
        yield Desired(
            f'context:{name}',
            Device,
            {},
            {'local_context_data': JsonKey(CONTEXT_KEY, contexts[name])},
            attribute_of=f'device:{name}',
        )


def _oob_objects(fabric, plan):
    """The management network the plan cables (``plan.oob``, when the fabric chooses a management switch type): the
    management switches (planned devices of that type, role "AI fabric management switch"), each server's BMC port
    and each switch's management port cabled to its port, the BMC and management-switch addresses (MGMT subnet) on
    their ports and as the devices' out-of-band IPs."""
    oob = plan.oob
    if oob is None or fabric.management_device_type is None:
        return
    device_type = fabric.management_device_type
    templates = dict(InterfaceTemplate.objects.filter(device_type=device_type).values_list('name', 'type'))
    own_port = InterfaceTemplate.objects.filter(device_type=device_type, mgmt_only=True).order_by('name').first()
    yield Desired(
        'role:management', DeviceRole, {'slug': 'ai-fabric-management'}, {}, adoptable=True,
        create_only={'name': 'AI fabric management switch', 'color': '607d8b'},
    )  # fmt: skip
    for switch in oob.switches:
        values = {'device_type': device_type, 'role': Ref('role:management')}
        if fabric.rack is not None:
            values['rack'] = fabric.rack
        yield Desired(
            f'device:{switch.name}', Device, {'site': fabric.site, 'name': switch.name}, values,
            create_only={'status': 'planned'},
            reason='a device with this name already exists in the site (not owned by the fabric)',
        )  # fmt: skip
        if switch.address and own_port is not None:
            yield Desired(
                f'interface:{switch.name}:{own_port.name}', Interface,
                {'device': Ref(f'device:{switch.name}'), 'name': own_port.name},
                {'type': own_port.type, 'mgmt_only': True, 'description': 'management (out of band)'},
                from_parent=True,
            )  # fmt: skip
            yield from _oob_address(switch.name, own_port.name, switch.address, 'management (out of band)')
    ports = management_interfaces(fabric)
    roles = {n.name: n.role for n in plan.nodes}
    for link in oob.links:
        yield from _oob_link(link, link.device_interface or ports[roles[link.device]], templates)


def _oob_link(link, interface, templates):
    """One management cable: the management switch's port, the device's BMC (or its management port when no
    management address made it already), the BMC's address, the cable."""
    port = f'interface:{link.switch}:{link.interface}'
    end = f'interface:{link.device}:{interface}'
    yield Desired(
        port, Interface, {'device': Ref(f'device:{link.switch}'), 'name': link.interface},
        {'type': templates.get(link.interface, '1000base-t'), 'description': f'{link.device} {interface}'[:200]},
        from_parent=True,
    )  # fmt: skip
    if link.kind == 'bmc' or link.address is None:  # a switch with an address has it (_interface_table)
        description = 'BMC (out of band)' if link.kind == 'bmc' else 'management (out of band)'
        yield Desired(
            end, Interface, {'device': Ref(f'device:{link.device}'), 'name': interface},
            {'type': '1000base-t', 'mgmt_only': True, 'description': description}, from_parent=True,
        )  # fmt: skip
    if link.kind == 'bmc' and link.address:
        yield from _oob_address(link.device, interface, link.address, 'BMC')
    yield Desired(
        f'cable:{link.switch}:{link.interface}:{link.device}:{interface}', Cable,
        {'terminations__termination_type': ContentType.objects.get_for_model(Interface),
         'terminations__termination_id': Ref(port)},
        {},
        create_only={'a_terminations': [Ref(port)], 'b_terminations': [Ref(end)], 'status': 'planned'},
        reason='the management switch port is already cabled',
    )  # fmt: skip


def _oob_address(device, interface, address, what):
    """An address on a management network port, and the device's out-of-band IP."""
    key = f'ip:oob:{device}'
    yield Desired(
        key, IPAddress, {'address__net_host': address.split('/')[0], 'vrf': None},
        {'address': address, 'status': 'active', 'role': None, 'description': f'{device} {what}'[:200],
         **_on(f'interface:{device}:{interface}')},
        reason='the address is already used elsewhere in NetBox',
    )  # fmt: skip
    yield Desired(f'oob-ip:{device}', Device, {}, {'oob_ip': Ref(key)}, attribute_of=f'device:{device}')


def _vrf_objects(fabric, plan):
    """The tenant VRFs' route targets (used when they exist) and the VRFs the fabric makes (not the tenants' own)."""
    for vrf in plan.vrfs:
        yield Desired(
            f'rt:{vrf.route_target}',
            RouteTarget,
            {'name': vrf.route_target},
            {'description': f'{vrf.name} (L3VNI {vrf.l3vni})'},
            adoptable=True,
        )
    user_vrfs = {t.vrf.name for t in fabric.tenants.all().select_related('vrf') if t.vrf is not None}
    for vrf in plan.vrfs:
        if vrf.name in user_vrfs:
            continue  # the tenant's own VRF: used as it is
        yield Desired(
            f'vrf:{vrf.name}',
            VRF,
            {'name': vrf.name},
            {'enforce_unique': True, 'description': f'AI fabric {fabric.name}: L3VNI {vrf.l3vni}'[:200]},
            m2m={'import_targets': [Ref(f'rt:{vrf.route_target}')], 'export_targets': [Ref(f'rt:{vrf.route_target}')]},
            reason='a VRF with this name already exists elsewhere in NetBox',
        )


def _l2vpn_objects(fabric, plan):
    """One VXLAN-EVPN L2VPN per L2VNI, terminated on its VLAN."""
    for vlan in plan.vlans:
        if vlan.l2vni is None:
            continue
        yield Desired(
            f'l2vpn:{vlan.l2vni}',
            L2VPN,
            {'slug': f'{fabric.slug}-vni-{vlan.l2vni}'},
            {
                'name': f'{fabric.name} VNI {vlan.l2vni} ({vlan.name})'[:100],
                'type': 'vxlan-evpn',
                'identifier': vlan.l2vni,
                'status': 'active',
            },
            reason='an L2VPN with this slug already exists elsewhere in NetBox',
        )
        yield Desired(
            f'l2vpn-termination:{vlan.l2vni}',
            L2VPNTermination,
            {
                'l2vpn': Ref(f'l2vpn:{vlan.l2vni}'),
                'assigned_object_type': ContentType.objects.get_for_model(VLAN),
                'assigned_object_id': Ref(f'vlan:{vlan.vid}'),
            },
            {},
            reason='the VLAN is already terminated on another L2VPN',
        )


def _rack_subnets(fabric, plan):
    """The routed and MLAG designs' per-rack subnets of each routed class: a prefix each, in the VRF of the class's
    prefix (their parent), assigned to the class's VLAN of the fabric."""
    vrf_of = {
        tc.vid: tc.prefix.vrf
        for tc in fabric.traffic_classes.select_related('prefix__vrf')
        if tc.vid is not None and tc.prefix is not None
    }
    for vlan in plan.vlans:
        for rack in vlan.racks:
            yield Desired(
                f'prefix:subnet:{vlan.vid}:rack:{rack.rack}',
                Prefix,
                {'prefix': rack.subnet, 'vrf': vrf_of.get(vlan.vid)},
                {
                    'status': 'active',
                    'vlan': Ref(f'vlan:{vlan.vid}'),
                    'description': f'{vlan.name} of rack {", ".join(rack.leaves)} (gateway {rack.gateway})'[:200],
                },
                reason='the rack subnet is already used elsewhere in NetBox',
            )


def _lag_description(lag, on_server: bool) -> str:
    """A LAG's NetBox description: the MLAG peer link, a server's bond to its leaves, a leaf's bond toward a server."""
    if lag.peer_link:
        return 'MLAG peer link'
    return 'bond to the leaves' if on_server else f'{lag.peer_device} bond'


def _on(interface_key):
    """IP address values assigning it to the interface desired under ``interface_key``."""
    return {
        'assigned_object_type': ContentType.objects.get_for_model(Interface),
        'assigned_object_id': Ref(interface_key),
    }


def _any(existing, values):
    return True


def _same_assignment(existing, values):
    """An address may be taken over where it already sits on the interface the plan puts it on."""
    return (
        existing.assigned_object_type_id == values['assigned_object_type'].pk
        and existing.assigned_object_id == values['assigned_object_id']
    )


MANAGEMENT_INTERFACE = 'mgmt0'  # a switch's management port when its device type names none (mgmt only)


def management_interfaces(fabric) -> dict[str, str]:
    """``{role: interface name}`` of the switches' management port: the first management-only interface of the
    role's device type (``Management1``, ``eth0``… as the device type library names it), else ``mgmt0``."""
    names = {}
    for role, device_type in (('spine', fabric.spine_device_type), ('leaf', fabric.leaf_device_type)):
        template = None
        if device_type is not None:
            template = (
                InterfaceTemplate.objects.filter(device_type=device_type, mgmt_only=True).order_by('name').first()
            )
        names[role] = template.name if template is not None else MANAGEMENT_INTERFACE
    return names


def _management_addresses(fabric, plan, adopted):
    """Each switch's management address on its management port (an IPAddress) and as the device's out-of-band IP."""
    ports = management_interfaces(fabric)
    for node in plan.nodes:
        if not node.management:
            continue
        key = f'ip:mgmt:{node.role}:{node.id}'
        yield Desired(
            key,
            IPAddress,
            {'address__net_host': node.management.split('/')[0], 'vrf': None},
            {
                'address': node.management,
                'status': 'active',
                'role': None,
                'description': f'{node.name} management'[:200],
                **_on(f'interface:{node.name}:{ports[node.role]}'),
            },
            adopt=_same_assignment if node.name in adopted else None,
            reason='the management address is already used elsewhere in NetBox',
        )
        yield Desired(f'oob-ip:{node.name}', Device, {}, {'oob_ip': Ref(key)}, attribute_of=f'device:{node.name}')


def _device_objects(fabric, plan):
    """Manufacturer, device types and roles (the fabric's chosen ones, or generic ones created or used), then per
    node its device (or the adopted device), loopbacks, LAGs and cabled interfaces, then the cables. New devices start
    as planned; switch interfaces take the fabric MTU; the leaves' server ports carry the servers' VLANs."""
    chosen_type = {
        'spine': fabric.spine_device_type,
        'leaf': fabric.leaf_device_type,
        'gpu': fabric.server_device_type,
        'storage': fabric.server_device_type,
    }
    chosen_role = {
        'spine': fabric.spine_role,
        'leaf': fabric.leaf_role,
        'gpu': fabric.server_role,
        'storage': fabric.storage_role,
    }
    items = list(_type_and_role_objects(chosen_type, chosen_role))
    nodes = {n.name: n for n in fabric.planned_nodes()[0]}
    devices = [(n.name, n.role, 'switch') for n in plan.nodes] + [
        (a.server, a.kind, 'server') for a in plan.attachments
    ]
    interfaces, management_ports = _interface_table(fabric, plan, devices)
    vlan_modes = server_port_modes(plan)
    # a port of the device type keeps its template's type (a 1G BMC on a 25G SFP28 port is still an SFP28 port)
    template_types = {
        role: dict(InterfaceTemplate.objects.filter(device_type=chosen_type[role]).values_list('name', 'type'))
        for role in ('spine', 'leaf')
        if chosen_type[role] is not None
    }
    for name, role, kind in devices:
        node = nodes.get(name)
        adopted = node.device if node is not None else None
        items.append(_device_item(fabric, name, role, kind, adopted, chosen_type, chosen_role))
        ordered = sorted(interfaces[name].items(), key=lambda item: (item[1][0] != 'virtual', item[1][0] != 'lag'))
        for interface, (kind_, lag, description) in ordered:
            values = {
                'lag': Ref(f'interface:{name}:{lag}') if lag else None,
                'mtu': fabric.mtu if kind == 'switch' and kind_ != 'virtual' else None,
                'description': description[:200],
            }
            if (name, interface) in management_ports:
                values['mgmt_only'] = True
            m2m = {}
            if (name, interface) in vlan_modes:
                mode, untagged, tagged = vlan_modes[name, interface]
                values['mode'] = mode
                values['untagged_vlan'] = Ref(f'vlan:{untagged}') if untagged else None
                m2m['tagged_vlans'] = [Ref(f'vlan:{vid}') for vid in tagged]
            type_ = {'type': template_types.get(role, {}).get(interface, kind_) if kind == 'switch' else kind_}
            items.append(
                Desired(
                    f'interface:{name}:{interface}',
                    Interface,
                    {'device': Ref(f'device:{name}'), 'name': interface},
                    values if adopted else {**type_, **values},
                    create_only=type_ if adopted else {},
                    m2m=m2m,
                    from_parent=True,
                    adopt=_any if adopted else None,
                    reason='an interface with this name already exists on the device',
                )
            )
    items.extend(_cable_objects(plan))
    return items


def _type_and_role_objects(chosen_type, chosen_role):
    """The generic manufacturer, device types and roles, for the roles without a chosen one (created or used)."""
    generic_types = {('switch' if r in ('spine', 'leaf') else 'server') for r, t in chosen_type.items() if t is None}
    if generic_types:
        yield Desired(
            'manufacturer',
            Manufacturer,
            {'slug': 'ai-fabric-generic'},
            {},
            adoptable=True,
            create_only={'name': 'AI fabric generic'},
        )
    for kind, model in (('switch', 'AI fabric switch'), ('server', 'AI fabric server')):
        if kind not in generic_types:
            continue
        yield Desired(
            f'device-type:{kind}',
            DeviceType,
            {'slug': f'ai-fabric-{kind}'},
            {},
            adoptable=True,
            create_only={'manufacturer': Ref('manufacturer'), 'model': model, 'u_height': 1},
        )
    for role, (name, color) in ROLES.items():
        if role in chosen_role and chosen_role[role] is not None:
            continue
        yield Desired(
            f'role:{role}',
            DeviceRole,
            {'slug': f'ai-fabric-{role}'},
            {},
            adoptable=True,
            create_only={'name': f'AI fabric {name.lower()}', 'color': color},
        )


def _interface_table(fabric, plan, devices):
    """``({device: {interface name: (type, LAG, description)}}, {(device, management port)})``: loopbacks and
    management ports of the switches, then ports, LAGs and memberships from the cabling facts the contexts are built
    from (one truth for names)."""
    kinds = {a.server: a.kind for a in plan.attachments}
    interfaces = {name: {} for name, _, _ in devices}
    management_ports = set()
    ports = management_interfaces(fabric)
    for node in plan.nodes:
        interfaces[node.name]['Loopback0'] = ('virtual', None, 'router id')
        if node.management:
            interfaces[node.name][ports[node.role]] = ('1000base-t', None, 'management (out of band)')
            management_ports.add((node.name, ports[node.role]))
        if node.vtep and node.mlag_role != 'secondary':
            interfaces[node.name]['Loopback1'] = ('virtual', None, 'VTEP')
    for device, cabling in cabling_facts(plan).items():
        for lag in cabling.lags:
            interfaces[device][lag.name] = ('lag', None, _lag_description(lag, device in kinds))
        for port in cabling.ports:
            interfaces[device][port.name] = (INTERFACE_TYPES.get(port.speed, 'other'), port.lag, port.description)
    return interfaces, management_ports


def _device_item(fabric, name, role, kind, adopted, chosen_type, chosen_role):
    """The device of a node or server: the adopted one as it is, else a new one (planned) of its type and role."""
    if adopted is not None:
        return Desired(f'device:{name}', Device, {'pk': adopted.pk}, {}, adopt=_any, reason='the adopted device')
    values = {
        'device_type': chosen_type.get(role) or Ref(f'device-type:{kind}'),
        'role': chosen_role.get(role) or Ref(f'role:{role}'),
    }
    if kind == 'switch':
        values['platform'] = (role == 'spine' and fabric.spine_platform) or fabric.platform
    if fabric.rack is not None:
        values['rack'] = fabric.rack
    return Desired(
        f'device:{name}',
        Device,
        {'site': fabric.site, 'name': name},
        values,
        create_only={'status': 'planned'},
        reason='a device with this name already exists in the site (not owned by the fabric)',
    )


def _cable_objects(plan):
    """One cable per link, found by its A end, created planned."""
    interface_type = ContentType.objects.get_for_model(Interface)
    for link in plan.links:
        a, b = f'interface:{link.a_node}:{link.a_interface}', f'interface:{link.b_node}:{link.b_interface}'
        yield Desired(
            f'cable:{link.a_node}:{link.a_interface}:{link.b_node}:{link.b_interface}',
            Cable,
            {'terminations__termination_type': interface_type, 'terminations__termination_id': Ref(a)},
            {},
            create_only={'a_terminations': [Ref(a)], 'b_terminations': [Ref(b)], 'status': 'planned'},
            reason='the interface is already cabled',
        )


def _resolve(value, objects):
    if isinstance(value, list):
        return [_resolve(v, objects) for v in value]
    return objects.get(value.key) if isinstance(value, Ref) else value


def _resolved(mapping, objects):
    out = {}
    for name, value in mapping.items():
        obj = _resolve(value, objects)
        if isinstance(value, Ref) and name.endswith('_id'):
            obj = obj.pk if obj is not None else None
        out[name] = obj
    return out


def _comparable(value):
    return value.pk if hasattr(value, 'pk') else (str(value) if value is not None else None)


def _shown(value):
    """A value as the diff shows it: objects by their name, everything else as JSON-friendly text."""
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return str(value) if value is not None and not isinstance(value, int | bool) else value


def _current(obj, name):
    """The comparable current value of ``obj.<name>``; foreign keys by their id, so nothing is loaded."""
    field = obj._meta.get_field(name) if name in {f.name for f in obj._meta.concrete_fields} else None
    if field is not None and field.is_relation:
        return getattr(obj, field.attname)
    return _comparable(getattr(obj, name))


def _differs(obj, name, value):
    if isinstance(value, JsonKey):
        return (getattr(obj, name) or {}).get(value.key) != value.data
    return _current(obj, name) != _comparable(value)


def _set(obj, name, value):
    if isinstance(value, JsonKey):
        value = {**(getattr(obj, name) or {}), value.key: value.data}
    setattr(obj, name, value)


def _differences(obj, values, m2m=None):
    """``{field: new value}`` for the values (and many-to-many members) ``obj`` does not have yet."""
    diff = {name: _shown(value) for name, value in values.items() if _differs(obj, name, value)}
    for name, members in (m2m or {}).items():
        current = {member.pk for member in getattr(obj, name).all()} if obj.pk else set()  # prefetched
        if current != {_comparable(m) for m in members}:
            # a None member is one this apply creates first (a new class's VLAN on an existing bond)
            diff[name] = sorted((_shown(m) for m in members), key=lambda v: (v is None, str(v)))
    return diff


def _m2m_resolved(item, objects):
    return {name: [_resolve(ref, objects) for ref in refs] for name, refs in item.m2m.items()}


def _compute(fabric, desired, confirm_delete, conflicts=(), adopted=None):
    """(changes, owned records by key, owned objects by key) without writing anything; ``adopted``, when given,
    receives the existing objects an adoption takes over, by key."""
    owned, owned_objects = _owned_of(fabric, desired)
    wanted = {item.key for item in desired}
    # Owned objects the plan no longer wants, by (model, id): a new object in their place replaces them
    leaving = {
        (record.object_type.model_class(), record.object_id): key for key, record in owned.items() if key not in wanted
    }
    objects, changes = {}, list(conflicts)
    for item in desired:
        lookup = _resolved(item.lookup, objects)
        values = _resolved(item.values, objects)
        label = _label(item.model)
        if item.attribute_of:
            target = objects.get(item.attribute_of)
            diff = _differences(target, values) if target is not None else {k: _shown(v) for k, v in values.items()}
            changes.append(Change('update' if diff else 'keep', item.key, label, item.attribute_of, diff))
            continue
        m2m = _m2m_resolved(item, objects)
        obj = owned_objects.get(item.key)
        if obj is not None:
            objects[item.key] = obj
            diff = _differences(obj, values, m2m)
            changes.append(Change('update' if diff else 'keep', item.key, label, str(obj), diff, pk=obj.pk))
            continue
        changes.append(
            _unowned_change(item, lookup, values, m2m, objects, owned_objects, leaving, confirm_delete, adopted)
        )

    deletions = [key for key in owned if key not in wanted]
    for key in sorted(deletions):
        record = owned[key]
        obj = owned_objects.get(key)
        changes.append(
            Change(
                'delete',
                key,
                f'{record.object_type.app_label}.{record.object_type.model}',
                str(obj) if obj is not None else f'#{record.object_id}',
                reason=('released (adopted, not deleted)' if record.adopted else '')
                if confirm_delete
                else 'kept until the apply confirms deletions',
                pk=record.object_id,
            )
        )
    return changes, owned, owned_objects


def _owned_of(fabric, desired):
    """The fabric's ownership records by key, and the objects they point at by key (read per type, many-to-many
    members prefetched: the query count does not grow with the fabric)."""
    owned = {o.key: o for o in OwnedObject.objects.filter(fabric=fabric).select_related('object_type')}
    owned_objects = {}
    by_type = {}
    for record in owned.values():
        by_type.setdefault(record.object_type, []).append(record)
    m2m_names = {}
    for item in desired:
        m2m_names.setdefault(item.model, set()).update(item.m2m)
    for object_type, records in by_type.items():
        model = object_type.model_class()
        queryset = model.objects.prefetch_related(*sorted(m2m_names.get(model, ())))
        if model is L2VPNTermination:  # its str() names its VLAN and L2VPN: read with it, not one query per VLAN
            queryset = queryset.select_related('l2vpn').prefetch_related('assigned_object')
        instances = queryset.in_bulk([r.object_id for r in records])
        for record in records:
            if record.object_id in instances:
                owned_objects[record.key] = instances[record.object_id]
    return owned, owned_objects


def _unowned_change(item, lookup, values, m2m, objects, owned_objects, leaving, confirm_delete, adopted):
    """The change for a desired object the fabric does not own yet: made by its owned parent, a conflict, an
    adoption, an existing object used as it is, or a create. Records the object it resolves to in ``objects``."""
    label = _label(item.model)
    unresolved = any(v is None for k, v in lookup.items() if isinstance(item.lookup.get(k), Ref))
    existing = None if unresolved else item.model.objects.filter(**lookup).first()
    parent_owned = item.from_parent and all(
        k not in item.lookup or not isinstance(item.lookup[k], Ref) or item.lookup[k].key in owned_objects
        for k in item.lookup
    )
    if existing is not None and parent_owned:
        objects[item.key] = existing
        return Change('create', item.key, label, str(existing), reason='made by its device', pk=existing.pk)
    replaced = leaving.get((item.model, existing.pk)) if existing is not None else None
    if replaced is not None and not confirm_delete:
        return Change(
            'conflict',
            item.key,
            label,
            str(existing),
            reason=f'held by {replaced}, which the plan no longer has: confirm deletions to replace it',
            pk=existing.pk,
        )
    if replaced is not None:
        existing = None  # deleted before the new object is created
    if existing is not None and item.adopt is not None and item.adopt(existing, values):
        objects[item.key] = existing
        if adopted is not None:
            adopted[item.key] = existing
        diff = _differences(existing, values, m2m)
        return Change(
            'adopt', item.key, label, str(existing), diff, reason='existing object taken over', pk=existing.pk
        )
    if existing is not None:
        if item.adoptable and not _differences(existing, {k: v for k, v in values.items() if k != 'description'}):
            objects[item.key] = existing
            return Change('use', item.key, label, str(existing), reason='existing object, not owned', pk=existing.pk)
        return Change('conflict', item.key, label, str(existing), reason=item.reason, pk=existing.pk)
    taken = _unique_taken(item.model, {k: v for k, v in values.items() if k not in item.lookup})
    if taken is not None and not (confirm_delete and (item.model, taken[0].pk) in leaving):
        holder, name = taken
        return Change(
            'conflict',
            item.key,
            label,
            str(holder),
            reason=f'its {name} "{values[name]}" is taken by an object the fabric does not own here',
            pk=holder.pk,
        )
    create_only = _resolved(item.create_only, objects)
    fields = {k: _shown(v) for k, v in {**lookup, **values, **create_only}.items() if '__' not in k}
    fields.update({name: [ref.key for ref in refs] for name, refs in item.m2m.items()})
    objects[item.key] = None
    return Change('create', item.key, label, _display(item, lookup, values), fields)


def _unique_taken(model, values):
    """``(object, field)`` when an existing object already holds a unique value (other than the lookup) that a new
    object would take, e.g. a tag or L2VPN of the same name made outside the fabric: its creation would fail NetBox's
    validation, a 500 in the middle of the apply. ``None`` otherwise."""
    for name, value in values.items():
        if '__' in name or not isinstance(value, str | int) or isinstance(value, bool):
            continue
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        if field.unique and not field.primary_key:
            holder = model.objects.filter(**{name: value}).first()
            if holder is not None:
                return holder, name
    return None


def _display(item, lookup, values):
    for name in ('address', 'prefix', 'name', 'asn', 'vid'):
        if name in values:
            return str(values[name])
        if name in lookup:
            return str(lookup[name])
    return item.key


def _lock(fabric):
    """Serialize applies of one fabric, and with NetBox's own available-* allocations, until the transaction ends."""
    Fabric.objects.select_for_update().get(pk=fabric.pk)
    with connection.cursor() as cursor:
        for name in ('available-asns', 'available-prefixes', 'available-ips', 'available-vlans'):
            cursor.execute('SELECT pg_advisory_xact_lock(%s)', [ADVISORY_LOCK_KEYS[name]])


def summarize(changes) -> dict:
    """``{model: {action: count}}``."""
    counts = Counter((c.model, c.action) for c in changes)
    summary = {}
    for (model, action), n in sorted(counts.items()):
        summary.setdefault(model, dict.fromkeys(ACTIONS, 0))[action] = n
    return summary


def _adoption(fabric):
    """Pins and conflicts of adopted devices: a switch's existing router-id address (its primary IPv4, else the
    address on Loopback0) is kept when it lies in the loopback pool and is a conflict when it does not."""
    pins, conflicts = {}, []
    pool = netaddr.IPNetwork(str(fabric.loopback_pool.prefix)) if fabric.loopback_pool else None
    applied = fabric.applied_pins()
    for node in fabric.nodes.filter(device__isnull=False).select_related('device__primary_ip4'):
        if not node.is_switch:
            continue
        key = f'loopback:{node.group}:{node.node_id}'
        if key in applied:
            continue
        address = node.device.primary_ip4
        if address is None:
            address = IPAddress.objects.filter(
                assigned_object_type=ContentType.objects.get_for_model(Interface),
                assigned_object_id__in=Interface.objects.filter(device=node.device, name='Loopback0').values('pk'),
            ).first()
        if address is None:
            continue
        host = netaddr.IPNetwork(str(address.address)).ip
        if pool is not None and host in pool:
            pins[key] = f'{host}/32'
        else:
            conflicts.append(
                Change(
                    'conflict',
                    f'adopt:{node.name}',
                    _label(Device),
                    node.name,
                    reason=f'its router-id address {address} is outside the loopback pool {pool}',
                )
            )
    return pins, conflicts


def plan_of(fabric):
    """The plan an apply would use: the last apply's allocations and adopted loopbacks pinned."""
    return _plan(fabric)[0]


def _plan(fabric):
    pins, conflicts = _adoption(fabric)
    previous = {**pins, **fabric.applied_pins()}
    return plan_fabric(fabric_spec(fabric), previous=previous or None), conflicts


def diff_fabric(fabric: Fabric, confirm_delete: bool = False):
    """The plan and the changes an apply would make, without writing anything: ``(plan, changes)``."""
    plan, conflicts = _plan(fabric)
    changes, _, _ = _compute(fabric, desired_objects(fabric, plan), confirm_delete, conflicts)
    return plan, changes


def _set_m2m(obj, item, objects, changed):
    for name, members in _m2m_resolved(item, objects).items():
        if name in changed and members:
            getattr(obj, name).set(members)
        elif name in changed:
            getattr(obj, name).clear()


PROGRESS_EVERY = 50  # objects between two progress reports


def apply_fabric(
    fabric: Fabric, confirm_delete: bool = False, progress: Callable | None = None, user=None, per_object=False
):
    """Apply the fabric's plan in one transaction: create and update owned objects, delete (when confirmed) owned
    objects the plan no longer has. Raises :class:`ApplyConflictError` (and writes nothing) on any conflict.

    ``progress(done, total, model)``, when given, is called before the first write, every ``PROGRESS_EVERY`` objects
    written and at the end (``done`` counts the creates, updates, adoptions and deletions done so far).

    ``user``, when given, must be allowed each write by the constraints of its ObjectPermissions, as in NetBox's own
    views: every object changed or deleted before the write, every object created or changed after it (inside the
    transaction); else :class:`~netbox_aifabric.apply.permissions.ObjectPermissionError` and nothing is written.

    New objects of :data:`~.writer.BULK_MODELS` are written by the bulk writer (:mod:`~.writer`), with NetBox's side
    effects produced explicitly. ``per_object=True`` writes every object with one ``save()`` instead: the reference
    the equivalence oracle (``tests/integration/test_apply_equivalence.py``) holds the bulk writer equal to, not a
    product path.

    Returns:
        ``(plan, changes)`` as :func:`diff_fabric`.
    """
    # NetBox caches custom fields and object types per request (and job); give a shell or script apply the same
    cache_token = query_cache.set(defaultdict(dict)) if query_cache.get() is None else None
    try:
        with full_collections_deferred():
            return _apply(fabric, confirm_delete, progress, user, per_object)
    finally:
        if cache_token is not None:
            query_cache.reset(cache_token)


def _before_writes(permissions, desired, changes, owned, owned_objects, adopted, confirm_delete):
    """The objects the apply will change or delete, as they are before it, into ``permissions``."""
    by_key = {c.key: c for c in changes}
    for item in desired:
        change = by_key[item.key]
        if change.action not in ('update', 'adopt'):
            continue
        key = item.attribute_of or item.key
        permissions.add(owned_objects.get(key) or adopted.get(key), 'change')  # None: created by this apply
    if confirm_delete:
        for change in changes:
            if change.action == 'delete' and not owned[change.key].adopted:
                permissions.add(owned_objects.get(change.key), 'delete')


@dataclass
class _Run:
    """The state of one apply's writes: the changes by key, the objects written or used so far, progress."""

    fabric: Fabric
    changes: list
    owned: dict
    owned_objects: dict
    permissions: ObjectPermissions
    progress: Callable | None
    writer: BulkWriter | None = None  # None: one save() per object (the equivalence oracle's reference)
    objects: dict = field(default_factory=dict)
    tag: Tag | None = None
    done: int = 0
    total: int = 0
    components: dict = field(default_factory=dict)  # device pk -> {interface name: interface} (bulk path)

    def __post_init__(self):
        self.by_key = {c.key: c for c in self.changes}

    def report(self, model=''):
        if self.progress is not None:
            self.progress(self.done, self.total, model)

    def tick(self, model):
        self.done += 1
        if self.done % PROGRESS_EVERY == 0:
            self.report(model)

    def own(self, item, obj, adopted=False):
        OwnedObject.objects.create(
            fabric=self.fabric,
            key=item.key,
            object_type=ContentType.objects.get_for_model(item.model),
            object_id=obj.pk,
            adopted=adopted,
        )


def _apply(fabric, confirm_delete, progress, user=None, per_object=False):
    permissions = ObjectPermissions(user)
    with transaction.atomic():
        _lock(fabric)
        fabric.refresh_from_db()
        fabric.sync_nodes()  # fabrics written without save() (bulk) get their nodes here
        plan, conflicts = _plan(fabric)
        desired = desired_objects(fabric, plan)
        adopted = {}
        changes, owned, owned_objects = _compute(fabric, desired, confirm_delete, conflicts, adopted)
        if any(c.action == 'conflict' for c in changes):
            raise ApplyConflictError(changes)
        _before_writes(permissions, desired, changes, owned, owned_objects, adopted, confirm_delete)
        permissions.check()
        run = _Run(fabric, changes, owned, owned_objects, permissions, progress)
        if not per_object:
            run.writer = BulkWriter(fabric, permissions)
        run.total = sum(
            c.action in ('create', 'update', 'adopt') or (c.action == 'delete' and confirm_delete) for c in changes
        )
        run.report()
        if confirm_delete:
            _delete_owned(run)
        _write(run, desired)
        permissions.check()  # after the writes, inside the transaction: a violation rolls everything back
        run.report()
        record = fabric.applied_record(plan.allocations)
        if fabric.applied_allocations != record:
            Fabric.objects.filter(pk=fabric.pk).update(applied_allocations=record)
            fabric.applied_allocations = record
    return plan, changes


def _delete_owned(run):
    """Deletions first (dependents before what they depend on), so replacements find their place free."""
    deletions = sorted(
        (c for c in run.changes if c.action == 'delete'),
        key=lambda c: (
            DELETE_ORDER.index(c.key.split(':', 1)[0]) if c.key.split(':', 1)[0] in DELETE_ORDER else len(DELETE_ORDER),
            c.key,
        ),
    )
    for change in deletions:
        record = run.owned[change.key]
        # Fetched afresh: an earlier deletion may have changed it (a removed cable) or taken it along
        obj = record.object_type.model_class().objects.filter(pk=record.object_id).first()
        if obj is not None and not record.adopted:
            obj.snapshot()
            obj.delete()
        record.delete()
        run.tick(change.model)


def _write(run, desired):
    """Every create, update and adoption of the plan. The per-object path writes in the plan's order; the bulk path
    in dependency levels (what nothing refers to first), flushing its staged objects before anything refers to them."""
    items = desired if run.writer is None else _by_level(desired)
    for item in items:
        change = run.by_key[item.key]
        later = item.attribute_of and change.action == 'update' and _set_later(run, item)
        if not later and run.writer is not None and (item.attribute_of or any(map(run.writer.is_staged, _refs(item)))):
            run.writer.flush()  # before anything refers to a staged object, and before a device's own save
        if change.action in ('create', 'update', 'adopt'):
            run.tick(change.model)
        if item.attribute_of:
            if change.action == 'update' and not later:
                _write_attribute(run, item)
        elif change.action in ('keep', 'use'):
            run.objects[item.key] = run.owned_objects.get(item.key) or item.model.objects.get(
                **_resolved(item.lookup, run.objects)
            )
        elif change.action in ('update', 'adopt'):
            _write_existing(run, item, change)
        elif change.action == 'create':
            _write_create(run, item)
        if item.key == 'tag':
            run.tag = run.objects[item.key]
            if run.writer is not None:
                run.writer.tag = run.tag
    if run.writer is not None:
        run.writer.flush()


def _refs(item):
    """The keys of the desired objects ``item`` refers to (its lookup, values, many-to-many members, its target)."""
    keys = [item.attribute_of] if item.attribute_of else []
    for mapping in (item.lookup, item.values, item.create_only):
        for value in mapping.values():
            for member in value if isinstance(value, list) else [value]:
                if isinstance(member, Ref):
                    keys.append(member.key)
    keys.extend(ref.key for refs in item.m2m.values() for ref in refs)
    return keys


def _by_level(desired):
    """``desired`` ordered by dependency level (0: refers to no desired object; n: to ones of level < n), the plan's
    order kept within a level: all devices, then all LAGs, then all member ports … so the bulk writer's batches are
    whole families of objects. Values set on a device (its IPs, its context) come last, as in the plan: its save
    records its component counts, which must include every interface of the apply."""
    level = {}
    for item in desired:
        level[item.key] = 1 + max((level[key] for key in _refs(item) if key in level), default=-1)
    last = max(level.values(), default=0) + 1
    return sorted(desired, key=lambda item: last if item.attribute_of else level[item.key])


def _set_later(run, item):
    """Values for an object the bulk writer created, handed to it (set at its next flush); False otherwise."""
    if run.writer is None:
        return False
    values = _resolved(item.values, run.objects)

    def assign(obj):
        for name, value in values.items():
            _set(obj, name, value)
        return values.keys()

    return run.writer.set_later(item.attribute_of, assign)


def _write_attribute(run, item):
    """Values set on an object desired under another key (a device's primary and out-of-band IPs, its context)."""
    target = run.objects[item.attribute_of]
    target.refresh_from_db()  # its own save in this apply may be newer than this instance
    target.snapshot()
    for name, value in _resolved(item.values, run.objects).items():
        _set(target, name, value)
    target.full_clean()
    target.save()
    run.permissions.add(target, 'change')


def _write_existing(run, item, change):
    """An owned object brought up to date, or an existing one adopted (owned and tagged from now on)."""
    obj = run.owned_objects.get(item.key) or item.model.objects.get(**_resolved(item.lookup, run.objects))
    if change.fields:
        obj.snapshot()
        for name, value in _resolved(item.values, run.objects).items():
            _set(obj, name, value)
        obj.full_clean()
        obj.save()
        _set_m2m(obj, item, run.objects, change.fields)
    run.permissions.add(obj, 'change')
    if change.action == 'adopt':
        if run.tag is not None and hasattr(obj, 'tags'):
            obj.tags.add(run.tag)
        run.own(item, obj, adopted=True)
    run.objects[item.key] = obj


def _write_create(run, item):
    """A new object: staged for the bulk writer where its model allows, else saved (with its tag and ownership)."""
    if item.key in run.owned:  # owned before, deleted outside the plugin since: recreate it
        run.owned[item.key].delete()
    attrs = {
        k: v
        for k, v in _resolved({**item.lookup, **item.values, **item.create_only}, run.objects).items()
        if '__' not in k
    }
    existing = _made_by_parent(run, item) if item.from_parent else None
    if existing is None and run.writer is not None and run.writer.accepts(item.model, attrs):
        obj = item.model(**attrs)
        run.writer.stage(item.key, obj, _m2m_resolved(item, run.objects))
        run.objects[item.key] = obj
        return
    if existing is not None:  # made by its (owned) parent just now: take it over
        obj = existing
        obj.snapshot()
        for name, value in attrs.items():
            setattr(obj, name, value)
    else:
        obj = item.model(**attrs)
    obj.full_clean()
    obj.save()
    _set_m2m(obj, item, run.objects, item.m2m)
    if run.tag is not None and hasattr(obj, 'tags'):
        obj.tags.add(run.tag)
    run.permissions.add(obj, 'add')
    run.own(item, obj)
    run.objects[item.key] = obj


def _made_by_parent(run, item):
    """The object its (owned) parent made (an interface of the device type's templates), or None. The bulk path
    reads a device's interfaces once, the per-object path looks each one up."""
    lookup = _resolved(item.lookup, run.objects)
    if run.writer is None or item.model is not Interface:
        return item.model.objects.filter(**lookup).first()
    device = lookup['device']
    if device.pk not in run.components:
        run.components[device.pk] = {i.name: i for i in Interface.objects.filter(device=device)}
    return run.components[device.pk].get(lookup['name'])


def refresh_contexts(fabric: Fabric) -> int:
    """Bring the ``aifabric`` context of every device the fabric owns up to date with its current intent (QoS
    profile, traffic classes, tenants, fabric settings), without an apply. Devices the plan does not have yet are left
    to the next apply. Returns the number of devices updated; an intent the planner rejects updates nothing."""
    records = {
        r.key[len('device:') :]: r.object_id
        for r in OwnedObject.objects.filter(fabric=fabric, key__startswith='device:')
    }
    if not records:
        return 0
    try:
        plan = plan_of(fabric)
    except PlanError:
        return 0
    contexts = build_contexts(plan, intent_of(fabric))
    updated = 0
    for device in Device.objects.filter(pk__in=records.values()).order_by('pk'):
        context = contexts.get(device.name)
        if context is None or (device.local_context_data or {}).get(CONTEXT_KEY) == context:
            continue
        device.snapshot()
        device.local_context_data = {**(device.local_context_data or {}), CONTEXT_KEY: context}
        device.save()
        updated += 1
    return updated
