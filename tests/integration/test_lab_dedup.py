"""A lab POST while the fabric's lab job is still pending or running is sent to that job instead of booting the fabric
a second time, through the Lab tab's button and the REST action alike (``lab.jobs.request_lab``); the apply
permission is checked first, its object constraints included; concurrent POSTs, each on its own database connection,
queue one job."""

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from core.models import Job, ObjectType
from users.constants import TOKEN_PREFIX
from users.models import ObjectPermission, Token, User
from utilities.testing import APITestCase, TestCase

from netbox_aifabric.lab.jobs import FabricLabJob
from netbox_aifabric.models import Fabric
from tests.integration.test_compliance_permission import make_fabrics

pytestmark = pytest.mark.netbox

FINISHED = ('completed', 'failed', 'errored')


def lab_jobs(fabric):
    return Job.objects.filter(name=FabricLabJob.name, object_id=fabric.pk).order_by('pk')


def set_status(job, status):
    """What the RQ worker records when it starts or ends the job."""
    Job.objects.filter(pk=job.pk).update(status=status)


def grant_fabrics(user, actions, constraints=None):
    permission = ObjectPermission.objects.create(name=' '.join(actions), actions=actions, constraints=constraints)
    permission.object_types.add(ObjectType.objects.get_for_model(Fabric))
    permission.users.add(user)


def ui_url(name, fabric):
    return reverse(f'plugins:netbox_aifabric:fabric_{name}', kwargs={'pk': fabric.pk})


def api_url(fabric):
    return reverse('plugins-api:netbox_aifabric-api:fabric-lab', kwargs={'pk': fabric.pk})


class LabButtonReuseTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.a, cls.b = make_fabrics()

    def test_an_unfinished_run_is_reused_until_it_ends(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.apply_fabric', 'core.view_job')
        self.assertHttpStatus(self.client.post(ui_url('lab_run', self.a)), 302)
        (job,) = lab_jobs(self.a)
        for status in ('pending', 'running'):
            set_status(job, status)
            response = self.client.post(ui_url('lab_run', self.a), follow=True)
            self.assertContains(response, f'A lab run of this fabric is already {status}')
            self.assertContains(response, f'href="{job.get_absolute_url()}"')
            self.assertEqual(list(lab_jobs(self.a)), [job])
        self.client.post(ui_url('lab_run', self.b))  # another fabric: its own job
        self.assertEqual(lab_jobs(self.b).count(), 1)
        for n, status in enumerate(FINISHED, start=2):  # an ended run is history: the next POST queues a new one
            set_status(lab_jobs(self.a).last(), status)
            response = self.client.post(ui_url('lab_run', self.a), follow=True)
            self.assertContains(response, 'The lab runs in the background')
            self.assertEqual(lab_jobs(self.a).count(), n)

    def test_the_permission_comes_before_the_reuse(self):
        queued = FabricLabJob.enqueue(instance=self.a, user=None)  # someone else's run, still pending
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.post(ui_url('lab_run', self.a))
        self.assertHttpStatus(response, 403)
        self.assertNotContains(response, queued.get_absolute_url(), status_code=403)
        grant_fabrics(self.user, ['apply'], {'slug': self.b.slug})  # the apply permission, for fabric B only
        self.assertHttpStatus(self.client.post(ui_url('lab_run', self.a)), 404)
        self.assertEqual(list(lab_jobs(self.a)), [queued])
        self.assertHttpStatus(self.client.post(ui_url('lab_run', self.b)), 302)
        self.assertEqual(lab_jobs(self.b).count(), 1)


class LabAPIReuseTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        cls.a, cls.b = make_fabrics()

    def post(self, fabric):
        return self.client.post(api_url(fabric), {}, format='json', **self.header)

    def test_post_answers_the_unfinished_job_with_reused(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.apply_fabric')
        first = self.post(self.a)
        self.assertHttpStatus(first, 202)
        self.assertFalse(first.data['reused'])
        job = Job.objects.get(pk=first.data['job']['id'])
        for status in ('pending', 'running'):
            set_status(job, status)
            again = self.post(self.a)
            self.assertHttpStatus(again, 202)
            self.assertEqual((again.data['job']['id'], again.data['reused']), (job.pk, True))
        set_status(job, 'completed')
        after = self.post(self.a)
        self.assertEqual((after.data['reused'], lab_jobs(self.a).count()), (False, 2))

    def test_constraints_of_the_apply_permission_come_first(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        FabricLabJob.enqueue(instance=self.a, user=None)
        grant_fabrics(self.user, ['apply'], {'slug': self.b.slug})
        response = self.post(self.a)
        self.assertHttpStatus(response, 403)
        self.assertNotIn('job', response.data)
        self.assertEqual(lab_jobs(self.a).count(), 1)
        self.assertHttpStatus(self.post(self.b), 202)


@pytest.mark.django_db(transaction=True)
def test_concurrent_posts_queue_one_lab_job():
    """Eight POSTs at once, four through the Lab tab's button and four over REST, each on its own connection: one
    queues the job, the other seven are sent to it."""
    fabric = make_fabrics()[0]
    user = User.objects.create_user('runner')
    grant_fabrics(user, ['view', 'apply'])
    token = Token.objects.create(user=user, write_enabled=True)
    header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
    barrier = threading.Barrier(8)
    answers, errors = [], []

    def post(over_api):
        try:
            client = Client()
            if not over_api:
                client.force_login(user)
            barrier.wait(timeout=30)
            if over_api:
                response = client.post(api_url(fabric), '{}', content_type='application/json', **header)
                answers.append((response.status_code, response.json()['job']['id'], response.json()['reused']))
            else:
                answers.append((client.post(ui_url('lab_run', fabric)).status_code, None, None))
        except Exception as e:  # reported below
            errors.append(e)
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(n % 2 == 0,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert errors == []
    (job,) = lab_jobs(fabric)
    assert sorted(status for status, _id, _reused in answers) == [202] * 4 + [302] * 4
    assert {job_id for _status, job_id, _reused in answers if job_id is not None} == {job.pk}
    assert sorted(reused for status, _id, reused in answers if status == 202) in ([False] + [True] * 3, [True] * 4)
