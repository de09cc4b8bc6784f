import pytest
from django.test import TestCase

from dcim.models import Device, DeviceRole, DeviceType, Manufacturer
from utilities.testing import ChangeLoggedFilterSetTestMixin

from netbox_aifabric.filtersets import (
    EVPNTenantFilterSet,
    FabricFilterSet,
    FabricNodeFilterSet,
    QoSProfileFilterSet,
    TrafficClassFilterSet,
)
from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass
from tests.integration.base import LOSSLESS, make_world

pytestmark = pytest.mark.netbox


class PluginFilterSetTests(ChangeLoggedFilterSetTestMixin):
    """NetBox's filterset checks; ``m2m_filter_names`` names the filters of many-to-many fields by field name."""

    m2m_filter_names = {}

    def get_m2m_filter_name(self, field):
        return self.m2m_filter_names.get(field.name) or super().get_m2m_filter_name(field)

    def test_missing_filters(self):
        # NetBox derives the filterset module from the test module's top package, which is `tests` here
        cls = type(self)
        module = cls.__module__
        cls.__module__ = 'netbox_aifabric.tests'
        try:
            super().test_missing_filters()
        finally:
            cls.__module__ = module


class TrafficClassFilterSetTestCase(PluginFilterSetTests, TestCase):
    queryset = TrafficClass.objects.all()
    filterset = TrafficClassFilterSet
    m2m_filter_names = {'reachable_from': 'reachable_from', 'can_reach': 'can_reach'}

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        mgmt, users, rdma = TrafficClass.objects.bulk_create(
            [
                TrafficClass(name='MGMT', slug='mgmt', purpose='management', vid=10, vrf=world['vrfs'][0], mtu=1500),
                TrafficClass(name='USERS', slug='users', purpose='user-access', vid=20, dscp=[0], mtu=1500),
                TrafficClass(
                    name='RDMA',
                    slug='rdma',
                    purpose='rdma',
                    vid=40,
                    dscp=[26, 27],
                    switch_priority=3,
                    lossless=True,
                    ecn=True,
                    routed=False,
                    mtu=9000,
                ),
            ]
        )
        rdma.reachable_from.set([users])
        fabric = Fabric.objects.create(name='F', slug='f', site=world['sites'][0])
        fabric.traffic_classes.set([mgmt, rdma])

    def test_q(self):
        self.assertEqual(self.filterset({'q': 'rdm'}, self.queryset).qs.count(), 1)

    def test_purpose(self):
        params = {'purpose': ['management', 'rdma']}
        self.assertEqual(self.filterset(params, self.queryset).qs.count(), 2)

    def test_vid(self):
        self.assertEqual(self.filterset({'vid': [10, 20]}, self.queryset).qs.count(), 2)

    def test_dscp(self):
        self.assertEqual(list(self.filterset({'dscp': 26}, self.queryset).qs.values_list('slug', flat=True)), ['rdma'])

    def test_lossless(self):
        self.assertEqual(self.filterset({'lossless': True}, self.queryset).qs.count(), 1)

    def test_mtu(self):
        self.assertEqual(self.filterset({'mtu__gte': [9000]}, self.queryset).qs.count(), 1)

    def test_vrf(self):
        vrf = TrafficClass.objects.get(slug='mgmt').vrf
        self.assertEqual(self.filterset({'vrf_id': [vrf.pk]}, self.queryset).qs.count(), 1)
        self.assertEqual(self.filterset({'vrf': [vrf.rd]}, self.queryset).qs.count(), 1)

    def test_reachable_from(self):
        users = TrafficClass.objects.get(slug='users')
        qs = self.filterset({'reachable_from_id': [users.pk]}, self.queryset).qs
        self.assertEqual(list(qs.values_list('slug', flat=True)), ['rdma'])
        rdma = TrafficClass.objects.get(slug='rdma')
        qs = self.filterset({'can_reach_id': [rdma.pk]}, self.queryset).qs
        self.assertEqual(list(qs.values_list('slug', flat=True)), ['users'])

    def test_fabric(self):
        fabric = Fabric.objects.get()
        self.assertEqual(self.filterset({'fabric_id': [fabric.pk]}, self.queryset).qs.count(), 2)


