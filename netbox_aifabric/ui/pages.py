"""The fabric's pages, for the page budgets: its detail page and every tab registered on the Fabric model (the
plugin's and NetBox's own: changelog, journal, jobs…), read from NetBox's view registry so that a new tab is
measured without being listed here."""

from django.urls import NoReverseMatch, reverse
from django.utils.module_loading import import_string

from netbox.registry import registry

__all__ = ('fabric_pages',)


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
