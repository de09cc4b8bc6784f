"""The plan of a stored fabric, as an apply would use it: its spec planned with the last apply's allocations and the
adopted switches' loopbacks pinned. An adopted switch's router-id address is pinned when it lies in the loopback pool
and is a conflict (of the apply) when it does not."""

from dataclasses import dataclass

import netaddr
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from dcim.models import Interface
from ipam.models import IPAddress

from netbox_aifabric.intake.spec import fabric_spec
from netbox_aifabric.planner import Plan, plan_fabric

__all__ = ('AdoptionConflict', 'plan_of', 'stored_plan')


@dataclass(frozen=True)
class AdoptionConflict:
    """An adopted switch whose existing router-id address the plan cannot keep (the apply's diff names it)."""

    device: str
    reason: str


def _adoption(fabric) -> tuple[dict[str, str], list[AdoptionConflict]]:
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
                AdoptionConflict(node.name, f'its router-id address {address} is outside the loopback pool {pool}')
            )
    return pins, conflicts


def plan_of(fabric):
    """The plan an apply would use: the last apply's allocations and adopted loopbacks pinned."""
    return stored_plan(fabric)[0]


def stored_plan(fabric, nodes=None) -> tuple[Plan, list[AdoptionConflict]]:
    """The plan an apply would use and the adopted switches whose router-id it cannot keep; ``nodes``:
    ``fabric.planned_nodes()[0]`` when the caller has read them."""
    pins, conflicts = _adoption(fabric)
    previous = {**pins, **fabric.applied_pins()}
    spec = fabric_spec(fabric, nodes=nodes)
    return plan_fabric(spec, previous=previous or None, taken=addresses_elsewhere(fabric)), conflicts


def addresses_elsewhere(fabric) -> list[str]:
    """The addresses in the fabric's traffic-class prefixes (in their VRFs) that the fabric does not own: another
    fabric's servers in a class both share, a host entered by hand. One query."""
    match = Q()
    for tc in fabric.traffic_classes.select_related('prefix'):
        if tc.prefix_id is not None:
            match |= Q(address__net_host_contained=str(tc.prefix.prefix), vrf_id=tc.prefix.vrf_id)
    if not match:
        return []
    owned = fabric.owned_objects.filter(object_type=ContentType.objects.get_for_model(IPAddress))
    addresses = IPAddress.objects.filter(match).exclude(pk__in=owned.values('object_id'))
    return [str(a) for a in addresses.values_list('address', flat=True)]
