"""The AVD export of the unnumbered eBGP underlay (RFC 5549): every switch of every guide design is valid
``eos_cli_config_gen`` structured config for pyavd's own validator, and pyavd renders it into the EOS lines of AVD's
``underlay_rfc5549`` (its molecule scenario ``evpn_underlay_rfc5549_overlay_ebgp``, docs/avd.md): the export of the
numbered fabric with exactly the uplinks' lines changed, everything else (MLAG peer session, EVPN overlay, loopbacks,
QoS, ...) line for line the same."""

import copy
from collections import Counter

import pytest

from netbox_aifabric.render.avd import avd_structured_config
from tests.render_fixtures import GUIDES, contexts_of, design_of, guide_spec

pyavd = pytest.importorskip('pyavd', reason='pyavd comes with the dev and benchmark extras')

pytestmark = pytest.mark.pure

SWITCH_ROLES = ('spine', 'leaf', 'border')
UNDERLAY_GROUP = 'IPv4-UNDERLAY-PEERS'  # AVD's default name (eos_designs bgp_peer_groups.ipv4_underlay_peers)


def contexts(guide: str, underlay: str) -> dict:
    raw = guide_spec(guide)
    raw['underlay'] = underlay
    return {n: c for n, c in contexts_of(raw, design_of(guide)).items() if c.get('role') in SWITCH_ROLES}


SWITCHES = [(guide, name) for guide in GUIDES for name in sorted(contexts(guide, 'ebgp-unnumbered'))]


def violations_of(config: dict) -> list[str]:
    result = pyavd.validate_structured_config(config)
    return [f'{"/".join(map(str, v.path))}: {v.message}' for v in result.validation_result.violations]


def eos_lines(config: dict) -> Counter:
    """pyavd's rendering as a multiset of lines, without the ``!`` separators."""
    return Counter(line for line in pyavd.get_device_config(config).splitlines() if line.strip() != '!')


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_unnumbered_export_is_valid_for_pyavd(guide, name):
    config = avd_structured_config(contexts(guide, 'ebgp-unnumbered')[name])
    assert violations_of(config) == []


def expected_changes(numbered: dict, unnumbered: dict) -> tuple[Counter, Counter]:
    """(lines gone, lines added) from the numbered to the unnumbered export, derived from the two contexts: each
    uplink loses its /31 for ``ipv6 enable``, each uplink session by the far end's address becomes a session on the
    interface, IPv4 is routed over IPv6 next hops."""
    gone, added = Counter(), Counter()
    uplinks = {p['name']: p for p in numbered['interfaces'] if p['kind'] == 'uplink' and p['address']}
    for port in unnumbered['interfaces']:
        if port.get('unnumbered'):
            gone[f'   ip address {uplinks[port["name"]]["address"]}'] += 1
            added['   ipv6 enable'] += 1
    for n in numbered['bgp']['neighbors']:
        if n['kind'] != 'uplink':
            continue
        gone.update(
            [
                f'   neighbor {n["address"]} peer group {UNDERLAY_GROUP}',
                f'   neighbor {n["address"]} remote-as {n["remote_asn"]}',
                f'   neighbor {n["address"]} description {n["peer"]} {n["interface"]}',
            ]
        )
        added[f'   neighbor interface {n["interface"]} peer-group {UNDERLAY_GROUP} remote-as {n["remote_asn"]}'] += 1
    if added:
        gone['ip routing'] += 1
        added.update(
            [
                'ip routing ipv6 interfaces',
                'ipv6 unicast-routing',
                f'      neighbor {UNDERLAY_GROUP} next-hop address-family ipv6 originate',
            ]
        )
    return gone, added


@pytest.mark.parametrize(('guide', 'name'), SWITCHES)
def test_only_the_uplinks_change_from_the_numbered_export(guide, name):
    numbered, unnumbered = contexts(guide, 'ebgp')[name], contexts(guide, 'ebgp-unnumbered')[name]
    before = eos_lines(avd_structured_config(numbered))
    after = eos_lines(avd_structured_config(unnumbered))
    gone, added = expected_changes(numbered, unnumbered)
    assert (before - after, after - before) == (gone, added)


def test_the_guides_have_unnumbered_uplinks_and_a_numbered_mlag_peer():
    """The comparison above is not empty: the routed and EVPN leaves have uplinks on the interfaces, the MLAG peer
    session stays on its address."""
    ctx = contexts('evpn-vxlan', 'ebgp-unnumbered')['leaf1']
    eos = eos_lines(avd_structured_config(ctx))
    uplinks = [n for n in ctx['bgp']['neighbors'] if n['kind'] == 'uplink']
    assert len(uplinks) == 2 and all(n['address'] is None for n in uplinks)
    for n in uplinks:
        assert eos[f'   neighbor interface {n["interface"]} peer-group {UNDERLAY_GROUP} remote-as {n["remote_asn"]}']
    peer = next(n for n in ctx['bgp']['neighbors'] if n['kind'] == 'mlag-peer')
    assert eos[f'   neighbor {peer["address"]} peer group MLAG-IPv4-UNDERLAY-PEER']
    for p in ctx['bgp']['evpn_peers']:
        assert eos[f'   neighbor {p["address"]} peer group EVPN-OVERLAY-PEERS']


@pytest.mark.parametrize(
    'break_it',
    [
        # a neighbour interface has no address key (EOS: `neighbor interface <port>` only)
        lambda c: c['router_bgp']['neighbor_interfaces'][0].update(ip_address='fe80::1'),
        # the IPv6 next hop's switch is `enabled`, not `enable`
        lambda c: c['router_bgp']['address_family_ipv4']['peer_groups'][0]['next_hop']['address_family_ipv6'].update(
            enable=True
        ),
        # the Ethernet key is `ipv6_enable`
        lambda c: next(e for e in c['ethernet_interfaces'] if e.get('ipv6_enable')).update(ipv6_enabled=True),
        # two sessions on one interface
        lambda c: c['router_bgp']['neighbor_interfaces'].append(dict(c['router_bgp']['neighbor_interfaces'][0])),
    ],
    ids=['ip_address-on-interface', 'enable-not-enabled', 'ipv6_enabled', 'duplicate-interface'],
)
def test_a_wrong_key_is_a_violation(break_it):
    """Negative control: pyavd's validator reports each wrong key of the unnumbered export."""
    config = avd_structured_config(contexts('routed', 'ebgp-unnumbered')['leaf1'])
    broken = copy.deepcopy(config)
    break_it(broken)
    assert violations_of(config) == []
    assert violations_of(broken) != []
