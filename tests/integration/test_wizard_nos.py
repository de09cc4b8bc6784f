"""Right after an apply, configs render: the wizard's NOS per switch role becomes the role's platform (the shipped
ConfigTemplates loaded on the way), and every switch renders through NetBox's own ``render-config`` endpoint."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from dcim.models import Device
from utilities.testing import APITestCase

from netbox_aifabric.facts.nos import HOST, NOS_REGISTRY
from netbox_aifabric.models import Fabric
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

TEMPLATE = {t.platform_slug: t.template_name for t in NOS_REGISTRY}


class WizardNOSTestCase(WizardBase, APITestCase):
    def setUp(self):
        APITestCase.setUp(self)
        self.user.is_superuser = True
        self.user.save()
        self.client.force_login(self.user)

    def create_and_render(self, leaf_nos, spine_nos):
        self.walk(topology={'leaf_nos': leaf_nos, 'spine_nos': spine_nos})
        response = self.client.post(url('preview'), {'_apply': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertRedirects(response, fabric.get_absolute_url(), fetch_redirect_response=False)
        self.assertEqual((fabric.platform.slug, fabric.spine_platform.slug), (leaf_nos, spine_nos))
        switches = Device.objects.filter(name__startswith='wizard-cluster-', platform__isnull=False).exclude(
            platform__slug=HOST.platform_slug
        )
        self.assertEqual(switches.count(), fabric.spine_count + fabric.leaf_count)
        api = APIClient()  # token authentication only, as NetBox's API wants it for a POST
        for device in switches:
            expected = leaf_nos if 'leaf' in device.name else spine_nos
            self.assertEqual(device.platform.slug, expected)
            self.assertEqual(device.get_config_template().name, TEMPLATE[expected])
            path = reverse('dcim-api:device-render-config', kwargs={'pk': device.pk})
            response = api.post(path, {}, format='json', **self.header)
            self.assertHttpStatus(response, 200)
            self.assertIn(device.name, response.data['content'])

    def test_sonic_leaves_and_eos_spines_render_after_create_and_apply(self):
        self.create_and_render('sonic', 'arista-eos')

    def test_nvue_leaves_and_frr_spines_render_after_create_and_apply(self):
        self.create_and_render('cumulus', 'frr')

    def test_without_a_nos_create_and_apply_is_refused(self):
        """No NOS renders nothing: the apply is refused (the reason next to the button:
        test_wizard_defaults.py); creating the draft fabric stays possible, its switches without a template."""
        self.walk(topology={'leaf_nos': ''})
        response = self.client.post(url('preview'), {'_apply': '1'}, follow=True)
        self.assertContains(response, 'No leaf config would render: choose a NOS')
        self.assertFalse(Fabric.objects.filter(slug='wizard-cluster').exists())
        self.client.post(url('preview'), {'_create': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertIsNone(fabric.platform)
        self.assertFalse(Device.objects.filter(name__startswith='wizard-cluster-').exists())


class DemoRendersTestCase(APITestCase):
    def test_the_demo_command_renders_every_switch_after_an_apply(self):
        from io import StringIO

        from django.core.management import call_command

        from netbox_aifabric.apply.writes import apply_fabric

        out = StringIO()
        call_command('aifabric_load_demo', stdout=out)
        self.assertIn('demo fabric: switch platform SONiC', out.getvalue())
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(fabric)
        switches = Device.objects.filter(name__startswith='ai-lab-fabric-', platform__isnull=False).exclude(
            platform__slug=HOST.platform_slug
        )
        self.assertEqual(switches.count(), fabric.spine_count + fabric.leaf_count)
        self.add_permissions('dcim.view_device', 'dcim.render_config_device', 'extras.view_configtemplate')
        for device in switches:
            path = reverse('dcim-api:device-render-config', kwargs={'pk': device.pk})
            response = self.client.post(path, {}, format='json', **self.header)
            self.assertHttpStatus(response, 200)
            self.assertEqual(response.data['configtemplate']['name'], TEMPLATE['sonic'])
            self.assertIn(device.name, response.data['content'])
        # a second run keeps the fabric's platform and creates nothing
        call_command('aifabric_load_demo', stdout=StringIO(), nos='frr')
        self.assertEqual(Fabric.objects.get(slug='ai-lab-fabric').platform.slug, 'sonic')


class DemoAppliedTestCase(APITestCase):
    """What scripts/run does (devenv.py dev-setup): ``aifabric_load_demo --apply``: the guide's cluster applied with a
    NOS, every switch rendered, said so; a second run applies nothing again."""

    def run_demo(self, **options):
        from io import StringIO

        from django.core.management import call_command

        out = StringIO()
        call_command('aifabric_load_demo', apply=True, stdout=out, **options)
        return out.getvalue()

    def test_the_demo_is_applied_and_every_switch_renders(self):
        from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices

        out = self.run_demo()
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        self.assertIsNotNone(fabric.last_applied)
        switches = fabric.spine_count + fabric.leaf_count
        self.assertIn(f'demo fabric: {switches} of {switches} switches rendered (AI fabric SONiC)', out)
        rendered = ConfigRenderer().render_all(fabric_devices(fabric))
        configs = [
            c for c in rendered if c.config_template is not None and c.config_template.name != HOST.template_name
        ]
        self.assertEqual(len(configs), switches)
        self.assertTrue(all(c.rendered and c.device.name in c.content for c in configs))
        (run,) = fabric.compliance_runs.all()  # the Compliance tab shows it
        self.assertIn(f'demo fabric: compliance run stored ({run.passed} of {run.rules} rules passed', out)
        self.assertEqual(run.rules, len(run.rule_results))
        applied = fabric.last_applied
        again = self.run_demo()
        self.assertNotIn('applied,', again)  # applied once
        self.assertNotIn('compliance run stored', again)
        self.assertEqual(fabric.compliance_runs.count(), 1)
        self.assertEqual(Fabric.objects.get(pk=fabric.pk).last_applied, applied)

    def test_the_demo_bom_is_balanced_with_the_management_switch_and_part_numbers(self):
        """The guide's cluster as the demo applies it: the guide's Balanced tier, the shipped management switch
        planned (as many as its copper ports need for every BMC and switch management port) and cabled, and a part
        number on every switch line (marked where no vendor source confirmed it)."""
        import math

        from dcim.models import Cable, Interface

        from netbox_aifabric.facts.catalog import MANAGEMENT_DEVICE_TYPE, device_type_seed
        from netbox_aifabric.intake.traffic import fabric_bom

        self.run_demo()
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        bom = fabric_bom(fabric)
        self.assertEqual(bom.tier.name, 'Balanced')
        seed = {e['slug']: e for e in device_type_seed()}
        entry = seed[MANAGEMENT_DEVICE_TYPE]
        copper = sum(1 for i in entry['interfaces'] if i['type'] == '1000base-t' and not i.get('mgmt_only'))
        ports = fabric.server_count + fabric.storage_count + fabric.spine_count + fabric.leaf_count
        line = next(li for li in bom.lines if li.item == f'Management switch (out of band): Arista {entry["model"]}')
        self.assertEqual((line.quantity, line.part_number), (math.ceil(ports / copper), entry['part_number']))
        self.assertIn('planned: the apply creates it', line.note)
        oob = Device.objects.filter(device_type__slug=MANAGEMENT_DEVICE_TYPE, site=fabric.site)
        self.assertEqual(oob.count(), math.ceil(ports / copper))
        cabled = Interface.objects.filter(device__in=oob, cable__isnull=False)
        self.assertEqual(cabled.count(), ports)
        self.assertEqual(Cable.objects.filter(pk__in=cabled.values('cable')).count(), ports)
        for role, device_type in (('Leaf', fabric.leaf_device_type), ('Spine', fabric.spine_device_type)):
            switch = next(li for li in bom.lines if li.item.startswith(role) and li.category == 'switch')
            shipped = seed[device_type.slug]
            marked = ' (unverified)' if shipped.get('part_number_verified') is False else ''
            self.assertEqual(switch.part_number, shipped['part_number'] + marked, role)

    def test_the_demo_runs_on_the_shipped_device_types(self):
        out = self.run_demo()
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        types = (fabric.leaf_device_type.slug, fabric.spine_device_type.slug)
        self.assertEqual(types, ('arista-dcs-7050sx3-48yc8-sonic', '7726-32x-o'))
        self.assertIn('demo fabric: leaf device type', out)
        leaf = Device.objects.get(name='ai-lab-fabric-leaf1')
        self.assertEqual(leaf.device_type, fabric.leaf_device_type)
