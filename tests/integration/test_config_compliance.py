"""Running configs against rendered ones, end to end: the guide's cluster applied (the demo
fabric, SONiC), its switches' rendered configs committed to a Git repository and written as backups into a directory
that a real NetBox Data Source (type local) reads; one edited value on one switch is one ``config-changed`` finding
with its remediation, in the Compliance tab, the REST compliance endpoint and the compliance report; a re-rendered
backup turns it green. The same through a Data Source of type git. Uploads over REST and the UI: hostile ones (binary,
huge, the wrong device, a server, no fabric, no permission) are named 4xx errors and store nothing. An event rule on
compliance runs notifies when a sync brings a drifted switch."""

import copy
import json
import re
import tempfile
from pathlib import Path

import django_rq
import hypothesis.extra.django
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from dulwich import porcelain
from dulwich.repo import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import DataSource, Job, ObjectType
from dcim.models import Device, Platform
from extras.models import EventRule, Notification, NotificationGroup
from users.constants import TOKEN_PREFIX
from users.models import ObjectPermission, Token, User
from utilities.testing import TestCase

from netbox_aifabric.checks.backups import store_backup
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.job import ComplianceJob
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.checks.script import FabricComplianceReport
from netbox_aifabric.constants import CONFIG_BACKUP_MAX_BYTES
from netbox_aifabric.facts.nos import HOST
from netbox_aifabric.models import ComplianceRun, ConfigBackup, Fabric
from netbox_aifabric.render.config_commit import commit_fabric_configs
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices
from tests.integration.test_compliance import LEAF1, applied_demo

pytestmark = pytest.mark.netbox

CONFIG_RULES = ('config-backup', 'config-missing', 'config-changed', 'config-extra')
DRIFTED = {'attr': 'rule_results.config-changed.status', 'value': 'fail'}  # an event rule's condition


def rendered_configs(fabric) -> dict[str, str]:
    """``{switch: its rendered config}`` as ``render-config`` renders it (not the servers' host configs: running configs
    are collected from the switches)."""
    configs = ConfigRenderer().render_all(fabric_devices(fabric))
    return {c.device.name: c.content for c in configs if c.rendered and c.config_template.name != HOST.template_name}


def edited_mtu(config: str) -> tuple[str, str, str]:
    """The SONiC config with the MTU of its first port that has one set to 1500: ``(config, port, intended MTU)``."""
    data = json.loads(config)
    port = next(name for name, fields in sorted(data['PORT'].items()) if fields.get('mtu') not in (None, '1500'))
    intended = data['PORT'][port]['mtu']
    edited = copy.deepcopy(data)
    edited['PORT'][port]['mtu'] = '1500'
    return json.dumps(edited, indent=4), port, intended


def token_header(user):
    token = Token.objects.create(user=user)
    return {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}


def statuses(result) -> dict[str, str]:
    return {r.rule.id: r.status for r in result.results if r.rule.family == 'config'}


def findings(result, rule_id):
    return next(r.findings for r in result.results if r.rule.id == rule_id)


