"""Config injection: hostile text in every free-text field of the context never changes a rendered config's
structure, on every NOS.

The models refuse control characters in names (``validate_no_control_characters``), but a context can also come from
an older NetBox object, an adopted device's name or a config-context override: the templates are the second line of
defence. Each free-text value ``v`` of a guide context (fabric, host and peer names, descriptions, VLAN, VRF and
tenant names, the QoS profile and preset) becomes ``v + MARK`` in the clean context and ``v + MARK + payload`` in
the hostile one (one mapping for the whole context, so that equal names stay equal). Then:

- EOS and FRR: the config lines, each cut at its first ``MARK``, are the same list in both renders: no line
  appears, disappears or changes outside the free text; FRR's own parser and daemons accept the hostile frr.conf.
- NVUE (YAML) and SONiC (JSON): the hostile output parses, and with the payload taken out of every key and string it
  is the clean output's data exactly (same keys, same values: the free text arrives as one string, unaltered).
"""

import json

import pytest
import yaml

from netbox_aifabric.render.filters import EOS_DESCRIPTION_MAX
from tests.frr import check_frr_config, frr_available
from tests.render_fixtures import GUIDES, guide_contexts
from tests.unit.templates.helpers import render

pytestmark = pytest.mark.pure

MARK = 'ZZ'
PAYLOADS = {
    'newline-bgp': '\nrouter bgp 666\n neighbor 192.0.2.66 remote-as 666\n',
    'crlf-end': '\r\nend\r\n!',
    'control': '\x00\t\x1b[2J\x7f\x85\u2028x',
    'quotes': '"\'`',
    'braces': '{{ 7 * 7 }}{% if %}{x}',
    'yaml': ': - # &a *a !!str [x] {y: z} | > ? @',
    'json': '"}, "EVIL": {"x": "',
    'comment': ' ! # -- //',
}
TEMPLATES = {
    'eos': 'eos/eos.cfg.j2',
    'frr': 'frr/frr.conf.j2',
    'nvue': 'cumulus/startup.yaml.j2',
    'sonic': 'sonic/config_db.json.j2',
}


def _names(context):
    """Every free-text value of a switch's context: what a user or another system named."""
    values = [context['fabric']['name'], context['hostname']]
    for port in context['interfaces']:
        values += [port['description'], port['peer_device'], port['peer_interface']]
    values += [lag['description'] for lag in context['lags']]
    for vlan in context['vlans']:
        values += [vlan['name'], vlan.get('vrf')]
    for vrf in context['vrfs']:
        values += [vrf['name'], vrf['tenant']]
    if context['bgp']:
        values += [n['peer'] for n in context['bgp']['neighbors'] + context['bgp']['evpn_peers']]
    if context['mlag']:
        values.append(context['mlag']['peer'])
    if context['evpn_mh']:
        values.append(context['evpn_mh']['peer'])
    if context['qos']:
        values += [context['qos']['profile'], context['qos']['preset']]
    return {v for v in values if v}


def _rename(context, change, vrf_change=None):
    """``context`` with ``change(value)`` for every free-text value (the same function everywhere; ``vrf_change``
    for the VRF names when given)."""
    vrf_change = vrf_change or change
    ctx = json.loads(json.dumps(context))
    ctx['fabric']['name'] = change(ctx['fabric']['name'])
    ctx['hostname'] = change(ctx['hostname'])
    for port in ctx['interfaces']:
        for key in ('description', 'peer_device', 'peer_interface'):
            port[key] = change(port[key])
    for lag in ctx['lags']:
        lag['description'] = change(lag['description'])
    for vlan in ctx['vlans']:
        vlan['name'] = change(vlan['name'])
        if vlan.get('vrf'):
            vlan['vrf'] = vrf_change(vlan['vrf'])
    for vrf in ctx['vrfs']:
        vrf['name'] = vrf_change(vrf['name'])
        if vrf['tenant']:
            vrf['tenant'] = change(vrf['tenant'])
    if ctx['bgp']:
        for n in ctx['bgp']['neighbors'] + ctx['bgp']['evpn_peers']:
            n['peer'] = change(n['peer'])
    if ctx['mlag']:
        ctx['mlag']['peer'] = change(ctx['mlag']['peer'])
    if ctx['evpn_mh']:
        ctx['evpn_mh']['peer'] = change(ctx['evpn_mh']['peer'])
    if ctx['qos']:
        ctx['qos']['profile'] = change(ctx['qos']['profile'])
        if ctx['qos']['preset']:
            ctx['qos']['preset'] = change(ctx['qos']['preset'])
    return ctx


def _switches():
    for guide in GUIDES:
        for name, context in guide_contexts(guide).items():
            if context['role'] in ('spine', 'leaf', 'border'):
                yield guide, name, context


SWITCHES = list(_switches())


def _cut(text):
    """The config's lines, each cut at its first MARK: what is left is the structure around the free text."""
    return [line.split(MARK, 1)[0] for line in text.split('\n')]


def _without(data, payload):
    """Parsed YAML/JSON with ``payload`` taken out of every key and string."""
    if isinstance(data, dict):
        return {_without(k, payload): _without(v, payload) for k, v in data.items()}
    if isinstance(data, list):
        return [_without(v, payload) for v in data]
    if isinstance(data, str):
        return data.replace(payload, '')
    return data


