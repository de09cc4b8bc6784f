"""The shipped data files, checked against the numbers of ../shared/docs/domain.md (no database needed)."""

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / 'netbox_aifabric' / 'data'

pytestmark = pytest.mark.pure


def load(name):
    return json.loads((DATA / name).read_text())


def by_slug(items):
    return {item['slug']: item for item in items}


def test_preset_set():
    assert [p['slug'] for p in load('qos_presets.json')] == [
        'nvidia-cumulus-lossless',
        'nvidia-cumulus-lossy',
        'sonic-default',
        'juniper-apstra-dcqcn',
        'tcp-only',
    ]


@pytest.mark.parametrize(
    ('slug', 'fields'),
    [
        (
            'nvidia-cumulus-lossless',
            {
                'roce_dscp': [26],
                'roce_priority': [3],
                'roce_tc': [3],
                'cnp_dscp': 48,
                'cnp_tc': 6,
                'pfc_priorities': [3],
                'cable_length': 100,
                'ecn_min_threshold': 150_000,
                'ecn_max_threshold': 1_500_000,
                'ecn_probability': 100,
                'ecn_tcs': [0, 3],
                'strict_tcs': [6],
                'dwrr_weights': {'0': 50, '3': 50},
                'pfcwd_poll_interval': 100,
                'pfcwd_detection_polls': 3,
            },
        ),
        (
            'nvidia-cumulus-lossy',
            {
                'mode': 'lossy',
                'roce_dscp': [26],
                'cnp_dscp': 48,
                'pfc_priorities': [],
                'pfc_watchdog': False,
                'ecn_min_threshold': 150_000,
                'ecn_max_threshold': 1_500_000,
            },
        ),
        (
            'sonic-default',
            {
                'roce_dscp': [3, 4],
                'roce_tc': [3, 4],
                'pfc_priorities': [3, 4],
                'cnp_dscp': 48,
                'cnp_tc': 6,
                'ecn_min_threshold': 1_048_576,
                'ecn_max_threshold': 2_097_152,
                'ecn_probability': 5,
                'pfcwd_poll_interval': 200,
                'pfcwd_detection_time': 200,
                'pfcwd_restoration_time': 200,
                'pfcwd_action': 'drop',
            },
        ),
        (
            'juniper-apstra-dcqcn',
            {
                'roce_dscp': [26],
                'roce_tc': [4],
                'pfc_priorities': [3],
                'cnp_dscp': 48,
                'cnp_tc': 3,
                'ecn_threshold_unit': 'percent',
                'ecn_min_threshold': 55,
                'ecn_max_threshold': 90,
                'pfcwd_poll_interval': 100,
                'pfcwd_detection_polls': 2,
                'pfcwd_restoration_time': 200,
            },
        ),
        ('tcp-only', {'mode': 'none', 'pfc_priorities': [], 'roce_dscp': [], 'ecn_enabled': False}),
    ],
)
def test_preset_values(slug, fields):
    preset = by_slug(load('qos_presets.json'))[slug]
    assert {key: preset.get(key) for key in fields} == fields
    assert preset['source']


def test_sonic_dwrr_weights():
    weights = by_slug(load('qos_presets.json'))['sonic-default']['dwrr_weights']
    assert {tc: w for tc, w in weights.items() if w == 15} == {'3': 15, '4': 15}
    assert set(weights.values()) == {14, 15}


def test_guide_traffic_inventory():
    rows = [(tc['name'], tc['vid'], tc['prefix'], tc['purpose']) for tc in load('traffic_classes.json')]
    assert rows == [
        ('MGMT', 10, '192.0.2.0/24', 'management'),
        ('USERS', 20, '198.51.100.0/24', 'user-access'),
        ('STORAGE', 30, '203.0.113.0/24', 'storage'),
        ('RDMA', 40, '10.40.0.0/24', 'rdma'),
        ('TELEMETRY', 50, '10.50.0.0/24', 'telemetry'),
    ]
    lossless = [tc['name'] for tc in load('traffic_classes.json') if tc['lossless']]
    assert lossless == ['RDMA']  # the guide: PFC only for the RDMA class
    users = by_slug(load('traffic_classes.json'))
    assert 'users' not in users['mgmt']['reachable_from']  # USERS must not reach MGMT
