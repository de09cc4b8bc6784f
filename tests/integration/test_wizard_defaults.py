"""The wizard's defaults as a newcomer takes them: every step submitted with what it proposes gives a
fabric whose every switch renders and whose management plane admits only the proposed jump hosts; a missing NOS or
jump-host subnet blocks "Create and apply" with the reason next to the button; one submission of the preview's form
creates one fabric however often it is posted."""

import json

import netaddr
import pytest

from dcim.models import Device, DeviceType, Interface
from ipam.models import ASNRange, Prefix

from netbox_aifabric.apply.seed import load_device_types
from netbox_aifabric.apply.shape import fitting_shape
from netbox_aifabric.facts.catalog import MANAGEMENT_DEVICE_TYPE, traffic_class_seed
from netbox_aifabric.facts.nos import HOST
from netbox_aifabric.models import Fabric, QoSProfile
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices
from netbox_aifabric.views.wizard import SUBMISSION_TOKEN
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

NAMED = {'name': 'Default cluster', 'slug': 'default-cluster'}


def defaults(form):
    """The POST data a browser sends for ``form`` left as proposed: each field's initial value."""
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if value in (None, False, '', []):
            continue
        data[name] = 'on' if value is True else value
    return data


def mgmt_sources(config):
    """The SRC_IPs of a rendered SONiC config_db.json's AIFABRIC_MGMT control-plane rules, and its services."""
    db = json.loads(config.content)
    rules = {key: rule for key, rule in db.get('ACL_RULE', {}).items() if key.startswith('AIFABRIC_MGMT|')}
    services = db.get('ACL_TABLE', {}).get('AIFABRIC_MGMT', {}).get('services') or []
    return sorted(rule['SRC_IP'] for rule in rules.values()), sorted(services)


def written():
    return (Fabric.objects.count(), Prefix.objects.count(), ASNRange.objects.count(), Device.objects.count())