class BackupDirectoryTestCase(TestCase):
    """The guide's cluster with its backups in a directory read by a local Data Source."""

    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        cls.configs = rendered_configs(cls.fabric)

    def setUp(self):
        super().setUp()
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.source = DataSource.objects.create(name='backups', type='local', source_url=f'file://{self.folder.name}')
        Fabric.objects.filter(pk=self.fabric.pk).update(config_backup_source=self.source)
        self.fabric.refresh_from_db()

    def write(self, configs):
        for name, text in configs.items():
            Path(self.folder.name, f'{name}.json').write_text(text)

    def sync(self):
        self.source.refresh_from_db()
        self.source.sync()

    def committed(self):
        """The rendered configs committed to the fabric's Git repository (a temporary one): ``{switch: config}``."""
        repository = tempfile.TemporaryDirectory()
        self.addCleanup(repository.cleanup)
        Fabric.objects.filter(pk=self.fabric.pk).update(config_repository=repository.name)
        self.fabric.refresh_from_db()
        outcome = commit_fabric_configs(self.fabric, self.user)
        self.assertIsNotNone(outcome.commit)
        folder = Path(repository.name, self.fabric.slug)
        return {path.stem: path.read_text() for path in sorted(folder.glob('*.json'))}

    def test_one_edited_value_is_one_finding_everywhere_and_a_fresh_backup_turns_it_green(self):
        self.assertGreaterEqual(len(self.configs), 4)  # the guide's ToR pair and two spines
        self.assertEqual(self.committed(), self.configs)  # what Git holds is what the switches are given
        edited, port, mtu = edited_mtu(self.configs[LEAF1])
        self.write({**self.configs, LEAF1: edited})
        self.sync()
        self.assertEqual(ConfigBackup.objects.filter(fabric=self.fabric).count(), len(self.configs))
        result = run_compliance(self.fabric)
        self.assertEqual(
            statuses(result),
            {'config-backup': 'pass', 'config-missing': 'pass', 'config-changed': 'fail', 'config-extra': 'pass'},
        )
        (finding,) = findings(result, 'config-changed')
        self.assertEqual([o.name for o in finding.objects], [LEAF1])
        self.assertIn(port, finding.expected)
        self.assertIn(f'mtu: {mtu}', finding.expected)
        self.assertIn('mtu: 1500', finding.found)
        self.assertIn(f"HSET 'PORT|{port}' mtu {mtu}", finding.remediation)
        switches = len(self.configs)
        self.assertEqual(result.configs['counts']['not compliant'], 1)
        self.assertEqual(result.configs['percent'], round(100 * (switches - 1) / switches))
        record_run(self.fabric, result)  # the Compliance tab shows the latest stored run
        self.assert_shown_everywhere(port, mtu)
        # the switch is fixed (its config re-rendered and pushed); the next backup is compliant
        self.write({LEAF1: self.configs[LEAF1]})
        self.sync()
        result = run_compliance(self.fabric)
        self.assertEqual(set(statuses(result).values()), {'pass'})
        self.assertEqual((result.configs['percent'], result.configs['devices'][LEAF1]), (100, 'compliant'))

    def assert_shown_everywhere(self, port, mtu):
        remediation = f'HSET &#x27;PORT|{port}&#x27; mtu {mtu}'
        self.add_permissions('netbox_aifabric.view_fabric', 'dcim.view_device')
        self.add_permissions('netbox_aifabric.view_compliancerun', 'netbox_aifabric.view_compliancefinding')
        tab_url = reverse('plugins:netbox_aifabric:fabric_compliance', kwargs={'pk': self.fabric.pk})
        page = self.client.get(tab_url)  # what the switch runs is the backups' viewers' only
        self.assertContains(page, 'hidden: needs view permission on config backups')
        self.assertNotContains(page, remediation)
        self.add_permissions('netbox_aifabric.view_configbackup')
        page = self.client.get(tab_url)
        self.assertContains(page, remediation)
        self.assertContains(page, 'id="compliance-configs"')
        device = Device.objects.get(name=LEAF1)
        url = reverse('dcim:device_aifabric_config', kwargs={'pk': device.pk})
        tab = self.client.get(url)  # the state, but not the configs' lines: no render-config permission
        self.assertContains(tab, 'not compliant')
        self.assertContains(tab, 'id="config-hidden"')
        self.assertNotContains(tab, remediation)
        self.add_permissions('dcim.render_config_device')
        tab = self.client.get(url)
        self.assertContains(tab, remediation)
        self.assertContains(tab, 'Rendered (intended)')  # the side-by-side diff
        api = self.client.get(
            reverse('plugins-api:netbox_aifabric-api:fabric-compliance', kwargs={'pk': self.fabric.pk}),
            **token_header(self.user),
        )
        self.assertEqual(api.status_code, 200)
        (rule,) = [r for r in api.json()['results'] if r['id'] == 'config-changed']
        self.assertIn(f"HSET 'PORT|{port}' mtu {mtu}", rule['findings'][0]['remediation'])
        self.assertEqual(api.json()['configs']['devices'][LEAF1], 'not compliant')
        report = FabricComplianceReport()
        report.run(data={'fabric': self.fabric}, commit=False)
        config = report.tests['test_7_config']
        self.assertEqual(config['failure'], 1)
        message = next(entry[4] for entry in config['log'] if entry[1] == 'failure')
        self.assertIn(f"HSET 'PORT|{port}' mtu {mtu}", message)

    def test_a_sync_stores_only_what_changed_and_names_a_switch_never_backed_up(self):
        missing = sorted(self.configs)[-1]
        self.write({name: text for name, text in self.configs.items() if name != missing})
        self.sync()
        self.sync()  # the same files again: nothing new
        self.assertEqual(ConfigBackup.objects.filter(fabric=self.fabric).count(), len(self.configs) - 1)
        result = run_compliance(self.fabric)
        (finding,) = findings(result, 'config-backup')
        self.assertEqual(([o.name for o in finding.objects], finding.found), ([missing], 'never backed up'))
        self.assertEqual(result.configs['devices'][missing], 'never backed up')

    def test_a_sync_queues_a_compliance_run_and_a_drifted_switch_notifies(self):
        group = NotificationGroup.objects.create(name='NOC')
        group.users.add(self.user)
        rule = EventRule.objects.create(
            name='a switch drifted',
            event_types=['object_created'],
            action_type='notification',
            action_object_type=ObjectType.objects.get_for_model(group),
            action_object_id=group.pk,
            conditions=DRIFTED,
        )
        rule.object_types.add(ObjectType.objects.get_for_model(ComplianceRun))
        queue = django_rq.get_queue('default')
        queue.empty()
        self.addCleanup(queue.empty)
        self.write({**self.configs, LEAF1: edited_mtu(self.configs[LEAF1])[0]})
        with self.captureOnCommitCallbacks(execute=True):
            self.sync()
        job = Job.objects.get(name=ComplianceJob.name, object_id=self.fabric.pk)
        self.assertIsNone(job.user)  # the sync's run, as the schedule's
        ComplianceJob.handle(job)
        run = ComplianceRun.objects.get(job=job)
        self.assertEqual(run.rule_results['config-changed']['status'], 'fail')
        (notification,) = Notification.objects.all()
        self.assertEqual((notification.object, notification.user), (run, self.user))


