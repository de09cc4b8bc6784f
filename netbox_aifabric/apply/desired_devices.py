"""The desired devices of a plan: device types and roles (the fabric's chosen ones or generic ones), the devices of its
nodes with their loopbacks, LAGs and cabled interfaces (MTU, LAG membership, VLAN modes on the leaves' server ports),
the cables, the management network's switch, ports and cables, and the context and attributes each device carries."""

from django.contrib.contenttypes.models import ContentType

from dcim.models import Cable, Device, DeviceRole, DeviceType, Interface, InterfaceTemplate, Manufacturer, Platform
from ipam.models import IPAddress

from netbox_aifabric.apply.objects import INTERFACE_TYPES, ROLES, Desired, JsonKey, Ref, any_existing, on_interface
from netbox_aifabric.facts import SERVER_BOND, server_port_modes
from netbox_aifabric.facts.cabling_plan import link_label, netbox_label, oob_label
from netbox_aifabric.facts.context import CONTEXT_KEY
from netbox_aifabric.facts.nos import HOST_TEMPLATES

__all__ = (
    'MANAGEMENT_INTERFACE',
    'cable_objects',
    'device_attributes',
    'device_objects',
    'management_interfaces',
    'oob_objects',
)


def device_attributes(inputs):
    """Values set on the devices: the loopback as primary IPv4, the ``aifabric`` context (local context data)."""
    for node in inputs.plan.nodes:
        yield Desired(
            f'primary-ip:{node.name}',
            Device,
            {},
            {'primary_ip4': Ref(f'ip:loopback:{node.role}:{node.id}')},
            attribute_of=f'device:{node.name}',
        )
    contexts = inputs.contexts
    for name in sorted(contexts):
        yield Desired(
            f'context:{name}',
            Device,
            {},
            {'local_context_data': JsonKey(CONTEXT_KEY, contexts[name])},
            attribute_of=f'device:{name}',
        )


def oob_objects(fabric, plan):
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
        create_only={
            'a_terminations': [Ref(port)], 'b_terminations': [Ref(end)], 'status': 'planned',
            **netbox_label(oob_label(link, interface)),
        },
        reason='the management switch port is already cabled',
    )  # fmt: skip


def _oob_address(device, interface, address, what):
    """An address on a management network port, and the device's out-of-band IP."""
    key = f'ip:oob:{device}'
    yield Desired(
        key, IPAddress, {'address__net_host': address.split('/')[0], 'vrf': None},
        {'address': address, 'status': 'active', 'role': None, 'description': f'{device} {what}'[:200],
         **on_interface(f'interface:{device}:{interface}')},
        reason='the address is already used elsewhere in NetBox',
    )  # fmt: skip
    yield Desired(f'oob-ip:{device}', Device, {}, {'oob_ip': Ref(key)}, attribute_of=f'device:{device}')


def _lag_description(lag, on_server: bool) -> str:
    """A LAG's NetBox description: the MLAG peer link, a server's bond to its leaves, a leaf's bond toward a server."""
    if lag.peer_link:
        return 'MLAG peer link'
    return 'bond to the leaves' if on_server else f'{lag.peer_device} bond'


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


def device_objects(inputs):
    """Manufacturer, device types and roles (the fabric's chosen ones, or generic ones created or used), then per
    node its device (or the adopted device), loopbacks, LAGs and cabled interfaces, then the cables. New devices start
    as planned; switch interfaces take the fabric MTU; the leaves' server ports carry the servers' VLANs."""
    fabric, plan = inputs.fabric, inputs.plan
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
    nodes = {n.name: n for n in inputs.nodes}
    devices = [(n.name, n.role, 'switch') for n in plan.nodes] + [
        (a.server, a.kind, 'server') for a in plan.attachments
    ]
    interfaces, management_ports = _interface_table(fabric, plan, devices, inputs.cabling)
    vlan_modes = server_port_modes(plan)
    attachments = {a.server: a for a in plan.attachments}
    names = {vlan.vid: vlan.name for vlan in plan.vlans}
    # the servers' platform picks the host ConfigTemplate (seed.load_config_templates makes it)
    host_platform = Platform.objects.filter(slug=HOST_TEMPLATES[0].platform_slug).first()
    # a port of the device type keeps its template's type (a 1G BMC on a 25G SFP28 port is still an SFP28 port)
    template_types = {
        role: dict(InterfaceTemplate.objects.filter(device_type=chosen_type[role]).values_list('name', 'type'))
        for role in ('spine', 'leaf')
        if chosen_type[role] is not None
    }
    for name, role, kind in devices:
        node = nodes.get(name)
        adopted = node.device if node is not None else None
        items.append(_device_item(fabric, name, role, kind, adopted, chosen_type, chosen_role, host_platform))
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
                    adopt=any_existing if adopted else None,
                    reason='an interface with this name already exists on the device',
                )
            )
        items.extend(_subinterfaces(attachments.get(name), names, adopted))
    items.extend(cable_objects(plan))
    return items


