"""A bond on one leaf of an MLAG pair or an EVPN multihoming pair renders as a LAG of that switch alone on
every NOS: no MLAG interface id (EOS ``mlag N``, NVUE ``bond mlag``, SONiC ``MCLAG_INTERFACE``, AVD ``mlag``) and no
Ethernet segment, while the pair's other bonds keep theirs. The expectations come from the spec (which server is on
one leaf), the rendered text is searched for that LAG's own lines."""

import json

import pyavd
import pytest

from netbox_aifabric.render.avd import avd_structured_config
from tests.render_fixtures import contexts_of, guide_spec
from tests.unit.templates.helpers import block, load_yaml, render

pytestmark = pytest.mark.pure


def single_leaf_bond(guide):
    """The guide's cluster in ``guide`` plus gpu9 with both bonded NICs on leaf1."""
    raw = guide_spec(guide)
    raw['servers'].append({'id': 9, 'name': 'gpu9', 'leaves': [1]})
    design = 'evpn-vxlan' if guide == 'evpn-mh' else guide
    return contexts_of(raw, design)['leaf1']


def lags(ctx):
    """``(the single-leaf bond, a bond across the pair)`` of leaf1's context."""
    by_peer = {lag['description']: lag for lag in ctx['lags']}
    return by_peer['gpu9 bond'], by_peer['gpu1 bond']


@pytest.mark.parametrize('guide', ['mlag', 'routed', 'evpn-vxlan'])
def test_eos_nvue_sonic_avd_give_the_single_leaf_bond_no_mlag_id(guide):
    ctx = single_leaf_bond(guide)
    alone, paired = lags(ctx)
    assert (alone['dual_homed'], paired['dual_homed']) == (False, True)
    assert len(alone['members']) == 2
    number = lambda lag: int(lag['name'].removeprefix('Port-Channel'))  # noqa: E731
    eos = render('eos/eos.cfg.j2', ctx)
    assert f'   mlag {number(paired)}' in block(eos, f'interface {paired["name"]}')
    assert not [line for line in block(eos, f'interface {alone["name"]}') if line.strip().startswith('mlag')]
    for member in alone['members']:
        assert f'   channel-group {number(alone)} mode active' in block(eos, f'interface {member}')
    nvue = load_yaml(render('cumulus/startup.yaml.j2', ctx))
    interfaces = next(item['set']['interface'] for item in nvue if 'interface' in item.get('set', {}))
    bond = lambda lag: interfaces[f'bond{number(lag)}']['bond']  # noqa: E731
    assert bond(paired)['mlag']['id'] == number(paired)
    assert 'mlag' not in bond(alone) and len(bond(alone)['member']) == len(alone['members'])
    sonic = json.loads(render('sonic/config_db.json.j2', ctx))
    mclag = set(sonic['MCLAG_INTERFACE'])
    assert f'1|PortChannel{number(paired)}' in mclag and f'1|PortChannel{number(alone)}' not in mclag
    assert {f'PortChannel{number(alone)}|{m}' for m in alone['members']} <= set(sonic['PORTCHANNEL_MEMBER'])
    config = avd_structured_config(ctx)
    assert pyavd.validate_structured_config(config).validation_result.violations == []
    channels = {pc['name']: pc for pc in config['port_channel_interfaces']}
    assert channels[paired['name']]['mlag'] == number(paired)
    assert 'mlag' not in channels[alone['name']]


def test_a_single_leaf_bond_on_an_evpn_multihoming_pair_gets_no_segment():
    ctx = single_leaf_bond('evpn-mh')
    alone, paired = lags(ctx)
    assert paired['esi'] and 'esi' not in alone
    assert alone['name'] not in {s['lag'] for s in ctx['evpn_mh']['segments']}
    nvue = load_yaml(render('cumulus/startup.yaml.j2', ctx))
    interfaces = next(item['set']['interface'] for item in nvue if 'interface' in item.get('set', {}))
    number = int(alone['name'].removeprefix('Port-Channel'))
    assert 'evpn' not in interfaces[f'bond{number}']
