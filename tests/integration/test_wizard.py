"""The fabric wizard: every step through NetBox's real views, state kept across back/forward, a preview that writes
nothing, create and apply in one transaction, bad input answered at the field, and permissions."""

import pytest
from django.test import TestCase
from django.urls import reverse

from core.models import ObjectChange
from dcim.models import Device, Interface
from ipam.models import ASNRange, IPAddress, Prefix
from users.models import ObjectPermission, User

from netbox_aifabric.apply.seed import load_config_templates, load_demo
from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass
from tests.integration import base

pytestmark = pytest.mark.netbox

URL = reverse('plugins:netbox_aifabric:fabric_wizard')


def url(step):
    return f'{URL}?step={step}'


def written():
    return (Fabric.objects.count(), Prefix.objects.count(), ASNRange.objects.count(), Device.objects.count())


class WizardBase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        load_config_templates()  # as aifabric_load_demo does: the NOS platforms exist, the wizard creates none
        cls.demo = Fabric.objects.get(slug='ai-lab-fabric')
        cls.user = User.objects.create_user(username='wizard', is_superuser=True)
        cls.steps = {
            'design': {
                'name': 'Wizard cluster',
                'slug': 'wizard-cluster',
                'site': cls.demo.site.pk,
                'design_option': 'evpn-vxlan',
                'underlay': 'ebgp',
            },
            # the guide's cluster: the counts, speeds and MTU of base.FABRIC_SHAPE
            # with a NOS (no NOS blocks "Create and apply": tests/integration/test_wizard_defaults.py)
            'topology': {
                **{
                    k: v
                    for k, v in base.FABRIC_SHAPE.items()
                    if k not in ('status', 'design_option', 'underlay', 'leaf_pairing', 'l2vni_base')
                },
                'leaf_nos': 'sonic',
            },
            # the demo fabric holds 10.255.x and ASNs 65100–65199: the wizard proposes the next free ones
            'pools': {
                'loopback_pool': '10.254.0.0/24',
                'vtep_pool': '10.254.1.0/24',
                'p2p_pool': '10.254.2.0/24',
                'mlag_peer_pool': '10.254.3.0/28',
                'leaf_asn_start': 65201,
                'leaf_asn_end': 65299,
                'spine_asn': 65200,
                # management left open on purpose (an empty jump-host subnet blocks the apply otherwise); the
                # proposed jump hosts: tests/integration/test_wizard_defaults.py
                'open_management': True,
            },
            'intent': {
                'traffic_classes': list(TrafficClass.objects.values_list('pk', flat=True)),
                'qos_profile': QoSProfile.objects.get(slug='nvidia-cumulus-lossless').pk,
                'tenants': [EVPNTenant.objects.get(slug='ai-cluster').pk],
                'l2vni_base': 10000,
                'anycast_gateway_mac': '02:00:00:00:00:aa',
            },
        }

    def setUp(self):
        self.client.force_login(self.user)

    def walk(self, until=None, **changes):
        """POST the steps in order (with ``changes`` = {step: {field: value}}); returns the last response."""
        response = None
        for step, data in self.steps.items():
            response = self.client.post(url(step), {**data, **changes.get(step, {})})
            if step == until:
                break
        return response


