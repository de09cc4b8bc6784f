"""Independent check of the EOS template: for every guide design, each switch's rendered EOS config equals pyavd's
rendering (``pyavd.get_device_config``) of the AVD export (``render/avd.py``) on every line AVD also renders, in the
sections both model. Normalised: whitespace (indentation), line order within a block, comments and ``!``.

Compared (``COMPARED``): VLANs, Ethernet / Port-Channel / VLAN / loopback / VXLAN interfaces, ``mlag configuration``,
the gateway ACLs, the route map ``RM-MLAG-PEER-IN``, the DSCP → traffic-class map, and in ``router bgp`` the
neighbours by address (remote AS, description) and the EVPN VLAN blocks. Within a compared block, the lines one side
renders and the other does not model are listed in ``OURS_ONLY`` / ``AVD_ONLY`` with the reason; any other
difference fails. Not compared: the management plane (AVD places SNMP/eAPI in other blocks and enables eAPI in the
default VRF too), BGP peer-group names and options (AVD's IPv4-UNDERLAY-PEERS / MLAG-IPv4-UNDERLAY-PEER /
EVPN-OVERLAY-PEERS vs the template's UNDERLAY / MLAG-PEER / EVPN-OVERLAY, a naming choice, and AVD's
maximum-paths 4 vs the template's 64), OSPF (AVD's process 100 with passive-interface default), the QoS queues
(AVD's export maps no scheduler or ECN), the CNP policer (not mapped), VRF instances (AVD adds no comment lines but
orders them differently; covered by the security tests).
"""

import re

import pytest

from netbox_aifabric.render.avd import avd_structured_config

from ...render_fixtures import GUIDES, guide_contexts
from .helpers import render

pyavd = pytest.importorskip('pyavd', reason='pyavd comes with the dev and benchmark extras')

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


# every spine and leaf of every guide design
SWITCHES = [
    (design, name)
    for design in GUIDES
    for name, ctx in guide_contexts(design).items()
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
    return found


@pytest.mark.parametrize(('design', 'name'), SWITCHES)
def test_eos_equals_pyavd_where_both_render(design, name):
    template_text, avd_text = texts(guide_contexts(design)[name])
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
