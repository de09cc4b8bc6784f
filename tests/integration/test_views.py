import pytest

from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass
from tests.integration import base
from tests.integration.base import FABRIC_SHAPE, make_world, own_pools

pytestmark = pytest.mark.netbox


class TrafficClassViewTestCase(base.PluginViewTestCase):
    model = TrafficClass

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        classes = TrafficClass.objects.bulk_create(
            [
                TrafficClass(name='MGMT', slug='mgmt', purpose='management', vid=10),
                TrafficClass(name='USERS', slug='users', purpose='user-access', vid=20),
                TrafficClass(name='STORAGE', slug='storage', purpose='storage', vid=30),
            ]
        )
        cls.form_data = {
            'name': 'RDMA',
            'slug': 'rdma',
            'purpose': 'rdma',
            'vid': 40,
            'vlan': world['vlans'][40].pk,
            'vrf': world['vrfs'][0].pk,
            'dscp': [26],
            'switch_priority': 3,
            'queue': 3,
            'lossless': True,
            'ecn': True,
            'mtu': 9000,
            'routed': False,
            'reachability': 'listed',
            'reachable_from': [classes[2].pk],
            'description': 'RoCEv2',
            'tags': [],
        }
        # model_to_dict() renders array fields as their form text ("26"); the stored lists are asserted by the
        # API tests and tests/integration/test_validation.py
        cls.validation_excluded_fields = ['dscp']
        cls.csv_data = (
            'name,slug,purpose,vid,dscp,switch_priority,lossless,reachable_from',
            'RDMA,rdma,rdma,40,26,3,true,storage',
            'TELEMETRY,telemetry,telemetry,50,,,false,mgmt',
            'BACKUP,backup,backup,60,"8,10",1,false,',
        )
        cls.csv_update_data = (
            'id,mtu,description',
            f'{classes[0].pk},1500,BMC',
            f'{classes[1].pk},1500,Notebooks',
            f'{classes[2].pk},9000,NFS',
        )
        cls.bulk_edit_data = {'purpose': 'other', 'mtu': 9216, 'lossless': False}


class QoSProfileViewTestCase(base.PluginViewTestCase):
    model = QoSProfile

    @classmethod
    def setUpTestData(cls):
        profiles = base.make_qos_profiles()
        cls.form_data = {
            'name': 'RoCE 24',
            'slug': 'roce-24',
            'mode': 'lossless',
            'trust': 'dscp',
            'roce_dscp': [24],
            'roce_priority': [3],
            'roce_tc': [3],
            'cnp_dscp': 48,
            'cnp_priority': 6,
            'cnp_tc': 6,
            'pfc_priorities': [3],
            'ecn_enabled': True,
            'ecn_threshold_unit': 'bytes',
            'ecn_min_threshold': 150000,
            'ecn_max_threshold': 1500000,
            'ecn_probability': 100,
            'ecn_tcs': [3],
            'strict_tcs': [6],
            'dwrr_weights': '{"0": 50, "3": 50}',
            'pfc_watchdog': True,
            'pfcwd_poll_interval': 100,
            'pfcwd_detection_polls': 3,
            'pfcwd_action': 'drop',
            'cable_length': 100,
            'mtu': 9216,
            'tags': [],
        }
        cls.validation_excluded_fields = [
            'dwrr_weights',
            'roce_dscp',
            'roce_priority',
            'roce_tc',
            'pfc_priorities',
            'ecn_tcs',
            'strict_tcs',
        ]
        cls.csv_data = (
            'name,slug,mode,roce_dscp,roce_priority,roce_tc,cnp_dscp,pfc_priorities,ecn_min_threshold,ecn_max_threshold',
            'A,a,lossless,26,3,3,48,3,150000,1500000',
            'B,b,lossy,"3,4","3,4","3,4",48,,1048576,2097152',
            'C,c,none,,,,,,,',
        )
        cls.csv_update_data = (
            'id,cable_length,description',
            f'{profiles[0].pk},100,one',
            f'{profiles[1].pk},300,two',
            f'{profiles[2].pk},,three',
        )
        cls.bulk_edit_data = {'trust': 'both', 'mtu': 9000, 'pfc_watchdog': True}


