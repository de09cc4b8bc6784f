"""The fabric's pages: its detail page and every tab registered on the Fabric model (the plugin's and NetBox's own:
changelog, journal, jobs…), read from NetBox's view registry so that the page budgets measure a new tab without it
being listed here; and the routed links the Allocations tab and the wizard's preview list."""

from django.urls import NoReverseMatch, reverse
from django.utils.module_loading import import_string

from netbox.registry import registry

__all__ = ('fabric_pages', 'routed_links')


def fabric_pages(fabric):
    """``[(name, url)]``: ``detail`` and each tab of ``fabric``, in tab order (weight, then name)."""
    tabs = []
    for config in registry['views']['netbox_aifabric'].get('fabric', []):
        view = import_string(config['view']) if isinstance(config['view'], str) else config['view']
        tab = getattr(view, 'tab', None)
        if tab is None or not config['detail']:
            continue
        try:
            url = reverse(f'plugins:netbox_aifabric:fabric_{config["name"]}', kwargs={'pk': fabric.pk})
        except NoReverseMatch:
            continue
        tabs.append((tab.weight or 0, config['name'], url))
    return [('detail', fabric.get_absolute_url()), *((name, url) for _weight, name, url in sorted(tabs))]


def routed_links(plan):
    """The links the Allocations tab and the wizard's preview list as routed: every leaf-spine uplink (numbered with
    its /31, or unnumbered on its IPv6 link-local addresses) and every other link with a subnet (the MLAG peer's)."""
    return [link for link in plan.links if link.subnet or link.kind == 'uplink']
