"""EVPN multihoming (examples/guide-evpn-mh.yaml: an all-active ESI-LAG pair, no peer link, a VTEP and an ASN per
leaf): the exact per-NOS lines each bond's Ethernet segment implies, derived from the context's ESI; both leaves of the
pair printing the same segment; SONiC refusing to render it; ``check_segments`` catching contexts that disagree.
Goldens and the generic per-design checks run from the other modules (``evpn-mh`` is one of their cases).
"""

import copy
import json
import os

import pytest

from extras.models import ConfigTemplate

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.render.avd import avd_structured_config
from netbox_aifabric.render.filters import UnsupportedFeature
from tests.frr import check_frr_config, frr_available
from tests.render_fixtures import guide_contexts, guide_intent, guide_spec, plan_of
from tests.unit.templates.helpers import load_yaml, render
from tests.unit.templates.segments import check_segments, esi_parts

pytestmark = pytest.mark.pure

LEAVES = ('leaf1', 'leaf2')
FRR, NVUE, EOS, SONIC = 'frr/frr.conf.j2', 'cumulus/startup.yaml.j2', 'eos/eos.cfg.j2', 'sonic/config_db.json.j2'


def contexts():
    return guide_contexts('evpn-mh')


def segments(ctx):
    """The bonds with an Ethernet segment, from ``lags[]``."""
    return [lag for lag in ctx['lags'] if lag.get('esi')]


def octets(esi):
    return esi.split(':')


def eos_identifier(esi):
    """EOS's type-0 identifier for a type-3 ESI, computed here independently of the plugin's filter."""
    digits = '00' + ''.join(octets(esi)[1:])
    return ':'.join(digits[i : i + 4] for i in range(0, 20, 4))


def block(text, header, indent=' '):
    """The lines under ``header`` up to the next line that is not indented by ``indent``."""
    lines = text.splitlines()
    body = []
    for line in lines[lines.index(header) + 1 :]:
        if not line.startswith(indent):
            break
        body.append(line)
    return body


def test_the_pair():
    ctxs = contexts()
    assert [ctxs[leaf]['evpn_mh']['peer'] for leaf in LEAVES] == ['leaf2', 'leaf1']
    assert all(ctxs[leaf]['mlag'] is None for leaf in LEAVES)
    assert ctxs['leaf1']['asn'] != ctxs['leaf2']['asn'] and ctxs['leaf1']['vtep'] != ctxs['leaf2']['vtep']
    assert len(segments(ctxs['leaf1'])) == 5  # the five servers' bonds
    assert ctxs['spine1']['evpn_mh'] is None
    for leaf in LEAVES:
        for lag in segments(ctxs[leaf]):
            assert {key: lag[key] for key in esi_parts(lag['esi'])} == esi_parts(lag['esi'])


# FRR


def frr_esi(sys_mac, es_id):
    """The type-3 ESI FRR derives from ``es-sys-mac`` and ``es-id``: 03, the MAC, the id as three octets."""
    local = f'{es_id:06x}'
    return ':'.join(['03', sys_mac, local[0:2], local[2:4], local[4:6]])


@pytest.mark.parametrize('leaf', LEAVES)
def test_frr_segments_and_uplinks(leaf):
    ctx = contexts()[leaf]
    text = render(FRR, ctx)
    for lag in segments(ctx):
        body = block(text, f'interface {lag["name"].replace("Port-Channel", "PortChannel")}')
        assert f' evpn mh es-id {lag["es_id"]}' in body
        assert f' evpn mh es-sys-mac {lag["es_sys_mac"]}' in body
        assert frr_esi(lag['es_sys_mac'], lag['es_id']) == lag['esi']
    uplinks = [i['name'] for i in ctx['interfaces'] if i['kind'] == 'uplink']
    assert uplinks
    for name in uplinks:
        assert ' evpn mh uplink' in block(text, f'interface {name}')
    assert text.count(' evpn mh uplink\n') == len(uplinks)
    assert text.count(' evpn mh es-id ') == len(segments(ctx))
    assert ' neighbor MLAG-PEER peer-group' not in text


def test_frr_without_evpn_mh_has_no_evpn_mh_lines():
    for design, device in (('evpn-vxlan', 'leaf1'), ('evpn-mh', 'spine1'), ('mlag', 'leaf1')):
        assert 'evpn mh' not in render(FRR, guide_contexts(design)[device])


