"""Stored compliance runs: the job stores a ComplianceRun with its findings as rows, derived from the same result the
engine gives; the REST endpoints, list views and object permissions; the Compliance tab's history and the device
panel."""

import copy
from urllib.parse import quote, urlencode

import hypothesis.extra.django
import pynetbox
import pytest
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from core.models import Job, ObjectChange, ObjectType
from dcim.models import Device, Interface
from extras.models import EventRule, Notification, NotificationGroup
from netbox.registry import registry
from users.models import ObjectPermission, Token, User
from utilities.testing import APITestCase, APIViewTestCases, TestCase, ViewTestCases

from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.engine import FAMILIES
from netbox_aifabric.checks.job import ComplianceJob, ScheduledComplianceJob, compliance_interval, schedule_compliance
from netbox_aifabric.checks.runs import record_run, run_score
from netbox_aifabric.choices import FabricStatusChoices
from netbox_aifabric.models import ComplianceFamilyChoices, ComplianceFinding, ComplianceRun, Fabric
from netbox_aifabric.tables import ComplianceRunTable
from tests.integration.base import FABRIC_SHAPE, make_world
from tests.integration.test_compliance import LEAF1, applied_demo, break_by_hand

pytestmark = pytest.mark.netbox


class StoredRunTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def test_the_families_choices_are_the_engines(self):
        self.assertEqual(set(ComplianceFamilyChoices.values()), set(FAMILIES))

    def test_a_run_stores_every_finding_as_a_row_with_its_object_and_device(self):
        port = break_by_hand(self.fabric, self.user)
        result = run_compliance(self.fabric)
        run = record_run(self.fabric, result, user=self.user)
        counts = result.counts
        self.assertEqual(
            (run.rules, run.passed, run.failed, run.skipped, run.errored, run.finding_count),
            (counts['rules'], counts['pass'], counts['fail'], counts['skip'], counts['error'], counts['findings']),
        )
        self.assertEqual((run.status, run.user, run.fabric), ('failed', self.user, self.fabric))
        self.assertEqual(run.score, round(100 * counts['pass'] / (counts['rules'] - counts['skip'])))
        self.assertEqual(set(run.rule_results), {r.rule.id for r in result.results})
        self.assertEqual(run.rule_results['drift-edited']['findings'], 1)
        (row,) = ComplianceFinding.objects.filter(run=run)
        self.assertEqual((row.rule, row.family, row.severity), ('drift-edited', 'drift', 'error'))
        self.assertEqual((row.object_type, row.object_id), (ContentType.objects.get_for_model(Interface), port.pk))
        self.assertEqual(row.object, port)
        self.assertEqual(row.device_ids, [Device.objects.get(name=LEAF1).pk])
        self.assertEqual((row.expected, row.found), (f'mtu={self.fabric.mtu}', f'mtu={port.mtu}'))
        self.assertEqual(row.fix, result.results[0].rule.fix)

    def test_a_clean_run_passes_with_no_findings(self):
        run = record_run(self.fabric, run_compliance(self.fabric))
        self.assertEqual((run.status, run.failed, run.finding_count, run.user), ('passed', 0, 0, None))
        self.assertEqual(run.score, 100)
        self.assertFalse(run.findings.exists())

    def test_the_job_stores_a_run_by_its_user(self):
        job = ComplianceJob.enqueue(instance=self.fabric, user=self.user)
        break_by_hand(self.fabric, self.user)
        ComplianceJob.handle(job)  # what the RQ worker does
        job.refresh_from_db()
        self.assertEqual(job.status, 'completed')
        run = ComplianceRun.objects.get(pk=job.data['run'])
        self.assertEqual((run.fabric, run.user, run.job, run.failed), (self.fabric, self.user, job, 1))
        self.assertEqual(list(run.findings.values_list('rule', flat=True)), ['drift-edited'])
        self.assertEqual(Job.objects.get(pk=job.pk).data['counts']['findings'], run.finding_count)
        # the runs table links the run's time to the run and its job column to the job
        (row,) = ComplianceRunTable(ComplianceRun.objects.filter(pk=run.pk)).rows
        self.assertIn(f'href="{run.get_absolute_url()}"', row.get_cell('run'))
        self.assertEqual(row.get_cell('job'), f'<a href="{job.get_absolute_url()}">{job.pk}</a>')

    def test_a_run_with_failures_fires_an_event_rule(self):
        """The run is stored as the user's request would store it: a change record, and NetBox's event rules (here a
        notification on runs created with failures) fire; a clean run does not match the rule's condition."""
        group = NotificationGroup.objects.create(name='NOC')
        group.users.add(self.user)
        rule = EventRule.objects.create(
            name='compliance failed',
            event_types=['object_created'],
            action_type='notification',
            action_object_type=ObjectType.objects.get_for_model(NotificationGroup),
            action_object_id=group.pk,
            conditions={'attr': 'failed', 'value': 0, 'op': 'gt'},
        )
        rule.object_types.add(ObjectType.objects.get_for_model(ComplianceRun))
        clean = record_run(self.fabric, run_compliance(self.fabric), user=self.user)
        self.assertFalse(Notification.objects.exists())
        break_by_hand(self.fabric, self.user)
        broken = record_run(self.fabric, run_compliance(self.fabric), user=self.user)
        (notification,) = Notification.objects.all()
        self.assertEqual((notification.object, notification.user), (broken, self.user))
        change = ObjectChange.objects.get(changed_object_id=broken.pk, changed_object_type__model='compliancerun')
        self.assertEqual((change.action, change.user), ('create', self.user))
        self.assertTrue(ObjectChange.objects.filter(changed_object_id=clean.pk).exists())

    def test_a_run_with_drift_marks_an_applied_fabric_drifted(self):
        """The fabric lifecycle: applied -> drifted when a stored run finds drift; a clean run leaves it applied."""
        Fabric.objects.filter(pk=self.fabric.pk).update(status=FabricStatusChoices.APPLIED)
        self.fabric.refresh_from_db()
        record_run(self.fabric, run_compliance(self.fabric))
        self.fabric.refresh_from_db()
        self.assertEqual(self.fabric.status, FabricStatusChoices.APPLIED)
        break_by_hand(self.fabric, self.user)
        record_run(self.fabric, run_compliance(self.fabric))
        self.fabric.refresh_from_db()
        self.assertEqual(self.fabric.status, FabricStatusChoices.DRIFTED)

    def tab(self):
        return self.client.get(reverse('plugins:netbox_aifabric:fabric_compliance', kwargs={'pk': self.fabric.pk}))

    def test_the_tab_shows_the_stored_runs_with_their_trend(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        self.assertNotContains(self.tab(), 'id="compliance-history"')  # no permission on runs: no history
        self.add_permissions('netbox_aifabric.view_compliancerun')
        clean = record_run(self.fabric, run_compliance(self.fabric), user=self.user)
        break_by_hand(self.fabric, self.user)
        broken = record_run(self.fabric, run_compliance(self.fabric))
        response = self.tab()
        self.assertContains(response, 'id="compliance-history"')
        self.assertContains(response, '<tr class="run">', count=2)
        self.assertContains(response, '<circle', count=2)
        for run in (clean, broken):
            self.assertContains(response, f'<a href="{run.get_absolute_url()}">')
            self.assertContains(response, f'?run_id={run.pk}">{run.finding_count}</a>')
        self.assertContains(response, f'<td>{self.user.username}</td>')  # the clean run's user
        self.assertContains(response, 'scheduled')  # the broken run has none
        # newest first: the broken run's row comes before the clean one's
        body = response.content.decode()
        self.assertLess(body.index(broken.get_absolute_url()), body.index(clean.get_absolute_url()))
        self.assertContains(response, f'{broken.score} %')

    def test_the_history_shows_only_runs_the_user_may_view(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        first = record_run(self.fabric, run_compliance(self.fabric))
        second = record_run(self.fabric, run_compliance(self.fabric))
        permission = ObjectPermission.objects.create(name='one run', actions=['view'], constraints={'pk': first.pk})
        permission.object_types.add(ObjectType.objects.get_for_model(ComplianceRun))
        permission.users.add(self.user)
        response = self.tab()
        self.assertContains(response, '<tr class="run">', count=1)
        self.assertContains(response, first.get_absolute_url())
        self.assertNotContains(response, second.get_absolute_url())

    def test_the_device_panel_lists_that_devices_findings_of_the_latest_run(self):
        self.add_permissions(
            'dcim.view_device', 'netbox_aifabric.view_compliancerun', 'netbox_aifabric.view_compliancefinding'
        )
        leaf1 = Device.objects.get(name=LEAF1)
        url = leaf1.get_absolute_url()
        self.assertContains(self.client.get(url), 'No compliance run yet')
        record_run(self.fabric, run_compliance(self.fabric))
        self.assertContains(self.client.get(url), 'No findings on this device.')
        port = break_by_hand(self.fabric, self.user)
        run = record_run(self.fabric, run_compliance(self.fabric))
        (finding,) = run.findings.all()
        response = self.client.get(url)
        self.assertContains(response, '1 finding on this device')
        self.assertContains(response, '<tr class="finding">', count=1)
        self.assertContains(response, f'<a href="{finding.get_absolute_url()}"><code class="small">drift-edited</code>')
        self.assertContains(response, f'expected <em>mtu={self.fabric.mtu}</em>, found <em>mtu={port.mtu}</em>')
        # another device of the fabric has no finding in that run
        other = Device.objects.filter(pk__in=self.owned_devices()).exclude(pk=leaf1.pk).first()
        response = self.client.get(other.get_absolute_url())
        self.assertContains(response, 'No findings on this device.')
        self.assertNotContains(response, '<tr class="finding">')

    def test_the_device_panel_needs_the_run_permission(self):
        self.add_permissions('dcim.view_device')
        record_run(self.fabric, run_compliance(self.fabric))
        response = self.client.get(Device.objects.get(name=LEAF1).get_absolute_url())
        self.assertHttpStatus(response, 200)
        self.assertNotContains(response, 'id="aifabric-compliance"')

    def owned_devices(self):
        return self.fabric.owned_objects.filter(key__startswith='device:').values('object_id')


def test_score_counts_only_the_rules_that_ran():
    assert run_score({'pass': 3, 'fail': 1, 'error': 0, 'skip': 5}) == 75
    assert run_score({'pass': 0, 'fail': 0, 'error': 0, 'skip': 5}) is None
    assert run_score({'pass': 2, 'fail': 0, 'error': 1, 'skip': 0}) == 67


def make_runs():
    """Two fabrics (A, B), each with two runs; the newest run of each has one finding per family of the engine."""
    world = make_world()
    fabrics = [
        Fabric.objects.create(name=name, slug=name.lower(), site=world['sites'][0], **FABRIC_SHAPE)
        for name in ('A', 'B')
    ]
    runs = []
    for fabric in fabrics:
        for failed in (0, len(FAMILIES)):
            run = ComplianceRun.objects.create(
                fabric=fabric, status='failed' if failed else 'passed', rules=19, passed=19 - failed, failed=failed
            )
            ComplianceFinding.objects.bulk_create(
                ComplianceFinding(
                    run=run,
                    rule=f'{family}-rule',
                    title=label,
                    family=family,
                    severity='error' if i % 2 else 'warning',
                    object_repr=f'{fabric.slug} object {i}',
                    expected='x',
                    found='y',
                )
                for i, (family, label) in enumerate(list(FAMILIES.items())[:failed])
            )
            runs.append(run)
    return fabrics, runs


class ComplianceRunViewTestCase(
    ViewTestCases.GetObjectViewTestCase,
    ViewTestCases.DeleteObjectViewTestCase,
    ViewTestCases.ListObjectsViewTestCase,
    ViewTestCases.BulkDeleteObjectsViewTestCase,
):
    model = ComplianceRun

    def _get_base_url(self):
        return 'plugins:netbox_aifabric:compliancerun_{}'

    @classmethod
    def setUpTestData(cls):
        make_runs()


class ComplianceFindingViewTestCase(
    ViewTestCases.GetObjectViewTestCase,
    ViewTestCases.DeleteObjectViewTestCase,
    ViewTestCases.ListObjectsViewTestCase,
    ViewTestCases.BulkDeleteObjectsViewTestCase,
):
    model = ComplianceFinding

    def _get_base_url(self):
        return 'plugins:netbox_aifabric:compliancefinding_{}'

    @classmethod
    def setUpTestData(cls):
        make_runs()


class ComplianceRunAPITestCase(APIViewTestCases.GetObjectViewTestCase, APIViewTestCases.ListObjectsViewTestCase):
    model = ComplianceRun
    view_namespace = 'plugins-api:netbox_aifabric'
    brief_fields = ['display', 'failed', 'finding_count', 'id', 'score', 'status', 'url']

    @classmethod
    def setUpTestData(cls):
        cls.fabrics, cls.runs = make_runs()

    def test_a_user_restricted_to_one_fabric_sees_only_its_runs_and_findings(self):
        fabric = self.fabrics[0]
        for model in (ComplianceRun, ComplianceFinding):
            permission = ObjectPermission.objects.create(
                name=f'{model._meta.model_name} of {fabric.slug}',
                actions=['view'],
                constraints={'fabric__slug': fabric.slug} if model is ComplianceRun else {'run__fabric': fabric.pk},
            )
            permission.object_types.add(ObjectType.objects.get_for_model(model))
            permission.users.add(self.user)
        runs = self.client.get(reverse('plugins-api:netbox_aifabric-api:compliancerun-list'), **self.header).data
        mine = ComplianceRun.objects.filter(fabric=fabric)
        self.assertEqual(sorted(r['id'] for r in runs['results']), sorted(mine.values_list('pk', flat=True)))
        other = ComplianceRun.objects.exclude(fabric=fabric).first()
        url = reverse('plugins-api:netbox_aifabric-api:compliancerun-detail', kwargs={'pk': other.pk})
        self.assertHttpStatus(self.client.get(url, **self.header), 404)
        findings = self.client.get(
            reverse('plugins-api:netbox_aifabric-api:compliancefinding-list'), **self.header
        ).data
        self.assertEqual(findings['count'], ComplianceFinding.objects.filter(run__fabric=fabric).count())
        self.assertGreater(findings['count'], 0)
        # the UI list view enforces the same constraint
        self.client.force_login(self.user)
        response = self.client.get(reverse('plugins:netbox_aifabric:compliancerun_list'))
        self.assertContains(response, f'>{fabric.name}</a>')
        self.assertNotContains(response, f'>{self.fabrics[1].name}</a>')

    def test_read_only(self):
        self.add_permissions('netbox_aifabric.add_compliancerun', 'netbox_aifabric.view_compliancerun')
        url = reverse('plugins-api:netbox_aifabric-api:compliancerun-list')
        response = self.client.post(url, {'fabric': self.fabrics[0].pk}, format='json', **self.header)
        self.assertHttpStatus(response, 405)
        self.assertEqual(ComplianceRun.objects.count(), len(self.runs))


class ComplianceFindingAPITestCase(APIViewTestCases.GetObjectViewTestCase, APIViewTestCases.ListObjectsViewTestCase):
    model = ComplianceFinding
    view_namespace = 'plugins-api:netbox_aifabric'
    brief_fields = ['display', 'id', 'object_repr', 'rule', 'severity', 'url']

    @classmethod
    def setUpTestData(cls):
        cls.fabrics, cls.runs = make_runs()

    def test_filters(self):
        self.add_permissions('netbox_aifabric.view_compliancefinding')
        url = reverse('plugins-api:netbox_aifabric-api:compliancefinding-list')
        every = ComplianceFinding.objects.all()
        a, b = self.fabrics
        newest_a = ComplianceRun.objects.filter(fabric=a).order_by('-created', '-pk').first()
        cases = {
            f'fabric_id={a.pk}': every.filter(run__fabric=a),
            f'run_id={newest_a.pk}': every.filter(run=newest_a),
            'severity=error': every.filter(severity='error'),
            'family=roce&family=security': every.filter(family__in=('roce', 'security')),
            'latest=true': every.filter(run__in=[r for r in self.runs if r.failed]),
        }
        for query, expected in cases.items():
            with self.subTest(query=query):
                data = self.client.get(f'{url}?{query}&limit=0', **self.header).data
                self.assertEqual(
                    sorted(f['id'] for f in data['results']), sorted(expected.values_list('pk', flat=True))
                )
                self.assertGreater(data['count'], 0)
        # an unknown family or severity is a named error, not an empty list
        response = self.client.get(f'{url}?severity=fatal', **self.header)
        self.assertHttpStatus(response, 400)
        self.assertIn('severity', response.data)


def interval_setting(value):
    """The plugin's settings with ``compliance_interval`` set to ``value``."""
    plugins = copy.deepcopy(settings.PLUGINS_CONFIG)
    plugins.setdefault('netbox_aifabric', {})['compliance_interval'] = value
    return override_settings(PLUGINS_CONFIG=plugins)


def test_the_interval_setting_off_on_and_refused():
    for off in (None, 0):
        with interval_setting(off):
            assert compliance_interval() is None
            assert schedule_compliance() is None
            assert ScheduledComplianceJob not in registry['system_jobs']
    with interval_setting(90):
        assert compliance_interval() == 90
        assert schedule_compliance() is ScheduledComplianceJob
        assert registry['system_jobs'][ScheduledComplianceJob] == {'interval': 90}
    for bad in ('60', -5, 1.5, True):
        with interval_setting(bad), pytest.raises(ImproperlyConfigured, match=r"\['compliance_interval'\] must be"):
            compliance_interval()
    with interval_setting(None):
        schedule_compliance()  # leave the registry as the test settings have it (off)


class ScheduledRunTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        # a second fabric, never applied: the schedule leaves it alone
        cls.draft = Fabric.objects.create(
            name='Draft', slug='draft', site=cls.fabric.site, **{**FABRIC_SHAPE, 'design_option': 'routed'}
        )

    def test_the_system_job_runs_every_applied_fabric_and_schedules_its_next_run(self):
        with interval_setting(60):
            job = ScheduledComplianceJob.enqueue_once(interval=compliance_interval())  # what rqworker does at start
            self.assertEqual((job.interval, job.object, job.status), (60, None, 'pending'))
            ScheduledComplianceJob.handle(job)
        job.refresh_from_db()
        self.assertEqual(job.status, 'completed')
        (run,) = ComplianceRun.objects.all()
        self.assertEqual((run.fabric, run.user, run.job, run.status), (self.fabric, None, job, 'passed'))
        self.assertEqual(job.data, {'runs': [run.pk], 'pruned': 0})
        successor = Job.objects.filter(name=ScheduledComplianceJob.name, status='scheduled').exclude(pk=job.pk)
        self.assertEqual([j.interval for j in successor], [60])
        self.assertGreater(successor[0].scheduled, job.started)

    def test_switched_off_since_it_was_scheduled_it_runs_nothing_and_stops(self):
        with interval_setting(60):
            job = ScheduledComplianceJob.enqueue_once(interval=60)
        with interval_setting(0):
            ScheduledComplianceJob.handle(job)
        job.refresh_from_db()
        self.assertEqual((job.status, job.interval), ('completed', None))
        self.assertFalse(ComplianceRun.objects.exists())
        self.assertFalse(Job.objects.filter(name=ScheduledComplianceJob.name).exclude(pk=job.pk).exists())


# The read-only endpoints, for test_api_fuzz's coverage check: every path and method the OpenAPI schema publishes
FUZZED_ENDPOINTS = ('compliance-runs', 'compliance-findings')
FILTERS = {
    'compliance-runs': ('fabric_id', 'fabric', 'status', 'user_id', 'user', 'rule', 'q', 'score', 'failed', 'limit'),
    'compliance-findings': (
        'run_id',
        'fabric_id',
        'fabric',
        'rule',
        'family',
        'severity',
        'device_id',
        'latest',
        'object_type_id',
        'object_id',
        'q',
        'offset',
    ),
}
API = '/api/plugins/aifabric/'
TRICKY = ('', ' ', '0', '-1', '1.5', 'null', 'true', '²', '٣', '9' * 30, 'a\nb', '\x00', '../', '%', '🙂', 'x' * 101)
values = st.one_of(
    st.sampled_from(TRICKY),
    st.sampled_from(('error', 'drift', 'drift-edited', 'passed', 'true', 'false')),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.text(max_size=12),
)


class ComplianceRunsFuzzTestCase(hypothesis.extra.django.TestCase, APITestCase):
    """Arbitrary filters and ids on the read-only endpoints: never a 5xx, a 4xx names the filter, nothing written."""

    @classmethod
    def setUpTestData(cls):
        cls.fabrics, cls.runs = make_runs()

    @hypothesis_settings(max_examples=80, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(
        prefix=st.sampled_from(FUZZED_ENDPOINTS),
        data=st.data(),
        target=st.one_of(st.none(), st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from(TRICKY)),
    )
    def test_fuzz_filters_and_ids(self, prefix, data, target):
        self.user.is_superuser = True
        self.user.save()
        params = data.draw(st.lists(st.tuples(st.sampled_from(FILTERS[prefix]), values), max_size=4), label='params')
        before = (ComplianceRun.objects.count(), ComplianceFinding.objects.count())
        path = f'{API}{prefix}/' if target is None else f'{API}{prefix}/{quote(str(target), safe="")}/'
        response = self.client.get(f'{path}?{urlencode(params)}' if params else path, **self.header)
        self.assertLess(response.status_code, 500, f'GET {path} {params}: {response.content[:300]!r}')
        if response.status_code == 400:
            body = response.json()
            named = set(body) if isinstance(body, dict) else set()
            self.assertTrue(named & {name for name, _v in params} or 'detail' in named, body)
        self.assertEqual((ComplianceRun.objects.count(), ComplianceFinding.objects.count()), before)


@pytest.mark.django_db(transaction=True)
def test_runs_and_findings_from_pynetbox(live_server):
    """What a user's pynetbox script sees (a real HTTP server): the runs of a fabric, the errors of its latest run."""
    fabrics, runs = make_runs()
    user = User.objects.create_superuser('pynetbox', 'pynetbox@example.invalid', 'secret-password')
    token = Token.objects.create(user=user)
    nb = pynetbox.api(live_server.url, token=f'nbt_{token.key}.{token.token}')
    a = fabrics[0]
    mine = [r.pk for r in runs if r.fabric == a]
    assert sorted(r.id for r in nb.plugins.aifabric.compliance_runs.filter(fabric_id=a.pk)) == sorted(mine)
    latest = nb.plugins.aifabric.compliance_runs.get(max(mine))
    assert (latest.fabric.name, latest.status.value, latest.failed) == (a.name, 'failed', len(FAMILIES))
    errors = list(nb.plugins.aifabric.compliance_findings.filter(fabric_id=a.pk, latest=True, severity='error'))
    expected = ComplianceFinding.objects.filter(run_id=max(mine), severity='error')
    assert sorted(f.id for f in errors) == sorted(expected.values_list('pk', flat=True)) and errors
    assert {f.run.id for f in errors} == {max(mine)}
    with pytest.raises(pynetbox.RequestError) as error:
        nb.plugins.aifabric.compliance_runs.create(fabric=a.pk)
    assert error.value.req.status_code == 405
