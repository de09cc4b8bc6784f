"""The security-matrix proof on the guide's cluster in every design: USERS never reaches MGMT (the BMCs), STORAGE only
from the classes allowed, management planes only from the jump hosts; and negative controls, each a context broken
the way a template or context bug would break it, that the proof must catch."""

import pytest

from netbox_aifabric.checks.matrix import evaluate, management_violations, violations
from tests.render_fixtures import GUIDES, JUMP_HOSTS, guide_contexts

pytestmark = pytest.mark.pure


@pytest.mark.parametrize('guide', GUIDES)
def test_the_guide_cluster_keeps_its_matrix(guide):
    contexts = guide_contexts(guide)
    assert violations(contexts) == []
    verdicts = evaluate(contexts)
    # the guide's acceptance test: VLAN 20 users cannot reach VLAN 10 BMC addresses (nor anything else but USERS)
    assert not verdicts['USERS', 'MGMT'].reaches
    assert not [pair for pair, v in verdicts.items() if pair[0] == 'USERS' and v.reaches]
    assert not verdicts['USERS', 'STORAGE'].reaches and not verdicts['USERS', 'TELEMETRY'].reaches
    # an allowed pair whose classes are both routed in one VRF talks (TELEMETRY is reachable from MGMT)
    assert verdicts['MGMT', 'TELEMETRY'].reaches and verdicts['TELEMETRY', 'MGMT'].reaches


@pytest.mark.parametrize('guide', ('mlag', 'evpn-vxlan'))
def test_storage_is_reachable_from_rdma_where_both_are_routed(guide):
    verdicts = evaluate(guide_contexts(guide))
    assert verdicts['RDMA', 'STORAGE'].reaches
    assert 'permit' in verdicts['RDMA', 'STORAGE'].reason


def test_an_unrouted_class_stays_in_its_vlan():
    verdict = evaluate(guide_contexts('routed'))['RDMA', 'STORAGE']  # RDMA is not routed in the routed design
    assert (verdict.reaches, verdict.reason) == (False, 'RDMA has no gateway: it stays in its VLAN')


def _users_acl(contexts, leaf):
    vlan = next(v for v in contexts[leaf]['vlans'] if v['name'] == 'USERS')
    return next(a for a in contexts[leaf]['security']['acls'] if a['name'] == vlan['acl'])


@pytest.mark.parametrize('guide', GUIDES)
def test_negative_control_a_missing_deny_rule_is_caught(guide):
    contexts = guide_contexts(guide)
    acl = _users_acl(contexts, 'leaf1')
    acl['rules'] = [r for r in acl['rules'] if not r['remark'].startswith('USERS may not reach STORAGE')]
    found = violations(contexts)
    assert len(found) == 1 and found[0].startswith('USERS reaches STORAGE, which it may not: leaf1:')


@pytest.mark.parametrize('guide', GUIDES)
def test_negative_control_a_gateway_without_its_acl_is_caught(guide):
    contexts = guide_contexts(guide)
    for vlan in contexts['leaf2']['vlans']:
        if vlan['name'] == 'USERS':
            vlan['acl'] = None
    assert [v for v in violations(contexts) if v.startswith('USERS reaches STORAGE')]
    assert 'no ACL on the gateway' in evaluate(contexts)['USERS', 'STORAGE'].reason


@pytest.mark.parametrize('guide', GUIDES)
def test_negative_control_mgmt_leaked_into_the_users_vrf_is_caught(guide):
    """MGMT's gateway put in USERS' VRF (a template that drops the VRF of an SVI): USERS' ACL has no rule for MGMT,
    so its final permit lets USERS reach the BMCs."""
    contexts = guide_contexts(guide)
    users_vrf = next(v['vrf'] for v in contexts['leaf1']['vlans'] if v['name'] == 'USERS')
    for vlan in contexts['leaf1']['vlans']:
        if vlan['name'] == 'MGMT':
            vlan['vrf'] = users_vrf
    assert [v for v in violations(contexts) if v.startswith('USERS reaches MGMT')]


def test_negative_control_an_open_management_plane_is_caught():
    contexts = guide_contexts('evpn-vxlan')
    contexts['spine1']['management']['allowed_sources'] = [JUMP_HOSTS, '192.0.2.0/24']
    contexts['leaf2']['management']['jump_hosts'] = []
    contexts['leaf1']['management']['vrf'] = None
    assert management_violations(contexts) == [
        'leaf1: management services are not bound to a management VRF',
        'leaf2: no jump-host subnet: its management services are open to every source',
        'spine1: management services accept 192.0.2.0/24 beyond jump hosts',
    ]


@pytest.mark.parametrize('guide', GUIDES)
def test_the_management_plane_of_every_switch(guide):
    contexts = guide_contexts(guide)
    for name, ctx in contexts.items():
        plane = ctx['management']
        if ctx['node_id'] is None:
            assert plane['address'] is None  # a server
            continue
        assert plane['jump_hosts'] == plane['allowed_sources'] == [JUMP_HOSTS]
        assert plane['vrf'] == 'mgmt' and plane['gateway'] == '172.16.0.1'
        assert plane['address'].startswith('172.16.0.') and plane['address'].endswith('/24')
