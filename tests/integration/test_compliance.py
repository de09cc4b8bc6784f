"""Compliance in NetBox: drift against the applied demo fabric (edited by hand, deleted by hand, a clean apply), the
Compliance tab, the REST action, the job and the report script, with NetBox's permissions."""

import netaddr
import pytest
from django.urls import reverse

from core.models import Job, ObjectType
from dcim.models import Device, Interface, Platform
from extras.models import ConfigTemplate
from ipam.models import ASN, ASNRange, IPAddress, Prefix
from users.models import ObjectPermission
from utilities.testing import APITestCase, TestCase

from netbox_aifabric.acceptance.store import store_lab_run
from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.request import as_request_of
from netbox_aifabric.apply.seed import load_config_templates, load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.job import ComplianceJob
from netbox_aifabric.checks.report_module import FabricCompliance
from netbox_aifabric.checks.rules import RULES
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.facts.telemetry import NOTHING_OBSERVABLE
from netbox_aifabric.intake.traffic import fabric_traffic
from netbox_aifabric.models import Fabric, OwnedObject, TrafficClass, TrafficFlow
from tests.integration.base import DEMO_SKIPS, FABRIC_SHAPE, GUIDE_COLLECTORS

pytestmark = pytest.mark.netbox

LEAF1 = 'ai-lab-fabric-leaf1'


def by_hand(user):
    """What a NetBox UI request does around an edit: the change log records it, by ``user`` (the same request
    processors a stored compliance run uses, ``netbox_aifabric.apply.request.as_request_of``)."""
    return as_request_of(user)


def applied_demo():
    """The demo fabric as ``netbox aifabric_load_demo`` makes it (the shipped templates, SONiC as its switch
    platform), with the guide's telemetry collectors, applied."""
    load_demo()
    load_config_templates()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    # with the guide's collectors: a fabric without any fails telemetry-observable
    Fabric.objects.filter(pk=fabric.pk).update(platform=Platform.objects.get(slug='sonic'), **GUIDE_COLLECTORS)
    fabric.refresh_from_db()
    apply_fabric(fabric)
    prove(fabric)
    return fabric


def prove(fabric):
    """A passed lab run after the apply (rule automation-acceptance, tested in test_acceptance_compliance.py)."""
    check = {'name': 'bgp leaf1 -> spine1 10.255.2.0 (uplink)', 'kind': 'bgp', 'status': 'passed'}
    store_lab_run(fabric, None, {'checks': [{**check, 'expected': 'Established', 'seen': 'Established'}]})


def failed(result):
    """The rules that did not pass; the skips of ``DEMO_SKIPS`` are expected here (the demo collects no running
    config and uploads no LLDP table)."""
    return {
        r.rule.id: r.findings
        for r in result.results
        if r.status != 'pass' and not (r.rule.id in DEMO_SKIPS and r.status == 'skip')
    }


class DriftTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def test_a_clean_apply_has_no_findings(self):
        result = run_compliance(self.fabric)
        self.assertEqual(failed(result), {})
        self.assertEqual(result.context_source, 'devices')

    def uplink(self):
        context = Interface.objects.get(device__name=LEAF1, name='Loopback0').device.local_context_data['aifabric']
        port = next(p for p in context['interfaces'] if p['kind'] == 'uplink')
        return Interface.objects.get(device__name=LEAF1, name=port['name'])

    def test_an_mtu_edited_by_hand_is_drift_naming_the_interface_and_its_change(self):
        port = self.uplink()
        with by_hand(self.user):
            port.snapshot()
            port.mtu = 1500
            port.save()
        result = run_compliance(self.fabric)
        found = failed(result)
        self.assertEqual(list(found), ['drift-edited'])
        (finding,) = found['drift-edited']
        (obj,) = finding.objects
        self.assertEqual((obj.model, obj.device, obj.name, obj.pk), ('dcim.interface', LEAF1, port.name, port.pk))
        self.assertEqual((finding.expected, finding.found), ('mtu=9216', 'mtu=1500'))
        self.assertEqual(obj.url, port.get_absolute_url())
        self.assertEqual((obj.change['action'], obj.change['user']), ('update', self.user.username))
        # a re-apply fixes it
        apply_fabric(self.fabric)
        self.assertEqual(failed(run_compliance(self.fabric)), {})

    def test_a_cable_deleted_by_hand_is_missing_with_its_deletion(self):
        port = self.uplink()
        cable = port.cable
        cable_pk = cable.pk
        with by_hand(self.user):
            cable.snapshot()
            cable.delete()
        found = failed(run_compliance(self.fabric))
        self.assertEqual(list(found), ['drift-missing'])
        (finding,) = found['drift-missing']
        (obj,) = finding.objects
        self.assertEqual(
            (obj.model, obj.pk, obj.url, finding.found), ('dcim.cable', cable_pk, None, 'deleted from NetBox')
        )
        self.assertEqual(obj.change['action'], 'delete')
        apply_fabric(self.fabric)
        self.assertEqual(failed(run_compliance(self.fabric)), {})

    def test_a_vlan_removed_from_a_bond_and_an_address_changed(self):
        bond = Interface.objects.filter(device__name=LEAF1, type='lag', tagged_vlans__isnull=False).first()
        vlan = bond.tagged_vlans.first()
        address = IPAddress.objects.get(assigned_object_id=self.uplink().pk)
        with by_hand(self.user):
            bond.tagged_vlans.remove(vlan)
            address.snapshot()
            address.address = '10.99.99.1/31'
            address.save()
        found = failed(run_compliance(self.fabric))
        self.assertEqual(list(found), ['drift-edited'])
        edited = {f.objects[0].name: (f.expected, f.found) for f in found['drift-edited']}
        self.assertIn(bond.name, edited)
        self.assertIn('tagged_vlans=', edited[bond.name][0])
        self.assertNotIn(str(vlan), edited[bond.name][1])
        self.assertEqual(edited['10.99.99.1/31'][1], 'address=10.99.99.1/31')


