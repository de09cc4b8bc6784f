"""The planner's labels (no internal names shown to people): every pool and field identifier the planner
puts into a message has a label, and the rewritten messages say the labels, with the numbers of the input."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netbox_aifabric.planner import PoolExhaustedError, SpecError, load_spec, plan_fabric, pool_needs
from netbox_aifabric.planner.labels import (
    FIELD_LABELS,
    POOL_LABELS,
    at_most,
    field_label,
    identifiers,
    pool_label,
    rack_pool_name,
)
from netbox_aifabric.planner.pools import AsnPool
from netbox_aifabric.planner.racks import rack_subnet_reason
from netbox_aifabric.planner.requirements import required_inputs
from netbox_aifabric.planner.result import RackSubnet, VlanPlan
from tests.unit.planner.helpers import GUIDES, example

pytestmark = pytest.mark.pure

# every pool name a plan can hold, from the planner's own code: the address pools' needs, the leaf ASN pool, and
# the pools of the example plans (management, per-rack)
PLANNER_POOLS = {*pool_needs(1, 1, 1), AsnPool(1, 1).name} | {
    pool.name for design in GUIDES for pool in plan_fabric(load_spec(example(design))).pools
}


def rejected(spec: dict, error=SpecError):
    with pytest.raises(error) as info:
        plan_fabric(load_spec(spec))
    return info.value


def test_every_pool_of_the_planner_has_a_label():
    for name in PLANNER_POOLS:
        label = pool_label(name)
        assert label and label != name and '_' not in label and ':' not in label, name
        if not name.startswith('rack_subnets:'):
            assert name in POOL_LABELS, name


def test_the_labels_the_issue_names():
    assert pool_label('leaf_asn') == 'leaf ASN range'
    assert pool_label('mlag_peer') == 'MLAG peer-link subnets'
    assert pool_label('p2p') == 'point-to-point link subnets'
    assert pool_label('rack_subnets:USERS') == 'per-rack USERS subnets'
    assert pool_label(rack_pool_name('STORAGE')) == 'per-rack STORAGE subnets'
    assert at_most(8, 'leaves') == 'at most 8 leaves'
    assert at_most(1, 'leaves') == 'at most 1 leaf'


def test_every_required_input_has_a_field_label():
    """The fields the planner refuses a design without (its own list) are said in words."""
    inputs = required_inputs(spines=1, max_spines=1, evpn=True, mlag_pairs=True, underlay='ebgp')
    for name in inputs:
        assert name in FIELD_LABELS and not set(field_label(name)) & set('_.:'), name


def test_field_label_drops_indices_and_falls_back_to_words():
    assert field_label('traffic_classes[2].subnet') == 'traffic class subnet'
    assert field_label('servers[3].leaves') == "server's leaves"
    assert field_label('pools.p2p') == 'point-to-point pool'
    assert field_label('maximums.leaves') == 'max leaves'
    assert field_label('tenants[0].unknown_part') == 'EVPN tenants'  # the longest known path
    assert field_label('some_new.field_path') == 'some new field path'


@given(st.text(alphabet='abcdefghijklmnopqrstuvwxyz_.[]0123456789:', max_size=40))
def test_field_label_takes_any_path(field):
    """Any field a PlanError may carry gets a label, never a traceback; a known path's label has no underscore."""
    label = field_label(field)
    assert isinstance(label, str)
    if field and field.split('[')[0].split('.')[0] in FIELD_LABELS:
        assert '_' not in label


def test_identifiers_are_the_names_that_are_not_words():
    found = identifiers(('USERS',))
    assert {'leaf_asn', 'mlag_peer', 'p2p', 'rack_subnets:USERS', 'maximums.leaves', 'pools.vtep'} <= found
    assert not {'loopback', 'management', 'leaves', 'vtep', 'design'} & found  # plain words a page may say


# The rewritten messages, exact, from the input's numbers


