"""The fabric lab from NetBox: the Lab tab, its Run button and the REST action queue a NetBox job with the fabric's
apply permission (object constraints included); the job, run for real where the host can run the lab, stores every
check in the job's data and the tab shows them."""

import pytest
from django.urls import reverse

from core.models import Job, ObjectChange
from dcim.models import Device
from utilities.testing import APITestCase, TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.lab.jobs import FabricLabJob
from netbox_aifabric.lab.netns import unavailable_reason
from netbox_aifabric.models import AcceptanceRun, Fabric
from netbox_aifabric.ui.jobs import POLL_SECONDS
from tests.integration.test_compliance import constrain

HTTP_STOP_POLLING = 286  # htmx's: stop polling (https://htmx.org/docs/#polling)

pytestmark = pytest.mark.netbox


class LabTabTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def url(self, name='lab'):
        return reverse(f'plugins:netbox_aifabric:fabric_{name}', kwargs={'pk': self.fabric.pk})

    def test_view_only_sees_no_run_button_and_may_not_run(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        self.assertContains(response, 'The lab has not run for this fabric.')
        self.assertNotContains(response, 'Run lab')
        self.assertHttpStatus(self.client.post(self.url('lab_run')), 403)
        self.assertFalse(Job.objects.filter(name=FabricLabJob.name).exists())

    def test_the_apply_permission_queues_a_run(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.apply_fabric')
        self.assertContains(self.client.get(self.url()), 'Run lab')
        response = self.client.post(self.url('lab_run'))
        self.assertHttpStatus(response, 302)
        job = Job.objects.get(name=FabricLabJob.name)
        self.assertEqual((job.object, job.user), (self.fabric, self.user))

    def test_the_latest_run_card_polls_while_the_job_has_not_finished(self):
        """After "Run lab" the tab's card asks for itself (htmx) every few seconds; the card, asked by htmx, is the
        partial alone while the job is pending, and htmx's 286 (stop polling) with the finished state after it."""
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.apply_fabric')
        self.assertNotContains(self.client.get(self.url()), 'hx-trigger')  # no job: nothing to wait for
        self.client.post(self.url('lab_run'))
        job = Job.objects.get(name=FabricLabJob.name)
        trigger = f'hx-trigger="every {POLL_SECONDS}s"'
        self.assertContains(self.client.get(self.url()), trigger, count=1)
        partial = self.client.get(self.url(), HTTP_HX_REQUEST='true')
        self.assertHttpStatus(partial, 200)
        self.assertContains(partial, trigger, count=1)
        self.assertNotContains(partial, '<html')  # the card alone, not the page
        Job.objects.filter(pk=job.pk).update(status='failed', data={'error': 'the lab needs root'})
        finished = self.client.get(self.url(), HTTP_HX_REQUEST='true')
        self.assertEqual(finished.status_code, HTTP_STOP_POLLING)
        self.assertNotContains(finished, 'hx-trigger', status_code=HTTP_STOP_POLLING)
        self.assertContains(finished, 'the lab needs root', status_code=HTTP_STOP_POLLING)

    def test_the_polled_card_keeps_the_view_constraints(self):
        constrain(self.user, 'another-fabric')
        self.assertHttpStatus(self.client.get(self.url(), HTTP_HX_REQUEST='true'), 404)

    @pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}')
    def test_a_real_run_is_stored_and_shown_check_by_check(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.view_acceptancerun')
        self.add_permissions('netbox_aifabric.view_acceptanceresult')
        job = FabricLabJob.enqueue(instance=self.fabric, user=self.user, immediate=True)
        job.refresh_from_db()
        self.assertEqual((job.status, job.data['ok']), ('completed', True), job.data)
        run = AcceptanceRun.objects.get(pk=job.data['acceptance_run'])
        counts = job.data['counts']
        self.assertEqual(
            (run.kind, run.user, run.passed, run.failed, run.not_verified, run.results.count()),
            (
                'lab',
                self.user,
                counts['passed'],
                counts['failed'],
                counts['not-verified-here'],
                len(job.data['checks']),
            ),
        )
        logged = ObjectChange.objects.filter(changed_object_id=run.pk, user=self.user, action='create')
        self.assertEqual([c.changed_object_type.model for c in logged], ['acceptancerun'])
        response = self.client.get(self.url())
        passed = sum(1 for check in job.data['checks'] if check['status'] == 'passed')
        self.assertGreater(passed, 0)
        self.assertContains(response, 'text-bg-green">passed<', count=passed)
        self.assertContains(response, f'{job.data["counts"]["passed"]} passed')

    @pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}')
    def test_one_wrong_remote_as_is_stored_as_exactly_that_failure(self):
        """Negative control through NetBox: leaf1's first uplink neighbour given a wrong remote AS in its config
        context; the stored run fails on that session (both ends, and the EVPN session between the two over the loopback
        it carried) and on nothing but that pair and convergence."""
        leaf1 = Device.objects.get(name='ai-lab-fabric-leaf1')
        context = leaf1.local_context_data
        neighbor = next(n for n in context['aifabric']['bgp']['neighbors'] if n['kind'] == 'uplink')
        neighbor['remote_asn'] += 1000
        leaf1.local_context_data = context
        leaf1.save()
        job = FabricLabJob.enqueue(instance=self.fabric, user=self.user, immediate=True, timeout=10)
        job.refresh_from_db()
        run = AcceptanceRun.objects.get(pk=job.data['acceptance_run'])
        self.assertEqual((job.status, run.status), ('failed', 'failed'))
        ends = (leaf1.name, neighbor['peer'])
        pair = {f'{a} {arrow} {b}' for a, b in (ends, ends[::-1]) for arrow in ('->', '<-')}  # <-: type-3 routes
        failed = run.results.filter(status='failed')
        sessions = {r.subject for r in failed if r.category == 'bgp'}
        self.assertEqual(sessions, {f'{leaf1.name} -> {ends[1]}', f'{ends[1]} -> {leaf1.name}'})
        self.assertIn(
            f'remote AS {neighbor["remote_asn"]}',
            failed.get(name=f'bgp {leaf1.name} -> {neighbor["peer"]} {neighbor["address"]} (uplink)').seen,
        )
        self.assertEqual({r.subject for r in failed} - pair, {''}, [r.name for r in failed])  # '' : convergence


class LabAPITestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def url(self, pk=None):
        return reverse('plugins-api:netbox_aifabric-api:fabric-lab', kwargs={'pk': pk or self.fabric.pk})

    def test_get_answers_the_latest_run(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get(self.url(), **self.header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(response.data, {'fabric': self.fabric.pk, 'job': None, 'result': None})

    def test_post_needs_the_apply_permission_and_its_constraints(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        self.assertHttpStatus(self.client.post(self.url(), {}, format='json', **self.header), 403)
        self.add_permissions('netbox_aifabric.apply_fabric')
        response = self.client.post(self.url(), {}, format='json', **self.header)
        self.assertHttpStatus(response, 202)
        job = Job.objects.get(pk=response.data['job']['id'])
        self.assertEqual((job.name, job.object, job.user), (FabricLabJob.name, self.fabric, self.user))
        self.assertEqual(self.client.get(self.url(), **self.header).data['job']['id'], job.pk)

    def test_a_fabric_outside_the_view_constraints_is_a_404(self):
        constrain(self.user, 'another-fabric')
        self.assertHttpStatus(self.client.post(self.url(), {}, format='json', **self.header), 404)
        self.assertHttpStatus(self.client.get(self.url(), **self.header), 404)


class LabJobWithoutUserTestCase(TestCase):
    """A job without a user (a scheduled run) stores its run too, without a change record (NetBox's needs a user)."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    @pytest.mark.skipif(bool(unavailable_reason()), reason=f'lab: {unavailable_reason()}')
    def test_stored_without_a_user(self):
        job = FabricLabJob.enqueue(instance=self.fabric, user=None, immediate=True)
        job.refresh_from_db()
        run = AcceptanceRun.objects.get(pk=job.data['acceptance_run'])
        self.assertEqual((job.status, run.user, run.results.count()), ('completed', None, len(job.data['checks'])))
