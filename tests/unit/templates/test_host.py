"""The servers' config script (templates/host/host.sh.j2, from ``aifabric.host``: facts/host.py).

Rendered as a NetBox ConfigTemplate renders it, per server of the guide's cluster in every design, compared with golden
files (UPDATE_GOLDEN=1 rewrites them). Derived, not copied: the netplan file parses and holds exactly the plan's
addresses (``Attachment.addresses``) with the classes' MTUs and routes; every RoCE number the script sets equals what
the server's leaf port expects (its ``trust`` and ``pfc``, the leaf's ``qos`` maps, CNP and ECN); the script parses
as bash with hostile names in it. Negative controls break one number and see the check name it.
"""

import copy
import re
import shlex
import shutil
import subprocess

import netaddr
import pytest
import yaml

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.render.filters import UnsupportedFeature
from tests.render_fixtures import GUIDES, design_of, guide_contexts, guide_intent, guide_spec, plan_of
from tests.unit.templates.helpers import check_golden, render

pytestmark = pytest.mark.pure

HOST = 'host/host.sh.j2'
CASES = [(guide, a.server) for guide in GUIDES for a in plan_of(guide_spec(guide)).attachments]
NETPLAN = re.compile(r"<<'AIFABRIC_NETPLAN'\n(.*?)\nAIFABRIC_NETPLAN\n", re.S)


def contexts(guide: str, host_nic: str | None = None) -> dict:
    if host_nic is None:
        return guide_contexts(guide)
    intent = guide_intent(design_of(guide))
    intent['host_nic'] = host_nic
    return build_contexts(plan_of(guide_spec(guide)), intent)


def netplan(script: str) -> dict:
    """The netplan YAML the script writes."""
    found = NETPLAN.search(script)
    assert found, 'no netplan heredoc'
    return yaml.safe_load(found.group(1))


def commands(script: str) -> list[list[str]]:
    """The script's command lines as shell words (comments, blank lines and the heredoc left out)."""
    body = NETPLAN.sub('\n', script)
    return [shlex.split(line) for line in body.splitlines() if line.strip() and not line.lstrip().startswith('#')]


@pytest.mark.parametrize(('guide', 'server'), CASES)
def test_golden(guide, server):
    check_golden(f'host/{guide}-{server}.sh', render(HOST, guide_contexts(guide)[server]))


def test_golden_broadcom():
    check_golden('host/routed-gpu1-broadcom.sh', render(HOST, contexts('routed', 'broadcom-bnxt')['gpu1']))


@pytest.mark.parametrize(('guide', 'server'), CASES)
def test_netplan_holds_exactly_the_plan_addresses(guide, server):
    plan = plan_of(guide_spec(guide))
    attachment = next(a for a in plan.attachments if a.server == server)
    doc = netplan(render(HOST, guide_contexts(guide)[server]))['network']
    sections = {**doc.get('ethernets', {}), **doc.get('vlans', {})}
    rendered = {name: tuple(value.get('addresses', ())) for name, value in sections.items() if value}
    assert rendered == {a.interface: (a.address,) for a in attachment.addresses}
    # the bond: its members are the server's NICs toward the leaves, LACP where the leaves bundle them
    bond = doc['bonds']['bond0']
    assert len(bond['interfaces']) == len(attachment.members)
    assert bond['parameters']['mode'] == ('802.3ad' if attachment.lag else 'active-backup')


@pytest.mark.parametrize(('guide', 'server'), CASES)
def test_netplan_mtus_and_routes_follow_the_classes(guide, server):
    plan = plan_of(guide_spec(guide))
    intent = guide_intent(design_of(guide))
    mtu = {tc['vid']: tc['mtu'] or intent['fabric']['mtu'] for tc in intent['traffic_classes']}
    subnet = {v.vid: netaddr.IPNetwork(v.subnet) for v in plan.vlans}
    attachment = next(a for a in plan.attachments if a.server == server)
    doc = netplan(render(HOST, guide_contexts(guide)[server]))['network']
    sections = {**doc['ethernets'], **doc['vlans']}
    for address in attachment.addresses:
        section = sections[address.interface]
        assert section['mtu'] == mtu[address.vid]
        connected = netaddr.IPNetwork(address.address).cidr
        expected = []
        if address.gateway and connected != subnet[address.vid]:  # a rack subnet: the class prefix via its gateway
            expected = [{'to': str(subnet[address.vid]), 'via': str(netaddr.IPNetwork(address.gateway).ip)}]
        assert section.get('routes', []) == expected
    assert 'default' not in str(doc) and '0.0.0.0/0' not in str(doc)


def roce_numbers(script: str, family: str = 'nvidia-mlx5') -> dict[str, dict]:
    """Per RDMA NIC the RoCE numbers the script sets, read back from its command lines."""
    found: dict[str, dict] = {}
    nic = None
    for words in commands(script):
        if family == 'nvidia-mlx5' and words[0] == 'mlnx_qos':
            nic = found.setdefault(words[2], {'dscp_to_priority': {}, 'ecn': set()})
            if words[3] == '--trust':
                nic['trust'] = words[4]
            elif words[3] == '--pfc':
                nic['pfc'] = [p for p, flag in enumerate(words[4].split(',')) if flag == '1']
            elif words[3] == '--dscp2prio':
                _set, dscp, priority = words[4].split(',')
                nic['dscp_to_priority'][int(dscp)] = int(priority)
        elif words[0] == 'echo' and words[-2] == '>' and '/ecn/' in words[-1]:
            path = words[-1].split('/')
            nic = found[path[4]]
            if path[-2] == 'enable':
                nic['ecn'].add((path[-3], int(path[-1])))
            else:
                nic[path[-1]] = int(words[1])
        elif words[0] == 'cma_roce_tos':
            nic['tos'] = int(words[-1])
    return found


