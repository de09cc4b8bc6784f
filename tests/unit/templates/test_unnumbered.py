"""The unnumbered eBGP underlay (``ebgp-unnumbered``, RFC 5549) in the four NOS templates, for every guide switch.

What each NOS renders and its vendor sources: docs/unnumbered.md. The contexts are the planner's (the guide's spec
with ``underlay: ebgp-unnumbered``); every expectation is derived from them: each uplink the context marks
``unnumbered`` and each uplink session (no address, the local port, the peer's ASN) must appear in each NOS's own
terms, no uplink has an IPv4 address, and everything else (the MLAG peer session, the EVPN overlay, loopbacks, QoS,
management, ACLs) is line for line the numbered fabric's render, with the uplinks' lines taken out of both. Judges:
FRR's parser and daemons (tests/frr.py), pyavd's EOS CLI generator (Arista's own rendering of the same structured
config), NVUE's documented neighbour keys, SONiC's YANG (sonic_yang.py and sonic_refs.py, extended here with the two
leaves this adds). Each checker has negative controls: the template broken in one place, rendered, caught.
Goldens: golden/<nos>/<guide>-unnumbered-<switch>.* (UPDATE_GOLDEN=1 rewrites them)."""

import contextlib
import copy
import dataclasses
import ipaddress
import json
import os
from collections import Counter
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.render.filters import interface as nos_interface
from tests.frr import check_frr_config, frr_available
from tests.hypothesis_profiles import examples
from tests.render_fixtures import GUIDES, design_of, guide_intent, guide_spec, plan_of
from tests.unit.templates import sonic_refs, sonic_yang
from tests.unit.templates.helpers import TEMPLATES, _compiled, block, check_golden, load_yaml, render

pytestmark = pytest.mark.pure

FRR, EOS, NVUE, SONIC = 'frr/frr.conf.j2', 'eos/eos.cfg.j2', 'cumulus/startup.yaml.j2', 'sonic/config_db.json.j2'
GOLDEN = {FRR: 'frr/{}.conf', EOS: 'eos/{}.cfg', NVUE: 'cumulus/{}.yaml', SONIC: 'sonic/{}.json'}
GOLDEN_SWITCHES = [(guide, name) for guide in ('routed', 'evpn-vxlan') for name in ('leaf1', 'spine1')]


@cache
def _contexts(guide: str, underlay: str, bfd: bool) -> str:
    raw = guide_spec(guide)
    raw['underlay'] = underlay
    intent = guide_intent(design_of(guide), underlay)
    intent['bfd'] = bfd
    return json.dumps(build_contexts(plan_of(raw), intent))


def contexts(guide: str, underlay: str = 'ebgp-unnumbered', bfd: bool = False) -> dict:
    """``{switch: context}`` of the guide's cluster (a fresh copy each call)."""
    return {n: c for n, c in json.loads(_contexts(guide, underlay, bfd)).items() if c['role'] in ('spine', 'leaf')}


SWITCHES = [(guide, name) for guide in GUIDES for name in contexts(guide)]
SONIC_SWITCHES = [(g, n) for g, n in SWITCHES if not contexts(g)[n]['evpn_mh']]  # SONiC refuses EVPN-MH leaves


def uplink_sessions(ctx):
    return [n for n in ctx['bgp']['neighbors'] if n['kind'] == 'uplink']


def interface_sessions(ctx):
    """The uplink sessions on the interface (no address): all of them in an unnumbered fabric."""
    return [n for n in uplink_sessions(ctx) if n['address'] is None]


def unnumbered_ports(ctx):
    return [i['name'] for i in ctx['interfaces'] if i['unnumbered']]


def numbered_uplink_addresses(guide, name):
    """The far ends' addresses of the numbered fabric's uplink sessions: what must be gone once unnumbered."""
    return {n['address'] for n in uplink_sessions(contexts(guide, 'ebgp')[name])}


def render_broken(template, ctx, old, new):
    """``template`` with ``old`` (which must be there) replaced by ``new``, rendered: a negative control."""
    code = (TEMPLATES / template).read_text()
    assert old in code, f'{old!r} is not in {template}: the negative control is stale'
    return _compiled(code.replace(old, new)).render(aifabric=ctx).replace('\r\n', '\n')


