"""The plugin's Jinja filters: the address and unit computations the templates leave to Python."""

import pytest
from jinja2.exceptions import TemplateError, TemplateRuntimeError

from netbox_aifabric.render.filters import FILTERS, UnsupportedFeature, egress_scheduler

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
        ('aifabric_kilobytes', 65536, 64),
        ('aifabric_kilobytes', 1500, 2),
        ('aifabric_kilobytes', 1024, 1),
    ],
)
def test_filter(name, value, expected):
    assert FILTERS[name](value) == expected


def test_at_most():
    assert [FILTERS['aifabric_at_most'](v, 9214) for v in (9216, 9214, 9000, None)] == [9214, 9214, 9000, None]


NOT_NONE = {'aifabric_at_most', 'aifabric_unsupported', 'aifabric_yaml', 'aifabric_eos_management_vrf'}


@pytest.mark.parametrize('name', sorted(set(FILTERS) - NOT_NONE))
def test_none_stays_none(name):
    assert FILTERS[name](None) is None


@pytest.mark.parametrize(
    'value', ['03:02:ae:00:00:00:01:00:00', '03:02:ae:00:00:00:01:00:00:01:02', '3:2:ae:0:0:0:1:0:0:1']
)
def test_eos_esi_needs_ten_octets(value):
    with pytest.raises(ValueError, match='10-octet ESI'):
        FILTERS['aifabric_eos_esi'](value)


@pytest.mark.parametrize(
    ('fabric_vrfs', 'expected'),
    [
        ((), 'mgmt'),
        (('MGMT',), 'mgmt-oob'),
        (('mgmt',), 'mgmt-oob'),
        (('Mgmt', 'AI-CLUSTER'), 'mgmt-oob'),
        (('OOB',), 'mgmt'),
    ],
)
def test_eos_management_vrf_differs_from_every_fabric_vrf_beyond_case(fabric_vrfs, expected):
    context = {
        'management': {'vrf': 'mgmt'},
        'vrfs': [{'name': name} for name in fabric_vrfs[1:]],
        'vlans': [{'vrf': fabric_vrfs[0] if fabric_vrfs else None}, {'vrf': None}],
    }
    assert FILTERS['aifabric_eos_management_vrf'](context) == expected


def test_unsupported():
    refuse = FILTERS['aifabric_unsupported']
    assert [refuse(value, 'no') for value in (None, {}, [], '')] == [''] * 4
    with pytest.raises(UnsupportedFeature, match='^SONiC cannot$') as raised:
        refuse({'peer': 'leaf2'}, 'SONiC cannot')
    assert isinstance(raised.value, TemplateError)  # NetBox reports it as "UnsupportedFeature: <message>"


@pytest.mark.parametrize(
    ('value', 'expected'),
    [
        ('ai-lab-spine1 Ethernet1', 'ai-lab-spine1 Ethernet1'),
        (
            'AI Lab\nrouter bgp 666\n neighbor 192.0.2.66 remote-as 666',
            'AI Lab router bgp 666  neighbor 192.0.2.66 remote-as 666',
        ),
        ('a\r\n\x00\t\x1b[2J\x7fb', 'a [2J b'),
        ('a\x85b\u2028c\u2029d', 'a b c d'),
        ('\n  padded\t', 'padded'),
        ('"quotes" {{ braces }} ! # : -', '"quotes" {{ braces }} ! # : -'),
    ],
)
def test_line(value, expected):
    assert FILTERS['aifabric_line'](value) == expected


def test_line_caps_the_length():
    line = FILTERS['aifabric_line']
    assert line('x' * 300, 240) == 'x' * 240
    assert line('a' * 239 + ' \nb', 240) == 'a' * 239  # no trailing blank left by the cut
    assert line('short', 240) == 'short'


