"""Apply for each design option: the exact NetBox objects of the guide's cluster as MLAG, routed and EVPN/VXLAN."""

from django.test import TestCase

from dcim.models import Cable, Device, Interface
from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix
from vpn.models import L2VPN

from netbox_aifabric.apply.engine import apply_fabric
from netbox_aifabric.models import EVPNTenant, Fabric
from netbox_aifabric.seed import load_demo


def counts():
    return {
        'devices': Device.objects.count(),
        'cables': Cable.objects.count(),
        'prefixes /31': Prefix.objects.filter(prefix__net_mask_length=31).count(),
        'addresses': IPAddress.objects.count(),
        'asns': ASN.objects.count(),
        'vlans': VLAN.objects.filter(group__isnull=False).count(),
        'l2vpns': L2VPN.objects.count(),
        'vrfs': VRF.objects.count(),
    }


class ApplyPerDesignTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def apply(self, **values):
        Fabric.objects.filter(pk=self.fabric.pk).update(**values)
        self.fabric.refresh_from_db()
        before = counts()
        apply_fabric(self.fabric)
        return {k: v - before[k] for k, v in counts().items()}

    def test_mlag(self):
        self.fabric.tenants.clear()
        created = self.apply(design_option='mlag')
        self.assertEqual(
            created,
            {
                'devices': 9,
                'cables': 21,
                'prefixes /31': 5,  # 4 uplinks + the MLAG peer link
                'addresses': 14,  # 4 loopbacks + 10 link ends, no VTEP
                'asns': 2,
                'vlans': 5,
                'l2vpns': 0,
                'vrfs': 0,
            },
        )
        peer_link = Interface.objects.get(device__name='ai-lab-fabric-leaf1', name='Port-Channel1000')
        self.assertEqual([str(ip) for ip in peer_link.ip_addresses.all()], ['10.255.3.0/31'])
        self.assertEqual(peer_link.member_interfaces.count(), 2)

    def test_routed(self):
        self.fabric.tenants.clear()
        created = self.apply(design_option='routed')
        self.assertEqual(
            created,
            {
                'devices': 9,
                'cables': 19,  # no MLAG peer link
                'prefixes /31': 4,
                'addresses': 12,
                'asns': 3,  # one per leaf and the spines' shared one
                'vlans': 5,
                'l2vpns': 0,
                'vrfs': 0,
            },
        )
        self.assertFalse(Interface.objects.filter(name='Port-Channel1000').exists())

    def test_evpn_vxlan_with_a_tenant_of_its_own_vrf(self):
        tenant = EVPNTenant.objects.get(slug='ai-cluster')
        EVPNTenant.objects.filter(pk=tenant.pk).update(vrf=None)
        created = self.apply()
        self.assertEqual(
            created,
            {
                'devices': 9,
                'cables': 21,
                'prefixes /31': 5,
                'addresses': 15,  # + the pair's shared VTEP
                'asns': 2,
                'vlans': 5,
                'l2vpns': 5,
                'vrfs': 1,  # the tenant's VRF, created with its route target
            },
        )
        vrf = VRF.objects.get(name='AI Cluster')
        self.assertEqual([str(rt) for rt in vrf.import_targets.all()], ['50001:50001'])
        self.assertEqual([str(rt) for rt in vrf.export_targets.all()], ['50001:50001'])

    def test_server_port_vlan_modes(self):
        apply_fabric(self.fabric)
        bond = Interface.objects.get(device__name='ai-lab-fabric-leaf1', name='Port-Channel1')
        self.assertEqual(bond.mode, 'tagged')
        self.assertEqual(sorted(v.vid for v in bond.tagged_vlans.all()), [10, 20, 30, 50])
        rdma = Interface.objects.get(device__name='ai-lab-fabric-leaf1', name='Ethernet49')
        self.assertEqual((rdma.mode, rdma.untagged_vlan.vid), ('access', 40))
