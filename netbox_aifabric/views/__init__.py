from netbox_aifabric.views import cabling  # noqa: F401  (registers the Cabling tab of the fabric)
