"""The guide's security as the Arista EOS and NVIDIA Cumulus NVUE templates render it, proven on the rendered text.

(a) Each switch's config of every guide design is read back (``acl_eos_nvue``: the gateway ACLs, their SVI bindings
and VRFs, the management plane) and the matrix proof runs on contexts whose ``security.acls``, ``vlans[].acl`` and
``management`` are replaced by what was read: no violation, USERS never reaches MGMT. (b) Negative controls edit the
rendered text the way a template bug would (a deny rule gone, an SVI binding gone, a management ACL gone) and the
proof must catch each. (c) The DSCP trust boundary and the CNP policer, per port, derived from the context.
"""

import copy
import re

import netaddr
import pytest

from netbox_aifabric.checks.matrix import evaluate, management_violations, violations
from netbox_aifabric.render.filters import eos_management_vrf
from tests.render_fixtures import GUIDES, contexts_of, design_of, guide_contexts, guide_spec
from tests.unit.templates.acl_eos_nvue import ANY_SOURCE, eos_readback, nvue_readback, readback_contexts
from tests.unit.templates.helpers import block, load_yaml, render

pytestmark = pytest.mark.pure

EOS, NVUE = 'eos/eos.cfg.j2', 'cumulus/startup.yaml.j2'
READBACK = {EOS: eos_readback, NVUE: nvue_readback}
TRUST_LINES = {
    'dscp': ['   qos trust dscp'],
    'both': ['   qos trust dscp'],
    'pcp': ['   qos trust cos'],
    'none': ['   no qos trust', '   qos cos 0', '   qos dscp 0'],
}


def switches(contexts):
    return {name: ctx for name, ctx in contexts.items() if ctx['node_id'] is not None}


def proven(contexts, template, edit=None):
    """The contexts with each switch's security read back from its rendered ``template`` (``edit(name, text)`` may
    change a switch's text first)."""
    reads = {}
    for name, ctx in switches(contexts).items():
        text = render(template, ctx)
        if edit is not None:
            text = edit(name, text)
        reads[name] = READBACK[template](text, ctx['management']['services'])
    return readback_contexts(copy.deepcopy(contexts), reads)


def bmc_contexts(guide='evpn-vxlan'):
    """A guide design with the servers' BMC ports on the first leaf (access ports in the MGMT VLAN)."""
    raw = guide_spec(guide)
    raw['bmc'] = 'leaf'
    raw['leaf_platform']['bmc_ports'] = {'first': 101, 'count': 48, 'speed': 1}
    return contexts_of(raw, design_of(guide))


# (a) the matrix and the management plane, read back from the rendered text


@pytest.mark.parametrize('template', [EOS, NVUE])
@pytest.mark.parametrize('guide', GUIDES)
def test_rendered_configs_keep_the_matrix(guide, template):
    contexts = guide_contexts(guide)
    read = proven(contexts, template)
    for name, ctx in switches(contexts).items():
        # the read-back is the context: every ACL rule in order, every binding, the management plane
        assert read[name]['security']['acls'] == [
            {
                'name': acl['name'],
                'rules': [{k: r[k] for k in ('seq', 'action', 'source', 'destination')} for r in acl['rules']],
            }
            for acl in ctx['security']['acls']
        ], name
        assert [(v['vid'], v['acl'], v['vrf']) for v in read[name]['vlans']] == [
            (v['vid'], v['acl'], v['vrf']) for v in ctx['vlans']
        ]
        plane = read[name]['management']
        assert plane['allowed_sources'] == ctx['management']['jump_hosts'] == ['192.0.2.16/28']
        assert (plane['vrf'], plane['address'], plane['gateway']) == (
            eos_management_vrf(ctx) if template == EOS else 'mgmt',  # EOS: mgmt-oob next to the guide's MGMT
            ctx['management']['address'],
            ctx['management']['gateway'],
        )
        assert plane['address'] and plane['gateway']
    assert violations(read) == []
    verdicts = evaluate(read)
    assert not verdicts['USERS', 'MGMT'].reaches  # the guide's acceptance test
    assert not [pair for pair, v in verdicts.items() if pair[0] == 'USERS' and v.reaches]
    assert verdicts['MGMT', 'TELEMETRY'].reaches  # an allowed pair in one VRF still talks
    # USERS and STORAGE share a VRF in every design: an ACL, not routing, keeps them apart
    assert 'rule 10: deny' in verdicts['USERS', 'STORAGE'].reason