class PoolDriftTestCase(TestCase):
    """ASNs edited or deleted by hand, and objects the fabric does not own inside its pools: each broken
    on purpose is exactly its finding, linked to the object and its change-log entry; what belongs outside the pools
    (or is a server's address in a server pool) is no finding."""

    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def owned(self, model, prefix):
        ids = OwnedObject.objects.filter(fabric=self.fabric, key__startswith=prefix).values('object_id')
        return model.objects.filter(pk__in=ids)

    def assert_only(self, rule_id, result):
        found = failed(result)
        self.assertEqual(list(found), [rule_id])
        return found[rule_id]

    def test_an_owned_asn_renumbered_by_hand(self):
        asn = self.owned(ASN, 'asn:').order_by('asn').first()
        number, free = asn.asn, self.free_asn()
        with by_hand(self.user):
            asn.snapshot()
            asn.asn = free
            asn.save()
        (finding,) = self.assert_only('drift-edited', run_compliance(self.fabric))
        (obj,) = finding.objects
        self.assertEqual((obj.model, obj.pk, obj.url), ('ipam.asn', asn.pk, asn.get_absolute_url()))
        self.assertEqual((finding.expected, finding.found), (f'asn={number}', f'asn={free}'))
        self.assertEqual((obj.change['action'], obj.change['user']), ('update', self.user.username))
        # the Plan tab's diff shows it too, and a re-apply numbers the same object back
        changes = [c for c in diff_fabric(self.fabric)[1] if c.action not in ('keep', 'use')]
        self.assertEqual(
            [(c.action, c.key, c.pk, c.fields) for c in changes], [('update', f'asn:{number}', asn.pk, {'asn': number})]
        )
        apply_fabric(self.fabric)
        asn.refresh_from_db()
        self.assertEqual(asn.asn, number)
        self.assertEqual(failed(run_compliance(self.fabric)), {})

    def test_an_owned_p2p_prefix_renumbered_by_hand(self):
        prefix = self.owned(Prefix, 'prefix:uplink:').order_by('prefix').first()
        subnet = str(prefix.prefix)
        with by_hand(self.user):
            prefix.snapshot()
            prefix.prefix = '10.99.99.0/31'
            prefix.save()
        (finding,) = self.assert_only('drift-edited', run_compliance(self.fabric))
        self.assertEqual(
            (finding.objects[0].pk, finding.expected, finding.found),
            (prefix.pk, f'prefix={subnet}', 'prefix=10.99.99.0/31'),
        )
        apply_fabric(self.fabric)
        prefix.refresh_from_db()
        self.assertEqual(str(prefix.prefix), subnet)
        self.assertEqual(failed(run_compliance(self.fabric)), {})

    def test_an_owned_asn_deleted_by_hand(self):
        asn = self.owned(ASN, 'asn:').order_by('asn').first()
        pk = asn.pk
        with by_hand(self.user):
            asn.snapshot()
            asn.delete()
        (finding,) = self.assert_only('drift-missing', run_compliance(self.fabric))
        (obj,) = finding.objects
        self.assertEqual((obj.model, obj.pk, obj.url, finding.found), ('ipam.asn', pk, None, 'deleted from NetBox'))
        self.assertEqual(obj.change['action'], 'delete')
        apply_fabric(self.fabric)
        self.assertEqual(failed(run_compliance(self.fabric)), {})

    def free_asn(self):
        """A number of the leaf ASN range no object holds (the plan numbers the leaves from the start)."""
        taken = set(ASN.objects.values_list('asn', flat=True))
        asn_range = self.fabric.leaf_asn_range
        return next(n for n in range(asn_range.end, asn_range.start, -1) if n not in taken)

    def free_host(self, pool):
        """The highest address of ``pool`` no IP address holds (the plan numbers from the bottom)."""
        taken = {a.address.ip for a in IPAddress.objects.filter(address__net_host_contained=str(pool.prefix))}
        network = netaddr.IPNetwork(str(pool.prefix))
        return next(ip for ip in reversed(list(network.iter_hosts())) if ip not in taken)

    def create_by_hand(self, model, **fields):
        with by_hand(self.user):
            obj = model(**fields)
            obj.full_clean()
            obj.save()
        return obj

    def assert_foreign(self, obj, label, where):
        (finding,) = self.assert_only('drift-foreign', run_compliance(self.fabric))
        (linked,) = finding.objects
        self.assertEqual((linked.model, linked.pk, linked.url), (label, obj.pk, obj.get_absolute_url()))
        self.assertEqual(finding.expected, f'no {label} the fabric does not own inside the {where}')
        self.assertEqual((linked.change['action'], linked.change['user']), ('create', self.user.username))

    def test_an_address_by_hand_in_the_loopback_pool(self):
        pool = self.fabric.loopback_pool
        address = self.create_by_hand(IPAddress, address=f'{self.free_host(pool)}/32', vrf=pool.vrf)
        self.assert_foreign(address, 'ipam.ipaddress', f'loopback pool {pool.prefix}')

    def test_a_prefix_by_hand_in_the_p2p_pool(self):
        pool = self.fabric.p2p_pool
        prefix = self.create_by_hand(Prefix, prefix=f'{self.free_host(pool)}/32', vrf=pool.vrf)
        self.assert_foreign(prefix, 'ipam.prefix', f'point-to-point pool {pool.prefix}')

    def test_an_asn_by_hand_in_the_leaf_range(self):
        asn_range = self.fabric.leaf_asn_range
        asn = self.create_by_hand(ASN, asn=self.free_asn(), rir=asn_range.rir)
        self.assert_foreign(asn, 'ipam.asn', f'leaf ASN range {asn_range.name} ({asn_range.start}–{asn_range.end})')
        # a range named by its numbers says them once (it once read "65201–65299 (65201-65299)")
        ASNRange.objects.filter(pk=asn_range.pk).update(name=f'{asn_range.start}–{asn_range.end}')
        self.fabric.refresh_from_db()
        self.assert_foreign(asn, 'ipam.asn', f'leaf ASN range {asn_range.start}–{asn_range.end}')

    def test_a_prefix_by_hand_in_a_server_pool(self):
        tc = self.fabric.traffic_classes.exclude(prefix=None).order_by('name').first()
        last = netaddr.IPNetwork(str(tc.prefix.prefix)).subnet(30)
        *_, subnet = last
        prefix = self.create_by_hand(Prefix, prefix=str(subnet), vrf=tc.prefix.vrf)
        self.assert_foreign(prefix, 'ipam.prefix', f'server pool of {tc.name} {tc.prefix.prefix}')

    def test_passing_fixture_a_server_address_and_objects_outside_the_pools(self):
        tc = self.fabric.traffic_classes.exclude(prefix=None).order_by('name').first()
        self.create_by_hand(IPAddress, address=f'{self.free_host(tc.prefix)}/32', vrf=tc.prefix.vrf)
        self.create_by_hand(Prefix, prefix='100.64.0.0/28')
        self.create_by_hand(IPAddress, address='100.64.0.1/32')
        asn_range = self.fabric.leaf_asn_range
        self.create_by_hand(ASN, asn=asn_range.end + 1000, rir=asn_range.rir)
        found = failed(run_compliance(self.fabric))
        self.assertEqual({k: [(f.objects, f.expected) for f in v] for k, v in found.items()}, {})

    def test_a_forbidden_flow_is_a_traffic_finding_linked_to_the_flow(self):
        users = TrafficClass.objects.get(name='USERS')
        mgmt = TrafficClass.objects.get(name='MGMT')
        flow = self.create_by_hand(
            TrafficFlow,
            fabric=self.fabric,
            source_group='gpu',
            destination_group='gpu',
            source_class=users,
            destination_class=mgmt,
            gbps=1,
        )
        (finding,) = self.assert_only('traffic-forbidden-flow', run_compliance(self.fabric))
        (linked,) = finding.objects
        self.assertEqual(
            (linked.model, linked.pk, linked.url), ('netbox_aifabric.trafficflow', flow.pk, flow.get_absolute_url())
        )
        self.assertTrue(finding.found.startswith('USERS may not reach MGMT'))