class WizardDefaultsTestCase(WizardBase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        load_device_types()  # as the demo command does

    def walk_defaults(self, **changes):
        """GET each step and POST what it proposes (the design step: a name and the demo's site)."""
        for step in ('design', 'topology', 'pools', 'intent'):
            data = defaults(self.client.get(url(step)).context['form'])
            if step == 'design':
                data.update(NAMED, site=self.demo.site.pk)
            data.update(changes.get(step, {}))
            response = self.client.post(url(step), {k: v for k, v in data.items() if v is not None})
            self.assertRedirects(
                response,
                url({'design': 'topology', 'topology': 'pools', 'pools': 'intent', 'intent': 'preview'}[step]),
                fetch_redirect_response=False,
            )
        return self.client.get(url('preview'))

    def test_all_defaults_render_every_switch_with_management_from_the_proposed_jump_hosts(self):
        mgmt = next(e for e in traffic_class_seed() if e['purpose'] == 'management')
        proposed = str(list(netaddr.IPNetwork(mgmt['prefix']).subnet(28))[1])  # the second /28 of MGMT
        self.assertEqual(self.client.get(url('pools')).context['form']['jump_host_prefix'].value(), proposed)
        preview = self.walk_defaults()
        self.assertEqual(preview.context['apply_reasons'], [])
        self.assertNotContains(preview, 'id="apply-reasons"')
        token = preview.context['submission']
        self.assertRegex(token, SUBMISSION_TOKEN)
        response = self.client.post(url('preview'), {'_apply': '1', 'submission': token, 'background': '0'})
        fabric = Fabric.objects.get(slug='default-cluster')
        self.assertRedirects(response, fabric.get_absolute_url(), fetch_redirect_response=False)

        # the guide's classes, a RoCE preset and the guide's tenant were preselected
        self.assertEqual(
            sorted(fabric.traffic_classes.values_list('slug', flat=True)),
            sorted(e['slug'] for e in traffic_class_seed()),
        )
        self.assertEqual(fabric.qos_profile, QoSProfile.objects.get(preset='nvidia-cumulus-lossless'))
        self.assertEqual(list(fabric.tenants.values_list('name', flat=True)), ['AI Cluster'])
        self.assertEqual(str(fabric.jump_host_prefix.prefix), proposed)
        self.assertEqual(fabric.platform.slug, 'sonic')

        configs = ConfigRenderer().render_all(fabric_devices(fabric))
        switches = [
            c for c in configs if c.config_template is not None and c.config_template.name != HOST.template_name
        ]
        self.assertEqual(len(switches), fabric.spine_count + fabric.leaf_count)
        self.assertTrue(all(c.rendered for c in switches), [c.error for c in switches])
        for config in switches:
            self.assertEqual(mgmt_sources(config), ([proposed], ['EXTERNAL_CLIENT', 'SNMP', 'SSH']), config.device)
        self.assert_management_network_cabled(fabric)

    def assert_management_network_cabled(self, fabric):
        """The proposed management switch type was taken: the apply created as many management switches as their
        copper ports need, and cabled every server's BMC and every switch's management port to one, each once."""
        self.assertEqual(fabric.management_device_type.slug, MANAGEMENT_DEVICE_TYPE)
        devices = list(fabric_devices(fabric))
        oob = [d for d in devices if d.device_type == fabric.management_device_type]
        others = {d.name for d in devices if d not in oob}
        servers, switches = fabric.server_count + fabric.storage_count, fabric.spine_count + fabric.leaf_count
        self.assertEqual(len(others), servers + switches)
        copper = fabric.management_device_type.interfacetemplates.filter(type='1000base-t', mgmt_only=False).count()
        self.assertEqual(len(oob), -(-(servers + switches) // copper))
        cabled = Interface.objects.filter(device__in=oob, cable__isnull=False)
        peers = [i.link_peers[0].device.name for i in cabled]
        self.assertEqual(sorted(peers), sorted(others))  # every BMC and management port, once

    def test_the_proposed_management_switch_can_be_cleared(self):
        form = self.client.get(url('pools')).context['form']
        self.assertEqual(form['management_device_type'].value(), DeviceType.objects.get(slug=MANAGEMENT_DEVICE_TYPE).pk)
        self.walk_defaults(pools={'management_device_type': ''})
        self.client.post(url('preview'), {'_create': '1'})
        self.assertIsNone(Fabric.objects.get(slug='default-cluster').management_device_type)

    def test_the_shipped_tor_is_proposed_with_a_shape_that_fits_it(self):
        form = self.client.get(url('topology')).context['form']
        leaf = DeviceType.objects.get(slug='arista-dcs-7050sx3-48yc8-sonic')
        self.assertEqual(form['leaf_device_type'].value(), leaf.pk)
        # 8 x 100G: 2 peer link + 3 RDMA on the fuller leaf leave 3 uplinks
        self.assertEqual((form['max_spines'].value(), form['max_parallel_uplinks'].value()), (3, 1))

    def test_the_shape_follows_the_leaf_ports(self):
        """The planner's port check decides: a 32x100G leaf (no 25G port) fits no shape; generic ports fit 4 x 2."""
        sizes = {'server_count': 4, 'storage_count': 1, 'spine_count': 2, 'uplinks_per_spine': 1}
        spine = DeviceType.objects.get(slug='sn2700')
        shape, error = fitting_shape(sizes, spine, spine)
        self.assertIsNone(shape)
        self.assertIn('port_map.leaf', error.field)
        self.assertEqual(fitting_shape(sizes, None, None), ({'max_spines': 4, 'max_parallel_uplinks': 2}, None))
        # without the peer link's two ports (EVPN multihoming) and with 2 servers, the 48+8 ToR holds 3 x 2
        leaf = DeviceType.objects.get(slug='msn2410-bb2fc')
        shape, _ = fitting_shape({**sizes, 'server_count': 1, 'storage_count': 1}, leaf, spine, pairing='evpn-mh')
        self.assertEqual(shape, {'max_spines': 3, 'max_parallel_uplinks': 2})

    def test_no_nos_blocks_the_apply_with_the_reason_next_to_the_button(self):
        preview = self.walk_defaults(topology={'leaf_nos': ''})
        codes = [r['code'] for r in preview.context['apply_reasons']]
        self.assertEqual(codes, ['leaf_nos', 'leaf_nos'])
        self.assertContains(preview, 'No leaf config would render: choose a NOS')
        self.assertContains(preview, 'No spine config would render: choose a NOS')
        self.assertContains(preview, 'disabled aria-describedby="apply-reasons"')
        body = preview.content.decode()
        # next to the button: inside the create form, right after it
        self.assertLess(body.index('id="apply-button"'), body.index('id="apply-reasons"'))
        self.assertLess(body.index('id="apply-reasons"'), body.index('</form>', body.index('id="apply-button"')))
        before = written()
        response = self.client.post(url('preview'), {'_apply': '1', 'submission': preview.context['submission']})
        self.assertRedirects(response, url('preview'), fetch_redirect_response=False)
        self.assertEqual(written(), before)

    def test_an_empty_jump_host_subnet_blocks_unless_management_is_left_open_on_purpose(self):
        preview = self.walk_defaults(pools={'jump_host_prefix': ''})
        self.assertEqual([r['code'] for r in preview.context['apply_reasons']], ['jump_host_prefix'])
        self.assertContains(preview, 'No jump-host subnet: the switches&#x27; SSH, HTTPS/API and SNMP would accept')
        self.assertContains(preview, f'href="{url("pools")}"')
        before = written()
        self.client.post(url('preview'), {'_apply': '1', 'submission': preview.context['submission']})
        self.assertEqual(written(), before)
        # both at once is a named error at the acknowledgement
        pools = {
            **defaults(self.client.get(url('pools')).context['form']),
            'jump_host_prefix': '192.0.2.16/28',
            'open_management': 'on',
        }
        response = self.client.post(url('pools'), pools)
        self.assertIn('open_management', response.context['form'].errors)
        preview = self.walk_defaults(pools={'jump_host_prefix': '', 'open_management': 'on'})
        self.assertEqual(preview.context['apply_reasons'], [])
        # an "any source" jump-host subnet is refused by name, not taken as closed management
        response = self.client.post(url('pools'), {**pools, 'open_management': '', 'jump_host_prefix': '0.0.0.0/0'})
        self.assertEqual(
            response.context['form'].errors['jump_host_prefix'],
            [
                '0.0.0.0/0 admits 4294967296 sources: a jump-host subnet is a few admin hosts (a /16 at the widest); '
                'to admit every source, clear it and tick "Leave management open".'
            ],
        )

    def test_a_second_post_of_one_submission_links_to_what_the_first_created(self):
        preview = self.walk_defaults()
        token = preview.context['submission']
        first = self.client.post(url('preview'), {'_apply': '1', 'submission': token, 'background': '0'})
        fabric = Fabric.objects.get(slug='default-cluster')
        after = written()
        second = self.client.post(url('preview'), {'_apply': '1', 'submission': token, 'background': '0'})
        self.assertEqual(written(), after)
        self.assertEqual(Fabric.objects.filter(slug='default-cluster').count(), 1)
        self.assertEqual(second['Location'], first['Location'])
        self.assertRedirects(second, fabric.get_absolute_url(), fetch_redirect_response=False)
        page = self.client.get(second['Location'])
        self.assertContains(
            page, 'This form was submitted already: that submission created the fabric Default cluster.'
        )
        # a token that is not the wizard's is a named error, nothing written
        self.walk_defaults(design={**NAMED, 'slug': 'other-cluster', 'name': 'Other'})
        response = self.client.post(url('preview'), {'_apply': '1', 'submission': 'x' * 32}, follow=True)
        self.assertContains(response, 'submission: not a token of this wizard; nothing was written.')
        self.assertEqual(written(), after)

    def test_the_preview_issues_a_new_token_each_time(self):
        self.walk_defaults()
        tokens = {self.client.get(url('preview')).context['submission'] for _ in range(3)}
        self.assertEqual(len(tokens), 3)
        self.assertContains(self.client.get(url('preview')), 'name="submission" value="')
