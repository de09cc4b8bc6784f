"""The dashboard widget "AI fabrics": each fabric the user may view with its lifecycle state, its last apply and its
newest stored compliance run (the result, the score, its age), linked; two queries whatever the number of fabrics."""

from django.conf import settings
from django.db.models import OuterRef, Subquery
from django.template.loader import render_to_string
from django.utils.translation import gettext_lazy as _

from extras.constants import DEFAULT_DASHBOARD
from extras.dashboard.utils import register_widget
from extras.dashboard.widgets import DashboardWidget, WidgetConfigForm
from netbox.plugins import get_plugin_config

from netbox_aifabric.models import ComplianceRun, Fabric

__all__ = ('FabricsWidget', 'add_to_default_dashboard', 'fabric_rows')

LIMIT = 20  # fabrics listed; the list page has the rest


def fabric_rows(user, limit=LIMIT):
    """``(fabrics, more)``: the user's visible fabrics by name, each with ``last_run`` (its newest compliance run the
    user may view, or None), and how many more there are."""
    runs = ComplianceRun.objects.restrict(user, 'view').filter(fabric=OuterRef('pk')).order_by('-created', '-pk')
    fabrics = list(
        Fabric.objects.restrict(user, 'view')
        .annotate(last_run_pk=Subquery(runs.values('pk')[:1]))
        .order_by('name', 'pk')[: limit + 1]
    )
    last = ComplianceRun.objects.in_bulk([f.last_run_pk for f in fabrics[:limit] if f.last_run_pk])
    for fabric in fabrics:
        fabric.last_run = last.get(fabric.last_run_pk)
    total = len(fabrics) if len(fabrics) <= limit else Fabric.objects.restrict(user, 'view').count()
    return fabrics[:limit], total - min(len(fabrics), limit)


@register_widget
class FabricsWidget(DashboardWidget):
    default_title = _('AI fabrics')
    description = _('The AI fabrics with their state, last apply and last compliance result.')
    template_name = 'netbox_aifabric/dashboard/fabrics.html'
    width = 8
    height = 3

    class ConfigForm(WidgetConfigForm):
        pass

    def render(self, request):
        if not request.user.has_perm('netbox_aifabric.view_fabric'):
            return render_to_string(self.template_name, {'allowed': False})
        fabrics, more = fabric_rows(request.user)
        return render_to_string(self.template_name, {'allowed': True, 'fabrics': fabrics, 'more': more})


WIDGET = {'widget': 'netbox_aifabric.FabricsWidget', 'width': 8, 'height': 3}


def add_to_default_dashboard():
    """New users' dashboards (NetBox builds one on a user's first visit from ``DEFAULT_DASHBOARD``, its own default
    when unset) start with the widget (top left, then NetBox's): only when the operator set no ``DEFAULT_DASHBOARD``
    and the plugin setting ``dashboard_widget`` is on. Existing dashboards are the users' own: the widget is added
    there by hand (Add widget → AI fabrics)."""
    if settings.DEFAULT_DASHBOARD is None and get_plugin_config('netbox_aifabric', 'dashboard_widget'):
        settings.DEFAULT_DASHBOARD = [WIDGET, *DEFAULT_DASHBOARD]
