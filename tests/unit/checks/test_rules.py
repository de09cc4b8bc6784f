"""The compliance rules on the guide's cluster in every design: all pass; and for each rule a negative control, the
contexts (or plan, or drift) broken on purpose, that fails exactly that rule with exactly the findings expected and
leaves every other rule passing."""

from datetime import UTC, datetime

import netaddr
import pytest

from netbox_aifabric.acceptance.lldp import Neighbour, judge_cabling
from netbox_aifabric.checks.engine import DeviceAutomation, DriftItem, Facts, Finding, Obj, Rule, run_rules
from netbox_aifabric.checks.rules import RULES, rule
from tests.render_fixtures import GUIDES, JUMP_HOSTS, guide_spec, observed_contexts, observed_intent, plan_of

pytestmark = pytest.mark.pure

# a lab run that passed after the last apply (checks.compliance.acceptance_facts' shape; tested in test_acceptance.py)
PROVEN = {
    'last_applied': datetime(2026, 1, 1, tzinfo=UTC),
    'latest': {
        'lab': {
            'id': 1, 'name': 'AI Lab lab', 'time': datetime(2026, 1, 2, tzinfo=UTC), 'status': 'passed',
            'passed': 50, 'failed': 0, 'not_verified': 10,
        }
    },
}  # fmt: skip


def facts_of(guide='evpn-vxlan', drift=()):
    """The guide's cluster as applied and rendered: its contexts stored as the plan builds them (``planned`` is the
    same dict, so a test that breaks a stored context breaks only its own rule), a template on every switch."""
    plan = plan_of(guide_spec(guide))
    contexts = observed_contexts(guide)  # with collectors: a fabric without any is not observable
    switches = {node.name for node in plan.nodes}
    return Facts(
        'ai-lab',
        contexts,
        observed_intent(guide),
        plan,
        drift=list(drift),
        oversubscription_target=3,
        planned=contexts,
        automation={
            name: DeviceAutomation(name in switches, 'AI fabric SONiC' if name in switches else None)
            for name in contexts
        },
        traffic=[],  # no flows entered: the matrix warns of nothing
        flows=[],
        acceptance={**PROVEN, 'lldp': lldp_seen(plan)},
    )


def lldp_seen(plan):
    """The LLDP facts of a run in which every device saw its planned neighbours (judged by the real judge)."""
    views = {}
    for link in plan.links:
        views.setdefault(link.a_node, []).append(Neighbour(link.a_interface, link.b_node, link.b_interface))
        views.setdefault(link.b_node, []).append(Neighbour(link.b_interface, link.a_node, link.a_interface))
    fields = ('name', 'category', 'subject', 'status', 'expected', 'seen')
    results = [{f: getattr(v, f) for f in fields} for v in judge_cabling(plan, views)]
    return {'run': {'id': 2, 'name': 'AI Lab manual', 'time': datetime(2026, 1, 3, tzinfo=UTC)}, 'results': results}


def failures(facts):
    """``{rule id: [(objects, expected, found)]}`` of every rule that did not pass; the running-config rules skip on
    these facts (no backup is read: ``configs`` None), tested with configs in test_config_rules.py."""
    result = run_rules(RULES, facts)
    return {
        r.rule.id: [(tuple(str(o) for o in f.objects), f.expected, f.found) for f in r.findings] or r.status
        for r in result.results
        if r.status != 'pass' and not (r.rule.family == 'config' and r.status == 'skip' and facts.configs is None)
    }


@pytest.mark.parametrize('guide', GUIDES)
def test_the_guide_cluster_passes_every_rule(guide):
    result = run_rules(RULES, facts_of(guide))
    assert failures(facts_of(guide)) == {}
    config_rules = sum(1 for r in RULES if r.family == 'config')  # skipped: no running config read here
    assert result.ok and result.counts['pass'] == len(RULES) - config_rules == len(RULES) - result.counts['skip']


def test_every_rule_is_documented_and_unique():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids)) and {r.family for r in RULES} == {
        'drift',
        'fabric',
        'roce',
        'security',
        'automation',
        'traffic',
        'config',
    }
    for r in RULES:
        assert r.title and r.rationale.endswith('.') and r.fix.endswith('.') and r.check.__doc__, r.id