class UploadTestCase(TestCase):
    """``POST /api/plugins/aifabric/config-backups/`` and the upload form: named refusals, nothing stored."""

    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        cls.configs = rendered_configs(cls.fabric)
        cls.leaf = Device.objects.get(name=LEAF1)

    def setUp(self):
        super().setUp()
        self.header = token_header(self.user)
        self.url = reverse('plugins-api:netbox_aifabric-api:configbackup-list')

    def post(self, body):
        return self.client.post(self.url, body, content_type='application/json', **self.header)

    def assert_refused(self, body, status, field, words):
        before = ConfigBackup.objects.count()
        response = self.post(body)
        self.assertEqual(response.status_code, status, response.content[:500])
        self.assertIn(words, ' '.join(response.json()[field]))
        self.assertEqual(ConfigBackup.objects.count(), before)

    def test_an_upload_is_stored_once_and_compared(self):
        self.add_permissions('netbox_aifabric.add_configbackup', 'dcim.view_device')
        body = {'device': self.leaf.pk, 'content': self.configs[LEAF1]}
        first = self.post(body)
        self.assertEqual(first.status_code, 201, first.content[:500])
        self.assertEqual((first.json()['source']['value'], first.json()['user']['id']), ('upload', self.user.pk))
        again = self.post(body)
        self.assertEqual((again.status_code, again.json()['id']), (200, first.json()['id']))
        self.assertEqual(ConfigBackup.objects.count(), 1)
        self.assertEqual(run_compliance(self.fabric).configs['devices'][LEAF1], 'compliant')
        self.add_permissions('netbox_aifabric.change_configbackup')  # even with it: a backup is never edited
        update = self.client.patch(
            f'{self.url}{first.json()["id"]}/', {'content': 'x'}, content_type='application/json', **self.header
        )
        self.assertEqual(update.status_code, 405)

    def test_hostile_uploads_are_named_errors_and_store_nothing(self):
        self.add_permissions('netbox_aifabric.add_configbackup', 'dcim.view_device')
        other = sorted(name for name in self.configs if name != LEAF1)[0]
        server = Device.objects.filter(name__contains='gpu').order_by('name').first()
        stray = Device.objects.create(
            name='not-in-a-fabric', site=self.leaf.site, device_type=self.leaf.device_type, role=self.leaf.role
        )
        self.assert_refused({'device': self.leaf.pk, 'content': 'a\x00b'}, 400, 'content', 'Null characters')
        huge = 'x' * (CONFIG_BACKUP_MAX_BYTES + 1)
        self.assert_refused({'device': self.leaf.pk, 'content': huge}, 413, 'content', 'at most')
        before = ConfigBackup.objects.count()
        self.client.raise_request_exception = False  # as a server answers (NetBox made it a 500)
        beyond_netbox = self.post({'device': self.leaf.pk, 'content': 'x' * 3_000_000})  # NetBox's limit: 2.5 MB
        self.assertEqual((beyond_netbox.status_code, ConfigBackup.objects.count()), (413, before))
        self.assertIn('NetBox takes at most', beyond_netbox.json()['content'][0])
        self.assert_refused({'device': self.leaf.pk, 'content': '{"PORT": '}, 400, 'content', 'no SONiC')
        self.assert_refused({'device': self.leaf.pk, 'content': self.configs[other]}, 400, 'content', other)
        self.assert_refused({'device': server.pk, 'content': self.configs[LEAF1]}, 400, 'device', 'no NOS')
        self.assert_refused({'device': stray.pk, 'content': self.configs[LEAF1]}, 400, 'device', 'no fabric')
        self.assert_refused({'device': 999999, 'content': 'x'}, 400, 'device', '')
        self.assert_refused({'device': self.leaf.pk, 'content': '   '}, 400, 'content', '')
        self.assert_refused({'device': self.leaf.pk, 'content': 'x', 'sha256': 'f' * 64}, 400, 'sha256', '')

    def test_object_permissions_are_enforced(self):
        self.add_permissions('dcim.view_device')
        self.assert_refused({'device': self.leaf.pk, 'content': self.configs[LEAF1]}, 403, 'detail', '')
        permission = ObjectPermission.objects.create(
            name='spines only', actions=['add'], constraints={'device__name__contains': 'spine'}
        )
        permission.object_types.add(ObjectType.objects.get_for_model(ConfigBackup))
        permission.users.add(self.user)
        self.assert_refused({'device': self.leaf.pk, 'content': self.configs[LEAF1]}, 403, 'device', 'permissions')
        spine = sorted(name for name in self.configs if 'spine' in name)[0]
        device = Device.objects.get(name=spine)
        allowed = self.post({'device': device.pk, 'content': self.configs[spine]})
        self.assertEqual(allowed.status_code, 201, allowed.content[:500])

    def test_the_tab_compares_only_within_the_view_constraints_on_backups(self):
        store_backup(self.fabric, self.leaf, self.configs[LEAF1], 'upload')
        self.add_permissions('dcim.view_device', 'dcim.render_config_device')
        permission = ObjectPermission.objects.create(
            name='other backups', actions=['view'], constraints={'device__name': 'another-switch'}
        )
        permission.object_types.add(ObjectType.objects.get_for_model(ConfigBackup))
        permission.users.add(self.user)
        url = reverse('dcim:device_aifabric_config', kwargs={'pk': self.leaf.pk})
        self.assertContains(self.client.get(url), 'id="config-hidden"')
        permission.constraints = {'device__name': LEAF1}
        permission.save()
        page = self.client.get(url)
        self.assertNotContains(page, 'id="config-hidden"')
        self.assertContains(page, 'id="config-ignored"')  # the comparison, compliant

    def test_the_upload_form_refuses_a_binary_file_by_name(self):
        self.add_permissions('netbox_aifabric.add_configbackup', 'dcim.view_device')
        url = reverse('plugins:netbox_aifabric:configbackup_add')
        self.assertHttpStatus(self.client.get(f'{url}?device={self.leaf.pk}'), 200)
        image = SimpleUploadedFile('leaf1.json', b'\x89PNG\r\n\x1a\n\xff\xfe' + bytes(range(256)))
        response = self.client.post(url, {'device': self.leaf.pk, 'file': image})
        self.assertHttpStatus(response, 400)
        self.assertContains(response, 'not UTF-8 text', status_code=400)
        self.assertFalse(ConfigBackup.objects.exists())
        good = SimpleUploadedFile('leaf1.json', self.configs[LEAF1].encode())
        response = self.client.post(url, {'device': self.leaf.pk, 'file': good})
        self.assertHttpStatus(response, 302)
        self.assertEqual(ConfigBackup.objects.get().source, 'upload')


