"""Independent check of the EOS template: for every guide design, each switch's rendered EOS config equals pyavd's
rendering (``pyavd.get_device_config``) of the AVD export (``render/avd.py``) on every line AVD also renders, in the
sections both model. Normalised: whitespace (indentation), line order within a block, comments and ``!``.

Compared (``COMPARED``): VLANs, Ethernet / Port-Channel / VLAN / loopback / VXLAN interfaces, ``mlag configuration``,
the gateway ACLs, the route map ``RM-MLAG-PEER-IN``, the DSCP → traffic-class map, the PFC watchdog, and in
``router bgp`` the neighbours by address (remote AS, description), each neighbour's session options with its peer
group's resolved onto it (``bgp_options``: next-hop-unchanged, route-reflector-client, update-source, multihop,
next-hop-self, route maps, BFD, …) and the address families it is activated in, and the EVPN VLAN blocks; the
management plane as EOS serves it (``acl_eos_nvue.eos_readback``): for SSH, eAPI and SNMP, every VRF the service is
served in and the ACL it carries there. Within a compared block, the lines one side renders and the other does not
model are listed in ``OURS_ONLY`` / ``AVD_ONLY`` / ``OPTION_DIFFERENCES`` with the reason; any other difference fails.
Not compared: the BGP peer-group names (AVD's IPv4-UNDERLAY-PEERS / MLAG-IPv4-UNDERLAY-PEER / EVPN-OVERLAY-PEERS vs
the template's UNDERLAY / MLAG-PEER / EVPN-OVERLAY, a naming choice: options are compared per neighbour instead) and
AVD's maximum-paths 4 vs the template's 64, OSPF (AVD's process 100 with passive-interface default), the QoS queues
(AVD's export maps no scheduler or ECN), the CNP policer (not mapped), VRF instances (AVD adds no comment lines but
orders them differently; covered by the security tests).
"""

import functools
import json
import re

import pyavd  # the dev extra: a missing pyavd fails this check, it is never skipped
import pytest

from netbox_aifabric.render.avd import avd_structured_config

from ...render_fixtures import GUIDES, contexts_of, design_of, guide_contexts, guide_spec, ospf_spec
from .acl_eos_nvue import eos_readback
from .helpers import render

pytestmark = pytest.mark.pure

COMPARED = re.compile(
    r'(vlan \d+|interface (Ethernet|Port-Channel|Vlan|Loopback|Vxlan)\S*|mlag configuration|ip access-list \S+|'
    r'route-map RM-MLAG-PEER-IN .*)$'
)
# Lines inside a compared block that only one side renders, each with why.
OURS_ONLY = (
    re.compile(r'(uc-)?tx-queue \d|priority strict|no priority|bandwidth percent|random-detect ecn'),  # AVD: no queues
    re.compile(r'service-policy type qos input'),  # the CNP policer: not in the AVD export
    re.compile(r'speed \d+g'),  # the AVD export leaves the speed to the platform
    re.compile(r'qos cos 0|qos dscp 0'),  # untrusted port defaults; AVD has qos.trust disabled only
    re.compile(r'ip ospf area|ip ospf network'),  # OSPF: not compared
    # EVPN with MLAG: the template sets the pair's VXLAN router MAC (nos-facts §6, [avd dc1-leaf1a.cfg]); the export not
    re.compile(r'vxlan virtual-router encapsulation mac-address mlag-system-id'),
)
# Lines a compared block of one kind renders on one side only: (header pattern, line pattern, why).
OURS_ONLY_IN = (
    (r'interface Port-Channel', r'mtu \d+'),  # the template sets a bond's MTU on the Port-Channel, AVD on its members
    (r'interface Port-Channel', r'(no )?qos trust'),  # the template repeats the members' trust on the Port-Channel
    (r'interface Vlan4094', r'description '),  # 'MLAG peer <peer>' vs AVD's 'MLAG peering'
    (r'mlag configuration', r'domain-id '),  # the fabric slug vs AVD's '<slug>-mlag': one per pair either way
)
AVD_ONLY_IN = (
    (r'interface Ethernet', r'mtu \d+'),  # on a LAG member only (checked: the member has a channel-group)
    (r'interface Vlan4094', r'description '),
    (r'mlag configuration', r'domain-id '),
)
AVD_ONLY = (
    re.compile(r'no shutdown|switchport$'),  # EOS defaults AVD spells out
    re.compile(r'ip ospf area|ip ospf network'),
)


def blocks(text):
    """``{top-level line: {its child lines, stripped}}``, comments and ``!`` left out."""
    out, header = {}, None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped == '!' or stripped.startswith('! '):
            continue
        if not line.startswith(' '):
            header = line
            out.setdefault(header, set())
        else:
            out[header].add(stripped)
    return out


def drop(header, lines, patterns, per_block):
    kept = {line for line in lines if not any(p.match(line) for p in patterns)}
    for block_pattern, line_pattern in per_block:
        if re.match(block_pattern, header) and (
            not header.startswith('interface Ethernet') or any(x.startswith('channel-group') for x in lines)
        ):
            kept = {line for line in kept if not re.match(line_pattern, line)}
    return kept


