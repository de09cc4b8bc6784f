"""The guide's cluster has one source (netbox_aifabric/planner/guide.py); the standalone pynetbox example keeps a copy,
which must stay equal to it."""

import pytest

from netbox_aifabric.facts.catalog import traffic_class_seed
from netbox_aifabric.planner.guide import GUIDE_OVERLAY, GUIDE_QOS_PRESET, GUIDE_SHAPE, GUIDE_SIZES, GUIDE_TENANT
from tests.render_fixtures import pynetbox_seed_example

pytestmark = pytest.mark.pure


def test_the_standalone_example_copies_the_guide_shape_exactly():
    example = pynetbox_seed_example()
    assert example.GUIDE_SHAPE == GUIDE_SHAPE
    assert example.GUIDE_OVERLAY == {k: v for k, v in GUIDE_OVERLAY.items() if k != 'spine_asn'}
    assert example.TENANT_CLASSES == GUIDE_TENANT['classes']
    assert example.QOS_PROFILE == GUIDE_QOS_PRESET
    # what the example sends is the shape (its own pools and ASNs aside)
    assert {k: example.FABRIC_VALUES[k] for k in GUIDE_SHAPE} == GUIDE_SHAPE


def test_the_shape_is_consistent():
    assert GUIDE_SIZES.items() <= GUIDE_SHAPE.items()
    assert GUIDE_SHAPE['spine_count'] <= GUIDE_SHAPE['max_spines']
    assert GUIDE_SHAPE['leaf_count'] <= GUIDE_SHAPE['max_leaves']
    assert GUIDE_SHAPE['uplinks_per_spine'] <= GUIDE_SHAPE['max_parallel_uplinks']
    slugs = {tc['slug'] for tc in traffic_class_seed()}
    assert set(GUIDE_TENANT['classes']) <= slugs, 'the tenant routes classes the seed does not ship'
