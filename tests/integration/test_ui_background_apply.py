"""In the UI, the apply of a fabric with more devices than ``ui_background_apply_devices`` runs as a NetBox job by
default and the browser lands on the job's page; the form's checkbox still chooses, small fabrics apply in the
request, and the REST API keeps its own (link) threshold."""

import pytest
from django.urls import reverse

from core.models import Job
from dcim.models import Device
from users.constants import TOKEN_PREFIX
from users.models import Token
from utilities.testing import TestCase

from netbox_aifabric.apply.jobs import ApplyFabricJob, fabric_devices_count
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import Fabric
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox


def below(fabric):
    """A device threshold the fabric is above (so its UI apply goes to a job)."""
    return {'PLUGINS_CONFIG': {'netbox_aifabric': {'ui_background_apply_devices': fabric_devices_count(fabric) - 1}}}


class UIBackgroundApplyTestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_fabric', 'netbox_aifabric.apply_fabric', 'core.view_job']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def setUp(self):
        super().setUp()
        self.user.is_superuser = True  # holds every permission the apply writes with
        self.user.save()

    def apply_url(self):
        return reverse('plugins:netbox_aifabric:fabric_apply', kwargs={'pk': self.fabric.pk})

    def devices(self):
        return Device.objects.filter(name__startswith=f'{self.fabric.slug}-').count()

    def test_a_big_fabric_goes_to_a_job_and_its_page(self):
        with self.settings(**below(self.fabric)):
            plan_tab = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk}))
            self.assertRegex(plan_tab.content.decode(), r'name="background" id="background" value="1"\s+checked')
            response = self.client.post(self.apply_url(), {})
        job = Job.objects.get(object_id=self.fabric.pk, name='Apply AI fabric')
        self.assertRedirects(response, job.get_absolute_url(), fetch_redirect_response=False)
        self.assertEqual((job.status, self.devices()), ('pending', 0))  # nothing in the request
        ApplyFabricJob.handle(job)  # what the RQ worker does
        job.refresh_from_db()
        self.assertEqual(job.status, 'completed')
        self.assertEqual(self.devices(), fabric_devices_count(self.fabric))
        self.fabric.refresh_from_db()
        self.assertEqual((self.fabric.status, self.fabric.last_applied_by), ('applied', self.user))
        self.assertIsNotNone(self.fabric.last_apply_request_id)
        page = self.client.get(job.get_absolute_url())
        self.assertContains(page, 'Apply progress')

    def test_the_checkbox_still_chooses_and_small_fabrics_apply_now(self):
        with self.settings(**below(self.fabric)):
            response = self.client.post(self.apply_url(), {'background': '0'})  # unchecked: apply now
        self.assertRedirects(
            response,
            reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk}),
            fetch_redirect_response=False,
        )
        self.assertFalse(Job.objects.filter(object_id=self.fabric.pk).exists())
        self.assertEqual(self.devices(), fabric_devices_count(self.fabric))

    def test_the_api_keeps_its_link_threshold(self):
        token = Token.objects.create(user=self.user)
        header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        api = reverse('plugins-api:netbox_aifabric-api:fabric-apply', kwargs={'pk': self.fabric.pk})
        with self.settings(**below(self.fabric)):
            response = self.client.post(api, {}, content_type='application/json', **header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(self.devices(), fabric_devices_count(self.fabric))


class WizardBackgroundApplyTestCase(WizardBase):
    def test_create_and_apply_of_a_big_fabric_queues_a_job(self):
        self.walk()
        shape = self.steps['topology']
        total = sum(shape[c] for c in ('spine_count', 'leaf_count', 'server_count', 'storage_count'))
        settings = {'PLUGINS_CONFIG': {'netbox_aifabric': {'ui_background_apply_devices': total - 1}}}
        with self.settings(**settings):
            self.assertContains(self.client.get(url('preview')), 'value="1" checked')
            with self.captureOnCommitCallbacks(execute=True):
                response = self.client.post(url('preview'), {'_apply': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        jobs = reverse('plugins:netbox_aifabric:fabric_jobs', kwargs={'pk': fabric.pk})
        self.assertRedirects(response, jobs, fetch_redirect_response=False)
        job = Job.objects.get(object_id=fabric.pk, name='Apply AI fabric')
        self.assertEqual(job.status, 'pending')
        self.assertEqual(Device.objects.filter(name__startswith='wizard-cluster-').count(), 0)
