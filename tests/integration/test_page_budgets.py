"""Page budgets: the SQL queries of the fabric's detail page and of each of its tabs, for the demo fabric applied,
held to the counts recorded in ``page_query_counts.json`` (NetBox's query-count style). A page whose count grows
fails and names the page, its recorded and its new count; after a deliberate change, re-record them with
``UPDATE_QUERY_COUNTS=1 scripts/test tests/integration/test_page_budgets.py`` and commit the JSON with the reason.
The times are for ``benchmarks/bench_pages.py`` (the M fabric), not for a test. The Compliance tab shows the fabric's
latest stored run (with a finding: one interface edited by hand), as the compliance job stores it."""

import json
import os
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from users.models import User
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.models import Fabric
from netbox_aifabric.render.configs import fabric_devices
from netbox_aifabric.ui.pages import fabric_pages

pytestmark = pytest.mark.netbox

COUNTS = Path(__file__).with_name('page_query_counts.json')


def page_queries(client, url):
    """SQL queries of ``GET url`` (warmed once: caches filled as on a running server)."""
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(captured)


def store_run(fabric):
    """A stored compliance run of ``fabric`` for its Compliance tab: with findings (no acceptance run proves the
    apply), without drift (a drifted fabric's other tabs would show it, and their counts are not the run's)."""
    run = record_run(fabric, run_compliance(fabric))
    assert run.finding_count >= 1 and run.rule_results['automation-acceptance']['status'] == 'fail', run.rule_results
    assert not any(r['status'] == 'fail' for r in run.rule_results.values() if r['family'] == 'drift')
    return run


class PageBudgetTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)
        cls.admin = User.objects.create_superuser('budget', 'budget@example.invalid', None)
        store_run(cls.fabric)

    def test_fabric_pages_stay_within_their_query_counts(self):
        self.client.force_login(self.admin)
        measured = {name: page_queries(self.client, url) for name, url in fabric_pages(self.fabric)}
        self.assertIn('plan', measured)
        self.assertIn('configs', measured)
        if os.environ.get('UPDATE_QUERY_COUNTS'):
            COUNTS.write_text(json.dumps(measured, indent=2, sort_keys=True) + '\n')
            return
        recorded = json.loads(COUNTS.read_text())
        missing = sorted(set(measured) - set(recorded))
        self.assertFalse(missing, f'pages without a recorded count (record them: UPDATE_QUERY_COUNTS=1): {missing}')
        grown = {name: f'{recorded[name]} → {count}' for name, count in measured.items() if count > recorded[name]}
        self.assertFalse(grown, f'pages whose SQL query count grew: {grown}')

    def test_hand_set_platforms_add_no_query_per_switch(self):
        """Operators set a platform on each switch to get its config rendered: here each device gets its own, and no
        tab fetches a platform by its id (a lookup per device: the Plan and Compliance tabs made one per row)."""
        from dcim.models import Platform

        self.client.force_login(self.admin)
        devices = list(fabric_devices(self.fabric))
        for n, device in enumerate(devices):
            template = device.platform.config_template if device.platform else None
            device.platform = Platform.objects.create(name=f'own {n}', slug=f'own-{n}', config_template=template)
            device.save()
        by_id = {}
        for name, url in fabric_pages(self.fabric):
            self.client.get(url)
            with CaptureQueriesContext(connection) as captured:
                self.assertEqual(self.client.get(url).status_code, 200)
            lookups = [q['sql'] for q in captured if 'FROM "dcim_platform" WHERE "dcim_platform"."id" =' in q['sql']]
            if lookups:
                by_id[name] = len(lookups)
        self.assertFalse(by_id, f'{len(devices)} devices with their own platform: platform lookups by id: {by_id}')

    def test_a_grown_fabric_reads_no_more_queries(self):
        """The demo grown (a second leaf pair, twice the servers) and applied again: no tab may read more queries
        than on the demo, or it reads per object."""
        self.client.force_login(self.admin)
        small = {name: page_queries(self.client, url) for name, url in fabric_pages(self.fabric)}
        devices = fabric_devices(self.fabric).count()
        Fabric.objects.filter(pk=self.fabric.pk).update(leaf_count=4, server_count=2 * self.fabric.server_count)
        self.fabric.refresh_from_db()
        apply_fabric(self.fabric)
        self.assertEqual(fabric_devices(self.fabric).count(), devices + 2 + self.fabric.server_count // 2)
        store_run(self.fabric)  # the Compliance tab shows the grown fabric's run
        grown = {name: page_queries(self.client, url) for name, url in fabric_pages(self.fabric)}
        more = {name: f'{small[name]} → {count}' for name, count in grown.items() if count > small[name]}
        self.assertFalse(more, f'tabs reading more queries on the grown fabric: {more}')