class QoSProfileFilterSetTestCase(PluginFilterSetTests, TestCase):
    queryset = QoSProfile.objects.all()
    filterset = QoSProfileFilterSet
    ignore_fields = ('dwrr_weights',)

    @classmethod
    def setUpTestData(cls):
        QoSProfile.objects.bulk_create(
            [
                QoSProfile(
                    name='Lossless', slug='lossless', cnp_dscp=48, ecn_probability=100, preset='nvidia', **LOSSLESS
                ),
                QoSProfile(
                    name='SONiC',
                    slug='sonic',
                    mode='lossless',
                    roce_dscp=[3, 4],
                    roce_priority=[3, 4],
                    roce_tc=[3, 4],
                    pfc_priorities=[3, 4],
                    cnp_dscp=48,
                    ecn_probability=5,
                    pfc_watchdog=True,
                ),
                QoSProfile(name='TCP', slug='tcp', mode='none', ecn_enabled=False),
            ]
        )

    def test_q(self):
        self.assertEqual(self.filterset({'q': 'sonic'}, self.queryset).qs.count(), 1)

    def test_mode(self):
        self.assertEqual(self.filterset({'mode': ['lossless']}, self.queryset).qs.count(), 2)

    def test_pfc_priorities(self):
        self.assertEqual(self.filterset({'pfc_priorities': 4}, self.queryset).qs.count(), 1)
        self.assertEqual(self.filterset({'pfc_priorities': 3}, self.queryset).qs.count(), 2)

    def test_roce_dscp(self):
        self.assertEqual(self.filterset({'roce_dscp': 26}, self.queryset).qs.count(), 1)

    def test_ecn_probability(self):
        self.assertEqual(self.filterset({'ecn_probability__lt': [50]}, self.queryset).qs.count(), 1)

    def test_preset(self):
        self.assertEqual(self.filterset({'preset': ['nvidia']}, self.queryset).qs.count(), 1)

    def test_pfc_watchdog(self):
        self.assertEqual(self.filterset({'pfc_watchdog': True}, self.queryset).qs.count(), 1)


class EVPNTenantFilterSetTestCase(PluginFilterSetTests, TestCase):
    queryset = EVPNTenant.objects.all()
    filterset = EVPNTenantFilterSet
    m2m_filter_names = {'import_targets': 'import_target', 'export_targets': 'export_target'}

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        cls.world = world
        a, b, _ = EVPNTenant.objects.bulk_create(
            [
                EVPNTenant(name='A', slug='a', l3vni=50001, vrf=world['vrfs'][0], tenant=world['tenants'][0]),
                EVPNTenant(name='B', slug='b', l3vni=50002, l2vni_base=20000),
                EVPNTenant(name='C', slug='c', l3vni=50003),
            ]
        )
        a.import_targets.set([world['rts'][0]])
        b.export_targets.set([world['rts'][1]])
        b.vlans.set([world['vlans'][20]])
        rdma = TrafficClass.objects.create(name='RDMA', slug='rdma', purpose='rdma', vid=40)
        a.traffic_classes.set([rdma])

    def test_l3vni(self):
        self.assertEqual(self.filterset({'l3vni': [50001, 50003]}, self.queryset).qs.count(), 2)

    def test_tenant(self):
        tenant = self.world['tenants'][0]
        self.assertEqual(self.filterset({'tenant_id': [tenant.pk]}, self.queryset).qs.count(), 1)
        self.assertEqual(self.filterset({'tenant': [tenant.slug]}, self.queryset).qs.count(), 1)

    def test_route_targets(self):
        self.assertEqual(self.filterset({'import_target': ['65000:1']}, self.queryset).qs.count(), 1)
        self.assertEqual(self.filterset({'export_target_id': [self.world['rts'][1].pk]}, self.queryset).qs.count(), 1)

    def test_members(self):
        self.assertEqual(self.filterset({'traffic_class': ['rdma']}, self.queryset).qs.count(), 1)
        self.assertEqual(self.filterset({'vlan_id': [self.world['vlans'][20].pk]}, self.queryset).qs.count(), 1)