@pytest.mark.parametrize('template', [EOS, NVUE])
def test_no_jump_hosts_renders_an_open_plane_in_the_management_vrf(template):
    contexts = guide_contexts('evpn-vxlan')
    for ctx in contexts.values():
        ctx['management']['jump_hosts'] = ctx['management']['allowed_sources'] = []
    text = render(template, contexts['spine1'])
    assert 'management plane OPEN' in text
    assert 'AIFABRIC-MGMT' not in text
    read = proven(contexts, template)['spine1']['management']
    assert (read['vrf'], read['allowed_sources']) == ('mgmt', [ANY_SOURCE])
    assert 'spine1: no jump-host subnet: its management services are open to every source' in (
        management_violations(proven(contexts, template))
    )


# (b) negative controls: the rendered text broken as a template bug would break it


def drop_line(pattern):
    """An ``edit`` that removes leaf1's lines matching ``pattern`` (at least one must match)."""

    def edit(name, text):
        if name != 'leaf1':
            return text
        kept = [line for line in text.splitlines() if not re.fullmatch(pattern, line)]
        assert len(kept) < len(text.splitlines()), f'nothing matches {pattern!r}'
        return '\n'.join(kept) + '\n'

    return edit


def drop_yaml(path):
    """An ``edit`` that removes the YAML node at ``path`` (keys from the ``set`` document down) from leaf1's text,
    by its lines: the key line and everything indented below it."""

    def edit(name, text):
        if name != 'leaf1':
            return text
        lines, start, depth = text.splitlines(), 0, 4
        for key in path:
            start = next(
                i for i in range(start, len(lines)) if re.fullmatch(rf' {{{depth}}}{re.escape(key)}:.*', lines[i])
            )
            depth += 2
        end = start + 1
        while end < len(lines) and (len(lines[end]) - len(lines[end].lstrip())) >= depth:
            end += 1
        return '\n'.join(lines[:start] + lines[end:]) + '\n'

    return edit


NEGATIVE = {
    'deny rule removed': {
        EOS: drop_line(r'   10 deny ip 198\.51\.100\.0/\d+ 203\.0\.113\.0/\d+'),
        NVUE: drop_yaml(['acl', 'AIFABRIC-USERS-IN', 'rule', "'10'"]),
    },
    'SVI binding removed': {
        EOS: drop_line(r'   ip access-group AIFABRIC-USERS-IN in'),
        NVUE: drop_yaml(['interface', 'vlan20', 'acl']),
    },
}


@pytest.mark.parametrize('template', [EOS, NVUE])
@pytest.mark.parametrize('broken', NEGATIVE)
@pytest.mark.parametrize('guide', GUIDES)
def test_negative_control_a_broken_gateway_acl_is_caught(guide, broken, template):
    contexts = guide_contexts(guide)
    found = violations(proven(contexts, template, NEGATIVE[broken][template]))
    assert any(v.startswith('USERS reaches STORAGE, which it may not: leaf1: ') for v in found), found
    assert all(v.startswith(('USERS reaches ', 'STORAGE reaches USERS')) for v in found), found


MANAGEMENT_NEGATIVE = {
    EOS: [
        drop_line(r'   ip access-group AIFABRIC-MGMT vrf mgmt-oob in'),  # SSH in the management VRF: open
        drop_line(r'      ip access-group AIFABRIC-MGMT'),  # eAPI
        drop_line(r'snmp-server ipv4 access-list AIFABRIC-MGMT vrf mgmt-oob'),
        drop_line(r'   vrf mgmt-oob'),  # Management1 (and the services) out of the VRF
    ],
    NVUE: [
        drop_yaml(['acl', 'AIFABRIC-MGMT-TCP', 'rule', "'65000'"]),  # the deny: the whitelist lets everyone in
        drop_yaml(['system', 'control-plane', 'acl', 'AIFABRIC-MGMT-UDP']),  # SNMP's ACL unbound
        drop_yaml(['system', 'ssh-server', 'vrf']),  # SSH in every VRF
    ],
}


@pytest.mark.parametrize(
    ('template', 'index'), [(t, i) for t, edits in MANAGEMENT_NEGATIVE.items() for i in range(len(edits))]
)
def test_negative_control_an_open_management_plane_is_caught(template, index):
    found = management_violations(proven(guide_contexts('evpn-vxlan'), template, MANAGEMENT_NEGATIVE[template][index]))
    assert found and all(v.startswith('leaf1: ') for v in found), found


# advertising: only `advertise` subnets are announced


def eos_default_vrf_networks(text):
    lines = text.splitlines()
    start = lines.index(
        '   address-family ipv4', next(i for i, line in enumerate(lines) if line.startswith('router bgp'))
    )
    found = set()
    for line in lines[start + 1 :]:
        if not line.startswith('      '):
            break
        if line.startswith('      network '):
            found.add(line.split()[1])
    return found


