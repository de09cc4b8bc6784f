"""Acceptance runs and results as NetBox objects: REST list/detail with their filters, the upload of real tool output
(tests/unit/acceptance/fixtures) judged against the demo fabric's plan, a lab result stored as a run of kind lab and
shown on the Lab tab, the UI upload form, and object permissions with constraints on every path."""

import json
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils.html import escape

from core.models import ObjectType
from users.models import ObjectPermission
from utilities.testing import APITestCase, TestCase

from netbox_aifabric.acceptance.store import store_lab_run
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import AcceptanceResult, AcceptanceRun, Fabric
from tests.integration.test_compliance import constrain

pytestmark = pytest.mark.netbox

FIXTURES = Path(__file__).resolve().parents[1] / 'unit' / 'acceptance' / 'fixtures'
API = '/api/plugins/aifabric/'


def fixture(name):
    return (FIXTURES / name).read_text()


def received_gbps(name):
    return json.loads(fixture(name))['end']['sum_received']['bits_per_second'] / 1e9


def bonds(plan):
    """{server: (bond Gbit/s, its leaves)} counted from the plan's server links (not from the code under test)."""
    out = {}
    for link in plan.links:
        if link.kind == 'server':
            gbps, leaves = out.get(link.b_node, (0, frozenset()))
            out[link.b_node] = (gbps + link.speed, leaves | {link.a_node})
    return out


def lab_result(statuses):
    """A lab result as ``LabRun.as_dict()`` gives it, one check per status."""
    checks = [
        {'name': f'bgp leaf1 -> spine{n} 10.255.2.{n} (uplink)', 'kind': 'bgp', 'status': s, 'expected': 'E', 'seen': s}
        for n, s in enumerate(statuses)
    ]
    return {'checks': checks, 'convergence_seconds': 2.5, 'seconds': 9.0, 'namespaces': {'leaf1': 'x'}, 'log': ['a']}


def constrained(user, actions, model, constraints):
    permission = ObjectPermission.objects.create(name=f'{model} {actions}', actions=actions, constraints=constraints)
    permission.object_types.add(ObjectType.objects.get(app_label='netbox_aifabric', model=model))
    permission.users.add(user)


class AcceptanceAPITestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.plan = plan_of(cls.fabric)
        cls.lab = store_lab_run(cls.fabric, None, lab_result(['passed', 'passed', 'failed', 'not-verified-here']))
        cls.manual = AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual', description='by hand')

    def upload(self, run, body):
        return self.client.post(f'{API}acceptance-runs/{run.pk}/upload/', body, format='json', **self.header)

    def pair(self, storage=False):
        """Two GPU servers on a common leaf (the demo's racks are one MLAG pair), or a GPU server and a storage node;
        with the slower bond's Gbit/s."""
        servers = bonds(self.plan)
        kinds = {a.server: a.kind for a in self.plan.attachments}
        gpus = sorted(s for s in servers if kinds[s] != 'storage')
        storages = sorted(s for s in servers if kinds[s] == 'storage')
        a, b = (gpus[0], storages[0]) if storage else gpus[:2]
        self.assertTrue(storage or servers[a][1] & servers[b][1])
        return a, b, min(servers[a][0], servers[b][0])

    def test_a_stored_lab_run_counts_its_results(self):
        self.assertEqual((self.lab.kind, self.lab.passed, self.lab.failed, self.lab.not_verified), ('lab', 2, 1, 1))
        self.assertEqual(self.lab.status, 'failed')
        self.assertEqual(self.lab.results.get(status='failed').subject, 'leaf1 -> spine2')

    def test_list_and_filters(self):
        self.add_permissions('netbox_aifabric.view_acceptancerun', 'netbox_aifabric.view_acceptanceresult')
        url = f'{API}acceptance-runs/'
        self.assertEqual(self.client.get(url, **self.header).data['count'], 2)
        for params, expected in (
            ({'kind': 'lab'}, [self.lab.pk]),
            ({'status': 'failed'}, [self.lab.pk]),
            ({'status': 'empty'}, [self.manual.pk]),
            ({'fabric_id': self.fabric.pk}, sorted([self.lab.pk, self.manual.pk])),
        ):
            found = self.client.get(url, params, **self.header).data['results']
            self.assertEqual(sorted(r['id'] for r in found), expected, params)
        results = self.client.get(f'{API}acceptance-results/', {'run_id': self.lab.pk}, **self.header).data
        self.assertEqual(results['count'], 4)
        failed = self.client.get(f'{API}acceptance-results/', {'status': 'failed'}, **self.header).data
        self.assertEqual([r['name'] for r in failed['results']], ['bgp leaf1 -> spine2 10.255.2.2 (uplink)'])

    def test_create_a_manual_run_but_never_a_lab_run(self):
        self.add_permissions('netbox_aifabric.add_acceptancerun', 'netbox_aifabric.view_acceptancerun')
        url = f'{API}acceptance-runs/'
        response = self.client.post(url, {'fabric': self.fabric.pk}, format='json', **self.header)
        self.assertHttpStatus(response, 201)
        self.assertEqual((response.data['kind']['value'], response.data['user']['id']), ('manual', self.user.pk))
        before = AcceptanceRun.objects.count()
        response = self.client.post(url, {'fabric': self.fabric.pk, 'kind': 'lab'}, format='json', **self.header)
        self.assertHttpStatus(response, 400)
        self.assertIn('kind', response.data)
        self.assertEqual(AcceptanceRun.objects.count(), before)

    def grant_upload(self):
        self.add_permissions(
            'netbox_aifabric.view_acceptancerun',
            'netbox_aifabric.change_acceptancerun',
            'netbox_aifabric.add_acceptanceresult',
        )

    def test_iperf3_same_leaf_judged_against_the_pair_line_rate(self):
        self.grant_upload()
        source, destination, gbps = self.pair()
        measured = received_gbps('iperf3_p8_ok.json')
        body = {'tool': 'iperf3', 'output': fixture('iperf3_p8_ok.json'), 'source': source, 'destination': destination}
        response = self.upload(self.manual, body)
        self.assertHttpStatus(response, 201)
        expected = 'passed' if measured >= 0.9 * gbps else 'failed'
        verdict = (response.data['status']['value'], response.data['category'])
        self.assertEqual(verdict, (expected, 'throughput-same-leaf'))
        self.assertIn(f'of {gbps} Gbit/s', response.data['expected'])
        self.assertAlmostEqual(response.data['value'], measured, places=2)
        self.manual.refresh_from_db()
        self.assertEqual(self.manual.failed + self.manual.passed, 1)

    def test_iperf3_to_storage_below_the_line_rate_fails(self):
        self.grant_upload()
        source, destination, gbps = self.pair(storage=True)
        self.assertLess(received_gbps('iperf3_p8_capped.json'), 0.9 * gbps)
        body = {
            'tool': 'iperf3',
            'output': fixture('iperf3_p8_capped.json'),
            'source': source,
            'destination': destination,
        }
        response = self.upload(self.manual, body)
        verdict = (response.data['status']['value'], response.data['category'])
        self.assertEqual(verdict, ('failed', 'throughput-storage'))

    def test_ping_spike_fails_though_no_loss(self):
        self.grant_upload()
        response = self.upload(self.manual, {'tool': 'ping', 'output': fixture('ping_during_load.txt'), 'subject': 'x'})
        self.assertHttpStatus(response, 201)
        self.assertEqual(response.data['status']['value'], 'failed')
        self.assertIn('spike', response.data['seen'])
        self.assertEqual(AcceptanceResult.objects.get(pk=response.data['id']).raw, fixture('ping_during_load.txt'))

    def test_counter_snapshots_before_and_after_are_judged(self):
        """ethtool -S of a NIC and SONiC's PFC and queue counters, before and after the load: judged with the demo's
        lossless priority (its QoS profile's PFC priority 3); a discard or a lossless-queue drop fails."""
        self.grant_upload()
        self.assertEqual(self.fabric.qos_profile.pfc_priorities, [3])
        cases = (
            ('ethtool', 'ethtool_mlx5', '', 'roce-nic', 'passed'),
            ('ethtool', 'ethtool_mlx5', '_discards', 'roce-nic', 'failed'),
            ('sonic-pfc', 'sonic_pfc', '', 'roce-pfc', 'passed'),
            ('sonic-queue', 'sonic_queue', '_lossless_drops', 'roce-queue-drops', 'failed'),
        )
        for tool, name, variant, category, status in cases:
            body = {
                'tool': tool,
                'output': fixture(f'{name}_after{variant}.txt'),
                'before': fixture(f'{name}_before.txt'),
                'subject': 'leaf1',
            }
            response = self.upload(self.manual, body)
            self.assertHttpStatus(response, 201)
            got = (response.data['category'], response.data['status']['value'], response.data['subject'])
            self.assertEqual(got, (category, status, 'leaf1'), tool + variant)
            raw = AcceptanceResult.objects.get(pk=response.data['id']).raw
            self.assertTrue(raw.startswith('# before\n') and fixture(f'{name}_after{variant}.txt') in raw)
        pfc = AcceptanceResult.objects.get(run=self.manual, category='roce-pfc')
        self.assertEqual(pfc.value, (1212 - 12) + (403 - 3) + (907 - 7))  # the fixtures' PFC3 growth
        for body in (
            {'tool': 'sonic-pfc', 'output': fixture('ethtool_mlx5_after.txt')},
            {'tool': 'ethtool', 'output': fixture('ethtool_mlx5_after.txt'), 'before': 'garbage'},
            {'tool': 'ping', 'output': fixture('ping_jumbo_ok.txt'), 'before': fixture('ping_jumbo_ok.txt')},
        ):
            count = AcceptanceResult.objects.count()
            response = self.upload(self.manual, body)
            self.assertHttpStatus(response, 400)
            self.assertEqual(list(response.data), ['output' if body['tool'] == 'sonic-pfc' else 'before'])
            self.assertEqual(AcceptanceResult.objects.count(), count)

    def test_queue_counters_follow_the_profiles_priority_to_traffic_class_map(self):
        """The demo's profile maps its lossless priority 3 to traffic class 3: the fixtures' 17 drops on UC0 pass.
        Mapped to traffic class 0 instead (roce_tc), the same upload fails on UC0: the queue judged is the class
        the switches put that priority in, not the priority's number."""
        self.grant_upload()
        profile = self.fabric.qos_profile
        body = {
            'tool': 'sonic-queue',
            'output': fixture('sonic_queue_after.txt'),
            'before': fixture('sonic_queue_before.txt'),
        }
        self.assertEqual(self.upload(self.manual, body).data['status']['value'], 'passed')
        self.assertEqual(dict(zip(profile.roce_priority, profile.roce_tc, strict=True))[3], 3)
        profile.roce_tc = [0 if p == 3 else tc for p, tc in zip(profile.roce_priority, profile.roce_tc, strict=True)]
        profile.save()
        response = self.upload(self.manual, body)
        self.assertEqual((response.data['status']['value'], 'UC0' in response.data['seen']), ('failed', True))

    def test_eos_and_nvue_counter_snapshots_are_judged_with_the_fabrics_lossless_priority(self):
        """EOS JSON and NVUE text counter snapshots over REST, before and after the load: judged with the demo's PFC
        priority 3; the negative control of each NOS (pause frames on another priority, a lossless-class discard,
        FCS errors) fails; NVUE's undocumented JSON is a 400 naming output, nothing written."""
        self.grant_upload()
        cases = (
            ('eos-pfc', 'eos_pfc', 'json', '', 'roce-pfc', 'passed'),
            ('eos-pfc', 'eos_pfc', 'json', '_wrong_priority', 'roce-pfc', 'failed'),
            ('eos-errors', 'eos_errors', 'json', '_fcs', 'physical-errors', 'failed'),
            ('eos-ecn', 'eos_ecn', 'json', '', 'roce-ecn', 'passed'),
            ('nvue-pfc', 'nvue_pfc', 'txt', '_wrong_priority', 'roce-pfc', 'failed'),
            ('nvue-queue', 'nvue_queue', 'txt', '', 'roce-queue-drops', 'passed'),
            ('nvue-queue', 'nvue_queue', 'txt', '_lossless_drops', 'roce-queue-drops', 'failed'),
            ('nvue-errors', 'nvue_errors', 'txt', '_fcs', 'physical-errors', 'failed'),
            ('nvue-ecn', 'nvue_ecn', 'txt', '', 'roce-ecn', 'passed'),
        )
        for tool, name, ext, variant, category, status in cases:
            body = {
                'tool': tool,
                'output': fixture(f'{name}_after{variant}.{ext}'),
                'before': fixture(f'{name}_before.{ext}'),
                'subject': 'leaf1 Ethernet1/1',
            }
            response = self.upload(self.manual, body)
            self.assertHttpStatus(response, 201)
            got = (response.data['category'], response.data['status']['value'])
            self.assertEqual(got, (category, status), tool + variant)
        self.manual.refresh_from_db()
        self.assertEqual((self.manual.failed, self.manual.status), (5, 'failed'))
        count = AcceptanceResult.objects.count()
        nvue_json = json.dumps({str(p): {'rx-pause-frames': 0, 'tx-pause-frames': 0} for p in range(8)})
        response = self.upload(self.manual, {'tool': 'nvue-pfc', 'output': nvue_json})
        self.assertHttpStatus(response, 400)
        self.assertEqual(list(response.data), ['output'])
        self.assertEqual(AcceptanceResult.objects.count(), count)

    def test_bad_uploads_name_the_field_and_write_nothing(self):
        self.grant_upload()
        source, destination, _ = self.pair()
        cases = (
            ({'tool': 'nmap', 'output': 'x'}, 'tool'),
            (
                {
                    'tool': 'iperf3',
                    'output': fixture('iperf3_refused.json'),
                    'source': source,
                    'destination': destination,
                },
                'output',
            ),
            ({'tool': 'iperf3', 'output': '{"end": {}}', 'source': source, 'destination': destination}, 'output'),
            ({'tool': 'iperf3', 'output': fixture('iperf3_p8_ok.json'), 'source': source}, 'destination'),
            (
                {
                    'tool': 'iperf3',
                    'output': fixture('iperf3_p8_ok.json'),
                    'source': 'nobody',
                    'destination': destination,
                },
                'source',
            ),
            ({'tool': 'ping', 'output': 'hello'}, 'output'),
        )
        for body, field in cases:
            before = AcceptanceResult.objects.count(), AcceptanceRun.objects.get(pk=self.manual.pk).last_updated
            response = self.upload(self.manual, body)
            self.assertHttpStatus(response, 400)
            self.assertEqual(list(response.data), [field], body)
            self.assertEqual(
                (AcceptanceResult.objects.count(), AcceptanceRun.objects.get(pk=self.manual.pk).last_updated), before
            )
        response = self.upload(self.lab, {'tool': 'ping', 'output': fixture('ping_jumbo_ok.txt')})
        self.assertEqual((response.status_code, list(response.data)), (400, ['run']))

    def test_constrained_user_sees_and_uploads_only_within_the_constraints(self):
        constrained(self.user, ['view', 'change'], 'acceptancerun', {'kind': 'manual'})
        constrained(self.user, ['view'], 'acceptanceresult', {'run__kind': 'manual'})
        self.add_permissions('netbox_aifabric.add_acceptanceresult')
        runs = self.client.get(f'{API}acceptance-runs/', **self.header).data
        self.assertEqual([r['id'] for r in runs['results']], [self.manual.pk])
        self.assertHttpStatus(self.client.get(f'{API}acceptance-runs/{self.lab.pk}/', **self.header), 404)
        self.assertEqual(self.client.get(f'{API}acceptance-results/', **self.header).data['count'], 0)
        body = {'tool': 'ping', 'output': fixture('ping_jumbo_ok.txt'), 'subject': 'gpu1 -> gpu2'}
        self.assertHttpStatus(self.upload(self.lab, body), 404)
        self.assertHttpStatus(self.upload(self.manual, body), 201)

    def test_view_only_may_not_upload(self):
        self.add_permissions('netbox_aifabric.view_acceptancerun', 'netbox_aifabric.add_acceptanceresult')
        body = {'tool': 'ping', 'output': fixture('ping_jumbo_ok.txt')}
        self.assertHttpStatus(self.upload(self.manual, body), 403)
        self.assertFalse(self.manual.results.exists())


class AcceptanceViewsTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.lab = store_lab_run(cls.fabric, None, lab_result(['passed', 'failed']))
        cls.manual = AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual')

    def test_lists_and_details(self):
        self.add_permissions('netbox_aifabric.view_acceptancerun', 'netbox_aifabric.view_acceptanceresult')
        for name in ('acceptancerun_list', 'acceptanceresult_list'):
            self.assertHttpStatus(self.client.get(reverse(f'plugins:netbox_aifabric:{name}')), 200)
        self.assertContains(self.client.get(self.lab.get_absolute_url()), 'A lab run')
        result = self.lab.results.first()
        self.assertContains(self.client.get(result.get_absolute_url()), escape(result.name))

    def test_lab_tab_shows_the_stored_run_and_its_history(self):
        self.add_permissions('netbox_aifabric.view_fabric', 'netbox_aifabric.view_acceptancerun')
        self.add_permissions('netbox_aifabric.view_acceptanceresult')
        newer = store_lab_run(self.fabric, None, lab_result(['passed', 'passed', 'passed']))
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_lab', kwargs={'pk': self.fabric.pk}))
        self.assertContains(response, 'text-bg-green">passed<', count=3)  # the latest run's checks only
        self.assertContains(response, f'{newer.passed} passed')
        self.assertContains(response, self.lab.get_absolute_url())  # in the history
        self.assertContains(response, f'acceptance-runs/?fabric_id={self.fabric.pk}&amp;kind=lab')

    def test_upload_form(self):
        self.add_permissions(
            'netbox_aifabric.view_acceptancerun',
            'netbox_aifabric.change_acceptancerun',
            'netbox_aifabric.add_acceptanceresult',
        )
        url = reverse('plugins:netbox_aifabric:acceptancerun_upload', kwargs={'pk': self.manual.pk})
        self.assertHttpStatus(self.client.get(url), 200)
        response = self.client.post(url, {'tool': 'ping', 'output': fixture('ping_loss.txt'), 'subject': 'gpu1'})
        self.assertHttpStatus(response, 302)
        self.assertEqual(list(self.manual.results.values_list('status', flat=True)), ['failed'])
        response = self.client.post(url, {'tool': 'ping', 'output': 'not a ping'})
        self.assertHttpStatus(response, 400)
        self.assertContains(response, 'not ping output', status_code=400)
        self.assertEqual(self.manual.results.count(), 1)
        body = {'tool': 'sonic-queue', 'output': fixture('sonic_queue_after.txt')}
        response = self.client.post(url, {**body, 'before': fixture('sonic_queue_before.txt'), 'subject': 'leaf2'})
        self.assertHttpStatus(response, 302)
        self.assertEqual(self.manual.results.get(category='roce-queue-drops').status, 'passed')
        response = self.client.post(url, {**body, 'before': fixture('ping_loss.txt')})
        self.assertContains(response, 'not SONiC &quot;show queue counters&quot; output', status_code=400)

    def test_upload_form_needs_change_on_the_run(self):
        self.add_permissions('netbox_aifabric.view_acceptancerun', 'netbox_aifabric.add_acceptanceresult')
        url = reverse('plugins:netbox_aifabric:acceptancerun_upload', kwargs={'pk': self.manual.pk})
        self.assertHttpStatus(self.client.post(url, {'tool': 'ping', 'output': fixture('ping_loss.txt')}), 403)
        self.assertFalse(self.manual.results.exists())


