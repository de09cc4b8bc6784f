"""The intended switch configs committed to the fabric's Git repository: after each apply that changed the
fabric (a job queued when the apply commits), on demand (``CommitConfigsJob``, ``aifabric_commit_configs``), one file
per rendered switch, one commit per change naming the user, the change request and the plan hash, none when nothing
changed; not for an apply inside a NetBox Branching branch."""

import tempfile
import uuid
from io import StringIO
from pathlib import Path
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse
from django_rq import get_queue
from dulwich.diff_tree import tree_changes
from dulwich.repo import Repo

from core.models import Job
from dcim.models import Device
from extras.models import ConfigTemplate
from utilities.testing import APITestCase

from netbox_aifabric.apply.lifecycle import after_apply, fabric_applied
from netbox_aifabric.apply.request import as_request_of
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices
from netbox_aifabric.render.jobs import CommitConfigsJob, queue_commit

pytestmark = pytest.mark.netbox

SWITCHES = ['ai-lab-fabric-leaf1', 'ai-lab-fabric-leaf2', 'ai-lab-fabric-spine1', 'ai-lab-fabric-spine2']
SERVERS = [
    'ai-lab-fabric-gpu1',
    'ai-lab-fabric-gpu2',
    'ai-lab-fabric-gpu3',
    'ai-lab-fabric-gpu4',
    'ai-lab-fabric-storage1',
]
# what the fabric renders: the switches' configs (SONiC) and the servers' host configs (the AI fabric host platform)
FILES = sorted([f'{name}.json' for name in SWITCHES] + [f'{name}.sh' for name in SERVERS])
BRANCH = b'refs/heads/main'


def history(path, ref=BRANCH):
    """The branch's commits, newest first, walked from its head ([] when there is no such branch yet)."""
    if not Path(path, '.git').exists() and not Path(path, 'HEAD').exists():
        return []
    with Repo(str(path)) as repo:
        return [e.commit for e in repo.get_walker([repo.refs[ref]])] if ref in repo.refs else []


def head_files(path, folder='ai-lab-fabric'):
    """``{file name: text}`` of ``<folder>/`` in the branch's head commit."""
    with Repo(str(path)) as repo:
        root = repo[repo[repo.refs[BRANCH]].tree]
        _mode, folder_id = root[folder.encode()]
        return {e.path.decode(): repo[e.sha].data.decode() for e in repo[folder_id].iteritems()}


def changed_paths(path, commit):
    with Repo(str(path)) as repo:
        parent = repo[commit.parents[0]].tree if commit.parents else None
        return sorted((c.new or c.old).path.decode() for c in tree_changes(repo.object_store, parent, commit.tree))


def rendered(fabric):
    """What the fabric's switches render now: ``{file name: text}``."""
    return {c.filename: c.content for c in ConfigRenderer().render_all(fabric_devices(fabric)) if c.rendered}


class ConfigGitTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        call_command('aifabric_load_demo', nos='sonic', stdout=StringIO())  # the guide's cluster on SONiC, a draft
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def setUp(self):
        super().setUp()
        self.user.is_superuser = True
        self.user.save()
        scratch = tempfile.TemporaryDirectory(prefix='aifabric-test-git-')
        self.addCleanup(scratch.cleanup)
        self.scratch = Path(scratch.name)
        self.repository = self.scratch / 'configs'
        self.set_repository(str(self.repository))

    def set_repository(self, repository, branch='main'):
        Fabric.objects.filter(pk=self.fabric.pk).update(config_repository=repository, config_repository_branch=branch)
        self.fabric.refresh_from_db()

    def apply(self):
        """Apply over REST, the transaction committed (its on-commit callbacks run); the commit jobs it queued."""
        before = set(Job.objects.filter(name=CommitConfigsJob.name).values_list('pk', flat=True))
        url = reverse('plugins-api:netbox_aifabric-api:fabric-apply', kwargs={'pk': self.fabric.pk})
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(url, {}, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        self.fabric.refresh_from_db()
        return list(Job.objects.filter(name=CommitConfigsJob.name).exclude(pk__in=before).order_by('pk'))

    def run_job(self, job):
        """What the RQ worker does: the job's handler, with the keywords it was queued with (its RQ job's, when the
        transaction that queued it committed)."""
        rq_job = get_queue(job.queue_name).fetch_job(str(job.job_id))
        kwargs = {k: v for k, v in (rq_job.kwargs if rq_job else {}).items() if k != 'job'}
        CommitConfigsJob.handle(job, **kwargs)
        job.refresh_from_db()
        return job


class AfterApplyTestCase(ConfigGitTestCase):
    def test_one_commit_per_changing_apply_and_none_for_a_no_op_re_apply(self):
        (job,) = self.apply()
        self.assertEqual((job.object, job.user, job.status), (self.fabric, self.user, 'pending'))
        self.assertEqual(self.run_job(job).status, 'completed', job.error)
        (first,) = history(self.repository)
        self.assertEqual(job.data['commit'], first.id.decode())
        # one file per device, exactly what the switches and the servers render
        files = head_files(self.repository)
        self.assertEqual(sorted(files), FILES)
        self.assertEqual(files, rendered(self.fabric))
        self.assertEqual(first.author, f'NetBox {self.user.username} <{self.user.username}@netbox>'.encode())
        message = first.message.decode()
        self.assertEqual(message.splitlines()[0], f'{self.fabric.name}: {len(FILES)} device configs changed')
        self.assertIn(f'\nUser: {self.user.username}\n', message)
        self.assertIn(f'\nChange request: {self.fabric.last_apply_request_id}\n', message)
        self.assertIn(f'\nPlan hash: {self.fabric.last_plan_hash}\n', message)
        for name in SWITCHES:
            self.assertIn(f'\nA ai-lab-fabric/{name}.json', message)

        # a re-apply that changes nothing records nothing: no job, no commit
        self.assertEqual(self.apply(), [])
        self.assertEqual(len(history(self.repository)), 1)

        # an intent edit that changes the switches' configs: the next apply is one commit with what changed
        before = rendered(self.fabric)
        fabric = Fabric.objects.get(pk=self.fabric.pk)
        fabric.bfd = True
        fabric.save()
        (job,) = self.apply()
        self.assertEqual(self.run_job(job).status, 'completed', job.error)
        after = rendered(self.fabric)
        changed = sorted(f'ai-lab-fabric/{n}' for n in after if after[n] != before[n])
        self.assertTrue(changed)
        second, _first = history(self.repository)
        self.assertEqual(changed_paths(self.repository, second), changed)
        self.assertEqual(head_files(self.repository), after)
        self.assertIn(f'\nChange request: {self.fabric.last_apply_request_id}\n', second.message.decode())
        self.assertTrue(second.message.decode().startswith(f'{self.fabric.name}: {len(changed)} device config'))

    def test_a_job_of_an_earlier_apply_leaves_the_commit_to_the_later_ones(self):
        (job,) = self.apply()
        CommitConfigsJob.handle(job, request_id=str(uuid.uuid4()))  # as if queued by an apply before the last one
        job.refresh_from_db()
        self.assertEqual(
            (job.status, job.data), ('completed', {'superseded_by': str(self.fabric.last_apply_request_id)})
        )
        self.assertEqual(history(self.repository), [])

    def test_no_repository_no_job(self):
        self.set_repository('')
        self.assertEqual(self.apply(), [])

    def test_an_apply_inside_a_branching_branch_queues_nothing(self):
        """Branching's merge replays a branch in main; until then its configs run on no switch."""
        with mock.patch('netbox_aifabric.signals.branching.active_branch', return_value=object()):
            with self.captureOnCommitCallbacks() as callbacks:
                fabric_applied.send(sender=Fabric, fabric=self.fabric, user=self.user, plan=None)
        self.assertEqual(callbacks, [])
        with self.captureOnCommitCallbacks() as callbacks:
            fabric_applied.send(sender=Fabric, fabric=self.fabric, user=self.user, plan=None)
        self.assertEqual(len(callbacks), 1)  # the control: in main, the commit is queued

    def test_the_demo_loader_applies_and_queues_the_commit_of_the_system(self):
        with self.captureOnCommitCallbacks(execute=True):
            out = StringIO()
            call_command('aifabric_load_demo', nos='sonic', apply=True, stdout=out)
        self.assertIn(
            f'demo fabric: 4 of 4 switches rendered (AI fabric SONiC); {len(SERVERS)} servers', out.getvalue()
        )
        (job,) = Job.objects.filter(name=CommitConfigsJob.name)
        self.assertEqual(self.run_job(job).status, 'completed', job.error)
        (commit,) = history(self.repository)
        self.assertIn('\nUser: system\nChange request: none\n', commit.message.decode())
        self.assertEqual(commit.author, b'NetBox system <system@netbox>')


class OnDemandTestCase(ConfigGitTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        # applied by an operator in a request of its own (a change request id), before any repository was set
        operator = get_user_model().objects.create_user(username='operator', is_superuser=True)
        with as_request_of(operator):
            plan, changes = apply_fabric(cls.fabric, user=operator)
            after_apply(cls.fabric, plan, operator, changes)
        cls.fabric.refresh_from_db()
        assert cls.fabric.last_apply_request_id is not None

    def command(self, *args):
        out, err = StringIO(), StringIO()
        call_command('aifabric_commit_configs', *args, stdout=out, stderr=err)
        return out.getvalue(), err.getvalue()

    def test_the_command_prints_the_commit_then_nothing_changed(self):
        out, _err = self.command(self.fabric.slug)
        (commit,) = history(self.repository)
        self.assertEqual(out.splitlines()[0], commit.id.decode())
        self.assertIn(
            f'{self.fabric}: committed to {self.repository} (main): {len(FILES)} of {len(FILES)} file(s) changed', out
        )
        self.assertIn('\nUser: system\n', commit.message.decode())
        self.assertIn(f'\nPlan hash: {self.fabric.last_plan_hash}\n', commit.message.decode())
        out, _err = self.command(self.fabric.name)  # by name too
        self.assertIn('nothing changed', out)
        self.assertEqual(len(history(self.repository)), 1)

    def test_a_device_that_does_not_render_is_named_and_loses_its_file(self):
        self.command(self.fabric.slug)
        broken = ConfigTemplate.objects.create(name='broken', template_code='{{ nothing.here }}')
        Device.objects.filter(name='ai-lab-fabric-leaf2').update(config_template=broken)
        out, err = self.command(self.fabric.slug)
        self.assertIn('ai-lab-fabric-leaf2 did not render, so it has no file', err)
        latest, _first = history(self.repository)
        self.assertEqual(changed_paths(self.repository, latest), ['ai-lab-fabric/ai-lab-fabric-leaf2.json'])
        message = latest.message.decode()
        self.assertIn('1 device config changed', message)
        self.assertIn('\nD ai-lab-fabric/ai-lab-fabric-leaf2.json\n', message)
        self.assertIn('\nNot rendered (no file):\nai-lab-fabric-leaf2: ', message)

    def test_the_command_names_its_errors(self):
        with self.assertRaisesMessage(CommandError, "No fabric with the slug or name 'nope'"):
            self.command('nope')
        (self.scratch / 'a-file').write_text('not a repository')
        self.set_repository(str(self.scratch / 'a-file'))
        with self.assertRaisesMessage(CommandError, f'Git repository {self.scratch / "a-file"}: not a directory'):
            self.command(self.fabric.slug)
        self.set_repository(str(self.repository), branch='bad..branch')
        with self.assertRaisesMessage(CommandError, "branch 'bad..branch' rejected"):
            self.command(self.fabric.slug)
        self.set_repository('')
        with self.assertRaisesMessage(CommandError, 'has no config repository'):
            self.command(self.fabric.slug)

    def test_a_remote_over_a_file_url_is_pushed(self):
        remote = self.scratch / 'remote.git'
        Repo.init_bare(str(remote), mkdir=True).close()
        self.set_repository(f'file://{remote}', branch='intended')
        out, _err = self.command(self.fabric.slug)
        (commit,) = history(remote, b'refs/heads/intended')
        self.assertEqual(out.splitlines()[0], commit.id.decode())

    def test_the_job_on_demand(self):
        job = CommitConfigsJob.enqueue(instance=self.fabric, user=self.user)
        self.assertEqual(self.run_job(job).status, 'completed', job.error)
        (commit,) = history(self.repository)
        self.assertEqual(job.data['commit'], commit.id.decode())
        self.assertEqual(job.data['files'], FILES)
        self.assertEqual(job.data['failed'], {})
        self.assertIn(f'\nUser: {self.user.username}\n', commit.message.decode())
        self.assertIn(f'\nChange request: {self.fabric.last_apply_request_id}\n', commit.message.decode())
        again = self.run_job(queue_commit(self.fabric, self.user))
        self.assertEqual((again.status, again.data['commit']), ('completed', None))
        self.assertEqual(len(history(self.repository)), 1)

    def test_a_failed_commit_fails_the_job_naming_the_repository(self):
        self.set_repository(f'file://{self.scratch}/nowhere.git')
        job = self.run_job(CommitConfigsJob.enqueue(instance=self.fabric, user=self.user))
        self.assertEqual(job.status, 'failed')
        self.assertTrue(job.error.startswith(f'Git repository file://{self.scratch}/nowhere.git: unreachable'))

    def test_the_command_queues_the_job_once(self):
        out, _err = self.command(self.fabric.slug, '--background')
        self.assertIn('queued as job', out)
        out, _err = self.command(self.fabric.slug, '--background')
        self.assertIn('already queued as job', out)
        self.assertEqual(Job.objects.filter(name=CommitConfigsJob.name, status='pending').count(), 1)
