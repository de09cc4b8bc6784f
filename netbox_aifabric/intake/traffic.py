"""Glue between a stored fabric and the pure traffic matrix and bill of materials (``planner/traffic.py``,
``planner/bom.py``): its flows, its security matrix as allowed pairs, its plan and its device types."""

from collections.abc import Mapping

from dcim.models import InterfaceTemplate
from netbox.plugins import get_plugin_config

from netbox_aifabric.facts.catalog import unverified_part_numbers
from netbox_aifabric.facts.security import allowed
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.intake.spec import role_ports
from netbox_aifabric.planner import PlanError
from netbox_aifabric.planner.bom import DeviceModel, bill_of_materials
from netbox_aifabric.planner.result import PlanWarning
from netbox_aifabric.planner.traffic import Flow, TrafficError, traffic_matrix

__all__ = (
    'allowed_pairs',
    'allowed_pairs_of',
    'device_model',
    'fabric_bom',
    'fabric_breakouts',
    'fabric_reach',
    'fabric_traffic',
    'fabric_traffic_warnings',
    'flows_of',
)


def flows_of(fabric) -> list:
    return list(fabric.traffic_flows.select_related('source_class', 'destination_class').order_by('pk'))


def allowed_pairs(classes) -> frozenset[tuple[str, str]]:
    """The security matrix as (source, destination) class names, by the same rule the rendered ACLs and the Security
    tab use (``facts/security.allowed``: ``any`` admits every class, ``none`` none, ``listed`` its
    ``reachable_from``). ``classes``: TrafficClass objects (``reachable_from`` prefetched)."""
    return allowed_pairs_of(
        [
            {
                'name': c.name,
                'reachability': c.reachability,
                'reachable_from': [other.name for other in c.reachable_from.all()],
            }
            for c in classes
        ]
    )


def allowed_pairs_of(classes) -> frozenset[tuple[str, str]]:
    """:func:`allowed_pairs` of class dicts (``name``, ``reachability``, ``reachable_from`` names), the form
    ``intent.intent_of`` gives them."""
    return frozenset((src['name'], dst['name']) for src in classes for dst in classes if allowed(src, dst))


def fabric_traffic(fabric, plan=None, classes=None):
    """``(rows, result)``: the fabric's flows and the matrix laid on its plan. Raises PlanError (the plan or a flow).

    The security matrix is the fabric's own classes' (what its ACLs are rendered from): a class only another fabric
    carries is in no allowed pair, whatever it lets reach it, so a flow naming it is a ``forbidden-flow``.
    ``classes``: the fabric's classes as ``intent_of`` dicts when the caller has them (no query), else read."""
    plan = plan or plan_of(fabric)
    rows = flows_of(fabric)
    flows = [
        Flow(
            row.source_group,
            row.destination_group,
            float(row.gbps),
            row.burstiness,
            row.source_class.name if row.source_class_id else None,
            row.destination_class.name if row.destination_class_id else None,
            str(row.pk),
        )
        for row in rows
    ]
    if classes is None:
        pairs = allowed_pairs(fabric.traffic_classes.prefetch_related('reachable_from'))
    else:
        pairs = allowed_pairs_of(classes)
    return rows, traffic_matrix(plan, flows, pairs)


def fabric_traffic_warnings(fabric, plan) -> list[PlanWarning]:
    """The matrix's warnings for the Plan tab; a flow the matrix cannot place is itself a warning there (the Traffic
    tab shows it as the error)."""
    try:
        return list(fabric_traffic(fabric, plan)[1].warnings)
    except TrafficError as e:
        return [PlanWarning('traffic-error', e.field, e.message)]


def fabric_reach(fabric) -> dict[str, str]:
    """The reach class per link kind the BOM uses for ``fabric``: the plugin settings ``bom_reach`` (every fabric)
    overlaid with ``bom_reach_fabrics[<fabric slug>]``; kinds left out keep the BOM's defaults."""
    everywhere = get_plugin_config('netbox_aifabric', 'bom_reach', default=None) or {}
    per_fabric = get_plugin_config('netbox_aifabric', 'bom_reach_fabrics', default=None) or {}
    if not isinstance(per_fabric, Mapping):
        raise PlanError('reach', 'the plugin setting bom_reach_fabrics maps fabric slugs to {link kind: reach class}')
    this_fabric = per_fabric.get(fabric.slug) or {}
    for setting, value in (('bom_reach', everywhere), (f'bom_reach_fabrics[{fabric.slug}]', this_fabric)):
        if not isinstance(value, Mapping):
            raise PlanError('reach', f'the plugin setting {setting} maps link kinds to reach classes')
    return {**everywhere, **this_fabric}


def fabric_breakouts(fabric) -> dict[str, dict[str, tuple[str, int]]]:
    """Role → {lane port: (parent port, lanes)} from the port map's breakouts on the chosen device types (the ports
    the planner numbered). Raises the port map's named SpecError."""
    found = {}
    for role in ('spine', 'leaf'):
        _ports, lanes = role_ports(fabric, role)
        found[role] = {lane: (b.parent, b.count) for lane, b in lanes.items()}
    return found


def device_model(device_type) -> DeviceModel | None:
    """The BOM's view of a NetBox device type: manufacturer, model, part number, its ports' interface types and, for
    a management switch, how many copper access ports it has (None when not chosen)."""
    if device_type is None:
        return None
    ports = dict(InterfaceTemplate.objects.filter(device_type=device_type, mgmt_only=False).values_list('name', 'type'))
    return DeviceModel(
        manufacturer=device_type.manufacturer.name,
        model=device_type.model,
        part_number=device_type.part_number,
        ports=ports,
        access_ports=sum(1 for type_ in ports.values() if type_ == '1000base-t'),
        part_number_verified=device_type.part_number not in unverified_part_numbers(),
    )


def fabric_bom(fabric, spares_percent=10, plan=None):
    """The fabric's bill of materials (its plan, device types and reach classes). Raises PlanError."""
    plan = plan or plan_of(fabric)
    return bill_of_materials(
        plan,
        spine_device_type=device_model(fabric.spine_device_type),
        leaf_device_type=device_model(fabric.leaf_device_type),
        server_device_type=device_model(fabric.server_device_type),
        management_device_type=device_model(getattr(fabric, 'management_device_type', None)),
        spares_percent=spares_percent,
        reach=fabric_reach(fabric),
        breakouts=fabric_breakouts(fabric),
    )
