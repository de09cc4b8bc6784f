"""perftest reports parsed and judged against the plan, pure: fixtures written in the print formats of perftest's own
source (fixtures/README.md), negative controls (a bandwidth under the threshold, a latency spike, a wrong ToS), every
other shape refused by a named ``UploadError``, the RDMA pairs and their link rate from the guide's plans, and a fuzz:
arbitrary input is a verdict or an ``UploadError`` on ``output``, never another exception."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netbox_aifabric.acceptance.judge import RDMA_TOOLS, TOOLS, UploadError
from netbox_aifabric.acceptance.rdma import (
    MIN_RDMA_FRACTION,
    RDMA_BW_TOOLS,
    RDMA_SPIKE_US,
    RdmaPair,
    judge_rdma_bw,
    judge_rdma_lat,
    lossless_tos,
    parse_perftest_bw,
    rdma_nics,
    rdma_pair,
    rdma_pairs,
)
from netbox_aifabric.facts.qos import qos_facts
from tests.hypothesis_profiles import examples
from tests.render_fixtures import guide_intent, guide_spec, plan_of, single_leaf_racks_spec

pytestmark = pytest.mark.pure

FIXTURES = Path(__file__).parent / 'fixtures'
BW_OK, BW_LOW, BW_MIB = 'perftest_write_bw_ok.txt', 'perftest_write_bw_low.txt', 'perftest_write_bw_mib.txt'
LAT_OK, LAT_SPIKE, READ_OK = 'perftest_send_lat_ok.txt', 'perftest_send_lat_spike.txt', 'perftest_read_lat_ok.txt'


def text(name):
    return (FIXTURES / name).read_text()


def row_after(name, header_start):
    """The numbers of the first row under the header, read by splitting, not by the parser (warnings skipped)."""
    lines = text(name).splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == [header_start])
    return [float(v) for v in next(li for li in lines[at + 1 :] if li.split()[0].isdigit()).split()]


def pair(gbps):
    return RdmaPair('gpu1:rdma1', 'gpu3:rdma1', gbps, 'rdma-same-leaf', 'test')


def printed_tos(name):
    return int(next(line for line in text(name).splitlines() if 'TOS' in line).split(':')[-1])


@pytest.mark.parametrize('name', [BW_OK, BW_LOW])
def test_bandwidth_judged_as_a_fraction_of_the_rdma_link_rate(name):
    measured = row_after(name, '#bytes')[3]  # BW average[Gb/sec]
    just_within = judge_rdma_bw(text(name), pair(measured / MIN_RDMA_FRACTION * 0.999))
    just_over = judge_rdma_bw(text(name), pair(measured / MIN_RDMA_FRACTION * 1.001))
    assert (just_within.status, just_over.status) == ('passed', 'failed')
    assert just_within.value == pytest.approx(measured)
    assert just_within.category == 'rdma-same-leaf' and just_within.subject == 'gpu1:rdma1 -> gpu3:rdma1'


def test_a_100g_pair_passes_at_97_and_fails_at_61_gbps():
    assert judge_rdma_bw(text(BW_OK), pair(100)).status == 'passed'
    low = judge_rdma_bw(text(BW_LOW), pair(100))
    assert low.status == 'failed' and '61%' in low.seen


def test_the_lossless_tos_is_checked_where_perftest_prints_it():
    tos = printed_tos(BW_OK)
    assert judge_rdma_bw(text(BW_OK), pair(100), tos=tos).status == 'passed'
    other = judge_rdma_bw(text(BW_OK), pair(100), tos=tos + 4)  # another DSCP
    assert other.status == 'failed' and f'ran with ToS {tos}' in other.seen
    unprinted = text(BW_OK).replace(f'TOS    : {tos}', '')
    assert judge_rdma_bw(unprinted, pair(100), tos=tos + 4).status == 'passed'  # not printed: not judged


def test_bandwidth_in_mib_is_refused_not_converted():
    with pytest.raises(UploadError) as e:
        parse_perftest_bw(text(BW_MIB))
    assert e.value.field == 'output' and '--report_gbits' in e.value.message


@pytest.mark.parametrize(('name', 'tool'), [(LAT_OK, 'ib_send_lat'), (READ_OK, 'ib_read_lat')])
def test_latency_without_a_spike_passes(name, tool):
    numbers = row_after(name, '#bytes')
    verdict = judge_rdma_lat(text(name), 'gpu1 -> gpu3', tos=printed_tos(name), tool=tool)
    assert verdict.status == 'passed' and verdict.category == 'rdma-latency'
    assert verdict.value == numbers[4]  # t_typical, the median
    assert numbers[8] - numbers[4] <= RDMA_SPIKE_US  # the fixture's tail is within the mark by its own numbers


def test_a_latency_spike_fails_though_the_median_is_low():
    numbers = row_after(LAT_SPIKE, '#bytes')
    assert numbers[8] - numbers[4] > RDMA_SPIKE_US
    verdict = judge_rdma_lat(text(LAT_SPIKE), 'gpu1 -> gpu3')
    assert verdict.status == 'failed' and 'a spike' in verdict.seen
    assert judge_rdma_lat(text(LAT_SPIKE), 'x', spike_us=numbers[8] - numbers[4] + 0.01).status == 'passed'


def test_the_maximum_alone_is_reported_not_judged():
    """perftest's README: the first sample, the warm-up, is typically the maximum."""
    numbers = row_after(LAT_OK, '#bytes')
    assert numbers[3] > numbers[4] + 5
    verdict = judge_rdma_lat(text(LAT_OK), 'x', spike_us=5)
    assert verdict.status == 'passed' and f'max {numbers[3]:g}' in verdict.seen