def test_the_contexts_are_unnumbered():
    """The input the checks rely on: uplinks on every switch with spines, each unnumbered without an address, each
    uplink session without an address; the MLAG peer numbered; the MLAG design (no spines) has none."""
    for guide, name in SWITCHES:
        ctx = contexts(guide)[name]
        ports = unnumbered_ports(ctx)
        assert ctx['fabric']['underlay'] == 'ebgp-unnumbered' and ctx['bgp']['unnumbered'] is True
        assert ports == [i['name'] for i in ctx['interfaces'] if i['kind'] == 'uplink']
        assert all(i['address'] is None for i in ctx['interfaces'] if i['unnumbered'])
        assert [n['interface'] for n in uplink_sessions(ctx)] == ports
        assert all(n['address'] is None for n in uplink_sessions(ctx))
        assert all(n['address'] for n in ctx['bgp']['neighbors'] if n['kind'] == 'mlag-peer')
        assert bool(ports) == (guide != 'mlag'), (guide, name)


#
# Goldens
#


@pytest.mark.parametrize('template', list(GOLDEN))
@pytest.mark.parametrize(('guide', 'name'), GOLDEN_SWITCHES)
def test_golden(template, guide, name):
    check_golden(GOLDEN[template].format(f'{guide}-unnumbered-{name}'), render(template, contexts(guide)[name]))


#
# FRR
#


def frr_problems(ctx, text):
    """What the frr.conf lacks or has wrong for the context's unnumbered uplinks (empty: nothing)."""
    lines, found = text.splitlines(), []
    for n in uplink_sessions(ctx):
        if n['address'] and f' neighbor {n["address"]} peer-group UNDERLAY' not in lines:
            found.append(f'the numbered uplink session {n["address"]} is not in UNDERLAY')
    for n in interface_sessions(ctx):
        port = n['interface']
        for line in (
            f' neighbor {port} interface peer-group UNDERLAY',
            f' neighbor {port} remote-as {n["remote_asn"]}',
        ):
            if line not in lines:
                found.append(f'missing {line!r}')
    for port in unnumbered_ports(ctx):
        if f'interface {port}' not in lines:
            found.append(f'no interface {port} block')
            continue
        body = lines[lines.index(f'interface {port}') + 1 :]
        body = body[: body.index('exit')]
        if ' no ipv6 nd suppress-ra' not in body or not any(b.startswith(' ipv6 nd ra-interval ') for b in body):
            found.append(f'interface {port} sends no router advertisements: {body}')
        found += [f'interface {port} has {b!r}' for b in body if b.startswith(' ip address')]
    sessions = {line.split()[1] for line in lines if line.startswith(' neighbor ') and ' remote-as ' in line}
    expected = {n['address'] or n['interface'] for n in ctx['bgp']['neighbors']}
    expected |= {p['address'] for p in ctx['bgp']['evpn_peers']}
    if sessions != expected:
        found.append(f"sessions {sorted(sessions)} != the context's {sorted(expected)}")
    for n in ctx['bgp']['neighbors']:
        if n['kind'] == 'mlag-peer' and f' neighbor {n["address"]} peer-group MLAG-PEER' not in lines:
            found.append(f'the MLAG peer {n["address"]} is not numbered in MLAG-PEER')
    return found


def without_uplinks_frr(text, ports, addresses):
    """The frr.conf without what names an uplink: the header line with the underlay, the uplinks' interface blocks
    and their neighbour lines (by port or by the far end's address), and the ``!`` separators."""
    kept, skipping = [], False
    for line in text.splitlines():
        words = line.split()
        if line.startswith('interface ') and words[1] in ports:
            skipping = True
        if skipping:
            skipping = line != 'exit'
            continue
        if line.startswith(' neighbor ') and (words[1] in ports or words[1] in addresses):
            continue
        if line != '!' and ' underlay, role ' not in line:
            kept.append(line)
    return kept


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_frr_renders_interface_sessions(guide, name):
    ctx = contexts(guide)[name]
    assert frr_problems(ctx, render(FRR, ctx)) == []


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_frr_is_the_numbered_config_but_the_uplinks(guide, name):
    ctx, numbered = contexts(guide)[name], contexts(guide, 'ebgp')[name]
    ports, addresses = set(unnumbered_ports(ctx)), numbered_uplink_addresses(guide, name)
    assert without_uplinks_frr(render(FRR, ctx), ports, addresses) == without_uplinks_frr(
        render(FRR, numbered), ports, addresses
    )


