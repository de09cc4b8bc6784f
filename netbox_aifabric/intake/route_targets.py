"""One truth for an EVPN tenant's route targets: the plan's. The planner gives each tenant VRF its route target
(``VrfPlan.route_target``, L3VNI:L3VNI); every switch context carries it. The tenant's import and export targets are
therefore read-only: its page shows the plan's values, and each apply writes them onto the tenant (the RouteTargets
the apply created), so the REST API, GraphQL and the tables show what the switches use."""

from ipam.models import RouteTarget

from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.planner import PlanError

__all__ = ('planned_route_targets', 'sync_tenant_route_targets')


def planned_route_targets(tenant) -> list[dict]:
    """``[{'fabric', 'route_targets', 'error'}]``: per fabric of ``tenant``, the route targets its plan gives the
    tenant's VRF ([] outside EVPN/VXLAN), or the planner's error."""
    rows = []
    for fabric in tenant.fabrics.order_by('name'):
        try:
            plan = plan_of(fabric)
        except PlanError as e:
            rows.append({'fabric': fabric, 'route_targets': [], 'error': e})
            continue
        targets = sorted({vrf.route_target for vrf in plan.vrfs if vrf.tenant == tenant.name})
        rows.append({'fabric': fabric, 'route_targets': targets, 'error': None})
    return rows


def sync_tenant_route_targets(fabric, plan) -> int:
    """Set the import and export targets of ``fabric``'s tenants to the plan's (after its apply wrote them); returns
    how many tenants changed. A tenant the plan has no VRF for (outside EVPN/VXLAN) is left as it is."""
    changed = 0
    for tenant in fabric.tenants.prefetch_related('import_targets', 'export_targets'):
        names = {vrf.route_target for vrf in plan.vrfs if vrf.tenant == tenant.name}
        if not names:
            continue
        targets = list(RouteTarget.objects.filter(name__in=names))  # names are unique in NetBox
        current = ({rt.name for rt in tenant.import_targets.all()}, {rt.name for rt in tenant.export_targets.all()})
        if current == (names, names):
            continue
        tenant.snapshot()
        tenant.import_targets.set(targets)
        tenant.export_targets.set(targets)
        changed += 1
    return changed
