"""Jinja2 filters the plugin adds to NetBox's template environment (ConfigTemplates, export templates)."""

from netbox_aifabric.render.filters import FILTERS

filters = dict(FILTERS)
