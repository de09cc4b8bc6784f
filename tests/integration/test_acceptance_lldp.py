"""LLDP tables uploaded through the real upload API (``POST …/acceptance-runs/{id}/upload/``), generated from the demo
fabric's plan: one result per planned cable (seen from both ends once both uploaded), one per uploaded device, the
``fabric-lldp`` rule's verdict on what is stored; two swapped uplinks and a missing cable named; a bad upload is a
400 naming its field and writes nothing (a fuzz too)."""

import json

import hypothesis.extra.django
import pytest
from hypothesis import given
from hypothesis import strategies as st

from users.models import User
from utilities.testing import APITestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.checks.compliance import fabric_facts, lldp_facts
from netbox_aifabric.checks.engine import run_rules
from netbox_aifabric.checks.lldp import RULES as LLDP_RULES
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import AcceptanceResult, AcceptanceRun, Fabric
from tests.integration.test_api_fuzz import examples, json_values
from tests.unit.acceptance.test_lldp import eos_json, lldpd_json, seen_from_plan

pytestmark = pytest.mark.netbox

API = '/api/plugins/aifabric/'


def subject_of(link):
    return f'{link.a_node} {link.a_interface} <-> {link.b_node} {link.b_interface}'


class LldpUploadTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.plan = plan_of(cls.fabric)
        cls.switches = {n.name for n in cls.plan.nodes}

    def setUp(self):
        super().setUp()
        self.add_permissions(
            'netbox_aifabric.view_acceptancerun',
            'netbox_aifabric.change_acceptancerun',
            'netbox_aifabric.add_acceptanceresult',
        )
        self.run_ = AcceptanceRun.objects.create(fabric=self.fabric, kind='manual', description='lldp')

    def upload(self, body):
        return self.client.post(f'{API}acceptance-runs/{self.run_.pk}/upload/', body, format='json', **self.header)

    def upload_all(self, **changes):
        """Every device's table as LLDP would show the plan (``changes``: ``seen_from_plan``'s swap/drop); switches
        in EOS JSON with FQDN names, servers in lldpctl's."""
        responses = {}
        for device, rows in seen_from_plan(self.plan, **changes).items():
            if device in self.switches:
                body = {'tool': 'eos-lldp', 'output': eos_json(rows, '.example.net'), 'subject': device}
            else:
                body = {'tool': 'lldpctl', 'output': lldpd_json(rows), 'subject': device.upper()}
            responses[device] = self.upload(body)
        return responses

    def verdict(self):
        facts = fabric_facts(Fabric.objects.get(pk=self.fabric.pk))
        facts.acceptance['lldp'] = lldp_facts(self.fabric)  # what checks.compliance.acceptance_facts is to gather
        result = run_rules(LLDP_RULES, facts).results[0]
        return result.status, {tuple(str(o) for o in f.objects[:2]): f.found for f in result.findings}, result.note

    def lldp_results(self):
        return {r.subject: r for r in AcceptanceResult.objects.filter(run=self.run_, category='lldp')}

    def test_every_device_uploaded_passes_one_result_per_planned_cable(self):
        responses = self.upload_all()
        for device, response in responses.items():
            self.assertHttpStatus(response, 201)
            self.assertEqual((response.data['category'], response.data['subject']), ('lldp-device', device))
        results = self.lldp_results()
        self.assertEqual(set(results), {subject_of(link) for link in self.plan.links})
        self.assertEqual({r.status for r in results.values()}, {'passed'})
        devices = AcceptanceResult.objects.filter(run=self.run_, category='lldp-device')
        self.assertEqual({d.subject: d.status for d in devices}, dict.fromkeys(responses, 'passed'))
        leaf = next(iter(sorted(self.switches)))
        self.assertEqual(json.loads(devices.get(subject=leaf).raw)['lldpNeighbors'][0]['neighborDevice'].split('.')[0],
                         seen_from_plan(self.plan)[leaf][0][1])  # fmt: skip
        self.run_.refresh_from_db()
        self.assertEqual((self.run_.status, self.run_.passed), ('passed', len(self.plan.links) + len(responses)))
        self.assertEqual(self.verdict()[:2], ('pass', {}))

    def test_one_end_uploaded_is_not_verified_and_the_rule_fails(self):
        spine = sorted(n for n in self.switches if 'spine' in n)[0]
        rows = seen_from_plan(self.plan)[spine]
        self.assertHttpStatus(self.upload({'tool': 'eos-lldp', 'output': eos_json(rows), 'subject': spine}), 201)
        results = self.lldp_results()
        mine = {subject_of(k) for k in self.plan.links if spine in (k.a_node, k.b_node)}
        self.assertEqual({s for s, r in results.items() if r.status == 'not-verified' and s in mine}, mine)
        status, findings, _ = self.verdict()
        self.assertEqual(status, 'fail')
        self.assertEqual(len(findings), len(self.plan.links))

    def test_swapped_uplinks_and_a_missing_cable_are_named(self):
        leaf = sorted(n for n in self.switches if 'leaf' in n)[0]
        a, b = [k for k in self.plan.links if k.kind == 'uplink' and k.b_node == leaf][:2]
        index = next(i for i, k in enumerate(self.plan.links) if k.kind == 'server')
        missing = self.plan.links[index]
        self.upload_all(swap=((leaf, a.b_interface), (leaf, b.b_interface)), drop=index)
        failed = {s for s, r in self.lldp_results().items() if r.status == 'failed'}
        self.assertEqual(failed, {subject_of(k) for k in (a, b, missing)})
        status, findings, _ = self.verdict()
        self.assertEqual(status, 'fail')
        self.assertEqual(set(findings), {(f'{k.a_node} {k.a_interface}', f'{k.b_node} {k.b_interface}')
                                         for k in (a, b, missing)})  # fmt: skip
        found = findings[(f'{a.a_node} {a.a_interface}', f'{leaf} {a.b_interface}')]
        self.assertIn(f'{leaf} {a.b_interface}: expected {a.a_node} {a.a_interface}, found {b.a_node} '
                      f'{b.a_interface}', found)  # fmt: skip
        self.run_.refresh_from_db()
        self.assertEqual(self.run_.status, 'failed')

    def test_a_new_upload_of_a_device_replaces_its_view(self):
        self.upload_all(drop=0)
        self.assertEqual(self.lldp_results()[subject_of(self.plan.links[0])].status, 'failed')
        link = self.plan.links[0]
        count = AcceptanceResult.objects.filter(run=self.run_).count()
        for device in (link.a_node, link.b_node):
            rows = seen_from_plan(self.plan)[device]
            tool, render = ('eos-lldp', eos_json) if device in self.switches else ('lldpctl', lldpd_json)
            self.assertHttpStatus(self.upload({'tool': tool, 'output': render(rows), 'subject': device}), 201)
        self.assertEqual(AcceptanceResult.objects.filter(run=self.run_).count(), count)
        self.assertEqual({r.status for r in self.lldp_results().values()}, {'passed'})
        self.assertEqual(self.verdict()[:2], ('pass', {}))

    def test_no_upload_yet_is_a_skip_never_a_pass(self):
        status, findings, note = self.verdict()
        self.assertEqual((status, findings), ('skip', {}))
        self.assertTrue(note.startswith('no LLDP upload yet'), note)

    def test_bad_uploads_name_the_field_and_write_nothing(self):
        spine = sorted(n for n in self.switches if 'spine' in n)[0]
        rows = seen_from_plan(self.plan)[spine]
        for body, field in (
            ({'tool': 'eos-lldp', 'output': 'Port  Neighbor Device ID', 'subject': spine}, 'output'),
            ({'tool': 'eos-lldp', 'output': eos_json(rows), 'subject': 'nobody'}, 'subject'),
            ({'tool': 'eos-lldp', 'output': eos_json(rows)}, 'subject'),
            ({'tool': 'lldpctl', 'output': '{"lldp": 3}', 'subject': spine}, 'output'),
            ({'tool': 'eos-lldp', 'output': eos_json(rows), 'subject': spine, 'before': '{}'}, 'before'),
        ):
            response = self.upload(body)
            self.assertHttpStatus(response, 400)
            self.assertEqual(list(response.data), [field], (body, response.data))
        self.assertFalse(AcceptanceResult.objects.filter(run=self.run_).exists())