def test_a_rule_that_breaks_is_an_error_not_a_pass():
    def broken(facts):
        raise KeyError('vlans')

    result = run_rules([Rule('x', 'fabric', 'x', 'error', 'x.', 'x.', broken)], facts_of())
    assert (result.results[0].status, result.results[0].note, result.ok) == ('error', "KeyError: 'vlans'", False)


def test_without_contexts_the_rules_skip_rather_than_pass():
    result = run_rules(RULES, Facts('ai-lab', {}, drift=None))
    assert {r.status for r in result.results} == {'skip'}
    assert not result.counts['pass']


# Fabric


def _port(contexts, device, name):
    return next(p for p in contexts[device]['interfaces'] if p['name'] == name)


def _subnet(port):
    return str(netaddr.IPNetwork(port['address']).cidr)


def test_negative_control_a_missing_uplink():
    """leaf1's uplink to spine2 gone from its context: the spine's end of the /31 is left alone."""
    facts = facts_of('evpn-vxlan')
    port = next(
        p for p in facts.contexts['leaf1']['interfaces'] if p['kind'] == 'uplink' and p['peer_device'] == 'spine2'
    )
    facts.contexts['leaf1']['interfaces'].remove(port)
    spine_end = _port(facts.contexts, 'spine2', port['peer_interface'])
    assert failures(facts) == {
        'fabric-uplinks': [(('leaf1', 'spine2'), '1 uplink(s) from leaf1 to spine2', '0')],
        'fabric-p2p': [
            (
                (f'spine2 {spine_end["name"]}',),
                f'{_subnet(port)} on the two ends of one link',
                f'1 end(s): spine2 {spine_end["name"]} {spine_end["address"]}',
            )
        ],
    }


def test_negative_control_a_duplicate_p2p_address():
    facts = facts_of('routed')
    a = _port(facts.contexts, 'leaf2', 'Ethernet65')
    a['address'] = _port(facts.contexts, 'leaf1', 'Ethernet65')['address']
    found = failures(facts)
    assert list(found) == ['fabric-p2p']
    subnet = _subnet(a)
    assert found['fabric-p2p'][0][1:] == (
        f'{subnet} on the two ends of one link',
        f'3 end(s): leaf1 Ethernet65 {a["address"]}, leaf2 Ethernet65 {a["address"]}, spine1 Ethernet1 '
        f'{_port(facts.contexts, "spine1", "Ethernet1")["address"]}',
    )


def test_negative_control_a_duplicate_loopback_and_a_vtep_outside_its_pool():
    facts = facts_of('evpn-vxlan')
    facts.contexts['leaf2']['loopbacks'][0]['address'] = facts.contexts['leaf1']['loopbacks'][0]['address']
    facts.contexts['leaf2']['router_id'] = facts.contexts['leaf1']['router_id']
    for leaf in ('leaf1', 'leaf2'):
        facts.contexts[leaf]['vtep'] = '10.99.0.1/32'
        facts.contexts[leaf]['loopbacks'][1]['address'] = '10.99.0.1/32'
    lo = facts.contexts['leaf1']['loopbacks'][0]['address'][:-3]
    assert failures(facts) == {
        'fabric-loopbacks': [
            (('leaf1', 'leaf2'), f'router-id {lo} on one switch', 'leaf1, leaf2'),
            (('leaf1', 'leaf2'), 'VTEP inside the VTEP pool 10.255.1.0/24', '10.99.0.1'),
        ]
    }


def test_negative_control_a_vni_on_the_wrong_vlan():
    facts = facts_of('evpn-vxlan')
    users = next(v for v in facts.contexts['leaf2']['vlans'] if v['name'] == 'USERS')
    storage = next(v for v in facts.contexts['leaf2']['vlans'] if v['name'] == 'STORAGE')
    storage['l2vni'] = users['l2vni']
    assert failures(facts) == {
        'fabric-vnis': [
            (('leaf1', 'leaf2'), 'VLAN 30: one L2VNI on every leaf', '[10020, 10030]'),
            (('leaf1', 'leaf2'), 'L2VNI 10020 on one VLAN', 'VLANs [20, 30]'),
        ]
    }


