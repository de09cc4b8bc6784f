"""The Cabling tab in a real browser (Debian's Chromium driven by Playwright) against a live NetBox: the demo fabric
grown to three racks shows a table body per rack, and printed it drops NetBox's chrome and starts each rack on a new
page (the PDF Chromium prints has one page per rack). ``CABLING_SCREENSHOTS=<dir>`` also saves the docs' pictures."""

import os
import re

import pytest

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric
from netbox_aifabric.views.cabling import fabric_cabling
from tests.integration.test_browser import _login, browser_page  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]
PDF_PAGE = re.compile(rb'/Type\s*/Page\b')  # a page object (not /Pages) of the printed PDF


def test_the_cabling_tab_prints_one_page_per_rack(live_server, browser_page):  # noqa: F811
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    Fabric.objects.filter(pk=fabric.pk).update(leaf_count=6, server_count=8)  # three leaf pairs: three racks
    fabric.refresh_from_db()
    racks = [name for name, _leaves in fabric_cabling(fabric).racks]
    assert len(racks) == 3
    cables = len(plan_of(fabric).links)
    page = browser_page
    page.set_viewport_size({'width': 1920, 'height': 1000})
    _login(page, live_server)

    page.goto(f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/cabling/')
    assert page.locator(f'h2:has-text("{cables} cables")').is_visible()
    assert page.locator('#cabling tbody').evaluate_all('bodies => bodies.map(b => b.dataset.rack)') == racks
    shots = os.environ.get('CABLING_SCREENSHOTS')
    if shots:
        page.screenshot(path=f'{shots}/cabling.png', full_page=True)

    page.emulate_media(media='print')
    for chrome in ('aside.navbar', 'header.navbar', '.nav-tabs', '.breadcrumb', '#cabling .cabling-controls'):
        assert not page.locator(chrome).first.is_visible(), chrome
    assert page.locator('#cabling table').is_visible()
    assert page.locator('table:visible').count() == 1  # one table, nothing else of NetBox's
    if shots:
        page.screenshot(path=f'{shots}/cabling-print.png', full_page=True)
    # each rack starts a page of its own: the whole prints on as many pages as the racks printed one by one
    alone = [pages(page, only=rack) for rack in racks]
    assert pages(page) == sum(alone) >= len(racks), alone


def pages(page, only=None):
    """Pages of the tab printed to PDF; ``only``: with the other racks' rows hidden."""
    style = None
    if only is not None:
        css = f'#cabling tbody:not([data-rack="{only}"]) {{ display: none !important; }}'
        style = page.add_style_tag(content=css)
    count = len(PDF_PAGE.findall(page.pdf(prefer_css_page_size=True)))
    if style is not None:
        style.evaluate('element => element.remove()')
    return count
