"""The Compliance tab reads the latest stored run: its counts and findings are the stored rows', nothing is
checked on a view (an edit made after the run changes no finding: the run is marked stale instead, until a new run is
stored), "Run now" needs the add permission on compliance runs (the POST its object constraints too), and while the
fabric's compliance job is pending or running the tab polls itself through htmx until the run is stored (286)."""

import re
from dataclasses import replace

import pytest
from django.urls import reverse

from core.models import Job, ObjectType
from users.models import ObjectPermission
from utilities.testing import TestCase

from netbox_aifabric.apply.lifecycle import after_apply
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks.compliance import HIDDEN, run_compliance
from netbox_aifabric.checks.engine import FAMILIES, Finding, Obj
from netbox_aifabric.checks.job import ComplianceJob, request_compliance
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.models import ComplianceFinding, ComplianceRun, FabricNode
from netbox_aifabric.render.configs import fabric_devices
from netbox_aifabric.ui.compliance_tab import STALE_APPLIED, STALE_INTENT
from tests.integration.test_compliance import LEAF1, applied_demo, break_by_hand, constrain

pytestmark = pytest.mark.netbox

RUNS = ('netbox_aifabric.view_fabric', 'netbox_aifabric.view_compliancerun', 'netbox_aifabric.view_compliancefinding')
FINDING = '<li class="finding">'
FAIL = '<span class="badge text-bg-red">fail</span>'


def counts_line(run):
    """The tab's counts sentence, from the stored run's fields."""
    return (
        f'{run.rules} rules: {run.passed} passed, {run.failed} failed, {run.skipped} skipped, {run.errored} broke; '
        f'{run.finding_count} findings.'
    )


class StoredTabTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def setUp(self):
        super().setUp()
        self.add_permissions(*RUNS)

    def url(self):
        return reverse('plugins:netbox_aifabric:fabric_compliance', kwargs={'pk': self.fabric.pk})

    def tab(self, **headers):
        response = self.client.get(self.url(), **headers)
        self.assertIn(response.status_code, (200, 286), response.content[:300])
        return response

    def stored(self, result=None):
        return record_run(self.fabric, result or run_compliance(self.fabric))

    def test_without_a_stored_run_it_says_so_and_checks_nothing(self):
        response = self.tab()
        self.assertContains(response, 'id="compliance-no-run"')
        self.assertNotContains(response, '<tr id="rule-')
        self.assertEqual(ComplianceRun.objects.count(), 0)

    def test_the_counts_and_findings_are_the_stored_rows(self):
        break_by_hand(self.fabric, self.user)
        run = self.stored()
        # the stored rows edited after the run: the tab shows the rows, not a new computation
        finding = ComplianceFinding.objects.get(run=run)
        ComplianceFinding.objects.filter(pk=finding.pk).update(expected='mtu=4242 (as stored)')
        ComplianceRun.objects.filter(pk=run.pk).update(passed=run.passed - 1, skipped=run.skipped + 1)
        run.refresh_from_db()
        response = self.tab()
        self.assertContains(response, counts_line(run))
        self.assertContains(response, 'expected <em>mtu=4242 (as stored)</em>')
        failed = [rule for rule, stored in run.rule_results.items() if stored['status'] == 'fail']
        self.assertContains(response, FAIL, count=len(failed))
        self.assertContains(response, FINDING, count=ComplianceFinding.objects.filter(run=run).count())
        self.assertContains(response, f'<a href="{run.get_absolute_url()}">Stored run {run.pk}</a>')
        self.assertContains(response, 'minute')  # its age ("0 minutes ago")

    def test_each_family_folds_behind_its_counts_and_a_failed_one_is_open(self):
        """The families as folded sections: each header counts its rules by the stored result, a family with a failed
        or broken rule is open, the rest folded; every rule is still in the page."""
        break_by_hand(self.fabric, self.user)
        run = self.stored()
        by_family = {}
        for stored in run.rule_results.values():
            by_family.setdefault(str(FAMILIES.get(stored['family'], stored['family'])), []).append(stored['status'])
        self.assertIn('fail', {status for statuses in by_family.values() for status in statuses})
        html = self.tab().content.decode()
        sections = re.findall(
            r'<div class="card aifabric-family" id="compliance-(family-\d+)">.*?</i> (.*?) — '
            r'<span class="aifabric-fold-summary">(.*?)</span>.*?<div class="collapse( show)?"',
            html,
            re.S,
        )
        self.assertEqual(len(sections), len(by_family))
        words = {'pass': 'passed', 'fail': 'failed', 'skip': 'skipped', 'error': 'broke'}
        for _key, label, summary, shown in sections:
            statuses = by_family[label]
            parts = [f'{statuses.count(s)} {w}' for s, w in words.items() if statuses.count(s)]
            noun = 'rule' if len(statuses) == 1 else 'rules'
            self.assertEqual(summary, f'{len(statuses)} {noun}: {", ".join(parts)}', label)
            self.assertEqual(bool(shown), 'fail' in statuses or 'error' in statuses, label)
        self.assertEqual(html.count('<tr id="rule-'), len(run.rule_results))

    def test_an_edit_after_the_run_is_not_checked_on_a_view(self):
        clean = self.stored()
        break_by_hand(self.fabric, self.user)  # drift: a live check would fail drift-edited
        response = self.tab()
        self.assertNotContains(response, FAIL)
        self.assertNotContains(response, FINDING)
        self.assertContains(response, counts_line(clean))
        self.assertEqual(ComplianceRun.objects.count(), 1)

    def test_stale_after_an_intent_change_until_a_new_run(self):
        self.stored()
        self.assertNotContains(self.tab(), 'id="compliance-stale"')
        self.fabric.refresh_from_db()
        self.fabric.description = 'edited after the run'
        self.fabric.save()  # an edit of the intent: a pending change (signals.py)
        self.fabric.refresh_from_db()
        self.assertTrue(self.fabric.pending_change)
        response = self.tab()
        self.assertContains(response, 'id="compliance-stale"')
        self.assertContains(response, str(STALE_INTENT))
        self.stored()  # a new run reads the intent as it is: no longer stale, though the change is still pending
        self.assertNotContains(self.tab(), 'id="compliance-stale"')
        node = FabricNode.objects.filter(fabric=self.fabric).first()
        node.save()  # a node of the intent saved after the run
        self.assertContains(self.tab(), str(STALE_INTENT))

    def test_a_run_that_marks_the_fabric_drifted_is_not_stale(self):
        """The run saves the fabric (applied -> drifted) before it is stored itself: that save is not an edit after
        the run."""
        break_by_hand(self.fabric, self.user)
        self.fabric.refresh_from_db()
        self.fabric.status = 'applied'  # the demo as an applied fabric, so the drift marks it drifted
        self.fabric.save()
        run = self.stored()
        self.fabric.refresh_from_db()
        self.assertEqual((self.fabric.status, run.status), ('drifted', 'failed'))
        self.assertNotContains(self.tab(), 'id="compliance-stale"')

    def test_stale_after_an_apply(self):
        self.stored()
        self.fabric.refresh_from_db()
        self.fabric.description = 'edited'
        self.fabric.save()
        self.stored()
        self.fabric.refresh_from_db()
        plan, changes = apply_fabric(self.fabric)  # after the run: NetBox's objects may have changed
        after_apply(self.fabric, plan, None, changes)  # recorded as the apply service records it
        self.fabric.refresh_from_db()
        self.assertEqual((self.fabric.pending_change, self.fabric.last_applied is None), (False, False))
        self.assertContains(self.tab(), str(STALE_APPLIED))
        self.stored()
        self.assertNotContains(self.tab(), 'id="compliance-stale"')

    def test_config_states_and_running_lines_are_the_runs_with_todays_permissions(self):
        switches = list(fabric_devices(self.fabric).values_list('name', flat=True))
        self.assertIn(LEAF1, switches)
        other = next(name for name in switches if name != LEAF1)
        states = {LEAF1: 'not compliant', other: 'compliant'}
        result = run_compliance(self.fabric)
        line = Finding(
            (Obj('dcim.device', LEAF1),), 'PORT|Ethernet0 › mtu: 9216', 'mtu: 1500', "HSET 'PORT|x' mtu 9216"
        )
        results = [
            replace(r, status='fail', findings=[line]) if r.rule.id == 'config-changed' else r for r in result.results
        ]
        run = self.stored(replace(result, results=results, configs={'devices': states}))
        self.assertEqual(run.rule_results['config-backup']['switches'], states)
        response = self.tab()
        self.assertContains(response, 'id="compliance-configs"')
        self.assertContains(response, 'class="me-2 config-device"', count=len(states))
        self.assertContains(response, '1 of 2 switches compliant, 1 not, 0 never backed up')
        self.assertContains(response, HIDDEN)  # what the switch runs is the backups' viewers' only
        self.assertNotContains(response, 'mtu: 1500')
        links = [
            f'<a href="{reverse("dcim:device_aifabric_config", kwargs={"pk": pk})}">'
            for pk in fabric_devices(self.fabric).filter(name__in=states).values_list('pk', flat=True)
        ]
        for link in links:  # no view permission on devices: named, not linked
            self.assertNotContains(response, link)
        self.add_permissions('netbox_aifabric.view_configbackup', 'dcim.view_device')
        response = self.tab()
        self.assertContains(response, 'found <em>mtu: 1500</em>')
        self.assertContains(response, 'HSET &#x27;PORT|x&#x27; mtu 9216')
        for link in links:
            self.assertContains(response, link)


class RunNowTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def url(self, name='compliance'):
        return reverse(f'plugins:netbox_aifabric:fabric_{name}', kwargs={'pk': self.fabric.pk})

    def jobs(self):
        return Job.objects.filter(name=ComplianceJob.name, object_id=self.fabric.pk)

    def grant(self, constraints=None):
        permission = ObjectPermission.objects.create(name='runs', actions=['add'], constraints=constraints)
        permission.object_types.add(ObjectType.objects.get_for_model(ComplianceRun))
        permission.users.add(self.user)

    def test_without_the_add_permission_no_button_and_no_job(self):
        self.add_permissions(*RUNS)
        self.assertNotContains(self.client.get(self.url()), 'id="compliance-run-now"')
        self.assertHttpStatus(self.client.post(self.url('compliance_run')), 403)
        self.assertFalse(self.jobs().exists())

    def test_with_it_the_button_queues_the_job(self):
        self.add_permissions(*RUNS)
        self.grant()
        self.assertContains(self.client.get(self.url()), 'id="compliance-run-now"')
        self.assertHttpStatus(self.client.post(self.url('compliance_run')), 302)
        self.assertEqual(self.jobs().count(), 1)

    def test_constraints_that_exclude_the_fabric_refuse_the_post(self):
        self.add_permissions(*RUNS)
        self.grant({'fabric__slug': 'another-fabric'})
        self.assertHttpStatus(self.client.post(self.url('compliance_run')), 403)
        self.assertFalse(self.jobs().exists())


class PollingTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def setUp(self):
        super().setUp()
        self.add_permissions(*RUNS, 'netbox_aifabric.add_compliancerun')

    def url(self):
        return reverse('plugins:netbox_aifabric:fabric_compliance', kwargs={'pk': self.fabric.pk})

    def partial(self):
        return self.client.get(self.url(), HTTP_HX_REQUEST='true')

    def test_the_tab_polls_while_the_job_is_pending_and_stops_once_it_stored_the_run(self):
        self.assertHttpStatus(self.partial(), 286)  # no job: nothing to wait for
        job = request_compliance(self.fabric, self.user).job
        page = self.client.get(self.url())
        self.assertContains(page, 'hx-trigger="every 3s"')
        self.assertContains(page, 'is queued or running')
        partial = self.partial()
        self.assertHttpStatus(partial, 200)
        self.assertContains(partial, 'data-polling="1"')
        self.assertNotContains(partial, '<html')  # the tab's body alone
        ComplianceJob.handle(job)  # what the RQ worker does
        run = ComplianceRun.objects.get(fabric=self.fabric)
        finished = self.partial()
        self.assertEqual(finished.status_code, 286)
        self.assertNotContains(finished, 'hx-trigger', status_code=286)
        self.assertContains(finished, f'Stored run {run.pk}', status_code=286)

    def test_the_partial_keeps_the_fabrics_view_permission(self):
        self.remove_permissions('netbox_aifabric.view_fabric')
        constrain(self.user, 'another-fabric')
        self.assertHttpStatus(self.partial(), 404)