def test_negative_control_a_different_anycast_gateway_mac():
    facts = facts_of('mlag')
    facts.contexts['leaf2']['mlag']['anycast_gateway_mac'] = '02:00:00:00:00:bb'
    assert failures(facts) == {
        'fabric-anycast-mac': [(('leaf1',), 'anycast gateway MAC 02:00:00:00:00:bb', '00:00:5e:00:01:01')]
    } or failures(facts) == {
        'fabric-anycast-mac': [(('leaf2',), f'anycast gateway MAC {_mac(facts, "leaf1")}', '02:00:00:00:00:bb')]
    }


def _mac(facts, leaf):
    return facts.contexts[leaf]['mlag']['anycast_gateway_mac']


def test_negative_control_an_incomplete_mlag_pair_and_esi_pair():
    facts = facts_of('mlag')
    facts.contexts['leaf2']['mlag']['role'] = 'primary'
    assert failures(facts) == {'fabric-pairs': [(('leaf1', 'leaf2'), 'one primary, one secondary', 'primary/primary')]}
    facts = facts_of('mlag')
    facts.contexts['leaf2']['mlag']['peer_link'] = None
    assert failures(facts) == {'fabric-pairs': [(('leaf2',), 'an MLAG peer link', 'none')]}
    facts = facts_of('evpn-mh')
    segment = facts.contexts['leaf2']['evpn_mh']['segments'].pop(0)
    assert failures(facts) == {
        'fabric-pairs': [
            (
                (f'leaf1 {segment["lag"]}', 'leaf2'),
                f'Ethernet segment {segment["esi"]} on both leaves of the pair',
                f'only on leaf1 {segment["lag"]}',
            )
        ]
    }


def test_negative_control_oversubscription_above_the_target():
    facts = facts_of('evpn-vxlan')
    facts.oversubscription_target = 2
    capacity = {c.leaf: c for c in facts.plan.capacity}
    assert capacity['leaf1'].ratio > 2 >= capacity['leaf2'].ratio
    assert failures(facts) == {
        'fabric-oversubscription': [(('leaf1',), 'at most 2:1', f'{capacity["leaf1"].ratio}:1 (425G over 200G)')]
    }


# RoCE/QoS


def test_negative_control_pfc_on_users():
    """The issue's "enable PFC on USERS": the class made lossless (its VLAN) and priority 0 made a PFC priority."""
    facts = facts_of('evpn-vxlan')
    next(v for v in facts.contexts['leaf1']['vlans'] if v['name'] == 'USERS')['lossless'] = True
    _port(facts.contexts, 'leaf1', 'Ethernet1')['pfc'] = True
    assert failures(facts) == {
        'roce-pfc-rdma-only': [
            (('leaf1', 'USERS'), 'lossless (PFC) only on the RDMA class', 'VLAN 20 USERS (user-access) is lossless'),
            (
                ('leaf1 Ethernet1',),
                'PFC only on ports that carry RDMA (uplink, mlag-peer, rdma, rail)',
                'PFC on a server port',
            ),
        ]
    }


def test_negative_control_pfc_on_another_priority_without_ecn():
    facts = facts_of('evpn-vxlan')
    qos = facts.contexts['spine1']['qos']
    qos['pfc_priorities'] = [3, 4]
    found = failures(facts)
    assert found['roce-pfc-rdma-only'] == [(('spine1',), 'PFC only on the RDMA priorities [3]', 'PFC on [3, 4]')]
    assert found['roce-ecn-with-pfc'] == [(('spine1',), 'ECN on TC [3, 4]', 'ECN on TC [0, 3], not [4]')]
    assert found['roce-qos-map'] == [(('spine1',), 'pfc_priorities [3] (NVIDIA Cumulus RoCE lossless)', '[3, 4]')]
    assert len(found) == 3


