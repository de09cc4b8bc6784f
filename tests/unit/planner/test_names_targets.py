"""In the pure planner: names the NetBox side cannot store are refused at plan time (named error, not a
failure at apply); a multi-rack fabric with a lossless class gets a default oversubscription target of 1:1."""

import pytest

from netbox_aifabric.planner import SpecError, load_spec, plan_fabric
from netbox_aifabric.planner.validate import DEVICE_NAME_MAX, INTERFACE_NAME_MAX, VLAN_NAME_MAX, VRF_NAME_MAX
from netbox_aifabric.planner.warnings import LOSSLESS_OVERSUBSCRIPTION_TARGET
from tests.unit.planner.helpers import example

pytestmark = pytest.mark.pure


def rejected(spec: dict) -> SpecError:
    with pytest.raises(SpecError) as info:
        plan_fabric(load_spec(spec))
    return info.value


@pytest.mark.parametrize(
    ('where', 'index', 'limit'), [('spines', 0, DEVICE_NAME_MAX), ('leaves', 1, DEVICE_NAME_MAX), ('servers', 2, 64)]
)
def test_a_hostname_longer_than_netbox_takes_is_refused(where, index, limit):
    spec = example('evpn-vxlan')
    fits = 'n' * limit
    spec[where][index]['name'] = fits
    plan_fabric(load_spec(spec))  # exactly the limit: planned
    spec[where][index]['name'] = fits + 'x'
    e = rejected(spec)
    assert (e.field, e.node) == (f'{where}[{index}].name', fits + 'x')
    assert e.message == f'hostname "{fits}x" has {limit + 1} characters; NetBox takes at most {limit}'


def test_a_port_name_longer_than_netbox_takes_is_refused():
    spec = example('evpn-vxlan')
    spec['leaf_platform']['interface'] = 'E' * (INTERFACE_NAME_MAX - 1) + '{port}'  # ports 1-9 fit, port 10 not
    e = rejected(spec)
    assert e.field == 'leaf_platform.server_ports'
    assert f'{INTERFACE_NAME_MAX + 1} characters; NetBox takes at most {INTERFACE_NAME_MAX}' in e.message  # port 10


def test_a_traffic_class_whose_vlan_name_does_not_fit_is_refused():
    spec = example('evpn-vxlan')
    spec['traffic_classes'][3]['name'] = 'R' * (VLAN_NAME_MAX + 1)
    e = rejected(spec)
    assert e.field == 'traffic_classes[3].name'
    assert e.message.endswith(f'has {VLAN_NAME_MAX + 1} characters; NetBox takes at most {VLAN_NAME_MAX}')


def test_a_tenant_vrf_name_that_does_not_fit_is_refused():
    spec = example('evpn-vxlan')
    spec['tenants'][0]['vrf'] = 'V' * (VRF_NAME_MAX + 1)
    assert rejected(spec).field == 'tenants[0].vrf'


@pytest.mark.parametrize('char', ['\u202e', '\u200b', '\u2066', '\ufeff', '\u00ad', '\n', '\x00'])
def test_bidi_and_other_format_or_control_characters_in_a_hostname_are_refused(char):
    spec = example('evpn-vxlan')
    spec['leaves'][0]['name'] = f'leaf{char}1'
    e = rejected(spec)
    assert (e.field, e.node) == ('leaves[0].name', f'leaf{char}1')
    assert f'U+{ord(char):04X}' in e.message


def ratios(plan):
    return {c.leaf: c.ratio for c in plan.capacity}


def oversubscribed(plan):
    return [w for w in plan.warnings if w.code == 'oversubscription']


def test_a_multi_rack_lossless_fabric_without_a_target_is_held_to_one_to_one():
    spec = example('routed')
    spec['leaves'] += [{'id': 3, 'name': 'leaf3'}, {'id': 4, 'name': 'leaf4'}]
    spec['mlag_pairs'] = [[1, 2], [3, 4]]
    spec['servers'][3]['leaves'] = [3, 4]
    spec.pop('oversubscription_target', None)
    assert any(tc.get('lossless') for tc in spec['traffic_classes'])
    plan = plan_fabric(load_spec(spec))
    above = sorted(leaf for leaf, ratio in ratios(plan).items() if ratio is not None and ratio > 1)
    assert above, 'the test needs a leaf above 1:1'
    warnings = oversubscribed(plan)
    assert [w.message.split(':')[0] for w in warnings] == above
    target = f'above the target of {LOSSLESS_OVERSUBSCRIPTION_TARGET:g}:1 (the default'
    assert all(target in w.message for w in warnings)
    # the fabric's own target wins
    spec['oversubscription_target'] = 100
    assert oversubscribed(plan_fabric(load_spec(spec))) == []
    # no lossless class: no default, no check
    for tc in spec['traffic_classes']:
        tc['lossless'] = False
    spec.pop('oversubscription_target')
    assert oversubscribed(plan_fabric(load_spec(spec))) == []


def test_one_rack_gets_no_default_target():
    """The guide's cluster (one leaf pair): server-to-server traffic never crosses its uplinks."""
    spec = example('evpn-vxlan')
    spec.pop('oversubscription_target', None)
    plan = plan_fabric(load_spec(spec))
    assert any(r is not None and r > 1 for r in ratios(plan).values())
    assert oversubscribed(plan) == []
