"""LLDP against the plan, pure: uploads generated from the guide cluster's plan in each tool's JSON (EOS, NVUE, lldpd
json and json0, one interface and many), parsed back and judged; negative controls (two uplinks swapped, one cable
missing, an unplanned neighbour); a fuzz of every parser (arbitrary text or JSON: a named error or a parse)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netbox_aifabric.acceptance.judge import UploadError
from netbox_aifabric.acceptance.lldp import (
    CATEGORY,
    LLDP_TOOLS,
    Neighbour,
    device_name,
    device_verdict,
    judge_cabling,
    parse_eos_lldp,
    parse_lldp,
    parse_lldpd,
)
from netbox_aifabric.checks.engine import Facts, run_rules
from netbox_aifabric.checks.lldp import RULES as LLDP_RULES
from tests.hypothesis_profiles import examples
from tests.render_fixtures import guide_spec, plan_of

pytestmark = pytest.mark.pure

SWITCH_TOOLS = ('eos-lldp', 'nvue-lldp', 'sonic-lldp')


@pytest.fixture(scope='module')
def plan():
    return plan_of(guide_spec('routed'))


def seen_from_plan(plan, swap=None, drop=None):
    """{device: [(local port, remote system, remote port)]} as LLDP would show the plan's cables; ``swap``: two
    (device, port) ends whose cables trade places at that device; ``drop``: a link index seen by neither end."""
    table = {}
    for i, link in enumerate(plan.links):
        if i == drop:
            continue
        table.setdefault(link.a_node, {})[link.a_interface] = (link.b_node, link.b_interface)
        table.setdefault(link.b_node, {})[link.b_interface] = (link.a_node, link.a_interface)
    if swap:
        (dev, p1), (_, p2) = swap
        far1, far2 = table[dev][p1], table[dev][p2]
        table[dev][p1], table[dev][p2] = far2, far1
        table[far1[0]][far1[1]] = (dev, p2)
        table[far2[0]][far2[1]] = (dev, p1)
    return {dev: sorted((p, *far) for p, far in ports.items()) for dev, ports in table.items()}


def eos_json(rows, fqdn=''):
    return json.dumps({
        'lldpNeighbors': [{'port': p, 'neighborDevice': s + fqdn, 'neighborPort': r, 'ttl': 120} for p, s, r in rows],
        'tablesAgeOuts': 0, 'tablesDeletes': 0, 'tablesDrops': 0, 'tablesInserts': len(rows),
    })  # fmt: skip


def eos_detail_json(rows):
    return json.dumps({'lldpNeighbors': {
        p: {'lldpNeighborInfo': [{'systemName': s, 'neighborInterfaceInfo': {'interfaceId': f'"{r}"',
                                                                             'interfaceId_v2': r}}]}
        for p, s, r in rows
    }})  # fmt: skip


def nvue_json(rows):
    """NVUE names the plan's generic Ethernet<n> swp<n> on its own ports and a Cumulus far end's alike."""

    def swp(name):
        return 'swp' + name[len('Ethernet') :] if name.startswith('Ethernet') else name

    return json.dumps({swp(p): {'type': 'swp', 'lldp': {'neighbor': {s: {
        'chassis': {'system-name': s, 'chassis-id': '48:b0:2d:00:00:01'},
        'port': {'name': swp(r), 'type': 'ifname', 'description': ''}, 'age': 120}}}} for p, s, r in rows}
        | {'lo': {'type': 'loopback', 'lldp': {'neighbor': {}}}})  # fmt: skip


def lldpd_json(rows, fqdn='.dc1.example.com'):
    def one(p, s, r):
        return {p: {'via': 'LLDP', 'rid': '1', 'age': '0 day, 00:10:00',
                    'chassis': {s + fqdn: {'id': {'type': 'mac', 'value': '0c:00:00:00:00:01'}, 'descr': 'x'}},
                    'port': {'id': {'type': 'ifname', 'value': r}, 'descr': r, 'ttl': '120'}}}  # fmt: skip

    entries = [one(*row) for row in rows]
    return json.dumps({'lldp': {'interface': entries[0] if len(entries) == 1 else entries}})


def lldpd_json0(rows):
    return json.dumps({'lldp': [{'interface': [{
        'name': p, 'via': 'LLDP', 'rid': '1',
        'chassis': [{'id': [{'type': 'mac', 'value': '0c:00:00:00:00:01'}], 'name': [{'value': s}]}],
        'port': [{'id': [{'type': 'ifname', 'value': r}], 'descr': [{'value': r}], 'ttl': [{'value': '120'}]}],
    } for p, s, r in rows]}]})  # fmt: skip


RENDER = {'eos-lldp': eos_json, 'nvue-lldp': nvue_json, 'sonic-lldp': lldpd_json, 'lldpctl': lldpd_json}


def views_of(plan, nos='eos-lldp', **changes):
    """{device: parsed neighbours}: each switch's table in ``nos``'s JSON, each server's in lldpctl's."""
    switches = {n.name for n in plan.nodes}
    out = {}
    for dev, rows in seen_from_plan(plan, **changes).items():
        tool = nos if dev in switches else 'lldpctl'
        out[dev] = parse_lldp(tool, RENDER[tool](rows))
    return out


def failures(verdicts):
    return {v.subject: v.seen for v in verdicts if v.status != 'passed'}


@pytest.mark.parametrize('nos', SWITCH_TOOLS)
def test_every_planned_cable_seen_from_both_ends_passes(plan, nos):
    verdicts = judge_cabling(plan, views_of(plan, nos))
    assert [v.subject for v in verdicts] == [
        f'{k.a_node} {k.a_interface} <-> {k.b_node} {k.b_interface}' for k in plan.links
    ]
    assert failures(verdicts) == {} and {v.category for v in verdicts} == {CATEGORY}


@pytest.mark.parametrize('render', [eos_detail_json, lambda rows: eos_json(rows, '.dc1.example.com')])
def test_eos_variants_judge_alike(plan, render):
    """``show lldp neighbors detail | json`` and FQDN system names: the same cabling."""
    rows = seen_from_plan(plan)['leaf1']
    parsed = parse_eos_lldp(render(rows))
    assert [(n.port, n.system.split('.')[0], n.remote_port) for n in parsed] == rows
    views = views_of(plan)
    views['leaf1'] = parsed
    assert failures(judge_cabling(plan, views)) == {}


def test_lldpd_one_interface_is_a_dict_and_json0_parses_alike():
    one = [('nic1', 'leaf1', 'Ethernet1')]
    assert json.loads(lldpd_json(one))['lldp']['interface'].keys() == {'nic1'}
    expected = [Neighbour('nic1', 'leaf1.dc1.example.com', 'Ethernet1', 'Ethernet1')]
    assert parse_lldpd(lldpd_json(one)) == expected
    assert parse_lldpd(lldpd_json0(one)) == [Neighbour('nic1', 'leaf1', 'Ethernet1', 'Ethernet1')]
    assert parse_lldpd('{"lldp": {}}') == [] and parse_lldpd('{"lldp": [{}]}') == []
    nameless = {'lldp': {'interface': {'nic1': {'chassis': {'id': {'type': 'mac', 'value': 'aa'}}, 'port': {}}}}}
    assert parse_lldpd(json.dumps(nameless)) == [Neighbour('nic1', '', '', '')]


def test_device_names_strip_the_fqdn_suffix_and_case():
    devices = ['leaf1', 'spine1']
    assert device_name('LEAF1.dc1.example.com.', devices) == 'leaf1'
    assert device_name('spine1', devices) == 'spine1'
    assert device_name('spine10', devices) is None and device_name('', devices) is None


def test_two_swapped_uplinks_name_exactly_those_ports(plan):
    uplinks = [k for k in plan.links if k.kind == 'uplink' and k.b_node == 'leaf1']
    (a, b) = uplinks[:2]
    verdicts = judge_cabling(plan, views_of(plan, swap=(('leaf1', a.b_interface), ('leaf1', b.b_interface))))
    failed = {v.subject: v.seen for v in verdicts if v.status == 'failed'}
    assert set(failed) == {f'{k.a_node} {k.a_interface} <-> leaf1 {k.b_interface}' for k in (a, b)}
    for mine, theirs in ((a, b), (b, a)):
        line = (f'leaf1 {mine.b_interface}: expected {mine.a_node} {mine.a_interface}, '
                f'found {theirs.a_node} {theirs.a_interface}')  # fmt: skip
        assert line in failed[f'{mine.a_node} {mine.a_interface} <-> leaf1 {mine.b_interface}']
    assert all(v.status == 'passed' for v in verdicts if v.subject not in failed)


@pytest.mark.parametrize('nos', SWITCH_TOOLS)
def test_one_missing_cable_is_named(plan, nos):
    index = next(i for i, k in enumerate(plan.links) if k.kind == 'rdma')
    link = plan.links[index]
    verdicts = judge_cabling(plan, views_of(plan, nos, drop=index))
    subject = f'{link.a_node} {link.a_interface} <-> {link.b_node} {link.b_interface}'
    assert set(failures(verdicts)) == {subject}
    seen = failures(verdicts)[subject]
    assert (
        f'{link.a_node} {link.a_interface}: expected {link.b_node} {link.b_interface}, found no LLDP neighbour' in seen
    )
    assert (
        f'{link.b_node} {link.b_interface}: expected {link.a_node} {link.a_interface}, found no LLDP neighbour' in seen
    )


def test_one_end_uploaded_is_not_verified_and_says_which_to_upload(plan):
    views = views_of(plan)
    del views['spine2']
    verdicts = judge_cabling(plan, views)
    pending = {v.subject: v.seen for v in verdicts if v.status == 'not-verified'}
    assert set(pending) == {f'spine2 {k.a_interface} <-> {k.b_node} {k.b_interface}'
                            for k in plan.links if k.a_node == 'spine2'}  # fmt: skip
    assert all("upload spine2's LLDP" in seen for seen in pending.values())
    assert not [v for v in verdicts if v.status == 'failed']


def test_an_unplanned_neighbour_fails_when_it_is_a_fabric_device(plan):
    views = views_of(plan)
    views['leaf1'] = [*views['leaf1'], Neighbour('Ethernet40', 'spine1', 'Ethernet30'),
                      Neighbour('Management1', 'oob-switch', 'swp10')]  # fmt: skip
    verdicts = judge_cabling(plan, views)
    extra = {v.subject: (v.status, v.seen) for v in verdicts if 'unplanned' in v.name}
    assert extra == {
        'leaf1 Ethernet40': ('failed', 'leaf1 Ethernet40: found spine1 Ethernet30'),
        'leaf1 Management1': ('not-verified', 'leaf1 Management1: found oob-switch swp10 (not a device of the plan: '
                              'to review)'),
    }  # fmt: skip
    leaf1 = device_verdict('eos-lldp', 'leaf1', views['leaf1'], verdicts)
    assert leaf1.status == 'failed' and 'leaf1 Ethernet40' in leaf1.seen
    assert device_verdict('eos-lldp', 'leaf2', views['leaf2'], verdicts).status == 'passed'


def test_a_sonic_alias_port_id_is_settled_by_the_far_ends_upload(plan):
    """SONiC advertises its port alias as the port ID: the far end's own view (its local port) confirms the cable."""
    views = views_of(plan, 'sonic-lldp')
    views['leaf1'] = [Neighbour(n.port, n.system, 'etp' + n.remote_port[8:]) if n.system.startswith('spine') else n
                      for n in views['leaf1']]  # fmt: skip
    assert failures(judge_cabling(plan, views)) == {}
    del views['spine1']  # without the far end's view the alias is a mismatch
    failed = {v.subject for v in judge_cabling(plan, views) if v.status == 'failed'}
    assert failed == {f'spine1 {k.a_interface} <-> leaf1 {k.b_interface}' for k in plan.links
                      if k.a_node == 'spine1' and k.b_node == 'leaf1'}  # fmt: skip