def rdma_nics_on(facts, leaf):
    """(server, NIC, leaf port) of every RDMA NIC cabled to ``leaf``, from the servers' host contexts."""
    return [
        (name, nic['name'], nic['peer_interface'])
        for name, ctx in sorted(facts.contexts.items())
        for nic in (ctx.get('host') or {}).get('rdma') or ()
        if nic['peer_device'] == leaf
    ]


def test_negative_control_ecn_off():
    facts = facts_of('routed')
    facts.contexts['leaf2']['qos']['ecn']['enabled'] = False
    nics = rdma_nics_on(facts, 'leaf2')
    assert nics
    assert failures(facts) == {
        'roce-ecn-with-pfc': [(('leaf2',), 'ECN enabled on TC [3] (PFC on [3])', 'ECN off')],
        'roce-host-nic': [  # the servers' NICs still mark ECN-capable: the leaf's side disagrees now
            (
                (f'{server} {nic}', f'leaf2 {port}'),
                'ECN on the queue of priority 3 (TC 3): the same on both ends',
                f'{server} {nic}: True; leaf2 {port}: False',
            )
            for server, nic, port in nics
        ],
    }


def test_negative_control_a_dscp_map_that_differs():
    facts = facts_of('mlag')
    facts.contexts['leaf2']['qos']['dscp_to_priority']['26'] = 0
    nics = rdma_nics_on(facts, 'leaf2')
    assert nics
    assert failures(facts) == {
        'roce-qos-map': [
            (('leaf2',), "dscp_to_priority {'26': 3, '48': 6} (NVIDIA Cumulus RoCE lossless)", "{'26': 0, '48': 6}")
        ],
        'roce-host-nic': [
            (
                (f'{server} {nic}', f'leaf2 {port}'),
                'DSCP 26 → priority: the same on both ends',
                f'{server} {nic}: 3; leaf2 {port}: 0',
            )
            for server, nic, port in nics
        ],
    }


def test_negative_control_a_1500_hop_on_a_jumbo_path():
    facts = facts_of('evpn-vxlan')
    _port(facts.contexts, 'leaf1', 'Ethernet65')['mtu'] = 1500
    rdma = next(p for p in facts.contexts['leaf2']['interfaces'] if p['kind'] == 'rdma')
    rdma['mtu'] = 1500
    assert failures(facts) == {
        'roce-jumbo-mtu': [
            (('leaf1 Ethernet65',), 'MTU of at least 9050 (largest class 9000)', '1500'),
            (('leaf1 Ethernet65', 'spine1 Ethernet1'), 'the same MTU on both ends', '1500 and 9216'),
            ((f'leaf2 {rdma["name"]}',), 'MTU of at least 9000 (the RDMA class)', '1500'),
        ],
        'roce-host-nic': [  # the NIC on that port sends 9000-byte frames the port drops
            (
                (f'{server} {nic}', f'leaf2 {port}'),
                'an MTU the leaf port carries: the same on both ends',
                f'{server} {nic}: 9000; leaf2 {port}: 1500',
            )
            for server, nic, port in rdma_nics_on(facts, 'leaf2')
            if port == rdma['name']
        ],
    }


def test_negative_control_a_server_nic_that_marks_another_dscp():
    """A server whose host config was rendered from a profile with another RoCE and CNP DSCP (NVIDIA's network
    operator changed its CNP default between releases): every setting that differs is named with both ends."""
    facts = facts_of('evpn-vxlan')
    server = next(name for name, ctx in sorted(facts.contexts.items()) if (ctx.get('host') or {}).get('rdma'))
    host = facts.contexts[server]['host']
    host['roce'] = {**host['roce'], 'roce_dscp': 24, 'tos': 24 << 2 | 2, 'cnp_dscp': 46}
    nic = host['rdma'][0]
    leaf, port = nic['peer_device'], nic['peer_interface']
    cnp = facts.contexts[leaf]['qos']['cnp']['dscp']
    assert failures(facts) == {
        'roce-host-nic': [
            ((f'{server} {nic["name"]}', f'{leaf} {port}'), 'DSCP 24 → priority: the same on both ends',
             f'{server} {nic["name"]}: 3; {leaf} {port}: None'),
            ((f'{server} {nic["name"]}', f'{leaf} {port}'), 'CNP DSCP: the same on both ends',
             f'{server} {nic["name"]}: 46; {leaf} {port}: {cnp}'),
        ]
    }  # fmt: skip