def _subinterfaces(attachment, names, adopted):
    """A server's VLAN sub-interfaces ``bond0.<vid>``: one per class of its bond that gives it an address, a child of
    the bond in that VLAN (after the bond, which they refer to). ``names``: VID → class name."""
    if attachment is None:
        return
    name = attachment.server
    for host in attachment.addresses:
        if host.interface == f'{SERVER_BOND}.{host.vid}':
            values = {
                'parent': Ref(f'interface:{name}:{SERVER_BOND}'),
                'mode': 'access',
                'untagged_vlan': Ref(f'vlan:{host.vid}'),
                'description': f'{names.get(host.vid, host.vid)} (VLAN {host.vid})'[:200],
            }
            yield Desired(
                f'interface:{name}:{host.interface}',
                Interface,
                {'device': Ref(f'device:{name}'), 'name': host.interface},
                values if adopted else {'type': 'virtual', **values},
                create_only={'type': 'virtual'} if adopted else {},
                from_parent=True,
                adopt=any_existing if adopted else None,
                reason='an interface with this name already exists on the device',
            )


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


def _interface_table(fabric, plan, devices, cabling_of):
    """``({device: {interface name: (type, LAG, description)}}, {(device, management port)})``: loopbacks and
    management ports of the switches, then ports, LAGs and memberships from the cabling facts the contexts are built
    from (``cabling_of``: one truth for names)."""
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
    for device, cabling in cabling_of.items():
        for lag in cabling.lags:
            interfaces[device][lag.name] = ('lag', None, _lag_description(lag, device in kinds))
        for port in cabling.ports:
            interfaces[device][port.name] = (INTERFACE_TYPES.get(port.speed, 'other'), port.lag, port.description)
    return interfaces, management_ports


def _device_item(fabric, name, role, kind, adopted, chosen_type, chosen_role, host_platform=None):
    """The device of a node or server: the adopted one as it is, else a new one (planned) of its type and role; a
    switch on the fabric's platform, a server on the host platform when it is installed (``host_platform``)."""
    if adopted is not None:
        return Desired(
            f'device:{name}', Device, {'pk': adopted.pk}, {}, adopt=any_existing, reason='the adopted device'
        )
    values = {
        'device_type': chosen_type.get(role) or Ref(f'device-type:{kind}'),
        'role': chosen_role.get(role) or Ref(f'role:{role}'),
    }
    if kind == 'switch':
        values['platform'] = (role == 'spine' and fabric.spine_platform) or fabric.platform
    elif host_platform is not None:
        values['platform'] = host_platform
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


def cable_objects(plan):
    """One cable per link, found by its A end, created planned with the cabling plan's label (a cable the fabric
    already has keeps its own)."""
    interface_type = ContentType.objects.get_for_model(Interface)
    for link in plan.links:
        a, b = f'interface:{link.a_node}:{link.a_interface}', f'interface:{link.b_node}:{link.b_interface}'
        created = {'a_terminations': [Ref(a)], 'b_terminations': [Ref(b)], 'status': 'planned'}
        yield Desired(
            f'cable:{link.a_node}:{link.a_interface}:{link.b_node}:{link.b_interface}',
            Cable,
            {'terminations__termination_type': interface_type, 'terminations__termination_id': Ref(a)},
            {},
            create_only={**created, **netbox_label(link_label(link))},
            reason='the interface is already cabled',
        )
