"""The shipped device templates as NetBox ConfigTemplates: registered by a command, rendered by NetBox's own
``render-config`` endpoint from the devices' ``aifabric`` context, in NetBox's sandbox."""

import json

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse
from jinja2.exceptions import SecurityError, TemplateNotFound

from dcim.models import Device, Platform
from extras.models import ConfigTemplate
from utilities.testing import APITestCase

from netbox_aifabric.apply.seed import load_config_templates, load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.facts.nos import HOST, HOST_TEMPLATES, NOS_REGISTRY
from netbox_aifabric.models import Fabric

pytestmark = pytest.mark.netbox


class RenderConfigTestCase(APITestCase):
    user_permissions = ['dcim.view_device', 'dcim.render_config_device', 'extras.view_configtemplate']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        call_command('aifabric_load_templates', stdout=open('/dev/null', 'w'))
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def render(self, device_name, platform_slug):
        device = Device.objects.get(name=device_name)
        Device.objects.filter(pk=device.pk).update(platform=Platform.objects.get(slug=platform_slug))
        url = reverse('dcim-api:device-render-config', kwargs={'pk': device.pk})
        response = self.client.post(url, {}, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        return response.data['content']

    def test_command_is_idempotent(self):
        shipped = len(NOS_REGISTRY) + len(HOST_TEMPLATES)
        self.assertEqual(ConfigTemplate.objects.filter(name__startswith='AI fabric ').count(), shipped)
        report = load_config_templates()
        self.assertEqual(report.created, [])
        self.assertEqual(Platform.objects.get(slug='arista-eos').config_template.name, 'AI fabric Arista EOS')

    def test_every_registry_nos_has_its_platform_and_template(self):
        for entry in (*NOS_REGISTRY, *HOST_TEMPLATES):
            with self.subTest(nos=entry.key):
                platform = Platform.objects.get(slug=entry.platform_slug)
                self.assertEqual(platform.name, entry.platform)
                self.assertEqual(platform.config_template.name, entry.template_name)
                self.assertEqual(platform.config_template.mime_type, entry.mime_type)
                self.assertEqual(platform.config_template.file_extension, entry.file_extension)

    def test_a_server_renders_its_host_script(self):
        content = self.render('ai-lab-fabric-gpu1', HOST.platform_slug)
        self.assertIn('netplan apply', content)
        self.assertIn('mlnx_qos -i rdma1 --trust dscp', content)

    def test_every_nos_renders_a_spine_and_a_leaf(self):
        for entry in NOS_REGISTRY:
            for device in ('ai-lab-fabric-spine1', 'ai-lab-fabric-leaf1'):
                with self.subTest(nos=entry.platform_slug, device=device):
                    content = self.render(device, entry.platform_slug)
                    self.assertIn(device, content)
                    if entry.file_extension == 'json':
                        json.loads(content)
                    elif entry.file_extension == 'yaml':
                        yaml.safe_load(content)

    def test_leaf_configs_carry_the_plan(self):
        eos = self.render('ai-lab-fabric-leaf1', 'arista-eos')
        self.assertIn('router bgp 65101', eos)
        self.assertIn('10.255.2.0', eos)
        self.assertIn('vni 10040', eos)
        frr = self.render('ai-lab-fabric-leaf1', 'frr')
        self.assertIn('router bgp 65101', frr)
        self.assertIn('vni 50001', frr)
        sonic = json.loads(self.render('ai-lab-fabric-leaf1', 'sonic'))
        self.assertEqual(sonic['DEVICE_METADATA']['localhost']['hostname'], 'ai-lab-fabric-leaf1')


class SandboxTestCase(APITestCase):
    """ConfigTemplates render in NetBox's sandboxed environment: no files, no OS, no Python internals."""

    def test_template_cannot_reach_files_or_the_os(self):
        for code, error in (
            ("{{ ''.__class__.__mro__[1].__subclasses__() }}", SecurityError),
            ("{{ cycler.__init__.__globals__.os.popen('id').read() }}", SecurityError),
            ("{% include '/etc/passwd' %}", TemplateNotFound),
        ):
            with self.subTest(code=code), self.assertRaises(error):
                ConfigTemplate(name='probe', template_code=code).render(context={})
        # what the templates rely on still works: filters and the context
        output = ConfigTemplate(name='probe', template_code='{{ a | aifabric_ip_host }}').render(
            context={'a': '10.255.2.1/31'}
        )
        self.assertEqual(output, '10.255.2.1')


class AVDExportAPITestCase(APITestCase):
    user_permissions = ['netbox_aifabric.view_fabric', 'dcim.view_device']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def test_avd_export_of_the_applied_switches(self):
        url = reverse('plugins-api:netbox_aifabric-api:fabric-avd', kwargs={'pk': self.fabric.pk})
        response = self.client.get(url, **self.header)
        self.assertHttpStatus(response, 200)
        devices = response.data['devices']
        self.assertEqual(
            sorted(devices),
            ['ai-lab-fabric-leaf1', 'ai-lab-fabric-leaf2', 'ai-lab-fabric-spine1', 'ai-lab-fabric-spine2'],
        )
        leaf = devices['ai-lab-fabric-leaf1']
        self.assertEqual((leaf['router_bgp']['as'], leaf['router_bgp']['router_id']), ('65101', '10.255.0.5'))
        self.assertEqual(leaf['vxlan_interface']['vxlan1']['vxlan']['vrfs'], [{'name': 'AI-CLUSTER', 'vni': 50001}])

    def test_needs_view_permission(self):
        self.remove_permissions('netbox_aifabric.view_fabric')
        url = reverse('plugins-api:netbox_aifabric-api:fabric-avd', kwargs={'pk': self.fabric.pk})
        self.assertIn(self.client.get(url, **self.header).status_code, (403, 404))


class RenderConfigPerDesignTestCase(APITestCase):
    """``render-config`` answers a full configuration for a spine and a leaf of the MLAG and routed designs too (the
    EVPN/VXLAN demo is covered above)."""

    user_permissions = ['dcim.view_device', 'dcim.render_config_device', 'extras.view_configtemplate']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        load_config_templates()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def check(self, design):
        self.fabric.tenants.clear()
        Fabric.objects.filter(pk=self.fabric.pk).update(design_option=design)
        self.fabric.refresh_from_db()
        apply_fabric(self.fabric)
        for entry in NOS_REGISTRY:
            for name in ('ai-lab-fabric-spine1', 'ai-lab-fabric-leaf1'):
                device = Device.objects.get(name=name)
                Device.objects.filter(pk=device.pk).update(platform=Platform.objects.get(slug=entry.platform_slug))
                url = reverse('dcim-api:device-render-config', kwargs={'pk': device.pk})
                response = self.client.post(url, {}, format='json', **self.header)
                with self.subTest(design=design, nos=entry.platform_slug, device=name):
                    self.assertHttpStatus(response, 200)
                    content = response.data['content']
                    self.assertIn(name, content)
                    asn = '65100' if 'spine' in name else '65101'
                    self.assertIn(asn, content)

    def test_mlag(self):
        self.check('mlag')

    def test_routed(self):
        self.check('routed')
