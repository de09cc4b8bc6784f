"""Plan/apply over REST: the diff, the atomic and idempotent apply, growth, shrink, conflicts and permissions."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.models import Job, ObjectChange
from dcim.models import Cable, Device, Interface
from extras.models import Tag
from ipam.models import ASN, VLAN, IPAddress, Prefix, RouteTarget, VLANGroup
from utilities.testing import APITestCase
from vpn.models import L2VPN, L2VPNTermination

from netbox_aifabric.apply.diff import ApplyConflictError, diff_fabric
from netbox_aifabric.apply.jobs import ApplyFabricJob, job_progress
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric, OwnedObject

pytestmark = pytest.mark.netbox

APPLY_PERMISSIONS = [
    'netbox_aifabric.view_fabric',
    'netbox_aifabric.apply_fabric',
    'extras.add_tag',
    'dcim.add_manufacturer',
    'dcim.add_devicetype',
    'dcim.add_devicerole',
    'dcim.add_device',
    'dcim.change_device',
    'dcim.add_interface',
    'dcim.add_cable',
    'dcim.delete_device',
    'dcim.delete_interface',
    'dcim.delete_cable',
    'ipam.add_vlangroup',
    'ipam.add_vlan',
    'ipam.add_asn',
    'ipam.add_prefix',
    'ipam.add_ipaddress',
    'ipam.add_routetarget',
    'vpn.add_l2vpn',
    'vpn.add_l2vpntermination',
    'ipam.change_prefix',
    'ipam.delete_prefix',
    'ipam.delete_ipaddress',
]


def counts():
    return tuple(m.objects.count() for m in (Prefix, IPAddress, VLAN, ASN, L2VPN, L2VPNTermination, OwnedObject))


class ApplyTestCase(APITestCase):
    user_permissions = APPLY_PERMISSIONS

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def post(self, action, data=None):
        url = reverse(f'plugins-api:netbox_aifabric-api:fabric-{action}', kwargs={'pk': self.fabric.pk})
        return self.client.post(url, data or {}, format='json', **self.header)

    def test_plan_writes_nothing(self):
        before = counts()
        response = self.post('plan')
        self.assertHttpStatus(response, 200)
        summary = response.data['summary']
        self.assertEqual(summary['ipam.prefix']['create'], 5)  # 4 uplinks + 1 MLAG peer link
        # 4 loopbacks, 1 shared VTEP, 10 link ends, 4 switch management addresses, and 15 server addresses: 5
        # servers in USERS and STORAGE on their bond and in GPU on their RDMA NIC
        self.assertEqual(summary['ipam.ipaddress']['create'], 19 + 5 * 3)
        self.assertEqual(summary['vpn.l2vpn']['create'], 5)
        self.assertFalse(response.data['applied'])
        self.assertEqual(counts(), before)

    def test_apply_creates_the_guide_cluster_objects_once(self):
        before = counts()
        response = self.post('apply')
        self.assertHttpStatus(response, 200)
        self.assertTrue(response.data['applied'])
        created = tuple(after - b for after, b in zip(counts(), before, strict=True))
        # owned: those + tag, VLAN group, route target, manufacturer, 2 device types, 4 roles, 9 devices,
        # 78 interfaces (4 of them the switches' management ports, 10 the servers' bond0.20 and bond0.30) and 21 cables
        self.assertEqual(created, (5, 19 + 15, 5, 2, 5, 5, 149 + 10 + 15))

        self.assertEqual(
            sorted(str(p.prefix) for p in Prefix.objects.filter(prefix__net_contained='10.255.2.0/24')),
            ['10.255.2.0/31', '10.255.2.16/31', '10.255.2.20/31', '10.255.2.4/31'],
        )
        loopback = IPAddress.objects.get(address='10.255.0.5/32')
        self.assertEqual((loopback.role, loopback.description), ('loopback', 'ai-lab-fabric-leaf1 router id'))
        vtep = IPAddress.objects.get(address='10.255.1.1/32')
        self.assertEqual(vtep.role, 'anycast')
        group = VLANGroup.objects.get(slug='ai-lab-fabric-vlans')
        self.assertEqual(sorted(group.vlans.values_list('vid', flat=True)), [10, 20, 30, 40, 50])
        self.assertEqual(
            sorted(L2VPN.objects.filter(type='vxlan-evpn').values_list('identifier', flat=True)),
            [10010, 10020, 10030, 10040, 10050],
        )
        self.assertEqual(L2VPNTermination.objects.get(l2vpn__identifier=10040).assigned_object.vid, 40)
        self.assertEqual(sorted(ASN.objects.values_list('asn', flat=True)), [65100, 65101])
        self.assertTrue(RouteTarget.objects.filter(name='50001:50001').exists())
        tag = Tag.objects.get(slug='aifabric-ai-lab-fabric')
        self.assertEqual(Prefix.objects.filter(tags=tag).count(), 5)
        self.fabric.refresh_from_db()
        self.assertEqual(self.fabric.applied_pins()['uplink:leaf:2:spine:2:1'], '10.255.2.20/31')

        # devices, interfaces, LAGs and cables, addresses on interfaces
        devices = Device.objects.filter(site=self.fabric.site).order_by('name')
        self.assertEqual(
            [(d.name, d.role.slug, d.status) for d in devices][:3],
            [
                ('ai-lab-fabric-gpu1', 'ai-fabric-gpu', 'planned'),
                ('ai-lab-fabric-gpu2', 'ai-fabric-gpu', 'planned'),
                ('ai-lab-fabric-gpu3', 'ai-fabric-gpu', 'planned'),
            ],
        )
        self.assertEqual(devices.count(), 9)
        spine1 = Interface.objects.get(device__name='ai-lab-fabric-spine1', name='Ethernet1')
        self.assertEqual((spine1.type, spine1.mtu), ('100gbase-x-qsfp28', 9216))
        self.assertEqual([str(ip) for ip in spine1.ip_addresses.all()], ['10.255.2.0/31'])
        peer = spine1.link_peers[0]
        self.assertEqual((peer.device.name, peer.name), ('ai-lab-fabric-leaf1', 'Ethernet97'))
        self.assertEqual(spine1.cable.status, 'planned')
        bond = Interface.objects.get(device__name='ai-lab-fabric-leaf2', name='Port-Channel3')
        self.assertEqual([m.name for m in bond.member_interfaces.all()], ['Ethernet3'])
        self.assertEqual(
            Interface.objects.get(device__name='ai-lab-fabric-gpu3', name='nic2').link_peers[0],
            bond.member_interfaces.get(),
        )
        self.assertEqual(str(Device.objects.get(name='ai-lab-fabric-leaf1').primary_ip4), '10.255.0.5/32')
        loopback0 = Interface.objects.get(device__name='ai-lab-fabric-leaf1', name='Loopback0')
        self.assertEqual([str(ip) for ip in loopback0.ip_addresses.all()], ['10.255.0.5/32'])
        self.assertEqual(Cable.objects.count(), 21)

    def test_second_apply_writes_nothing(self):
        self.assertHttpStatus(self.post('apply'), 200)
        before, changes = counts(), ObjectChange.objects.count()
        response = self.post('apply')
        self.assertHttpStatus(response, 200)
        self.assertEqual(response.data['changes'], [])
        self.assertTrue(all(s['create'] == s['update'] == s['delete'] == 0 for s in response.data['summary'].values()))
        self.assertEqual((counts(), ObjectChange.objects.count()), (before, changes))

    def test_growth_leaves_existing_objects_untouched(self):
        self.assertHttpStatus(self.post('apply'), 200)
        existing = {
            p.pk: (str(p.prefix), p.last_updated) for p in Prefix.objects.filter(tags__slug='aifabric-ai-lab-fabric')
        }
        Fabric.objects.filter(pk=self.fabric.pk).update(leaf_count=4, spine_count=3)
        response = self.post('apply')
        self.assertHttpStatus(response, 200)
        self.assertEqual(response.data['summary']['ipam.prefix']['create'], 3 * 4 + 2 - 5)  # new uplinks + MLAG /31
        self.assertEqual(response.data['summary']['ipam.prefix']['keep'], 5)
        after = {p.pk: (str(p.prefix), p.last_updated) for p in Prefix.objects.filter(pk__in=existing)}
        self.assertEqual(after, existing)

    def test_shrink_deletes_owned_objects_only_when_confirmed(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(spine_count=2)
        self.assertHttpStatus(self.post('apply'), 200)
        Fabric.objects.filter(pk=self.fabric.pk).update(spine_count=1)
        response = self.post('plan')
        deletions = [c for c in response.data['changes'] if c['action'] == 'delete']
        self.assertEqual(len([c for c in deletions if c['model'] == 'ipam.prefix']), 2)  # spine2's two uplinks
        before = counts()
        self.assertHttpStatus(self.post('apply'), 200)
        self.assertEqual(counts(), before)  # not confirmed: kept
        response = self.post('apply', {'confirm_delete': True})
        self.assertHttpStatus(response, 200)
        self.assertEqual(Prefix.objects.filter(prefix__in=['10.255.2.4/31', '10.255.2.20/31']).count(), 0)
        self.assertEqual(IPAddress.objects.filter(address__net_host='10.255.0.2').count(), 0)  # spine2's loopback
        self.assertTrue(Prefix.objects.filter(prefix='10.255.2.0/31').exists())

    def test_conflict_writes_nothing(self):
        Prefix.objects.create(prefix='10.255.2.20/31', description='someone else')
        before = counts()
        response = self.post('apply')
        self.assertHttpStatus(response, 409)
        self.assertEqual(
            response.data['changes'],
            [
                {
                    'action': 'conflict',
                    'key': 'prefix:uplink:ai-lab-fabric-spine2:Ethernet3',
                    'model': 'ipam.prefix',
                    'object': '10.255.2.20/31',
                    'fields': {},
                    'reason': 'the /31 is already used elsewhere in NetBox',
                }
            ],
        )
        self.assertEqual(counts(), before)
        self.assertEqual(Prefix.objects.get(prefix='10.255.2.20/31').description, 'someone else')

    def test_invalid_intent_is_a_named_400(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(vtep_pool=None)
        response = self.post('plan')
        self.assertHttpStatus(response, 400)
        self.assertEqual(response.data, {'pools.vtep': ['the VTEP pool is required for this design']})


class ApplyPermissionsTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def post(self, action):
        url = reverse(f'plugins-api:netbox_aifabric-api:fabric-{action}', kwargs={'pk': self.fabric.pk})
        return self.client.post(url, {}, format='json', **self.header)

    def test_no_view_permission(self):
        for action in ('plan', 'apply'):
            self.assertHttpStatus(self.post(action), 403)

    def test_view_permission_plans_but_does_not_apply(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        self.assertHttpStatus(self.post('plan'), 200)
        before = counts()
        self.assertHttpStatus(self.post('apply'), 403)
        self.assertEqual(counts(), before)

    def test_apply_needs_the_permissions_of_the_objects_it_writes(self):
        self.add_permissions(*[p for p in APPLY_PERMISSIONS if p != 'ipam.add_prefix'])
        before = counts()
        response = self.post('apply')
        self.assertHttpStatus(response, 403)
        self.assertEqual(str(response.data['detail']), 'Applying this fabric needs these permissions: ipam.add_prefix.')
        self.assertEqual(counts(), before)


class BackgroundApplyTestCase(APITestCase):
    user_permissions = APPLY_PERMISSIONS

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def post(self, data):
        url = reverse('plugins-api:netbox_aifabric-api:fabric-apply', kwargs={'pk': self.fabric.pk})
        return self.client.post(url, data, format='json', **self.header)

    def run_job(self, response):
        self.assertHttpStatus(response, 202)
        job = Job.objects.get(pk=response.data['job']['id'])
        self.assertEqual((job.name, job.object, job.status), ('Apply AI fabric', self.fabric, 'pending'))
        self.assertEqual(Prefix.objects.filter(prefix='10.255.2.0/31').count(), 0)  # nothing applied yet
        ApplyFabricJob.handle(job)  # what the RQ worker does
        job.refresh_from_db()
        return job

    def test_apply_asked_for_in_the_background(self):
        changes = ObjectChange.objects.count()
        job = self.run_job(self.post({'background': True}))
        self.assertEqual(job.status, 'completed')
        # the change log is written as in a request, by the job's user
        logged = ObjectChange.objects.filter(changed_object_type__model='prefix', action='create')
        self.assertEqual(logged.count(), 5)
        self.assertEqual({c.user for c in logged}, {self.user})
        self.assertGreater(ObjectChange.objects.count() - changes, 174)
        self.assertEqual(job.data['summary']['ipam.prefix']['create'], 5)
        self.assertTrue(Prefix.objects.filter(prefix='10.255.2.0/31').exists())
        # progress, kept outside the transaction for the job page
        # written: 174 objects created and 17 set on the devices once created (see the Plan tab test)
        self.assertEqual(job_progress(job.pk), {'done': 191, 'total': 191, 'model': '', 'percent': 100})
        self.add_permissions('core.view_job')
        self.client.force_login(self.user)
        response = self.client.get(job.get_absolute_url())
        self.assertContains(response, 'Apply progress')
        self.assertContains(response, '191 of 191 objects written')

    def test_progress_reports(self):
        reports = []
        apply_fabric(self.fabric, progress=lambda done, total, model: reports.append((done, total, model)))
        self.assertEqual(reports[0], (0, 191, ''))
        self.assertEqual(reports[-1], (191, 191, ''))
        self.assertEqual([r[0] for r in reports[1:-1]], [50, 100, 150])
        self.assertEqual(reports[1][2], 'dcim.interface')

    def test_large_plans_go_to_the_background(self):
        with self.settings(PLUGINS_CONFIG={'netbox_aifabric': {'background_apply_threshold': 20}}):
            job = self.run_job(self.post({}))  # the demo plan has 21 links
        self.assertEqual(job.status, 'completed')

    def test_a_failing_background_apply_writes_nothing(self):
        Prefix.objects.create(prefix='10.255.2.20/31', description='someone else')
        job = self.run_job(self.post({'background': True}))
        self.assertEqual(job.status, 'failed')
        self.assertEqual(OwnedObject.objects.count(), 0)


class NoOpReapplyQueriesTestCase(APITestCase):
    """A no-op re-apply reads owned objects per type, not per object: its query count does not grow with the fabric."""

    user_permissions = APPLY_PERMISSIONS

    def reapply_queries(self, leaves, servers):
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        Fabric.objects.filter(pk=fabric.pk).update(leaf_count=leaves, server_count=servers)
        fabric.refresh_from_db()
        apply_fabric(fabric)
        with CaptureQueriesContext(connection) as queries:
            _, changes = apply_fabric(fabric)
        self.assertEqual({c.action for c in changes}, {'keep'})
        return len(queries)

    def test_query_count_does_not_grow(self):
        load_demo()
        small = self.reapply_queries(leaves=2, servers=4)
        large = self.reapply_queries(leaves=6, servers=40)
        self.assertEqual(small, large)


class ReplacementTestCase(APITestCase):
    """An owned object the plan no longer wants, in the place of one it wants (a cable whose far end changed):
    a conflict until deletions are confirmed, then replaced in the same transaction."""

    def test_replaced_only_when_deletions_are_confirmed(self):
        load_demo()
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(fabric)
        record = OwnedObject.objects.get(key__startswith='cable:ai-lab-fabric-spine1:Ethernet1:')
        old_cable = record.object_id
        record.key = 'cable:ai-lab-fabric-spine1:Ethernet1:somewhere-else:Ethernet9'  # as if its far end had changed
        record.save()

        _, changes = diff_fabric(fabric)
        conflict = [c for c in changes if c.action == 'conflict']
        self.assertEqual(len(conflict), 1)
        self.assertEqual(
            conflict[0].reason,
            'held by cable:ai-lab-fabric-spine1:Ethernet1:somewhere-else:Ethernet9, which the plan no longer has: '
            'confirm deletions to replace it',
        )
        with self.assertRaises(ApplyConflictError):
            apply_fabric(fabric)
        self.assertTrue(Cable.objects.filter(pk=old_cable).exists())

        _, changes = apply_fabric(fabric, confirm_delete=True)
        self.assertFalse(Cable.objects.filter(pk=old_cable).exists())
        new = OwnedObject.objects.get(key__startswith='cable:ai-lab-fabric-spine1:Ethernet1:')
        self.assertEqual(new.key, 'cable:ai-lab-fabric-spine1:Ethernet1:ai-lab-fabric-leaf1:Ethernet97')
        self.assertEqual(Cable.objects.count(), 21)