def leaf_expectations(ctxs: dict, server: str, roce_dscp: list[int]) -> dict[str, dict]:
    """Per RDMA NIC of ``server`` what its leaf port implies: the port's trust and PFC (the leaf's PFC priorities
    where the port has PFC), the leaf's DSCP → priority of the RoCE and CNP markings, CNP, and the ToS of the RoCE
    DSCP with ECT(0) (RFC 3168) when the leaf marks ECN."""
    expected = {}
    for port in (p for p in ctxs[server]['interfaces'] if p['kind'] == 'rdma'):
        leaf = ctxs[port['peer_device']]
        switch_port = next(p for p in leaf['interfaces'] if p['name'] == port['peer_interface'])
        qos = leaf['qos']
        to_priority = {int(k): v for k, v in qos['dscp_to_priority'].items()}
        marked = [*roce_dscp, qos['cnp']['dscp']]
        priorities = {to_priority[d] for d in roce_dscp}
        ecn = qos['ecn']['enabled']
        expected[port['name']] = {
            'trust': switch_port['trust'],
            'pfc': sorted(qos['pfc_priorities']) if switch_port['pfc'] else [],
            'dscp_to_priority': {d: to_priority[d] for d in marked},
            'ecn': {(point, p) for point in ('roce_np', 'roce_rp') for p in priorities} if ecn else set(),
            'cnp_dscp': qos['cnp']['dscp'],
            'cnp_802p_prio': qos['cnp']['priority'],
            'tos': roce_dscp[0] << 2 | (0b10 if ecn else 0),
        }
    return expected


@pytest.mark.parametrize(('guide', 'server'), CASES)
def test_roce_numbers_equal_the_leaf_port(guide, server):
    ctxs = guide_contexts(guide)
    roce_dscp = guide_intent(design_of(guide))['qos']['roce_dscp']
    assert roce_numbers(render(HOST, ctxs[server])) == leaf_expectations(ctxs, server, roce_dscp)


def test_negative_control_a_wrong_pfc_priority_is_caught():
    ctxs = guide_contexts('routed')
    broken = copy.deepcopy(ctxs['gpu1'])
    broken['host']['roce']['pfc_priorities'] = [4]
    numbers = roce_numbers(render(HOST, broken))
    assert numbers != leaf_expectations(ctxs, 'gpu1', [26])
    assert numbers['rdma1']['pfc'] == [4]


def test_negative_control_a_wrong_address_is_caught():
    broken = copy.deepcopy(guide_contexts('evpn-vxlan')['gpu1'])
    broken['host']['vlans'][0]['addresses'] = ['198.51.100.200/24']
    plan = plan_of(guide_spec('evpn-vxlan'))
    expected = next(a for a in plan.attachments if a.server == 'gpu1').addresses[0].address
    assert netplan(render(HOST, broken))['network']['vlans']['bond0.20']['addresses'] != [expected]


def test_a_lossy_profile_enables_no_pfc():
    intent = guide_intent('routed')
    intent['qos']['mode'] = 'lossy'
    ctx = build_contexts(plan_of(guide_spec('routed')), intent)['gpu1']
    assert roce_numbers(render(HOST, ctx))['rdma1']['pfc'] == []


def test_broadcom_numbers_equal_the_leaf_port():
    ctxs = contexts('routed', 'broadcom-bnxt')
    expected = leaf_expectations(ctxs, 'gpu1', [26])['rdma1']
    lines = commands(render(HOST, ctxs['gpu1']))
    writes = {w[-1].rsplit('/', 1)[-1]: w[-3] for w in lines if w[:2] == ['echo', '-n']}
    assert ['bnxtqos', '-dev=rdma1', 'set_pfc', f'enabled={",".join(map(str, expected["pfc"]))}'] in lines
    apps = {tuple(map(int, w[-1].removeprefix('app=').split(','))) for w in lines if w[2:3] == ['set_apptlv']}
    assert apps == {(p, 5, d) for d, p in expected['dscp_to_priority'].items()}
    assert int(writes['roce_dscp'], 16) == 26 and int(writes['roce_prio'], 16) == 3
    assert int(writes['cnp_dscp'], 16) == expected['cnp_dscp']
    assert int(writes['cnp_prio'], 16) == expected['cnp_802p_prio']
    assert int(writes['default_roce_tos']) == expected['tos']
    assert writes['disable_prio_vlan_tx'] == ('0x1' if expected['trust'] == 'dscp' else '0x0')


def test_a_switch_is_refused():
    with pytest.raises(UnsupportedFeature):
        render(HOST, guide_contexts('routed')['leaf1'])


HOSTILE = "rdma1'; reboot; echo '"


@pytest.mark.skipif(shutil.which('bash') is None, reason='bash not installed')
@pytest.mark.parametrize('family', [None, 'broadcom-bnxt'])
def test_hostile_names_stay_one_word_and_the_script_parses(family, tmp_path):
    ctx = copy.deepcopy(contexts('routed', family)['gpu1'])
    ctx['host']['rdma'][0]['name'] = HOSTILE
    ctx['host']['vlans'][0]['name'] = 'bond0.20\nAIFABRIC_NETPLAN\nreboot'
    ctx['hostname'] = 'gpu1\nreboot'
    script = render(HOST, ctx)
    path = tmp_path / 'host.sh'
    path.write_text(script)
    assert subprocess.run(['bash', '-n', str(path)], capture_output=True).returncode == 0
    assert 'reboot' not in [w for words in commands(script) for w in words[:1]]
    assert HOSTILE in netplan(script)['network']['ethernets']
    assert any(HOSTILE in word for words in commands(script) for word in words)  # one word (bnxtqos: -dev=<it>)