MEMBER = ' neighbor {{ n.interface }} '
FRR_BREAKS = {
    'numbered-style member': (MEMBER + 'interface peer-group UNDERLAY', MEMBER + 'peer-group UNDERLAY'),
    'no remote-as': (MEMBER + 'remote-as {{ n.remote_asn }}', MEMBER + 'remote-as external'),
    'RA suppressed': (' no ipv6 nd suppress-ra', ' ipv6 nd suppress-ra'),
    'no interface block': ('or i.unnumbered %}', '%}'),
}


@pytest.mark.parametrize('old,new', list(FRR_BREAKS.values()), ids=list(FRR_BREAKS))
def test_frr_checker_catches_a_broken_template(old, new):
    ctx = contexts('routed')['leaf1']
    assert frr_problems(ctx, render_broken(FRR, ctx, old, new))


def assert_frr_accepts(text):
    """FRR's parser and daemons accept text; FRR missing is a failure unless AIFABRIC_SKIP_FRR=1 (as in
    test_frr_sonic.py)."""
    if not frr_available():
        if os.environ.get('AIFABRIC_SKIP_FRR') == '1':
            pytest.skip('FRR is not installed (AIFABRIC_SKIP_FRR=1)')
        pytest.fail('FRR is not installed: apt-get install frr (scripts/test does it as root), or AIFABRIC_SKIP_FRR=1')
    result = check_frr_config(text)
    assert result.ok, f'FRR rejected the rendered frr.conf ({" ".join(result.command)}):\n{result.output}\n\n{text}'


@pytest.mark.parametrize('bfd', [False, True], ids=['no-bfd', 'bfd'])
@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_frr_accepts_the_unnumbered_config(guide, name, bfd):
    ctx = contexts(guide, bfd=bfd)[name]
    text = render(FRR, ctx)
    lines = text.splitlines()
    assert (' neighbor UNDERLAY bfd profile AIFABRIC' in lines) == bool(bfd and uplink_sessions(ctx))
    assert_frr_accepts(text)
    if bfd:
        assert_frr_accepts(text)


@pytest.mark.parametrize('bfd', [False, True], ids=['no-bfd', 'bfd'])
@pytest.mark.parametrize('break_it', ['numbered-style member', 'no remote-as'])
def test_frr_refuses_a_broken_interface_session(break_it, bfd):
    """Negative control of the parser check: an interface session put in a peer group as a numbered neighbour
    (bgpd: "Malformed address or name: Ethernet65") and a remote-as that is no ASN are refused, with BFD too once
    bfdd's block is out of bgpd's way (with it, bgpd's dry run accepts the broken text: the blind spot above)."""
    if not frr_available():
        pytest.skip('FRR is not installed')
    old, new = FRR_BREAKS[break_it]
    broken = render_broken(FRR, contexts('routed', bfd=bfd)['leaf1'], old, new.replace('external', 'bogus'))
    assert not check_frr_config(broken).ok, broken


def test_bgpd_checks_the_lines_after_the_bfd_block():
    """bgpd's dry run used to read every line after bfdd's block as unknown (its ``exit`` lines leave configuration
    mode): tests/frr.py gives the daemons but bfdd the text without that block, so a broken line after it fails."""
    if not frr_available():
        pytest.skip('FRR is not installed')
    old, new = FRR_BREAKS['numbered-style member']
    broken = render_broken(FRR, contexts('routed', bfd=True)['leaf1'], old, new)
    assert not check_frr_config(broken).ok


#
# Arista EOS
#


