"""The Fabric's Plan and Topology tabs: the planner run on the stored intent, nothing written."""

from django.urls import reverse

from ipam.models import IPAddress, Prefix
from utilities.testing import TestCase

from netbox_aifabric.apply.spec import fabric_spec
from netbox_aifabric.models import Fabric
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
        for tab in ('plan', 'topology'):
            url = reverse(f'plugins:netbox_aifabric:fabric_{tab}', kwargs={'pk': self.fabric.pk})
            self.assertHttpStatus(self.client.get(url), 403)