class EVPNTenantViewTestCase(base.PluginViewTestCase):
    model = EVPNTenant

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        cls.world = world
        EVPNTenant.objects.bulk_create(
            [
                EVPNTenant(name='Tenant A', slug='tenant-a', l3vni=50001),
                EVPNTenant(name='Tenant B', slug='tenant-b', l3vni=50002),
                EVPNTenant(name='Tenant C', slug='tenant-c', l3vni=50003),
            ]
        )
        rdma = TrafficClass.objects.create(name='RDMA', slug='rdma', purpose='rdma', vid=40)
        cls.form_data = {
            'name': 'Tenant D',
            'slug': 'tenant-d',
            'tenant': world['tenants'][0].pk,
            'vrf': world['vrfs'][0].pk,
            'l3vni': 50004,
            'l2vni_base': 20000,
            'anycast_gateway_mac': '02:00:00:00:00:aa',
            'traffic_classes': [rdma.pk],
            'vlans': [world['vlans'][20].pk],
            'tags': [],
        }
        cls.csv_data = (
            'name,slug,l3vni,l2vni_base,vrf,traffic_classes',
            'Tenant E,tenant-e,50005,30000,VRF 1,rdma',
            'Tenant F,tenant-f,50006,,,',
            'Tenant G,tenant-g,50007,,VRF 2,',
        )
        cls.csv_update_data = (
            'id,l3vni,description',
            *[f'{t.pk},{60000 + t.pk},updated' for t in EVPNTenant.objects.all()],
        )
        cls.bulk_edit_data = {'l2vni_base': 40000, 'description': 'bulk'}


class FabricViewTestCase(base.PluginViewTestCase):
    model = Fabric

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        sites = world['sites']
        profile = QoSProfile.objects.create(name='TCP', slug='tcp', mode='none')
        Fabric.objects.bulk_create(
            [
                Fabric(
                    name=f'Fabric {n}',
                    slug=f'fabric-{n}',
                    site=sites[n - 1],
                    design_option=design,
                    **own_pools(world, n),
                )
                for n, design in ((1, 'routed'), (2, 'mlag'), (3, 'evpn-vxlan'))
            ]
        )
        tc = TrafficClass.objects.create(name='RDMA', slug='rdma', purpose='rdma', vid=40)
        tenant = EVPNTenant.objects.create(name='T', slug='t', l3vni=50001)
        p = world['prefixes']
        cls.form_data = {
            'name': 'Fabric 4',
            'slug': 'fabric-4',
            'site': sites[0].pk,
            **FABRIC_SHAPE,
            'status': 'planned',
            'design_option': 'evpn-vxlan',
            'leaf_pairing': 'evpn-mh',
            'bmc_attachment': 'oob',
            'oversubscription_target': 1.5,
            'loopback_pool': p['10.255.0.0/24'].pk,
            'vtep_pool': p['10.255.1.0/24'].pk,
            'p2p_pool': p['10.255.2.0/24'].pk,
            'mlag_peer_pool': p['10.255.3.0/28'].pk,
            'leaf_asn_range': world['asn_ranges']['leaves'].pk,
            'spine_asn': 65100,
            'anycast_gateway_mac': '02:00:00:00:00:aa',
            'qos_profile': profile.pk,
            'traffic_classes': [tc.pk],
            'tenants': [tenant.pk],
            'tags': [],
        }
        # (each imported fabric with pools of its own: the planner, and so the import, refuses one without them)
        pools = {n: ','.join(str(v.prefix) for v in list(own_pools(world, n).values())[:4]) for n in (5, 6, 7)}
        cls.csv_data = (
            'name,slug,site,design_option,leaf_pairing,spine_count,leaf_count,qos_profile,traffic_classes,'
            'oversubscription_target,loopback_pool,vtep_pool,p2p_pool,mlag_peer_pool,leaf_asn_range,spine_asn',
            f'Fabric 5,fabric-5,site-1,routed,mlag,2,2,tcp,rdma,1,{pools[5]},leaves,65100',
            f'Fabric 6,fabric-6,site-2,mlag,,0,2,,,,{pools[6]},leaves,65100',
            f'Fabric 7,fabric-7,site-3,evpn-vxlan,evpn-mh,2,4,tcp,,4.5,{pools[7]},leaves,65100',
        )
        cls.csv_update_data = ('id,status,description', *[f'{f.pk},draft,updated' for f in Fabric.objects.all()])
        # (underlay first: NetBox's constrained bulk-edit test constrains the first field to its current value)
        cls.bulk_edit_data = {'underlay': 'ospf', 'status': 'draft', 'mtu': 9000, 'oversubscription_target': 1}