def eos_problems(ctx, text):
    lines, found = text.splitlines(), []
    for port in unnumbered_ports(ctx):
        body = block(text, f'interface {port}')
        if '   no switchport' not in body or '   ipv6 enable' not in body:
            found.append(f'interface {port} is not routed on its IPv6 link-local address: {body}')
        found += [f'interface {port} has {b!r}' for b in body if b.startswith('   ip address')]
    bgp = block(text, f'router bgp {ctx["bgp"]["asn"]}')
    for n in interface_sessions(ctx):
        line = f'   neighbor interface {n["interface"]} peer-group UNDERLAY remote-as {n["remote_asn"]}'
        if line not in bgp:
            found.append(f'missing {line!r}')
    addressed = {line.split()[1] for line in bgp if line.startswith('   neighbor ') and ' remote-as ' in line}
    expected = {n['address'] for n in ctx['bgp']['neighbors'] if n['address']}
    expected |= {p['address'] for p in ctx['bgp']['evpn_peers']}
    if addressed - {'interface'} != expected:
        found.append(f"sessions by address {sorted(addressed)} != the context's {sorted(expected)}")
    if unnumbered_ports(ctx):
        wanted = ['ip routing ipv6 interfaces', 'ipv6 unicast-routing']
        found += [f'missing {w!r}' for w in wanted if w not in lines]
        found += ['plain "ip routing" next to "ip routing ipv6 interfaces"'] if 'ip routing' in lines else []
        ipv4 = bgp[bgp.index('   address-family ipv4') :]
        if '      neighbor UNDERLAY next-hop address-family ipv6 originate' not in ipv4:
            found.append('the IPv4 routes get no IPv6 next hop (next-hop address-family ipv6 originate)')
    return found


def without_uplinks_eos(text, ports, addresses):
    """The EOS config without what differs for the uplinks: the header line with the underlay, the uplinks' IPv4 or
    IPv6 addressing lines, their sessions, the global routing lines and the IPv6 next-hop line, ``!`` lines."""
    kept, port = [], None
    changed = {'ip routing', 'ip routing ipv6 interfaces', 'ipv6 unicast-routing'}
    for line in text.splitlines():
        words = line.split()
        if not line.startswith(' '):
            port = words[1] if line.startswith('interface ') else None
        if port in ports and (line.startswith('   ip address') or line == '   ipv6 enable'):
            continue
        if line.startswith('   neighbor ') and (words[1] in addresses or words[1] == 'interface'):
            continue
        if line in changed or line.endswith('next-hop address-family ipv6 originate'):
            continue
        if line.startswith('   ! ') and line.endswith(': IPv6 link-local session'):
            continue
        if line.strip() != '!' and ' underlay)' not in line:
            kept.append(line)
    return kept


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_eos_renders_interface_sessions(guide, name):
    ctx = contexts(guide)[name]
    assert eos_problems(ctx, render(EOS, ctx)) == []


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_eos_is_the_numbered_config_but_the_uplinks(guide, name):
    ctx, numbered = contexts(guide)[name], contexts(guide, 'ebgp')[name]
    ports, addresses = set(unnumbered_ports(ctx)), numbered_uplink_addresses(guide, name)
    assert without_uplinks_eos(render(EOS, ctx), ports, addresses) == without_uplinks_eos(
        render(EOS, numbered), ports, addresses
    )


def test_eos_mlag_pair_without_spines_keeps_ip_routing():
    text = render(EOS, contexts('mlag')['leaf1']).splitlines()
    assert 'ip routing' in text and 'ip routing ipv6 interfaces' not in text and 'ipv6 unicast-routing' not in text


def test_eos_lines_are_arista_avd_lines():
    """pyavd's eos_cli_config_gen (Arista's CLI generator) renders the unnumbered pieces from a structured config
    built from the context (AVD's keys for ``underlay_rfc5549``): each of its lines is in the template's render."""
    import pyavd

    ctx = contexts('evpn-vxlan')['spine1']
    structured = {
        'hostname': ctx['hostname'],
        'ip_routing_ipv6_interfaces': True,
        'ipv6_unicast_routing': True,
        'ethernet_interfaces': [
            {'name': port, 'switchport': {'enabled': False}, 'ipv6_enable': True} for port in unnumbered_ports(ctx)
        ],
        'router_bgp': {
            'as': str(ctx['bgp']['asn']),
            'peer_groups': [{'name': 'UNDERLAY'}],
            'neighbor_interfaces': [
                {'name': n['interface'], 'peer_group': 'UNDERLAY', 'remote_as': str(n['remote_asn'])}
                for n in uplink_sessions(ctx)
            ],
            'address_family_ipv4': {
                'peer_groups': [
                    {'name': 'UNDERLAY', 'next_hop': {'address_family_ipv6': {'enabled': True, 'originate': True}}}
                ]
            },
        },
    }
    assert not pyavd.validate_structured_config(structured).validation_result.violations
    ours = {line.strip() for line in render(EOS, ctx).splitlines()}
    wanted = {'ipv6 enable', 'ip routing ipv6 interfaces', 'ipv6 unicast-routing'}
    wanted |= {'neighbor UNDERLAY next-hop address-family ipv6 originate'}
    wanted |= {
        f'neighbor interface {n["interface"]} peer-group UNDERLAY remote-as {n["remote_asn"]}'
        for n in uplink_sessions(ctx)
    }
    avd = {line.strip() for line in pyavd.get_device_config(structured).splitlines()}
    assert wanted <= avd, wanted - avd  # the lines checked are Arista's
    assert wanted <= ours, wanted - ours


