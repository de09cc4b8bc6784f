"""netbox-aifabric: design, number, configure and prove small AI/GPU cluster fabrics in NetBox."""

from netbox_aifabric.version import __version__

# The pure modules (planner, facts, the render filters) are imported without NetBox too, by a Nornir or script render
# on a machine that only talks to NetBox's API (docs/automation.md): there the app config is a plain class that
# nothing loads. Any other missing module still fails the import.
try:
    from netbox.plugins import PluginConfig
except ModuleNotFoundError as missing:
    if missing.name != 'netbox':
        raise
    PluginConfig = object


class AIFabricConfig(PluginConfig):
    name = 'netbox_aifabric'
    verbose_name = 'AI Fabric'
    description = 'Design, number, configure and prove small AI/GPU cluster leaf-spine fabrics'
    version = __version__
    author = 'netbox-aifabric developers'
    base_url = 'aifabric'
    min_version = '4.7.0'
    max_version = '4.7.99'
    graphql_schema = 'graphql.schema.schema'
    default_settings = {
        # Applies of plans with more links than this run as a background job (None: never unless asked for)
        'background_apply_threshold': 200,
        # Minutes between scheduled compliance runs of every applied fabric (a NetBox system job); 0 or None: off
        'compliance_interval': None,
        # Stored compliance runs older than this many days are deleted with their findings (0 or None: kept by age)
        'compliance_retention_days': 90,
        # At most this many stored compliance runs per fabric, the newest kept (0 or None: no limit)
        'compliance_retention_runs': None,
        # A plan (REST plan, the Plan tab) of a fabric with more nodes (spines, leaves, GPU servers, storage) than this
        # is refused by name instead of planned and diffed in the request (None: no limit); its apply runs as a job
        'plan_max_nodes': 256,
        # In the UI (Plan tab, wizard), applies of fabrics with more devices than this run as a job by default, with
        # the job's page (None: only when asked for); the REST API keeps the link threshold above
        'ui_background_apply_devices': 20,
        # New users' dashboards start with the "AI fabrics" widget, unless DEFAULT_DASHBOARD is configured (then add
        # netbox_aifabric.FabricsWidget there) or this is False
        'dashboard_widget': True,
    }

    def ready(self):
        super().ready()
        from netbox_aifabric import signals  # noqa: F401  (connects the context refresh)
        from netbox_aifabric.views.dashboard import add_to_default_dashboard  # registers the widget too

        add_to_default_dashboard()
        from netbox_aifabric.views.device_context import replace_device_context_view

        replace_device_context_view()  # the device's Config Context tab: the aifabric key once, by section
        from netbox_aifabric.checks.job import schedule_compliance

        schedule_compliance()


config = AIFabricConfig
