"""RoCE counter snapshots (ethtool -S of an mlx5 NIC, SONiC's show pfc counters and show queue counters) parsed and
judged before/after a load: counters that must stay zero fail when they grow, PFC pause growth is reported, text of
another format is a named error. The fixtures are written in the documented formats (fixtures/README.md)."""

from pathlib import Path

import pytest

from netbox_aifabric.acceptance.counters import judge_counters, parse_ethtool, parse_sonic_pfc, parse_sonic_queue
from netbox_aifabric.acceptance.judge import UploadError

pytestmark = pytest.mark.pure

FIXTURES = Path(__file__).parent / 'fixtures'


def fixture(name):
    return (FIXTURES / name).read_text()


def counters_of(name):
    """The file's `<counter>: <value>` lines read by other means than the parser (a split per line)."""
    return {k.strip(): int(v) for k, v in (line.split(':') for line in fixture(name).splitlines()[1:])}


def test_ethtool_growth_passes_and_reports_pfc_ecn_and_cnps():
    before, after = counters_of('ethtool_mlx5_before.txt'), counters_of('ethtool_mlx5_after.txt')
    assert parse_ethtool(fixture('ethtool_mlx5_after.txt')) == after
    v = judge_counters(
        'ethtool', fixture('ethtool_mlx5_after.txt'), fixture('ethtool_mlx5_before.txt'), (3,), 'gpu1 nic1'
    )
    pause = sum(after[c] - before[c] for c in ('rx_prio3_pause', 'tx_prio3_pause'))
    assert (v.status, v.category, v.subject, v.value) == ('passed', 'roce-nic', 'gpu1 nic1', pause)
    for counter in ('np_ecn_marked_roce_packets', 'np_cnp_sent', 'rp_cnp_handled', 'rx_discards_phy'):
        assert f'{counter} +{after[counter] - before[counter]}' in v.seen
    assert 'between the two snapshots' in v.expected


def test_ethtool_discards_fail():
    v = judge_counters('ethtool', fixture('ethtool_mlx5_after_discards.txt'), fixture('ethtool_mlx5_before.txt'))
    grew = counters_of('ethtool_mlx5_after_discards.txt')['rx_discards_phy']
    assert v.status == 'failed' and v.seen.endswith(f'-> rx_discards_phy +{grew}')


def test_one_snapshot_judges_the_absolute_values():
    v = judge_counters('ethtool', fixture('ethtool_mlx5_before.txt'))
    assert v.status == 'passed' and v.value == 12 + 4 and 'one snapshot' in v.expected


def test_sonic_pfc_reports_lossless_pause_growth_and_fails_on_another_priority():
    rows = [line.split() for line in fixture('sonic_pfc_after.txt').splitlines() if line.startswith('Ethernet')]
    parsed = parse_sonic_pfc(fixture('sonic_pfc_after.txt'))
    assert parsed['rx']['Ethernet0'][3] == int(rows[0][4].replace(',', '')) and parsed['rx']['Ethernet8'][7] is None
    v = judge_counters('sonic-pfc', fixture('sonic_pfc_after.txt'), fixture('sonic_pfc_before.txt'), (3,), 'leaf1')
    assert (v.status, v.value) == ('passed', (1212 - 12) + (403 - 3) + (907 - 7))
    assert 'rx Ethernet0 PFC3 +1200' in v.seen
    bad = judge_counters('sonic-pfc', fixture('sonic_pfc_after_wrong_priority.txt'), fixture('sonic_pfc_before.txt'))
    assert bad.status == 'failed' and bad.seen.endswith('-> rx Ethernet4 PFC0 +25')


def test_sonic_queue_drops_on_the_lossless_queue_fail_only():
    parsed = parse_sonic_queue(fixture('sonic_queue_after.txt'))
    assert parsed['Ethernet0', 'UC0']['drop_pkts'] == 17 and parsed['Ethernet4', 'UC6']['drop_pkts'] is None
    ok = judge_counters('sonic-queue', fixture('sonic_queue_after.txt'), fixture('sonic_queue_before.txt'), (3,), 'x')
    assert (ok.status, ok.value) == ('passed', 0)  # UC0's 17 drops are lossy traffic's
    bad = judge_counters(
        'sonic-queue', fixture('sonic_queue_after_lossless_drops.txt'), fixture('sonic_queue_before.txt')
    )
    assert (bad.status, bad.value) == ('failed', 311) and bad.seen.endswith('-> Ethernet4 UC3 Drop/pkts +311')
    # with priority 0 lossless instead, UC0's drops fail
    assert (
        judge_counters('sonic-queue', fixture('sonic_queue_after.txt'), fixture('sonic_queue_before.txt'), (0,)).status
        == 'failed'
    )


@pytest.mark.parametrize(
    ('tool', 'text', 'field', 'message'),
    [
        ('ethtool', fixture('sonic_pfc_after.txt'), 'output', 'not ethtool -S output: no "NIC statistics:" line'),
        ('ethtool', 'NIC statistics:\n', 'output', 'not ethtool -S output: no "<counter>: <number>" lines'),
        (
            'ethtool',
            'NIC statistics:\n     rx_packets: 3\n',
            'output',
            'no mlx5 RoCE counter in this ethtool -S output',
        ),
        ('sonic-pfc', fixture('ethtool_mlx5_after.txt'), 'output', 'not SONiC "show pfc counters" output: no "Port Rx'),
        ('sonic-queue', fixture('sonic_pfc_after.txt'), 'output', 'not SONiC "show queue counters" output'),
        ('sonic-queue', fixture('sonic_queue_after.txt').replace('UC3', 'UC9'), 'output', 'no lossless queue (UC3)'),
        ('nope', 'x', 'tool', "'nope' is not one of ethtool, sonic-pfc, sonic-queue"),
    ],
)
def test_text_of_another_format_is_a_named_error(tool, text, field, message):
    with pytest.raises(UploadError) as e:
        judge_counters(tool, text)
    assert e.value.field == field and e.value.message.startswith(message), e.value.message


def test_a_bad_before_snapshot_names_before():
    with pytest.raises(UploadError) as e:
        judge_counters('ethtool', fixture('ethtool_mlx5_after.txt'), fixture('sonic_pfc_before.txt'))
    assert e.value.field == 'before'


def test_per_queue_counters_are_judged_on_the_queue_the_lossless_priority_maps_to():
    """Priority 3 lossless, its traffic class (egress queue) 0 by the profile's map: SONiC's UC0 drops (17, lossy on
    the identity map) now fail, UC3's do not; PFC counters stay per priority whatever the queues."""
    after, before = fixture('sonic_queue_after.txt'), fixture('sonic_queue_before.txt')
    assert judge_counters('sonic-queue', after, before, (3,), 'x').status == 'passed'
    mapped = judge_counters('sonic-queue', after, before, (3,), 'x', queues=(0,))
    assert mapped.status == 'failed' and 'UC0' in mapped.seen
    drops_on_uc3 = fixture('sonic_queue_after_lossless_drops.txt')
    assert judge_counters('sonic-queue', drops_on_uc3, before, (3,), 'x', queues=(0,)).status == 'failed'  # UC0 too
    pfc_after, pfc_before = fixture('sonic_pfc_after.txt'), fixture('sonic_pfc_before.txt')
    assert judge_counters('sonic-pfc', pfc_after, pfc_before, (3,), 'x', queues=(0,)).status == 'passed'