UNNUMBERED_EOS = ('ipv6 enable', 'ip routing', 'ip routing ipv6 interfaces', 'ipv6 unicast-routing')


def unnumbered_eos_lines(text, rename=None):
    """The lines of an EOS config that the unnumbered underlay changes, as (interface or '', line) pairs with the
    indentation dropped and the underlay peer group's name made the template's (``rename``)."""
    found, section = Counter(), ''
    for line in text.splitlines():
        if not line.startswith(' '):
            section = line if line.startswith('interface ') else ''
        words = line.strip()
        for avd_name, ours in (rename or {}).items():
            words = words.replace(avd_name, ours)
        if words in UNNUMBERED_EOS or words.startswith('neighbor interface ') or words.endswith('ipv6 originate'):
            found[section if words == 'ipv6 enable' else '', words] += 1
    return found


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_eos_equals_pyavd_of_the_avd_export(guide, name):
    """The AVD export (render/avd.py, AVD's underlay_rfc5549 keys) rendered by pyavd has the template's unnumbered
    lines, on the same interfaces: two renderings of one context that agree."""
    import pyavd

    from netbox_aifabric.render.avd import avd_structured_config

    ctx = contexts(guide)[name]
    avd = pyavd.get_device_config(avd_structured_config(ctx))
    expected = unnumbered_eos_lines(avd, {'IPv4-UNDERLAY-PEERS': 'UNDERLAY'})
    assert unnumbered_eos_lines(render(EOS, ctx)) == expected
    assert bool(unnumbered_ports(ctx)) == (expected['', 'ip routing ipv6 interfaces'] == 1)


EOS_BREAKS = {
    'no ipv6 enable': ('   no switchport\n   ipv6 enable', '   no switchport'),
    'no IPv6 next hop': ('      neighbor UNDERLAY next-hop address-family ipv6 originate\n', ''),
    'plain ip routing': ('ip routing ipv6 interfaces\n', 'ip routing\n'),
    'session by address': ('   neighbor interface {{ neighbor.interface }}', '   neighbor {{ neighbor.interface }}'),
}


@pytest.mark.parametrize('old,new', list(EOS_BREAKS.values()), ids=list(EOS_BREAKS))
def test_eos_checker_catches_a_broken_template(old, new):
    ctx = contexts('routed')['leaf1']
    assert eos_problems(ctx, render_broken(EOS, ctx, old, new))


#
# NVIDIA Cumulus Linux (NVUE)
#


def nvue_neighbors(doc):
    return doc[0]['set']['vrf']['default']['router']['bgp']['neighbor']


def nvue_problems(ctx, text):
    doc, found = load_yaml(text), []
    neighbors, interfaces = nvue_neighbors(doc), doc[0]['set']['interface']
    for n in interface_sessions(ctx):
        swp = nos_interface(n['interface'], 'nvue')
        got = neighbors.get(swp, {})
        if got.get('type') != 'unnumbered' or got.get('remote-as') != n['remote_asn']:
            found.append(f'neighbor {swp}: {got} (want type unnumbered, remote-as {n["remote_asn"]})')
    for port in unnumbered_ports(ctx):
        if 'ip' in interfaces[nos_interface(port, 'nvue')]:
            found.append(f'{port} has an address: {interfaces[nos_interface(port, "nvue")]["ip"]}')
    expected = {
        nos_interface(n['interface'], 'nvue') if n['address'] is None else n['address'] for n in ctx['bgp']['neighbors']
    }
    expected |= {p['address'] for p in ctx['bgp']['evpn_peers']}
    if set(neighbors) != expected:
        found.append(f"neighbours {sorted(neighbors)} != the context's {sorted(expected)}")
    found += [f'{k} is {v["type"]}' for k, v in neighbors.items() if _is_address(k) != (v['type'] == 'numbered')]
    return found


