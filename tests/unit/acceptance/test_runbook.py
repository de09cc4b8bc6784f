"""The acceptance runbook from a plan and its contexts, pure: its steps counted from the input (cables, jumbo links,
leaves, racks, storage nodes, classes), the command of each switch's NOS, and the script: shellcheck-clean, every
value quoted, and run for real with a stand-in for ssh."""

import itertools
import os
import shutil
import stat
import subprocess
import sys
from collections import defaultdict

import pytest

from netbox_aifabric.acceptance.runbook import (
    ANSIBLE_PLAYBOOK,
    LLDP_COMMANDS,
    LLDP_STEP,
    NOS_COMMANDS,
    SECTIONS,
    build_runbook,
    iperf3_pairs,
    runbook_script,
)
from tests.render_fixtures import contexts_of, guide_contexts, guide_intent, guide_spec, plan_of, single_leaf_racks_spec

pytestmark = pytest.mark.pure

CASES = {
    'routed': lambda: (plan_of(guide_spec('routed')), guide_contexts('routed')),
    'evpn-vxlan': lambda: (plan_of(guide_spec('evpn-vxlan')), guide_contexts('evpn-vxlan')),
    'mlag': lambda: (plan_of(guide_spec('mlag')), guide_contexts('mlag')),
    'single-leaf-racks': lambda: (plan_of(single_leaf_racks_spec()), contexts_of(single_leaf_racks_spec(), 'routed')),
}


def expected_counts(plan, contexts):
    """The runbook's step counts, counted from the plan and the contexts by other means than the runbook's."""
    switches = {n.name for n in plan.nodes}
    ends = sum((link.a_node in switches) + (link.b_node in switches) for link in plan.links)
    cabled = {n for link in plan.links for n in (link.a_node, link.b_node)}
    mtu = {(n, p['name']): p.get('mtu') or 1500 for n in switches for p in contexts[n]['interfaces']}
    jumbo = [
        link
        for link in plan.links
        if link.a_address and link.b_address and link.a_node in switches and link.b_node in switches
        and min(mtu[link.a_node, link.a_interface], mtu[link.b_node, link.b_interface]) > 1500
    ]  # fmt: skip
    leaves = [n for n in plan.nodes if n.role != 'spine']
    racks = defaultdict(list)
    storage = set()
    leaves_of = defaultdict(set)
    for link in plan.links:
        if link.kind == 'server':
            leaves_of[link.b_node].add(link.a_node)
    for a in plan.attachments:
        if a.kind == 'storage':
            storage.add(a.server)
        else:
            racks[frozenset(leaves_of[a.server])].append(a.server)
    same = sum(1 for servers in racks.values() if len(servers) >= 2)
    cross = sum(1 for a, b in itertools.combinations(racks, 2) if not a & b)
    classes = next(c['security']['classes'] for c in contexts.values() if c.get('security'))
    evpn = [c for c in contexts.values() if 'l2vpn-evpn' in ((c.get('bgp') or {}).get('address_families') or [])]
    anycast = {v['vid'] for c in evpn for v in c['vlans'] if v.get('l2vni') and v.get('gateway')}
    with_prefix = sum(1 for c in classes if c['prefix'])
    roce = bool(next(c['qos'] for c in contexts.values() if c.get('qos'))['pfc_priorities'])
    nics = sum(
        len([p for p in c['interfaces'] if p['kind'] == 'rdma'] or [p for p in c['interfaces'] if p.get('lag')])
        for n, c in contexts.items()
        if n not in switches
    )
    return {
        'rdma': expected_rdma_pairs(plan) or 1,  # none: one step saying why
        'roce': (len(switches) + nics) if roce else 0,
        'ansible': 1,
        'physical': ends + len(cabled & (switches | set(contexts))),  # every port end, then each device's LLDP
        'mtu': len(jumbo) + len(leaves) * (len(leaves) - 1) // 2,
        'evpn': len(evpn) + len(anycast),
        'throughput': same + cross + len(storage) * len(racks),
        'security': with_prefix * (with_prefix - 1),
    }