class WizardTestCase(WizardBase):
    def test_defaults_propose_free_pools_and_asns(self):
        response = self.client.get(url('pools'))
        self.assertContains(response, 'value="10.254.0.0/24"')
        self.assertContains(response, 'value="65201"')

    def test_defaults_skip_blocks_with_objects_no_fabric_owns(self):
        # an address left in 10.254.x by hand (or by a deleted fabric): the pools step proposes 10.253.x
        IPAddress.objects.create(address='10.254.2.7/32')
        response = self.client.get(url('pools'))
        self.assertContains(response, 'value="10.253.0.0/24"')
        self.assertNotContains(response, 'value="10.254.0.0/24"')

    def test_walk_preview_create_and_apply(self):
        before = written()
        response = self.walk()
        self.assertRedirects(response, url('preview'), fetch_redirect_response=False)
        changes = ObjectChange.objects.count()
        response = self.client.get(url('preview'))
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, 'Changes an apply would make')
        self.assertContains(response, 'dcim.device')
        self.assertContains(response, 'Leaf capacity')
        self.assertEqual(response.context['apply_diff']['dcim.device']['create'], 9)
        # 4 loopbacks, 1 VTEP, 10 link ends, and 15 server addresses (5 servers: USERS, STORAGE, GPU)
        self.assertEqual(response.context['apply_diff']['ipam.ipaddress']['create'], 15 + 15)
        # the preview wrote nothing (its fabric, pools and ASN range were rolled back)
        self.assertEqual(written(), before)
        self.assertEqual(ObjectChange.objects.count(), changes)

        response = self.client.post(url('preview'), {'_apply': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertRedirects(response, fabric.get_absolute_url(), fetch_redirect_response=False)
        self.assertEqual(fabric.nodes.count(), 9)
        self.assertEqual(str(fabric.loopback_pool.prefix), '10.254.0.0/24')
        self.assertEqual(fabric.loopback_pool.status, 'container')
        self.assertEqual((fabric.leaf_asn_range.start, fabric.leaf_asn_range.end), (65201, 65299))
        self.assertEqual(Device.objects.filter(name__startswith='wizard-cluster-').count(), 9)
        self.assertEqual(str(Device.objects.get(name='wizard-cluster-leaf1').primary_ip4), '10.254.0.5/32')
        self.assertTrue(IPAddress.objects.filter(address='10.254.2.0/31').exists())
        # the session is cleared: the wizard starts again from its defaults
        self.assertNotIn('aifabric_wizard', self.client.session)

    def test_create_without_apply(self):
        self.walk()
        devices = Device.objects.count()
        self.client.post(url('preview'), {'_create': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertEqual(fabric.owned_objects.count(), 0)
        self.assertEqual(Device.objects.count(), devices)

    def test_back_and_forward_keep_every_step(self):
        self.walk(until='pools')
        # back from pools with changed, even invalid, values: they are kept, nothing is validated
        response = self.client.post(url('pools'), {**self.steps['pools'], 'loopback_pool': 'oops', '_back': '1'})
        self.assertRedirects(response, url('topology'), fetch_redirect_response=False)
        response = self.client.get(url('design'))
        self.assertContains(response, 'value="Wizard cluster"')
        response = self.client.get(url('topology'))
        self.assertContains(response, 'value="4"')
        response = self.client.get(url('pools'))
        self.assertContains(response, 'value="oops"')
        self.assertContains(response, 'is not an IP prefix')
        # the preview sends back to the first incomplete step
        response = self.client.get(url('preview'))
        self.assertRedirects(response, url('pools'), fetch_redirect_response=False)

    def test_start_over(self):
        self.walk(until='design')
        self.client.get(f'{URL}?reset=1')
        self.assertNotIn('aifabric_wizard', self.client.session)

    def test_conflicts_block_the_apply(self):
        # the planned loopback of spine 1 already exists elsewhere in NetBox
        IPAddress.objects.create(address='10.254.0.1/32', description='someone else')
        self.walk()
        response = self.client.get(url('preview'))
        self.assertContains(response, 'the loopback address is already used elsewhere in NetBox')
        before = written()
        response = self.client.post(url('preview'), {'_apply': '1'})
        self.assertRedirects(response, url('preview'), fetch_redirect_response=False)
        self.assertEqual(written(), before)

    def test_permissions(self):
        viewer = User.objects.create_user(username='viewer')
        self.client.force_login(viewer)
        self.assertEqual(self.client.get(url('design')).status_code, 403)
        self.assertEqual(self.client.post(url('preview'), {'_apply': '1'}).status_code, 403)
        # may add fabrics but not apply: the preview offers no apply, and an apply POST writes nothing
        permission = ObjectPermission.objects.create(name='add fabrics', actions=['add', 'view'])
        permission.object_types.add(*[ct for ct in _content_types('netbox_aifabric', 'fabric')])
        permission.users.add(viewer)
        # (and the pools and ASN range the wizard creates: tests/integration/test_object_permissions.py)
        pools = ObjectPermission.objects.create(name='add pools', actions=['add'])
        pools.object_types.add(*_content_types('ipam', 'prefix'), *_content_types('ipam', 'asnrange'))
        pools.users.add(viewer)
        self.walk()
        response = self.client.get(url('preview'))
        # the button is shown disabled, the reason next to it
        self.assertContains(response, 'id="apply-button" disabled aria-describedby="apply-reasons"')
        self.assertEqual([r['code'] for r in response.context['apply_reasons']], ['permission'])
        self.assertContains(response, 'Applying needs the apply permission on fabrics')
        before = written()
        self.client.post(url('preview'), {'_apply': '1'})
        self.assertEqual(written(), before)
        self.client.logout()
        response = self.client.get(url('design'))
        self.assertEqual(response.status_code, 302)
        self.assertIn('/login/', response['Location'])


class WizardPairingTestCase(WizardBase):
    """Leaf pairing in the wizard: MLAG pairs (in the routed design too) need an MLAG peer pool, EVPN multihoming
    pairs do not; the preview shows the plan's warnings, and a named planner error leaves no "Create and apply"."""

    def test_routed_leaves_are_paired_and_need_an_mlag_peer_pool(self):
        response = self.walk(
            until='pools', design={'design_option': 'routed'}, pools={'vtep_pool': '', 'mlag_peer_pool': ''}
        )
        self.assertEqual(response.status_code, 200)
        errors = response.context['form'].errors
        self.assertEqual(list(errors), ['mlag_peer_pool'])
        self.assertIn('MLAG-paired leaves need an MLAG peer pool', errors['mlag_peer_pool'][0])

    def test_room_for_spines_needs_a_p2p_pool(self):
        # the guide's MLAG pair without spines yet: the planner numbers the future uplinks, so it wants the pool
        response = self.walk(
            until='pools', topology={'spine_count': 0}, pools={'p2p_pool': ''}, design={'design_option': 'mlag'}
        )
        self.assertIn('point-to-point pool', response.context['form'].errors['p2p_pool'][0])
        self.client.get(f'{URL}?reset=1')
        response = self.walk(
            until='pools',
            topology={'spine_count': 0, 'max_spines': 0},
            pools={'p2p_pool': ''},
            design={'design_option': 'mlag'},
        )
        self.assertRedirects(response, url('intent'), fetch_redirect_response=False)

    def test_evpn_multihoming_needs_no_mlag_peer_pool_and_has_no_peer_link(self):
        response = self.walk(design={'leaf_pairing': 'evpn-mh'}, pools={'mlag_peer_pool': ''})
        self.assertRedirects(response, url('preview'), fetch_redirect_response=False)
        response = self.client.get(url('preview'))
        leaves = [n for n in response.context['plan'].nodes if n.role == 'leaf']
        self.assertEqual(
            [(n.mh_peer, n.mlag_peer) for n in leaves], [('wizard-cluster-leaf2', None), ('wizard-cluster-leaf1', None)]
        )
        self.assertContains(response, 'Create and apply')
        self.client.post(url('preview'), {'_apply': '1'})
        fabric = Fabric.objects.get(slug='wizard-cluster')
        self.assertEqual((fabric.leaf_pairing, fabric.mlag_peer_pool), ('evpn-mh', None))
        leaves = Interface.objects.filter(device__name__in=['wizard-cluster-leaf1', 'wizard-cluster-leaf2'])
        self.assertFalse(leaves.filter(name='Port-Channel1000').exists())
        self.assertEqual(leaves.filter(name='Loopback1').count(), 2)  # a VTEP per leaf

    def test_preview_shows_the_plan_warnings(self):
        self.walk(topology={'oversubscription_target': '1'})
        response = self.client.get(url('preview'))
        warnings = response.context['plan'].warnings
        self.assertTrue(warnings)
        for warning in warnings:
            self.assertContains(response, f'data-warning-code="{warning.code}"')
        self.assertContains(response, 'Create and apply')  # warnings do not block

    def test_a_planner_error_shows_at_its_step(self):
        # Fabric.clean() refuses what the planner refuses, so the topology step answers it at the field,
        # with the planner's message, and the preview (which showed it before) is not reached
        before = (*written(), ObjectChange.objects.count())
        self.walk(until='design')
        # 60 GPU servers on one leaf pair: more than its 48 server ports (a bond on one leaf is valid)
        topology = {**self.steps['topology'], 'server_count': 60}
        response = self.client.post(url('topology'), topology)
        self.assertEqual(response.status_code, 200)
        self.assertIn('servers attach to leaf', str(response.context['form'].errors['server_count']))
        self.assertEqual(self.client.get(url('preview')).status_code, 302)
        self.assertEqual((*written(), ObjectChange.objects.count()), before)


def _content_types(app_label, model):
    from core.models import ObjectType

    return ObjectType.objects.filter(app_label=app_label, model=model)


# At least twenty bad inputs, each answered at its field in its step, with nothing written
BAD_INPUTS = [
    ('design', {'name': ''}, 'name', 'This field is required'),
    ('design', {'slug': 'Not a slug!'}, 'slug', 'valid'),
    ('design', {'site': ''}, 'site', 'This field is required'),
    ('design', {'site': 999999}, 'site', 'Select a valid choice'),
    ('design', {'design_option': 'clos'}, 'design_option', 'Select a valid choice'),
    ('design', {'name': 'AI Lab fabric'}, 'name', 'already exists'),
    ('design', {'underlay': 'rip'}, 'underlay', 'Select a valid choice'),
    ('design', {'leaf_pairing': 'stacking'}, 'leaf_pairing', 'Select a valid choice'),
    ('design', {'design_option': 'routed', 'leaf_pairing': 'evpn-mh'}, 'leaf_pairing', 'needs the EVPN/VXLAN design'),
    ('topology', {'spine_count': 5}, 'spine_count', 'room for at most 4 spines (max spines)'),
    ('topology', {'leaf_count': 9}, 'leaf_count', 'room for at most 8 leaves (max leaves)'),
    ('topology', {'max_leaves': 0}, 'max_leaves', 'greater than or equal to 1'),
    ('topology', {'uplinks_per_spine': 0}, 'uplinks_per_spine', '0 uplinks per spine, outside 1–2'),
    ('topology', {'mtu': 65}, 'mtu', 'greater than or equal to 68'),
    ('topology', {'mtu': 9300}, 'mtu', 'less than or equal to 9216'),
    ('topology', {'uplink_speed': 7}, 'uplink_speed', 'Select a valid choice'),
    ('topology', {'spine_count': -1}, 'spine_count', 'greater than or equal to 0'),
    ('topology', {'server_count': 'four'}, 'server_count', 'Enter a whole number'),
    ('topology', {'oversubscription_target': '0.5'}, 'oversubscription_target', 'greater than or equal to 1'),
    ('topology', {'oversubscription_target': 'lots'}, 'oversubscription_target', 'Enter a number'),
    ('pools', {'loopback_pool': 'not-a-prefix'}, 'loopback_pool', 'is not an IP prefix'),
    ('pools', {'loopback_pool': '10.254.0.1/24'}, 'loopback_pool', 'did you mean 10.254.0.0/24'),
    ('pools', {'loopback_pool': '2001:db8::/64'}, 'loopback_pool', 'not an IPv4 prefix'),
    ('pools', {'jump_host_prefix': '192.0.2.17/28'}, 'jump_host_prefix', 'did you mean 192.0.2.16/28'),
    ('pools', {'management_pool': 'oob'}, 'management_pool', 'is not an IP prefix'),
    ('pools', {'management_gateway': '172.16.0.300'}, 'management_gateway', 'IPv4'),
    ('pools', {'bmc_attachment': 'switch'}, 'bmc_attachment', 'Select a valid choice'),
    ('pools', {'loopback_pool': '10.254.0.0/30'}, 'loopback_pool', 'too small for the declared maximums'),
    ('pools', {'p2p_pool': '10.254.0.0/24'}, 'p2p_pool', 'overlaps the loopback pool'),
    ('pools', {'p2p_pool': '10.255.2.0/24'}, 'p2p_pool', 'of fabric AI Lab fabric'),
    ('pools', {'vtep_pool': ''}, 'vtep_pool', 'EVPN/VXLAN needs a VTEP pool'),
    ('pools', {'mlag_peer_pool': ''}, 'mlag_peer_pool', 'MLAG-paired leaves need an MLAG peer pool'),
    ('pools', {'loopback_pool': ''}, 'loopback_pool', 'This field is required'),
    ('pools', {'leaf_asn_end': 65200}, 'leaf_asn_end', 'ends (65200) before it starts (65201)'),
    ('pools', {'leaf_asn_start': 65201, 'leaf_asn_end': 65202}, 'leaf_asn_start', 'needs 8'),
    ('pools', {'spine_asn': 65250}, 'spine_asn', 'inside the leaf ASN range'),
    ('intent', {'anycast_gateway_mac': 'zz:zz'}, 'anycast_gateway_mac', 'MAC'),
    ('intent', {'anycast_gateway_mac': ''}, 'anycast_gateway_mac', 'need an anycast gateway MAC'),
    ('intent', {'l2vni_base': 0}, 'l2vni_base', 'greater than or equal to 1'),
    ('intent', {'qos_profile': 999999}, 'qos_profile', 'Select a valid choice'),
]


class WizardBadInputTestCase(WizardBase):
    def test_bad_inputs(self):
        self.assertGreaterEqual(len(BAD_INPUTS), 20)
        for step, bad, field, message in BAD_INPUTS:
            with self.subTest(step=step, bad=bad):
                self.client.get(f'{URL}?reset=1')
                before = (*written(), ObjectChange.objects.count())
                response = self.walk(until=step, **{step: bad})
                self.assertEqual(response.status_code, 200, f'{step} {bad}: not shown again')
                errors = response.context['form'].errors
                self.assertIn(field, errors, f'{step} {bad}: {dict(errors)}')
                self.assertIn(message, ' '.join(errors[field]))
                self.assertContains(response, 'has-errors')  # shown inline, at the field
                self.assertEqual((*written(), ObjectChange.objects.count()), before)
