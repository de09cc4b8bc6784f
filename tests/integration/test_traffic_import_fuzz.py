"""Property: the traffic matrix's input paths never answer a server error. Arbitrary rows through NetBox's bulk import
of traffic flows (CSV, JSON, YAML) and arbitrary traffic-flow bodies over REST either write the flows, or are refused
with errors naming the field (``Record N <field>: …`` in the import form; a 400 keyed by field over REST) and write
nothing (no flow, no change-log entry). Whatever they accept, the fabric's Traffic tab, its loads CSV and the REST
``traffic`` and ``bom`` actions then answer: the matrix, or a 400 naming the flow's field (``flows[i].<field>``).
The BOM's ``spares_percent`` is fuzzed too (the generic API fuzz does not send it).

``test_api_fuzz.py`` already sends arbitrary bodies to every endpoint, traffic flows among them; these tests aim the
values at what a flow means (groups, classes by name, Gbit/s as text and numbers) and go on to the matrix."""

import csv
import io
import json
import re
from urllib.parse import quote

import pytest
import yaml
from django.urls import reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from core.models import ObjectChange
from users.models import User
from utilities.testing import APITestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.forms import TrafficFlowImportForm
from netbox_aifabric.models import Fabric, TrafficClass, TrafficFlow
from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.netbox

API = '/api/plugins/aifabric/'
FUZZ = settings(max_examples=examples(60), deadline=None, database=None, suppress_health_check=list(HealthCheck))

GROUP = st.one_of(st.sampled_from(['gpu', 'storage', 'all', 'backup', 'GPU', '', ' gpu']), st.text(max_size=6))
CLASS = st.one_of(st.sampled_from(['RDMA', 'STORAGE', 'USERS', 'MGMT', 'rdma', '', 'NOPE']), st.text(max_size=6))
GBPS = st.one_of(
    st.sampled_from(['10', '0', '-1', '0.001', '0.0001', '1e9', '1e400', 'nan', 'inf', '-inf', '1,5', '٣', 'abc', '']),
    st.sampled_from(['99999999', '999999999999', '1' * 30, '0.5', '12.345']),
    st.floats().map(str),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)
SENSIBLE = {  # what a user would type: most cells are one of these, so that rows get through to the matrix
    'fabric': st.just('ai-lab-fabric'),
    'source_group': st.sampled_from(['gpu', 'storage', 'all']),
    'destination_group': st.sampled_from(['gpu', 'storage', 'all']),
    'gbps': st.one_of(st.integers(1, 400).map(str), st.decimals(min_value='0.001', max_value='999', places=3).map(str)),
    'burstiness': st.sampled_from(['sustained', 'bursty', '']),
    'source_class': st.sampled_from(['RDMA', 'STORAGE', 'USERS', 'MGMT', '']),
    'destination_class': st.sampled_from(['RDMA', 'STORAGE', 'USERS', 'MGMT', '']),
    'description': st.text(st.characters(categories=['L', 'N', 'Zs']), max_size=20),
}
ARBITRARY = {
    'fabric': st.one_of(st.sampled_from(['nope', '', '1', 'AI-LAB-FABRIC']), st.text(max_size=6)),
    'source_group': GROUP,
    'destination_group': GROUP,
    'gbps': GBPS,
    'burstiness': st.one_of(st.sampled_from(['Bursty', 'none']), st.text(max_size=5)),
    'source_class': CLASS,
    'destination_class': CLASS,
    'description': st.text(min_size=190, max_size=230),
    # ids as digits only: a non-integer id is a 500 in NetBox's own BulkImportView (int(record['id']) in
    # create_and_update_objects, every model's import), not the plugin's to fix
    'id': st.sampled_from(['', '1', '999999']),
    'bogus': st.text(max_size=3),
}
# a sensible cell seven times in eight (about a third of the rows then pass whole), else an arbitrary one
COLUMNS = {
    column: st.sampled_from([True] * 7 + [False]).flatmap(
        lambda ok, c=column: SENSIBLE[c] if ok and c in SENSIBLE else ARBITRARY[c]
    )
    for column in ARBITRARY
}
REQUIRED = ('fabric', 'source_group', 'destination_group', 'gbps')
# a value of another type where JSON and YAML can carry one
OTHER_TYPES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.lists(st.integers(), max_size=2))
# the errors the REST API or the import may name besides a flow's fields
FORM_FIELDS = {'data', 'format', 'csv_delimiter', 'import_method', 'upload_file', 'background_job'}
# NetBox's import errors: a record's column, an unknown header, or (bulk_views: the same id twice) the id column
RECORD = re.compile(
    r'^(?:Record \d+ (?:(\w+): |: Unrecognized header: (\w+))|Duplicate objects found: .* with (ID)\(s\))'
)
FLOW_FIELD = re.compile(
    r'^flows\[\d+\]\.(source_group|destination_group|gbps|burstiness|source_class|destination_class)$'
)


