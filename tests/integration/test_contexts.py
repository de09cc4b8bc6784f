"""The per-device ``aifabric`` config context: written by the apply, served in ``config_context`` by the REST API,
valid against the versioned schema, brought up to date by each apply, and never touching the user's own keys."""

import json
from pathlib import Path

import jsonschema
import pytest
from django.urls import reverse

from core.models import ObjectChange
from dcim.models import Device
from utilities.testing import APITestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.intake.intent import intent_of
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric, QoSProfile, TrafficClass

pytestmark = pytest.mark.netbox

SCHEMA = json.loads((Path(__file__).parents[2] / 'docs' / 'aifabric-context.v1.schema.json').read_text())


def validate(context):
    jsonschema.validate(context, SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


class ContextTestCase(APITestCase):
    user_permissions = ['dcim.view_device']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def context(self, name):
        device = Device.objects.get(name=name)
        response = self.client.get(reverse('dcim-api:device-detail', kwargs={'pk': device.pk}), **self.header)
        self.assertHttpStatus(response, 200)
        return response.data['config_context']['aifabric']

    def test_every_device_has_a_valid_context(self):
        devices = Device.objects.filter(name__startswith='ai-lab-fabric-')
        self.assertEqual(devices.count(), 9)
        for device in devices:
            with self.subTest(device=device.name):
                validate(device.get_config_context()['aifabric'])

    def test_leaf_context(self):
        leaf = self.context('ai-lab-fabric-leaf1')
        self.assertEqual(
            (leaf['hostname'], leaf['role'], leaf['node_id'], leaf['asn'], leaf['router_id'], leaf['vtep']),
            ('ai-lab-fabric-leaf1', 'leaf', 1, 65101, '10.255.0.5', '10.255.1.1/32'),
        )
        self.assertEqual(
            leaf['bgp']['neighbors'],
            [
                {
                    'address': '10.255.3.1',
                    'remote_asn': 65101,
                    'peer': 'ai-lab-fabric-leaf2',
                    'interface': 'Port-Channel1000',
                    'kind': 'mlag-peer',
                },
                {
                    'address': '10.255.2.0',
                    'remote_asn': 65100,
                    'peer': 'ai-lab-fabric-spine1',
                    'interface': 'Ethernet97',
                    'kind': 'uplink',
                },
                {
                    'address': '10.255.2.4',
                    'remote_asn': 65100,
                    'peer': 'ai-lab-fabric-spine2',
                    'interface': 'Ethernet99',
                    'kind': 'uplink',
                },
            ],
        )
        self.assertEqual(
            leaf['bgp']['evpn_peers'],
            [
                {'address': '10.255.0.1', 'remote_asn': 65100, 'peer': 'ai-lab-fabric-spine1'},
                {'address': '10.255.0.2', 'remote_asn': 65100, 'peer': 'ai-lab-fabric-spine2'},
            ],
        )
        self.assertEqual(leaf['bgp']['address_families'], ['ipv4-unicast', 'l2vpn-evpn'])
        self.assertEqual(
            leaf['vrfs'],
            [
                {
                    'name': 'AI-CLUSTER',
                    'tenant': 'AI Cluster',
                    'l3vni': 50001,
                    'rd': '10.255.0.5:50001',
                    'route_target': '50001:50001',
                    'anycast_gateway_mac': '02:00:00:00:00:aa',
                    'l3vni_vlan': 4000,
                }
            ],
        )
        self.assertEqual(
            [(v['vid'], v['l2vni']) for v in leaf['vlans']],
            [(10, 10010), (20, 10020), (30, 10030), (40, 10040), (50, 10050)],
        )
        self.assertEqual(
            leaf['mlag'],
            {
                'peer': 'ai-lab-fabric-leaf2',
                'role': 'primary',
                'peer_link': 'Port-Channel1000',
                'local_address': '10.255.3.0/31',
                'peer_address': '10.255.3.1',
                'anycast_gateway_mac': '02:00:00:00:00:aa',
                # leaf2's loopback (pool + max spines + 2) and management address (counted down from the top)
                'peer_loopback': f'10.255.0.{self.fabric.max_spines + 2}',
                'peer_management': f'172.16.0.{254 - self.fabric.max_spines - 1}',
                'system_mac': '44:38:39:ff:00:01',  # NVIDIA's reserved MLAG range + the primary leaf id
                'reload_delay': {'mlag': 300, 'non_mlag': 330},
            },
        )
        uplink = next(i for i in leaf['interfaces'] if i['name'] == 'Ethernet97')
        self.assertEqual(
            (uplink['address'], uplink['peer_device'], uplink['peer_interface'], uplink['mtu'], uplink['speed']),
            ('10.255.2.1/31', 'ai-lab-fabric-spine1', 'Ethernet1', 9216, 100),
        )
        self.assertTrue(uplink['pfc'])
        rdma = next(i for i in leaf['interfaces'] if i['name'] == 'Ethernet49')
        self.assertEqual((rdma['kind'], rdma['mode'], rdma['untagged_vlan'], rdma['pfc']), ('rdma', 'access', 40, True))
        bond = next(lag for lag in leaf['lags'] if lag['name'] == 'Port-Channel1')
        self.assertEqual(
            (bond['members'], bond['mode'], bond['tagged_vlans']), (['Ethernet1'], 'tagged', [20, 30])
        )  # the data classes only: MGMT (the BMCs) and TELEMETRY stay off the servers' bonds
        # QoS from the NVIDIA Cumulus lossless preset: RoCE DSCP 26 → priority 3 → TC 3, CNP 48 → 6, PFC on 3
        qos = leaf['qos']
        self.assertEqual((qos['dscp_to_priority']['26'], qos['priority_to_tc']['3']), (3, 3))
        self.assertEqual(qos['dscp_to_priority']['48'], 6)
        self.assertEqual(qos['pfc_priorities'], [3])
        # the demo's management plane: the jump hosts (a /28 inside MGMT) only; leaf1 = max_spines + 1 down from the
        # management network's last host, the gateway its first host
        self.assertEqual(
            leaf['management'],
            {
                'vrf': 'mgmt',
                'services': ['ssh', 'https', 'snmp'],
                'address': f'172.16.0.{254 - self.fabric.max_spines}/24',
                'gateway': '172.16.0.1',
                'jump_hosts': ['192.0.2.16/28'],
                'allowed_sources': ['192.0.2.16/28'],
            },
        )

    def test_spine_and_server_contexts(self):
        spine = self.context('ai-lab-fabric-spine2')
        self.assertEqual(
            (spine['asn'], spine['router_id'], spine['vlans'], spine['vrfs']), (65100, '10.255.0.2', [], [])
        )
        self.assertEqual([n['address'] for n in spine['bgp']['neighbors']], ['10.255.2.5', '10.255.2.21'])
        self.assertEqual([p['address'] for p in spine['bgp']['evpn_peers']], ['10.255.0.5', '10.255.0.6'])
        server = self.context('ai-lab-fabric-gpu1')
        self.assertEqual((server['role'], server['bgp'], server['lags'][0]['name']), ('gpu', None, 'bond0'))

    def test_user_keys_are_kept_and_reapply_writes_nothing(self):
        leaf = Device.objects.get(name='ai-lab-fabric-leaf1')
        leaf.local_context_data = {**leaf.local_context_data, 'ntp_servers': ['192.0.2.123']}
        leaf.save()
        changes = ObjectChange.objects.count()
        apply_fabric(self.fabric)
        self.assertEqual(ObjectChange.objects.count(), changes)
        leaf.refresh_from_db()
        self.assertEqual(leaf.local_context_data['ntp_servers'], ['192.0.2.123'])
        self.assertIn('aifabric', leaf.local_context_data)

    def test_contexts_follow_intent_changes_on_apply(self):
        """An edit of the intent writes no context (a pending change, tests/integration/test_lifecycle.py); the
        next apply brings every context up to date."""
        leaf2 = self.context('ai-lab-fabric-leaf2')
        profile = QoSProfile.objects.get(slug='nvidia-cumulus-lossless')
        with self.captureOnCommitCallbacks(execute=True):
            profile.ecn_min_threshold = 123456
            profile.save()
            self.fabric.traffic_classes.remove(TrafficClass.objects.get(slug='mgmt'))
            self.fabric.jump_host_prefix = None
            self.fabric.save()
        self.assertEqual(self.context('ai-lab-fabric-leaf2'), leaf2)
        apply_fabric(self.fabric)
        self.assertEqual(self.context('ai-lab-fabric-leaf2')['qos']['ecn']['min_threshold'], 123456)
        self.assertEqual([v['vid'] for v in self.context('ai-lab-fabric-leaf1')['vlans']], [20, 30, 40, 50])
        self.assertEqual(self.context('ai-lab-fabric-leaf1')['management']['allowed_sources'], [])

    def test_contexts_are_deterministic(self):
        plan = plan_of(self.fabric)
        self.assertEqual(build_contexts(plan, intent_of(self.fabric)), build_contexts(plan, intent_of(self.fabric)))
