"""The fabric page's tabs in the documented order (docs/wizard.md, "The fabric page"), each weight its own: two tabs of
one weight are ordered by NetBox's registration, which nobody chose."""

import re
from importlib import import_module
from pathlib import Path

import pytest

from netbox.registry import registry

pytestmark = pytest.mark.netbox

NETBOX_TABS = {'Changelog', 'Journal', 'Jobs'}  # NetBox's own views, registered for the model too
DOCS = Path(__file__).resolve().parents[2] / 'docs' / 'wizard.md'


def documented_order():
    """The bold tab names of the section's first paragraph (NetBox's own tabs follow them, not bold)."""
    section = DOCS.read_text().split('## The fabric page', 1)[1].split('\n\n', 2)[1]
    return re.findall(r'\*\*([^*]+)\*\*', section)


def registered_tabs():
    """``[(weight, label)]`` of the plugin's tabs on a Fabric (not NetBox's own: changelog, journal, jobs)."""
    import_module('netbox_aifabric.urls')  # registers every view, as NetBox's URL loading does
    tabs = []
    for view in registry['views']['netbox_aifabric']['fabric']:
        tab = getattr(view['view'], 'tab', None)
        if tab is not None and str(tab.label) not in NETBOX_TABS:
            tabs.append((tab.weight, str(tab.label)))
    return sorted(tabs)


def test_the_tabs_follow_the_documented_flow_with_distinct_weights():
    tabs = registered_tabs()
    weights = [w for w, _ in tabs]
    assert len(set(weights)) == len(weights), tabs
    assert [label for _, label in tabs] == documented_order()