@st.composite
def records(draw):
    """1–3 rows over a drawn set of columns (the required ones most of the time), each cell drawn for its column."""
    optional = [c for c in SENSIBLE if c not in REQUIRED]
    if draw(st.integers(0, 4)) == 0:  # now and then an id (an update) or a column the form does not have
        optional += ['id', 'bogus']
    # at least one column: a CSV of blank lines alone is a 500 in NetBox's own parse_csv (utilities/forms/utils.py,
    # next() on an empty reader; dcim's site import fails the same way), not the plugin's to fix
    required = REQUIRED
    if draw(st.integers(0, 4)) == 0:
        required = draw(st.lists(st.sampled_from(REQUIRED), unique=True, min_size=1))
    columns = [*required, *draw(st.lists(st.sampled_from(optional), unique=True, max_size=4))]
    return [{c: draw(COLUMNS[c], label=c) for c in columns} for _ in range(draw(st.integers(1, 3)))]


def as_text(rows, fmt, draw):
    """``rows`` in the import format ``fmt``; JSON and YAML cells sometimes of another type. Without NUL characters:
    NetBox's own BulkImportForm.clean reads ``cleaned_data['data']`` after the field refused a NUL (a KeyError, a 500
    in every NetBox import), not the plugin's to fix."""
    rows = [{k: v.replace('\x00', '') for k, v in row.items()} for row in rows]
    if fmt == 'csv':
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator='\n')
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    rows = [
        {k: draw(OTHER_TYPES) if k != 'id' and draw(st.integers(0, 5)) == 0 else v for k, v in row.items()}
        for row in rows
    ]
    return json.dumps(rows) if fmt == 'json' else yaml.safe_dump(rows)


def written():
    return TrafficFlow.objects.count(), ObjectChange.objects.count()


