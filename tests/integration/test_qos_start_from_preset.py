"""The QoS profile form's "Start from preset" select fills the fields with a shipped preset's values (NetBox's HTMX
select re-renders the form), and a profile saved from them carries those values."""

import pytest
from django.urls import reverse

from utilities.testing import TestCase

from netbox_aifabric.facts.catalog import qos_presets
from netbox_aifabric.models import QoSProfile

pytestmark = pytest.mark.netbox

ADD = reverse('plugins:netbox_aifabric:qosprofile_add')


def shown(value):
    """A preset value as the form renders it (lists comma-separated)."""
    return ','.join(str(v) for v in value) if isinstance(value, list) else str(value)


class StartFromPresetTestCase(TestCase):
    user_permissions = ['netbox_aifabric.add_qosprofile', 'netbox_aifabric.view_qosprofile']

    def test_the_select_fills_every_field_of_the_preset(self):
        for preset in qos_presets():
            with self.subTest(preset=preset['slug']):
                response = self.client.get(f'{ADD}?start_from={preset["slug"]}', HTTP_HX_REQUEST='true')
                self.assertHttpStatus(response, 200)
                form = response.context['form']
                self.assertEqual(form.initial['preset'], preset['slug'])
                for name in ('mode', 'ecn_min_threshold', 'roce_dscp', 'pfc_priorities', 'cnp_dscp'):
                    if name in preset:
                        self.assertEqual(
                            form[name].value(),
                            shown(preset[name]) if isinstance(preset[name], list) else preset[name],
                            name,
                        )
                if preset.get('ecn_min_threshold') is not None:
                    self.assertContains(response, f'value="{preset["ecn_min_threshold"]}"')
                if preset.get('roce_dscp'):
                    self.assertContains(response, f'value="{shown(preset["roce_dscp"])}"')

    def test_an_unknown_preset_fills_nothing(self):
        response = self.client.get(f'{ADD}?start_from=no-such-preset')
        self.assertHttpStatus(response, 200)
        self.assertNotIn('preset', {k for k, v in response.context['form'].initial.items() if v})

    def test_a_profile_saved_from_a_preset(self):
        preset = next(p for p in qos_presets() if p['mode'] == 'lossless')
        form = self.client.get(f'{ADD}?start_from={preset["slug"]}').context['form']
        data = {}
        for name, field in form.fields.items():  # what the browser posts back from the filled form
            value = field.prepare_value(form[name].value())
            if value is True:
                data[name] = 'on'
            elif value not in (None, '', False, [], {}):
                data[name] = value
        data.update(name='From preset', slug='from-preset')
        response = self.client.post(ADD, data)
        self.assertEqual(response.status_code, 302, response.context and response.context['form'].errors)
        profile = QoSProfile.objects.get(slug='from-preset')
        self.assertEqual(
            (profile.preset, profile.mode, profile.roce_dscp, profile.ecn_min_threshold),
            (preset['slug'], preset['mode'], preset['roce_dscp'], preset['ecn_min_threshold']),
        )