@pytest.mark.parametrize(
    ('tool', 'output', 'message'),
    [
        ('eos-lldp', '', 'empty'),
        ('eos-lldp', 'Port Neighbor Device ID', 'invalid JSON'),
        ('eos-lldp', '{"interfaces": {}}', 'no "lldpNeighbors"'),
        ('eos-lldp', '{"lldpNeighbors": [{"neighborDevice": "x"}]}', 'names no local port'),
        ('nvue-lldp', '{"swp1": {"type": "swp", "link": {}}}', 'no interface has an "lldp" section'),
        ('nvue-lldp', '{"neighbor": {}}', 'names no port'),
        ('sonic-lldp', '[1, 2]', 'no "lldp"'),
        ('lldpctl', '{"lldp": {"interface": 7}}', 'an object or a list expected'),
        ('nope', '{}', 'is not one of'),
    ],
)
def test_garbage_is_a_named_error(tool, output, message):
    with pytest.raises(UploadError, match=message):
        parse_lldp(tool, output)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=25,
)
keyed = st.sampled_from(['lldpNeighbors', 'lldp', 'interface', 'lldpNeighborInfo', 'neighbor', 'chassis', 'port',
                         'name', 'id', 'value', 'neighborInterfaceInfo', 'result', 'system-name'])  # fmt: skip
