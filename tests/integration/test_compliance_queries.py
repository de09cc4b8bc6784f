"""The compliance run's SQL queries per part of the gathering (intent, contexts, the plan's diff, drift, automation,
traffic) and per rule family do not grow with the fabric: the applied demo (2 spines, 2 leaves, 5 servers) and the
same fabric grown to 4 spines, 6 leaves and 13 servers make exactly as many. So does the Compliance tab showing the
run just stored (it reads the latest stored run), findings linked to their objects included, for a fabric grown in
size and by a traffic class (one more VLAN, VNI and L2VPN termination)."""

from collections import Counter
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dcim.models import Device, Platform
from ipam.models import Prefix
from users.models import User
from utilities.testing import TestCase

from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.models import AcceptanceRun, ComplianceFinding, Fabric, TrafficClass, TrafficFlow
from netbox_aifabric.ui.pages import fabric_pages
from tests.integration.test_compliance import applied_demo, failed
from tests.integration.test_page_budgets import page_queries

pytestmark = pytest.mark.netbox


def queries_per_step(fabric):
    counts = Counter()

    @contextmanager
    def step(name):
        with CaptureQueriesContext(connection) as captured:
            yield
        counts[name] += len(captured)

    result = run_compliance(fabric, step=step)
    return result, dict(counts)


class QueryCountTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def test_queries_per_step_do_not_grow_with_the_fabric(self):
        run_compliance(self.fabric)  # warm caches (content types, the plugin's config)
        small_result, small = queries_per_step(self.fabric)
        self.assertEqual(failed(small_result), {})
        Fabric.objects.filter(pk=self.fabric.pk).update(spine_count=4, leaf_count=6, server_count=12)
        self.fabric.refresh_from_db()
        apply_fabric(self.fabric)
        large_result, large = queries_per_step(self.fabric)
        self.assertEqual(failed(large_result), {})
        devices = Device.objects.filter(tags__slug=f'aifabric-{self.fabric.slug}')
        self.assertEqual(devices.count(), 4 + 6 + 12 + 1)  # spines, leaves, GPU servers, the storage node
        self.assertEqual(
            set(small), {'intent', 'contexts', 'plan', 'drift', 'automation', 'configs', 'traffic', 'rules', 'link'}
        )
        self.assertEqual(small['rules'], 0)  # the rules are pure
        self.assertEqual(large, small)


def grow(fabric):
    """The fabric with twice its spines, three times its leaves, twelve GPU servers and a sixth traffic class (one more
    VLAN, L2VNI and L2VPN termination), applied."""
    backup = TrafficClass.objects.create(
        name='BACKUP',
        slug='backup',
        purpose='storage',
        vid=60,
        prefix=Prefix.objects.create(prefix='10.60.0.0/24'),
        mtu=9000,
        reachability='listed',
    )
    fabric.traffic_classes.add(backup)
    Fabric.objects.filter(pk=fabric.pk).update(spine_count=4, leaf_count=6, server_count=12)
    fabric.refresh_from_db()
    apply_fabric(fabric)


class TabQueryCountTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        cls.admin = User.objects.create_superuser('tab-budget', 'tab-budget@example.invalid', None)

    def tab_queries(self):
        """The tab's queries showing a run just stored of the fabric as it is (the tab reads the stored run)."""
        url = dict(fabric_pages(self.fabric))['compliance']
        result = run_compliance(self.fabric)
        run = record_run(self.fabric, result)
        self.assertEqual(ComplianceFinding.objects.filter(run=run).count(), result.counts['findings'])
        return page_queries(self.client, url), failed(result)

    def test_the_tab_makes_as_many_queries_for_a_larger_fabric(self):
        """With findings on every switch (no config template), on the fabric (no acceptance run) and on the servers
        and leaves (a flow far above their capacity): the findings are linked per model, not per object."""
        self.client.force_login(self.admin)
        Platform.objects.update(config_template=None)
        AcceptanceRun.objects.all().delete()
        TrafficFlow.objects.create(fabric=self.fabric, source_group='gpu', destination_group='gpu', gbps=1000)
        # two leaf pairs first: growth balances the new servers onto the second pair, so the flow crosses
        # the uplinks and both fabrics compared have findings on servers and on uplink interfaces (the same models)
        Fabric.objects.filter(pk=self.fabric.pk).update(leaf_count=4, server_count=8)
        self.fabric.refresh_from_db()
        apply_fabric(self.fabric)
        small, small_found = self.tab_queries()
        grow(self.fabric)
        large, large_found = self.tab_queries()
        rules = {'automation-template', 'automation-acceptance', 'traffic-capacity'}
        self.assertEqual(set(small_found), rules)
        self.assertEqual(set(large_found), rules)
        self.assertEqual((len(small_found['automation-template']), len(large_found['automation-template'])), (6, 10))
        models = [
            {o.model for f in found['traffic-capacity'] for o in f.objects} for found in (small_found, large_found)
        ]
        self.assertEqual(models, [{'dcim.device', 'dcim.interface'}] * 2)
        self.assertGreater(len(large_found['traffic-capacity']), len(small_found['traffic-capacity']))
        self.assertEqual(large, small)
