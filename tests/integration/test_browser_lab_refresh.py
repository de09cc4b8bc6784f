"""The Lab tab refreshing after its job, in a real browser: "Run lab" queues the job and comes back to the tab, whose
"Latest run" card then polls (htmx); the job runs for real (FRR in network namespaces, here in the test's thread, as
a worker would) and the card shows the stored run and its folded checks without the page being reloaded, then stops
polling."""

import pytest

from core.models import Job

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.lab.jobs import FabricLabJob
from netbox_aifabric.lab.netns import unavailable_reason
from netbox_aifabric.models import AcceptanceRun, Fabric
from netbox_aifabric.ui.jobs import POLL_SECONDS
from tests.integration.test_browser import _login, browser_page  # noqa: F401  (the fixture)

pytestmark = [
    pytest.mark.netbox,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}'),
]


def test_the_lab_tab_shows_the_finished_run_without_a_reload(live_server, browser_page):  # noqa: F811
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    apply_fabric(fabric)
    page = browser_page
    _login(page, live_server)
    page.goto(f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/lab/')
    assert page.locator('#lab-latest').get_attribute('data-polling') == '0'
    page.click('button:has-text("Run lab")')
    page.wait_for_load_state('networkidle')
    assert page.locator('#lab-latest').get_attribute('data-polling') == '1'
    assert page.locator('#lab-latest-run').count() == 0
    page.evaluate('window.aifabricNotReloaded = true')  # gone if the page reloads

    job = Job.objects.get(name=FabricLabJob.name, object_id=fabric.pk)
    FabricLabJob.handle(job)  # what the RQ worker does with the queued job
    run = AcceptanceRun.objects.get(fabric=fabric, kind='lab')

    page.locator('#lab-latest-run').wait_for(timeout=(POLL_SECONDS * 3) * 1000)
    assert page.evaluate('window.aifabricNotReloaded === true')
    card = page.locator('#lab-latest')
    assert card.get_attribute('data-polling') == '0'
    assert f'Run {run.pk}' in page.locator('#lab-latest-run').inner_text()
    job.refresh_from_db()
    assert job.get_status_display() in page.locator('#lab-job-status').inner_text()
    # every stored check is in one of the folded groups, the groups with a failure open
    assert card.locator('.aifabric-fold tbody tr').count() == run.results.count() > 0
    for group in card.locator('.aifabric-fold').all():
        failed = group.locator('.badge.text-bg-red').count() > 0
        assert group.locator('.collapse').evaluate("e => e.classList.contains('show')") == failed
    page.wait_for_timeout(POLL_SECONDS * 1000 + 500)  # polling stopped: the card stays as it is
    assert card.get_attribute('data-polling') == '0'
