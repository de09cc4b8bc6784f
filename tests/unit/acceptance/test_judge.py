"""Uploaded tool output judged against the plan, pure: real iperf3 --json and ping output made on this machine
(fixtures/README.md says how), the pair's line rate and kind from the guide's plans, and a fuzz: arbitrary input is
an ``UploadError`` naming its field, never another exception."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netbox_aifabric.acceptance.judge import (
    MIN_LINE_RATE_FRACTION,
    SPIKE_MS,
    PairRate,
    UploadError,
    judge_iperf3,
    judge_ping,
    pair_rate,
    parse_ping,
)
from tests.hypothesis_profiles import examples
from tests.render_fixtures import guide_spec, plan_of

pytestmark = pytest.mark.pure

FIXTURES = Path(__file__).parent / 'fixtures'


def text(name):
    return (FIXTURES / name).read_text()


def received(name):
    return json.loads(text(name))['end']['sum_received']['bits_per_second'] / 1e9


def rate(gbps):
    return PairRate('a', 'b', gbps, 'throughput-same-leaf', 'test')


def summary_numbers(name):
    """(sent, received, min, max) read from the fixture's two summary lines by splitting, not by the parser."""
    lines = text(name).strip().splitlines()
    stats = next(line for line in lines if 'packets transmitted' in line).split(', ')
    rtt = next((line for line in lines if line.startswith('rtt ')), None)
    low, _avg, high, _ = rtt.split(' = ')[1].split(' ')[0].split('/') if rtt else (None, None, None, None)
    return int(stats[0].split()[0]), int(stats[1].split()[0]), low and float(low), high and float(high)


@pytest.mark.parametrize('name', ['iperf3_p8_ok.json', 'iperf3_p8_capped.json', 'iperf3_p8_shaped_200m.json'])
def test_iperf3_judged_as_a_fraction_of_the_line_rate(name):
    measured = received(name)
    at_line_rate = judge_iperf3(text(name), rate(measured / MIN_LINE_RATE_FRACTION * 0.999))  # just within
    twice = judge_iperf3(text(name), rate(2 * measured))
    assert (at_line_rate.status, twice.status) == ('passed', 'failed')
    assert twice.value == pytest.approx(measured, abs=0.001)
    assert '50%' in twice.seen and '8 streams' in twice.seen


def test_iperf3_error_is_named_not_judged():
    with pytest.raises(UploadError) as e:
        judge_iperf3(text('iperf3_refused.json'), rate(25))
    assert e.value.field == 'output' and 'Connection refused' in e.value.message


@pytest.mark.parametrize('name', sorted(p.name for p in FIXTURES.glob('ping_*.txt')))
def test_ping_fixture_loss_and_spike(name):
    sent, got, low, high = summary_numbers(name)
    verdict = judge_ping(text(name), 'gpu1 -> gpu2')
    spike = high is not None and high - low > SPIKE_MS
    assert verdict.status == ('failed' if got < sent or spike else 'passed'), verdict.seen
    assert f'{sent} sent, {got} received' in verdict.seen
    assert ('a spike' in verdict.seen) == spike


def test_a_spike_fails_though_the_average_is_low():
    """ping_during_load: 0 % loss, but queues built up under iperf3: the max is what fails it."""
    found = parse_ping(text('ping_during_load.txt'))
    assert found['loss'] == 0 and found['max'] > found['min'] + SPIKE_MS
    assert judge_ping(text('ping_during_load.txt'), 'x').status == 'failed'


def test_jumbo_ping_is_an_mtu_check_and_one_byte_more_fails():
    ok, too_big = judge_ping(text('ping_jumbo_ok.txt'), 'x'), judge_ping(text('ping_jumbo_too_big.txt'), 'x')
    assert (ok.category, ok.status, too_big.status) == ('mtu', 'passed', 'failed')
    assert 'message too long' in too_big.seen and '8972(9000)' in ok.seen


def _bonds(plan):
    out = {}
    for link in plan.links:
        if link.kind == 'server':
            out.setdefault(link.b_node, []).append((link.a_node, link.speed))
    return out


@pytest.mark.parametrize('guide', ['routed', 'evpn-vxlan', 'mlag'])
def test_pair_rate_from_the_plan(guide):
    plan = plan_of(guide_spec(guide))
    bonds = _bonds(plan)
    kinds = {a.server: a.kind for a in plan.attachments}
    for a in sorted(bonds):
        for b in sorted(bonds):
            if a == b:
                continue
            pair = pair_rate(plan, a, b)
            assert pair.gbps == min(sum(s for _, s in bonds[a]), sum(s for _, s in bonds[b]))
            shared = {leaf for leaf, _ in bonds[a]} & {leaf for leaf, _ in bonds[b]}
            if 'storage' in (kinds[a], kinds[b]):
                assert pair.category == 'throughput-storage'
            else:
                assert pair.category == ('throughput-same-leaf' if shared else 'throughput-leaf-to-leaf')


def test_pair_rate_names_a_bad_pair():
    plan = plan_of(guide_spec('routed'))
    server = next(iter(_bonds(plan)))
    for args, field in (
        ((server, 'nobody'), 'destination'),
        (('leaf1', server), 'source'),
        ((server, server), 'destination'),
    ):
        with pytest.raises(UploadError) as e:
            pair_rate(plan, *args)
        assert e.value.field == field


anything = st.one_of(
    st.text(max_size=400),
    st.sampled_from([p.read_text() for p in FIXTURES.glob('*.*') if p.suffix != '.md']).flatmap(
        lambda t: st.integers(min_value=0, max_value=len(t)).map(lambda n: t[:n])
    ),
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=20),
        lambda c: (
            st.lists(c, max_size=3)
            | st.dictionaries(
                st.sampled_from(['end', 'sum_received', 'bits_per_second', 'error', 'start']), c, max_size=3
            )
        ),
        max_leaves=8,
    ).map(json.dumps),
    st.builds(  # iperf3's shape with any value where the figure is
        lambda v: json.dumps({'end': {'sum_received': {'bits_per_second': v, 'seconds': v}}}),
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=5) | st.lists(st.integers()),
    ),
    st.none(),
    st.integers(),
)


@settings(max_examples=examples(400), deadline=None)
@given(output=anything, gbps=st.integers(min_value=1, max_value=800))
def test_fuzz_any_input_is_a_verdict_or_a_named_error(output, gbps):
    for judge in (lambda: judge_iperf3(output, rate(gbps)), lambda: judge_ping(output, 'x')):
        try:
            verdict = judge()
        except UploadError as e:
            assert e.field == 'output' and e.message
        else:
            assert verdict.status in ('passed', 'failed')