shaped = st.recursive(
    st.none() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keyed | st.text(max_size=4), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=examples(300), deadline=None)
@given(tool=st.sampled_from(sorted(LLDP_TOOLS)), output=st.text(max_size=200) | json_values.map(json.dumps)
       | shaped.map(json.dumps))  # fmt: skip
def test_fuzz_every_parser_answers_a_named_error_or_a_parse(tool, output):
    try:
        found = parse_lldp(tool, output)
    except UploadError as e:
        assert e.field == 'output' and e.message
    else:
        assert all(isinstance(n, Neighbour) and all(isinstance(x, str) for x in vars(n).values()) for n in found)


def rule_outcome(plan, verdicts, lldp=True):
    """The fabric-lldp rule's status and findings on facts holding these verdicts as the stored results."""
    results = [{'name': v.name, 'category': v.category, 'subject': v.subject, 'status': v.status,
                'expected': v.expected, 'seen': v.seen} for v in verdicts]  # fmt: skip
    run = {'id': 7, 'name': 'acceptance 7', 'time': None}
    acceptance = {'lldp': {'run': run, 'results': results} if lldp else None}
    result = run_rules(LLDP_RULES, Facts('guide', {}, plan=plan, acceptance=acceptance)).results[0]
    return result.status, [(tuple(str(o) for o in f.objects), f.found) for f in result.findings], result.note