class FabricFilterSetTestCase(PluginFilterSetTests, TestCase):
    queryset = Fabric.objects.all()
    filterset = FabricFilterSet
    m2m_filter_names = {'tenants': 'evpn_tenant'}
    ignore_fields = ('applied_allocations', 'port_map')  # apply state; a JSON port map, not a filter (as dwrr_weights)

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        cls.world = world
        sites = world['sites']
        profile = QoSProfile.objects.create(name='TCP', slug='tcp', mode='none')
        Fabric.objects.bulk_create(
            [
                Fabric(name='Fabric 1', slug='fabric-1', site=sites[0], qos_profile=profile, spine_count=2),
                Fabric(name='Fabric 2', slug='fabric-2', site=sites[1], design_option='mlag', status='active'),
                Fabric(
                    name='Fabric 3',
                    slug='fabric-3',
                    site=sites[2],
                    design_option='evpn-vxlan',
                    leaf_pairing='evpn-mh',
                    oversubscription_target=1,
                    spine_count=4,
                    p2p_pool=world['prefixes']['10.255.2.0/24'],
                ),
            ]
        )

    def test_site(self):
        sites = self.world['sites']
        self.assertEqual(self.filterset({'site_id': [sites[0].pk, sites[1].pk]}, self.queryset).qs.count(), 2)
        self.assertEqual(self.filterset({'site': ['site-3']}, self.queryset).qs.count(), 1)

    def test_design_option(self):
        self.assertEqual(self.filterset({'design_option': ['mlag', 'evpn-vxlan']}, self.queryset).qs.count(), 2)

    def test_status(self):
        self.assertEqual(self.filterset({'status': ['active']}, self.queryset).qs.count(), 1)

    def test_leaf_pairing_and_oversubscription_target(self):
        self.assertEqual(self.filterset({'leaf_pairing': ['evpn-mh']}, self.queryset).qs.get().slug, 'fabric-3')
        self.assertEqual(self.filterset({'leaf_pairing': ['mlag']}, self.queryset).qs.count(), 2)
        self.assertEqual(self.filterset({'oversubscription_target__lt': [2]}, self.queryset).qs.get().slug, 'fabric-3')

    def test_spine_count(self):
        self.assertEqual(self.filterset({'spine_count__gt': [2]}, self.queryset).qs.count(), 1)

    def test_pools_and_profile(self):
        pool = self.world['prefixes']['10.255.2.0/24']
        self.assertEqual(self.filterset({'p2p_pool_id': [pool.pk]}, self.queryset).qs.count(), 1)
        self.assertEqual(self.filterset({'qos_profile': ['tcp']}, self.queryset).qs.count(), 1)


class FabricNodeFilterSetTestCase(PluginFilterSetTests, TestCase):
    queryset = FabricNode.objects.all()
    filterset = FabricNodeFilterSet

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        cls.fabrics = [
            Fabric(name=f'Fabric {i}', slug=f'fabric-{i}', site=world['sites'][0], server_count=i, storage_count=0)
            for i in (1, 2)
        ]
        for fabric in cls.fabrics:
            fabric.save()  # 2 spines, 2 leaves and i GPU servers each
        manufacturer = Manufacturer.objects.create(name='M', slug='m')
        cls.device = Device.objects.create(
            name='old-tor',
            site=world['sites'][0],
            device_type=DeviceType.objects.create(manufacturer=manufacturer, model='T', slug='t'),
            role=DeviceRole.objects.create(name='R', slug='r'),
        )
        FabricNode.objects.filter(fabric=cls.fabrics[0], role='leaf', node_id=1).update(device=cls.device)

    def test_fabric(self):
        self.assertEqual(self.filterset({'fabric_id': [self.fabrics[0].pk]}, self.queryset).qs.count(), 5)
        self.assertEqual(self.filterset({'fabric': ['fabric-2']}, self.queryset).qs.count(), 6)

    def test_role(self):
        self.assertEqual(self.filterset({'role': ['gpu']}, self.queryset).qs.count(), 3)
        self.assertEqual(self.filterset({'role': ['spine', 'leaf']}, self.queryset).qs.count(), 8)

    def test_adopted(self):
        self.assertEqual(self.filterset({'adopted': True}, self.queryset).qs.count(), 1)
        self.assertEqual(self.filterset({'device_id': [self.device.pk]}, self.queryset).qs.get().name, 'fabric-1-leaf1')

    def test_q(self):
        self.assertEqual(self.filterset({'q': 'fabric-2-gpu'}, self.queryset).qs.count(), 2)
