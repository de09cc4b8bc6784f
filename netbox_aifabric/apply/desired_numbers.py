"""The desired numbers of a plan: the fabric's VLAN group and VLANs, leaf/spine ASNs, the loopback, VTEP and link
addresses on their interfaces (the loopback as primary IPv4), the /31 prefixes of uplinks and MLAG peer links, the
per-rack subnets of the routed classes (routed and MLAG designs), the management addresses, tenant VRFs with their
route targets, one VXLAN-EVPN L2VPN per L2VNI with its VLAN termination, and the servers' own addresses."""

from django.contrib.contenttypes.models import ContentType

from dcim.models import Device
from extras.models import Tag
from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix, RouteTarget, VLANGroup
from vpn.models import L2VPN, L2VPNTermination

from netbox_aifabric.apply.desired_devices import management_interfaces
from netbox_aifabric.apply.objects import Desired, Ref, on_interface, same_assignment
from netbox_aifabric.facts import PEER_LINK_LAG

__all__ = (
    'asn_objects',
    'host_addresses',
    'l2vpn_objects',
    'link_objects',
    'loopback_addresses',
    'management_addresses',
    'rack_subnets',
    'vlan_objects',
    'vrf_objects',
)


def vlan_objects(fabric, plan):
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


def asn_objects(fabric, plan):
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


def loopback_addresses(plan, adopted):
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
                **on_interface(f'interface:{node.name}:Loopback0'),
            },
            adopt=same_assignment if node.name in adopted else None,
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
                    **on_interface(f'interface:{node.name}:Loopback1'),
                },
                reason='the VTEP address is already used elsewhere in NetBox',
            )


def link_objects(plan, adopted):
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
                    **on_interface(f'interface:{node}:{PEER_LINK_LAG if link.kind == "mlag-peer" else interface}'),
                },
                adopt=same_assignment if node in adopted else None,
                reason='the link address is already used elsewhere in NetBox',
            )


def vrf_objects(fabric, plan):
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


def l2vpn_objects(fabric, plan):
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


def rack_subnets(fabric, plan):
    """The routed and MLAG designs' per-rack subnets of each routed class: a prefix each, in the VRF of the class's
    prefix (their parent), assigned to the class's VLAN of the fabric."""
    vrf_of = _class_vrfs(fabric)
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


def _class_vrfs(fabric):
    """``{vid: VRF}`` of each traffic class's prefix (None: the global table), where the class's addresses live."""
    return {
        tc.vid: tc.prefix.vrf
        for tc in fabric.traffic_classes.select_related('prefix__vrf')
        if tc.vid is not None and tc.prefix is not None
    }


def host_addresses(fabric, plan, adopted):
    """Each server's own address per class on its interface (``bond0.<vid>``, ``rdma<n>``), in the VRF of the
    class's prefix."""
    vrf_of = _class_vrfs(fabric)
    names = {vlan.vid: vlan.name for vlan in plan.vlans}
    for attachment in plan.attachments:
        for host in attachment.addresses:
            yield Desired(
                f'ip:host:{attachment.server}:{host.interface}',
                IPAddress,
                {'address__net_host': host.address.split('/')[0], 'vrf': vrf_of.get(host.vid)},
                {
                    'address': host.address,
                    'status': 'active',
                    'role': None,
                    'description': f'{attachment.server} {host.interface} ({names.get(host.vid, host.vid)})'[:200],
                    **on_interface(f'interface:{attachment.server}:{host.interface}'),
                },
                adopt=same_assignment if attachment.server in adopted else None,
                reason='the server address is already used elsewhere in NetBox',
            )


def management_addresses(fabric, plan, adopted):
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
                **on_interface(f'interface:{node.name}:{ports[node.role]}'),
            },
            adopt=same_assignment if node.name in adopted else None,
            reason='the management address is already used elsewhere in NetBox',
        )
        yield Desired(f'oob-ip:{node.name}', Device, {}, {'oob_ip': Ref(key)}, attribute_of=f'device:{node.name}')