LAT_HEADER_START = ' #bytes #iterations    '
REFUSED = [
    # (tool, output, what the message names)
    ('ib_write_bw', '{"results": {"BW_average": 97.6}}', 'JSON'),
    ('ib_send_lat', '[]', 'JSON'),
    ('ib_read_lat', text(LAT_OK), 'Send Latency Test'),  # the wrong tool's report
    ('ib_write_bw', text(LAT_OK), 'Send Latency Test'),
    ('ib_write_bw', text(LAT_OK).replace('Send Latency Test', ''), 'latency table'),
    ('ib_send_lat', text(BW_OK), 'RDMA_Write BW Test'),
    ('ib_send_lat', text(BW_OK).replace('RDMA_Write BW Test', ''), 'bandwidth table'),
    ('ib_write_bw', text(BW_OK).replace('RDMA_Write BW', 'RDMA_Write Bidirectional BW'), '-b'),
    ('ib_write_bw', text(BW_OK).split(' 65536')[0], 'no result row'),
    ('ib_send_lat', text(LAT_OK).replace('[usec]', '[cycles]'), '-C'),
    # RESULT_FMT_LAT_DUR and the five-column RESULT_FMT_LAT of older releases (src/perftest_parameters.h)
    ('ib_send_lat', LAT_HEADER_START + 't_avg[usec]    tps average\n 2   123456   1.70   290000.00\n', '-D'),
    (
        'ib_send_lat',
        LAT_HEADER_START + 't_min[usec]    t_max[usec]  t_typical[usec]\n 2  1000  1.6  9.8  1.7\n',
        '99.9',
    ),
    (
        'ib_write_bw',
        " Couldn't connect to 10.40.0.4:18515\n Unable to open file descriptor for socket connection",
        "Couldn't",
    ),
    ('ib_write_bw', '', 'empty'),
]


@pytest.mark.parametrize(('tool', 'output', 'named'), REFUSED)
def test_other_shapes_are_refused_by_name(tool, output, named):
    judge = judge_rdma_bw if tool in RDMA_BW_TOOLS else judge_rdma_lat
    arg = pair(100) if tool in RDMA_BW_TOOLS else 'x'
    with pytest.raises(UploadError) as e:
        judge(output, arg, tool=tool)
    assert e.value.field == 'output' and named in e.value.message


def test_the_rdma_tools_are_upload_tools():
    assert set(RDMA_TOOLS) <= set(TOOLS)


def _rdma_links(plan):
    return [link for link in plan.links if link.kind in ('rdma', 'rail')]


@pytest.mark.parametrize('guide', ['routed', 'evpn-vxlan', 'mlag'])
def test_same_leaf_and_cross_leaf_pairs_from_the_guides_plan(guide):
    plan = plan_of(guide_spec(guide))
    links = _rdma_links(plan)
    servers_on = {}
    for link in links:
        servers_on.setdefault(link.a_node, set()).add(link.b_node)
    leaf_of = {(link.b_node, link.b_interface): link.a_node for link in links}
    pairs = rdma_pairs(plan)
    same = {leaf_of[a.server, a.nic] for kind, a, b in pairs if kind == 'same-leaf'}
    assert same == {leaf for leaf, servers in servers_on.items() if len(servers) >= 2}
    assert any(kind == 'cross-leaf' for kind, _, _ in pairs)
    for kind, a, b in pairs:
        assert a.server != b.server
        assert (kind == 'same-leaf') == (leaf_of[a.server, a.nic] == leaf_of[b.server, b.nic])
        assert rdma_pair(plan, a.name, b.name).category == f'rdma-{kind}'


