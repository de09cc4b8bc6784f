"""perftest reports uploaded through the real upload API (``POST …/acceptance-runs/{id}/upload/``) and the UI form:
judged against the demo fabric's plan (its RDMA NICs' speeds, its QoS profile's lossless ToS) and stored as results;
a bad upload is a 400 naming the field and writes nothing."""

from pathlib import Path

import pytest
from django.urls import reverse

from utilities.testing import APITestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.intake.intent import intent_of
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import AcceptanceResult, AcceptanceRun, Fabric

pytestmark = pytest.mark.netbox

FIXTURES = Path(__file__).resolve().parents[1] / 'unit' / 'acceptance' / 'fixtures'
API = '/api/plugins/aifabric/'


def fixture(name):
    return (FIXTURES / name).read_text()


def bw_average(name):
    """The BW average[Gb/sec] of the fixture's row, read by splitting (not by the parser)."""
    lines = fixture(name).splitlines()
    return float(next(line for line in lines if line.split()[:1] == ['65536']).split()[3])


class AcceptanceRdmaUploadTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        plan = plan_of(cls.fabric)
        # two RDMA NICs on one leaf, of two servers, from the plan's links (not from the code under test)
        links = [link for link in plan.links if link.kind in ('rdma', 'rail')]
        cls.a = links[0]
        cls.b = next(link for link in links if link.a_node == cls.a.a_node and link.b_node != cls.a.b_node)
        cls.tos = intent_of(cls.fabric)['qos']['roce_dscp'][0] * 4
        cls.manual = AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual', description='rdma')

    def setUp(self):
        super().setUp()
        self.add_permissions(
            'netbox_aifabric.view_acceptancerun',
            'netbox_aifabric.change_acceptancerun',
            'netbox_aifabric.add_acceptanceresult',
        )

    def nic(self, link):
        return f'{link.b_node}:{link.b_interface}'

    def upload(self, body):
        return self.client.post(f'{API}acceptance-runs/{self.manual.pk}/upload/', body, format='json', **self.header)

    def bandwidth(self, name):
        body = {'tool': 'ib_write_bw', 'output': fixture(name), 'source': self.nic(self.a)}
        return self.upload({**body, 'destination': self.nic(self.b)})

    def test_an_uploaded_ib_write_bw_is_judged_and_stored(self):
        response = self.bandwidth('perftest_write_bw_ok.txt')
        self.assertHttpStatus(response, 201)
        result = AcceptanceResult.objects.get(pk=response.data['id'])
        gbps = min(self.a.speed, self.b.speed)
        self.assertEqual((result.category, result.status), ('rdma-same-leaf', 'passed'))
        self.assertEqual(result.value, bw_average('perftest_write_bw_ok.txt'))
        self.assertIn(f'of {gbps} Gbit/s', result.expected)
        self.assertIn(f'ToS {self.tos}', result.expected)
        self.assertEqual(result.raw, fixture('perftest_write_bw_ok.txt'))
        self.assertEqual(result.subject, f'{self.nic(self.a)} -> {self.nic(self.b)}')
        self.manual.refresh_from_db()
        self.assertEqual((self.manual.status, self.manual.passed), ('passed', 1))

    def test_a_bandwidth_under_the_threshold_fails(self):
        self.assertLess(bw_average('perftest_write_bw_low.txt'), 0.9 * min(self.a.speed, self.b.speed))
        response = self.bandwidth('perftest_write_bw_low.txt')
        self.assertHttpStatus(response, 201)
        self.assertEqual(response.data['status']['value'], 'failed')
        self.manual.refresh_from_db()
        self.assertEqual(self.manual.status, 'failed')

    def test_a_latency_spike_fails_and_a_calm_one_passes(self):
        for name, status in (('perftest_send_lat_spike.txt', 'failed'), ('perftest_send_lat_ok.txt', 'passed')):
            body = {'tool': 'ib_send_lat', 'output': fixture(name), 'subject': 'gpu1 -> gpu3'}
            response = self.upload(body)
            self.assertHttpStatus(response, 201)
            result = AcceptanceResult.objects.get(pk=response.data['id'])
            self.assertEqual((result.category, result.status, result.subject), ('rdma-latency', status, 'gpu1 -> gpu3'))

    def test_bad_uploads_name_the_field_and_write_nothing(self):
        ok = fixture('perftest_write_bw_ok.txt')
        cases = [
            ({'tool': 'ib_write_bw', 'output': '{"BW_average": 97}'} | self.pair(), 'output'),
            ({'tool': 'ib_write_bw', 'output': ok, 'source': 'x', 'destination': 'y'}, 'source'),
            ({'tool': 'ib_write_bw', 'output': fixture('perftest_write_bw_mib.txt')} | self.pair(), 'output'),
            ({'tool': 'ib_write_bw', 'output': ok, 'source': self.nic(self.a)}, 'destination'),
            ({'tool': 'ib_write_bw', 'output': ok, 'source': 'gpu99:rdma1', 'destination': self.nic(self.b)}, 'source'),
            ({'tool': 'ib_read_lat', 'output': fixture('perftest_send_lat_ok.txt')}, 'output'),
            ({'tool': 'ib_send_lat', 'output': ok, 'before': ok}, 'before'),
        ]
        before = AcceptanceResult.objects.count()
        for body, field in cases:
            response = self.upload(body)
            self.assertHttpStatus(response, 400)
            self.assertEqual(list(response.data), [field], body)
        self.assertEqual(AcceptanceResult.objects.count(), before)

    def pair(self):
        return {'source': self.nic(self.a), 'destination': self.nic(self.b)}

    def test_the_upload_form_offers_and_judges_the_rdma_tools(self):
        self.add_permissions('netbox_aifabric.view_fabric')
        self.client.force_login(self.user)
        url = reverse('plugins:netbox_aifabric:acceptancerun_upload', kwargs={'pk': self.manual.pk})
        page = self.client.get(url)
        for tool in ('ib_write_bw', 'ib_send_lat', 'ib_read_lat'):
            self.assertContains(page, f'value="{tool}"')
        body = {'tool': 'ib_read_lat', 'output': fixture('perftest_read_lat_ok.txt'), 'subject': 'gpu1 -> gpu2'}
        response = self.client.post(url, body)
        self.assertEqual(response.status_code, 302)
        result = AcceptanceResult.objects.get(run=self.manual, category='rdma-latency')
        self.assertEqual((result.status, result.name), ('passed', 'ib_read_lat gpu1 -> gpu2'))
