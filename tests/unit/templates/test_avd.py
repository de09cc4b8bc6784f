"""The AVD export: every switch of the guide's cluster, per design, is valid ``eos_cli_config_gen`` structured config
(pyavd's own validator) and renders with pyavd into the EOS lines the plan implies."""

import pytest

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.facts.telemetry import SECRETS
from netbox_aifabric.render.avd import avd_structured_config
from tests.render_fixtures import (
    GUIDES,
    guide_contexts,
    guide_spec,
    guide_telemetry,
    observed_contexts,
    observed_intent,
    plan_of,
    single_leaf_racks,
)
from tests.unit.templates.helpers import check_golden

pyavd = pytest.importorskip('pyavd', reason='pyavd comes with the dev and benchmark extras')

pytestmark = pytest.mark.pure

SWITCHES = [(design, name) for design in GUIDES for name in ('spine1', 'leaf1') if name in guide_contexts(design)]


@pytest.mark.parametrize(('design', 'name'), SWITCHES)
def test_structured_config_is_valid_and_renders(design, name):
    config = avd_structured_config(guide_contexts(design)[name])
    result = pyavd.validate_structured_config(config)
    violations = [f'{"/".join(map(str, v.path))}: {v.message}' for v in result.validation_result.violations]
    assert violations == []
    eos = pyavd.get_device_config(config)
    check_golden(f'avd/{design}-{name}.cfg', eos)
    assert f'hostname {name}' in eos.splitlines()


def violations_of(config):
    result = pyavd.validate_structured_config(config)
    return [f'{"/".join(map(str, v.path))}: {v.message}' for v in result.validation_result.violations]


@pytest.mark.parametrize(('design', 'name'), SWITCHES)
def test_telemetry_export_is_valid_with_placeholders(design, name):
    """With the guide's collectors (SNMPv3) the export stays valid for pyavd's schema, and the rendered SNMP user
    carries the named placeholders of the passphrases, never a value."""
    config = avd_structured_config(observed_contexts(design)[name])
    assert violations_of(config) == []
    user = f'snmp-server user {guide_telemetry()["snmp_user"]} AIFABRIC-RO v3'
    line = f'{user} auth sha {SECRETS["snmp_v3_auth"]} priv aes {SECRETS["snmp_v3_priv"]}'
    assert line in pyavd.get_device_config(config).splitlines()


def test_v2c_export_has_the_community_placeholder():
    intent = observed_intent('routed', {**guide_telemetry(), 'snmp_version': 'v2c'})
    config = avd_structured_config(build_contexts(plan_of(guide_spec('routed')), intent)['leaf1'])
    assert violations_of(config) == []
    eos = pyavd.get_device_config(config).splitlines()
    assert f'snmp-server community {SECRETS["snmp_community"]} ro AIFABRIC-SNMP' in eos
    assert not [line for line in eos if line.startswith('snmp-server user')]


def test_a_removed_telemetry_key_is_a_violation():
    """Negative control: pyavd 6 moved the NTP servers' VRF to ``ntp.vrf``; the old key is reported."""
    config = avd_structured_config(observed_contexts('routed')['leaf1'])
    config['ntp']['servers'][0]['vrf'] = config['ntp']['vrf']
    assert violations_of(config) != []


def lines(design, name):
    return pyavd.get_device_config(avd_structured_config(guide_contexts(design)[name])).splitlines()


def test_evpn_leaf_lines():
    eos = lines('evpn-vxlan', 'leaf1')
    for line in (
        'router bgp 65101',
        '   neighbor 10.255.2.0 remote-as 65100',
        '   neighbor 10.255.2.4 remote-as 65100',
        '   neighbor 10.255.3.1 peer group MLAG-IPv4-UNDERLAY-PEER',
        '   neighbor MLAG-IPv4-UNDERLAY-PEER remote-as 65101',
        '   neighbor 10.255.0.1 peer group EVPN-OVERLAY-PEERS',
        '   vxlan vlan 40 vni 10040',
        '   vxlan vrf AI-CLUSTER vni 50001',
        'qos map dscp 26 to traffic-class 3',
        '   priority-flow-control priority 3 no-drop',
        '   ip address virtual 198.51.100.1/24',
        'ip virtual-router mac-address 02:00:00:00:00:aa',
    ):
        assert line in eos, line


def test_spine_has_no_vlans_or_vxlan():
    eos = '\n'.join(lines('evpn-vxlan', 'spine1'))
    assert 'interface Vxlan1' not in eos
    assert '\nvlan ' not in eos
    assert '   neighbor 10.255.2.1 remote-as 65101' in eos


def test_routed_leaf_pair_has_mlag_and_rack_gateways():
    ctx = guide_contexts('routed')['leaf1']
    eos = lines('routed', 'leaf1')
    assert 'mlag configuration' in eos
    assert 'interface Vxlan1' not in eos
    for vlan in ctx['vlans']:
        assert (f'interface Vlan{vlan["vid"]}' in eos) == bool(vlan['gateway'])
        if vlan['gateway']:
            assert f'   ip address virtual {vlan["gateway"]}' in eos
    assert f'ip virtual-router mac-address {ctx["mlag"]["anycast_gateway_mac"]}' in eos


def test_single_leaf_rack_has_plain_gateways():
    """A rack of one leaf (no MLAG, no EVPN): its gateways are the switch's own addresses, no VARP."""
    ctx = single_leaf_racks()['leaf1']
    config = avd_structured_config(ctx)
    result = pyavd.validate_structured_config(config)
    assert [v.message for v in result.validation_result.violations] == []
    eos = pyavd.get_device_config(config).splitlines()
    gateways = [v['gateway'] for v in ctx['vlans'] if v['gateway']]
    assert gateways and all(f'   ip address {gateway}' in eos for gateway in gateways)
    assert not [line for line in eos if 'virtual' in line]