class UploadFormFuzzTestCase(hypothesis.extra.django.TestCase):
    """The upload form with arbitrary bytes (a mangled real backup, or anything) and devices: a stored backup (302)
    or a 400 naming its field with nothing stored, never a 5xx."""

    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        cls.configs = rendered_configs(cls.fabric)
        cls.leaf = Device.objects.get(name=LEAF1)
        cls.admin = User.objects.create_superuser('fuzz-admin', password='x')

    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data(), device=st.sampled_from(('leaf', 'server', 'none', 'junk')))
    def test_arbitrary_uploads(self, data, device):
        config = self.configs[LEAF1].encode()
        mangled = st.builds(lambda cut, junk: config[:cut] + junk, st.integers(0, len(config)), st.binary(max_size=64))
        content = data.draw(st.one_of(st.binary(max_size=2000), mangled), label='content')
        self.client.force_login(self.admin)
        devices = {
            'leaf': self.leaf.pk,
            'server': Device.objects.filter(name__contains='gpu').first().pk,
            'none': '',
            'junk': 'x1',
        }
        before = list(ConfigBackup.objects.values_list('pk', 'sha256'))
        upload = SimpleUploadedFile('backup.json', content)
        response = self.client.post(
            reverse('plugins:netbox_aifabric:configbackup_add'), {'device': devices[device], 'file': upload}
        )
        self.assertIn(response.status_code, (302, 400), response.content[:1000])
        if response.status_code == 400:
            self.assertEqual(list(ConfigBackup.objects.values_list('pk', 'sha256')), before)