class FabricAcceptanceTabTestCase(TestCase):
    """The runbook page and script of the demo fabric: view permission on the fabric, its constraints included."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def url(self, name='acceptance'):
        return reverse(f'plugins:netbox_aifabric:fabric_{name}', kwargs={'pk': self.fabric.pk})

    def test_page_and_script_follow_the_plan(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        plan = plan_of(self.fabric)
        switches = {n.name for n in plan.nodes}
        ends = sum((link.a_node in switches) + (link.b_node in switches) for link in plan.links)
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        cabled = {n for link in plan.links for n in (link.a_node, link.b_node)}  # each uploads its LLDP table
        steps = ends + len(cabled)
        summary = f'<span class="aifabric-fold-summary">{steps} checks</span>'
        self.assertContains(response, f'Physical checks per port — {summary}')
        script = self.client.get(self.url('acceptance_script'))
        self.assertHttpStatus(script, 200)
        self.assertEqual(script['Content-Disposition'], 'attachment; filename="ai-lab-fabric-acceptance.sh"')
        text = script.content.decode()
        self.assertEqual(sum(1 for line in text.splitlines() if line.startswith('  physical ')), ends)
        self.assertEqual(sum(1 for line in text.splitlines() if line.startswith('  lldp ')), len(cabled))
        check = subprocess.run(['bash', '-n'], input=text, capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)

    def test_a_fabric_outside_the_view_constraints_is_a_404(self):
        constrain(self.user, 'another-fabric')
        self.assertHttpStatus(self.client.get(self.url()), 404)
        self.assertHttpStatus(self.client.get(self.url('acceptance_script')), 404)


class AcceptanceChartTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.manual = AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual')

    def test_an_uploaded_iperf3_is_judged_and_charted(self):
        self.add_permissions(
            'netbox_aifabric.view_acceptancerun',
            'netbox_aifabric.change_acceptancerun',
            'netbox_aifabric.add_acceptanceresult',
        )
        servers = sorted(bonds(plan_of(self.fabric)))
        url = reverse('plugins:netbox_aifabric:acceptancerun_upload', kwargs={'pk': self.manual.pk})
        body = {
            'tool': 'iperf3',
            'output': fixture('iperf3_p8_ok.json'),
            'source': servers[0],
            'destination': servers[1],
        }
        self.assertHttpStatus(self.client.post(url, body), 302)
        self.assertNotContains(self.client.get(self.manual.get_absolute_url()), '<svg')  # results not viewable
        self.add_permissions('netbox_aifabric.view_acceptanceresult')
        response = self.client.get(self.manual.get_absolute_url())
        self.assertContains(response, '<svg', count=1)
        self.assertContains(response, f'{received_gbps("iperf3_p8_ok.json"):.1f}</text>')


class AcceptanceRunEditTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.other = Fabric.objects.create(name='Other', slug='other', site=cls.fabric.site)
        cls.manual = AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual')

    def test_a_run_stays_on_its_fabric(self):
        self.add_permissions('netbox_aifabric.view_acceptancerun', 'netbox_aifabric.change_acceptancerun')
        url = f'{API}acceptance-runs/{self.manual.pk}/'
        response = self.client.patch(url, {'fabric': self.other.pk}, format='json', **self.header)
        self.assertHttpStatus(response, 400)
        self.assertIn('fabric', response.data)
        response = self.client.patch(url, {'description': 'rack 1 cabled'}, format='json', **self.header)
        self.assertHttpStatus(response, 200)
        self.manual.refresh_from_db()
        self.assertEqual((self.manual.fabric, self.manual.description), (self.fabric, 'rack 1 cabled'))
