"""The plan previews warn, next to the apply button, which telemetry services have no collector (the wizard's preview
and the fabric's Plan tab, through the real views), link to where the collectors are set, and never block the apply."""

import re

import pytest
from django.urls import reverse

from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.facts.telemetry import SERVICES
from netbox_aifabric.models import Fabric
from tests.integration.base import GUIDE_COLLECTORS
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

WARNING = 'id="observability-warning"'
COLLECTOR_FIELDS = {
    'syslog': 'syslog_servers',
    'ntp': 'ntp_servers',
    'snmp': 'snmp_managers',
    'sflow': 'sflow_collectors',
    'streaming': 'streaming_collectors',
}


def apply_button(body):
    return re.search(r'<button[^>]*id="apply-button"[^>]*>', body)[0]


class PlanTabObservabilityTestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_fabric', 'netbox_aifabric.apply_fabric']

    @classmethod
    def setUpTestData(cls):
        load_demo()  # the demo fabric has no collector
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.plan_url = reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': cls.fabric.pk})

    def set_collectors(self, services):
        collectors = GUIDE_COLLECTORS
        Fabric.objects.filter(pk=self.fabric.pk).update(
            **{field: collectors[field] if service in services else [] for service, field in COLLECTOR_FIELDS.items()}
        )

    def test_no_collector_warns_for_every_service_and_the_apply_stays_enabled(self):
        response = self.client.get(self.plan_url)
        self.assertHttpStatus(response, 200)
        body = response.content.decode()
        self.assertIn(WARNING, body)
        self.assertIn(f'data-missing="{" ".join(SERVICES)}"', body)
        self.assertIn('Nothing is observable', body)
        for label in ('syslog', 'NTP', 'SNMP', 'sFlow', 'streaming telemetry'):
            self.assertIn(label, response.context['observability']['message'])
        self.assertNotIn('disabled', apply_button(body))
        # next to the apply button: after it, before the next card
        after_button = body[body.index('id="apply-button"') :]
        self.assertLess(after_button.index(WARNING), after_button.index('<h2 class="card-header">'))
        self.assertNotIn('id="observability-link"', body)  # no change permission: the place is named, no link

    def test_the_link_opens_the_telemetry_fieldset_and_comes_back(self):
        self.add_permissions('netbox_aifabric.change_fabric')
        body = self.client.get(self.plan_url).content.decode()
        link = re.search(r'<a href="([^"]+)" id="observability-link"', body)[1].replace('&amp;', '&')
        edit = reverse('plugins:netbox_aifabric:fabric_edit', kwargs={'pk': self.fabric.pk})
        self.assertEqual(link, f'{edit}?return_url={self.plan_url.replace("/", "%2F")}#telemetry')
        form = self.client.get(link.split('#')[0]).content.decode()
        fieldset = form[form.index('id="telemetry"') :]
        for field in COLLECTOR_FIELDS.values():
            self.assertIn(f'name="{field}"', fieldset)

    def test_only_the_missing_services_are_named(self):
        self.set_collectors({'syslog', 'ntp'})
        body = self.client.get(self.plan_url).content.decode()
        self.assertIn('data-missing="snmp sflow streaming"', body)
        self.assertIn('No collector for SNMP, sFlow, streaming telemetry', body)
        self.assertNotIn('Nothing is observable', body)

    def test_every_collector_set_no_warning(self):
        self.set_collectors(set(SERVICES))
        response = self.client.get(self.plan_url)
        self.assertIsNone(response.context['observability'])
        self.assertNotContains(response, WARNING)


class WizardObservabilityTestCase(WizardBase):
    def test_the_preview_warns_without_blocking_create_and_apply(self):
        self.walk()
        response = self.client.get(url('preview'))
        self.assertEqual(response.status_code, 200)
        body = response.content.decode()
        self.assertIn(WARNING, body)
        self.assertIn(f'data-missing="{" ".join(SERVICES)}"', body)  # the wizard's collectors are empty by default
        link = re.search(r'<a href="([^"]+)" id="observability-link"', body)  # the wizard's Telemetry fieldset
        self.assertEqual(link and link[1].replace('&amp;', '&'), f'{url("intent")}#telemetry')
        self.assertNotIn('disabled', apply_button(body))
        self.assertEqual(response.context['apply_reasons'], [])
        self.assertLess(body.index('id="apply-button"'), body.index(WARNING))  # beside the button, after it
        # and the apply goes through: the fabric is created and applied
        response = self.client.post(url('preview'), {'_apply': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertRedirects(response, fabric.get_absolute_url(), fetch_redirect_response=False)
        self.assertEqual(fabric.nodes.count(), 9)
