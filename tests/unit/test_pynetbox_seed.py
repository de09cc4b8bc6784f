"""examples/pynetbox_seed.py is standalone (pynetbox only): its copies of the NOS registry's platforms and device
types, and of the shape candidates, must stay equal to the plugin's."""

import importlib.util

import pytest

from netbox_aifabric.apply.shape import SHAPE_CANDIDATES
from netbox_aifabric.facts.nos import NOS_REGISTRY
from tests.render_fixtures import ROOT

pytestmark = pytest.mark.pure


def _example():
    path = ROOT / 'examples' / 'pynetbox_seed.py'
    spec = importlib.util.spec_from_file_location('pynetbox_seed_example', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_seed_names_every_nos_with_its_platform_and_device_types():
    expected = {nos.key: (nos.platform_slug, nos.leaf_device_type, nos.spine_device_type) for nos in NOS_REGISTRY}
    assert _example().NOS_HARDWARE == expected


def test_the_seed_defaults_to_a_nos_with_a_config_template_and_device_types():
    example = _example()
    platform, leaf, spine = example.NOS_HARDWARE[example.DEFAULT_NOS]
    nos = next(nos for nos in NOS_REGISTRY if nos.platform_slug == platform)
    assert nos.template and leaf and spine


def test_the_seed_tries_the_shapes_the_plugin_tries():
    assert _example().SHAPE_CANDIDATES == SHAPE_CANDIDATES


def test_nos_none_is_a_choice_and_an_unknown_nos_is_refused(capsys):
    example = _example()
    with pytest.raises(SystemExit) as exit_:
        example.main(['http://127.0.0.1:1', 'token', '--nos', 'junos'])
    assert exit_.value.code == 2
    assert "invalid choice: 'junos'" in capsys.readouterr().err
    assert example.lookup_hardware(None, 'none') == {}