class AutomationTestCase(TestCase):
    """Each Automation rule broken in NetBox on purpose: exactly its findings (no drift), and a re-apply or the fix
    turns the run green."""

    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def switches(self):
        return sorted(d.name for d in Device.objects.filter(platform__slug='sonic', name__startswith='ai-lab-fabric-'))

    def test_a_context_edited_by_hand_is_stale_not_drift(self):
        device = Device.objects.get(name=LEAF1)
        with by_hand(self.user):
            device.snapshot()
            device.local_context_data['aifabric']['mtu']['fabric'] = 1500
            device.save()
        found = failed(run_compliance(self.fabric))
        self.assertEqual(list(found), ['automation-stale'])
        (finding,) = found['automation-stale']
        self.assertEqual(([o.name for o in finding.objects], finding.found), ([LEAF1], 'differs in mtu'))
        apply_fabric(self.fabric)
        self.assertEqual(failed(run_compliance(self.fabric)), {})

    def test_a_device_without_context(self):
        server = Device.objects.filter(name__startswith='ai-lab-fabric-gpu').order_by('name').first()
        Device.objects.filter(pk=server.pk).update(local_context_data=None)
        found = failed(run_compliance(self.fabric))
        self.assertEqual(list(found), ['automation-context'])
        self.assertEqual([(f.objects[0].name, f.found) for f in found['automation-context']], [(server.name, 'none')])

    def test_a_broken_template_fails_every_switch_render(self):
        template = ConfigTemplate.objects.get(platforms__slug='sonic')
        ConfigTemplate.objects.filter(pk=template.pk).update(template_code='{{ aifabric.nope.x }}')
        found = failed(run_compliance(self.fabric))
        self.assertEqual(list(found), ['automation-render'])
        self.assertEqual([f.objects[0].name for f in found['automation-render']], self.switches())
        self.assertIn('nope', found['automation-render'][0].found)

    def test_switches_without_template(self):
        Platform.objects.filter(slug='sonic').update(config_template=None)
        found = failed(run_compliance(self.fabric))
        self.assertEqual(list(found), ['automation-template'])
        self.assertEqual([f.objects[0].name for f in found['automation-template']], self.switches())
        self.assertEqual(len(self.switches()), self.fabric.spine_count + self.fabric.leaf_count)


class NotAppliedTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_a_fabric_never_applied_is_checked_on_its_plan(self):
        result = run_compliance(self.fabric)
        self.assertEqual(result.context_source, 'plan')
        statuses = {r.rule.id: r.status for r in result.results}
        self.assertEqual(
            {k for k, v in statuses.items() if v != 'pass'},
            {r for r in statuses if r.startswith(('drift', 'automation', 'config'))}
            | {'telemetry-observable'}
            | {'fabric-lldp'},  # no LLDP upload
        )
        skipped = {
            statuses[r] for r in statuses if r.startswith(('drift', 'automation', 'config')) or r == 'fabric-lldp'
        }
        self.assertEqual(skipped, {'skip'})
        # the demo names no collector: the warning, by name
        (observable,) = [r for r in result.results if r.rule.id == 'telemetry-observable']
        self.assertEqual((observable.status, [f.found for f in observable.findings]), ('fail', [NOTHING_OBSERVABLE]))


def constrain(user, slug):
    """View permission on fabrics, limited to the one with ``slug``."""
    permission = ObjectPermission.objects.create(name=f'fabrics {slug}', actions=['view'], constraints={'slug': slug})
    permission.object_types.add(ObjectType.objects.get_for_model(Fabric))
    permission.users.add(user)


def break_by_hand(fabric, user):
    """An uplink of leaf1 set to MTU 1500 by hand, change-logged: (the interface, its expected finding text)."""
    context = Interface.objects.get(device__name=LEAF1, name='Loopback0').device.local_context_data['aifabric']
    port = Interface.objects.get(
        device__name=LEAF1, name=next(p['name'] for p in context['interfaces'] if p['kind'] == 'uplink')
    )
    with by_hand(user):
        port.snapshot()
        port.mtu = 1500
        port.save()
    return port


class ComplianceTabTestCase(TestCase):
    """The tab shows the latest stored run (tests/integration/test_compliance_stored_tab.py: read, not computed):
    each test stores a run after the edit it makes, as the compliance job would."""

    RUNS = ('netbox_aifabric.view_compliancerun', 'netbox_aifabric.view_compliancefinding')

    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def url(self):
        return reverse('plugins:netbox_aifabric:fabric_compliance', kwargs={'pk': self.fabric.pk})

    def stored(self):
        return record_run(self.fabric, run_compliance(self.fabric))

    def test_the_tab_lists_every_rule_by_family(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'dcim.view_interface', 'core.view_objectchange', *self.RUNS)
        self.stored()
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        self.assertContains(response, 'Compliant')
        skipped = len(DEMO_SKIPS)  # no running config collected, no LLDP upload
        self.assertContains(response, '<span class="badge text-bg-green">pass</span>', count=len(RULES) - skipped)
        self.assertContains(response, '<span class="badge text-bg-secondary">skip</span>', count=skipped)
        for family in ('Drift', 'Fabric', 'RoCE/QoS', 'Security'):
            self.assertContains(response, f'</i> {family} — <span class="aifabric-fold-summary">', html=False)
        port = break_by_hand(self.fabric, self.user)
        self.stored()
        response = self.client.get(self.url())
        self.assertContains(response, 'Not compliant')
        self.assertContains(response, '<span class="badge text-bg-red">fail</span>', count=1)
        self.assertContains(response, f'<a href="{port.get_absolute_url()}">{LEAF1} {port.name}</a>')
        self.assertContains(response, f'(update by {self.user.username})</a>')
        self.assertContains(response, 'expected <em>mtu=9216</em>, found <em>mtu=1500</em>')

    def test_objects_the_user_may_not_view_are_named_not_linked(self):
        self.add_permissions('netbox_aifabric.view_fabric', *self.RUNS)
        port = break_by_hand(self.fabric, self.user)
        self.stored()
        response = self.client.get(self.url())
        self.assertContains(response, f'{LEAF1} {port.name}:')
        self.assertNotContains(response, port.get_absolute_url())
        self.assertNotContains(response, 'by ' + self.user.username)  # no change-log permission

    def test_object_constraints_decide_the_links_too(self):
        """The view permission on interfaces limited to another device's: the port is named, not linked; widened to
        its device's, linked."""
        self.add_permissions('netbox_aifabric.view_fabric', *self.RUNS)
        port = break_by_hand(self.fabric, self.user)
        self.stored()
        permission = ObjectPermission.objects.create(
            name='other interfaces', actions=['view'], constraints={'device__name': 'ai-lab-fabric-spine1'}
        )
        permission.object_types.add(ObjectType.objects.get_for_model(Interface))
        permission.users.add(self.user)
        response = self.client.get(self.url())
        self.assertContains(response, f'{LEAF1} {port.name}:')
        self.assertNotContains(response, port.get_absolute_url())
        permission.constraints = {'device__name__in': ['ai-lab-fabric-spine1', LEAF1]}
        permission.save()
        self.assertContains(self.client.get(self.url()), f'<a href="{port.get_absolute_url()}">{LEAF1} {port.name}</a>')

    def test_the_tab_needs_the_fabrics_view_permission_with_its_constraints(self):
        self.assertHttpStatus(self.client.get(self.url()), 403)
        constrain(self.user, 'another-fabric')
        self.assertHttpStatus(self.client.get(self.url()), 404)
        constrain(self.user, self.fabric.slug)
        self.assertHttpStatus(self.client.get(self.url()), 200)

    def test_run_as_a_job(self):
        # running stores a run: the add permission on runs (tests/integration/test_compliance_permission.py)
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.add_compliancerun', 'core.view_job')
        url = reverse('plugins:netbox_aifabric:fabric_compliance_run', kwargs={'pk': self.fabric.pk})
        response = self.client.post(url)
        self.assertHttpStatus(response, 302)
        job = Job.objects.get(name='AI fabric compliance', object_id=self.fabric.pk)
        self.assertEqual((job.status, job.user), ('pending', self.user))
        break_by_hand(self.fabric, self.user)
        ComplianceJob.handle(job)  # what the RQ worker does
        job.refresh_from_db()
        self.assertEqual(job.status, 'completed')
        self.assertEqual((job.data['ok'], job.data['counts']['fail'], job.data['counts']['findings']), (False, 1, 1))
        (edited,) = [r for r in job.data['results'] if r['status'] == 'fail']
        self.assertEqual((edited['id'], edited['findings'][0]['found']), ('drift-edited', 'mtu=1500'))
        response = self.client.get(self.url())
        self.assertContains(response, job.get_absolute_url())


class ComplianceAPITestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def url(self, pk=None):
        return reverse('plugins-api:netbox_aifabric-api:fabric-compliance', kwargs={'pk': pk or self.fabric.pk})

    def test_the_result_as_json(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'dcim.view_interface')
        response = self.client.get(self.url(), **self.header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(
            (response.data['fabric'], response.data['fabric_name'], response.data['ok']),
            (self.fabric.pk, self.fabric.name, True),
        )
        self.assertEqual(
            response.data['counts'],
            {
                'rules': len(RULES),
                'pass': len(RULES) - len(DEMO_SKIPS),
                'fail': 0,
                'skip': len(DEMO_SKIPS),
                'error': 0,
                'findings': 0,
            },  # fmt: skip
        )  # DEMO_SKIPS: no running config is collected, no LLDP table uploaded
        port = break_by_hand(self.fabric, self.user)
        data = self.client.get(self.url(), **self.header).data
        (edited,) = [r for r in data['results'] if r['status'] == 'fail']
        self.assertEqual(
            set(edited), {'id', 'family', 'title', 'severity', 'rationale', 'fix', 'status', 'note', 'findings'}
        )
        self.assertEqual(
            edited['findings'],
            [
                {
                    'objects': [
                        {
                            'model': 'dcim.interface',
                            'name': port.name,
                            'device': LEAF1,
                            'id': port.pk,
                            'url': port.get_absolute_url(),
                            'change': None,  # no change-log permission
                        }
                    ],
                    'expected': 'mtu=9216',
                    'found': 'mtu=1500',
                    'remediation': '',
                }
            ],
        )

    def test_permissions_and_constraints(self):
        self.assertHttpStatus(self.client.get(self.url(), **self.header), 403)
        constrain(self.user, 'another-fabric')
        self.assertHttpStatus(self.client.get(self.url(), **self.header), 404)
        self.assertHttpStatus(self.client.get(self.url(pk=999999), **self.header), 404)
        constrain(self.user, self.fabric.slug)
        self.assertHttpStatus(self.client.get(self.url(), **self.header), 200)

    def test_post_runs_a_job(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.add_compliancerun')
        response = self.client.post(self.url(), {}, format='json', **self.header)
        self.assertHttpStatus(response, 202)
        job = Job.objects.get(pk=response.data['job']['id'])
        self.assertEqual((job.name, job.object, job.user), ('AI fabric compliance', self.fabric, self.user))


class ComplianceReportTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def test_the_report_logs_each_rule_and_each_finding_linked(self):
        script = FabricCompliance()
        script.run(data={'fabric': self.fabric}, commit=False)
        self.assertFalse(script.failed)
        self.assertEqual(
            list(script.tests),
            [
                'test_1_drift',
                'test_2_fabric',
                'test_3_roce',
                'test_4_security',
                'test_5_automation',
                'test_6_traffic',
                'test_7_config',
            ],
        )
        # the running-config rules skip: no backup source is set and no backup was uploaded (test_config_compliance.py)
        config_rules = sum(1 for r in RULES if r.family == 'config')
        self.assertEqual(sum(t['success'] for t in script.tests.values()), len(RULES) - len(DEMO_SKIPS))
        self.assertEqual(script.tests['test_7_config']['info'], config_rules)
        port = break_by_hand(self.fabric, self.user)
        script = FabricCompliance()
        script.run(data={}, commit=False)  # every fabric
        self.assertTrue(script.failed)
        drift = script.tests['test_1_drift']
        drift_rules = sum(1 for r in RULES if r.family == 'drift')
        self.assertEqual((drift['failure'], drift['success']), (1, drift_rules - 1))
        (_time, level, obj, url, message) = next(entry for entry in drift['log'] if entry[1] == 'failure')
        self.assertEqual((obj, url), (f'{LEAF1} {port.name}', port.get_absolute_url()))
        self.assertIn('drift-edited (error) Owned objects as the plan made them', message)
        self.assertIn('expected mtu=9216, found mtu=1500', message)


class TrafficScopeTestCase(TestCase):
    """The traffic matrix's security matrix is the fabric's own classes' (``traffic.fabric_traffic``): a class only
    another fabric carries, whatever it lets reach it, changes nothing in this fabric's matrix, on the Traffic tab and
    in the compliance run alike (a flow to it is forbidden here: no ACL of this fabric admits it)."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        other = Fabric.objects.create(name='Other fabric', slug='other-fabric', site=cls.fabric.site, **FABRIC_SHAPE)
        cls.backup = TrafficClass.objects.create(
            name='BACKUP', slug='backup', purpose='storage', vid=60, reachability='none'
        )
        other.traffic_classes.add(cls.backup)
        cls.users = TrafficClass.objects.get(name='USERS')
        TrafficFlow.objects.create(
            fabric=cls.fabric,
            source_group='gpu',
            source_class=cls.users,
            destination_group='storage',
            destination_class=cls.backup,
            gbps=1,
        )

    def matrix(self):
        """The Traffic tab's warnings and the compliance run's forbidden flows."""
        tab = [(w.code, w.field, w.message) for w in fabric_traffic(self.fabric)[1].warnings]
        forbidden = failed(run_compliance(self.fabric)).get('traffic-forbidden-flow', [])
        return tab, [(f.expected, f.found) for f in forbidden]

    def test_another_fabrics_class_changes_nothing(self):
        closed = self.matrix()
        self.backup.reachability = 'any'
        self.backup.save()
        opened = self.matrix()
        self.backup.reachability = 'listed'
        self.backup.save()
        self.backup.reachable_from.add(self.users)
        listed = self.matrix()
        self.assertEqual(opened, closed)
        self.assertEqual(listed, closed)
        self.assertIn('forbidden-flow', [code for code, _field, _message in closed[0]])
        ((expected, found),) = closed[1]
        self.assertEqual(expected, 'only flows the security matrix allows')
        self.assertIn('USERS may not reach BACKUP', found)
