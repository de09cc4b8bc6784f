"""The wizard's and the plugin forms' fields in error carry Bootstrap's ``is-invalid`` (NetBox's red outline); the
wizard sets BFD and each role's breakouts (``port_map.<role>.breakout``) with errors at their own field; the traffic
classes offer NetBox's quick add."""

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from dcim.models import DeviceType

from netbox_aifabric.apply.seed import load_device_types
from netbox_aifabric.models import Fabric
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

# a 32x100G NVIDIA switch as leaf and spine: what it holds with 2 spines x 1 uplink and the peer link
HARDWARE = {'max_spines': 2, 'max_parallel_uplinks': 1, 'storage_count': 0}


def invalid_inputs(response):
    """The names of the inputs/selects/textareas the page draws with ``is-invalid``."""
    body = response.content.decode()
    names = set()
    for tag in re.findall(r'<(?:input|select|textarea)\b[^>]*>', body):
        classes = re.search(r'class="([^"]*)"', tag)
        name = re.search(r'name="([^"]*)"', tag)
        if classes and name and 'is-invalid' in classes.group(1).split():
            names.add(name.group(1))
    return names


class InvalidOutlineTestCase(WizardBase):
    def test_a_field_in_error_is_outlined_and_the_others_are_not(self):
        self.walk(until='topology')
        response = self.client.post(url('pools'), {**self.steps['pools'], 'loopback_pool': '10.254.0.1/24'})
        self.assertEqual(response.status_code, 200)
        self.assertIn('has host bits set', response.context['form'].errors['loopback_pool'][0])
        self.assertEqual(invalid_inputs(response), {'loopback_pool'})
        # the fixed value: no outline left
        response = self.client.post(url('pools'), self.steps['pools'])
        self.assertRedirects(response, url('intent'), fetch_redirect_response=False)
        self.assertEqual(invalid_inputs(self.client.get(url('pools'))), set())

    def test_a_select_and_the_design_radios_in_error(self):
        response = self.client.post(url('design'), {**self.steps['design'], 'design_option': 'bogus', 'site': ''})
        self.assertEqual(set(response.context['form'].errors), {'design_option', 'site'})
        self.assertEqual(invalid_inputs(response), {'design_option', 'site'})

    def test_the_plugins_model_forms_outline_their_errors(self):
        # the QoS profile form (NetBox's generic edit view): a lossy profile with PFC is refused at its field
        response = self.client.post(
            reverse('plugins:netbox_aifabric:qosprofile_add'),
            {'name': 'Bad', 'slug': 'bad', 'mode': 'lossy', 'pfc_priorities': '3', 'roce_dscp': '26'},
        )
        self.assertEqual(response.status_code, 200)
        errors = set(response.context['form'].errors)
        self.assertTrue(errors)
        self.assertEqual(invalid_inputs(response), errors - {'__all__'})


