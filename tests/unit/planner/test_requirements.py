"""``required_inputs`` is the planner's own rule: each input it names, left out, is refused on that field by the spec
checks, and an input it does not name can be left out. The wizard's pools step and ``Fabric.required_pools`` read it."""

import pytest

from netbox_aifabric.planner import SpecError, load_spec, plan_fabric
from netbox_aifabric.planner.requirements import required_inputs

from .helpers import GUIDES, example

pytestmark = pytest.mark.pure
OPTIONAL = ('pools.loopback', 'pools.p2p', 'pools.vtep', 'pools.mlag_peer', 'spine_asn', 'leaf_asn_range')


def without(raw: dict, name: str) -> dict:
    if name.startswith('pools.'):
        raw['pools'].pop(name.removeprefix('pools.'), None)
    else:
        raw.pop(name, None)
    return raw


def inputs_of(raw: dict) -> tuple[str, ...]:
    spec = load_spec(raw)
    return required_inputs(
        spines=len(spec.spines),
        max_spines=spec.maximums.spines,
        evpn=spec.evpn,
        mlag_pairs=bool(spec.mlag_pairs),
        underlay=spec.underlay,
    )


def refused_field(raw: dict) -> str | None:
    try:
        plan_fabric(load_spec(raw))
    except SpecError as e:
        return e.field
    return None


@pytest.mark.parametrize('guide', GUIDES)
@pytest.mark.parametrize('name', OPTIONAL)
def test_a_required_input_left_out_is_refused_on_its_field(guide, name):
    raw = example(guide)
    required = inputs_of(raw)
    field = refused_field(without(raw, name))
    if name in required:
        assert field == name
    else:
        assert field != name


def test_the_guides_need_what_their_designs_say():
    """The expectation from the designs: EVPN adds the VTEP pool, MLAG pairs the peer pool, eBGP the leaf range and,
    with spines, the spine ASN (guide-mlag has none yet: room for two, so the point-to-point pool stays)."""
    assert {guide: inputs_of(example(guide)) for guide in GUIDES} == {
        'mlag': ('pools.loopback', 'pools.p2p', 'pools.mlag_peer', 'leaf_asn_range'),
        'routed': ('pools.loopback', 'pools.p2p', 'pools.mlag_peer', 'spine_asn', 'leaf_asn_range'),
        'evpn-vxlan': ('pools.loopback', 'pools.p2p', 'pools.vtep', 'pools.mlag_peer', 'spine_asn', 'leaf_asn_range'),
        'evpn-mh': ('pools.loopback', 'pools.p2p', 'pools.vtep', 'spine_asn', 'leaf_asn_range'),
    }


def test_ospf_with_evpn_needs_a_spine_asn_but_no_leaf_range():
    assert required_inputs(spines=2, max_spines=4, evpn=True, mlag_pairs=False, underlay='ospf') == (
        'pools.loopback',
        'pools.p2p',
        'pools.vtep',
        'spine_asn',
    )
    assert 'spine_asn' not in required_inputs(spines=2, max_spines=4, evpn=False, mlag_pairs=False, underlay='ospf')