def replaced(text, value, index, containers=False):
    """The JSON ``text`` with its ``index``-th node (pre-order, modulo their count; ``containers``: of its objects
    and lists only, where a wrong type breaks the most) replaced by ``value``."""
    data, nodes = json.loads(text), []

    def walk(node, parent, key):
        if not containers or isinstance(node, dict | list):
            nodes.append((parent, key))
        for k, child in node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ():
            walk(child, node, k)

    walk(data, None, None)
    parent, key = nodes[index % len(nodes)]
    if parent is None:
        return json.dumps(value)
    parent[key] = value
    return json.dumps(data)


class LldpUploadFuzzTestCase(hypothesis.extra.django.TestCase, APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.manual = AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual')
        plan = plan_of(cls.fabric)
        cls.spine = sorted(n.name for n in plan.nodes if 'spine' in n.name)[0]
        cls.rows = seen_from_plan(plan)[cls.spine]

    def setUp(self):
        User.objects.filter(username='testuser').delete()
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    @examples(100)
    @given(tool=st.sampled_from(('eos-lldp', 'nvue-lldp', 'sonic-lldp', 'lldpctl')), data=st.data())
    def test_fuzz_lldp_upload(self, tool, data):
        """Arbitrary JSON or text, or a real table cut short, under any subject: a 400 naming its field that writes
        nothing, or a 201 whose results are the run's LLDP results."""
        real = eos_json(self.rows) if tool == 'eos-lldp' else lldpd_json(self.rows)
        output = data.draw(st.one_of(
            json_values.map(json.dumps), st.text(max_size=200), st.integers(0, len(real)).map(lambda n: real[:n]),
            st.just(real), st.builds(lambda v, i: replaced(real, v, i), json_values, st.integers(0, 10_000)),
            *[st.builds(lambda v, i: replaced(real, v, i, containers=True), json_values, st.integers(0, 10_000))] * 3,
        ))  # fmt: skip
        names = (self.spine, f'{self.spine.upper()}.example.net', 'nobody', '', 'x' * 300)
        subject = data.draw(st.sampled_from(names) | json_values)
        before = list(AcceptanceResult.objects.order_by('pk').values_list('pk', 'status'))
        response = self.client.post(
            f'{API}acceptance-runs/{self.manual.pk}/upload/',
            data=json.dumps({'tool': tool, 'output': output, 'subject': subject}),
            content_type='application/json',
            **self.header,
        )
        self.assertLess(response.status_code, 500, response.content[:500])
        if response.status_code != 201:
            self.assertTrue(isinstance(response.data, dict) and response.data)
            self.assertEqual(list(AcceptanceResult.objects.order_by('pk').values_list('pk', 'status')), before)
        else:
            self.assertTrue(AcceptanceResult.objects.filter(run=self.manual, category='lldp-device').exists())
