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

Telemetry (the fabric's collectors, ``telemetry``; every guide design with ``render_fixtures.guide_telemetry``, and
the routed one with SNMP v2c and the default sampling rate): every top-level ``logging``, ``ntp``, ``snmp-server``,
``sflow`` and ``queue-monitor`` line equal, the ``management api gnmi`` block equal, and the telemetry ACLs
``AIFABRIC-SNMP`` / ``AIFABRIC-GNMI`` equal entry by entry in order (the template's unnumbered entries take EOS's
sequence numbers 10, 20, …); none of these has an exception.
"""

import functools
import json
import re

import pyavd  # the dev extra: a missing pyavd fails this check, it is never skipped
import pytest

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.facts.telemetry import DEFAULT_SFLOW_SAMPLING_RATE
from netbox_aifabric.render.avd import avd_structured_config
from netbox_aifabric.render.filters import eos_management_vrf
from tests.render_fixtures import (
    GUIDES,
    contexts_of,
    design_of,
    guide_contexts,
    guide_spec,
    guide_telemetry,
    observed_intent,
    ospf_spec,
    plan_of,
)
from tests.unit.templates.acl_eos_nvue import eos_readback
from tests.unit.templates.helpers import render

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


# the collectors of a ``+telemetry`` case, and of ``+v2c``: a community instead of a user, the default sampling rate
# (no ``sflow sample dangerous``)
TELEMETRY = {
    'telemetry': guide_telemetry(),
    'v2c': {**guide_telemetry(), 'snmp_version': 'v2c', 'sflow_sampling_rate': DEFAULT_SFLOW_SAMPLING_RATE},
}
V2C_GUIDES = ('routed',)


@functools.cache
def _observed_contexts(guide, variant):
    intent = observed_intent(guide, TELEMETRY[variant])
    return json.dumps(build_contexts(plan_of(guide_spec(guide)), intent))


def contexts(case):
    """``{device: context}`` of a case: a guide name, ``<guide>+ospf`` for its OSPF variant, ``<guide>+telemetry`` /
    ``<guide>+v2c`` with the collectors of ``TELEMETRY``."""
    guide, _, variant = case.partition('+')
    if variant == 'ospf':
        return json.loads(_ospf_contexts(guide))
    if variant:
        return json.loads(_observed_contexts(guide, variant))
    return guide_contexts(guide)


CASES = (
    *GUIDES,
    *(f'{guide}+ospf' for guide in OSPF_GUIDES),
    *(f'{guide}+telemetry' for guide in GUIDES),
    *(f'{guide}+v2c' for guide in V2C_GUIDES),
)
SWITCHES = [
    (case, name) for case in CASES for name, ctx in contexts(case).items() if ctx['role'] in ('spine', 'leaf', 'border')
]


def texts(ctx, config=None):
    """The template's rendering of ``ctx`` and pyavd's of its AVD export (or of ``config``, an export changed)."""
    return render('eos/eos.cfg.j2', ctx), pyavd.get_device_config(config or avd_structured_config(ctx))


TELEMETRY_LINES = re.compile(r'(logging|ntp|snmp-server|sflow|queue-monitor) ')
TELEMETRY_BLOCKS = (
    'management api gnmi',
    'ip access-list standard AIFABRIC-SNMP',
    'ip access-list standard AIFABRIC-GNMI',
)


def ordered_block(text, header):
    """The child lines of ``header`` in order, stripped, ``!`` left out (None: no such block)."""
    lines = text.splitlines()
    if header not in lines:
        return None
    children = []
    for line in lines[lines.index(header) + 1 :]:
        if not line.startswith(' '):
            break
        if line.strip() != '!':
            children.append(line.strip())
    return children


def numbered(entries):
    """ACL entries with EOS's sequence numbers: an unnumbered entry takes the next multiple of 10."""
    return [entry if entry[0].isdigit() else f'{10 * n} {entry}' for n, entry in enumerate(entries or (), 1)] or None


def telemetry_lines(text):
    """``{top-level logging / ntp / snmp-server / sflow / queue-monitor line}`` and ``{block: its lines in order}``."""
    top = {line for line in text.splitlines() if TELEMETRY_LINES.match(line)}
    ordered = {header: ordered_block(text, header) for header in TELEMETRY_BLOCKS}
    return top, {header: numbered(lines) if 'access-list' in header else lines for header, lines in ordered.items()}


def telemetry_differences(template_text, avd_text):
    (ours, our_blocks), (theirs, their_blocks) = telemetry_lines(template_text), telemetry_lines(avd_text)
    found = [f'telemetry: template +{sorted(ours - theirs)} AVD +{sorted(theirs - ours)}'] if ours != theirs else []
    return found + [
        f'{header}: template {our_blocks[header]} AVD {their_blocks[header]}'
        for header in TELEMETRY_BLOCKS
        if our_blocks[header] != their_blocks[header]
    ]


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
    return found + telemetry_differences(template_text, avd_text)


