"""Apply for each design option and leaf pairing: the NetBox objects of the guide's cluster as MLAG, routed, EVPN/VXLAN
and EVPN/VXLAN with EVPN multihoming.

The expected numbers are derived from the fabric's intent (its counts, NICs, pairing, traffic classes and tenants),
never read back from the plan, so a planner change that adds or loses objects fails here."""

import netaddr
import pytest
from django.test import TestCase

from dcim.models import Cable, Device, DeviceType, Interface, InterfaceTemplate, Manufacturer
from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix
from vpn.models import L2VPN

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import EVPNTenant, Fabric
from netbox_aifabric.planner.spec import NON_DATA_PURPOSES

pytestmark = pytest.mark.netbox

PEER_LINK_MEMBERS = 2  # the apply's peer link: two member ports per leaf (intake/spec.py)


def counts():
    return {
        'devices': Device.objects.count(),
        'cables': Cable.objects.count(),
        'prefixes /31': Prefix.objects.filter(prefix__net_mask_length=31).count(),
        'rack subnets': Prefix.objects.filter(prefix__net_mask_length__lt=31).count(),
        'addresses': IPAddress.objects.count(),
        'asns': ASN.objects.count(),
        'vlans': VLAN.objects.filter(group__isnull=False).count(),
        'l2vpns': L2VPN.objects.count(),
        'vrfs': VRF.objects.count(),
    }


def expected(fabric):
    """What an apply of ``fabric`` creates, from its intent: leaves pair (1, 2), (3, 4)… (a last odd leaf is a rack of
    its own); MLAG pairs have a peer link with a /31 and share a VTEP and an ASN; EVPN multihoming pairs have
    neither; outside EVPN/VXLAN every routed class with a prefix gets one subnet per rack; with a management network
    each switch gets a management address; with BMCs on the leaves each host a BMC cable; each host an address per
    data class with a prefix on its bond and per RDMA NIC in the first lossless class, when that has a prefix."""
    spines, leaves = fabric.spine_count, fabric.leaf_count
    pairs = leaves // 2
    racks = pairs + leaves % 2
    mlag_pairs = 0 if fabric.is_evpn_mh else pairs
    switches_sharing = leaves - mlag_pairs  # a switch identity (VTEP, ASN) per MLAG pair and per other leaf
    hosts = fabric.server_count + fabric.storage_count
    classes = [tc for tc in fabric.traffic_classes.all() if tc.vid is not None]
    uplinks = spines * leaves * fabric.uplinks_per_spine
    bonded = [
        tc for tc in classes if not tc.lossless and tc.purpose not in ('management', 'telemetry') and tc.prefix_id
    ]
    lossless = sorted((tc for tc in classes if tc.lossless), key=lambda tc: tc.vid)[:1]
    per_host = (len(bonded) if fabric.server_nic_count else 0) + sum(
        fabric.rdma_nic_count for tc in lossless if tc.prefix_id
    )
    return {
        'devices': spines + leaves + hosts,
        'cables': uplinks
        + mlag_pairs * PEER_LINK_MEMBERS
        + hosts * (fabric.server_nic_count + fabric.rdma_nic_count + (fabric.bmc_attachment == 'leaf')),
        'prefixes /31': uplinks + mlag_pairs,
        'rack subnets': 0 if fabric.is_evpn else racks * sum(1 for tc in classes if tc.routed and tc.prefix_id),
        'addresses': (spines + leaves) * (1 + bool(fabric.management_pool_id))
        + 2 * (uplinks + mlag_pairs)
        + (switches_sharing if fabric.is_evpn else 0)
        + hosts * per_host,
        'asns': 1 + switches_sharing,
        'vlans': len(classes),
        'l2vpns': len(classes) if fabric.is_evpn else 0,
        'vrfs': sum(1 for t in fabric.tenants.all() if t.vrf_id is None) if fabric.is_evpn else 0,
    }


class ApplyPerDesignTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def apply(self, **values):
        """Apply the demo fabric changed by ``values``; returns ``(created, expected)``."""
        Fabric.objects.filter(pk=self.fabric.pk).update(**values)
        self.fabric.refresh_from_db()
        before = counts()
        apply_fabric(self.fabric)
        return {k: v - before[k] for k, v in counts().items()}, expected(self.fabric)

    def assert_peer_link(self, leaf, address):
        peer_link = Interface.objects.get(device__name=leaf, name='Port-Channel1000')
        self.assertEqual([str(ip) for ip in peer_link.ip_addresses.all()], [address])
        self.assertEqual(peer_link.member_interfaces.count(), PEER_LINK_MEMBERS)
        for member in peer_link.member_interfaces.all():
            self.assertEqual(member.link_peers[0].lag.name, 'Port-Channel1000')

    def test_mlag(self):
        self.fabric.tenants.clear()
        created, wanted = self.apply(design_option='mlag')
        self.assertEqual(created, wanted)
        self.assertEqual(wanted['cables'], 21)  # the guide's cluster: 4 uplinks, 2 peer-link members, 5 × 3 NICs
        self.assert_peer_link('ai-lab-fabric-leaf1', '10.255.3.0/31')

    def test_routed(self):
        """The routed design pairs the leaves of a rack (MLAG with a peer link, one ASN per pair) and gives each routed
        class one subnet per rack, carved from the class's prefix, on the class's VLAN."""
        self.fabric.tenants.clear()
        created, wanted = self.apply(design_option='routed')
        self.assertEqual(created, wanted)
        self.assertEqual((wanted['prefixes /31'], wanted['asns']), (5, 2))  # + the peer link; the pair shares an ASN
        self.assert_peer_link('ai-lab-fabric-leaf2', '10.255.3.1/31')
        routed = [tc for tc in self.fabric.traffic_classes.all() if tc.routed and tc.prefix_id]
        self.assertTrue(routed)
        for tc in routed:
            subnet = Prefix.objects.get(prefix__net_contained=str(tc.prefix.prefix), vlan__vid=tc.vid)
            self.assertEqual(subnet.vlan.group.slug, 'ai-lab-fabric-vlans')
            self.assertEqual(subnet.vrf, tc.prefix.vrf)
            self.assertIn('ai-lab-fabric-leaf1, ai-lab-fabric-leaf2', subnet.description)
        unrouted = [tc for tc in self.fabric.traffic_classes.all() if not tc.routed and tc.prefix_id]
        for tc in unrouted:
            self.assertFalse(Prefix.objects.filter(prefix__net_contained=str(tc.prefix.prefix)).exists())

    def test_routed_with_two_racks(self):
        created, wanted = self.apply(design_option='routed', leaf_count=4)
        self.assertEqual(created, wanted)
        self.assert_peer_link('ai-lab-fabric-leaf3', '10.255.3.4/31')  # numbered by the pair's primary leaf id

    def test_evpn_vxlan_with_a_tenant_of_its_own_vrf(self):
        tenant = EVPNTenant.objects.get(slug='ai-cluster')
        EVPNTenant.objects.filter(pk=tenant.pk).update(vrf=None)
        created, wanted = self.apply()
        self.assertEqual(created, wanted)
        self.assertEqual(wanted['vrfs'], 1)  # the tenant's VRF, created with its route target
        vrf = VRF.objects.get(name='AI Cluster')
        self.assertEqual([str(rt) for rt in vrf.import_targets.all()], ['50001:50001'])
        self.assertEqual([str(rt) for rt in vrf.export_targets.all()], ['50001:50001'])

    def test_evpn_multihoming(self):
        """EVPN multihoming pairs: no peer link (and no MLAG peer pool needed), each leaf its own VTEP and ASN, the
        server bonds still span the pair, each an Ethernet segment."""
        created, wanted = self.apply(leaf_pairing='evpn-mh', mlag_peer_pool=None)
        self.assertEqual(created, wanted)
        self.assertFalse(Interface.objects.filter(name='Port-Channel1000').exists())
        self.assertFalse(Prefix.objects.filter(prefix__net_contained='10.255.3.0/28').exists())
        vteps = {
            leaf: [str(ip) for ip in Interface.objects.get(device__name=leaf, name='Loopback1').ip_addresses.all()]
            for leaf in ('ai-lab-fabric-leaf1', 'ai-lab-fabric-leaf2')
        }
        self.assertEqual(len({address for addresses in vteps.values() for address in addresses}), 2, vteps)
        for addresses in vteps.values():
            self.assertEqual(IPAddress.objects.get(address=addresses[0]).role, 'loopback')  # not a shared anycast one
        leaves = Device.objects.filter(name__in=vteps).order_by('name')
        asns = [d.local_context_data['aifabric']['bgp']['asn'] for d in leaves]
        self.assertEqual(len(set(asns)), 2)
        bond = Interface.objects.get(device__name='ai-lab-fabric-gpu1', name='bond0')
        self.assertEqual(
            sorted(m.link_peers[0].device.name for m in bond.member_interfaces.all()),
            ['ai-lab-fabric-leaf1', 'ai-lab-fabric-leaf2'],
        )
        context = leaves[0].local_context_data['aifabric']
        self.assertEqual(context['evpn_mh']['peer'], 'ai-lab-fabric-leaf2')
        self.assertEqual(len(context['evpn_mh']['segments']), self.fabric.server_count + self.fabric.storage_count)

    def test_server_port_vlan_modes(self):
        apply_fabric(self.fabric)
        bond = Interface.objects.get(device__name='ai-lab-fabric-leaf1', name='Port-Channel1')
        self.assertEqual(bond.mode, 'tagged')
        data = sorted(tc.vid for tc in self.fabric.traffic_classes.all() if tc.purpose not in NON_DATA_PURPOSES)
        data = [vid for vid in data if vid != 40]  # RDMA: an access port of its own
        self.assertEqual(sorted(v.vid for v in bond.tagged_vlans.all()), data)
        self.assertEqual(data, [20, 30])
        rdma = Interface.objects.get(device__name='ai-lab-fabric-leaf1', name='Ethernet49')
        self.assertEqual((rdma.mode, rdma.untagged_vlan.vid), ('access', 40))


