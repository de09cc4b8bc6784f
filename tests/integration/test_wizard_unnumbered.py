"""The unnumbered eBGP underlay (RFC 5549) through the wizard, its defaults otherwise as proposed: the pools step
proposes no point-to-point pool, the apply writes no /31 prefix and no address on an uplink, every switch's
context says unnumbered with one interface session per uplink, and every switch renders. The REST plan accepts the
underlay without a p2p pool and consumes none."""

import pytest

from dcim.models import Interface
from ipam.models import IPAddress, Prefix

from netbox_aifabric.apply.seed import load_device_types
from netbox_aifabric.facts.nos import HOST
from netbox_aifabric.models import Fabric
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices
from tests.integration import test_wizard_defaults
from tests.integration.test_wizard import WizardBase, url
from tests.integration.test_wizard_defaults import defaults

pytestmark = pytest.mark.netbox

UNNUMBERED = {'underlay': 'ebgp-unnumbered'}


class WizardUnnumberedTestCase(WizardBase):
    # its steps only: the class itself imported here would be collected again with its tests
    walk_defaults = test_wizard_defaults.WizardDefaultsTestCase.walk_defaults

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        load_device_types()

    def test_the_pools_step_proposes_no_p2p_pool_once_the_design_is_unnumbered(self):
        design = defaults(self.client.get(url('design')).context['form'])
        design.update(name='U', slug='u', site=self.demo.site.pk, **UNNUMBERED)
        self.client.post(url('design'), {k: v for k, v in design.items() if v is not None})
        form = self.client.get(url('pools')).context['form']
        self.assertIn(form['p2p_pool'].value(), (None, ''))
        self.assertTrue(form['loopback_pool'].value())

    def test_all_defaults_unnumbered_apply_no_31s_and_render_every_switch(self):
        prefixes_before = set(Prefix.objects.values_list('prefix', flat=True))
        preview = self.walk_defaults(design=UNNUMBERED)
        self.assertEqual(preview.context['apply_reasons'], [])
        token = preview.context['submission']
        self.client.post(url('preview'), {'_apply': '1', 'submission': token, 'background': '0'})
        fabric = Fabric.objects.get(slug='default-cluster')
        self.assertEqual(fabric.underlay, 'ebgp-unnumbered')
        self.assertIsNone(fabric.p2p_pool)
        new = set(Prefix.objects.values_list('prefix', flat=True)) - prefixes_before
        self.assertFalse([p for p in new if p.prefixlen == 31 and p not in self._mlag_31s(fabric)], new)

        devices = list(fabric_devices(fabric))
        uplinks = Interface.objects.filter(device__in=devices, description__isnull=False, cable__isnull=False)
        switches = [d for d in devices if (d.local_context_data or {}).get('aifabric', {}).get('node_id')]
        self.assertEqual(len(switches), fabric.spine_count + fabric.leaf_count)
        for switch in switches:
            ctx = switch.local_context_data['aifabric']
            self.assertIs(ctx['bgp']['unnumbered'], True)
            ports = [p['name'] for p in ctx['interfaces'] if p['kind'] == 'uplink']
            sessions = [n['interface'] for n in ctx['bgp']['neighbors'] if n['kind'] == 'uplink']
            self.assertEqual(sorted(sessions), sorted(ports))
            self.assertEqual(
                len(ports), fabric.leaf_count if switch.role.slug.endswith('spine') else fabric.spine_count
            )
            addressed = IPAddress.objects.filter(interface__device=switch, interface__name__in=ports)
            self.assertFalse(addressed.exists(), list(addressed))
        self.assertTrue(uplinks.exists())

        configs = ConfigRenderer().render_all(devices)
        rendered = [c for c in configs if c.config_template and c.config_template.name != HOST.template_name]
        self.assertEqual(len(rendered), len(switches))
        self.assertTrue(all(c.rendered for c in rendered), [c.error for c in rendered])

    @staticmethod
    def _mlag_31s(fabric):
        if fabric.mlag_peer_pool is None:
            return set()
        return {p.prefix for p in Prefix.objects.filter(prefix__net_contained_or_equal=fabric.mlag_peer_pool.prefix)}