def _is_address(key):
    try:
        ipaddress.ip_address(key)
    except ValueError:
        return False
    return True


def nvue_without_uplinks(text, ports, addresses):
    doc = load_yaml(text)
    for key in list(nvue_neighbors(doc)):
        if key in addresses or key in {nos_interface(p, 'nvue') for p in ports}:
            del nvue_neighbors(doc)[key]
    for port in ports:
        doc[0]['set']['interface'][nos_interface(port, 'nvue')].pop('ip', None)
    return doc


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_nvue_renders_interface_sessions(guide, name):
    ctx = contexts(guide)[name]
    assert nvue_problems(ctx, render(NVUE, ctx)) == []


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_nvue_is_the_numbered_config_but_the_uplinks(guide, name):
    ctx, numbered = contexts(guide)[name], contexts(guide, 'ebgp')[name]
    ports, addresses = set(unnumbered_ports(ctx)), numbered_uplink_addresses(guide, name)
    assert nvue_without_uplinks(render(NVUE, ctx), ports, addresses) == nvue_without_uplinks(
        render(NVUE, numbered), ports, addresses
    )


def test_nvue_bfd_on_the_interface_sessions():
    ctx = contexts('routed', bfd=True)['leaf1']
    neighbors = nvue_neighbors(load_yaml(render(NVUE, ctx)))
    for n in uplink_sessions(ctx):
        assert neighbors[nos_interface(n['interface'], 'nvue')]['bfd']['enable'] is True  # YAML 1.1: on


NVUE_BREAKS = {
    'numbered type': ('                type: unnumbered', '                type: numbered'),
    'keyed by the local name': ("{{ neighbor.interface | aifabric_interface('nvue') }}:", '{{ neighbor.interface }}:'),
}


@pytest.mark.parametrize('old,new', list(NVUE_BREAKS.values()), ids=list(NVUE_BREAKS))
def test_nvue_checker_catches_a_broken_template(old, new):
    ctx = contexts('routed')['leaf1']
    assert nvue_problems(ctx, render_broken(NVUE, ctx, old, new))


#
# SONiC
#

# The two leaves this adds to what sonic_yang.py / sonic_refs.py encode, read in sonic-net/sonic-buildimage
# src/sonic-yang-models/yang-models: sonic-interface.yang INTERFACE_LIST leaf ipv6_use_link_local_only, type
# stypes:mode-status (sonic-types.yang.j2: enum enable | disable); sonic-bgp-neighbor.yang
# BGP_NEIGHBOR_TEMPLATE_LIST key `neighbor`, a union of inet:ip-address and a leafref to PORT (or PortChannel) name.
LINK_LOCAL_ONLY = 'ipv6_use_link_local_only'


