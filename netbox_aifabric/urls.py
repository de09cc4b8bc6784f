from django.urls import include, path

from utilities.urls import get_model_urls

from netbox_aifabric.views import acceptance, compliance, configs, fabrics, lab, topology, traffic, wizard  # noqa: F401  (they register the model views)

urlpatterns = (
    path('traffic-classes/', include(get_model_urls('netbox_aifabric', 'trafficclass', detail=False))),
    path('traffic-classes/<int:pk>/', include(get_model_urls('netbox_aifabric', 'trafficclass'))),
    path('qos-profiles/', include(get_model_urls('netbox_aifabric', 'qosprofile', detail=False))),
    path('qos-profiles/<int:pk>/', include(get_model_urls('netbox_aifabric', 'qosprofile'))),
    path('evpn-tenants/', include(get_model_urls('netbox_aifabric', 'evpntenant', detail=False))),
    path('evpn-tenants/<int:pk>/', include(get_model_urls('netbox_aifabric', 'evpntenant'))),
    path('fabrics/', include(get_model_urls('netbox_aifabric', 'fabric', detail=False))),
    path('fabrics/<int:pk>/', include(get_model_urls('netbox_aifabric', 'fabric'))),
    path('fabric-nodes/', include(get_model_urls('netbox_aifabric', 'fabricnode', detail=False))),
    path('fabric-nodes/<int:pk>/', include(get_model_urls('netbox_aifabric', 'fabricnode'))),
    path('traffic-flows/', include(get_model_urls('netbox_aifabric', 'trafficflow', detail=False))),
    path('traffic-flows/<int:pk>/', include(get_model_urls('netbox_aifabric', 'trafficflow'))),
    path('compliance-runs/', include(get_model_urls('netbox_aifabric', 'compliancerun', detail=False))),
    path('compliance-runs/<int:pk>/', include(get_model_urls('netbox_aifabric', 'compliancerun'))),
    path('compliance-findings/', include(get_model_urls('netbox_aifabric', 'compliancefinding', detail=False))),
    path('compliance-findings/<int:pk>/', include(get_model_urls('netbox_aifabric', 'compliancefinding'))),
    path('acceptance-runs/', include(get_model_urls('netbox_aifabric', 'acceptancerun', detail=False))),
    path('acceptance-runs/<int:pk>/', include(get_model_urls('netbox_aifabric', 'acceptancerun'))),
    path('acceptance-results/', include(get_model_urls('netbox_aifabric', 'acceptanceresult', detail=False))),
    path('acceptance-results/<int:pk>/', include(get_model_urls('netbox_aifabric', 'acceptanceresult'))),
    path('config-backups/', include(get_model_urls('netbox_aifabric', 'configbackup', detail=False))),
    path('config-backups/<int:pk>/', include(get_model_urls('netbox_aifabric', 'configbackup'))),
    path('wizard/', wizard.FabricWizardView.as_view(), name='fabric_wizard'),
)