class GitBackupSourceTestCase(TestCase):
    """Backups in a Git repository (where Oxidized pushes), read by a NetBox Data Source of type git (NetBox's own
    dulwich clone) under a folder: ``configs/{device}.{extension}``; a new commit is picked by the next sync."""

    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        cls.configs = rendered_configs(cls.fabric)

    def setUp(self):
        super().setUp()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.repo = Repo.init(folder.name)
        self.addCleanup(self.repo.close)
        self.source = DataSource.objects.create(name='oxidized', type='git', source_url=f'file://{folder.name}')
        Fabric.objects.filter(pk=self.fabric.pk).update(
            config_backup_source=self.source, config_backup_pattern='configs/{device}.{extension}'
        )
        self.fabric.refresh_from_db()

    def commit(self, configs):
        paths = []
        for name, text in configs.items():
            path = Path(self.repo.path, 'configs', f'{name}.json')
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
            paths.append(str(path))
        porcelain.add(self.repo, paths)
        porcelain.commit(self.repo, message=b'backup', author=b'oxidized <o@x>', committer=b'oxidized <o@x>')

    def sync(self):
        self.source.refresh_from_db()
        self.source.sync()

    def test_a_new_commit_is_the_next_backup(self):
        self.commit(self.configs)
        self.sync()
        backups = ConfigBackup.objects.filter(fabric=self.fabric)
        self.assertEqual(backups.count(), len(self.configs))
        self.assertEqual(
            sorted(backups.values_list('origin', flat=True)),
            sorted(f'oxidized: configs/{n}.json' for n in self.configs),
        )
        self.assertEqual(run_compliance(self.fabric).configs['percent'], 100)
        edited, port, mtu = edited_mtu(self.configs[LEAF1])
        self.commit({LEAF1: edited})
        self.sync()
        self.assertEqual(backups.count(), len(self.configs) + 1)  # only the edited switch's file changed
        (finding,) = findings(run_compliance(self.fabric), 'config-changed')
        self.assertIn(f"HSET 'PORT|{port}' mtu {mtu}", finding.remediation)


# One edit per NOS that changes a rendered value (a line's last token): (pattern, replacement)
EDITS = {
    'arista-eos': (r'(?m)^(   mtu )\d+$', r'\g<1>1500'),
    'frr': (r'(?m)^( neighbor \S+ remote-as )\S+$', r'\g<1>65999'),
    'cumulus': (r'(?m)^(\s+mtu: )\d+$', r'\g<1>1500'),
}


class EveryNosTestCase(TestCase):
    """The demo's switches on each NOS the plugin renders (their platform set), a leaf's rendered config uploaded
    with one value edited: accepted as that NOS's running config of that switch, and exactly one config-changed
    finding on it, the other line rules passing."""

    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        cls.leaf = Device.objects.get(name=LEAF1)

    def test_one_edited_value_is_one_finding_on_every_nos(self):
        switches = Device.objects.filter(
            pk__in=fabric_devices(self.fabric).values('pk'), name__in=rendered_configs(self.fabric)
        )
        for slug, (pattern, replacement) in EDITS.items():
            with self.subTest(nos=slug):
                switches.update(platform=Platform.objects.get(slug=slug))
                ConfigBackup.objects.all().delete()
                intended = rendered_configs(self.fabric)[LEAF1]
                edited, count = re.subn(pattern, replacement, intended, count=1)
                self.assertEqual(count, 1, f'{slug}: no line to edit')
                leaf = Device.objects.get(pk=self.leaf.pk)  # its platform now
                _backup, created = store_backup(self.fabric, leaf, edited, 'upload')
                self.assertTrue(created)
                result = run_compliance(self.fabric)
                self.assertEqual(
                    {k: v for k, v in statuses(result).items() if k != 'config-backup'},
                    {'config-missing': 'pass', 'config-changed': 'fail', 'config-extra': 'pass'},
                )
                (finding,) = findings(result, 'config-changed')
                self.assertEqual([o.name for o in finding.objects], [LEAF1])
                self.assertTrue(finding.remediation, slug)
