"""A whole fabric rendered at once (``POST …/fabrics/{id}/render-config/``, the Configurations tab, the
``aifabric_render_configs`` command): each device's output is exactly what NetBox's own per-device ``render-config``
returns, every template is compiled once, and NetBox's permissions and sandbox hold."""

import io
import json
import tarfile
import tempfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from core.models import DataSource, ObjectType
from dcim.models import Device, Platform
from extras.models import ConfigTemplate
from users.constants import TOKEN_PREFIX
from users.models import ObjectPermission, Token
from utilities.testing import APITestCase, TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.facts.nos import NOS_REGISTRY
from netbox_aifabric.models import Fabric
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices

pytestmark = pytest.mark.netbox

SWITCHES = ['ai-lab-fabric-leaf1', 'ai-lab-fabric-leaf2', 'ai-lab-fabric-spine1', 'ai-lab-fabric-spine2']
PERMISSIONS = [
    'netbox_aifabric.view_fabric',
    'dcim.view_device',
    'dcim.render_config_device',
    'extras.view_configtemplate',
]


def demo_fabric():
    load_demo()
    call_command('aifabric_load_templates', stdout=io.StringIO())
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    apply_fabric(fabric)
    return fabric


def set_platform(slug, names=SWITCHES):
    Device.objects.filter(name__in=names).update(platform=Platform.objects.get(slug=slug))


