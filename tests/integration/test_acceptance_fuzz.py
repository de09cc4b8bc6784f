"""Fuzz of ``POST …/acceptance-runs/{id}/upload/`` (the REST upload of tool output): arbitrary JSON bodies, real
iperf3/ping output, perftest reports and the counter snapshots of every tool (ethtool, SONiC, EOS, NVUE; as output and
as before) cut short or with a value swapped, and arbitrary text, to the manual run, the lab run and ids that do not
exist. Never a 5xx; a 4xx names its field and writes nothing (no result, the run untouched)."""

import json
from pathlib import Path
from urllib.parse import quote

import hypothesis.extra.django
import pytest
from hypothesis import given
from hypothesis import strategies as st

from users.models import User
from utilities.testing import APITestCase

from netbox_aifabric.acceptance.counters import COUNTER_TOOLS
from netbox_aifabric.acceptance.judge import RDMA_TOOLS
from netbox_aifabric.acceptance.store import store_lab_run
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import AcceptanceResult, AcceptanceRun, Fabric
from tests.integration.test_api_fuzz import examples, json_values, path_ids

pytestmark = pytest.mark.netbox

FIXTURES = Path(__file__).resolve().parents[1] / 'unit' / 'acceptance' / 'fixtures'
OUTPUTS = [p.read_text() for p in sorted(FIXTURES.glob('*')) if p.suffix in ('.json', '.txt')]
SERVERS = ('ai-lab-fabric-gpu1', 'ai-lab-fabric-gpu2', 'ai-lab-fabric-storage1', 'nobody', '', 'x' * 300)
# RDMA NICs as ib_write_bw names them (<server>:<NIC>), one that does not exist and a bare colon
SERVERS += ('ai-lab-fabric-gpu1:rdma1', 'ai-lab-fabric-gpu2:rdma1', 'ai-lab-fabric-gpu1:rdma9', ':')


def _swap_value(data, value):
    """The iperf3 JSON with end.sum_received (or the whole end) replaced by ``value``."""
    data = json.loads(data)
    if isinstance(data.get('end'), dict) and 'sum_received' in data['end']:
        data['end']['sum_received'] = {'bits_per_second': value}
    else:
        data['end'] = value
    return json.dumps(data)


@st.composite
def outputs(draw):
    text = draw(st.sampled_from(OUTPUTS))
    how = draw(st.sampled_from(('whole', 'cut', 'swap', 'text', 'json')))
    if how == 'cut':
        return text[: draw(st.integers(min_value=0, max_value=len(text)))]
    if how == 'swap' and text.startswith('{'):
        return _swap_value(text, draw(json_values))
    if how == 'text':
        return draw(st.text(max_size=300))
    if how == 'json':
        return draw(json_values)
    return text


bodies = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {'tool': st.sampled_from(('iperf3', 'ping', 'IPERF3', '', *RDMA_TOOLS, *COUNTER_TOOLS)) | json_values,
         'output': outputs()},
        optional={'source': st.sampled_from(SERVERS) | json_values, 'destination': st.sampled_from(SERVERS),
                  'subject': st.text(max_size=250) | json_values, 'before': outputs() | json_values},
    ),
)  # fmt: skip


class AcceptanceUploadFuzzTestCase(hypothesis.extra.django.TestCase, APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.manual = AcceptanceRun.objects.create(fabric=cls.fabric, kind='manual')
        check = {'name': 'bgp a -> b', 'kind': 'bgp', 'status': 'passed', 'expected': 'E', 'seen': 'E'}
        cls.lab = store_lab_run(cls.fabric, None, {'checks': [check]})

    def setUp(self):
        User.objects.filter(username='testuser').delete()
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    def state(self):
        runs = list(
            AcceptanceRun.objects.order_by('pk').values_list('pk', 'last_updated', 'passed', 'failed', 'status')
        )
        return runs, list(AcceptanceResult.objects.order_by('pk').values_list('pk', 'status'))

    @examples(120)
    @given(target=st.one_of(st.sampled_from(('manual', 'lab')), path_ids), body=bodies)
    def test_fuzz_upload(self, target, body):
        pk = getattr(self, target).pk if target in ('manual', 'lab') else target
        before = self.state()
        response = self.client.post(
            f'/api/plugins/aifabric/acceptance-runs/{quote(str(pk), safe="")}/upload/',
            data=json.dumps(body),
            content_type='application/json',
            **self.header,
        )
        what = f'{pk} {body!r:.500}'
        self.assertLess(response.status_code, 500, f'{what}: {response.content[:1000]!r}')
        if response.status_code == 400:
            self.assertTrue(isinstance(response.data, dict) and response.data, what)
            self.assertEqual(self.state(), before, f'{what} answered 400 but wrote')
        elif response.status_code != 201:
            self.assertEqual(self.state(), before, what)
        else:
            self.assertEqual((pk, len(self.state()[1])), (self.manual.pk, len(before[1]) + 1), what)
