"""The Allocations tab in a real browser, on the guide's cluster and on it grown to 4 leaves and 8 servers, as an
EVPN multihoming fabric: every Ethernet segment of the plan (server, bond, leaves, ESI) is a visible row of its table,
read as the browser shows it; the MLAG default shows no segments table."""

import pytest

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric
from tests.integration.test_browser import _login, browser_page  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]


def shown_rows(page, table_id):
    """The table's body rows as the browser renders them: each a list of its cells' visible text."""
    page.locator(f'#{table_id}').scroll_into_view_if_needed()
    return page.eval_on_selector(
        f'#{table_id}',
        "t => Array.from(t.querySelectorAll('tbody tr')).map(r => Array.from(r.cells).map(c => c.innerText.trim()))",
    )


def expected_segments(plan):
    return [
        [a.server, a.lag, ', '.join(sorted({leaf for leaf, _ in a.members})), a.esi] for a in plan.attachments if a.esi
    ]


@pytest.mark.parametrize('grown', [False, True], ids=['guide', '4-leaves-8-servers'])
def test_an_mh_fabrics_ethernet_segments_are_shown(live_server, browser_page, grown):  # noqa: F811
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    page = browser_page
    _login(page, live_server)
    url = f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/allocations/'
    if grown:
        Fabric.objects.filter(pk=fabric.pk).update(leaf_count=4, server_count=2 * fabric.server_count)
    page.goto(url)
    assert page.locator('#allocations-esis').count() == 0  # MLAG pairs: no Ethernet segments

    Fabric.objects.filter(pk=fabric.pk).update(leaf_pairing='evpn-mh', mlag_peer_pool=None)
    fabric.refresh_from_db()
    segments = expected_segments(plan_of(fabric))
    servers = {a.server for a in plan_of(fabric).attachments}
    assert len({s[0] for s in segments}) == len(servers)  # every server's bond is multihomed
    page.goto(url)
    table = page.locator('#allocations-esis')
    assert table.is_visible()
    assert shown_rows(page, 'allocations-esis') == segments
    header = page.locator('#allocations-esis').locator('xpath=..').locator('.card-header').inner_text()
    assert str(len(segments)) in header
