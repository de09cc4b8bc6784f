"""The plugin's Jinja filters: the address and unit computations the templates leave to Python."""

import pytest
from jinja2.exceptions import TemplateError

from netbox_aifabric.render.filters import FILTERS, UnsupportedFeature

pytestmark = pytest.mark.pure


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
        ('aifabric_eos_esi', '03:02:ae:00:00:00:01:00:00:01', '0002:ae00:0000:0100:0001'),
        ('aifabric_eos_esi', '03:AA:BB:CC:DD:EE:FF:12:34:56', '00aa:bbcc:ddee:ff12:3456'),
        ('aifabric_eos_mac', '02:ae:00:00:00:01', '02ae.0000.0001'),
        ('aifabric_eos_mac', '44:38:39:BE:EF:AA', '4438.39be.efaa'),
    ],
)
def test_filter(name, value, expected):
    assert FILTERS[name](value) == expected


def test_at_most():
    assert [FILTERS['aifabric_at_most'](v, 9214) for v in (9216, 9214, 9000, None)] == [9214, 9214, 9000, None]


@pytest.mark.parametrize('name', sorted(set(FILTERS) - {'aifabric_at_most', 'aifabric_unsupported'}))
def test_none_stays_none(name):
    assert FILTERS[name](None) is None


@pytest.mark.parametrize(
    'value', ['03:02:ae:00:00:00:01:00:00', '03:02:ae:00:00:00:01:00:00:01:02', '3:2:ae:0:0:0:1:0:0:1']
)
def test_eos_esi_needs_ten_octets(value):
    with pytest.raises(ValueError, match='10-octet ESI'):
        FILTERS['aifabric_eos_esi'](value)


def test_unsupported():
    refuse = FILTERS['aifabric_unsupported']
    assert [refuse(value, 'no') for value in (None, {}, [], '')] == [''] * 4
    with pytest.raises(UnsupportedFeature, match='^SONiC cannot$') as raised:
        refuse({'peer': 'leaf2'}, 'SONiC cannot')
    assert isinstance(raised.value, TemplateError)  # NetBox reports it as "UnsupportedFeature: <message>"