@pytest.mark.parametrize(
    ('value', 'expected'),
    [
        ('MGMT', 'MGMT'),
        ('ai-lab-leaf1', 'ai-lab-leaf1'),
        ('Tenant A\nrouter bgp 666', 'Tenant_A_router_bgp_666'),
        ('a \t\r\n b', 'a_b'),
        ('a\x00b\x85c', 'a_b_c'),
    ],
)
def test_word(value, expected):
    assert FILTERS['aifabric_word'](value) == expected


@pytest.mark.parametrize(
    ('value', 'expected'),
    [
        ('ai-lab-leaf1', 'ai-lab-leaf1'),
        ('MGMT', 'MGMT'),
        ('Vrf_a.b/c', 'Vrf_a.b/c'),
        ('on', '"on"'),
        ('No', '"No"'),
        ('null', '"null"'),
        ('12', '"12"'),
        ('1e3', '"1e3"'),
        ('AI Lab', '"AI Lab"'),
        ('', '""'),
        (None, 'null'),
    ],
)
def test_yaml_plain_or_quoted(value, expected):
    assert FILTERS['aifabric_yaml'](value) == expected


@pytest.mark.parametrize(
    'value',
    [
        'AI Lab\nrouter bgp 666',
        'a: b',
        '- item',
        '# comment',
        '&anchor *alias !!str',
        '{y: z} [x]',
        '"}, "EVIL": {"x": "',
        "it's",
        'a\r\x00\t\x1b\x7f\x85\u2028b',
        '{{ 7 * 7 }}',
        '@at `tick` | > ? %',
    ],
)
def test_yaml_parses_back_to_the_same_string(value):
    import yaml

    text = FILTERS['aifabric_yaml'](value)
    assert '\n' not in text and '\u2028' not in text and '\x85' not in text
    assert yaml.safe_load(f'key: {text}\n{text}: 1\n') == {'key': value, value: 1}


@pytest.mark.parametrize(
    ('strict', 'weights', 'expected'),
    [
        ([6], {'0': 50, '3': 50}, {0: 50, 3: 50}),
        ([], {'0': 1, '1': 1, '2': 1}, {0: 34, 1: 33, 2: 33}),  # largest remainder, ties to the lower class
        ([3], {'0': 15, '3': 15, '4': 14}, {0: 52, 4: 48}),  # a strict class's weight is not a share
        ([5], {}, {}),
    ],
)
def test_egress_scheduler_sums_to_100(strict, weights, expected):
    entries = egress_scheduler({'scheduler': {'strict_tcs': strict, 'dwrr_weights': weights}})
    assert [e['tc'] for e in entries] == list(range(8))
    assert {e['tc'] for e in entries if e['mode'] == 'strict'} == set(strict)
    shares = {e['tc']: e['percent'] for e in entries if e['mode'] == 'dwrr'}
    assert {tc: p for tc, p in shares.items() if p} == expected
    assert sum(shares.values()) == (100 if expected else 0)


@pytest.mark.parametrize(
    ('name', 'nos', 'expected'),
    [
        ('Port-Channel3', 'sonic', 'PortChannel3'),
        ('Port-Channel3', 'frr', 'PortChannel3'),
        ('Port-Channel3', 'nvue', 'bond3'),
        ('Port-Channel3', 'eos', 'Port-Channel3'),
        ('Ethernet49', 'nvue', 'swp49'),
        ('Ethernet49/1', 'nvue', 'Ethernet49/1'),  # a breakout lane: not a generic port, left as it is
        ('swp49', 'nvue', 'swp49'),  # a device type's own name
        ('Port-Channel1000x', 'sonic', 'Port-Channel1000x'),
    ],
)
def test_interface_naming_table(name, nos, expected):
    assert FILTERS['aifabric_interface'](name, nos) == expected


def test_lag_number():
    assert [FILTERS['aifabric_lag_number'](n) for n in ('Port-Channel12', 'bond3', 'Port-Channel1000')] == [
        '12',
        '3',
        '1000',
    ]
    with pytest.raises(TemplateRuntimeError, match='not a numbered LAG'):
        FILTERS['aifabric_lag_number']('peerlink')
