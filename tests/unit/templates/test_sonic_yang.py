"""Every table, key, field and value type of the rendered SONiC config_db, for every guide design (eBGP and OSPF
underlays, spines and leaves), against SONiC's YANG models as encoded in ``sonic_yang.py`` (each entry cites its
sonic-buildimage module), with negative controls: a misspelled field, a wrong type, an unknown table."""

import copy
import json

import pytest

from tests.render_fixtures import DESIGNS, GUIDES, contexts_of, guide_contexts, guide_spec, ospf_spec

from .helpers import render
from .sonic_yang import TABLES, UNREAD, violations

pytestmark = pytest.mark.pure

SONIC = 'sonic/config_db.json.j2'


def switches():
    """(name, context) of every switch the SONiC template renders: each guide, and each design over OSPF."""
    cases = []
    for guide in GUIDES:
        for name, ctx in guide_contexts(guide).items():
            if ctx['role'] != 'gpu' and ctx['role'] != 'storage' and not ctx['evpn_mh']:
                cases.append((f'{guide}-{name}', ctx))
    for design in DESIGNS:
        for name, ctx in contexts_of(ospf_spec(guide_spec(design)), design).items():
            if ctx['role'] in ('spine', 'leaf', 'border'):
                cases.append((f'{design}-ospf-{name}', ctx))
    return cases


CASES = switches()


def db_of(ctx):
    return json.loads(render(SONIC, ctx))


@pytest.mark.parametrize('name,ctx', CASES, ids=[name for name, _ in CASES])
def test_rendered_config_db_matches_the_yang_map(name, ctx):
    db = db_of(ctx)
    assert not violations(db), '\n'.join(violations(db))


def test_every_rendered_table_is_encoded_or_listed_unread():
    tables = set().union(*(db_of(ctx) for _, ctx in CASES))
    assert tables <= set(TABLES) | UNREAD
    assert {'CABLE_LENGTH', 'BUFFER_PG', 'BUFFER_QUEUE', 'PFC_WD', 'VXLAN_TUNNEL_MAP', 'WRED_PROFILE'} <= tables


def _leaf():
    return copy.deepcopy(guide_contexts('evpn-vxlan')['leaf1'])


def test_negative_control_misspelled_field():
    db = db_of(_leaf())
    db['PFC_WD']['Ethernet49']['detction_time'] = db['PFC_WD']['Ethernet49'].pop('detection_time')
    assert violations(db) == ["PFC_WD|Ethernet49: field 'detction_time' is not in sonic-pfcwd"]


def test_negative_control_wrong_types():
    db = db_of(_leaf())
    db['WRED_PROFILE']['AIFABRIC_ECN']['ecn'] = 'ecn_everything'
    db['CABLE_LENGTH']['AZURE']['Ethernet49'] = '100'  # YANG wants '<n>m'
    db['VLAN']['Vlan40']['vlanid'] = '41'
    db['BUFFER_PG']['Ethernet49|3-9'] = {'profile': 'x'}
    found = violations(db)
    assert any(v.startswith("WRED_PROFILE|AIFABRIC_ECN: ecn = 'ecn_everything'") for v in found), found
    assert any(v.startswith("CABLE_LENGTH|AZURE: Ethernet49 = '100'") for v in found), found
    assert any(v.startswith('VLAN|Vlan40: vlanid 41') for v in found), found
    assert any(v.startswith('BUFFER_PG|Ethernet49|3-9: key') for v in found), found


def test_negative_control_unknown_table():
    db = db_of(_leaf())
    db['BUFFER_PGS'] = {}
    assert violations(db) == ['BUFFER_PGS: no such table in the encoded YANG map']