def expected_rdma_pairs(plan):
    """Same-leaf: the leaves with RDMA NICs of two servers; cross-leaf: per rack (a server's bond leaves), its leaves
    with RDMA NICs less one; cross-rack: every two racks without a common leaf. Counted from the plan's links."""
    bond, on_leaf = defaultdict(set), defaultdict(set)
    for link in plan.links:
        if link.kind == 'server':
            bond[link.b_node].add(link.a_node)
        elif link.kind in ('rdma', 'rail'):
            on_leaf[link.a_node].add(link.b_node)
    rack_leaves = defaultdict(set)
    for leaf, servers in on_leaf.items():
        rack_leaves[frozenset(bond[min(servers)] or {leaf})].add(leaf)
    same = sum(1 for servers in on_leaf.values() if len(servers) >= 2)
    cross_leaf = sum(len(leaves) - 1 for leaves in rack_leaves.values())
    cross_rack = sum(1 for a, b in itertools.combinations(rack_leaves, 2) if not a & b)
    return same + cross_leaf + cross_rack


@pytest.mark.parametrize('case', sorted(CASES))
def test_counts_follow_the_plan(case):
    plan, contexts = CASES[case]()
    book = build_runbook(plan, contexts)
    counts = {s: len(book.section(s)) for s in SECTIONS}
    assert counts == expected_counts(plan, contexts)
    assert counts['roce'] > 0
    assert (counts['evpn'] > 0) == (case == 'evpn-vxlan')
    assert all(counts[k] > 0 for k in ('physical', 'mtu', 'throughput', 'rdma', 'security'))


def test_leaf_to_leaf_pairs_where_racks_share_no_leaf():
    plan = plan_of(single_leaf_racks_spec())
    kinds = [kind for kind, _, _ in iperf3_pairs(plan)]
    assert kinds.count('leaf-to-leaf') == 1 and kinds.count('same-leaf') == 2 and kinds.count('storage') == 2
    routed = [kind for kind, _, _ in iperf3_pairs(plan_of(guide_spec('routed')))]
    assert routed == ['same-leaf', 'storage']  # one MLAG rack: every server on both leaves


def test_a_lowered_mtu_drops_that_link_from_the_jumbo_pings():
    """Negative control: the runbook reads the contexts' MTUs, so a link at 1500 bytes is no jumbo pair."""
    plan, contexts = CASES['routed']()
    before = len(build_runbook(plan, contexts).section('mtu'))
    port = next(p for p in contexts['leaf1']['interfaces'] if p['kind'] == 'uplink')
    port['mtu'] = 1500
    steps = build_runbook(plan, contexts).section('mtu')
    assert len(steps) == before - 1
    assert not any(s.subject.startswith(f'leaf1 {port["name"]} ->') for s in steps)


def test_the_commands_of_the_switch_nos():
    plan, contexts = CASES['routed']()
    book = build_runbook(plan, contexts, {'leaf1': 'eos', 'leaf2': 'sonic'})
    by_switch, lldp = defaultdict(set), {}
    for step in book.section('physical'):
        if step.kind == LLDP_STEP:
            lldp[step.where] = step.commands
            continue
        by_switch[step.where] |= {c.split(':', 1)[0] for c in step.commands}
        assert all(step.destination in c for c in step.commands if 'counters errors' not in c)
    assert (by_switch['leaf1'], by_switch['leaf2'], by_switch['spine1']) == ({'eos'}, {'sonic'}, set(NOS_COMMANDS))
    assert lldp['leaf1'] == ('eos: show lldp neighbors | json',)
    assert lldp['leaf2'] == ('sonic: docker exec lldp lldpctl -f json',)
    assert {c.split(':', 1)[0] for c in lldp['spine1']} == set(LLDP_COMMANDS)
    servers = {link.b_node for link in plan.links if link.kind == 'server'}
    assert {n: lldp[n] for n in servers} == dict.fromkeys(servers, ('lldpctl -f json',))


def script_of(case, tmp_path, **kwargs):
    plan, contexts = CASES[case]()
    path = tmp_path / 'acceptance.sh'
    path.write_text(runbook_script(build_runbook(plan, contexts, **kwargs)))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.skipif(not shutil.which('shellcheck'), reason='shellcheck is not installed (apt-get install shellcheck)')