@pytest.mark.parametrize('leaf', LEAVES)
def test_frr_accepts_the_evpn_mh_lines(leaf):
    """zebra's interface node holds ``evpn mh``: vtysh's grammar and zebra's own handlers (tests/frr.py, as root)
    accept every line."""
    if not frr_available():
        pytest.skip('FRR is not installed (test_frr_sonic.py fails for it unless AIFABRIC_SKIP_FRR=1)')
    result = check_frr_config(render(FRR, contexts()[leaf]))
    assert result.ok, result.output
    if os.geteuid() == 0:
        assert any(part.endswith('/zebra') for command in result.commands for part in command)


# NVUE


def nvue(ctx):
    return load_yaml(render(NVUE, ctx))[0]['set']


@pytest.mark.parametrize('leaf', LEAVES)
def test_nvue_segments_and_uplinks(leaf):
    ctx = contexts()[leaf]
    config = nvue(ctx)
    assert config['evpn'] == {'enable': True, 'multihoming': {'enable': True}}
    assert 'mlag' not in config
    for lag in segments(ctx):
        bond = config['interface'][lag['name'].replace('Port-Channel', 'bond')]
        segment = bond['evpn']['multihoming']['segment']
        assert segment == {'enable': True, 'local-id': lag['es_id'], 'mac-address': lag['es_sys_mac']}
        # NVUE's ESI: 03, the segment MAC, the local id as three octets
        assert frr_esi(segment['mac-address'], segment['local-id']) == lag['esi']
        assert 'mlag' not in bond['bond']
    for iface in ctx['interfaces']:
        port = config['interface'][iface['name'].replace('Ethernet', 'swp')]
        expected = {'multihoming': {'uplink': True}} if iface['kind'] == 'uplink' else None
        assert port.get('evpn') == expected


# EOS and AVD


def dotted(mac):
    digits = mac.replace(':', '')
    return f'{digits[0:4]}.{digits[4:8]}.{digits[8:12]}'


def eos_segment_lines(lag):
    """What EOS must show for a bond's segment: the identifier, the ES-import route target (the ESI's last six
    octets, as AVD derives it from its short ESI) and the ESI's MAC as the LACP system id."""
    return [
        '   evpn ethernet-segment',
        f'      identifier {eos_identifier(lag["esi"])}',
        f'      route-target import {":".join(octets(lag["esi"])[4:])}',
        f'   lacp system-id {dotted(":".join(octets(lag["esi"])[1:7]))}',
    ]


def eos_segments(text):
    """``{Port-Channel: [its evpn ethernet-segment lines]}`` of an EOS configuration (comments dropped)."""
    found, name = {}, None
    for line in text.splitlines():
        if line.startswith('interface Port-Channel'):
            name = line.split()[1]
        elif line.startswith('   evpn ethernet-segment') or (line.startswith(('      ', '   lacp ')) and name in found):
            if not line.strip().startswith('!'):
                found.setdefault(name, []).append(line)
        elif not line.startswith(' '):
            name = None
    return found


@pytest.mark.parametrize('leaf', LEAVES)
def test_eos_segments(leaf):
    ctx = contexts()[leaf]
    expected = {lag['name']: eos_segment_lines(lag) for lag in segments(ctx)}
    text = render(EOS, ctx)
    assert eos_segments(text) == expected
    assert 'mlag' not in text


@pytest.mark.parametrize('leaf', LEAVES)
def test_avd_segments(leaf):
    pyavd = pytest.importorskip('pyavd', reason='pyavd comes with the dev and benchmark extras')
    ctx = contexts()[leaf]
    config = avd_structured_config(ctx)
    result = pyavd.validate_structured_config(config)
    assert [v.message for v in result.validation_result.violations] == []
    expected = {lag['name']: eos_segment_lines(lag) for lag in segments(ctx)}
    assert eos_segments(pyavd.get_device_config(config)) == expected


# The lines that carry a segment's values, per template (stripped; a few also match lines outside the segments).
SEGMENT_LINES = {
    FRR: ('evpn mh es-id ', 'evpn mh es-sys-mac '),
    NVUE: ('local-id: ', 'mac-address: '),
    EOS: ('identifier ', 'route-target import ', 'lacp system-id '),
}


@pytest.mark.parametrize('template', SEGMENT_LINES)
def test_both_leaves_print_the_same_segments(template):
    """Each bond's segment values, as each NOS prints them, are the same on the two leaves and differ between bonds."""
    printed = {}
    for leaf in LEAVES:
        stripped = [line.strip() for line in render(template, contexts()[leaf]).splitlines()]
        printed[leaf] = [line for line in stripped if line.startswith(SEGMENT_LINES[template])]
    assert printed['leaf1'] == printed['leaf2']
    identifiers = [line for line in printed['leaf1'] if line.startswith(SEGMENT_LINES[template][0])]
    assert len(identifiers) == len(set(identifiers)) == len(segments(contexts()['leaf1']))