def bgp_neighbours(lines):
    """``{(neighbour address, remote AS)}``, a peer group's ``remote-as`` resolved onto its members (AVD sets the MLAG
    peer's on its peer group): the BGP sessions, whatever the groups are called."""
    group_of, asn_of = {}, {}
    for line in lines:
        if match := re.fullmatch(r'neighbor (\S+) peer group (\S+)', line):
            group_of[match[1]] = match[2]
        elif match := re.fullmatch(r'neighbor (\S+) remote-as (\d+)', line):
            asn_of[match[1]] = match[2]
    addresses = {n for n in group_of | asn_of if re.fullmatch(r'[0-9.]+', n)}
    return {(n, asn_of.get(n) or asn_of.get(group_of.get(n))) for n in addresses}


# Session options one side sets and the other does not, each with why: (option pattern, side that has it).
OPTION_DIFFERENCES = (
    (re.compile(r'maximum-routes \d+'), 'ours'),  # the template caps each group's routes; the export leaves AVD's
    (re.compile(r'send-community( extended)?'), 'both'),  # 'extended' (template, EVPN) vs AVD's 'all' rendering
)


def bgp_sections(text):
    """``(direct lines of router bgp, {address-family header: its lines})``, stripped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('router bgp ')), None)
    direct, families, current = [], {}, None
    for line in lines[start + 1 :] if start is not None else ():
        if not line.startswith(' '):
            break
        if line.startswith('   ') and not line.startswith('    '):
            stripped = line.strip()
            current = stripped if stripped.startswith(('address-family ', 'vlan ', 'vrf ')) else None
            if current:
                families[current] = []
            elif stripped != '!':
                direct.append(stripped)
        elif current:
            families[current].append(line.strip())
    return direct, families


def bgp_options(text):
    """``{neighbour address: ({session options}, {address families it is activated in})}``: the options of its peer
    group resolved onto it, peer-group names dropped, remote AS and description left to ``bgp_neighbours``."""
    direct, families = bgp_sections(text)
    group_of, options_of = {}, {}
    for line in direct:
        if match := re.fullmatch(r'neighbor (\S+) peer group( (\S+))?', line):
            if match[3]:
                group_of[match[1]] = match[3]
        elif match := re.fullmatch(r'neighbor (\S+) (.+)', line):
            if not match[2].startswith(('remote-as ', 'description ')):
                options_of.setdefault(match[1], set()).add(match[2])
    active_of = {}
    for family, lines in families.items():
        if family.startswith('address-family '):
            for line in lines:
                if match := re.fullmatch(r'(no )?neighbor (\S+) activate', line):
                    active_of.setdefault(match[2], {})[family] = not match[1]
    out = {}
    for address in {n for n in group_of | options_of if re.fullmatch(r'[0-9.]+', n)}:
        group = group_of.get(address)
        options = options_of.get(address, set()) | options_of.get(group, set())
        active = active_of.get(group, {}) | active_of.get(address, {})
        out[address] = (options, {family for family, on in active.items() if on})
    return out


def option_differences(ours, avd):
    found = []
    for address in sorted(set(ours) | set(avd)):
        (mine, my_families), (theirs, their_families) = (
            ours.get(address, (set(), set())),
            avd.get(address, (set(), set())),
        )
        only_mine = {o for o in mine - theirs if not any(p.fullmatch(o) for p, side in OPTION_DIFFERENCES)}
        only_theirs = {
            o
            for o in theirs - mine
            if not any(p.fullmatch(o) and side in ('avd', 'both') for p, side in OPTION_DIFFERENCES)
        }
        if only_mine or only_theirs:
            found.append(f'neighbor {address}: template +{sorted(only_mine)} AVD +{sorted(only_theirs)}')
        if my_families != their_families:
            found.append(
                f'neighbor {address} activated in: template {sorted(my_families)} AVD {sorted(their_families)}'
            )
    return found


def management_differences(template_text, avd_text):
    """SSH, eAPI and SNMP as EOS serves them: ``{service: {VRF: ACL}}`` equal on both sides."""
    ours, theirs = eos_readback(template_text)['served'], eos_readback(avd_text)['served']
    return [
        f'{service}: template {ours[service]} AVD {theirs[service]}'
        for service in ours
        if ours[service] != theirs[service]
    ]


# every spine and leaf of every guide design, and of the OSPF variants (an iBGP EVPN overlay: route reflectors)
OSPF_GUIDES = ('routed', 'evpn-vxlan')


@functools.cache
def _ospf_contexts(guide):
    return json.dumps(contexts_of(ospf_spec(guide_spec(guide)), design_of(guide)))


def contexts(case):
    """``{device: context}`` of a case: a guide name, or ``<guide>+ospf`` for its OSPF variant."""
    guide, _, ospf = case.partition('+')
    return json.loads(_ospf_contexts(guide)) if ospf else guide_contexts(guide)


SWITCHES = [
    (case, name)
    for case in (*GUIDES, *(f'{guide}+ospf' for guide in OSPF_GUIDES))
    for name, ctx in contexts(case).items()
    if ctx['role'] in ('spine', 'leaf', 'border')
]


def texts(ctx):
    return render('eos/eos.cfg.j2', ctx), pyavd.get_device_config(avd_structured_config(ctx))


def differences(template_text, avd_text):
    ours, avd = blocks(template_text), blocks(avd_text)
    found = []
    for header in sorted(set(ours) | set(avd)):
        if not COMPARED.match(header):
            continue
        if header not in ours or header not in avd:
            found.append(f'{header}: only in {"the template" if header in ours else "AVD"}')
            continue
        mine = drop(header, ours[header], OURS_ONLY, OURS_ONLY_IN)
        theirs = drop(header, avd[header], AVD_ONLY, AVD_ONLY_IN)
        if mine != theirs:
            found.append(f'{header}: template +{sorted(mine - theirs)} AVD +{sorted(theirs - mine)}')
    dscp = {h for h in ours if h.startswith('qos map dscp')} ^ {h for h in avd if h.startswith('qos map dscp')}
    if dscp:
        found.append(f'qos map dscp: {sorted(dscp)}')
    bgp_ours = next((ours[h] for h in ours if h.startswith('router bgp')), set())
    bgp_avd = next((avd[h] for h in avd if h.startswith('router bgp')), set())
    if bgp_neighbours(bgp_ours) != bgp_neighbours(bgp_avd):
        found.append(f'router bgp: {sorted(bgp_neighbours(bgp_ours) ^ bgp_neighbours(bgp_avd))}')
    found += option_differences(bgp_options(template_text), bgp_options(avd_text))
    found += management_differences(template_text, avd_text)
    watchdog = {h for h in ours if h.startswith('priority-flow-control')} ^ {
        h for h in avd if h.startswith('priority-flow-control')
    }
    if watchdog:
        found.append(f'PFC watchdog: {sorted(watchdog)}')
    return found


@pytest.mark.parametrize(('design', 'name'), SWITCHES)
def test_eos_equals_pyavd_where_both_render(design, name):
    template_text, avd_text = texts(contexts(design)[name])
    assert differences(template_text, avd_text) == []
    compared = [h for h in blocks(template_text) if COMPARED.match(h)]
    assert len(compared) >= 3  # a spine: its uplinks and Loopback0 at least; the comparison is not vacuous


@pytest.mark.parametrize(
    ('old', 'new'),
    [
        ('   reload-delay mlag 300', '   reload-delay mlag 301'),
        ('qos map dscp 0 1 2 3 4 5 6 7 to traffic-class 0', 'qos map dscp 0 1 2 3 4 5 6 7 to traffic-class 1'),
        ('   neighbor 10.255.2.0 remote-as 65100', '   neighbor 10.255.2.0 remote-as 65109'),
        ('   set origin incomplete', '   set origin igp'),
        ('   mlag 1\n', '   mlag 7\n'),
        ('   ip address virtual 198.51.100.1/24', '   ip address virtual 198.51.100.9/24'),
    ],
)
def test_a_changed_line_is_caught(old, new):
    """Negative control: one line of the template's output changed, the comparison reports it."""
    template_text, avd_text = texts(guide_contexts('evpn-vxlan')['leaf1'])
    assert old in template_text
    assert differences(template_text.replace(old, new, 1), avd_text) != []