def test_negative_control_a_server_nic_pausing_another_priority_and_a_stale_cabling():
    facts = facts_of('mlag')
    servers = [n for n, c in sorted(facts.contexts.items()) if (c.get('host') or {}).get('rdma')]
    first, second = facts.contexts[servers[0]]['host'], facts.contexts[servers[1]]['host']
    first['roce'] = {**first['roce'], 'pfc_priorities': [3, 4]}
    second['rdma'][0] = {**second['rdma'][0], 'peer_interface': 'Ethernet999'}
    nic, other = first['rdma'][0], second['rdma'][0]
    assert failures(facts) == {
        'roce-host-nic': [
            ((f'{servers[0]} {nic["name"]}', f'{nic["peer_device"]} {nic["peer_interface"]}'),
             'PFC priorities: the same on both ends',
             f'{servers[0]} {nic["name"]}: [3, 4]; {nic["peer_device"]} {nic["peer_interface"]}: [3]'),
            ((f'{servers[1]} {other["name"]}',), f'a leaf port {other["peer_device"]} Ethernet999 in the fabric',
             'none'),
        ]
    }  # fmt: skip


# Security


def test_negative_control_users_reach_mgmt():
    """MGMT's gateway put in USERS' VRF: USERS' ACL has no rule for MGMT and its final permit lets USERS in."""
    facts = facts_of('evpn-vxlan')
    users_vrf = next(v['vrf'] for v in facts.contexts['leaf1']['vlans'] if v['name'] == 'USERS')
    next(v for v in facts.contexts['leaf1']['vlans'] if v['name'] == 'MGMT')['vrf'] = users_vrf
    found = failures(facts)
    assert set(found) == {'security-users-mgmt', 'security-matrix'}
    assert [f[:2] for f in found['security-users-mgmt']] == [(('USERS', 'MGMT', 'leaf1'), 'USERS cannot reach MGMT')]
    assert ('USERS', 'MGMT', 'leaf1') in [f[0] for f in found['security-matrix']]


def test_users_allowed_into_mgmt_by_the_intent_still_fail_the_guide_rule():
    """The matrix rule follows the intent; the USERS → MGMT rule is the guide's, whatever the intent says."""
    facts = facts_of('evpn-vxlan')
    users_vrf = next(v['vrf'] for v in facts.contexts['leaf1']['vlans'] if v['name'] == 'USERS')
    next(v for v in facts.contexts['leaf1']['vlans'] if v['name'] == 'MGMT')['vrf'] = users_vrf
    for ctx in facts.contexts.values():
        mgmt = next(c for c in ctx['security']['classes'] if c['name'] == 'MGMT')
        mgmt['reachability'], mgmt['reachable_from'] = 'listed', ['USERS']
    found = failures(facts)
    assert 'security-users-mgmt' in found


def test_negative_control_a_storage_deny_rule_removed():
    facts = facts_of('mlag')
    leaf = facts.contexts['leaf1']
    acl_name = next(v['acl'] for v in leaf['vlans'] if v['name'] == 'USERS')
    acl = next(a for a in leaf['security']['acls'] if a['name'] == acl_name)
    acl['rules'] = [r for r in acl['rules'] if not r['remark'].startswith('USERS may not reach STORAGE')]
    found = failures(facts)
    assert list(found) == ['security-matrix']
    assert [f[:2] for f in found['security-matrix']] == [
        (('USERS', 'STORAGE', 'leaf1'), 'USERS cannot reach STORAGE (neither may reach the other)')
    ]


def test_negative_control_a_management_plane_open_to_more_than_the_jump_hosts():
    facts = facts_of('routed')
    facts.contexts['spine2']['management']['allowed_sources'].append('0.0.0.0/0')
    assert failures(facts) == {
        'security-management-plane': [
            (
                ('spine2',),
                f'SSH/HTTPS/SNMP only from {JUMP_HOSTS} in VRF mgmt',
                'management services accept 0.0.0.0/0 beyond jump hosts',
            )
        ]
    }


