"""The wizard's intent step takes the fabric's telemetry collectors (the fabric form's own fields and rules), empty by
default: through the real views, collectors set in the wizard reach the created fabric and every switch's rendered
context and config, and the preview no longer warns; the empty default still warns, naming the missing services and
linking to the step's Telemetry fieldset; a bad collector is a named field error with nothing written."""

import json
import re

import pytest

from core.models import ObjectChange
from dcim.models import Device
from ipam.models import Prefix

from netbox_aifabric.facts.telemetry import SERVICES, collectors_of
from netbox_aifabric.models import Fabric
from netbox_aifabric.models.fabrics import COLLECTOR_FIELDS, TELEMETRY_FIELDS
from tests.integration.base import GUIDE_COLLECTORS
from tests.integration.test_observability_preview import COLLECTOR_FIELDS as COLLECTOR_FIELD_OF
from tests.integration.test_observability_preview import WARNING
from tests.integration.test_wizard import WizardBase, url
from tests.unit.templates.helpers import render

pytestmark = pytest.mark.netbox

# the context's service of each collector field (facts/telemetry.py collectors_of)
SERVICE_OF = {field: service for service, field in COLLECTOR_FIELD_OF.items()}


def as_form(values):
    """Fabric field values as the step's form posts them: lists comma-separated."""
    return {k: ','.join(v) if isinstance(v, list) else str(v) for k, v in values.items()}


def written():
    return Fabric.objects.count(), Prefix.objects.count(), Device.objects.count(), ObjectChange.objects.count()


class WizardTelemetryTestCase(WizardBase):
    def walk_with(self, **telemetry):
        return self.walk(intent={**self.steps['intent'], **as_form(telemetry)})

    def test_the_intent_step_offers_the_fabric_forms_fields_empty(self):
        self.walk(until='pools')
        response = self.client.get(url('intent'))
        form = response.context['form']
        for field in TELEMETRY_FIELDS:
            self.assertIn(field, form.fields)
        self.assertEqual([form[field].value() or '' for field in COLLECTOR_FIELDS], [''] * len(COLLECTOR_FIELDS))
        body = response.content.decode()
        fieldset = body[body.index('id="telemetry"') :]
        for field in TELEMETRY_FIELDS:
            self.assertIn(f'name="{field}"', fieldset)

    def test_collectors_reach_the_fabric_the_contexts_and_the_configs_and_nothing_warns(self):
        response = self.walk_with(**GUIDE_COLLECTORS)
        self.assertRedirects(response, url('preview'), fetch_redirect_response=False)
        preview = self.client.get(url('preview'))
        self.assertEqual(preview.status_code, 200)
        self.assertIsNone(preview.context['observability'])
        self.assertNotContains(preview, WARNING)
        submission = {'_apply': '1', 'background': '0', 'submission': preview.context['submission']}
        response = self.client.post(url('preview'), submission)
        fabric = Fabric.objects.get(slug=self.steps['design']['slug'])
        self.assertRedirects(response, fabric.get_absolute_url(), fetch_redirect_response=False)
        for field, value in GUIDE_COLLECTORS.items():
            self.assertEqual(getattr(fabric, field), value, field)
        expected = {SERVICE_OF[field]: GUIDE_COLLECTORS[field] for field in COLLECTOR_FIELDS}
        names = fabric.nodes.filter(role__in=('leaf', 'spine')).values_list('name', flat=True)
        switches = Device.objects.filter(name__in=list(names))
        self.assertEqual(switches.count(), fabric.spine_count + fabric.leaf_count)
        for device in switches:
            context = device.get_config_context()['aifabric']
            self.assertEqual(collectors_of(context['telemetry']), expected, device.name)
            config = json.loads(render('sonic/config_db.json.j2', context))  # the wizard's NOS: sonic
            self.assertEqual(sorted(config['SYSLOG_SERVER']), sorted(GUIDE_COLLECTORS['syslog_servers']))
            self.assertEqual(sorted(config['NTP_SERVER']), sorted(GUIDE_COLLECTORS['ntp_servers']))

    def test_the_empty_default_warns_and_links_to_the_telemetry_fieldset(self):
        self.walk()
        response = self.client.get(url('preview'))
        body = response.content.decode()
        self.assertIn(WARNING, body)
        self.assertIn(f'data-missing="{" ".join(SERVICES)}"', body)
        link = re.search(r'<a href="([^"]+)" id="observability-link"', body)[1].replace('&amp;', '&')
        self.assertEqual(link, f'{url("intent")}#telemetry')
        step = self.client.get(link.split('#')[0]).content.decode()
        self.assertIn('id="telemetry"', step)

    def test_only_the_services_still_missing_are_named(self):
        self.walk_with(syslog_servers=GUIDE_COLLECTORS['syslog_servers'], ntp_servers=GUIDE_COLLECTORS['ntp_servers'])
        response = self.client.get(url('preview'))
        self.assertEqual(response.context['observability']['missing'], ['snmp', 'sflow', 'streaming'])
        self.assertContains(response, 'data-missing="snmp sflow streaming"')
        self.assertContains(response, 'No collector for SNMP, sFlow, streaming telemetry')

    def test_bad_collectors_are_named_at_their_fields_and_nothing_is_written(self):
        bad = {
            'syslog_servers': '2001:db8::1',  # IPv4 only (the form field)
            'ntp_servers': 'ntp.example',
            'streaming_collectors': '192.0.2.1,',
            'sflow_collectors': '192.0.2.1,192.0.2.2,192.0.2.3',  # at most 2
            'snmp_version': 'v1',
            'snmp_user': 'no watch',  # the model's validator (Fabric.full_clean)
            'sflow_sampling_rate': '255',  # the model's minimum
        }
        self.walk(until='pools')
        for field, value in bad.items():
            with self.subTest(field=field):
                before = written()
                response = self.client.post(url('intent'), {**self.steps['intent'], field: value})
                self.assertEqual(response.status_code, 200)
                self.assertEqual(set(response.context['form'].errors), {field})
                self.assertEqual(written(), before)
                # the preview is not reached: the step is not valid
                preview = self.client.get(url('preview'))
                self.assertRedirects(preview, url('intent'), fetch_redirect_response=False)
