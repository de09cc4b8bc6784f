"""The Allocations tab lists what the plan pins beside the switches and links: an EVPN multihoming fabric's Ethernet
segments (each bond's ESI, with its server and leaves) and a routed fabric's per-rack subnets, a row each, the
expectations read from the plan."""

import pytest
from django.urls import reverse

from users.models import User
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric

pytestmark = pytest.mark.netbox


def table(html, table_id):
    return html.split(f'id="{table_id}"', 1)[1].split('</table>', 1)[0]


class AllocationsTabTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.admin = User.objects.create_superuser('alloc', 'alloc@example.invalid', None)

    def page(self, **values):
        Fabric.objects.filter(pk=self.fabric.pk).update(**values)
        self.fabric.refresh_from_db()
        self.client.force_login(self.admin)
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_allocations', kwargs={'pk': self.fabric.pk}))
        self.assertEqual(response.status_code, 200)
        return response.content.decode(), plan_of(self.fabric)

    def test_an_mh_fabrics_ethernet_segments(self):
        html, plan = self.page(leaf_pairing='evpn-mh', mlag_peer_pool=None)
        segments = [a for a in plan.attachments if a.esi]
        self.assertTrue(segments)
        rows = table(html, 'allocations-esis')
        self.assertEqual(rows.count('<tr><td>'), len(segments))
        for a in segments:
            leaves = ', '.join(sorted({leaf for leaf, _ in a.members}))
            self.assertIn(f'<tr><td>{a.server}</td><td>{a.lag}</td><td>{leaves}</td>', rows)
            self.assertIn(a.esi, rows)

    def test_an_mlag_fabric_has_no_segments_table(self):
        html, plan = self.page()
        self.assertFalse([a for a in plan.attachments if a.esi])
        self.assertNotIn('id="allocations-esis"', html)

    def test_a_routed_fabrics_rack_subnets(self):
        html, plan = self.page(design_option='routed', leaf_count=4)
        racks = [(v, r) for v in plan.vlans for r in v.racks]
        self.assertGreater(len({r.rack for _, r in racks}), 1)
        rows = table(html, 'allocations-rack-subnets')
        self.assertEqual(rows.count('<tr><td>'), len(racks))
        for vlan, rack in racks:
            self.assertIn(f'<td>rack{rack.rack}</td><td>{", ".join(rack.leaves)}</td>', rows)
            self.assertIn(rack.subnet, rows)

    def test_every_vrf_a_vlan_is_routed_in_is_listed(self):
        """The VLAN rows name a VRF; the VRFs table lists each: an EVPN tenant's with its L3VNI, any other as routed
        on the leaves (the MLAG demo's management VRF, say), never "no VRFs" beside VLANs that name one."""
        for values in ({}, {'design_option': 'routed', 'leaf_count': 4}, {'design_option': 'evpn-vxlan'}):
            html, plan = self.page(**values)
            rows = table(html, 'allocations-vrfs')
            tenants = {vrf.name for vrf in plan.vrfs}
            named = {vlan.vrf for vlan in plan.vlans if vlan.vrf}
            self.assertTrue(named, values)
            for name in named - tenants:
                vids = ', '.join(str(v.vid) for v in plan.vlans if v.vrf == name)
                self.assertIn(f'<tr data-vrf="local"><td>{name}</td>', rows)
                self.assertIn(f'not an EVPN tenant): VLAN {vids}</td>', rows)
            for name in tenants:
                self.assertIn(f'<tr><td>{name}</td>', rows)
            self.assertEqual(rows.count('<tr data-vrf="local">'), len(named - tenants), values)
            self.assertNotIn('No VRFs', rows)
