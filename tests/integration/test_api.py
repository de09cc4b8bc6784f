import pytest

from netbox_aifabric.graphql.types import EVPNTenantType, FabricType, QoSProfileType, TrafficClassType
from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass
from tests.integration import base
from tests.integration.base import make_world, own_pools

pytestmark = pytest.mark.netbox


class TrafficClassAPITestCase(base.PluginAPITestCase):
    model = TrafficClass
    type_class = TrafficClassType
    graphql_base_name = 'netbox_aifabric_traffic_class'
    brief_fields = ['description', 'display', 'id', 'name', 'purpose', 'slug', 'url', 'vid']
    bulk_update_data = {'mtu': 9000}
    bulk_update_invalid_data = {'mtu': 10000}

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        TrafficClass.objects.bulk_create(
            [
                TrafficClass(name='MGMT', slug='mgmt', purpose='management', vid=10),
                TrafficClass(name='USERS', slug='users', purpose='user-access', vid=20),
                TrafficClass(name='STORAGE', slug='storage', purpose='storage', vid=30),
            ]
        )
        cls.create_data = [
            {
                'name': 'RDMA',
                'slug': 'rdma',
                'purpose': 'rdma',
                'vid': 40,
                'vlan': world['vlans'][40].pk,
                'dscp': [26],
                'switch_priority': 3,
                'queue': 3,
                'lossless': True,
                'ecn': True,
                'mtu': 9000,
            },
            {'name': 'TELEMETRY', 'slug': 'telemetry', 'purpose': 'telemetry', 'vid': 50, 'dscp': [8, 10]},
            {'name': 'BACKUP', 'slug': 'backup', 'purpose': 'backup', 'routed': False},
        ]


class QoSProfileAPITestCase(base.PluginAPITestCase):
    model = QoSProfile
    type_class = QoSProfileType
    graphql_base_name = 'netbox_aifabric_qos_profile'
    brief_fields = ['description', 'display', 'id', 'mode', 'name', 'slug', 'url']
    bulk_update_data = {'cable_length': 300}
    bulk_update_invalid_data = {'mtu': 20}

    @classmethod
    def setUpTestData(cls):
        base.make_qos_profiles()
        cls.create_data = [
            {
                'name': 'SONiC-like',
                'slug': 'sonic-like',
                'mode': 'lossless',
                'roce_dscp': [3, 4],
                'roce_priority': [3, 4],
                'roce_tc': [3, 4],
                'cnp_dscp': 48,
                'cnp_tc': 6,
                'pfc_priorities': [3, 4],
                'ecn_min_threshold': 1048576,
                'ecn_max_threshold': 2097152,
                'ecn_probability': 5,
                'dwrr_weights': {'3': 15, '4': 15, '0': 14},
                'pfc_watchdog': True,
                'pfcwd_action': 'drop',
            },
            {
                'name': 'Lossy 2',
                'slug': 'lossy-2',
                'mode': 'lossy',
                'roce_dscp': [24],
                'roce_priority': [3],
                'roce_tc': [3],
            },
            {'name': 'None 2', 'slug': 'none-2', 'mode': 'none'},
        ]


class EVPNTenantAPITestCase(base.PluginAPITestCase):
    model = EVPNTenant
    type_class = EVPNTenantType
    graphql_base_name = 'netbox_aifabric_evpn_tenant'
    brief_fields = ['description', 'display', 'id', 'l3vni', 'name', 'slug', 'url']
    bulk_update_data = {'l2vni_base': 30000}
    bulk_update_invalid_data = {'l2vni_base': 16_777_216}

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        EVPNTenant.objects.bulk_create(
            [
                EVPNTenant(name='A', slug='a', l3vni=50001),
                EVPNTenant(name='B', slug='b', l3vni=50002),
                EVPNTenant(name='C', slug='c', l3vni=50003),
            ]
        )
        rdma = TrafficClass.objects.create(name='RDMA', slug='rdma', purpose='rdma', vid=40)
        cls.create_data = [
            {
                'name': 'D',
                'slug': 'd',
                'l3vni': 50004,
                'vrf': world['vrfs'][0].pk,
                'traffic_classes': [rdma.pk],
                'anycast_gateway_mac': '02:00:00:00:00:aa',
            },
            {'name': 'E', 'slug': 'e', 'l3vni': 50005, 'l2vni_base': 20000, 'vlans': [world['vlans'][20].pk]},
            {'name': 'F', 'slug': 'f', 'l3vni': 50006, 'tenant': world['tenants'][0].pk},
        ]

    def test_anycast_mac_is_normalized(self):
        self.add_permissions('netbox_aifabric.add_evpntenant')
        response = self.client.post(
            self._get_list_url(),
            {'name': 'N', 'slug': 'n', 'l3vni': 7, 'anycast_gateway_mac': '0200.0000.00BB'},
            format='json',
            **self.header,
        )
        self.assertHttpStatus(response, 201)
        self.assertEqual(EVPNTenant.objects.get(slug='n').anycast_gateway_mac, '02:00:00:00:00:bb')


class FabricAPITestCase(base.PluginAPITestCase):
    model = Fabric
    type_class = FabricType
    graphql_base_name = 'netbox_aifabric_fabric'
    brief_fields = ['description', 'design_option', 'display', 'id', 'name', 'slug', 'status', 'url']
    # (each fabric has pools of its own: the planner, and so the save, refuses one without those its design needs)
    bulk_update_data = {'description': 'bulk', 'oversubscription_target': 1}
    bulk_update_invalid_data = {'spine_count': 9}

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        sites = world['sites']
        Fabric.objects.bulk_create(
            [
                Fabric(name=f'Fabric {n}', slug=f'fabric-{n}', site=sites[n - 1], **own_pools(world, n))
                for n in (1, 2, 3)
            ]
        )
        p = world['prefixes']
        tenant = EVPNTenant.objects.create(name='T', slug='t', l3vni=50001)
        pool_pks = {n: {k: getattr(v, 'pk', v) for k, v in own_pools(world, n).items()} for n in (5, 6)}
        cls.create_data = [
            {
                'name': 'Fabric 4',
                'slug': 'fabric-4',
                'site': sites[0].pk,
                'design_option': 'evpn-vxlan',
                'leaf_pairing': 'evpn-mh',
                'oversubscription_target': 1.5,
                'loopback_pool': p['10.255.0.0/24'].pk,
                'vtep_pool': p['10.255.1.0/24'].pk,
                'p2p_pool': p['10.255.2.0/24'].pk,
                'leaf_asn_range': world['asn_ranges']['leaves'].pk,
                'spine_asn': 65100,
                'anycast_gateway_mac': '02:00:00:00:00:aa',
                'tenants': [tenant.pk],
            },
            {
                'name': 'Fabric 5',
                'slug': 'fabric-5',
                'site': sites[1].pk,
                'design_option': 'mlag',
                'leaf_count': 4,
                **pool_pks[5],
            },
            {
                'name': 'Fabric 6',
                'slug': 'fabric-6',
                'site': sites[2].pk,
                'underlay': 'ospf',
                'spine_count': 0,
                **pool_pks[6],
            },
        ]
