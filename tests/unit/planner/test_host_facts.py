"""facts/host.py: the NIC family named by ``intent['host_nic']`` and the host facts of the guide's servers."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.facts.host import DEFAULT_NIC_FAMILY, NIC_FAMILIES, UnknownNicFamily, nic_family
from tests.render_fixtures import guide_contexts, guide_intent, guide_spec, plan_of

pytestmark = pytest.mark.pure


def test_absent_is_the_nvidia_family():
    assert nic_family(None) == nic_family('') == DEFAULT_NIC_FAMILY == 'nvidia-mlx5'


@given(st.text())
def test_any_text_is_a_family_or_a_named_error(value):
    try:
        assert nic_family(value) in NIC_FAMILIES
    except UnknownNicFamily as e:
        assert repr(value) in str(e)


def test_an_unknown_family_in_the_intent_is_refused():
    intent = guide_intent('routed')
    intent['host_nic'] = 'intel-irdma'
    with pytest.raises(UnknownNicFamily, match='intel-irdma'):
        build_contexts(plan_of(guide_spec('routed')), intent)


@pytest.mark.parametrize('guide', ['routed', 'mlag', 'evpn-vxlan'])
def test_switches_have_no_host_and_servers_one(guide):
    contexts = guide_contexts(guide)
    servers = {a.server for a in plan_of(guide_spec(guide)).attachments}
    assert {name for name, c in contexts.items() if c['host'] is not None} == servers


def test_a_profile_without_ecn_sets_no_ecn_bits():
    intent = guide_intent('routed')
    intent['qos']['ecn']['enabled'] = False
    roce = build_contexts(plan_of(guide_spec('routed')), intent)['gpu1']['host']['roce']
    assert (roce['ecn'], roce['ecn_priorities'], roce['tos']) == (False, [], intent['qos']['roce_dscp'][0] << 2)


def test_without_a_profile_no_roce():
    intent = guide_intent('routed')
    intent['qos'] = None
    assert build_contexts(plan_of(guide_spec('routed')), intent)['gpu1']['host']['roce'] is None