def test_cross_rack_pairs_where_the_plan_has_several_racks():
    plan = plan_of(single_leaf_racks_spec())
    leaves = {link.a_node for link in _rdma_links(plan)}
    assert len(leaves) >= 2
    cross = [(a, b) for kind, a, b in rdma_pairs(plan) if kind == 'cross-rack']
    assert len(cross) == len(leaves) * (len(leaves) - 1) // 2  # one per two racks (a rack a leaf here)
    assert all(a.leaf != b.leaf for a, b in cross)


def test_a_nic_without_an_address_makes_no_pair():
    plan = plan_of(guide_spec('evpn-vxlan'))
    stripped = replace(plan, attachments=tuple(replace(a, addresses=()) for a in plan.attachments))
    assert rdma_nics(stripped) and not rdma_pairs(stripped)


@pytest.mark.parametrize('guide', ['routed', 'evpn-vxlan', 'mlag'])
def test_the_pair_rate_is_the_slower_nic(guide):
    plan = plan_of(guide_spec(guide))
    speed = {f'{link.b_node}:{link.b_interface}': link.speed for link in _rdma_links(plan)}
    for a in speed:
        for b in speed:
            if a.split(':')[0] != b.split(':')[0]:
                assert rdma_pair(plan, a, b).gbps == min(speed[a], speed[b])


def test_rdma_pair_names_a_bad_nic():
    plan = plan_of(guide_spec('evpn-vxlan'))
    nic = _rdma_links(plan)[0]
    other = next(link for link in _rdma_links(plan) if link.b_node != nic.b_node)
    assert rdma_pair(plan, nic.b_node, other.b_node).source == f'{nic.b_node}:{nic.b_interface}'  # its only NIC
    for args, field in (
        ((nic.b_node, 'gpu99'), 'destination'),
        (('leaf1', nic.b_node), 'source'),
        ((f'{nic.b_node}:rdma9', other.b_node), 'source'),
        ((nic.b_node, nic.b_node), 'destination'),
        (('', other.b_node), 'source'),
        ((None, other.b_node), 'source'),
    ):
        with pytest.raises(UploadError) as e:
            rdma_pair(plan, *args)
        assert e.value.field == field


@pytest.mark.parametrize('design', ['routed', 'evpn-vxlan'])
def test_the_lossless_tos_is_the_profiles_roce_dscp_shifted(design):
    intent = guide_intent(design)
    facts = qos_facts(intent['qos'], intent['traffic_classes'])
    assert lossless_tos(facts.as_context()) == intent['qos']['roce_dscp'][0] * 4
    assert lossless_tos({**facts.as_context(), 'pfc_priorities': []}) is None
    assert lossless_tos(None) is None


def _mutations(t):
    return st.integers(min_value=0, max_value=max(len(t) - 1, 0)).flatmap(
        lambda i: st.sampled_from(['', 'x', '9', '.', '-', '\n', ' ', '99999999999999999999999']).map(
            lambda c: t[:i] + c + t[i + 1 :]
        )
    )


PERFTEST = [p.read_text() for p in sorted(FIXTURES.glob('perftest_*.txt'))]
anything = st.one_of(
    st.text(max_size=400),
    st.sampled_from(PERFTEST).flatmap(lambda t: st.integers(min_value=0, max_value=len(t)).map(lambda n: t[:n])),
    st.sampled_from(PERFTEST).flatmap(_mutations),
    st.recursive(st.none() | st.floats() | st.integers() | st.text(max_size=10), st.lists, max_leaves=5).map(
        json.dumps
    ),
    st.none(),
    st.integers(),
    st.binary(max_size=50),
)


@settings(max_examples=examples(400), deadline=None)
@given(output=anything, tool=st.sampled_from(RDMA_TOOLS), gbps=st.integers(min_value=1, max_value=800))
def test_fuzz_any_input_is_a_verdict_or_a_named_error(output, tool, gbps):
    try:
        if tool in RDMA_BW_TOOLS:
            verdict = judge_rdma_bw(output, pair(gbps), tos=104, tool=tool)
        else:
            verdict = judge_rdma_lat(output, 'x', tos=104, tool=tool)
    except UploadError as e:
        assert e.field == 'output' and e.message
    else:
        assert verdict.status in ('passed', 'failed')