def _yaml(text):
    """PyYAML's safe loader in libyaml (CSafeLoader, same YAML 1.1 rules): the pure-Python one took 73 ms per leaf
    config, 448 parses here, about 20 s of the pure tier."""
    return yaml.load(text, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))


def _renders(nos, context, payload):
    if nos == 'sonic' and context['evpn_mh']:
        pytest.skip('SONiC refuses EVPN multihoming leaves (UnsupportedFeature)')
    assert _names(context), 'no free text to inject into'
    clean = render(TEMPLATES[nos], _rename(context, lambda v: v + MARK))
    hostile = render(TEMPLATES[nos], _rename(context, lambda v: v + MARK + payload))
    return clean, hostile


@pytest.mark.parametrize('payload', list(PAYLOADS.values()), ids=list(PAYLOADS))
@pytest.mark.parametrize('nos', ['eos', 'frr'])
@pytest.mark.parametrize(('guide', 'device', 'context'), SWITCHES, ids=[f'{g}-{d}' for g, d, _ in SWITCHES])
def test_cli_lines_unchanged(guide, device, context, nos, payload):
    clean, hostile = _renders(nos, context, payload)
    assert _cut(hostile) == _cut(clean)


@pytest.mark.parametrize('payload', list(PAYLOADS.values()), ids=list(PAYLOADS))
@pytest.mark.parametrize(('guide', 'device', 'context'), SWITCHES, ids=[f'{g}-{d}' for g, d, _ in SWITCHES])
def test_nvue_yaml_unchanged(guide, device, context, payload):
    clean, hostile = _renders('nvue', context, payload)
    assert _without(_yaml(hostile), payload) == _yaml(clean)


@pytest.mark.parametrize('payload', list(PAYLOADS.values()), ids=list(PAYLOADS))
@pytest.mark.parametrize(('guide', 'device', 'context'), SWITCHES, ids=[f'{g}-{d}' for g, d, _ in SWITCHES])
def test_sonic_json_unchanged(guide, device, context, payload):
    clean, hostile = _renders('sonic', context, payload)
    assert _without(json.loads(hostile), payload) == json.loads(clean)


def _first_of_each_role(guide):
    """The guide's first switch of each role: the frr.conf template's branches are per role (and design)."""
    seen = {}
    for _guide, device, context in (s for s in SWITCHES if s[0] == guide):
        seen.setdefault(context['role'], device)
    return set(seen.values())


def _assert_frr_accepts_hostile(guide, payload, devices):
    checked = [s for s in SWITCHES if s[0] == guide and s[1] in devices]
    assert devices and len(checked) == len(devices)  # never a vacuous pass
    for _guide, device, context in checked:
        hostile = render(TEMPLATES['frr'], _rename(context, lambda v: v + MARK + payload, lambda v: v + MARK))
        result = check_frr_config(hostile)
        assert result.ok, f'{device}:\n{result.output}'


# FRR's dry runs cost about 0.2 s of CPU per switch: the pure tier (scripts/test -m pure) checks the first switch of
# each role of each guide, CI (slow included) also the others, which take the same template branches as their twin.
@pytest.mark.skipif(not frr_available(), reason="FRR's vtysh and daemons are not installed")
@pytest.mark.parametrize('payload', list(PAYLOADS.values()), ids=list(PAYLOADS))
@pytest.mark.parametrize('guide', GUIDES)
def test_frr_accepts_the_hostile_render(guide, payload):
    """FRR's parser and daemons accept the hostile frr.conf. VRF names keep their clean value here: FRR refuses a VRF
    name over 36 bytes or with quotes (zebra: ``VRF name ... length exceeds 36 bytes``, ``Failed to edit
    configuration``), a refusal of the name, not an injection; the structure tests above inject into them too."""
    _assert_frr_accepts_hostile(guide, payload, _first_of_each_role(guide))


@pytest.mark.slow
@pytest.mark.skipif(not frr_available(), reason="FRR's vtysh and daemons are not installed")
@pytest.mark.parametrize('payload', list(PAYLOADS.values()), ids=list(PAYLOADS))
@pytest.mark.parametrize('guide', GUIDES)
def test_frr_accepts_the_hostile_render_on_the_other_switches(guide, payload):
    """As above, on the guide's switches that test_frr_accepts_the_hostile_render leaves to CI."""
    others = {device for g, device, _ in SWITCHES if g == guide} - _first_of_each_role(guide)
    _assert_frr_accepts_hostile(guide, payload, others)


@pytest.mark.parametrize(('guide', 'device', 'context'), SWITCHES, ids=[f'{g}-{d}' for g, d, _ in SWITCHES])
def test_eos_descriptions_fit(guide, device, context):
    """EOS takes an interface description of up to 240 characters (``EOS_DESCRIPTION_MAX``): long names are cut."""
    text = render(TEMPLATES['eos'], _rename(context, lambda v: v + 'x' * 300))
    descriptions = [line.strip() for line in text.split('\n') if line.startswith('   description ')]
    assert descriptions
    assert all(len(line.removeprefix('description ')) <= EOS_DESCRIPTION_MAX for line in descriptions)
