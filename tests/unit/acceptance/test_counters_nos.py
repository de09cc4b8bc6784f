"""Arista EOS (JSON) and NVIDIA NVUE (text tables) counter snapshots parsed and judged before/after a load: error
counters and lossless-queue discards must stay zero, PFC pause frames only on the lossless priority, ECN marks
reported; a negative control per NOS; text of another format (or NVUE's undocumented JSON) is a named error; a fuzz.

The fixtures are written by hand in the documented shapes (fixtures/README.md names the source of each); expectations
are read from the fixtures by other means than the parsers (json.loads, a split per line)."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netbox_aifabric.acceptance.counters import COUNTER_TOOLS, judge_counters
from netbox_aifabric.acceptance.counters_nos import (
    EOS_ERROR_FIELDS,
    parse_eos_ecn,
    parse_eos_errors,
    parse_eos_pfc,
    parse_nvue_ecn,
    parse_nvue_errors,
    parse_nvue_pfc,
    parse_nvue_queue,
)
from netbox_aifabric.acceptance.judge import UploadError, Verdict
from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.pure

FIXTURES = Path(__file__).parent / 'fixtures'
LOSSLESS = (3,)


def fixture(name):
    return (FIXTURES / name).read_text()


def judge(tool, name, variant=''):
    ext = 'json' if tool.startswith('eos') else 'txt'
    return judge_counters(tool, fixture(f'{name}_after{variant}.{ext}'), fixture(f'{name}_before.{ext}'), LOSSLESS, 'x')


def table(name):
    """An NVUE fixture's rows below its rule, split on runs of two spaces or more (not the parser's regexes)."""
    lines = fixture(name).splitlines()
    start = next(i for i, line in enumerate(lines) if set(line.strip()) <= {'-', ' '} and line.strip()) + 1
    return [[cell.strip() for cell in line.split('  ') if cell.strip()] for line in lines[start:]]


# EOS


def test_eos_errors_parse_every_interface_and_fail_on_growth():
    raw = json.loads(fixture('eos_errors_after.json'))['interfaceErrorCounters']
    assert parse_eos_errors(fixture('eos_errors_after.json')) == {
        p: {k: c[k] for k in EOS_ERROR_FIELDS} for p, c in raw.items()
    }
    ok = judge('eos-errors', 'eos_errors')
    assert (ok.status, ok.category, ok.value) == ('passed', 'physical-errors', 0)
    before = json.loads(fixture('eos_errors_before.json'))['interfaceErrorCounters']
    after = json.loads(fixture('eos_errors_after_fcs.json'))['interfaceErrorCounters']
    grew = {(p, k): after[p][k] - before[p][k] for p in after for k in EOS_ERROR_FIELDS if after[p][k] != before[p][k]}
    bad = judge('eos-errors', 'eos_errors', '_fcs')  # the negative control: FCS errors grew on one port
    assert (bad.status, bad.value) == ('failed', sum(grew.values()))
    assert bad.seen.endswith('-> ' + '; '.join(f'{p} {k} +{n}' for (p, k), n in grew.items()))


def test_eos_pfc_per_priority_reports_the_lossless_growth_and_fails_another_priority():
    def frames(name, key):
        ports = json.loads(fixture(name))['interfaces']
        return {(port, int(p)): c[key] for port, e in ports.items() for p, c in e['priorities'].items()}

    parsed = parse_eos_pfc(fixture('eos_pfc_after.json'))
    assert {(port, p): v[p] for port, v in parsed['rx'].items() for p in range(8)} == frames(
        'eos_pfc_after.json', 'rxFrames'
    )
    growth = sum(
        frames('eos_pfc_after.json', key)[k] - frames('eos_pfc_before.json', key)[k]
        for key in ('rxFrames', 'txFrames') for k in frames('eos_pfc_after.json', key) if k[1] in LOSSLESS
    )  # fmt: skip
    ok = judge('eos-pfc', 'eos_pfc')
    assert (ok.status, ok.category, ok.value) == ('passed', 'roce-pfc', growth)
    bad = judge('eos-pfc', 'eos_pfc', '_wrong_priority')  # the negative control: pause frames on priority 4
    assert bad.status == 'failed' and bad.seen.endswith('-> rx Ethernet1/1 PFC4 +19')


def test_eos_ecn_reports_marks_on_the_lossless_queue_only():
    def marks(name):
        ports = json.loads(fixture(name))['intfQueueCounters']
        return sum(e['queueCounters'][str(LOSSLESS[0])] for e in ports.values())

    assert parse_eos_ecn(fixture('eos_ecn_after.json'))['Ethernet1/1', '0'] == 9
    v = judge('eos-ecn', 'eos_ecn')
    assert (v.status, v.category, v.value) == (
        'passed',
        'roce-ecn',
        marks('eos_ecn_after.json') - marks('eos_ecn_before.json'),
    )


def test_the_runbooks_command_header_before_eos_json_is_skipped():
    text = '# show qos interfaces ecn counters queue | json\n' + fixture('eos_ecn_after.json')
    assert parse_eos_ecn(text) == parse_eos_ecn(fixture('eos_ecn_after.json'))


# NVUE


def test_nvue_errors_fail_on_growth_and_total_is_not_counted_twice():
    rows = {r[0]: r[1:] for r in table('nvue_errors_after_fcs.txt')}
    parsed = parse_nvue_errors(fixture('nvue_errors_after_fcs.txt'))
    assert {k: v['rx'] for k, v in parsed.items()} == {k: int(v[0]) for k, v in rows.items()}
    assert judge('nvue-errors', 'nvue_errors').status == 'passed'
    before = {r[0]: int(r[1]) for r in table('nvue_errors_before.txt')}
    bad = judge('nvue-errors', 'nvue_errors', '_fcs')  # the negative control: FCS errors grew
    assert (bad.status, bad.category) == ('failed', 'physical-errors')
    assert bad.value == int(rows['FCS Errors'][0]) - before['FCS Errors']
    assert bad.seen.endswith(f'-> this port FCS Errors rx +{bad.value:g}')


def test_nvue_pfc_reports_the_lossless_growth_and_fails_another_priority():
    after, before = table('nvue_pfc_after.txt'), table('nvue_pfc_before.txt')
    parsed = parse_nvue_pfc(fixture('nvue_pfc_after.txt'))
    assert parsed['rx']['this port'] == [int(r[1]) for r in after] and parsed['tx']['this port'] == [
        int(r[3]) for r in after
    ]
    growth = sum(
        int(a[i]) - int(b[i]) for a, b in zip(after, before, strict=True) if int(a[0]) in LOSSLESS for i in (1, 3)
    )
    ok = judge('nvue-pfc', 'nvue_pfc')
    assert (ok.status, ok.category, ok.value) == ('passed', 'roce-pfc', growth)
    bad = judge('nvue-pfc', 'nvue_pfc', '_wrong_priority')  # the negative control: pause frames sent on priority 0
    assert bad.status == 'failed' and bad.seen.endswith('-> tx this port PFC0 +8')


def test_nvue_queue_discards_on_the_lossless_class_fail_only():
    parsed = parse_nvue_queue(fixture('nvue_queue_after.txt'))
    assert parsed['this port', 'TC0']['buffer_discards'] == round(1.5 * 1024)  # "1.50 KB"
    assert parsed['this port', 'TC3']['tx_frames'] == int(table('nvue_queue_after.txt')[3][1])
    ok = judge('nvue-queue', 'nvue_queue')  # TC0's discards are lossy traffic's
    assert (ok.status, ok.category, ok.value) == ('passed', 'roce-queue-drops', 0)
    bad = judge('nvue-queue', 'nvue_queue', '_lossless_drops')  # the negative control: TC3 discarded 12 KB
    assert (bad.status, bad.value) == ('failed', 12 * 1024)
    assert bad.seen.endswith(f'-> this port TC3 tx-uc-buffer-discards +{12 * 1024}')


def test_nvue_ecn_reports_the_marked_packets():
    def marked(name):
        return int(next(r for r in table(name) if r[0] == 'ECN Marked Packets')[2])

    assert parse_nvue_ecn(fixture('nvue_ecn_after.txt')) == marked('nvue_ecn_after.txt')
    v = judge('nvue-ecn', 'nvue_ecn')
    assert (v.status, v.value) == ('passed', marked('nvue_ecn_after.txt') - marked('nvue_ecn_before.txt'))


def test_nvue_sections_inside_the_whole_counters_output_parse():
    """The same tables indented under their section titles, as ``nv show interface <port> counters qos`` prints them
    (the NVUE reference's example), behind the runbook's ``# <command>`` line."""
    indent = '\n'.join('    ' + line for line in fixture('nvue_pfc_after.txt').splitlines())
    text = (
        f'# nv show interface swp1 counters qos\nPFC Statistics\n=================\n{indent}\n\nQos Port Statistics\n'
    )
    assert parse_nvue_pfc(text) == parse_nvue_pfc(fixture('nvue_pfc_after.txt'))


# named errors


@pytest.mark.parametrize(
    ('tool', 'text', 'message'),
    [
        (
            'eos-errors',
            fixture('nvue_errors_after.txt'),
            'not "show interfaces counters errors | json" output (invalid',
        ),
        ('eos-errors', '{"interfaces": {}}', 'not "show interfaces counters errors | json" output: no "interfaceErr'),
        ('eos-errors', '{"interfaceErrorCounters": {"Ethernet1": {"fcsErrors": 1}}}', 'show interfaces counters error'),
        ('eos-pfc', '{"interfaceCounters": {"Ethernet1": {"rxFrames": 1, "txFrames": 2}}}', 'PFC counters without pr'),
        ('eos-pfc', '{"interfaces": {"Ethernet1": {"priorities": {"3": {}}}}}', 'show interfaces <port> priority-flo'),
        ('eos-pfc', '[1, 2]', 'not "show interfaces <port> priority-flow-control counters detail | json" output: a'),
        ('eos-ecn', fixture('eos_errors_after.json'), 'not "show qos interfaces ecn counters queue | json" output'),
        ('eos-ecn', fixture('eos_ecn_after.json').replace('"3"', '"9"'), 'no lossless queue (3)'),
        ('eos-ecn', '{"intfQueueCounters": {"Et1": {"queueCounters": {"3": -1}}}}', 'show qos interfaces ecn counters'),
        ('nvue-errors', fixture('eos_errors_after.json'), 'not "nv show interface <port> counters errors" output'),
        ('nvue-pfc', json.dumps({str(p): {'rx-pause-frames': 0} for p in range(8)}), 'not "nv show interface <port> c'),
        ('nvue-queue', fixture('nvue_pfc_after.txt'), 'not "nv show interface <port> counters qos egress-queue-stats"'),
        (
            'nvue-queue',
            fixture('nvue_queue_after.txt').replace('\n3 ', '\n9 '),
            'egress-queue-stats: no readable row for tr',
        ),
        ('nvue-ecn', fixture('nvue_errors_after.txt'), 'not "nv show interface <port> counters qos port-stats" output'),
    ],
)
def test_another_format_is_a_named_error(tool, text, message):
    with pytest.raises(UploadError) as e:
        judge_counters(tool, text, None, LOSSLESS)
    assert e.value.field == 'output' and e.value.message.startswith(message), e.value.message


def test_a_bad_before_names_before():
    with pytest.raises(UploadError) as e:
        judge_counters('eos-pfc', fixture('eos_pfc_after.json'), fixture('nvue_pfc_before.txt'), LOSSLESS)
    assert e.value.field == 'before'


# fuzz

SAMPLES = [p.read_text() for p in sorted(FIXTURES.glob('*')) if p.name.startswith(('eos_', 'nvue_'))]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


@st.composite
def outputs(draw):
    how = draw(st.sampled_from(('cut', 'text', 'json', 'swap', 'lines')))
    sample = draw(st.sampled_from(SAMPLES))
    if how == 'cut':
        return sample[: draw(st.integers(min_value=0, max_value=len(sample)))]
    if how == 'text':
        return draw(st.text(max_size=400))
    if how == 'json':
        return json.dumps(draw(json_values))
    if how == 'swap' and sample.startswith('{'):  # one interface's counters replaced by an arbitrary value
        data = json.loads(sample)
        key = next(iter(data))
        port = next(iter(data[key]))
        data[key][port] = draw(json_values)
        return json.dumps(data)
    lines = sample.splitlines()  # a line of the table replaced by arbitrary text
    lines[draw(st.integers(min_value=0, max_value=len(lines) - 1))] = draw(st.text(max_size=60))
    return '\n'.join(lines)


@settings(max_examples=examples(600), deadline=None)
@given(tool=st.sampled_from(COUNTER_TOOLS), output=outputs() | json_values, before=st.none() | outputs())
def test_fuzz_any_upload_is_a_verdict_or_a_named_error(tool, output, before):
    try:
        verdict = judge_counters(tool, output, before, LOSSLESS, 'x')
    except UploadError as e:
        assert e.field in ('output', 'before') and e.message
        return
    assert isinstance(verdict, Verdict) and verdict.status in ('passed', 'failed')


BIG = '9' * 400


@pytest.mark.parametrize(
    ('tool', 'text'),
    [
        ('ethtool', f'NIC statistics:\n     rx_prio3_pause: {BIG}\n'),
        ('eos-errors', json.dumps({'interfaceErrorCounters': {'Et1': dict.fromkeys(EOS_ERROR_FIELDS, 2**64)}})),
        ('eos-pfc', json.dumps({'interfaces': {'Et1': {'priorities': {'3': {'rxFrames': int(BIG), 'txFrames': 0}}}}})),
        ('nvue-ecn', f'Counter  Receive  Transmit\n-------  -------  --------\nECN Marked Packets  n/a  {BIG}\n'),
        ('nvue-pfc', fixture('nvue_pfc_after.txt').replace('2020 ', f'{BIG} ')),
        ('nvue-queue', fixture('nvue_queue_after.txt').replace('5120000', BIG)),
    ],
)
def test_a_number_no_counter_can_hold_is_a_named_error(tool, text):
    """400 digits (or 2**64): float() of it overflows; a named error, never an OverflowError (a 500 over REST)."""
    with pytest.raises(UploadError) as e:
        judge_counters(tool, text, None, LOSSLESS)
    assert e.value.field == 'output', e.value.message
