import json

import pytest
from django.test import override_settings
from django.urls import reverse

from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo

pytestmark = pytest.mark.netbox


class GraphQLTestCase(TestCase):
    @override_settings(LOGIN_REQUIRED=True)
    def test_fabric_query_with_nested_intent(self):
        load_demo()
        self.add_permissions(
            'netbox_aifabric.view_fabric',
            'netbox_aifabric.view_qosprofile',
            'netbox_aifabric.view_trafficclass',
            'netbox_aifabric.view_evpntenant',
            'dcim.view_site',
        )
        query = """{
          netbox_aifabric_fabric_list(filters: {design_option: {exact: "evpn-vxlan"}}) {
            name site { slug } qos_profile { slug pfc_priorities roce_dscp }
            traffic_classes { name vid } tenants { name l3vni }
          }
          netbox_aifabric_traffic_class_list(filters: {lossless: {exact: true}}) { name dscp }
        }"""
        response = self.client.post(reverse('graphql'), json.dumps({'query': query}), content_type='application/json')
        self.assertEqual(response.status_code, 200, response.content)
        data = json.loads(response.content)
        self.assertNotIn('errors', data, data)
        fabric = data['data']['netbox_aifabric_fabric_list'][0]
        self.assertEqual(fabric['name'], 'AI Lab fabric')
        self.assertEqual(fabric['site'], {'slug': 'ai-lab'})
        self.assertEqual(
            fabric['qos_profile'], {'slug': 'nvidia-cumulus-lossless', 'pfc_priorities': [3], 'roce_dscp': [26]}
        )
        self.assertEqual(sorted(tc['vid'] for tc in fabric['traffic_classes']), [10, 20, 30, 40, 50])
        self.assertEqual(fabric['tenants'], [{'name': 'AI Cluster', 'l3vni': 50001}])
        self.assertEqual(data['data']['netbox_aifabric_traffic_class_list'], [{'name': 'RDMA', 'dscp': [26]}])

    def test_graphql_enforces_view_permission(self):
        load_demo()
        response = self.client.post(
            reverse('graphql'),
            json.dumps({'query': '{ netbox_aifabric_fabric_list { name } }'}),
            content_type='application/json',
        )
        self.assertEqual(json.loads(response.content)['data']['netbox_aifabric_fabric_list'], [])

    def test_leaf_pairing_and_oversubscription_target(self):
        load_demo()
        self.add_permissions('netbox_aifabric.view_fabric')
        query = """{
          mlag: netbox_aifabric_fabric_list(filters: {leaf_pairing: {exact: "mlag"}}) {
            name leaf_pairing oversubscription_target
          }
          mh: netbox_aifabric_fabric_list(filters: {leaf_pairing: {exact: "evpn-mh"}}) { name }
          low: netbox_aifabric_fabric_list(
            filters: {oversubscription_target: {comparison_lookup: {lte: 3}}}
          ) { name }
        }"""
        response = self.client.post(reverse('graphql'), json.dumps({'query': query}), content_type='application/json')
        data = json.loads(response.content)
        self.assertNotIn('errors', data, data)
        fabric = data['data']['mlag'][0]
        self.assertEqual(fabric['name'], 'AI Lab fabric')
        self.assertEqual(fabric['leaf_pairing'].lower(), 'mlag')
        self.assertEqual(float(fabric['oversubscription_target']), 3.0)
        self.assertEqual(data['data']['mh'], [])
        self.assertEqual([f['name'] for f in data['data']['low']], ['AI Lab fabric'])