def test_the_rule_passes_when_every_cable_was_seen(plan):
    assert rule_outcome(plan, judge_cabling(plan, views_of(plan)))[:2] == ('pass', [])


def test_the_rule_names_the_swapped_and_the_missing_cables(plan):
    a, b = [k for k in plan.links if k.kind == 'uplink' and k.b_node == 'leaf1'][:2]
    index = next(i for i, k in enumerate(plan.links) if k.kind == 'server')
    missing = plan.links[index]
    views = views_of(plan, swap=(('leaf1', a.b_interface), ('leaf1', b.b_interface)), drop=index)
    status, findings, _ = rule_outcome(plan, judge_cabling(plan, views))
    assert status == 'fail'
    named = {objects[:2]: found for objects, found in findings}
    assert set(named) == {(f'{k.a_node} {k.a_interface}', f'{k.b_node} {k.b_interface}') for k in (a, b, missing)}
    assert (f'leaf1 {a.b_interface}: expected {a.a_node} {a.a_interface}, found {b.a_node} {b.a_interface}'
            in named[(f'{a.a_node} {a.a_interface}', f'leaf1 {a.b_interface}')])  # fmt: skip
    assert 'found no LLDP neighbour' in named[(f'{missing.a_node} {missing.a_interface}',
                                               f'{missing.b_node} {missing.b_interface}')]  # fmt: skip


