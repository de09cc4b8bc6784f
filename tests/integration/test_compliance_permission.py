"""Running the compliance checks stores a run, so it needs the add permission on compliance runs with its object
constraints (a view-only user's POST stored a run and queued a job), and a run of the fabric already pending
is answered instead of queueing another (10 POSTs in 2 s were 10 jobs), through the REST action and the tab's button
alike (``checks.job.request_compliance``); concurrent POSTs queue one job."""

import threading

import pytest
from django.db import connection
from django.urls import reverse

from core.models import Job, ObjectChange, ObjectType
from users.constants import TOKEN_PREFIX
from users.models import ObjectPermission, Token, User
from utilities.testing import APITestCase, TestCase

from netbox_aifabric.checks.job import ComplianceJob, request_compliance
from netbox_aifabric.models import ComplianceRun, Fabric
from tests.integration.base import FABRIC_SHAPE, make_world

pytestmark = pytest.mark.netbox

JOB = ComplianceJob.name


def make_fabrics():
    world = make_world()
    return [
        Fabric.objects.create(name=name, slug=name.lower(), site=world['sites'][0], **FABRIC_SHAPE)
        for name in ('A', 'B')
    ]


def grant_runs(user, constraints=None):
    """The add permission on compliance runs, limited by ``constraints``."""
    permission = ObjectPermission.objects.create(name='runs', actions=['add'], constraints=constraints)
    permission.object_types.add(ObjectType.objects.get_for_model(ComplianceRun))
    permission.users.add(user)


def jobs(fabric):
    return Job.objects.filter(name=JOB, object_id=fabric.pk)


class CompliancePostTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        cls.a, cls.b = make_fabrics()

    def post(self, fabric):
        url = reverse('plugins-api:netbox_aifabric-api:fabric-compliance', kwargs={'pk': fabric.pk})
        return self.client.post(url, {}, format='json', **self.header)

    def test_a_view_only_user_may_read_but_not_run(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        changes = ObjectChange.objects.count()
        response = self.post(self.a)
        self.assertHttpStatus(response, 403)
        self.assertEqual((jobs(self.a).count(), ComplianceRun.objects.count()), (0, 0))
        self.assertEqual(ObjectChange.objects.count(), changes)
        url = reverse('plugins-api:netbox_aifabric-api:fabric-compliance', kwargs={'pk': self.a.pk})
        self.assertHttpStatus(self.client.get(url, **self.header), 200)  # reading stays the view permission's

    def test_the_add_permission_runs_it_and_a_pending_run_is_reused(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.add_compliancerun')
        first = self.post(self.a)
        self.assertHttpStatus(first, 202)
        self.assertFalse(first.data['reused'])
        for _i in range(9):  # the ten POSTs
            again = self.post(self.a)
            self.assertHttpStatus(again, 202)
            self.assertEqual((again.data['job']['id'], again.data['reused']), (first.data['job']['id'], True))
        self.assertEqual(jobs(self.a).count(), 1)
        self.assertEqual(ComplianceRun.objects.count(), 0)  # the probe of the constraints left no run behind
        other = self.post(self.b)  # another fabric: its own job
        self.assertNotEqual(other.data['job']['id'], first.data['job']['id'])
        job = Job.objects.get(pk=first.data['job']['id'])
        ComplianceJob.handle(job)  # what the RQ worker does: no longer pending
        self.assertEqual(Job.objects.get(pk=job.pk).status, 'completed')
        after = self.post(self.a)
        self.assertFalse(after.data['reused'])
        self.assertEqual(jobs(self.a).count(), 2)

    def test_constraints_of_the_add_permission_are_honoured(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        grant_runs(self.user, {'fabric__slug': self.b.slug})
        self.assertHttpStatus(self.post(self.a), 403)
        self.assertEqual(jobs(self.a).count(), 0)
        self.assertHttpStatus(self.post(self.b), 202)
        self.assertEqual(ComplianceRun.objects.count(), 0)

    def test_a_read_only_token_cannot_run(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.add_compliancerun')
        token = Token.objects.create(user=self.user, write_enabled=False)
        url = reverse('plugins-api:netbox_aifabric-api:fabric-compliance', kwargs={'pk': self.a.pk})
        header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        response = self.client.post(url, {}, format='json', **header)
        self.assertHttpStatus(response, 403)
        self.assertEqual(jobs(self.a).count(), 0)


class ComplianceButtonTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.a, _b = make_fabrics()

    def url(self, name):
        return reverse(f'plugins:netbox_aifabric:fabric_{name}', kwargs={'pk': self.a.pk})

    def test_the_button_needs_the_add_permission_and_reuses_the_pending_run(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        self.assertNotContains(self.client.get(self.url('compliance')), self.url('compliance_run'))
        self.assertHttpStatus(self.client.post(self.url('compliance_run')), 403)
        self.assertEqual(jobs(self.a).count(), 0)
        self.add_permissions('netbox_aifabric.add_compliancerun', 'core.view_job')
        self.assertContains(self.client.get(self.url('compliance')), self.url('compliance_run'))
        self.assertHttpStatus(self.client.post(self.url('compliance_run')), 302)
        response = self.client.post(self.url('compliance_run'), follow=True)
        self.assertContains(response, 'already queued')
        self.assertEqual(jobs(self.a).count(), 1)


@pytest.mark.django_db(transaction=True)
def test_concurrent_posts_queue_one_job():
    """Eight requests at once, each on its own connection: the advisory lock lets one queue, the others reuse it."""
    fabric_pk = make_fabrics()[0].pk
    user = User.objects.create_user('runner')
    permission = ObjectPermission.objects.create(name='all', actions=['add', 'view'])
    permission.object_types.add(ObjectType.objects.get_for_model(ComplianceRun))
    permission.users.add(user)
    barrier = threading.Barrier(8)
    outcomes, errors = [], []

    def run():
        try:
            barrier.wait(timeout=30)
            runner = User.objects.get(pk=user.pk)
            outcomes.append(request_compliance(Fabric.objects.get(pk=fabric_pk), runner))
        except Exception as e:  # reported below
            errors.append(e)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(o.reused for o in outcomes) == [False] + [True] * 7
    assert len({o.job.pk for o in outcomes}) == 1
    assert Job.objects.filter(name=JOB, object_id=fabric_pk).count() == 1
