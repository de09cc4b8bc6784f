"""The Fabric's Plan and Topology tabs: the planner run on the stored intent, nothing written."""

from collections import Counter
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils.html import escape

from core.models import ObjectChange
from dcim.models import Device, Interface
from ipam.models import IPAddress, Prefix
from users.constants import TOKEN_PREFIX
from users.models import Token
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks.intent import intent_warnings
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.intake.spec import fabric_spec
from netbox_aifabric.models import Fabric, QoSProfile, TrafficClass
from netbox_aifabric.planner import plan_fabric
from netbox_aifabric.planner.labels import field_label

pytestmark = pytest.mark.netbox


class FabricPlanTestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_fabric']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_demo_fabric_spec(self):
        spec = fabric_spec(self.fabric)
        assert [n.name for n in spec.spines] == ['ai-lab-fabric-spine1', 'ai-lab-fabric-spine2']
        assert spec.mlag_pairs == ((1, 2),)
        assert [(s.name, s.kind, s.leaves) for s in spec.servers] == [
            ('ai-lab-fabric-gpu1', 'gpu', (1, 2)),
            ('ai-lab-fabric-gpu2', 'gpu', (1, 2)),
            ('ai-lab-fabric-gpu3', 'gpu', (1, 2)),
            ('ai-lab-fabric-gpu4', 'gpu', (1, 2)),
            ('ai-lab-fabric-storage1', 'storage', (1, 2)),
        ]
        assert [(t.name, t.vrf, t.l3vni, t.vlans) for t in spec.tenants] == [
            ('AI Cluster', 'AI-CLUSTER', 50001, (20, 30, 40))
        ]
        plan = plan_fabric(spec)
        assert dict(plan.summary)['uplinks'] == 4
        assert [v.l2vni for v in plan.vlans] == [10010, 10020, 10030, 10040, 10050]

    def test_plan_tab(self):
        counts = (Prefix.objects.count(), IPAddress.objects.count())
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk}))
        self.assertHttpStatus(response, 200)
        self.assertContains(response, 'ai-lab-fabric-leaf1')
        self.assertContains(response, '10.255.0.5/32')  # leaf1's loopback: pool + max spines (4) + 1
        self.assertContains(response, '10.255.2.20/31')  # spine2–leaf2 uplink
        self.assertContains(response, '50001:50001')
        self.assertEqual((Prefix.objects.count(), IPAddress.objects.count()), counts)  # a preview writes nothing

    def test_the_rest_plan_names_each_objects_device(self):
        token = Token.objects.create(user=self.user)
        header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        url = reverse('plugins-api:netbox_aifabric-api:fabric-plan', kwargs={'pk': self.fabric.pk})
        response = self.client.post(url, {}, content_type='application/json', **header)
        self.assertHttpStatus(response, 200)
        changes = response.json()['changes']
        interfaces = [c for c in changes if c['model'] == 'dcim.interface']
        self.assertTrue(interfaces)
        for change in interfaces:  # interface:<device>:<name>; the object stays the interface's own name
            device, name = change['key'].split(':', 2)[1:]
            shown = (change['object'], change['device'], change['label'])
            self.assertEqual(shown, (name, device, f'{device} › {name}'))
        vlans = [c for c in changes if c['model'] == 'ipam.vlan']
        self.assertTrue(vlans)
        self.assertFalse([c for c in vlans if 'device' in c or 'label' in c])  # fabric-wide: the object alone

    def test_plan_tab_shows_the_named_error(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(vtep_pool=None)
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk}))
        self.assertHttpStatus(response, 200)
        self.assertContains(response, 'pools.vtep')
        self.assertContains(response, 'the VTEP pool is required for this design')

    def test_topology_tab(self):
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_topology', kwargs={'pk': self.fabric.pk}))
        self.assertHttpStatus(response, 200)
        body = response.content.decode()
        self.assertIn('<svg', body)
        for name in ('ai-lab-fabric-spine2', 'ai-lab-fabric-leaf2', 'ai-lab-fabric-storage1', '100G'):
            self.assertIn(name, body)

    def test_tabs_need_view_permission(self):
        self.remove_permissions('netbox_aifabric.view_fabric')
        for tab in ('plan', 'topology', 'allocations', 'nodes', 'adopt'):
            url = reverse(f'plugins:netbox_aifabric:fabric_{tab}', kwargs={'pk': self.fabric.pk})
            self.assertHttpStatus(self.client.get(url), 403)

    def test_adopt_needs_change_permission(self):
        url = reverse('plugins:netbox_aifabric:fabric_adopt', kwargs={'pk': self.fabric.pk})
        self.assertHttpStatus(self.client.get(url), 403)
        self.assertHttpStatus(self.client.post(url, {'role': 'leaf'}), 403)
        self.assertFalse(self.fabric.nodes.filter(device__isnull=False).exists())


class FabricApplyUITestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_fabric']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def url(self, name):
        return reverse(f'plugins:netbox_aifabric:fabric_{name}', kwargs={'pk': self.fabric.pk})

    def test_plan_tab_shows_the_diff_and_no_apply_button_without_permission(self):
        response = self.client.get(self.url('plan'))
        self.assertContains(response, 'Changes an apply would make')
        groups = {g.label: g for g in response.context['diff_groups']}
        self.assertEqual((groups['ipam.prefix'].verbose_name, groups['ipam.prefix'].counts['create']), ('Prefixes', 5))
        self.assertNotContains(response, 'name="confirm_delete"')
        self.assertHttpStatus(self.client.post(self.url('apply')), 403)
        self.assertEqual(Prefix.objects.filter(prefix='10.255.2.0/31').count(), 0)

    def test_apply_button(self):
        self.add_permissions('netbox_aifabric.apply_fabric')
        self.user.is_superuser = True  # holds every permission the apply writes with
        self.user.save()
        response = self.client.get(self.url('plan'))
        self.assertContains(response, 'name="confirm_delete"')
        response = self.client.post(self.url('apply'), follow=True)
        # counted per object: the 4 switches' primary and out-of-band IPs and the 9 devices' contexts, set on the
        # devices the apply creates, are part of their creation (netbox_aifabric/ui/diff.py), not 17 updates
        self.assertContains(response, 'Applied: 174 created, 0 updated, 0 deleted, 0 unchanged.')
        self.assertTrue(Prefix.objects.filter(prefix='10.255.2.0/31').exists())
        response = self.client.post(self.url('apply'), follow=True)
        self.assertContains(response, 'Applied: 0 created, 0 updated, 0 deleted, 174 unchanged.')

    def test_nothing_to_apply_after_the_apply(self):
        self.add_permissions('netbox_aifabric.apply_fabric')
        self.user.is_superuser = True  # holds every permission the apply writes with
        self.user.save()
        message = 'Nothing to apply: NetBox matches the plan.'
        response = self.client.get(self.url('plan'))
        self.assertNotContains(response, message)
        self.assertContains(response, 'name="confirm_delete"')
        self.client.post(self.url('apply'))

        response = self.client.get(self.url('plan'))
        counts = Counter()
        for group in response.context['diff_groups']:
            counts.update(group.counts)
        self.assertEqual(sum(counts[a] for a in ('create', 'update', 'adopt', 'delete', 'conflict')), 0, counts)
        self.assertGreater(counts['keep'], 0)
        self.assertContains(response, message)
        self.assertContains(response, 'id="apply-button" disabled')
        self.assertNotContains(response, 'name="confirm_delete"')  # no form to post

        # negative controls: an object that differs from the plan, or an intent changed since, enable the Apply again
        interface = Interface.objects.filter(device__name=f'{self.fabric.slug}-spine1', cable__isnull=False).first()
        Interface.objects.filter(pk=interface.pk).update(mtu=1234)
        response = self.client.get(self.url('plan'))
        self.assertNotContains(response, message)
        self.assertContains(response, 'name="confirm_delete"')
        Interface.objects.filter(pk=interface.pk).update(mtu=self.fabric.mtu)
        self.assertContains(self.client.get(self.url('plan')), message)
        Fabric.objects.filter(pk=self.fabric.pk).update(pending_change=True)
        response = self.client.get(self.url('plan'))
        self.assertNotContains(response, message)
        self.assertContains(response, 'name="confirm_delete"')

    def test_plan_tab_lists_conflicts_and_disables_apply(self):
        self.add_permissions('netbox_aifabric.apply_fabric')
        Prefix.objects.create(prefix='10.255.2.20/31', description='someone else')
        response = self.client.get(self.url('plan'))
        self.assertHttpStatus(response, 200)
        self.assertContains(response, 'the /31 is already used elsewhere in NetBox')
        self.assertContains(response, 'Resolve the conflicts first.')

    def test_apply_needs_object_permissions(self):
        self.add_permissions('netbox_aifabric.apply_fabric')
        response = self.client.post(self.url('apply'), follow=True)
        self.assertContains(response, 'Applying this fabric needs these permissions: dcim.add_cable,')
        self.assertEqual(Prefix.objects.filter(prefix='10.255.2.0/31').count(), 0)


class IntentWarningsTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_demo_has_no_warnings(self):
        self.assertEqual(intent_warnings(self.fabric), [])

    def test_the_guides_warnings(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(qos_profile=QoSProfile.objects.get(slug='tcp-only'), mtu=1500)
        TrafficClass.objects.filter(slug='storage').update(lossless=True)
        TrafficClass.objects.get(slug='mgmt').reachable_from.add(TrafficClass.objects.get(slug='users'))
        self.fabric.refresh_from_db()
        self.assertEqual(
            intent_warnings(self.fabric),
            [
                'RDMA class RDMA has no lossless QoS profile (the fabric uses TCP only / no RoCE).',
                'PFC (lossless) on STORAGE, which is not the RDMA class: the guide enables PFC only for RDMA.',
                'STORAGE needs MTU 9000, but the fabric ports carry 1500.',
                'RDMA needs MTU 9000, but the fabric ports carry 1500.',
                'USERS can reach MGMT: the guide keeps user access away from management (BMC) addresses.',
            ],
        )
        self.add_permissions('netbox_aifabric.view_fabric')
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk}))
        self.assertContains(response, 'USERS can reach MGMT')


class PlanWarningsTestCase(TestCase):
    """The planner's warnings (code and message) on the Plan tab and in the REST plan, next to the guide's intent
    warnings; the routed design's old limits (bonds across unpaired leaves, one gateway on every leaf) are gone
    because the planner now pairs the leaves of a rack and gives every rack its own subnets."""

    user_permissions = ['netbox_aifabric.view_fabric']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        # The routed design with two racks (leaf pairs), a GPU server in each: RDMA, not routed, spans both
        Fabric.objects.filter(pk=cls.fabric.pk).update(design_option='routed', leaf_count=4, server_count=5)
        cls.fabric.refresh_from_db()
        cls.fabric.tenants.clear()
        cls.fabric.sync_nodes()
        cls.fabric.nodes.filter(role='gpu', node_id=5).update(pair=2)

    def url(self):
        return reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk})

    def set_target(self, target):
        Fabric.objects.filter(pk=self.fabric.pk).update(oversubscription_target=target)
        self.fabric.refresh_from_db()

    def test_warnings_on_the_plan_tab_and_in_the_api(self):
        self.set_target(Decimal('1.5'))
        ratios = {c.leaf: c.ratio for c in plan_of(self.fabric).capacity}
        above = sorted(leaf for leaf, ratio in ratios.items() if ratio is not None and ratio > 1.5)
        self.assertTrue(above, ratios)
        warnings = plan_of(self.fabric).warnings
        self.assertEqual(
            [(w.code, w.message.split(':')[0]) for w in warnings if w.code == 'oversubscription'],
            [('oversubscription', leaf) for leaf in above],
        )
        unrouted = [tc for tc in self.fabric.traffic_classes.order_by('vid') if not tc.routed]
        self.assertEqual(
            [w.message.split(' is not routed')[0] for w in warnings if w.code == 'unrouted-class-across-racks'],
            [f'{tc} (VLAN {tc.vid})' for tc in unrouted],
        )

        TrafficClass.objects.get(slug='mgmt').reachable_from.add(TrafficClass.objects.get(slug='users'))
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        for warning in warnings:
            self.assertContains(response, f'data-warning-code="{warning.code}"')
            self.assertContains(response, escape(warning.message))
        self.assertContains(response, 'USERS can reach MGMT')  # the guide's intent warnings stay alongside
        self.assertNotContains(response, 'Routed design:')
        self.assertContains(response, 'name="confirm_delete"', count=0)  # warnings, not errors: no Apply for viewers

        self.add_permissions('netbox_aifabric.apply_fabric')
        # the unrouted class across racks breaks a hard rule: the Apply form is there, its button disabled
        # (tests/integration/test_apply_blockers.py); the other warnings alone do not block
        self.assertContains(self.client.get(self.url()), 'name="confirm_delete"')

        token = Token.objects.create(user=self.user)
        header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        url = reverse('plugins-api:netbox_aifabric-api:fabric-plan', kwargs={'pk': self.fabric.pk})
        response = self.client.post(url, {}, content_type='application/json', **header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(
            response.json()['warnings'], [{'code': w.code, 'field': w.field, 'message': w.message} for w in warnings]
        )

    def test_no_target_no_lossless_class_no_oversubscription_warning(self):
        self.set_target(None)
        self.fabric.traffic_classes.filter(lossless=True).update(lossless=False)
        self.assertFalse([w for w in plan_of(self.fabric).warnings if w.code == 'oversubscription'])
        self.assertNotContains(self.client.get(self.url()), 'data-warning-code="oversubscription"')

    def test_no_target_with_a_lossless_class_across_racks_warns_above_1_to_1(self):
        # the RDMA back end of a multi-rack lossless fabric aims for 1:1 when the fabric sets no target
        self.set_target(None)
        self.assertTrue(self.fabric.traffic_classes.filter(lossless=True).exists())
        plan = plan_of(self.fabric)
        above = sorted(c.leaf for c in plan.capacity if c.ratio > 1)
        warned = sorted(w.message.split(':')[0] for w in plan.warnings if w.code == 'oversubscription')
        self.assertTrue(above)
        self.assertEqual(warned, above)
        self.assertContains(self.client.get(self.url()), 'data-warning-code="oversubscription"')

    def test_the_routed_design_has_racks_not_the_old_warnings(self):
        self.set_target(None)
        plan = plan_of(self.fabric)
        self.assertEqual(
            sorted((n.name, n.mlag_peer) for n in plan.nodes if n.role == 'leaf'),
            [(f'ai-lab-fabric-leaf{a}', f'ai-lab-fabric-leaf{b}') for a, b in ((1, 2), (2, 1), (3, 4), (4, 3))],
        )
        routed = [tc for tc in self.fabric.traffic_classes.all() if tc.routed and tc.prefix_id]
        for vlan in plan.vlans:
            self.assertEqual(len(vlan.racks), 2 if vlan.vid in {tc.vid for tc in routed} else 0, vlan)
        self.assertFalse([w for w in intent_warnings(self.fabric) if w.startswith('Routed design')])


class PlanErrorBlocksApplyTestCase(TestCase):
    """A named planner error (here three leaves in one "pair") shows on the Plan tab instead of the plan, with no
    Apply button; an apply POSTed anyway writes nothing."""

    user_permissions = ['netbox_aifabric.view_fabric', 'netbox_aifabric.apply_fabric']

    def test_named_error_blocks_the_apply(self):
        load_demo()
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        fabric.snapshot()
        fabric.leaf_count = 3
        fabric.save()
        fabric.nodes.filter(role='leaf', node_id=3).update(pair=1)
        self.user.is_superuser = True  # holds every permission the apply writes with
        self.user.save()
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': fabric.pk}))
        self.assertContains(response, 'This fabric cannot be planned yet')
        self.assertContains(response, 'an MLAG group needs exactly two leaves, got 3')
        self.assertNotContains(response, 'name="confirm_delete"')
        before = (Device.objects.count(), Prefix.objects.count(), ObjectChange.objects.count())
        response = self.client.post(
            reverse('plugins:netbox_aifabric:fabric_apply', kwargs={'pk': fabric.pk}), follow=True
        )
        self.assertContains(response, 'an MLAG group needs exactly two leaves, got 3')
        # the message names the field as the form says it, not the spec's path
        self.assertContains(response, f'{field_label("mlag_pairs[0]")}: an MLAG group needs exactly two leaves')
        self.assertNotContains(response, 'mlag_pairs[0]: an MLAG group')
        self.assertEqual((Device.objects.count(), Prefix.objects.count(), ObjectChange.objects.count()), before)


class DeviceFabricPanelTestCase(TestCase):
    user_permissions = ['dcim.view_device']

    def test_panel_on_fabric_devices_only(self):
        load_demo()
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(fabric)
        device = Device.objects.get(name='ai-lab-fabric-leaf1')
        response = self.client.get(device.get_absolute_url())
        self.assertContains(response, 'AI Lab fabric')
        self.assertContains(response, reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': fabric.pk}))
        other = Device.objects.create(name='other', site=device.site, device_type=device.device_type, role=device.role)
        self.assertNotContains(self.client.get(other.get_absolute_url()), 'Plan and apply')
