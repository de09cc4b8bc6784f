"""An applied, numbered fabric turned unnumbered over REST, as a pynetbox script would: PATCH the underlay (and clear
the point-to-point pool), POST plan, POST apply. The plan consumes no p2p pool, the apply removes every uplink /31 and
its two addresses the numbered apply made (the MLAG peer's stay), and every switch's context says unnumbered."""

import json

import netaddr
import pytest
from django.urls import reverse

from ipam.models import IPAddress, Prefix
from utilities.testing import APITestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.intake.inputs import FabricInputs
from netbox_aifabric.models import Fabric
from netbox_aifabric.render.configs import fabric_devices
from tests.integration.test_api_input import PERMISSIONS, snapshot

pytestmark = pytest.mark.netbox


class UnnumberedOverRestTestCase(APITestCase):
    user_permissions = (*PERMISSIONS, 'netbox_aifabric.change_fabric')

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def post(self, action, body):
        url = reverse(f'plugins-api:netbox_aifabric-api:fabric-{action}', kwargs={'pk': self.fabric.pk})
        return self.client.post(url, data=json.dumps(body), content_type='application/json', **self.header)

    def uplink_addresses(self, plan):
        """The addresses NetBox holds on the switch ends of the plan's uplinks."""
        uplinks = [lk for lk in plan.links if lk.kind == 'uplink']
        ends = {(lk.a_node, lk.a_interface) for lk in uplinks} | {(lk.b_node, lk.b_interface) for lk in uplinks}
        return sorted(
            (ip.assigned_object.device.name, ip.assigned_object.name, str(ip.address))
            for ip in IPAddress.objects.filter(interface__device__name__in={n for n, _ in ends})
            if (ip.assigned_object.device.name, ip.assigned_object.name) in ends
        )

    def test_patch_plan_apply_turns_the_uplinks_unnumbered(self):
        plan = FabricInputs(self.fabric).plan
        numbered = self.uplink_addresses(plan)
        self.assertEqual(len(numbered), 2 * len([lk for lk in plan.links if lk.kind == 'uplink']))
        uplink_31s = {str(netaddr.IPNetwork(a).cidr) for _d, _i, a in numbered}
        mlag_pool = self.fabric.mlag_peer_pool.prefix
        mlag_31s = set(Prefix.objects.filter(prefix__net_contained=mlag_pool).values_list('prefix', flat=True))
        self.assertTrue(mlag_31s)
        url = reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.fabric.pk})
        body = {'underlay': 'ebgp-unnumbered', 'p2p_pool': None}
        response = self.client.patch(url, body, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(response.data['underlay']['value'], 'ebgp-unnumbered')

        response = self.post('plan', {})
        self.assertHttpStatus(response, 200)
        self.assertNotIn('p2p', {p['name'] for p in response.data['pools']})

        response = self.post('apply', {'confirm_delete': True})
        self.assertHttpStatus(response, 200)
        self.assertEqual(self.uplink_addresses(plan), [])
        self.assertFalse(Prefix.objects.filter(prefix__in=sorted(uplink_31s)).exists())
        self.assertEqual(
            set(Prefix.objects.filter(prefix__net_contained=mlag_pool).values_list('prefix', flat=True)), mlag_31s
        )
        for device in fabric_devices(self.fabric):
            ctx = (device.local_context_data or {}).get('aifabric') or {}
            if ctx.get('node_id') is None:
                continue
            self.assertIs(ctx['bgp']['unnumbered'], True, device.name)
            ports = sorted(p['name'] for p in ctx['interfaces'] if p['kind'] == 'uplink')
            sessions = sorted(n['interface'] for n in ctx['bgp']['neighbors'] if n['kind'] == 'uplink')
            far_tier = self.fabric.leaf_count if ctx['role'] == 'spine' else self.fabric.spine_count
            self.assertEqual((sessions, len(ports)), (ports, far_tier), device.name)

    def test_the_allocations_tab_lists_the_unnumbered_uplinks(self):
        self.client.patch(
            reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.fabric.pk}),
            {'underlay': 'ebgp-unnumbered', 'p2p_pool': None},
            format='json',
            **self.header,
        )
        plan = FabricInputs(Fabric.objects.get(pk=self.fabric.pk)).plan
        uplinks = [lk for lk in plan.links if lk.kind == 'uplink']
        self.user.is_superuser = True
        self.user.save()
        self.client.force_login(self.user)
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_allocations', kwargs={'pk': self.fabric.pk}))
        self.assertEqual(response.status_code, 200)
        rows = response.content.decode().split('id="allocations-links"', 1)[1].split('</table>', 1)[0]
        for link in uplinks:
            self.assertIn(f'{link.a_node} {link.a_interface}', rows)
        self.assertEqual(rows.count('unnumbered (RFC 5549)'), len(uplinks))
        self.assertEqual(rows.count('IPv6 link-local'), 2 * len(uplinks))


class RefusedWriteTestCase(APITestCase):
    """An applied EVPN/VXLAN fabric switched to the routed design: the plan moves server addresses onto addresses
    other servers' interfaces still hold, which NetBox refuses (its global uniqueness); the apply answers 400 naming
    the object and NetBox's reason, and nothing is written (it was a traceback)."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def test_a_refused_write_is_a_named_error_and_writes_nothing(self):
        self.user.is_superuser = True
        self.user.save()
        Fabric.objects.filter(pk=self.fabric.pk).update(design_option='routed')
        before = snapshot()
        url = reverse('plugins-api:netbox_aifabric-api:fabric-apply', kwargs={'pk': self.fabric.pk})
        response = self.client.post(url, data=json.dumps({'confirm_delete': True}), content_type='application/json',
                                    **self.header)  # fmt: skip
        self.assertHttpStatus(response, 400)
        ((key, (message,)),) = response.data.items()
        self.assertTrue(key.startswith('ip:'), key)
        self.assertIn('NetBox refused IP address', message)
        self.assertIn('Nothing was written', message)
        self.assertEqual(snapshot(), before)