class WizardBFDAndBreakoutsTestCase(WizardBase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        load_device_types()
        cls.sn2700 = DeviceType.objects.get(slug='sn2700').pk

    def hardware(self, **breakouts):
        return {**HARDWARE, 'leaf_device_type': self.sn2700, 'spine_device_type': self.sn2700, **breakouts}

    def test_bfd_and_breakouts_reach_the_fabric(self):
        response = self.walk(
            design={'bfd': 'on'},
            topology=self.hardware(leaf_breakouts='swp1..swp4:4x25G, swp5:4x25G', spine_breakouts=''),
        )
        self.assertRedirects(response, url('preview'), fetch_redirect_response=False)
        self.client.post(url('preview'), {'_create': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertTrue(fabric.bfd)
        self.assertEqual(fabric.port_map, {'leaf': {'breakout': ['swp1..swp4:4x25G', 'swp5:4x25G']}})

    def test_bfd_off_and_no_breakouts_by_default(self):
        self.walk()
        self.client.post(url('preview'), {'_create': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertEqual((fabric.bfd, fabric.port_map), (False, {}))

    def topology_errors(self, **breakouts):
        self.walk(until='design')
        response = self.client.post(url('topology'), {**self.steps['topology'], **self.hardware(**breakouts)})
        self.assertEqual(response.status_code, 200, 'the step is answered with its errors')
        return response, response.context['form'].errors

    def test_a_malformed_entry_is_named_at_its_field(self):
        response, errors = self.topology_errors(leaf_breakouts='swp1..swp8:4x25G, swp9:3x25G')
        self.assertEqual(list(errors), ['leaf_breakouts'])
        self.assertIn('swp9:3x25G: write "<ports>:<lanes>x<speed>G"', errors['leaf_breakouts'][0])
        self.assertNotIn('swp1..swp8', errors['leaf_breakouts'][0])
        self.assertEqual(invalid_inputs(response), {'leaf_breakouts'})

    def test_a_port_the_device_type_lacks_is_named_at_the_spine_field(self):
        _response, errors = self.topology_errors(leaf_breakouts='swp1..swp8:4x25G', spine_breakouts='swp99:4x25G')
        self.assertEqual(list(errors), ['spine_breakouts'])
        self.assertIn('swp99 is not a port of the device type SN2700', errors['spine_breakouts'][0])

    def test_a_leaf_without_25g_ports_is_named_at_its_device_type(self):
        # 32x100G and 25G server NICs: no port for the servers until some are broken out
        response, errors = self.topology_errors()
        self.assertEqual(list(errors), ['leaf_device_type'])
        self.assertIn('has no free port that runs 25G for server ports', errors['leaf_device_type'][0])
        self.assertEqual(invalid_inputs(response), {'leaf_device_type'})

    def test_the_errors_are_listed_above_the_form_with_their_fields_labels(self):
        """A device type's dropdown opens over the text under it: the step lists each error above the form too,
        labelled and linked to its field."""
        response, errors = self.topology_errors(leaf_breakouts='swp1..swp8:4x25G, swp9:3x25G')
        form = response.context['form']
        expected = [
            f'<li><a class="alert-link" href="#{form[name].auto_id}">{form[name].label}</a>: {escape(error)}</li>'
            for name in errors
            for error in errors[name]
        ]
        self.assertEqual(list(errors), ['leaf_breakouts'])
        summary = re.search(
            r'<div class="alert alert-danger" id="wizard-field-errors".*?</div>', response.content.decode(), re.S
        )
        self.assertIsNotNone(summary)
        self.assertEqual(re.findall(r'<li>.*?</li>', summary.group(0), re.S), expected)

    def test_a_step_without_errors_lists_none(self):
        self.walk(until='design')
        response = self.client.post(
            url('topology'), {**self.steps['topology'], **self.hardware(leaf_breakouts='swp1..swp8:4x25G')}
        )
        self.assertEqual(response.status_code, 302)  # on to the next step
        self.assertNotContains(self.client.get(response['Location']), 'wizard-field-errors')

    def test_lanes_faster_than_the_port_are_named_at_the_leaf_field(self):
        _response, errors = self.topology_errors(leaf_breakouts='swp1:4x50G, swp2..swp8:4x25G')
        self.assertEqual(list(errors), ['leaf_breakouts'])
        self.assertIn('swp1 runs 100G: 4 lanes at 50G need 200G', errors['leaf_breakouts'][0])

    def test_breakouts_need_the_roles_device_type(self):
        self.walk(until='design')
        response = self.client.post(
            url('topology'), {**self.steps['topology'], **HARDWARE, 'leaf_breakouts': 'swp1:4x25G'}
        )
        errors = response.context['form'].errors
        self.assertEqual(list(errors), ['leaf_breakouts'])
        self.assertIn('choose the leaf device type', errors['leaf_breakouts'][0])
        self.assertFalse(Fabric.objects.filter(slug='wizard-cluster').exists())


class QuickAddTestCase(WizardBase):
    def test_traffic_classes_offer_netboxs_quick_add(self):
        self.walk(until='pools')
        body = self.client.get(url('intent')).content.decode()
        add = reverse('plugins:netbox_aifabric:trafficclass_add')
        self.assertIn(f'hx-get="{add}?_quickadd=True&target=id_traffic_classes"', body)
        self.assertIn('id="htmx-modal"', body)  # the modal the quick-add form opens in
        # NetBox's add view answers the quick-add form for the modal
        response = self.client.get(f'{add}?_quickadd=True&target=id_traffic_classes')
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, 'name="_quickadd"')