def test_the_rule_without_an_upload_says_so_and_does_not_pass(plan):
    status, findings, message = rule_outcome(plan, [], lldp=False)
    assert (status, findings) == ('skip', []) and message.startswith('no LLDP upload yet')
    result = run_rules(LLDP_RULES, Facts('guide', {}, plan=plan, acceptance={})).results[0]
    assert result.status == 'skip' and 'not read' in result.note


def test_the_rule_names_a_cable_the_stored_run_never_judged(plan):
    verdicts = [v for v in judge_cabling(plan, views_of(plan)) if not v.subject.startswith('spine2 ')]
    status, findings, _ = rule_outcome(plan, verdicts)
    assert status == 'fail' and len(findings) == sum(1 for k in plan.links if k.a_node == 'spine2')
    assert all('not judged by acceptance 7' in found for _, found in findings)


def test_two_peer_links_swapped_between_the_same_two_switches_name_the_ports(plan):
    """Same system at both ends, the ports crossed: the remote port decides (leaf2 Ethernet74, not Ethernet73)."""
    a, b = [k for k in plan.links if k.kind == 'mlag-peer'][:2]
    verdicts = judge_cabling(plan, views_of(plan, swap=((a.a_node, a.a_interface), (a.a_node, b.a_interface))))
    failed = {v.subject: v.seen for v in verdicts if v.status == 'failed'}
    assert set(failed) == {f'{k.a_node} {k.a_interface} <-> {k.b_node} {k.b_interface}' for k in (a, b)}
    line = f'{a.a_node} {a.a_interface}: expected {a.b_node} {a.b_interface}, found {b.b_node} {b.b_interface}'
    assert line in failed[f'{a.a_node} {a.a_interface} <-> {a.b_node} {a.b_interface}']


def test_the_rule_fails_while_a_far_end_is_not_uploaded(plan):
    views = views_of(plan)
    del views['spine2']
    status, findings, _ = rule_outcome(plan, judge_cabling(plan, views))
    spine2 = [k for k in plan.links if 'spine2' in (k.a_node, k.b_node)]
    assert status == 'fail' and len(findings) == len(spine2)
    assert all(found.startswith('not-verified: ') and "upload spine2's LLDP" in found for _, found in findings)


def test_a_server_advertising_its_mac_as_port_id_is_settled_by_its_own_upload(plan):
    """lldpd's default port ID is the MAC (the name in the description): EOS's brief table shows only the ID."""
    mac = '0c:42:a1:00:00:01'
    views = views_of(plan)
    servers = {k.b_node for k in plan.links if k.kind == 'server'}
    views['leaf1'] = [Neighbour(n.port, n.system, mac) if n.system in servers else n for n in views['leaf1']]
    assert failures(judge_cabling(plan, views)) == {}
    del views['gpu1']
    pending = {v.subject: v.seen for v in judge_cabling(plan, views) if v.status != 'passed'}
    gpu1 = {f'{k.a_node} {k.a_interface} <-> gpu1 {k.b_interface}' for k in plan.links if k.b_node == 'gpu1'}
    assert set(pending) == gpu1
    assert all(v.status == 'not-verified' for v in judge_cabling(plan, views) if v.subject in gpu1)
    assert f'its port advertised as {mac}' in pending[next(s for s in sorted(gpu1) if s.startswith('leaf1 '))]
