"""The fabric's Cabling tab: one labelled row per planned cable, grouped by rack, printable (a page per rack) and
downloadable as CSV (``?export=csv``). The rows are the pure cabling plan (``facts/cabling_plan.py``) of the plan an
apply would use, with each end where NetBox racks its device (Device.rack, Device.position; the plan has no U)."""

from django.http import HttpResponse
from django.utils.translation import gettext_lazy as _

from dcim.models import Device
from netbox.views import generic
from utilities.views import ViewTab, register_model_view

from netbox_aifabric.apply.desired_devices import management_interfaces
from netbox_aifabric.facts.cabling_plan import SPINE_ROW, CablingPlan, cabling_plan, with_placement
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.intake.traffic import fabric_breakouts, fabric_reach
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import PlanError

__all__ = ('FabricCablingView', 'cabling_csv_response', 'fabric_cabling', 'netbox_placement')


def netbox_placement(fabric, names, user=None) -> dict[str, tuple[str, float | None]]:
    """``{device name: (rack name, position in U or None)}`` of the plan's devices NetBox racks: the fabric's
    adopted devices by node, the others by name in the fabric's site (as the apply finds them); only devices
    ``user`` may view (when given)."""
    devices = Device.objects.filter(rack__isnull=False)
    if user is not None:
        devices = devices.restrict(user, 'view')
    found = {
        name: (rack, position)
        for name, rack, position in devices.filter(site=fabric.site, name__in=names).values_list(
            'name', 'rack__name', 'position'
        )
    }
    adopted = fabric.nodes.filter(device__in=devices, name__in=names)
    for name, rack, position in adopted.values_list('name', 'device__rack__name', 'device__position'):
        found[name] = (rack, position)
    return {name: (rack, None if position is None else float(position)) for name, (rack, position) in found.items()}


def fabric_cabling(fabric, user=None) -> CablingPlan:
    """The cabling plan of the fabric's plan (its reach settings, breakouts and management port names), each end
    placed where NetBox racks its device. Raises PlanError (the plan, a reach setting, the port map)."""
    plan = plan_of(fabric)
    cabling = cabling_plan(
        plan,
        reach=fabric_reach(fabric),
        breakouts=fabric_breakouts(fabric),
        management_ports=management_interfaces(fabric),
    )
    names = {end.device for row in cabling.rows for end in (row.a, row.b)}
    return with_placement(cabling, netbox_placement(fabric, names, user))


def cabling_csv_response(fabric, cabling: CablingPlan) -> HttpResponse:
    response = HttpResponse(cabling.to_csv(), content_type='text/csv; charset=utf-8')
    response['Content-Disposition'] = f'attachment; filename="{fabric.slug}-cabling.csv"'
    return response


@register_model_view(Fabric, 'cabling', path='cabling')
class FabricCablingView(generic.ObjectView):
    """Every planned cable with its label, ends, speed and medium, a table per rack; reads only. View permission on
    the fabric (its object constraints included); NetBox racks are shown for the devices the user may view."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_cabling.html'
    tab = ViewTab(label=_('Cabling'), weight=542, permission='netbox_aifabric.view_fabric')

    def get(self, request, **kwargs):
        """``?export=csv``: the rows as CSV (NetBox's export style); otherwise the tab."""
        if request.GET.get('export') != 'csv':
            return super().get(request, **kwargs)
        instance = self.get_object(**kwargs)
        try:
            cabling = fabric_cabling(instance, request.user)
        except PlanError as e:
            return HttpResponse(f'{e.field}: {e.message}\n', status=400, content_type='text/plain; charset=utf-8')
        return cabling_csv_response(instance, cabling)

    def get_extra_context(self, request, instance):
        try:
            cabling = fabric_cabling(instance, request.user)
        except PlanError as e:
            return {'plan_error': e}
        leaves = dict(cabling.racks)
        racks = [
            {
                'name': name,
                'title': _('Spines (no rack in the plan)') if name == SPINE_ROW else name,
                'leaves': ', '.join(leaves.get(name, ())),
                'rows': rows,
            }
            for name, rows in cabling.by_rack()
        ]
        return {'plan_error': None, 'cabling': cabling, 'racks': racks}