@pytest.mark.parametrize(
    ('case', 'name', 'old', 'new'),
    [
        # the eBGP EVPN route server relays the leaves' next hops (the export lacked it: AVD rendered none)
        ('evpn-vxlan', 'spine1', ' next-hop-unchanged\n', ' send-community extended\n'),
        # the iBGP overlay of an OSPF underlay: the spines reflect the leaves' routes
        ('evpn-vxlan+ospf', 'spine1', ' route-reflector-client\n', ' send-community extended\n'),
        ('evpn-vxlan', 'leaf1', '   neighbor MLAG-PEER next-hop-self\n', ''),
        ('evpn-vxlan', 'leaf1', '      neighbor EVPN-OVERLAY activate\n', ''),
        # eAPI open to every source in the default VRF (the template before issue 26)
        ('routed', 'leaf1', '   vrf default\n      no shutdown\n      ip access-group AIFABRIC-MGMT\n', ''),
        ('routed', 'leaf1', 'snmp-server ipv4 access-list AIFABRIC-MGMT\n', ''),
        ('routed', 'leaf1', '   ip access-group AIFABRIC-MGMT in\n', ''),
        ('routed', 'leaf1', 'priority-flow-control pause watchdog action drop\n', ''),
    ],
)
def test_a_changed_bgp_option_or_management_line_is_caught(case, name, old, new):
    """Negative control: a BGP session option, an address-family activation, a management ACL or the watchdog's
    action changed in the template's output, the comparison reports it."""
    template_text, avd_text = texts(contexts(case)[name])
    assert old in template_text
    assert differences(template_text.replace(old, new), avd_text) != []
