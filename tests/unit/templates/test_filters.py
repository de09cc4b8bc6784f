"""The plugin's Jinja filters: the address and unit computations the templates leave to Python."""

import pytest

from netbox_aifabric.render.filters import FILTERS


@pytest.mark.parametrize(
    ('name', 'value', 'expected'),
    [
        ('aifabric_ip_host', '10.255.2.1/31', '10.255.2.1'),
        ('aifabric_prefix_length', '10.255.2.1/31', 31),
        ('aifabric_ip_netmask', '10.255.2.1/31', '255.255.255.254'),
        ('aifabric_ip_network', '192.0.2.1/24', '192.0.2.0/24'),
        ('aifabric_seconds', 100, '0.1'),
        ('aifabric_seconds', 300, '0.3'),
        ('aifabric_seconds', 5, '0.005'),
        ('aifabric_seconds', 2000, '2'),
        ('aifabric_seconds', 1500, '1.5'),
    ],
)
def test_filter(name, value, expected):
    assert FILTERS[name](value) == expected


def test_at_most():
    assert [FILTERS['aifabric_at_most'](v, 9214) for v in (9216, 9214, 9000, None)] == [9214, 9214, 9000, None]


@pytest.mark.parametrize('name', sorted(set(FILTERS) - {'aifabric_at_most'}))
def test_none_stays_none(name):
    assert FILTERS[name](None) is None
