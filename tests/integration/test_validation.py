"""Every validation rule of the intent models, through the UI form and through the REST API.

Each case posts an otherwise valid object with one bad value and asserts the field error (its exact wording) and
that nothing was written.
"""

import pytest
from django.urls import reverse
from rest_framework import status

from users.constants import TOKEN_PREFIX
from users.models import Token
from utilities.testing import TestCase

from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass
from tests.integration.base import FABRIC_SHAPE, make_world

pytestmark = pytest.mark.netbox

M2M_FIELDS = {'reachable_from', 'import_targets', 'export_targets', 'traffic_classes', 'vlans', 'tenants'}


def form_payload(data):
    """API-style values -> what the HTML form posts (integer lists as "3,4", M2M as lists of pks)."""
    payload = {}
    for key, value in data.items():
        if isinstance(value, list) and key not in M2M_FIELDS:
            payload[key] = ','.join(str(v) for v in value)
        elif isinstance(value, dict):
            payload[key] = str(value).replace("'", '"')
        elif isinstance(value, bool):
            if value:
                payload[key] = 'on'
        elif value is not None:
            payload[key] = value
    return payload


class ValidationTestCase(TestCase):
    user_permissions = [
        'netbox_aifabric.add_trafficclass',
        'netbox_aifabric.add_qosprofile',
        'netbox_aifabric.add_evpntenant',
        'netbox_aifabric.add_fabric',
        'netbox_aifabric.view_trafficclass',
        'netbox_aifabric.view_evpntenant',
        'netbox_aifabric.view_qosprofile',
        'dcim.view_site',
        'ipam.view_prefix',
        'ipam.view_vlan',
        'ipam.view_asnrange',
        'ipam.view_vrf',
        'ipam.view_routetarget',
        'tenancy.view_tenant',
    ]

    @classmethod
    def setUpTestData(cls):
        cls.world = make_world()
        cls.rdma = TrafficClass.objects.create(name='RDMA', slug='rdma', purpose='rdma', vid=40)
        cls.users = TrafficClass.objects.create(name='USERS', slug='users', purpose='user-access', vid=20)

    def setUp(self):
        super().setUp()
        self.token = Token.objects.create(user=self.user)
        self.header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{self.token.key}.{self.token.token}'}

    def base(self, model):
        p = self.world['prefixes']
        return {
            TrafficClass: {'name': 'X', 'slug': 'x', 'purpose': 'rdma', 'routed': True, 'reachability': 'listed'},
            QoSProfile: {
                'name': 'X',
                'slug': 'x',
                'mode': 'lossless',
                'trust': 'dscp',
                'roce_dscp': [26],
                'roce_priority': [3],
                'roce_tc': [3],
                'pfc_priorities': [3],
                'ecn_enabled': True,
                'ecn_threshold_unit': 'bytes',
                'ecn_min_threshold': 150000,
                'ecn_max_threshold': 1500000,
                'ecn_probability': 100,
            },
            EVPNTenant: {'name': 'X', 'slug': 'x', 'l3vni': 50010},
            Fabric: {
                'name': 'X',
                'slug': 'x',
                'site': self.world['sites'][0].pk,
                **FABRIC_SHAPE,
                # every pool and ASN the routed eBGP MLAG shape needs (the planner refuses it without them)
                'loopback_pool': p['10.255.0.0/24'].pk,
                'p2p_pool': p['10.255.2.0/24'].pk,
                'mlag_peer_pool': p['10.255.3.0/28'].pk,
                'leaf_asn_range': self.world['asn_ranges']['leaves'].pk,
                'spine_asn': 65100,
                'bmc_attachment': 'oob',
            },
        }[model]

    def assertRejected(self, model, changes, field, message):
        """POST the object through the UI form and the REST API: both must name ``field`` and write nothing."""
        data = {**self.base(model), **changes}
        count = model.objects.count()
        name = model._meta.model_name

        response = self.client.post(reverse(f'plugins:netbox_aifabric:{name}_add'), form_payload(data))
        self.assertEqual(response.status_code, 200, f'form accepted {changes}')
        errors = response.context['form'].errors
        self.assertIn(field, errors, f'form errors: {errors.as_data()}')
        self.assertTrue(any(message in e for e in errors[field]), f'{message!r} not in {errors[field]}')
        self.assertEqual(model.objects.count(), count)

        url = reverse(f'plugins-api:netbox_aifabric-api:{name}-list')
        response = self.client.post(url, data, content_type='application/json', **self.header)
        self.assertEqual(response.status_code, status.HTTP_400_BAD_REQUEST, response.content)
        body = response.json()
        self.assertIn(field, body, body)
        # List fields report per item: {'dscp': {'0': ['Ensure this value is less than or equal to 63.']}}
        errors = body[field].values() if isinstance(body[field], dict) else [body[field]]
        messages = [m for group in errors for m in group]
        self.assertTrue(any(message in m for m in messages), f'{message!r} not in {body[field]}')
        self.assertEqual(model.objects.count(), count)

    def test_valid_objects_are_accepted(self):
        for model in (TrafficClass, QoSProfile, EVPNTenant, Fabric):
            with self.subTest(model=model.__name__):
                response = self.client.post(
                    reverse(f'plugins:netbox_aifabric:{model._meta.model_name}_add'), form_payload(self.base(model))
                )
                self.assertEqual(response.status_code, 302, response.context and response.context['form'].errors)
                self.assertTrue(model.objects.filter(slug='x').exists())
        profile = QoSProfile.objects.get(slug='x')
        self.assertEqual((profile.roce_dscp, profile.roce_priority, profile.pfc_priorities), ([26], [3], [3]))

    def test_dwrr_weights_keys_are_traffic_class_numbers(self):
        # "²" passed str.isdigit() and int() raised: a 500; "٣" and "01" were saved as TC3 and TC1
        for key in ('²', '٣', '01', 'x', '8', '-1', ' 3', ''):
            self.assertRejected(
                QoSProfile, {'dwrr_weights': {key: 50}}, 'dwrr_weights', f'DWRR weights: "{key}" is not a traffic class'
            )
        for weight in ('a', '50', 5.5, 0, 101, [50]):
            self.assertRejected(
                QoSProfile,
                {'dwrr_weights': {'0': weight}},
                'dwrr_weights',
                'DWRR weight of traffic class 0 must be 1–100',
            )

    # DSCP outside 0–63
    def test_dscp_range(self):
        self.assertRejected(TrafficClass, {'dscp': [64]}, 'dscp', '63')
        self.assertRejected(QoSProfile, {'roce_dscp': [64]}, 'roce_dscp', '63')
        self.assertRejected(QoSProfile, {'cnp_dscp': 64}, 'cnp_dscp', '63')

    def test_roce_and_cnp_share_dscp(self):
        self.assertRejected(
            QoSProfile,
            {'cnp_dscp': 26},
            'cnp_dscp',
            'CNP DSCP 26 is also a RoCE data DSCP: congestion notifications need their own code point.',
        )

    def test_pfc_outside_roce_priority_in_lossless_mode(self):
        self.assertRejected(
            QoSProfile,
            {'pfc_priorities': [3, 4]},
            'pfc_priorities',
            'PFC on priority 4 which is not a RoCE priority (3): in lossless mode PFC is enabled only for the RDMA '
            'class.',
        )

    def test_lossless_without_pfc(self):
        self.assertRejected(
            QoSProfile, {'pfc_priorities': []}, 'pfc_priorities', 'Lossless mode needs PFC on the RoCE priority.'
        )

    def test_pfc_in_lossy_mode(self):
        self.assertRejected(
            QoSProfile,
            {'mode': 'lossy'},
            'pfc_priorities',
            'PFC must be off in Lossy (ECN only) mode (got priorities 3).',
        )

    def test_roce_map_lengths(self):
        self.assertRejected(
            QoSProfile,
            {'roce_dscp': [3, 4], 'pfc_priorities': [3]},
            'roce_priority',
            'RoCE DSCP, priority and traffic class lists must have the same length (2 DSCP, 1 priorities, 1 traffic '
            'classes).',
        )

    def test_ecn_min_not_below_max(self):
        self.assertRejected(
            QoSProfile,
            {'ecn_min_threshold': 1500000},
            'ecn_min_threshold',
            'ECN min threshold (1500000) must be lower than the max threshold (1500000).',
        )

    def test_ecn_probability_range(self):
        self.assertRejected(QoSProfile, {'ecn_probability': 0}, 'ecn_probability', '1')
        self.assertRejected(QoSProfile, {'ecn_probability': 101}, 'ecn_probability', '100')

    def test_vni_outside_24_bits(self):
        self.assertRejected(
            EVPNTenant, {'l3vni': 16_777_216}, 'l3vni', 'VNI 16777216 is outside the 24-bit range 1–16777215.'
        )
        self.assertRejected(Fabric, {'l2vni_base': 0}, 'l2vni_base', 'VNI 0 is outside the 24-bit range')

    def test_vni_reused_within_a_tenant(self):
        self.assertRejected(
            EVPNTenant,
            {'l3vni': 20040, 'l2vni_base': 20000, 'traffic_classes': [self.rdma.pk]},
            'l3vni',
            'VNI 20040 is used twice: L3VNI of tenant X and L2VNI of tenant X (VLAN 40).',
        )

    def test_vni_reused_within_a_fabric(self):
        a = EVPNTenant.objects.create(name='A', slug='a', l3vni=50001, anycast_gateway_mac='02:00:00:00:00:01')
        b = EVPNTenant.objects.create(name='B', slug='b', l3vni=10040, anycast_gateway_mac='02:00:00:00:00:01')
        a.traffic_classes.set([self.rdma])
        self.assertRejected(
            Fabric,
            {'design_option': 'evpn-vxlan', 'tenants': [a.pk, b.pk]},
            'tenants',
            'VNI 10040 is used twice: L2VNI of tenant A (VLAN 40) and L3VNI of tenant B.',
        )

    def test_evpn_tenants_need_anycast_mac(self):
        a = EVPNTenant.objects.create(name='A', slug='a', l3vni=50001)
        self.assertRejected(
            Fabric,
            {'design_option': 'evpn-vxlan', 'tenants': [a.pk]},
            'anycast_gateway_mac',
            'EVPN tenants A need an anycast gateway MAC: set one here or on each tenant.',
        )

    def test_invalid_mac(self):
        self.assertRejected(
            EVPNTenant,
            {'anycast_gateway_mac': 'not-a-mac'},
            'anycast_gateway_mac',
            '"not-a-mac" is not a valid MAC address.',
        )

    def test_vlan_id_range(self):
        self.assertRejected(TrafficClass, {'vid': 0}, 'vid', '1')
        self.assertRejected(TrafficClass, {'vid': 4095}, 'vid', '4094')

    def test_vlan_mismatch(self):
        self.assertRejected(
            TrafficClass,
            {'vid': 41, 'vlan': self.world['vlans'][40].pk},
            'vlan',
            'VLAN VLAN 40 (40) has VID 40, but the VLAN ID of this class is 41.',
        )

    def test_two_classes_on_one_vlan_in_a_fabric(self):
        other = TrafficClass.objects.create(name='RDMA2', slug='rdma2', purpose='rdma', vid=40)
        self.assertRejected(
            Fabric, {'traffic_classes': [self.rdma.pk, other.pk]}, 'traffic_classes', 'both use VLAN 40.'
        )

    def test_pool_wrong_family(self):
        pool = self.world['prefixes']['2001:db8::/64']
        self.assertRejected(
            Fabric, {'loopback_pool': pool.pk}, 'loopback_pool', 'Pool 2001:db8::/64 is IPv6; this pool must be IPv4.'
        )

    def test_pool_too_small(self):
        pool = self.world['prefixes']['10.255.4.0/29']
        self.assertRejected(
            Fabric,
            {'p2p_pool': pool.pk},
            'p2p_pool',
            'Pool 10.255.4.0/29 is too small for the declared maximums: 64 point-to-point /31s needed, 4 available.',
        )
        self.assertRejected(
            Fabric,
            {'loopback_pool': pool.pk},
            'loopback_pool',
            'Pool 10.255.4.0/29 is too small for the declared maximums: 12 loopback /32s needed, 7 available.',
        )

    def test_pools_overlap(self):
        pool = self.world['prefixes']['10.255.0.0/24']
        self.assertRejected(
            Fabric, {'vtep_pool': pool.pk}, 'vtep_pool', 'pool 10.255.0.0/24 overlaps the loopback pool 10.255.0.0/24'
        )

    def test_asn_range_too_small(self):
        tiny = self.world['asn_ranges']['tiny']
        self.assertRejected(
            Fabric,
            {'leaf_asn_range': tiny.pk},
            'leaf_asn_range',
            'ASN range 65001–65002 holds 2 ASNs; the declared maximum of 8 leaves needs 8',
        )

    def test_counts_above_maximums(self):
        self.assertRejected(
            Fabric,
            {'spine_count': 5},
            'spine_count',
            '5 spines declared; the numbering has room for at most 4 spines (max spines)',
        )
        self.assertRejected(
            Fabric,
            {'leaf_count': 9},
            'leaf_count',
            '9 leaves declared; the numbering has room for at most 8 leaves (max leaves)',
        )
        self.assertRejected(
            Fabric,
            {'uplinks_per_spine': 3},
            'uplinks_per_spine',
            '3 uplinks per spine, outside 1–2 (max parallel uplinks)',
        )

    def test_mlag_needs_pairs(self):
        self.assertRejected(
            Fabric,
            {'design_option': 'mlag', 'leaf_count': 3},
            'leaf_count',
            'MLAG dual-ToR pairs leaves: leaves must be an even number (got 3).',
        )

    def test_mtu_range(self):
        self.assertRejected(TrafficClass, {'mtu': 9217}, 'mtu', '9216')
        self.assertRejected(QoSProfile, {'mtu': 67}, 'mtu', '68')
        self.assertRejected(Fabric, {'mtu': 10000}, 'mtu', '9216')

    # What the planner refuses, refused at save with the planner's message
    def test_server_count_beyond_the_leaf_ports(self):
        # saved before, creating 301 nodes; the plan then refused it
        self.assertRejected(
            Fabric,
            {'server_count': 300},
            'server_count',
            '301 servers attach to leaf x-leaf1; it has ports for 48 (servers per leaf)',
        )
        self.assertEqual(FabricNode.objects.count(), 0)

    def test_l2vni_beyond_24_bits(self):
        evpn = {'design_option': 'evpn-vxlan', 'traffic_classes': [self.rdma.pk]}
        self.assertRejected(
            Fabric,
            {**evpn, 'l2vni_base': 16_777_215},
            'l2vni_base',
            'VNI 16777255 (L2VNI of RDMA (VLAN 40)) is outside 1–16777215',
        )
        self.assertRejected(
            Fabric,
            {**evpn, 'l2vni_base': 70_000},
            'l2vni_base',
            'VNI 70040 (L2VNI of RDMA (VLAN 40)) is above 65535: the route distinguisher (router-id:VNI) and route '
            'target (VNI:VNI) carry it as a 16-bit number',
        )

    def test_rdma_nics_beyond_the_leaf_ports(self):
        self.assertRejected(
            Fabric,
            {'rdma_nic_count': 200},
            'rdma_nic_count',
            'port count 4800 is above 4096: no switch has that many ports',
        )

    def test_node_count_above_the_maximum(self):
        # refused before 32,767 servers are built for the planner (seconds and gigabytes; it refused them anyway)
        self.assertRejected(
            Fabric, {'server_count': 32767}, 'server_count', '32772 nodes (32767 GPU servers) are above the 4096'
        )

    def test_a_draft_without_the_pools_and_asns_its_design_needs_is_refused(self):
        # the planner's own rule and message, at the field, for a draft as for any status
        for field, message in (
            ('loopback_pool', 'the loopback pool is required for this design'),
            ('p2p_pool', 'the point-to-point pool is required for this design'),
            ('mlag_peer_pool', 'the MLAG peer pool is required for this design'),
            ('spine_asn', 'the ebgp underlay needs a spine ASN'),
            ('leaf_asn_range', 'the eBGP underlay needs a leaf ASN range'),
        ):
            with self.subTest(field=field):
                self.assertRejected(Fabric, {'status': 'draft', field: None}, field, message)

    def test_save_refuses_what_the_plan_refuses_with_its_message(self):
        """The same fabric saved past clean() (as before): the plan API's error is the form's and the API's."""
        p = self.world['prefixes']
        fields = {**self.base(Fabric), 'site': self.world['sites'][0], 'loopback_pool': p['10.255.0.0/24']}
        fields.update(
            p2p_pool=p['10.255.2.0/24'],
            mlag_peer_pool=p['10.255.3.0/28'],
            leaf_asn_range=self.world['asn_ranges']['leaves'],
            spine_asn=65000,
        )
        fabric = Fabric.objects.create(**fields)
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.change_fabric')
        plan_url = reverse('plugins-api:netbox_aifabric-api:fabric-plan', kwargs={'pk': fabric.pk})
        detail_url = reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': fabric.pk})
        self.assertEqual(self.client.post(plan_url, {}, **self.header).status_code, 200)
        Fabric.objects.filter(pk=fabric.pk).update(server_count=60)  # past clean(), as the save was
        planned = self.client.post(plan_url, {}, **self.header)
        self.assertEqual(planned.status_code, 400)
        (message,) = planned.json()['servers']
        Fabric.objects.filter(pk=fabric.pk).update(server_count=4)
        nodes = FabricNode.objects.count()
        response = self.client.patch(detail_url, {'server_count': 60}, content_type='application/json', **self.header)
        self.assertEqual(response.status_code, 400, response.content)
        self.assertEqual(response.json(), {'server_count': [message]})
        self.assertEqual(FabricNode.objects.count(), nodes)
        fabric.refresh_from_db()
        self.assertEqual(fabric.server_count, 4)

    def test_evpn_multihoming_needs_the_evpn_design(self):
        for design in ('routed', 'mlag'):
            self.assertRejected(
                Fabric,
                {'design_option': design, 'leaf_pairing': 'evpn-mh'},
                'leaf_pairing',
                'EVPN multihoming pairs leaves through the EVPN control plane, so it needs the EVPN/VXLAN design',
            )
        self.assertRejected(Fabric, {'leaf_pairing': 'esi'}, 'leaf_pairing', 'esi')

    def test_oversubscription_target_range(self):
        self.assertRejected(Fabric, {'oversubscription_target': 0.5}, 'oversubscription_target', '1')
        self.assertRejected(Fabric, {'oversubscription_target': 101}, 'oversubscription_target', '100')
        self.assertRejected(Fabric, {'oversubscription_target': 1.125}, 'oversubscription_target', '2 decimal places')

    def test_management_plane_and_matrix_choices(self):
        self.assertRejected(TrafficClass, {'reachability': 'maybe'}, 'reachability', 'maybe')
        self.assertRejected(Fabric, {'bmc_attachment': 'switch'}, 'bmc_attachment', 'switch')
        self.assertRejected(Fabric, {'management_gateway': '172.16.0.300'}, 'management_gateway', 'IPv4')
        loopbacks = self.world['prefixes']['10.255.0.0/24']
        self.assertRejected(
            Fabric,
            {'management_pool': loopbacks.pk},
            'management_pool',
            'management network 10.255.0.0/24 overlaps the loopback pool 10.255.0.0/24',
        )
