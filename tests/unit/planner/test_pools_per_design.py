"""A plan holds only the pools its design numbers from (an MLAG or routed fabric showed a VTEP pool, 0
used): every pool the spec could give is given, and each design's plan lists exactly those its features use."""

import pytest

from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.labels import rack_pool_name
from netbox_aifabric.planner.planner import design_pools
from netbox_aifabric.planner.spec import BGP_UNDERLAYS, UNNUMBERED_UNDERLAYS
from tests.unit.planner.helpers import GUIDES, example

pytestmark = pytest.mark.pure

EVERY_POOL = {'vtep': '10.255.1.0/24', 'mlag_peer': '10.255.3.0/28'}  # beside each example's own pools


def every_pool(design: str, **changes) -> dict:
    spec = example(design)
    spec['pools'] = {**EVERY_POOL, **spec['pools']}
    spec.update(changes)
    return spec


def expected_pools(raw: dict) -> set[str]:
    """The pools of a plan, from the spec's features: the loopback pool; the /31s of numbered links when there are
    spines (or room for them); VTEPs only in EVPN/VXLAN; peer-link /31s only for MLAG pairs; the leaf ASN range with a
    BGP underlay; the management network when given; outside EVPN, one per-rack pool per routed class with a
    subnet."""
    evpn = raw['design'] == 'evpn-vxlan'
    underlay = raw.get('underlay', 'ebgp')
    pools = {'loopback'}
    if (raw['spines'] or raw['maximums']['spines']) and underlay not in UNNUMBERED_UNDERLAYS:
        pools.add('p2p')
    if evpn:
        pools.add('vtep')
    if raw.get('mlag_pairs'):
        pools.add('mlag_peer')
    if underlay in BGP_UNDERLAYS:
        pools.add('leaf_asn')
    if raw['pools'].get('management'):
        pools.add('management')
    if not evpn:
        pools.update(
            rack_pool_name(tc['name']) for tc in raw['traffic_classes'] if tc.get('subnet') and tc.get('routed', True)
        )
    return pools


CASES = [
    *((design, {}) for design in GUIDES),
    ('evpn-vxlan', {'underlay': 'ebgp-unnumbered'}),
    ('routed', {'underlay': 'ebgp-unnumbered'}),
]


@pytest.mark.parametrize(('design', 'changes'), CASES, ids=[f'{d}-{"-".join(c) or "guide"}' for d, c in CASES])
def test_the_plan_holds_the_pools_of_its_design_only(design, changes):
    raw = every_pool(design, **changes)
    spec = load_spec(raw)
    plan = plan_fabric(spec)
    names = {pool.name for pool in plan.pools}
    assert names == expected_pools(raw)
    assert ('vtep' in names) == (raw['design'] == 'evpn-vxlan')
    # each is used now; only the /31s wait for spines the maximums leave room for (the MLAG example has none yet)
    unused = {pool.name for pool in plan.pools if not pool.used}
    assert unused == ({'p2p'} if 'p2p' in names and not raw['spines'] else set())
    address_pools = {name for name in names if name in ('loopback', 'p2p', 'vtep', 'mlag_peer')}
    assert design_pools(spec) == address_pools


def test_a_vtep_pool_given_to_a_routed_fabric_is_still_checked():
    """Left out of the plan, the unused pool is still a pool the spec names: a malformed one is refused as before."""
    raw = every_pool('routed')
    raw['pools']['vtep'] = '10.255.1.1/24'
    with pytest.raises(Exception, match='host bits set') as info:
        plan_fabric(load_spec(raw))
    assert info.value.field == 'pools.vtep'
