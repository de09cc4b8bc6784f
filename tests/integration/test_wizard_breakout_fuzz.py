"""Property: arbitrary text in the wizard's breakout fields (``leaf_breakouts``, ``spine_breakouts``: entries like
"swp1..swp8:4x25G", written to ``port_map.<role>.breakout``), with or without the roles' device types, never causes a
server error. The topology step either moves on, or answers with errors only at the breakout and device-type fields,
and writes nothing (no fabric, node, prefix, ASN range, device or change-log entry). An entry list the step accepts
then creates a fabric whose port map holds exactly the entries typed, or is refused at create with nothing written.

Every example walks the wizard's first steps in the database (a savepoint rolled back after it): the counts stay small
(``tests/hypothesis_profiles.py``: the quick profile runs a quarter, CI's full profile all)."""

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from core.models import ObjectChange
from dcim.models import Device, DeviceType
from ipam.models import ASNRange, Prefix

from netbox_aifabric.apply.seed import load_device_types
from netbox_aifabric.models import Fabric, FabricNode
from tests.hypothesis_profiles import examples
from tests.integration.test_wizard import WizardBase, url
from tests.integration.test_wizard_fields import HARDWARE

pytestmark = pytest.mark.netbox

BREAKOUT_FIELDS = ('leaf_breakouts', 'spine_breakouts')
# the fields a breakout error may be named at: its own, or the device type whose ports it splits
NAMED = {*BREAKOUT_FIELDS, 'leaf_device_type', 'spine_device_type'}

PORT = st.one_of(
    st.sampled_from(['swp1', 'swp8', 'swp31', 'swp32', 'swp33', 'swp0', 'swp1s0', 'Ethernet49/1', 'Ethernet0', 'SWP2']),
    st.text(alphabet='swpEthernet0123456789/.: ', max_size=8),
)
PORTS = st.one_of(PORT, st.builds(lambda a, b: f'{a}..{b}', PORT, PORT))
LANES = st.one_of(st.sampled_from([0, 1, 2, 3, 4, 8, 16, 99, -4]).map(str), st.sampled_from(['', 'x', '4.0', '٤']))
SPEED = st.one_of(st.sampled_from([1, 10, 25, 50, 100, 200, 400, 0]).map(str), st.sampled_from(['', 'G', '25.5']))
SUFFIX = st.sampled_from(['G', 'G', 'g', '', 'Gb', 'G ', ' G'])
ENTRY = st.one_of(
    st.builds(lambda p, n, s, g: f'{p}:{n}x{s}{g}', PORTS, LANES, SPEED, SUFFIX),
    st.sampled_from(['swp1..swp8:4x25G', 'swp1:4x25G', 'swp1..swp4:2x50G', 'swp9:4x10G', 'swp1:4x50G', ':', '..']),
    st.text(max_size=20),
)
SEPARATOR = st.sampled_from([',', ', ', '\n', '\r\n', ';', ' ', ',,'])
BREAKOUTS = st.one_of(
    st.builds(lambda entries, sep: sep.join(entries), st.lists(ENTRY, max_size=4), SEPARATOR),
    st.sampled_from(['', ' ', '\x00', 'swp1\x00:4x25G', 'x' * 3000, 'swp1..swp8:4x25G,' * 40]),
    st.text(max_size=60),
)


def written():
    return tuple(model.objects.count() for model in (Fabric, FabricNode, Prefix, ASNRange, Device, ObjectChange))


class WizardBreakoutFuzzTestCase(HypothesisTestCase, WizardBase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        load_device_types()
        cls.device_types = [None, *DeviceType.objects.order_by('pk').values_list('pk', flat=True)]  # the shipped ones

    def setUp(self):
        pass  # each example logs in afresh: its session is rolled back with it

    def topology(self, data):
        """The topology step of the guide's cluster sized for a 32-port switch; device types and breakouts drawn."""
        fields = {**self.steps['topology'], **HARDWARE}
        for role in ('leaf', 'spine'):
            fields[f'{role}_device_type'] = data.draw(st.sampled_from(self.device_types), label=f'{role} type') or ''
            fields[f'{role}_breakouts'] = data.draw(BREAKOUTS, label=f'{role} breakouts')
        return fields

    @settings(max_examples=examples(60), deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def test_breakouts_end_in_a_named_error_or_the_fabric_holds_them(self, data):
        self.client.force_login(self.user)
        self.walk(until='design')
        fields = self.topology(data)
        before = written()
        response = self.client.post(url('topology'), fields)
        self.assertLess(response.status_code, 500)
        if response.status_code == 200:
            errors = set(response.context['form'].errors)
            event(f'refused at {sorted(errors)}')
            self.assertTrue(errors, 'answered 200 without an error')
            self.assertLessEqual(errors, NAMED, f'{fields["leaf_breakouts"]!r} / {fields["spine_breakouts"]!r}')
            self.assertEqual(written(), before, 'a refused topology step wrote')
            return
        self.assertRedirects(response, url('pools'), fetch_redirect_response=False)
        self.assertEqual(written(), before, 'the topology step writes nothing')
        event('accepted')
        self.create(fields)

    def create(self, fields):
        """Walk on and create: the fabric's port map holds each role's entries as typed, or nothing is written."""
        for step in ('pools', 'intent'):
            self.client.post(url(step), self.steps[step])
        self.assertLess(self.client.get(url('preview')).status_code, 500)
        before = written()
        response = self.client.post(url('preview'), {'_create': '1'})
        self.assertLess(response.status_code, 500)
        fabric = Fabric.objects.filter(slug=self.steps['design']['slug']).first()
        if response.status_code != 302:
            self.assertIsNone(fabric)
            self.assertEqual(written(), before, 'a refused create wrote')
            return
        expected = {}
        for field in BREAKOUT_FIELDS:
            entries = [e.strip() for line in fields[field].splitlines() for e in line.split(',') if e.strip()]
            if entries:
                expected[field.split('_')[0]] = {'breakout': entries}
        self.assertEqual(fabric.port_map, expected)