def test_more_leaves_than_the_maximum_says_at_most():
    spec = example('evpn-vxlan')
    maximum = len(spec['leaves']) - 1
    spec['maximums']['leaves'] = maximum
    spec['mlag_pairs'] = []
    spec['servers'] = []
    e = rejected(spec)
    assert (e.field, e.message) == (
        'leaves',
        f'{len(spec["leaves"])} leaves declared; the numbering has room for at most {maximum} leaf (max leaves)',
    )
    assert e.field_label == 'leaves'


def test_a_pool_the_design_needs_is_named_in_words():
    spec = example('routed')
    del spec['pools']['mlag_peer']
    e = rejected(spec)
    assert (e.field, e.field_label, e.message) == (
        'pools.mlag_peer',
        'MLAG peer pool',
        'the MLAG peer pool is required for this design',
    )


def test_an_exhausted_leaf_asn_range_says_its_range_once():
    """Every ASN of the range held by removed leaves (reserved until released): the message names the range once,
    as a person calls it."""
    spec = example('routed')
    start, end = spec['leaf_asn_range']
    first_removed = spec['maximums']['leaves'] + 1
    pins = {f'asn:leaf:{first_removed + i}': str(asn) for i, asn in enumerate(range(start, end + 1))}
    previous = {'fabric': spec['name'], 'allocations': pins}
    with pytest.raises(PoolExhaustedError) as info:
        plan_fabric(load_spec(spec), previous=previous)
    e = info.value
    size = end - start + 1
    needed = len({min(pair) for pair in spec['mlag_pairs']}) + len(spec['leaves']) - 2 * len(spec['mlag_pairs'])
    assert (e.field, e.field_label) == ('leaf_asn_range', 'leaf ASN range')
    assert e.message == (
        f'leaf ASN range {start}–{end} is exhausted: {needed} ASNs needed, 0 usable ({size} in the pool, {size} '
        'reserved: held by the allocations of removed nodes; plan with --release to free them); first failed for '
        f'{spec["leaves"][0]["name"]}'
    )
    assert e.message.count(str(start)) == 1


def test_the_pool_table_says_labels_and_keeps_names():
    plan = plan_fabric(load_spec(example('routed')))
    for pool in plan.pools:
        assert pool.label == pool_label(pool.name)
    assert {p['name'] for p in plan.to_dict()['pools']} == {p.name for p in plan.pools}  # the JSON keeps the names


# Why a rack subnet has its size (the Allocations tab and the wizard's preview)


@pytest.mark.parametrize('design', ['routed', 'mlag'])
def test_each_rack_subnet_says_why_its_size(design):
    plan = plan_fabric(load_spec(example(design)))
    racks = [(vlan, rack) for vlan in plan.vlans for rack in vlan.racks]
    assert racks
    for vlan, rack in racks:
        length = int(rack.subnet.split('/')[1])
        whole = int(vlan.subnet.split('/')[1])
        addresses = 2 ** (32 - length) - 2
        pair = len(rack.leaves) == 2
        split = (
            f'split into {2 ** (length - whole)} rack subnets, one per rack'
            if length > whole
            else 'kept whole for its one rack'
        )
        less = "the gateway and the leaf pair's own two" if pair else 'the gateway'
        assert rack_subnet_reason(vlan, rack) == (
            f'/{length}: {vlan.name} {vlan.subnet} {split}; up to {addresses - 1 - 2 * pair} hosts each ({addresses} '
            f'addresses less {less})'
        )


def test_a_single_leafs_rack_subnet_keeps_every_address_but_the_gateway():
    rack = RackSubnet(3, ('leaf3',), '10.40.0.64/26', '10.40.0.65/26')
    vlan = VlanPlan(40, 'USERS', None, None, None, '10.40.0.0/24', None, False, True, (rack,))
    assert rack_subnet_reason(vlan, rack) == (
        '/26: USERS 10.40.0.0/24 split into 4 rack subnets, one per rack; up to 61 hosts each (62 addresses less the '
        'gateway)'
    )
