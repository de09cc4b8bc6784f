"""Both ends of RoCE from one intent, in NetBox: the applied demo's servers carry their planned addresses as NetBox IP
addresses on their interfaces, render a host config (their platform's ConfigTemplate) whose RoCE numbers are their
leaf port's, and the compliance rule ``roce-host-nic`` proves it; a server context rendered from another marking
fails it, naming both ends; the fabric's RDMA NIC family picks the vendor's tools."""

import re

import pytest
import yaml
from django.urls import reverse

from dcim.models import Device, Interface
from ipam.models import IPAddress
from utilities.testing import APITestCase

from netbox_aifabric.apply.seed import load_config_templates, load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.facts.nos import HOST
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric

pytestmark = pytest.mark.netbox

NETPLAN = re.compile(r"<<'AIFABRIC_NETPLAN'\n(.*?)\nAIFABRIC_NETPLAN\n", re.S)


def rule_result(fabric, rule_id):
    return next(r for r in run_compliance(fabric).results if r.rule.id == rule_id)


class HostConfigTestCase(APITestCase):
    user_permissions = ['dcim.view_device', 'dcim.render_config_device', 'extras.view_configtemplate']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        load_config_templates()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)
        cls.plan = plan_of(cls.fabric)

    def render(self, name):
        device = Device.objects.get(name=name)
        url = reverse('dcim-api:device-render-config', kwargs={'pk': device.pk})
        response = self.client.post(url, {}, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        return response.data['content']

    def leaf_context(self, name):
        return Device.objects.get(name=name).get_config_context()['aifabric']

    def test_every_server_carries_its_planned_addresses_in_netbox(self):
        for attachment in self.plan.attachments:
            device = Device.objects.get(name=attachment.server)
            self.assertEqual(device.platform.slug, HOST.platform_slug)
            for host in attachment.addresses:
                with self.subTest(server=attachment.server, interface=host.interface):
                    interface = Interface.objects.get(device=device, name=host.interface)
                    address = IPAddress.objects.get(address=host.address, assigned_object_id=interface.pk)
                    self.assertEqual(address.assigned_object, interface)
                    if host.interface.startswith('bond0.'):
                        self.assertEqual((interface.parent.name, interface.untagged_vlan.vid), ('bond0', host.vid))

    def test_every_server_renders_the_roce_numbers_of_its_leaf_port(self):
        """The rendered script's netplan holds exactly the plan's addresses; each RDMA NIC's trust, PFC, DSCP map, CNP
        marking and ToS are read off its leaf's stored context (not off the server's)."""
        for attachment in self.plan.attachments:
            script = self.render(attachment.server)
            netplan = yaml.safe_load(NETPLAN.search(script).group(1))['network']
            rendered = {
                name: spec['addresses']
                for kind in ('vlans', 'ethernets', 'bonds')
                for name, spec in (netplan.get(kind) or {}).items()
                if spec.get('addresses')
            }
            self.assertEqual(rendered, {h.interface: [h.address] for h in attachment.addresses}, attachment.server)
            for n, (leaf, port) in enumerate(attachment.rdma, 1):
                with self.subTest(server=attachment.server, nic=n):
                    self.check_nic(script, f'rdma{n}', self.leaf_context(leaf), port)

    def check_nic(self, script, nic, leaf, port_name):
        qos = leaf['qos']
        port = next(p for p in leaf['interfaces'] if p['name'] == port_name)
        dscp = int(next(d for d, p in qos['dscp_to_priority'].items() if p in qos['pfc_priorities']))
        priority = qos['dscp_to_priority'][str(dscp)]
        flags = ','.join('1' if p in qos['pfc_priorities'] and port['pfc'] else '0' for p in range(8))
        ecn = 2 if qos['ecn']['enabled'] else 0
        for line in (
            f'mlnx_qos -i {nic} --trust {port["trust"]}',
            f'mlnx_qos -i {nic} --pfc {flags}',
            f'mlnx_qos -i {nic} --dscp2prio set,{dscp},{priority}',
            f'echo {qos["cnp"]["dscp"]} > /sys/class/net/{nic}/ecn/roce_np/cnp_dscp',
            f'cma_roce_tos -d "$dev" -t {dscp << 2 | ecn}',
        ):
            self.assertIn(line, script)

    def test_the_rule_proves_both_ends_agree_and_names_both_on_a_mismatch(self):
        self.assertEqual(rule_result(self.fabric, 'roce-host-nic').status, 'pass')
        attachment = next(a for a in self.plan.attachments if a.rdma)
        leaf, port = attachment.rdma[0]
        device = Device.objects.get(name=attachment.server)
        data = device.local_context_data
        cnp = data['aifabric']['host']['roce']['cnp_dscp']
        # the server's host config rendered from a profile with another CNP DSCP (NVIDIA's operator changed its default)
        data['aifabric']['host']['roce']['cnp_dscp'] = cnp + 2
        Device.objects.filter(pk=device.pk).update(local_context_data=data)
        result = rule_result(self.fabric, 'roce-host-nic')
        self.assertEqual(result.status, 'fail')
        self.assertEqual(
            [(tuple(str(o) for o in f.objects), f.found) for f in result.findings],
            [
                (
                    (f'{attachment.server} rdma1', f'{leaf} {port}'),
                    f'{attachment.server} rdma1: {cnp + 2}; {leaf} {port}: {cnp}',
                )
            ],
        )

    def test_the_fabric_s_nic_family_picks_the_vendor_s_tools(self):
        self.add_permissions('netbox_aifabric.change_fabric', 'netbox_aifabric.view_fabric')
        url = reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.fabric.pk})
        response = self.client.patch(url, {'rdma_nic_family': 'broadcom-bnxt'}, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(response.data['rdma_nic_family']['value'], 'broadcom-bnxt')
        response = self.client.patch(url, {'rdma_nic_family': 'intel-e810'}, format='json', **self.header)
        self.assertHttpStatus(response, 400)
        self.assertIn('rdma_nic_family', response.data)
        fabric = Fabric.objects.get(pk=self.fabric.pk)
        apply_fabric(fabric)
        server = next(a for a in self.plan.attachments if a.rdma).server
        script = self.render(server)
        self.assertIn('bnxtqos -dev=rdma1 set_pfc enabled=', script)
        self.assertNotIn('mlnx_qos', script)
        self.assertEqual(rule_result(fabric, 'roce-host-nic').status, 'pass')