@pytest.mark.parametrize(('design', 'name'), SWITCHES)
def test_eos_equals_pyavd_where_both_render(design, name):
    template_text, avd_text = texts(contexts(design)[name])
    assert differences(template_text, avd_text) == []
    compared = [h for h in blocks(template_text) if COMPARED.match(h)]
    assert len(compared) >= 3  # a spine: its uplinks and Loopback0 at least; the comparison is not vacuous
    if '+' in design and not design.endswith('+ospf'):  # the telemetry lines compared are there, one set per service
        top, ordered = telemetry_lines(template_text)
        for service in ('logging vrf \\S+ host', 'ntp server', 'snmp-server host', 'sflow vrf \\S+ destination'):
            assert any(re.match(service, line) for line in top), service
        assert all(ordered[header] for header in TELEMETRY_BLOCKS)


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
        # eAPI open to every source in the default VRF (as the template once rendered it)
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


def _dropped(config, path):
    """``config`` without the key at ``path`` (a tuple of keys; an ``int`` picks a list item by position, a ``str``
    starting with ``=`` picks the list item of that name)."""
    *parents, last = path
    node = config
    for key in parents:
        node = next(item for item in node if item['name'] == key[1:]) if str(key).startswith('=') else node[key]
    if str(last).startswith('='):
        node.remove(next(item for item in node if item['name'] == last[1:]))
    else:
        del node[last]
    return config


@pytest.mark.parametrize(
    ('case', 'path'),
    [
        ('evpn-vxlan+telemetry', ('logging',)),
        ('evpn-vxlan+telemetry', ('logging', 'vrfs', 0, 'source_interface')),
        ('evpn-vxlan+telemetry', ('ntp',)),
        ('evpn-vxlan+telemetry', ('ntp', 'vrf')),
        ('evpn-vxlan+telemetry', ('ntp', 'local_interface')),
        ('evpn-vxlan+telemetry', ('snmp_server', 'users')),
        ('evpn-vxlan+telemetry', ('snmp_server', 'hosts')),
        ('evpn-vxlan+telemetry', ('snmp_server', 'views')),
        ('evpn-vxlan+telemetry', ('snmp_server', 'local_interfaces')),
        ('evpn-vxlan+telemetry', ('snmp_server', 'traps')),
        ('evpn-vxlan+telemetry', ('snmp_server', 'ipv4_acls')),
        ('routed+v2c', ('snmp_server', 'communities')),
        ('evpn-vxlan+telemetry', ('standard_access_lists', '=AIFABRIC-SNMP')),
        ('evpn-vxlan+telemetry', ('sflow',)),
        ('evpn-vxlan+telemetry', ('sflow', 'dangerous')),
        ('evpn-vxlan+telemetry', ('sflow', 'vrfs', 0, 'source_interface')),
        ('evpn-vxlan+telemetry', ('sflow', 'run')),
        ('evpn-vxlan+telemetry', ('management_api_gnmi',)),
        ('evpn-vxlan+telemetry', ('management_api_gnmi', 'transport', 'grpc', 0, 'ip_access_group')),
        ('evpn-vxlan+telemetry', ('standard_access_lists', '=AIFABRIC-GNMI')),
        ('evpn-vxlan+telemetry', ('queue_monitor_length',)),
    ],
)
def test_a_dropped_telemetry_key_is_caught(case, path):
    """Negative control, one per telemetry block: a key left out of the AVD export, the comparison reports it."""
    ctx = contexts(case)['leaf1']
    template_text, avd_text = texts(ctx, _dropped(avd_structured_config(ctx), path))
    assert telemetry_differences(template_text, avd_text) != []


def _telemetry_lines_of_the_guide(ctx):
    """Lines the template must render for the guide's collectors (``guide_telemetry``), built from them."""
    collectors, vrf = guide_telemetry(), eos_management_vrf(ctx)
    return [
        f'logging vrf {vrf} host {collectors["syslog"][0]} 514\n',
        f'ntp server vrf {vrf} {collectors["ntp"][-1]} iburst\n',
        f'snmp-server host {collectors["snmp_managers"][0]} vrf {vrf} version 3 priv {collectors["snmp_user"]}\n',
        f'sflow sample dangerous {collectors["sflow_sampling_rate"]}\n',
        f'sflow vrf {vrf} destination {collectors["sflow"][1]} 6343\n',
        'sflow run\n',
        f'      vrf {vrf}\n      ip access-group AIFABRIC-GNMI\n',
        f'ip access-list standard AIFABRIC-GNMI\n   permit {collectors["streaming"][0]}/32\n',
    ]


@pytest.mark.parametrize('n', range(len(_telemetry_lines_of_the_guide(contexts('evpn-vxlan+telemetry')['leaf1']))))
def test_a_dropped_telemetry_line_of_the_template_is_caught(n):
    """Negative control, the other side: a telemetry line left out of the template's output (the gNMI ACL's entry:
    the ACL left empty), the comparison reports it."""
    ctx = contexts('evpn-vxlan+telemetry')['leaf1']
    template_text, avd_text = texts(ctx)
    line = _telemetry_lines_of_the_guide(ctx)[n]
    kept = line.split('\n')[0] + '\n' if line.count('\n') > 1 else ''  # a block header stays, its line goes
    assert line in template_text
    assert differences(template_text.replace(line, kept, 1), avd_text) != []