# SONiC


@pytest.mark.parametrize('leaf', LEAVES)
def test_sonic_refuses_an_evpn_mh_leaf(leaf):
    with pytest.raises(UnsupportedFeature, match='EVPN multihoming') as raised:
        render(SONIC, contexts()[leaf])
    # as NetBox reports it (render-config, the fabric render): the error's name and the reason
    message = ConfigTemplate(name='AI fabric SONiC').format_render_error(raised.value)
    assert message.startswith('UnsupportedFeature: SONiC cannot render this leaf: it is one of an EVPN multihoming')
    assert '2026 master' in message


def test_sonic_renders_the_rest_of_the_fabric():
    assert json.loads(render(SONIC, contexts()['spine1']))['DEVICE_METADATA']['localhost']['hostname'] == 'spine1'
    ctx = copy.deepcopy(contexts()['leaf1'])
    ctx['evpn_mh'] = None  # the refusal follows evpn_mh only
    assert 'PORTCHANNEL' in json.loads(render(SONIC, ctx))


# check_segments: the pair's contexts must agree


def set_esi(ctx, bond, esi):
    """Give ``bond`` another ESI in one context, consistently (lags[], its per-NOS fields, evpn_mh.segments)."""
    lag = next(lag for lag in ctx['lags'] if lag['name'] == bond)
    lag.update(esi=esi, **esi_parts(esi))
    next(s for s in ctx['evpn_mh']['segments'] if s['lag'] == bond)['esi'] = esi


def test_check_segments_passes_the_guide():
    for guide in ('evpn-mh', 'evpn-vxlan', 'mlag', 'routed'):
        assert check_segments(guide_contexts(guide)) == []


def test_check_segments_catches_a_pair_that_disagrees():
    ctxs = contexts()
    set_esi(ctxs['leaf2'], 'Port-Channel1', '03:02:ae:00:00:00:01:00:00:63')
    assert check_segments(ctxs) == [
        'Port-Channel1: leaf1 has ESI 03:02:ae:00:00:00:01:00:00:01, its pair leaf2 has 03:02:ae:00:00:00:01:00:00:63'
    ]
    # and the templates would print the disagreement: leaf1 and leaf2 configure different segments for one bond
    frr = {leaf: block(render(FRR, ctxs[leaf]), 'interface PortChannel1') for leaf in LEAVES}
    assert frr['leaf1'] != frr['leaf2']


def test_check_segments_catches_other_mistakes():
    ctxs = contexts()
    set_esi(ctxs['leaf1'], 'Port-Channel2', '03:02:ae:00:00:00:01:00:00:01')  # Port-Channel1's ESI
    set_esi(ctxs['leaf2'], 'Port-Channel2', '03:02:ae:00:00:00:01:00:00:01')
    assert check_segments(ctxs) == ['ESI 03:02:ae:00:00:00:01:00:00:01 is used by 2 segments']
    ctxs = contexts()
    ctxs['leaf1']['lags'][2]['es_id'] = 7
    assert check_segments(ctxs) == ['leaf1 Port-Channel3: es_id 7 does not match ESI 03:02:ae:00:00:00:01:00:00:03 (3)']
    ctxs = contexts()
    ctxs['leaf2']['evpn_mh']['peer'] = 'leaf3'
    ctxs['leaf2']['evpn_mh']['segments'].pop()
    problems = check_segments(ctxs)
    assert 'leaf1: its pair leaf2 does not name it as its EVPN multihoming peer' in problems
    assert 'leaf2: its pair leaf3 does not name it as its EVPN multihoming peer' in problems
    assert any(p.startswith('leaf2: evpn_mh.segments') for p in problems)


def test_frr_ospf_underlay_keeps_one_block_per_uplink():
    """With an OSPF underlay an uplink's OSPF and ``evpn mh uplink`` lines share its one interface block."""
    raw = guide_spec('evpn-mh')
    raw['underlay'] = 'ospf'
    intent = guide_intent('evpn-vxlan')
    intent['fabric']['underlay'] = 'ospf'
    ctx = build_contexts(plan_of(raw), intent)['leaf1']
    text = render(FRR, ctx)
    for iface in (i for i in ctx['interfaces'] if i['kind'] == 'uplink'):
        assert text.count(f'interface {iface["name"]}\n') == 1
        assert block(text, f'interface {iface["name"]}')[1:] == [
            f' ip ospf area {ctx["ospf"]["area"]}',
            ' ip ospf network point-to-point',
            ' evpn mh uplink',
        ]
    if frr_available():
        assert check_frr_config(text).ok
