"""The Fabric's Plan and Topology tabs: the planner run on the stored intent, nothing written."""

from django.urls import reverse

from dcim.models import Device
from ipam.models import IPAddress, Prefix
from utilities.testing import TestCase

from netbox_aifabric.apply.engine import apply_fabric
from netbox_aifabric.apply.spec import fabric_spec
from netbox_aifabric.checks.intent import intent_warnings
from netbox_aifabric.models import Fabric, QoSProfile, TrafficClass
from netbox_aifabric.planner import plan_fabric
from netbox_aifabric.seed import load_demo


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

    def test_plan_tab_shows_the_named_error(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(vtep_pool=None)
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk}))
        self.assertHttpStatus(response, 200)
        self.assertContains(response, 'pools.vtep')
        self.assertContains(response, 'the vtep pool is required for this design')

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
        self.assertContains(response, '<td>ipam.prefix</td><td>5</td>', html=False)
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
        self.assertContains(response, 'Applied: 141 created, 13 updated, 0 deleted, 0 unchanged.')
        self.assertTrue(Prefix.objects.filter(prefix='10.255.2.0/31').exists())
        response = self.client.post(self.url('apply'), follow=True)
        self.assertContains(response, 'Applied: 0 created, 0 updated, 0 deleted, 154 unchanged.')

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


class RoutedDesignWarningsTestCase(TestCase):
    """The routed design bonds servers across leaves that run no MLAG and repeats the gateways on every leaf: the Plan
    tab says so before anything is applied."""

    def test_routed_design_warnings(self):
        load_demo()
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        Fabric.objects.filter(pk=fabric.pk).update(design_option='routed')
        fabric.refresh_from_db()
        routed = ', '.join(str(tc) for tc in fabric.traffic_classes.order_by('vid') if tc.routed and tc.prefix_id)
        self.assertEqual(
            intent_warnings(fabric)[-2:],
            [
                'Routed design: each server bonds its 2 NICs across 2 leaves, which are not an MLAG pair; the leaves '
                'must run MLAG (the MLAG or EVPN/VXLAN design) for that bond to work.',
                f'Routed design: {routed} get the same gateway subnet on all 2 leaves; the guide keeps VLANs local to '
                'one rack. Stretch them with EVPN/VXLAN, or keep such a fabric to one leaf.',
            ],
        )
        self.assertTrue(routed)
        Fabric.objects.filter(pk=fabric.pk).update(leaf_count=1)
        fabric.refresh_from_db()
        self.assertFalse([w for w in intent_warnings(fabric) if w.startswith('Routed design')])


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