@pytest.mark.parametrize('case', sorted(CASES))
def test_script_is_shellcheck_clean(case, tmp_path):
    proc = subprocess.run(['shellcheck', str(script_of(case, tmp_path))], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_hostile_names_stay_quoted(tmp_path):
    plan, contexts = CASES['routed']()
    for ctx in contexts.values():
        for c in (ctx.get('security') or {}).get('classes') or []:
            if c['name'] == 'USERS':
                c['name'] = "US$(touch pwned)'ERS"
    path = tmp_path / 'a.sh'
    path.write_text(runbook_script(build_runbook(plan, contexts)))
    env = {**os.environ, 'OUT': str(tmp_path / 'out')}
    proc = subprocess.run(['bash', str(path), 'security'], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert not (tmp_path / 'pwned').exists()
    assert "US$(touch pwned)'ERS -> MGMT" in proc.stdout


def test_script_runs_with_a_stand_in_for_ssh(tmp_path):
    """SWITCH_SSH is a script that runs the command here: every MTU ping 'passes' (true), every physical check
    of a known NOS writes its file, the security pairs without hosts are skipped; the summary counts it all."""
    fake = tmp_path / 'fake-ssh'
    fake.write_text('#!/bin/sh\nshift\necho "$*"\n')
    fake.chmod(0o755)
    plan, contexts = CASES['routed']()
    book = build_runbook(plan, contexts, {n: 'nvue' for n in contexts})
    path = tmp_path / 'a.sh'
    path.write_text(runbook_script(book))
    env = {**os.environ, 'OUT': str(tmp_path / 'out'), 'SWITCH_SSH': str(fake), 'HOST_SSH': str(fake)}
    env.pop('NETBOX_URL', None)
    proc = subprocess.run(['bash', str(path), 'physical', 'mtu', 'security'], capture_output=True, text=True, env=env)
    summary = (tmp_path / 'out' / 'summary.txt').read_text().splitlines()
    mtu, physical, security = (len(book.section(s)) for s in ('mtu', 'physical', 'security'))
    assert summary[-1].startswith(f'passed {mtu}, failed 0, to review or skipped {physical + security}'), proc.stderr
    assert proc.returncode == 0
    ports = [s for s in book.section('physical') if s.kind != LLDP_STEP]
    assert len(list((tmp_path / 'out').glob('physical_*.txt'))) == len({s.subject for s in ports})
    lldp = sorted(p.name for p in (tmp_path / 'out').glob('lldp_*.json'))
    assert lldp == sorted(f'lldp_{s.where}.json' for s in book.section('physical') if s.kind == LLDP_STEP)
    assert (tmp_path / 'out' / 'lldp_leaf1.json').read_text() == 'nv show interface lldp-detail -o json\n'
    first = book.section('physical')[0]
    text = (tmp_path / 'out' / f'physical_{first.where}_{first.destination}.txt').read_text()
    assert f'nv show interface {first.destination} link' in text


def test_evpn_checks_name_the_peers_and_vnis_of_each_switch():
    plan, contexts = CASES['evpn-vxlan']()
    steps = {s.subject: s for s in build_runbook(plan, contexts, {'leaf1': 'nvue'}).section('evpn')}
    leaf1 = contexts['leaf1']
    for peer in leaf1['bgp']['evpn_peers']:
        assert peer['peer'] in steps['leaf1'].expect
    assert all(str(v['l2vni']) in steps['leaf1'].expect for v in leaf1['vlans'] if v.get('l2vni'))
    assert {c.split(':', 1)[0] for c in steps['leaf1'].commands} == {'nvue'}
    gateway = next(v for v in leaf1['vlans'] if v.get('gateway'))
    assert gateway['gateway'] in steps[f'anycast gateway VLAN {gateway["vid"]}'].expect


FIXTURES = __import__('pathlib').Path(__file__).parent / 'fixtures'
# a stand-in for ssh that prints each counter command's "before" fixture the first time, its "after" the second
COUNTER_SSH = """#!/bin/sh
shift
case "$*" in
  'show pfc counters') name=sonic_pfc ;;
  'show queue counters') name=sonic_queue ;;
  'ethtool -S '*) name=ethtool_mlx5 ;;
  *) echo "$*"; exit 0 ;;
esac
mark="$MARKS/$(echo "$*" | tr -c 'a-z0-9' _)"
if [ -e "$mark" ]; then cat "$FIXTURES/${name}_after.txt"; else touch "$mark"; cat "$FIXTURES/${name}_before.txt"; fi
"""
FAKE_ANSIBLE = '#!/bin/sh\necho "ansible-playbook $*"\necho "leaf1 : ok=3 changed=0 unreachable=0 failed=0"\n'


def test_roce_counters_before_and_after_and_ansible_check_mode(tmp_path):
    """The roce section snapshots every switch's and NIC's counters before and after the load, the ansible section
    runs the playbook in check mode; both with stand-ins (ssh printing the counter fixtures, ansible-playbook)."""
    plan, contexts = CASES['routed']()
    book = build_runbook(plan, contexts, {n: 'sonic' for n in contexts})
    path = tmp_path / 'a.sh'
    path.write_text(runbook_script(book))
    bin_dir, marks = tmp_path / 'bin', tmp_path / 'marks'
    bin_dir.mkdir(), marks.mkdir()
    for name, text in (('fake-ssh', COUNTER_SSH), ('ansible-playbook', FAKE_ANSIBLE)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    playbook = tmp_path / 'playbook.yml'
    playbook.write_text('- hosts: all\n')
    env = {
        **os.environ, 'OUT': str(tmp_path / 'out'), 'SWITCH_SSH': str(bin_dir / 'fake-ssh'),
        'HOST_SSH': str(bin_dir / 'fake-ssh'), 'FIXTURES': str(FIXTURES), 'MARKS': str(marks),
        'PATH': f'{bin_dir}:{os.environ["PATH"]}', 'ANSIBLE_PLAYBOOK': str(playbook), 'ANSIBLE_INVENTORY': 'inv.yml',
    }  # fmt: skip
    env.pop('NETBOX_URL', None)
    proc = subprocess.run(['bash', str(path), 'roce', 'ansible'], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = (tmp_path / 'out' / 'summary.txt').read_text().splitlines()
    steps = book.section('roce')
    switches = [s for s in steps if s.kind == 'switch']
    nics = [s for s in steps if s.kind == 'nic']
    sonic = [c for c in switches[0].commands if c.startswith('sonic: ')]
    judged = [line for line in summary if line.startswith('review: roce ') and 'NetBox judges it' in line]
    # per switch: show pfc counters and show queue counters are judged, show queue wredcounters is for review
    assert len(judged) == 2 * len(switches) + len(nics)
    assert len([line for line in summary if line.startswith('review: roce ')]) == len(sonic) * len(switches) + len(nics)
    nic = nics[0]
    before = tmp_path / 'out' / f'roce_before_{nic.where}_{nic.destination}_1.txt'
    after = tmp_path / 'out' / f'roce_after_{nic.where}_{nic.destination}_1.txt'
    assert before.read_text() == (FIXTURES / 'ethtool_mlx5_before.txt').read_text()
    assert after.read_text() == (FIXTURES / 'ethtool_mlx5_after.txt').read_text()
    assert 'pass: ansible check mode: nothing to change' in summary
    ran = (tmp_path / 'out' / 'ansible_check.txt').read_text()
    assert ran.startswith(f'ansible-playbook -i inv.yml {playbook} --check --diff')
    # without the playbook (the shipped one is absent here): skipped, never passed
    env['ANSIBLE_PLAYBOOK'] = str(tmp_path / 'missing.yml')
    env['OUT'] = str(tmp_path / 'out2')
    subprocess.run(['bash', str(path), 'ansible'], capture_output=True, text=True, env=env)
    summary = (tmp_path / 'out2' / 'summary.txt').read_text()
    assert f'skip: ansible check mode: no playbook at {tmp_path / "missing.yml"}' in summary
    assert book.section('ansible')[0].destination == ANSIBLE_PLAYBOOK == 'examples/ansible/playbook.yml'


def test_no_roce_steps_for_a_tcp_only_fabric():
    plan, contexts = CASES['routed']()
    for ctx in contexts.values():
        if ctx.get('qos'):
            ctx['qos']['pfc_priorities'] = []
            ctx['qos']['ecn']['enabled'] = False
    assert build_runbook(plan, contexts).section('roce') == []


# a stand-in for ssh that prints the EOS and NVUE counter fixtures (before, then after), and one for curl that keeps
# every upload's body
NOS_COUNTER_SSH = """#!/bin/sh
shift
case "$*" in
  *' counters errors | json') name=eos_errors ext=json ;;
  *' priority-flow-control counters detail | json') name=eos_pfc ext=json ;;
  'show qos interfaces ecn counters queue | json') name=eos_ecn ext=json ;;
  'nv show interface '*' counters errors') name=nvue_errors ext=txt ;;
  *' counters qos pfc-stats') name=nvue_pfc ext=txt ;;
  *' counters qos egress-queue-stats') name=nvue_queue ext=txt ;;
  *' counters qos port-stats') name=nvue_ecn ext=txt ;;
  *) echo "$*"; exit 0 ;;
esac
mark="$MARKS/$(echo "$*" | tr -c 'a-z0-9' _)"
if [ -e "$mark" ]; then cat "$FIXTURES/${name}_after.$ext"; else touch "$mark"; cat "$FIXTURES/${name}_before.$ext"; fi
"""
FAKE_CURL = '#!/bin/sh\ncat >> "$UPLOADS"\necho >> "$UPLOADS"\necho "{}"\n'


@pytest.mark.parametrize(
    ('nos', 'physical', 'roce'),
    [
        ('eos', {'eos-errors'}, {'eos-pfc', 'eos-ecn'}),
        ('nvue', {'nvue-errors'}, {'nvue-pfc', 'nvue-queue', 'nvue-ecn'}),
    ],
)
def test_eos_and_nvue_counters_are_uploaded_with_the_tool_netbox_judges_them_with(tmp_path, nos, physical, roce):
    """The script's counter_tool maps each judged EOS/NVUE command to its upload tool: the error counters once per
    port (physical), the RoCE counters after the load with the snapshot before it; every upload judges."""
    from netbox_aifabric.acceptance.counters import judge_counters

    plan, contexts = CASES['routed']()
    book = build_runbook(plan, contexts, {n: nos for n in contexts})
    path = tmp_path / 'a.sh'
    path.write_text(runbook_script(book))
    bin_dir, marks = tmp_path / 'bin', tmp_path / 'marks'
    bin_dir.mkdir(), marks.mkdir()
    for name, text in (('fake-ssh', NOS_COUNTER_SSH), ('curl', FAKE_CURL)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    # the script's upload() starts python3 once per upload (150 here): the interpreter itself, not a version
    # manager's shim (pyenv's adds ~80 ms a start, 12 of this test's 20 s)
    (bin_dir / 'python3').symlink_to(getattr(sys, '_base_executable', sys.executable))
    env = {
        **os.environ, 'OUT': str(tmp_path / 'out'), 'SWITCH_SSH': str(bin_dir / 'fake-ssh'),
        'HOST_SSH': str(bin_dir / 'fake-ssh'), 'FIXTURES': str(FIXTURES), 'MARKS': str(marks),
        'PATH': f'{bin_dir}:{os.environ["PATH"]}', 'NETBOX_URL': 'http://netbox.invalid', 'NETBOX_TOKEN': 't',
        'RUN_ID': '1', 'UPLOADS': str(tmp_path / 'uploads.jsonl'),
    }  # fmt: skip
    proc = subprocess.run(['bash', str(path), 'physical', 'roce'], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bodies = [__import__('json').loads(line) for line in (tmp_path / 'uploads.jsonl').read_text().splitlines() if line]
    by_tool = defaultdict(list)
    for body in bodies:
        by_tool[body['tool']].append(body)
    switch_ports = len([s for s in book.section('physical') if s.kind != LLDP_STEP])
    assert len(by_tool.pop(next(iter(physical)))) == switch_ports
    # every switch's and server's LLDP table, uploaded with the device as its subject (judged: test_lldp.py)
    lldp = {s.where for s in book.section('physical') if s.kind == LLDP_STEP}
    switches = {n.name for n in plan.nodes}
    assert {b['subject'] for b in by_tool.pop(f'{nos}-lldp')} == lldp & switches
    assert {b['subject'] for b in by_tool.pop('lldpctl')} == lldp - switches
    assert set(by_tool) - {'ethtool'} == roce
    for tool in roce:
        assert all(body.get('before') for body in by_tool[tool]), tool
    for body in bodies:
        if body['tool'] in ('ethtool', 'lldpctl', f'{nos}-lldp'):  # the fake prints no ethtool or LLDP output here
            continue
        verdict = judge_counters(body['tool'], body['output'], body.get('before'), (3,), body['subject'])
        # the physical check is one snapshot: its absolute values are judged, and the "before" fixture the fake
        # prints first carries old FCS errors; the RoCE counters are judged on their growth
        assert verdict.status == ('failed' if body['tool'] in physical else 'passed'), (body['tool'], verdict.seen)
        assert 'FCS' in verdict.seen or 'fcsErrors' in verdict.seen or body['tool'] not in physical


@pytest.mark.parametrize('case', sorted(CASES))
def test_rdma_pairs_from_the_plan_in_the_lossless_tos(case):
    """Every RDMA step is a pair of two servers' RDMA NICs at their plan addresses, its kind the leaves' (same leaf,
    else a shared rack); both perftest tests carry the ToS of the profile's RoCE DSCP (DSCP << 2)."""
    plan, contexts = CASES[case]()
    design = 'routed' if case == 'single-leaf-racks' else case
    tos = guide_intent(design)['qos']['roce_dscp'][0] * 4
    nics = {(link.b_node, link.b_interface): link.a_node for link in plan.links if link.kind in ('rdma', 'rail')}
    address = {(a.server, h.interface): h.address.split('/')[0] for a in plan.attachments for h in a.addresses}
    steps = build_runbook(plan, contexts).section('rdma')
    kinds = {s.kind for s in steps}
    assert {'same-leaf'} <= kinds and kinds & {'cross-leaf', 'cross-rack'}
    for step in steps:
        (a, a_nic), (b, b_nic) = (tuple(x.split(':')) for x in (step.source, step.destination))
        assert a != b and (a, a_nic) in nics and (b, b_nic) in nics
        assert (step.kind == 'same-leaf') == (nics[a, a_nic] == nics[b, b_nic])
        tests = [c for c in step.commands if ' ib_' in c]
        assert len(tests) == 4 and all(f'-R -T {tos} ' in c for c in tests)
        clients = [c for c in tests if c.startswith(f'on {a}:')]
        assert len(clients) == 2 and all(
            f'--bind_source_ip {address[a, a_nic]} {address[b, b_nic]}' in c for c in clients
        )
        around = {(kind, host) for kind, host, *_ in step.around}
        assert around == {('nic', a), ('nic', b), *(('switch', nics[n]) for n in ((a, a_nic), (b, b_nic)))}


def test_the_rdma_section_says_why_it_is_empty():
    plan, contexts = CASES['routed']()
    lossy = __import__('copy').deepcopy(contexts)
    for ctx in lossy.values():
        if ctx.get('qos'):
            ctx['qos']['pfc_priorities'] = []
    (step,) = build_runbook(plan, lossy).section('rdma')
    assert not step.commands and 'no lossless' in step.expect
    no_rdma = guide_spec('routed')
    no_rdma['nics']['rdma_count'] = 0
    (step,) = build_runbook(plan_of(no_rdma), contexts_of(no_rdma, 'routed')).section('rdma')
    assert not step.commands and 'no RDMA NIC' in step.expect


# a stand-in for ssh: perftest's client side prints the fixture report, its server side a line; counters as above
RDMA_SSH = """#!/bin/sh
shift
case "$*" in
  *'ib_write_bw '*'--bind_source_ip '*) cat "$FIXTURES/$BW_FIXTURE"; exit 0 ;;
  *'ib_send_lat '*'--bind_source_ip '*) cat "$FIXTURES/perftest_send_lat_ok.txt"; exit 0 ;;
  *' ib_'*) echo " Waiting for client rdma_cm QP to connect"; exit 0 ;;
  'show pfc counters') name=sonic_pfc ;;
  'show queue counters') name=sonic_queue ;;
  'ethtool -S '*) name=ethtool_mlx5 ;;
  *) echo "$*"; exit 0 ;;
esac
mark="$MARKS/$(echo "$*" | tr -c 'a-z0-9' _)"
if [ -e "$mark" ]; then rm "$mark"; cat "$FIXTURES/${name}_after.txt"
else touch "$mark"; cat "$FIXTURES/${name}_before.txt"; fi
"""


@pytest.mark.parametrize(
    ('fixture', 'status'), [('perftest_write_bw_ok.txt', 'passed'), ('perftest_write_bw_low.txt', 'failed')]
)
def test_the_rdma_section_runs_and_uploads_each_pair_between_its_counters(tmp_path, fixture, status):
    """The script with stand-ins for ssh and curl: per pair, the counters before, ib_write_bw and ib_send_lat (server
    side first), the counters after; every upload judged as NetBox would judge it."""
    from netbox_aifabric.acceptance.counters import judge_counters
    from netbox_aifabric.acceptance.rdma import judge_rdma_bw, judge_rdma_lat, rdma_pair

    plan, contexts = CASES['evpn-vxlan']()
    book = build_runbook(plan, contexts, {n: 'sonic' for n in contexts})
    path = tmp_path / 'a.sh'
    path.write_text(runbook_script(book))
    bin_dir, marks = tmp_path / 'bin', tmp_path / 'marks'
    bin_dir.mkdir(), marks.mkdir()
    for name, text in (('fake-ssh', RDMA_SSH), ('curl', FAKE_CURL)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (bin_dir / 'python3').symlink_to(getattr(sys, '_base_executable', sys.executable))
    env = {
        **os.environ, 'OUT': str(tmp_path / 'out'), 'SWITCH_SSH': str(bin_dir / 'fake-ssh'),
        'HOST_SSH': str(bin_dir / 'fake-ssh'), 'FIXTURES': str(FIXTURES), 'MARKS': str(marks), 'BW_FIXTURE': fixture,
        'PATH': f'{bin_dir}:{os.environ["PATH"]}', 'NETBOX_URL': 'http://netbox.invalid', 'NETBOX_TOKEN': 't',
        'RUN_ID': '1', 'UPLOADS': str(tmp_path / 'uploads.jsonl'),
    }  # fmt: skip
    proc = subprocess.run(['bash', str(path), 'rdma'], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bodies = [__import__('json').loads(line) for line in (tmp_path / 'uploads.jsonl').read_text().splitlines() if line]
    steps = book.section('rdma')
    by_tool = defaultdict(list)
    for body in bodies:
        by_tool[body['tool']].append(body)
    assert len(by_tool['ib_write_bw']) == len(by_tool['ib_send_lat']) == len(steps)
    assert [(b['source'], b['destination']) for b in by_tool['ib_write_bw']] == [
        (s.source, s.destination) for s in steps
    ]
    tos = steps[0].tos
    for body in by_tool['ib_write_bw']:
        pair = rdma_pair(plan, body['source'], body['destination'])
        assert judge_rdma_bw(body['output'], pair, tos).status == status
    assert all(judge_rdma_lat(b['output'], 'x', tos).status == 'passed' for b in by_tool['ib_send_lat'])
    snapshots = sum(len(s.around) for s in steps)
    counters = [b for b in bodies if not b['tool'].startswith('ib_')]
    # per pair: two NICs (ethtool) and each leaf's two judged SONiC tables, each after with its before
    assert len(counters) == snapshots + sum(1 for s in steps for kind, *_ in s.around if kind == 'switch')
    for body in counters:
        assert body.get('before'), body['subject']
        assert judge_counters(body['tool'], body['output'], body['before'], (3,), body['subject']).status == 'passed'
    files = {p.name for p in (tmp_path / 'out').iterdir()}
    assert all(f'roce_before_rdma{n}_' in ' '.join(files) for n in range(1, len(steps) + 1))
