"""The fabric's Topology tab: the plan of its stored intent drawn as SVG, by rack; ``?rack=<name>`` draws one rack
with the spines (the way to see the servers of a fabric larger than size M)."""

from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from netbox.views import generic
from utilities.views import ViewTab, register_model_view

from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import PlanError
from netbox_aifabric.ui.topology import plan_racks, topology_svg

__all__ = ('FabricTopologyView',)


@register_model_view(Fabric, 'topology', path='topology')
class FabricTopologyView(generic.ObjectView):
    """The plan of the fabric's stored intent (numbering pinned as the next apply would) drawn as SVG."""

    queryset = Fabric.objects.all()
    template_name = 'netbox_aifabric/fabric_topology.html'
    tab = ViewTab(label=_('Topology'), weight=510)

    def get_extra_context(self, request, instance):
        try:
            plan = plan_of(instance)
        except PlanError as e:
            return {'svg': None, 'plan_error': e}
        racks = [rack.name for rack in plan_racks(plan)]
        rack = request.GET.get('rack')
        rack = rack if rack in racks else None  # anything else: the overview
        # svgwrite escapes every name it writes, so the document is safe to embed
        return {'svg': mark_safe(topology_svg(plan, rack)), 'plan_error': None, 'racks': racks, 'rack': rack}
