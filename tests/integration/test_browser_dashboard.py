"""The home page in a real browser (Debian's Chromium driven by Playwright) against a live NetBox: a new user's first
login shows the "AI fabrics" widget with the demo fabric applied, its state and its compliance run, linked.
``DASHBOARD_SCREENSHOTS=<dir>`` also saves the docs' picture."""

import os

import pytest

from users.models import User

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.service import request_apply
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.models import Fabric
from tests.integration.test_browser import _login, browser_page  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]


def test_the_first_login_shows_the_fabrics_widget(live_server, browser_page):  # noqa: F811
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    page = browser_page
    page.set_viewport_size({'width': 1600, 'height': 1000})
    _login(page, live_server)  # a new user: NetBox builds the dashboard on this first visit
    # the UI's and the API's apply: the lifecycle says applied
    request_apply(fabric, User.objects.get(username='admin'))
    fabric.refresh_from_db()
    assert fabric.last_applied is not None
    run = record_run(fabric, run_compliance(fabric))
    page.goto(f'{live_server.url}/')
    page.wait_for_load_state('networkidle')
    widget = page.locator('#aifabric-dashboard')
    assert widget.is_visible()
    row = widget.locator('tbody tr').filter(has_text=fabric.name)
    assert row.count() == 1
    text = row.inner_text()
    assert fabric.get_status_display() in text and 'never' not in text and run.get_status_display() in text
    assert row.locator(f'a[href="{run.get_absolute_url()}"]').is_visible()
    assert row.locator(f'a[href="{fabric.get_absolute_url()}"]').is_visible()
    shots = os.environ.get('DASHBOARD_SCREENSHOTS')
    if shots:
        page.screenshot(path=f'{shots}/dashboard.png', full_page=False)