@contextlib.contextmanager
def extended_sonic_maps():
    """sonic_yang / sonic_refs with the two YANG facts above, restored on exit."""
    interface, neighbor = sonic_yang.TABLES['INTERFACE'], sonic_yang.TABLES['BGP_NEIGHBOR']
    link_local_only = {**interface.fields, LINK_LOCAL_ONLY: sonic_yang.enum('enable', 'disable')}
    refs = dataclasses.replace(sonic_refs.TABLES['INTERFACE'], plain=frozenset({LINK_LOCAL_ONLY}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sonic_yang.TABLES, 'INTERFACE', dataclasses.replace(interface, fields=link_local_only))
        patch.setitem(
            sonic_yang.TABLES, 'BGP_NEIGHBOR', dataclasses.replace(neighbor, key=rf'({neighbor.key}|{sonic_yang.PORT})')
        )
        patch.setitem(sonic_refs.TABLES, 'INTERFACE', refs)
        yield


@pytest.fixture
def sonic_maps():
    with extended_sonic_maps():
        yield


def sonic_problems(ctx, db):
    found = []
    for port in unnumbered_ports(ctx):
        if db['INTERFACE'].get(port) != {LINK_LOCAL_ONLY: 'enable'}:
            found.append(f'INTERFACE|{port}: {db["INTERFACE"].get(port)}')
        found += [f'INTERFACE|{key} on an unnumbered port' for key in db['INTERFACE'] if key.startswith(f'{port}|')]
    for n in interface_sessions(ctx):
        entry = db['BGP_NEIGHBOR'].get(n['interface'])
        if entry != {'admin_status': 'up', 'asn': str(n['remote_asn']), 'name': n['peer']}:
            found.append(f'BGP_NEIGHBOR|{n["interface"]}: {entry}')
        if n['interface'] not in db['PORT']:
            found.append(f'BGP_NEIGHBOR|{n["interface"]} names no PORT')
    expected = {n['address'] or n['interface'] for n in ctx['bgp']['neighbors']}
    if set(db['BGP_NEIGHBOR']) != expected:
        found.append(f"BGP_NEIGHBOR {sorted(db['BGP_NEIGHBOR'])} != the context's {sorted(expected)}")
    return found + sonic_yang.violations(db) + sonic_refs.violations(db)


def without_lanes(found):
    """The guide's generic device types ship no PORT lanes (test_sonic_yang.py: the same exception)."""
    return [f for f in found if not (f.startswith('PORT|') and f.endswith(': lanes is mandatory (sonic-port)'))]


@pytest.mark.parametrize(('guide', 'name'), SONIC_SWITCHES)
def test_sonic_renders_link_local_interfaces(guide, name, sonic_maps):
    ctx = contexts(guide)[name]
    assert without_lanes(sonic_problems(ctx, json.loads(render(SONIC, ctx)))) == []


def sonic_without_uplinks(text, ports, addresses):
    """config_db without the uplinks' INTERFACE entries and sessions. The control-plane ACL is compared whole: without
    BFD it admits no underlay neighbour (with BFD it admits the link-local range unnumbered, facts/sonic.py's)."""
    db = json.loads(text)
    db['INTERFACE'] = {k: v for k, v in db['INTERFACE'].items() if k.split('|')[0] not in ports}
    db['BGP_NEIGHBOR'] = {k: v for k, v in db['BGP_NEIGHBOR'].items() if k not in ports and k not in addresses}
    return db


@pytest.mark.parametrize(('guide', 'name'), SONIC_SWITCHES)
def test_sonic_is_the_numbered_config_but_the_uplinks(guide, name):
    ctx, numbered = contexts(guide)[name], contexts(guide, 'ebgp')[name]
    ports, addresses = set(unnumbered_ports(ctx)), numbered_uplink_addresses(guide, name)
    assert sonic_without_uplinks(render(SONIC, ctx), ports, addresses) == sonic_without_uplinks(
        render(SONIC, numbered), ports, addresses
    )


SONIC_BREAKS = {
    'misspelt value': ('"ipv6_use_link_local_only": "enable"', '"ipv6_use_link_local_only": "enabled"'),
    'keyed by address': (
        '"{% if n.address %}{{ n.address }}{% else %}{{ n.interface }}{% endif %}"',
        '"{{ n.address }}"',
    ),
    'no INTERFACE entry': ('if i.address or i.unnumbered %}', 'if i.address %}'),
}


@pytest.mark.parametrize('old,new', list(SONIC_BREAKS.values()), ids=list(SONIC_BREAKS))
def test_sonic_checker_catches_a_broken_template(old, new, sonic_maps):
    ctx = contexts('routed')['leaf1']
    assert without_lanes(sonic_problems(ctx, json.loads(render_broken(SONIC, ctx, old, new))))


def test_sonic_yang_maps_without_the_new_leaf_refuse_it():
    """Negative control of the fixture: the maps as the repository encodes them do not know the leaf nor a port as
    BGP_NEIGHBOR key, so it is the fixture's extension (with its YANG source) that admits them."""
    db = json.loads(render(SONIC, contexts('routed')['leaf1']))
    assert any(LINK_LOCAL_ONLY in v for v in sonic_yang.violations(db))
    assert any(v.startswith('BGP_NEIGHBOR|Ethernet') for v in sonic_yang.violations(db))
    assert any(LINK_LOCAL_ONLY in v for v in sonic_refs.violations(db))


def ctrlplane_problems(db):
    """caclmgrd's rule for CTRLPLANE tables (nos-facts §1, [caclmgrd]): a table is IPv4 or IPv6, decided from its
    rules, and a rule of the other family is ignored; so each table's rules must be of one family."""
    families = {}
    for key, rule in db.get('ACL_RULE', {}).items():
        table = key.split('|')[0]
        if db['ACL_TABLE'].get(table, {}).get('type') != 'CTRLPLANE':
            continue
        families.setdefault(table, set()).update(f for f, field in ((4, 'SRC_IP'), (6, 'SRC_IPV6')) if field in rule)
    return [f'{table} mixes IPv4 and IPv6 rules' for table, found in families.items() if len(found) > 1]


@pytest.mark.parametrize(('guide', 'name'), SONIC_SWITCHES)
def test_sonic_bfd_admits_the_link_local_range(guide, name):
    """With BFD, SONiC's control-plane ACL admits the unnumbered sessions' peers as the link-local range (the
    context's control-plane facts) and no numbered uplink address, each table of one address family."""
    ctx = contexts(guide, bfd=True)[name]
    db = json.loads(render(SONIC, ctx))
    bfd = [r for k, r in db['ACL_RULE'].items() if k.split('|')[0] in ('AIFABRIC_BFD', 'AIFABRIC_BFD_V6')]
    sources = {r.get('SRC_IPV6') or r.get('SRC_IP') for r in bfd}
    if unnumbered_ports(ctx):
        assert 'fe80::/10' in sources
    assert not sources & {f'{a}/32' for a in numbered_uplink_addresses(guide, name)}
    assert ctrlplane_problems(db) == []


def test_ctrlplane_checker_catches_mixed_families():
    db = {
        'ACL_TABLE': {'T': {'type': 'CTRLPLANE'}},
        'ACL_RULE': {'T|A': {'SRC_IP': '10.0.0.1/32'}, 'T|B': {'SRC_IPV6': 'fe80::/10'}},
    }
    assert ctrlplane_problems(db) == ['T mixes IPv4 and IPv6 rules']
    db['ACL_RULE'].pop('T|A')
    assert ctrlplane_problems(db) == []


#
# Property: any mix of numbered and unnumbered uplinks, any ASN
#


def mixed(ctx, flags, asns):
    """``ctx`` (a numbered switch) with the uplinks whose flag is set made unnumbered (no address on the port nor
    on its session) and the uplink sessions' remote ASNs replaced by ``asns``."""
    ctx = copy.deepcopy(ctx)
    uplinks = [i for i in ctx['interfaces'] if i['kind'] == 'uplink']
    chosen = {port['name'] for port, flag in zip(uplinks, flags) if flag}
    for port in ctx['interfaces']:
        port['unnumbered'] = port['name'] in chosen
        if port['unnumbered']:
            port['address'] = None
    for session, asn in zip(uplink_sessions(ctx), asns):
        session['remote_asn'] = asn
        if session['interface'] in chosen:
            session['address'] = None
    ctx['bgp']['unnumbered'] = bool(chosen)
    return ctx


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    switch=st.sampled_from([('routed', 'leaf1'), ('routed', 'spine1'), ('evpn-vxlan', 'leaf1'), ('evpn-mh', 'spine1')]),
    flags=st.lists(st.booleans(), min_size=2, max_size=2),
    asns=st.lists(st.integers(1, 4294967295), min_size=2, max_size=2),
)
def test_any_mix_of_numbered_and_unnumbered_uplinks(switch, flags, asns):
    """Each template decides per port and per session: every checker holds for any subset of unnumbered uplinks
    and any 4-byte ASN (the numbered uplinks keep their address and session by address)."""
    guide, name = switch
    ctx = mixed(contexts(guide, 'ebgp')[name], flags, asns)
    assert frr_problems(ctx, render(FRR, ctx)) == []
    assert eos_problems(ctx, render(EOS, ctx)) == []
    assert nvue_problems(ctx, render(NVUE, ctx)) == []
    if not ctx['evpn_mh']:
        with extended_sonic_maps():
            assert without_lanes(sonic_problems(ctx, json.loads(render(SONIC, ctx)))) == []