class FabricRenderConfigAPITestCase(APITestCase):
    user_permissions = PERMISSIONS

    @classmethod
    def setUpTestData(cls):
        cls.fabric = demo_fabric()
        cls.servers = Device.objects.filter(name__startswith='ai-lab-fabric-').exclude(name__in=SWITCHES).count()

    def url(self, query=''):
        return reverse('plugins-api:netbox_aifabric-api:fabric-render-config', kwargs={'pk': self.fabric.pk}) + query

    def post(self, body=None, query='', status=200):
        response = self.client.post(self.url(query), body or {}, format='json', **self.header)
        self.assertHttpStatus(response, status)
        return response

    def device_render(self, name, body=None):
        url = reverse('dcim-api:device-render-config', kwargs={'pk': Device.objects.get(name=name).pk})
        response = self.client.post(url, body or {}, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        return response.data['content']

    def test_every_nos_matches_netboxs_render_config_byte_for_byte(self):
        for entry in NOS_REGISTRY:
            with self.subTest(nos=entry.platform_slug):
                set_platform(entry.platform_slug)
                data = self.post().data
                # the switches and the servers (their host config)
                self.assertEqual((data['count'], data['errors']), (len(SWITCHES) + self.servers, 0))
                results = {r['device']['name']: r for r in data['results'] if r['device']['name'] in SWITCHES}
                self.assertEqual(sorted(results), SWITCHES)
                for name in SWITCHES:
                    self.assertEqual(results[name]['config_template']['name'], entry.template_name)
                    self.assertIsNone(results[name]['error'])
                    self.assertEqual(results[name]['content'], self.device_render(name))
                # the servers render their host config (the apply gave them the AI fabric host platform)
                self.assertEqual(data['skipped'], [])

    def test_one_compile_per_template(self):
        set_platform('arista-eos', ['ai-lab-fabric-spine1', 'ai-lab-fabric-spine2'])
        set_platform('frr', ['ai-lab-fabric-leaf1', 'ai-lab-fabric-leaf2'])
        renderer = ConfigRenderer()
        configs = renderer.render_all(fabric_devices(self.fabric))
        self.assertEqual(renderer.templates, 3)  # EOS, FRR and the servers' host template
        self.assertLessEqual(renderer.compiled, 3)  # (the process cache may hold them from an earlier test)
        by_name = {c.device.name: c for c in configs if c.rendered and c.device.name in SWITCHES}
        self.assertEqual(sorted(by_name), SWITCHES)
        self.assertIn('\nhostname ai-lab-fabric-spine1\n', by_name['ai-lab-fabric-spine1'].content)
        self.assertIn('router bgp 65101', by_name['ai-lab-fabric-leaf1'].content)
        self.assertEqual(by_name['ai-lab-fabric-leaf1'].filename, 'ai-lab-fabric-leaf1.conf')

    def test_template_override_and_extra_context(self):
        probe = ConfigTemplate.objects.create(
            name='probe', template_code='{{ greeting }} {{ device.name }} {{ aifabric.role }} {{ aifabric.asn }}'
        )
        data = self.post({'config_template_id': probe.pk, 'greeting': 'hello'}).data
        self.assertEqual(data['skipped'], [])
        contents = {r['device']['name']: r['content'] for r in data['results']}
        self.assertEqual(len(contents), 4 + self.servers)
        self.assertEqual(contents['ai-lab-fabric-leaf1'], 'hello ai-lab-fabric-leaf1 leaf 65101')
        self.assertEqual(contents['ai-lab-fabric-spine2'], 'hello ai-lab-fabric-spine2 spine 65100')
        # the same body through NetBox's endpoint gives the same text
        body = {'config_template_id': probe.pk, 'greeting': 'hello'}
        self.assertEqual(self.device_render('ai-lab-fabric-leaf1', body), contents['ai-lab-fabric-leaf1'])

    def test_compiled_templates_are_kept_and_an_edit_is_seen(self):
        probe = ConfigTemplate.objects.create(name='probe', template_code='one {{ device.name }}')
        leaf = fabric_devices(self.fabric).filter(name='ai-lab-fabric-leaf1')
        first = ConfigRenderer(config_template=probe)
        self.assertEqual(first.render_all(leaf)[0].content, 'one ai-lab-fabric-leaf1')
        self.assertEqual((first.templates, first.compiled), (1, 1))
        again = ConfigRenderer(config_template=ConfigTemplate.objects.get(pk=probe.pk))
        self.assertEqual(again.render_all(leaf)[0].content, 'one ai-lab-fabric-leaf1')
        self.assertEqual((again.templates, again.compiled), (1, 0))  # from the process cache
        probe.template_code = 'two {{ device.name }}'
        probe.save()
        edited = ConfigRenderer(config_template=ConfigTemplate.objects.get(pk=probe.pk))
        self.assertEqual(edited.render_all(leaf)[0].content, 'two ai-lab-fabric-leaf1')
        self.assertEqual(edited.compiled, 1)
        self.assertEqual(self.post({'config_template_id': probe.pk}).data['results'][0]['content'][:4], 'two ')

    def test_device_filter(self):
        leaf = Device.objects.get(name='ai-lab-fabric-leaf2')
        set_platform('sonic')
        data = self.post(query=f'?device_id={leaf.pk}').data
        self.assertEqual([r['device']['name'] for r in data['results']], ['ai-lab-fabric-leaf2'])
        self.assertEqual(
            json.loads(data['results'][0]['content'])['DEVICE_METADATA']['localhost']['hostname'], leaf.name
        )
        self.post(query='?device_id=leaf', status=400)

    def test_template_errors_are_reported_per_device(self):
        broken = ConfigTemplate.objects.create(name='broken', template_code='{{ aifabric.nothing.here }}')
        sandbox = ConfigTemplate.objects.create(name='escape', template_code="{{ ''.__class__.__mro__ }}")
        files = ConfigTemplate.objects.create(name='files', template_code="{% include '/etc/passwd' %}")
        for template, error in ((broken, 'UndefinedError'), (sandbox, 'SecurityError'), (files, 'TemplateNotFound')):
            with self.subTest(template=template.name):
                data = self.post({'config_template_id': template.pk}).data
                self.assertEqual(data['count'], 0)
                self.assertEqual(data['errors'], 4 + self.servers)
                self.assertTrue(all(r['content'] is None and r['error'].startswith(error) for r in data['results']))

    def test_unknown_template(self):
        response = self.post({'config_template_id': 999999}, status=400)
        self.assertIn('config_template_id', response.data)

    def test_needs_render_config_permission(self):
        self.remove_permissions('dcim.render_config_device')
        self.post(status=403)

    def test_needs_view_permission_on_the_fabric(self):
        self.remove_permissions('netbox_aifabric.view_fabric')
        self.assertIn(self.client.post(self.url(), {}, format='json', **self.header).status_code, (403, 404))

    def test_needs_a_write_enabled_token(self):
        token = Token.objects.create(user=self.user, write_enabled=False)
        header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        self.assertHttpStatus(self.client.post(self.url(), {}, format='json', **header), 403)

    def test_object_permissions_restrict_the_devices(self):
        set_platform('frr')
        self.remove_permissions('dcim.render_config_device')
        permission = ObjectPermission.objects.create(
            name='render spines', actions=['render_config'], constraints={'name__contains': 'spine'}
        )
        permission.object_types.add(ObjectType.objects.get_for_model(Device))
        permission.users.add(self.user)
        data = self.post().data
        self.assertEqual(
            [r['device']['name'] for r in data['results']], ['ai-lab-fabric-spine1', 'ai-lab-fabric-spine2']
        )


class DataFileTemplateTestCase(APITestCase):
    """A ConfigTemplate synced from a NetBox Data Source pointing at the shipped folder renders the same way."""

    user_permissions = PERMISSIONS

    def test_data_file_template(self):
        fabric = demo_fabric()
        folder = Path(__file__).resolve().parents[2] / 'templates'
        source = DataSource.objects.create(name='aifabric templates', type='local', source_url=f'file://{folder}')
        source.sync()
        data_file = source.datafiles.get(path='frr/frr.conf.j2')
        template = ConfigTemplate(name='frr from data source', data_source=source, data_file=data_file)
        template.sync_data()
        template.save()
        url = reverse('plugins-api:netbox_aifabric-api:fabric-render-config', kwargs={'pk': fabric.pk})
        data = self.client.post(url, {'config_template_id': template.pk}, format='json', **self.header).data
        leaf = next(r for r in data['results'] if r['device']['name'] == 'ai-lab-fabric-leaf1')
        device = Device.objects.get(name='ai-lab-fabric-leaf1')
        expected = self.client.post(
            reverse('dcim-api:device-render-config', kwargs={'pk': device.pk}),
            {'config_template_id': template.pk},
            format='json',
            **self.header,
        ).data['content']
        self.assertEqual(leaf['content'], expected)
        self.assertIn('router bgp 65101', expected)


class FabricConfigsViewTestCase(TestCase):
    user_permissions = PERMISSIONS

    @classmethod
    def setUpTestData(cls):
        cls.fabric = demo_fabric()
        set_platform('arista-eos')
        cls.servers = Device.objects.filter(name__startswith='ai-lab-fabric-').exclude(name__in=SWITCHES).count()

    def url(self, query=''):
        return reverse('plugins:netbox_aifabric:fabric_configs', kwargs={'pk': self.fabric.pk}) + query

    def test_tab_lists_the_rendered_devices(self):
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        # the switches and the servers' host configs
        self.assertContains(response, f'{4 + self.servers} configurations rendered')
        self.assertContains(response, 'with 2 config template(s) in')
        for name in SWITCHES:
            self.assertContains(response, name)
        self.assertContains(
            response, reverse('dcim:device_render-config', kwargs={'pk': Device.objects.get(name=SWITCHES[0]).pk})
        )

    def test_download_all(self):
        response = self.client.get(self.url('?export=tar'))
        self.assertHttpStatus(response, 200)
        self.assertEqual(response['Content-Type'], 'application/gzip')
        self.assertIn('ai-lab-fabric-configs.tar.gz', response['Content-Disposition'])
        with tarfile.open(fileobj=io.BytesIO(response.content)) as archive:
            names = sorted(archive.getnames())
            switches = [n for n in names if n.endswith('.cfg')]
            self.assertEqual(switches, [f'ai-lab-fabric/{name}.cfg' for name in SWITCHES])
            self.assertEqual(len(names) - len(switches), self.servers)  # <server>.sh
            text = archive.extractfile('ai-lab-fabric/ai-lab-fabric-leaf1.cfg').read().decode()
        self.assertIn('router bgp 65101', text)

    def test_permissions(self):
        self.remove_permissions('dcim.render_config_device')
        response = self.client.get(self.url())
        self.assertRedirects(response, self.fabric.get_absolute_url(), fetch_redirect_response=False)
        self.assertNotContains(self.client.get(self.fabric.get_absolute_url()), self.url())
        self.remove_permissions('netbox_aifabric.view_fabric')
        self.assertHttpStatus(self.client.get(self.url()), 403)


class RenderConfigsCommandTestCase(TestCase):
    def test_writes_one_file_per_device(self):
        fabric = demo_fabric()
        set_platform('cumulus')
        with tempfile.TemporaryDirectory() as folder:
            out = io.StringIO()
            call_command('aifabric_render_configs', fabric.slug, '--output', folder, stdout=out)
            files = sorted(p.name for p in Path(folder).iterdir())
            self.assertEqual([f for f in files if f.endswith('.yaml')], [f'{name}.yaml' for name in SWITCHES])
            servers = [f for f in files if f.endswith('.sh')]
            hosts = Device.objects.filter(name__startswith='ai-lab-fabric-').exclude(name__in=SWITCHES)
            self.assertEqual(servers, sorted(f'{d.name}.sh' for d in hosts))
            self.assertIn(f'{4 + len(servers)} configuration(s) written', out.getvalue())
            self.assertIn('hostname: ai-lab-fabric-spine1', (Path(folder) / 'ai-lab-fabric-spine1.yaml').read_text())
        with self.assertRaisesMessage(CommandError, "No fabric with the slug or name 'nope'"):
            call_command('aifabric_render_configs', 'nope', stdout=io.StringIO())
        broken = ConfigTemplate.objects.create(name='broken', template_code='{{ aifabric.nothing.here }}')
        with tempfile.TemporaryDirectory() as folder, self.assertRaisesMessage(CommandError, 'failed to render'):
            call_command(
                'aifabric_render_configs',
                fabric.slug,
                '-o',
                folder,
                '--template',
                'broken',
                stdout=io.StringIO(),
                stderr=io.StringIO(),
            )
        self.assertTrue(broken.pk)