@pytest.mark.parametrize('guide', GUIDES)
def test_only_advertised_subnets_are_announced(guide):
    for ctx in switches(guide_contexts(guide)).values():
        expected = {lo['address'] for lo in ctx['loopbacks']} | {
            v['subnet'] for v in ctx['vlans'] if v['advertise'] and not v['vrf']
        }
        assert eos_default_vrf_networks(render(EOS, ctx)) == expected
        bgp = load_yaml(render(NVUE, ctx))[0]['set']['vrf']['default']['router']['bgp']
        assert set(bgp['address-family']['ipv4-unicast']['network']) == expected


def test_a_local_class_in_a_tenant_vrf_stays_out_of_evpn():
    """TELEMETRY moved into the tenant VRF (which travels the fabric as an L3VNI) is still not advertised: both NOSes
    keep its subnet out of the VRF's redistributed connected routes."""
    ctx = guide_contexts('evpn-vxlan')['leaf1']
    telemetry = next(v for v in ctx['vlans'] if v['name'] == 'TELEMETRY')
    telemetry['vrf'] = 'AI-CLUSTER'
    assert telemetry['advertise'] is False and telemetry['subnet'] == '10.50.0.0/24'
    eos = render(EOS, ctx)
    assert '\nip prefix-list AIFABRIC-LOCAL-AI-CLUSTER\n   seq 1 permit 10.50.0.0/24\n' in eos
    assert (
        '\nroute-map AIFABRIC-CONNECTED-AI-CLUSTER deny 10\n   match ip address prefix-list AIFABRIC-LOCAL-AI-CLUSTER\n'
        in eos
    )
    assert '      redistribute connected route-map AIFABRIC-CONNECTED-AI-CLUSTER' in eos.splitlines()
    config = load_yaml(render(NVUE, ctx))[0]['set']
    policy = config['router']['policy']
    assert policy['prefix-list']['AIFABRIC-LOCAL-AI-CLUSTER']['rule'] == {
        '1': {'match': {'10.50.0.0/24': {}}, 'action': 'permit'}
    }
    route_map = policy['route-map']['AIFABRIC-CONNECTED-AI-CLUSTER']['rule']
    assert route_map['10'] == {
        'match': {'type': 'ipv4', 'ip-prefix-list': 'AIFABRIC-LOCAL-AI-CLUSTER'},
        'action': {'deny': {}},
    }
    assert route_map['20'] == {'action': {'permit': {}}}
    redistribute = config['vrf']['AI-CLUSTER']['router']['bgp']['address-family']['ipv4-unicast']['redistribute']
    assert redistribute['connected'] == {'enable': True, 'route-map': 'AIFABRIC-CONNECTED-AI-CLUSTER'}
    # and without a local class in the tenant VRF, neither renders a filter
    plain = guide_contexts('evpn-vxlan')['leaf1']
    assert 'AIFABRIC-CONNECTED' not in render(EOS, plain) and 'AIFABRIC-CONNECTED' not in render(NVUE, plain)


# (c) the DSCP trust boundary and the CNP policer, per port


def eos_policer(text, policy):
    """``(dscp, rate kbps, burst bytes)`` of an EOS QoS policy-map of the template's shape."""
    body = block(text, f'policy-map type quality-of-service {policy}')
    (cls,) = [line.split()[1] for line in body if line.startswith('   class ')]
    (police,) = [line for line in body if line.startswith('      police ')]
    rate, burst = re.fullmatch(r'      police rate (\d+) kbps burst-size (\d+) bytes', police).groups()
    (match,) = block(text, f'class-map type qos match-any {cls}')
    return int(match.removeprefix('   match dscp ')), int(rate), int(burst)


def trust_cases():
    cases = [(guide, guide_contexts) for guide in GUIDES]
    return [*cases, ('evpn-vxlan with BMC ports on leaf1', lambda _: bmc_contexts())]


@pytest.mark.parametrize(('name', 'make'), trust_cases(), ids=[c[0] for c in trust_cases()])
def test_eos_trust_and_cnp_policer_per_port(name, make):
    kinds = set()
    for ctx in switches(make(name)).values():
        text = render(EOS, ctx)
        for iface in ctx['interfaces']:
            kinds.add(iface['kind'])
            lines = block(text, f'interface {iface["name"]}')
            assert [line for line in lines if re.match(r'   (no )?qos (trust|cos|dscp)', line)] == TRUST_LINES[
                iface['trust']
            ], iface
            policies = [line.split()[-1] for line in lines if line.startswith('   service-policy type qos input ')]
            if iface['cnp_police']:
                police = iface['cnp_police']
                assert [eos_policer(text, p) for p in policies] == [
                    (police['dscp'], police['rate_kbps'], police['burst_bytes'])
                ]
            else:
                assert policies == []
            if iface['kind'] == 'bmc':  # an access port in the MGMT VLAN, untrusted, like an RDMA port otherwise
                assert iface['trust'] == 'none' and iface['mode'] == 'access'
                assert f'   switchport access vlan {iface["untagged_vlan"]}' in lines
        for lag in ctx['lags']:
            members = {i['trust'] for i in ctx['interfaces'] if i['lag'] == lag['name']}
            lines = block(text, f'interface {lag["name"]}')
            (trust,) = members
            assert [line for line in lines if re.match(r'   (no )?qos (trust|cos|dscp)', line)] == TRUST_LINES[trust]
    assert {'server', 'rdma'} <= kinds
    assert ('bmc' in kinds) == ('BMC' in name)


