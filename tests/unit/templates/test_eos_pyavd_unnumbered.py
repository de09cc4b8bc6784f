"""Independent check of the EOS template on the unnumbered eBGP underlay (RFC 5549): each switch's rendered EOS
config equals pyavd's rendering of the AVD export (``render/avd.py``) where both render, as ``test_eos_pyavd.py``
compares them for the numbered fabrics (its ``differences``: interfaces, MLAG, ACLs, DSCP map, PFC watchdog, BGP
sessions by address with their options), and on what only the unnumbered underlay has: the sessions on interfaces
(``neighbor interface <port> peer-group <group> remote-as <asn>``, the group's name aside), ``ip routing ipv6
interfaces`` / ``ip routing`` and ``ipv6 unicast-routing``, and the IPv6 next hop of the underlay group in
``address-family ipv4``."""

import re

import pytest

from tests.render_fixtures import GUIDES, contexts_of, design_of, guide_spec
from tests.unit.templates.test_eos_pyavd import bgp_sections, differences, texts

pytestmark = pytest.mark.pure

ROUTING = ('ip routing', 'ip routing ipv6 interfaces', 'ipv6 unicast-routing')


def contexts(guide: str) -> dict:
    raw = guide_spec(guide)
    raw['underlay'] = 'ebgp-unnumbered'
    return {n: c for n, c in contexts_of(raw, design_of(guide)).items() if c['role'] in ('spine', 'leaf', 'border')}


SWITCHES = [(guide, name) for guide in GUIDES for name in sorted(contexts(guide))]


def unnumbered_lines(text: str) -> dict:
    """What only the unnumbered underlay renders, the peer-group names left out (a naming choice on each side)."""
    direct, families = bgp_sections(text)
    sessions = set()
    for line in direct:
        if match := re.fullmatch(r'neighbor interface (\S+) peer-group \S+ remote-as (\d+)', line):
            sessions.add((match[1], match[2]))
    next_hop = [
        re.sub(r'^neighbor \S+ ', 'neighbor <group> ', line)
        for line in families.get('address-family ipv4', [])
        if 'next-hop address-family ipv6' in line
    ]
    routing = {line for line in text.splitlines() if line in ROUTING}
    return {'sessions': sessions, 'next hop': next_hop, 'routing': routing}


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_eos_equals_pyavd_on_the_unnumbered_underlay(guide, name):
    ctx = contexts(guide)[name]
    template_text, avd_text = texts(ctx)
    assert differences(template_text, avd_text) == []
    ours, theirs = unnumbered_lines(template_text), unnumbered_lines(avd_text)
    assert ours == theirs
    uplinks = {(n['interface'], str(n['remote_asn'])) for n in ctx['bgp']['neighbors'] if n['address'] is None}
    assert ours['sessions'] == uplinks  # from the context: the comparison is not vacuous where there are uplinks
    assert bool(ours['next hop']) == bool(uplinks)


@pytest.mark.parametrize(
    ('old', 'new'),
    [
        ('   ipv6 enable\n', ''),
        ('ip routing ipv6 interfaces\n', 'ip routing\n'),
        ('      neighbor UNDERLAY next-hop address-family ipv6 originate\n', ''),
        ('remote-as 65100\n', 'remote-as 65199\n'),
    ],
    ids=['ipv6-enable', 'ip-routing', 'next-hop', 'remote-as'],
)
def test_a_changed_unnumbered_line_is_caught(old, new):
    """Negative control: one line of the template's unnumbered rendering changed is a difference."""
    ctx = contexts('evpn-vxlan')['leaf1']
    template_text, avd_text = texts(ctx)
    assert old in template_text
    broken = template_text.replace(old, new, 1)
    assert differences(broken, avd_text) != [] or unnumbered_lines(broken) != unnumbered_lines(avd_text)
