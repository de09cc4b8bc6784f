"""examples/pynetbox_seed.py is standalone (pynetbox only): its copies of the NOS registry's platforms and device
types, and of the shape candidates, must stay equal to the plugin's."""

import pytest

from netbox_aifabric.apply.shape import SHAPE_CANDIDATES
from netbox_aifabric.facts.nos import NOS_REGISTRY
from tests.render_fixtures import pynetbox_seed_example

pytestmark = pytest.mark.pure


def test_the_seed_names_every_nos_with_its_platform_and_device_types():
    expected = {nos.key: (nos.platform_slug, nos.leaf_device_type, nos.spine_device_type) for nos in NOS_REGISTRY}
    assert pynetbox_seed_example().NOS_HARDWARE == expected


def test_the_seed_defaults_to_a_nos_with_a_config_template_and_device_types():
    example = pynetbox_seed_example()
    platform, leaf, spine = example.NOS_HARDWARE[example.DEFAULT_NOS]
    nos = next(nos for nos in NOS_REGISTRY if nos.platform_slug == platform)
    assert nos.template and leaf and spine


def test_the_seed_tries_the_shapes_the_plugin_tries():
    assert pynetbox_seed_example().SHAPE_CANDIDATES == SHAPE_CANDIDATES


def test_nos_none_is_a_choice_and_an_unknown_nos_is_refused(capsys):
    example = pynetbox_seed_example()
    with pytest.raises(SystemExit) as exit_:
        example.main(['http://127.0.0.1:1', 'token', '--nos', 'junos'])
    assert exit_.value.code == 2
    assert "invalid choice: 'junos'" in capsys.readouterr().err
    assert example.lookup_hardware(None, 'none') == {}


class _Endpoint:
    """A pynetbox endpoint's ``get(slug=...)`` over ``records`` (slug -> record); a call without a slug fails, as
    pynetbox's get() does when an empty filter matches several objects."""

    def __init__(self, records):
        self.records, self.asked = records, []

    def get(self, slug):
        self.asked.append(slug)
        if not slug:
            raise ValueError('get() returned more than one result')
        return self.records.get(slug)


class _Record:
    def __init__(self, id_, name):
        self.id, self.name, self.model = id_, name, name


class _Api:
    def __init__(self, platforms, device_types):
        self.dcim = type('dcim', (), {'platforms': _Endpoint(platforms), 'device_types': _Endpoint(device_types)})()


def _api(example, loaded_types=True):
    platforms = {slug: _Record(n, slug) for n, (slug, _, _) in enumerate(example.NOS_HARDWARE.values(), 1)}
    slugs = {slug for _, leaf, spine in example.NOS_HARDWARE.values() for slug in (leaf, spine) if slug}
    return _Api(
        platforms, {slug: _Record(100 + n, slug) for n, slug in enumerate(sorted(slugs))} if loaded_types else {}
    )


@pytest.mark.parametrize('key', ['sonic', 'nvue', 'eos', 'frr'])
def test_the_seed_picks_each_nos_platform_and_its_device_types(key):
    example = pynetbox_seed_example()
    nb = _api(example)
    platform, leaf, spine = example.NOS_HARDWARE[key]
    hardware = example.lookup_hardware(nb, key)
    assert hardware['platform'] == nb.dcim.platforms.records[platform].id
    if leaf:
        assert hardware['leaf_device_type'] == nb.dcim.device_types.records[leaf].id
        assert hardware['spine_device_type'] == nb.dcim.device_types.records[spine].id
    else:  # FRR: no device types of its own, none looked up
        assert set(hardware) == {'platform'} and nb.dcim.device_types.asked == []


def test_the_seed_keeps_generic_device_types_when_they_are_not_loaded():
    example = pynetbox_seed_example()
    nb = _api(example, loaded_types=False)
    assert set(example.lookup_hardware(nb, 'sonic')) == {'platform'}


def test_the_seed_stops_when_the_templates_are_not_loaded():
    example = pynetbox_seed_example()
    with pytest.raises(example.SeedError, match='aifabric_load_templates'):
        example.lookup_hardware(_Api({}, {}), 'sonic')
