"""Every table, key, field and value type of the rendered SONiC config_db, for every guide design (eBGP and OSPF
underlays, spines and leaves), against SONiC's YANG models as encoded in ``sonic_yang.py`` (each entry cites its
sonic-buildimage module), with negative controls: a misspelled field, a wrong type, an unknown table."""

import copy
import json

import pytest

from netbox_aifabric.facts.context import build_contexts
from tests.render_fixtures import (
    DESIGNS,
    GUIDES,
    contexts_of,
    guide_contexts,
    guide_intent,
    guide_spec,
    ospf_spec,
    plan_of,
)
from tests.unit.templates.helpers import render
from tests.unit.templates.sonic_yang import TABLES, UNREAD, violations

pytestmark = pytest.mark.pure

SONIC = 'sonic/config_db.json.j2'
SHIPPED = {'leaf': 'arista-dcs-7050sx3-48yc8-sonic', 'spine': '7726-32x-o'}  # the shipped SONiC device types


def switches():
    """(name, context) of every switch the SONiC template renders: each guide, and each design over OSPF; and the
    guide's EVPN/VXLAN cluster on the shipped SONiC device types, whose contexts carry the buffer tables."""
    cases = [(f'shipped-{name}', ctx) for name, ctx in shipped_contexts().items() if ctx['role'] in ('spine', 'leaf')]
    for guide in GUIDES:
        for name, ctx in guide_contexts(guide).items():
            if ctx['role'] != 'gpu' and ctx['role'] != 'storage' and not ctx['evpn_mh']:
                cases.append((f'{guide}-{name}', ctx))
    for design in DESIGNS:
        for name, ctx in contexts_of(ospf_spec(guide_spec(design)), design).items():
            if ctx['role'] in ('spine', 'leaf', 'border'):
                cases.append((f'{design}-ospf-{name}', ctx))
    return cases


def shipped_contexts():
    intent = {**guide_intent('evpn-vxlan'), 'device_types': SHIPPED}
    return build_contexts(plan_of(guide_spec('evpn-vxlan')), intent)


CASES = switches()


def db_of(ctx):
    return json.loads(render(SONIC, ctx))


def without_lanes(found):
    """The guide fixtures run on generic device types, which ship no platform facts: their PORT entries lack the
    mandatory ``lanes`` (docs/contexts.md: the operator adds them from the HWSKU's port_config.ini). With a shipped
    SONiC device type the contexts carry them (tests/integration/test_hardware.py checks that config_db in full)."""
    return [f for f in found if not (f.startswith('PORT|') and f.endswith(': lanes is mandatory (sonic-port)'))]


@pytest.mark.parametrize('name,ctx', CASES, ids=[name for name, _ in CASES])
def test_rendered_config_db_matches_the_yang_map(name, ctx):
    db = db_of(ctx)
    assert not without_lanes(violations(db)), '\n'.join(violations(db))
    assert all(i['hardware'] is None for i in ctx['interfaces'])  # generic device types: no platform facts


def test_the_platform_facts_fill_port():
    """A context whose ports carry platform facts renders them into PORT, and the entry then satisfies the YANG
    map in full; one port without lanes is reported (negative control)."""
    ctx = _leaf()
    for n, interface in enumerate(ctx['interfaces'], 1):
        interface['hardware'] = {'lanes': f'{4 * n - 3},{4 * n - 2}', 'alias': f'etp{n}', 'index': n}
    db = db_of(ctx)
    assert violations(db) == []
    first = ctx['interfaces'][0]
    assert db['PORT'][first['name']]['lanes'] == first['hardware']['lanes']
    assert db['PORT'][first['name']]['index'] == '1'
    ctx['interfaces'][0]['hardware'] = None
    assert violations(db_of(ctx)) == [f'PORT|{first["name"]}: lanes is mandatory (sonic-port)']


def test_every_rendered_table_is_encoded_or_listed_unread():
    tables = set().union(*(db_of(ctx) for _, ctx in CASES))
    assert tables <= set(TABLES) | UNREAD
    assert {'CABLE_LENGTH', 'BUFFER_PG', 'BUFFER_QUEUE', 'PFC_WD', 'VXLAN_TUNNEL_MAP', 'WRED_PROFILE'} <= tables
    assert {'BUFFER_POOL', 'BUFFER_PROFILE', 'MGMT_PORT'} <= tables


def _leaf():
    return copy.deepcopy(shipped_contexts()['leaf1'])


def test_negative_control_misspelled_field():
    db = db_of(_leaf())
    db['PFC_WD']['Ethernet49']['detction_time'] = db['PFC_WD']['Ethernet49'].pop('detection_time')
    assert without_lanes(violations(db)) == ["PFC_WD|Ethernet49: field 'detction_time' is not in sonic-pfcwd"]


def test_negative_control_wrong_types():
    db = db_of(_leaf())
    db['PORT']['Ethernet49']['mtu'] = '9217'  # sonic-port.yang: uint16 68..9216
    db['WRED_PROFILE']['AIFABRIC_ECN']['ecn'] = 'ecn_everything'
    db['CABLE_LENGTH']['AZURE']['Ethernet49'] = '100'  # YANG wants '<n>m'
    db['VLAN']['Vlan40']['vlanid'] = '41'
    db['BUFFER_PG']['Ethernet49|3-9'] = {'profile': 'x'}
    found = violations(db)
    assert any(v.startswith("WRED_PROFILE|AIFABRIC_ECN: ecn = 'ecn_everything'") for v in found), found
    assert any(v.startswith("CABLE_LENGTH|AZURE: Ethernet49 = '100'") for v in found), found
    assert any(v.startswith('VLAN|Vlan40: vlanid 41') for v in found), found
    assert any(v.startswith('BUFFER_PG|Ethernet49|3-9: key') for v in found), found
    assert any(v.startswith("PORT|Ethernet49: mtu = '9217'") for v in found), found


def test_negative_control_unknown_table():
    db = db_of(_leaf())
    db['BUFFER_PGS'] = {}
    assert without_lanes(violations(db)) == ['BUFFER_PGS: no such table in the encoded YANG map']
