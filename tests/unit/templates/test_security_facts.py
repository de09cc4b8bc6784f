"""The security facts in the contexts, derived from the intent (not from the output): the DSCP trust boundary, the
CNP policer, which VLANs a leaf announces, and the gateway ACLs of classes that share a VRF."""

import pytest

from netbox_aifabric.facts.security import CNP_POLICER_PERCENT, LOCAL_PURPOSES, TRUSTED_KINDS
from tests.render_fixtures import GUIDES, guide_contexts, guide_intent

pytestmark = pytest.mark.pure


def switches(contexts):
    return {name: ctx for name, ctx in contexts.items() if ctx['node_id'] is not None}


@pytest.mark.parametrize('guide', GUIDES)
def test_trust_boundary_and_cnp_policer(guide):
    intent = guide_intent('mlag')
    trust, cnp_dscp = intent['qos']['trust'], intent['qos']['cnp']['dscp']
    kinds = set()
    for ctx in switches(guide_contexts(guide)).values():
        for port in ctx['interfaces']:
            kinds.add(port['kind'])
            assert port['trust'] == (trust if port['kind'] in TRUSTED_KINDS else 'none'), port
            if port['kind'] in ('rdma', 'rail'):
                rate = port['speed'] * 1_000_000 * CNP_POLICER_PERCENT // 100
                assert (port['cnp_police']['dscp'], port['cnp_police']['rate_kbps']) == (cnp_dscp, rate)
            else:
                assert port['cnp_police'] is None
    assert {'server', 'rdma'} <= kinds  # untrusted bonds and trusted RDMA ports were both seen


@pytest.mark.parametrize('guide', GUIDES)
def test_local_classes_are_never_announced(guide):
    purposes = {tc['name']: tc['purpose'] for tc in guide_intent('mlag')['traffic_classes']}
    for ctx in switches(guide_contexts(guide)).values():
        l3vni = {vrf['name'] for vrf in ctx['vrfs']}
        for vlan in ctx['vlans']:
            travels = vlan['vrf'] is None or vlan['vrf'] in l3vni
            wanted = bool(vlan['gateway']) and purposes[vlan['name']] not in LOCAL_PURPOSES and travels
            assert vlan['advertise'] is wanted, vlan
            if purposes[vlan['name']] in LOCAL_PURPOSES:
                assert not vlan['advertise']


@pytest.mark.parametrize('guide', GUIDES)
def test_gateway_acls_deny_every_class_of_the_vrf_that_may_not_be_reached(guide):
    contexts = guide_contexts(guide)
    classes = {c['name']: c for c in contexts['leaf1']['security']['classes']}
    for vlan in contexts['leaf1']['vlans']:
        me = classes[vlan['name']]
        peers = [c for c in classes.values() if c['vrf'] == me['vrf'] and c['name'] != me['name']]
        if not vlan['gateway'] or not peers:
            assert vlan['acl'] is None
            continue
        acl = next(a for a in contexts['leaf1']['security']['acls'] if a['name'] == vlan['acl'])
        expected = []
        for other in peers:
            talk = me['name'] in other['reachable_from'] or other['name'] in me['reachable_from']
            expected.append(('permit' if talk else 'deny', me['prefix'], other['prefix']))
        expected.append(('permit', me['prefix'], 'any'))
        assert [(r['action'], r['source'], r['destination']) for r in acl['rules']] == expected
