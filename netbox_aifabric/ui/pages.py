"""The fabric's pages: its detail page and every tab registered on the Fabric model (the plugin's and NetBox's own:
changelog, journal, jobs…), read from NetBox's view registry so that the page budgets measure a new tab without it
being listed here; and the routed links the Allocations tab and the wizard's preview list."""

from django.urls import NoReverseMatch, reverse
from django.utils.module_loading import import_string

from netbox.registry import registry

from netbox_aifabric.planner.racks import rack_subnet_reason

__all__ = ('allocation_tables', 'fabric_pages', 'local_vrfs', 'routed_links')


def fabric_pages(fabric):
    """``[(name, url)]``: ``detail`` and each tab of ``fabric``, in tab order (weight, then name)."""
    tabs = []
    for config in registry['views']['netbox_aifabric'].get('fabric', []):
        view = import_string(config['view']) if isinstance(config['view'], str) else config['view']
        tab = getattr(view, 'tab', None)
        if tab is None or not config['detail']:
            continue
        try:
            url = reverse(f'plugins:netbox_aifabric:fabric_{config["name"]}', kwargs={'pk': fabric.pk})
        except NoReverseMatch:
            continue
        tabs.append((tab.weight or 0, config['name'], url))
    return [('detail', fabric.get_absolute_url()), *((name, url) for _weight, name, url in sorted(tabs))]


def routed_links(plan):
    """The links the Allocations tab and the wizard's preview list as routed: every leaf-spine uplink (numbered with
    its /31, or unnumbered on its IPv6 link-local addresses) and every other link with a subnet (the MLAG peer's)."""
    return [link for link in plan.links if link.subnet or link.kind == 'uplink']


def allocation_tables(plan) -> dict:
    """What the Allocations tab and the wizard's preview list beside the switches: ``fabric_links``
    (:func:`routed_links`), ``ethernet_segments`` (each EVPN multihoming bond: server, LAG, its leaves, ESI) and
    ``rack_subnets`` (``(vlan, rack subnet, why its size)`` of each routed class per rack, routed and MLAG designs:
    ``planner.racks.rack_subnet_reason``); ``has_vteps``: whether the Switches table has a VTEP column (EVPN/VXLAN:
    no other design has VTEPs); ``local_vrfs``: ``[(VRF, [VLAN ids])]`` of the VRFs the VLANs are routed in that no
    EVPN tenant carries (routed on the leaves, no L3VNI: an MLAG or routed design's, or the management VRF)."""
    segments = [
        {'server': a.server, 'lag': a.lag, 'leaves': sorted({leaf for leaf, _ in a.members}), 'esi': a.esi}
        for a in plan.attachments
        if a.esi
    ]
    racks = [(vlan, rack, rack_subnet_reason(vlan, rack)) for vlan in plan.vlans for rack in vlan.racks]
    return {
        'fabric_links': routed_links(plan),
        'ethernet_segments': segments,
        'rack_subnets': racks,
        'has_vteps': any(node.vtep for node in plan.nodes),
        'local_vrfs': local_vrfs(plan),
    }


def local_vrfs(plan) -> list[tuple[str, list[int]]]:
    """The VRFs of the plan's VLANs that are not an EVPN tenant's, each with its VLAN ids, by name."""
    tenants = {vrf.name for vrf in plan.vrfs}
    vlans: dict[str, list[int]] = {}
    for vlan in plan.vlans:
        if vlan.vrf and vlan.vrf not in tenants:
            vlans.setdefault(vlan.vrf, []).append(vlan.vid)
    return sorted(vlans.items())