def test_negative_control_the_mgmt_vlan_on_a_server_bond():
    facts = facts_of('mlag')
    bond = next(g for g in facts.contexts['leaf1']['lags'] if g['description'] != 'MLAG peer link')
    bond['tagged_vlans'].append(10)
    assert failures(facts) == {
        'security-bmc-vlan': [
            (
                (f'leaf1 {bond["name"]}', 'MGMT'),
                'MGMT (VLAN 10) off the server data ports',
                f'VLAN 10 on leaf1 {bond["name"]}',
            )
        ]
    }


# Drift (the items come from the apply engine's diff in NetBox: see tests/integration/test_compliance.py)


def test_drift_items_become_findings_of_their_rule():
    mtu = Obj('dcim.interface', 'Ethernet65', device='leaf1', pk=7)
    cable = Obj('dcim.cable', 'leaf1 Ethernet65 — spine1 Ethernet1', pk=9)
    drift = [
        DriftItem('update', 'interface:leaf1:Ethernet65', mtu, {'mtu': 9216}, {'mtu': 1500}),
        DriftItem('create', 'cable:leaf1:Ethernet65:spine1:Ethernet1', cable, deleted=True),
        DriftItem('keep', 'vlan:10', Obj('ipam.vlan', 'MGMT')),
    ]
    found = failures(facts_of('evpn-vxlan', drift))
    assert found == {
        'drift-edited': [(('leaf1 Ethernet65',), 'mtu=9216', 'mtu=1500')],
        'drift-missing': [
            (
                ('leaf1 Ethernet65 — spine1 Ethernet1',),
                'dcim.cable leaf1 Ethernet65 — spine1 Ethernet1 (cable:leaf1:Ethernet65:spine1:Ethernet1)',
                'deleted from NetBox',
            )
        ],
    }


def test_a_fabric_never_applied_skips_drift():
    result = run_rules([rule('drift-edited')], Facts('x', {}, drift=None))
    assert (result.results[0].status, result.results[0].note) == (
        'skip',
        'the fabric has not been applied: nothing can have drifted',
    )


def test_the_result_serializes():
    facts = facts_of('evpn-vxlan')
    _port(facts.contexts, 'leaf1', 'Ethernet65')['mtu'] = 1500
    data = run_rules(RULES, facts).to_dict()
    assert data['ok'] is False and data['counts']['fail'] == 1
    jumbo = next(r for r in data['results'] if r['id'] == 'roce-jumbo-mtu')
    assert jumbo['findings'][0] == {
        'objects': [
            {
                'model': 'dcim.interface',
                'name': 'Ethernet65',
                'device': 'leaf1',
                'id': None,
                'url': None,
                'change': None,
            }
        ],
        'expected': 'MTU of at least 9050 (largest class 9000)',
        'found': '1500',
        'remediation': '',
    }
    assert Finding((), 'a', 'b', 'x').to_dict() == {'objects': [], 'expected': 'a', 'found': 'b', 'remediation': 'x'}
    assert data['configs'] is None  # not gathered


def test_every_rule_is_in_the_docs():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / 'docs' / 'compliance.md').read_text()
    assert [r.id for r in RULES if f'| `{r.id}` | {r.severity} |' not in text] == []


def test_foreign_objects_in_the_pools_are_drift_foreign_findings():
    prefix = Obj('ipam.prefix', '10.255.0.128/25', pk=31)
    asn = Obj('ipam.asn', 'AS65150', pk=4)
    drift = [
        DriftItem('foreign', 'ipam.prefix:31', prefix, reason='inside the loopback pool 10.255.0.0/24'),
        DriftItem('foreign', 'ipam.asn:4', asn, reason='inside the leaf ASN range 65101-65199'),
    ]
    assert failures(facts_of('routed', drift)) == {
        'drift-foreign': [
            (
                ('10.255.0.128/25',),
                'no ipam.prefix the fabric does not own inside the loopback pool 10.255.0.0/24',
                '10.255.0.128/25',
            ),
            (('AS65150',), 'no ipam.asn the fabric does not own inside the leaf ASN range 65101-65199', 'AS65150'),
        ]
    }