class ManagementApplyTestCase(TestCase):
    """The management plane as NetBox objects: each switch's management port (management only) with its address as
    the device's out-of-band IP; BMC ports on the leaves as access ports in the management VLAN."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_switch_management_ports_and_out_of_band_ips(self):
        apply_fabric(self.fabric)
        network = netaddr.IPNetwork(str(self.fabric.management_pool.prefix))
        for n in range(1, self.fabric.spine_count + 1):
            device = Device.objects.get(name=f'ai-lab-fabric-spine{n}')
            port = Interface.objects.get(device=device, name='mgmt0')
            self.assertTrue(port.mgmt_only)
            address = f'{network[-1 - n]}/{network.prefixlen}'  # counted down from the last host
            self.assertEqual([str(ip) for ip in port.ip_addresses.all()], [address])
            self.assertEqual(str(device.oob_ip), address)

    def test_a_device_type_names_the_management_port(self):
        manufacturer = Manufacturer.objects.create(name='Arista', slug='arista')
        device_type = DeviceType.objects.create(manufacturer=manufacturer, model='7050SX3', slug='7050sx3')
        InterfaceTemplate.objects.create(device_type=device_type, name='Management1', type='1000base-t', mgmt_only=True)
        Fabric.objects.filter(pk=self.fabric.pk).update(leaf_device_type=device_type)
        self.fabric.refresh_from_db()
        apply_fabric(self.fabric)
        leaf = Device.objects.get(name='ai-lab-fabric-leaf1')
        self.assertEqual(str(leaf.oob_ip.assigned_object), 'Management1')
        self.assertFalse(Interface.objects.filter(device=leaf, name='mgmt0').exists())

    def test_bmc_ports_on_the_leaves(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(bmc_attachment='leaf')
        self.fabric.refresh_from_db()
        before = Cable.objects.count()
        apply_fabric(self.fabric)
        hosts = self.fabric.server_count + self.fabric.storage_count
        bmcs = Interface.objects.filter(name='bmc', device__name__startswith='ai-lab-fabric-')
        self.assertEqual(bmcs.count(), hosts)
        mgmt_vid = self.fabric.traffic_classes.get(purpose='management').vid
        leaves = set()
        for bmc in bmcs:
            leaf_port = bmc.link_peers[0]
            # single-homed as the server's RDMA NIC: the same leaf of the pair, alternating by server id
            rdma = Interface.objects.get(device=bmc.device, name='rdma1')
            self.assertEqual(leaf_port.device, rdma.link_peers[0].device)
            leaves.add(leaf_port.device.name)
            self.assertEqual(
                (leaf_port.mode, leaf_port.untagged_vlan.vid, bmc.type), ('access', mgmt_vid, '1000base-t')
            )
            context = leaf_port.device.local_context_data['aifabric']
            entry = next(i for i in context['interfaces'] if i['name'] == leaf_port.name)
            self.assertEqual((entry['kind'], entry['trust'], entry['untagged_vlan']), ('bmc', 'none', mgmt_vid))
        self.assertEqual(leaves, {'ai-lab-fabric-leaf1', 'ai-lab-fabric-leaf2'})  # both leaves carry BMCs
        self.assertEqual(Cable.objects.count() - before, expected(self.fabric)['cables'])
