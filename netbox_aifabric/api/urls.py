from django.urls import path

from netbox.api.routers import NetBoxRouter

from netbox_aifabric.api import cabling, compliance, views

app_name = 'netbox_aifabric-api'

router = NetBoxRouter()
router.register('traffic-classes', views.TrafficClassViewSet)
router.register('qos-profiles', views.QoSProfileViewSet)
router.register('evpn-tenants', views.EVPNTenantViewSet)
router.register('fabrics', views.FabricViewSet)
router.register('fabric-nodes', views.FabricNodeViewSet)
router.register('traffic-flows', views.TrafficFlowViewSet)
router.register('acceptance-runs', views.AcceptanceRunViewSet)
router.register('acceptance-results', views.AcceptanceResultViewSet)
router.register('compliance-runs', compliance.ComplianceRunViewSet)
router.register('compliance-findings', compliance.ComplianceFindingViewSet)
router.register('config-backups', compliance.ConfigBackupViewSet)

urlpatterns = [
    path('fabrics/<int:pk>/cabling/', cabling.FabricCablingAPIView.as_view(), name='fabric-cabling'),
    *router.urls,
]