def nvue_policers(config, port):
    """``[(dscp, mode, rate, burst)]`` of the police rules in the ACLs bound inbound on ``port``."""
    found = []
    for acl in port.get('acl') or {}:
        for rule in config['acl'][acl]['rule'].values():
            if 'police' in rule['action']:
                police = rule['action']['police']
                found.append((rule['match']['ip']['dscp'], police['mode'], police['rate'], police['burst']))
    return found


@pytest.mark.parametrize(('name', 'make'), trust_cases(), ids=[c[0] for c in trust_cases()])
def test_nvue_trust_and_cnp_policer_per_port(name, make):
    for ctx in switches(make(name)).values():
        config = load_yaml(render(NVUE, ctx))[0]['set']
        interfaces = config['interface']
        profiles = config['qos']['mapping']
        assert profiles['default-global']['trust'] == 'l3'  # the profile's dscp trust, where trusted
        if any(i['trust'] == 'none' for i in ctx['interfaces']):
            assert profiles['AIFABRIC-UNTRUSTED'] == {'trust': 'port', 'port-default-sp': 0}
        for iface in ctx['interfaces']:
            port = interfaces[iface['name'].replace('Ethernet', 'swp')]
            bound = port.get('qos', {}).get('mapping', {}).get('profile')
            # an untrusted port (or bond) is in the untrusted profile; a trusted one in default-global
            holder = port
            if ctx['mlag'] and iface['lag'] == ctx['mlag']['peer_link']:
                holder = interfaces['peerlink']
            elif iface['lag']:
                holder = interfaces[iface['lag'].replace('Port-Channel', 'bond')]
            assert holder.get('qos', {}).get('mapping', {}).get('profile') == (
                'AIFABRIC-UNTRUSTED' if iface['trust'] == 'none' else None
            ), iface
            if iface['lag']:
                assert bound is None  # bound once, on the bond
            police = iface['cnp_police']
            expected = (
                [(police['dscp'], 'kbps', police['rate_kbps'], -(-police['burst_bytes'] // 1024))] if police else []
            )
            assert nvue_policers(config, port) == expected, iface
            if iface['kind'] == 'bmc':
                assert port['bridge']['domain']['br_default'] == {'access': iface['untagged_vlan']}


def test_bmc_ports_are_untrusted_access_ports_in_mgmt():
    contexts = bmc_contexts()
    mgmt_vid = next(v['vid'] for v in contexts['leaf1']['vlans'] if v['name'] == 'MGMT')
    # bmc: leaf puts each BMC on one leaf of its pair (alternating by server id): both leaves carry BMC ports
    bmc = {leaf: [i for i in contexts[leaf]['interfaces'] if i['kind'] == 'bmc'] for leaf in ('leaf1', 'leaf2')}
    assert all(bmc.values())
    assert sum(map(len, bmc.values())) == len([n for n, c in contexts.items() if c['node_id'] is None])
    assert {(i['mode'], i['untagged_vlan'], i['trust'], i['cnp_police']) for i in sum(bmc.values(), [])} == {
        ('access', mgmt_vid, 'none', None)
    }
    # and the matrix still holds on the rendered configs
    for template in (EOS, NVUE):
        assert violations(proven(contexts, template)) == []


def test_readback_sees_an_open_acl():
    """The read-back's own negative control: a management ACL that permits any source reads as 0.0.0.0/0."""
    ctx = guide_contexts('routed')['spine1']
    text = render(EOS, ctx).replace('   permit 192.0.2.16/28', '   permit any')
    assert eos_readback(text)['management']['allowed_sources'] == [ANY_SOURCE]
    nv = render(NVUE, ctx).replace('source-ip: 192.0.2.16/28', 'source-ip: ANY')
    assert nvue_readback(nv)['management']['allowed_sources'] == [ANY_SOURCE]
    assert netaddr.IPNetwork(ANY_SOURCE).size == 2**32