class TrafficInputFuzzTestCase(HypothesisTestCase, APITestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.classes = list(TrafficClass.objects.values_list('pk', flat=True))

    def setUp(self):
        # hypothesis runs setUp per example, inside the test's transaction: the previous example's user is still there
        User.objects.filter(username='testuser').delete()
        super().setUp()
        self.user.is_superuser = True  # permissions refuse nothing: every path of the import runs
        self.user.save()

    def assert_matrix_answers(self):
        """The Traffic tab, its loads CSV, REST's traffic and bom: a 200, or a 400 naming a flow's field."""
        tab = reverse('plugins:netbox_aifabric:fabric_traffic', kwargs={'pk': self.fabric.pk})
        self.assertEqual(self.client.get(tab).status_code, 200)
        export = self.client.get(tab + '?export=csv')
        self.assertIn(export.status_code, (200, 400))
        if export.status_code == 400:
            self.assertRegex(export.content.decode().split(':')[0], FLOW_FIELD)
        for action in ('traffic', 'bom'):
            response = self.client.get(f'{API}fabrics/{self.fabric.pk}/{action}/', **self.header)
            self.assertIn(response.status_code, (200, 400), f'{action}: {response.content[:500]!r}')
            if response.status_code == 400:
                (field,) = response.data
                self.assertRegex(field, FLOW_FIELD)
                event(f'{action}: {field.split(".")[-1]} refused')

    @FUZZ
    @given(rows=records(), fmt=st.sampled_from(['csv', 'json', 'yaml']), data=st.data())
    def test_bulk_import(self, rows, fmt, data):
        self.client.force_login(self.user)  # (the test client exists once setUp has run: not in it)
        text = as_text(rows, fmt, data.draw)
        before = written()
        url = reverse('plugins:netbox_aifabric:trafficflow_bulk_import')
        response = self.client.post(url, {'data': text, 'format': fmt, 'csv_delimiter': ','})
        self.assertLess(response.status_code, 500)
        if response.status_code == 302:
            event('imported')
            self.assertEqual(written()[0], before[0] + len(rows))
            self.assert_matrix_answers()
            return
        form = response.context['form']
        event('refused')
        self.assertTrue(form.errors, 'the import answered its form again without an error')
        self.assertEqual(written(), before, 'a refused import wrote')
        fields = set(TrafficFlowImportForm().fields)
        for field, messages in form.errors.items():
            if field != '__all__':
                self.assertIn(field, FORM_FIELDS)
                continue
            for message in messages:  # a record's error names its column
                named = RECORD.match(message)
                column = named and (named.group(1) or named.group(2) or (named.group(3) and 'id'))
                self.assertTrue(column in fields | {'id', 'bogus'}, f'not named: {message!r} ({text!r})')

    @FUZZ
    @given(data=st.data())
    def test_rest_bodies(self, data):
        self.client.force_login(self.user)
        body = {  # a valid flow, then none to three fields changed to anything, or left out
            'fabric': self.fabric.pk,
            'source_group': 'gpu',
            'destination_group': 'storage',
            'gbps': 10,
            'burstiness': 'bursty',
            'source_class': self.classes[0],
            'destination_class': self.classes[-1],
            'description': 'fuzz',
        }
        anything = {
            'fabric': st.one_of(st.integers(-1, 9999), OTHER_TYPES, st.text(max_size=4)),
            'source_class': st.one_of(st.sampled_from(self.classes), st.integers(-1, 9999), OTHER_TYPES),
            'destination_class': st.one_of(st.sampled_from(self.classes), st.integers(-1, 9999), OTHER_TYPES),
            'gbps': st.one_of(COLUMNS['gbps'], st.decimals().map(str), OTHER_TYPES),
        }
        for key in data.draw(st.lists(st.sampled_from(sorted(body)), max_size=3, unique=True), label='changed'):
            if data.draw(st.integers(0, 5), label='drop') == 0:
                body.pop(key)
            else:
                body[key] = data.draw(anything.get(key, st.one_of(COLUMNS.get(key, st.none()), OTHER_TYPES)), label=key)
        before = written()
        response = self.client.post(
            f'{API}traffic-flows/', json.dumps(body), content_type='application/json', **self.header
        )
        self.assertLess(response.status_code, 500, f'{body!r}: {response.content[:1000]!r}')
        if response.status_code == 201:
            event('created')
            self.assert_matrix_answers()
            return
        event(f'refused: {sorted(response.data)}')
        self.assertEqual(response.status_code, 400)
        self.assertEqual(written(), before, 'a refused flow wrote')
        self.assertLessEqual(set(response.data), set(body) | set(COLUMNS), f'{body!r}: {response.data!r}')

    @settings(max_examples=examples(20), deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(
        spares=st.one_of(
            st.sampled_from(['0', '100', '10', '100.0001', '-0', 'nan', 'inf', '1e999', '', ' 5', '5%', '٣', '0x10']),
            st.floats().map(str),
            st.text(max_size=6),
        )
    )
    def test_bom_spares_percent(self, spares):
        """The BOM tab, its CSV and REST's bom (JSON and CSV): a 200, or a named error on ``spares_percent``."""
        self.client.force_login(self.user)
        query = f'?spares_percent={quote(spares)}'
        tab = reverse('plugins:netbox_aifabric:fabric_bom', kwargs={'pk': self.fabric.pk})
        page = self.client.get(tab + query)
        self.assertEqual(page.status_code, 200)
        for url in (tab + query + '&export=csv', f'{API}fabrics/{self.fabric.pk}/bom/{query}&format=csv'):
            response = self.client.get(url, **self.header)
            self.assertIn(response.status_code, (200, 400), url)
            if response.status_code == 400:
                self.assertIn(b'spares_percent', response.content)
                self.assertIn(b'spares_percent', page.content)  # the tab names it too
        response = self.client.get(f'{API}fabrics/{self.fabric.pk}/bom/{query}', **self.header)
        self.assertIn(response.status_code, (200, 400))
        if response.status_code == 400:
            self.assertEqual(list(response.data), ['spares_percent'])
