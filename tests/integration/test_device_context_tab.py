"""A device's Config Context tab shows the ``aifabric`` key once, one collapsible section per mapping or list (NetBox's
own page prints it twice: in the rendered context and in the local context the apply writes it to)."""

import html
import json
import re

import pytest
from django.urls import reverse

from dcim.models import Device
from users.models import User
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.facts.context import CONTEXT_KEY
from netbox_aifabric.models import Fabric
from tests.integration.test_object_permissions import constrained

pytestmark = pytest.mark.netbox


def json_blocks(body):
    """Every ``<pre>`` of the page parsed as JSON (the page's format is JSON)."""
    blocks = []
    for text in re.findall(r'<pre[^>]*>(.*?)</pre>', body, flags=re.S):
        try:
            blocks.append(json.loads(html.unescape(text)))
        except ValueError:
            continue
    return blocks


def occurrences(tree, target):
    """How many subtrees of ``tree`` (itself included) equal ``target``."""
    found = int(tree == target)
    children = tree.values() if isinstance(tree, dict) else tree if isinstance(tree, list) else ()
    return found + sum(occurrences(child, target) for child in children)


class DeviceContextTabTestCase(TestCase):
    user_permissions = ['dcim.view_device']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        apply_fabric(Fabric.objects.get(slug='ai-lab-fabric'))
        cls.leaf = Device.objects.get(name='ai-lab-fabric-leaf1')

    def page(self, device):
        response = self.client.get(reverse('dcim:device_configcontext', kwargs={'pk': device.pk}) + '?format=json')
        self.assertHttpStatus(response, 200)
        return response.content.decode()

    def test_each_section_of_the_key_appears_once(self):
        context = self.leaf.get_config_context()[CONTEXT_KEY]
        body = self.page(self.leaf)
        blocks = json_blocks(body)
        sections = {name: value for name, value in context.items() if isinstance(value, dict | list)}
        big = {name: value for name, value in sections.items() if len(json.dumps(value)) > 40}
        self.assertGreaterEqual(len(big), 5, 'a leaf has interfaces, BGP, VLANs, QoS, management…')
        for name, value in big.items():
            self.assertEqual(sum(occurrences(b, value) for b in blocks), 1, name)
        # the whole key is in no dump: neither the rendered nor the local context repeats it
        self.assertFalse(any(occurrences(b, context) for b in blocks))
        for name in sections:
            self.assertEqual(body.count(f'id="aifabric-section-{name}"'), 1, name)
            # collapsed until opened
            self.assertIn(f'id="aifabric-body-{name}" class="accordion-collapse collapse"', body)
        # the plain values in one table, each once
        self.assertEqual(body.count(f'<code>hostname</code></th><td>{self.leaf.name}</td>'), 1)

    def test_the_tab_is_netboxs_one_tab(self):
        url = reverse('dcim:device_configcontext', kwargs={'pk': self.leaf.pk})
        body = self.client.get(self.leaf.get_absolute_url()).content.decode()
        self.assertEqual(body.count(f'href="{url}"'), 1)

    def test_a_device_without_the_key_gets_netboxs_page(self):
        other = Device.objects.exclude(pk=self.leaf.pk).first()
        other.local_context_data = {'ntp': ['192.0.2.1']}
        other.save()
        body = self.page(other)
        self.assertNotIn('aifabric-context', body)
        self.assertEqual(sum(occurrences(b, ['192.0.2.1']) for b in json_blocks(body)), 2)  # rendered and local

    def test_object_permission_constraints_hold_as_on_netboxs_tab(self):
        """The replacement is NetBox's view subclassed: a user allowed to view only another device gets 404 on the
        leaf's tab (NetBox's restricted queryset), and the tab of the device they may view."""
        other = Device.objects.exclude(pk=self.leaf.pk).first()
        user = User.objects.create_user(username='one-device-viewer')
        constrained(user, 'view one device', ['view'], ['dcim.device'], {'name': other.name})
        self.client.force_login(user)
        url = reverse('dcim:device_configcontext', kwargs={'pk': self.leaf.pk})
        self.assertHttpStatus(self.client.get(url), 404)
        allowed = reverse('dcim:device_configcontext', kwargs={'pk': other.pk})
        self.assertHttpStatus(self.client.get(allowed), 200)
