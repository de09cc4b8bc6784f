"""SONiC referential integrity (sonic_refs.py, a cited table of the YANG models' leafrefs): no reference of a rendered
config_db is unresolved, for the guide's cluster and size M, every design, both underlays, with the generic device
types of the examples and with the shipped SONiC device types (whose contexts carry the buffer tables), without and
with the guide's telemetry collectors (render_fixtures.guide_telemetry: every telemetry table rendered, SNMPv3, and
v2c once); and a negative control per row and per ``must``: one dangling reference of that kind is caught, as are an
unknown table, an unknown field and an unknown container."""

import copy
import json
from functools import cache

import pytest

from netbox_aifabric.facts.context import build_contexts
from tests.render_fixtures import (
    DESIGNS,
    GUIDES,
    design_of,
    example_spec,
    guide_intent,
    guide_spec,
    guide_telemetry,
    ospf_spec,
    plan_of,
)
from tests.unit.templates.helpers import render
from tests.unit.templates.sonic_refs import MUSTS, REFS, TABLES, violations

pytestmark = pytest.mark.pure

SONIC = 'sonic/config_db.json.j2'
# the shipped SONiC device types (facts/sonic.py SONIC_PLATFORMS): the guide's 48x25G + 8x100G ToR and a 32x100G spine
SHIPPED = {'leaf': 'arista-dcs-7050sx3-48yc8-sonic', 'spine': '7726-32x-o'}
# every table the template renders from the context's telemetry (v3: SNMP_USER; v2c: SNMP_COMMUNITY instead)
TELEMETRY_TABLES = {
    'SYSLOG_SERVER',
    'NTP',
    'NTP_SERVER',
    'SFLOW',
    'SFLOW_COLLECTOR',
    'SFLOW_SESSION',
    'TELEMETRY',
    'GNMI',
    'FLEX_COUNTER_TABLE',
}
# v2c adds the trap receiver (SONiC's SNMP_TRAP_CONFIG takes a community only: no trap table with v3)
SNMP_TABLES = {'v3': {'SNMP_USER'}, 'v2c': {'SNMP_COMMUNITY', 'SNMP_TRAP_CONFIG'}}


def spec_of(name, design, underlay):
    """A guide example (``guide-<variant>``) or size M (``size-m``, natively EVPN/VXLAN) in ``design`` and
    ``underlay``."""
    raw = guide_spec(name.removeprefix('guide-')) if name.startswith('guide-') else example_spec(name)
    if raw['design'] != design:
        raw['design'] = design
        raw.pop('tenants', None)
    return ospf_spec(raw) if underlay == 'ospf' else raw


@cache
def _dbs(name, design, underlay, shipped, snmp=None):
    intent = {**guide_intent(design, underlay), 'device_types': SHIPPED if shipped else {}}
    if snmp:  # the guide's collectors, SNMP in version ``snmp``
        intent['telemetry'] = {**guide_telemetry(), 'snmp_version': snmp}
    contexts = build_contexts(plan_of(spec_of(name, design, underlay)), intent)
    return json.dumps(
        {
            device: json.loads(render(SONIC, ctx))
            for device, ctx in contexts.items()
            if ctx['role'] in ('spine', 'leaf', 'border') and not ctx['evpn_mh']
        }
    )


def dbs(name, design, underlay='ebgp', shipped=False, snmp=None):
    """``{switch: config_db}`` of a fabric (a fresh copy each call), with the guide's collectors if ``snmp``."""
    return json.loads(_dbs(name, design, underlay, shipped, snmp))


CASES = (
    [
        (f'guide-{g}', design_of(g), underlay, shipped, snmp)
        for g in GUIDES
        for underlay in ('ebgp', 'ospf')
        for shipped in (False, True)
        for snmp in (None, 'v3')
    ]
    + [
        ('size-m', design, underlay, shipped, snmp)
        for design in DESIGNS
        for underlay in ('ebgp', 'ospf')
        for shipped in (False, True)
        for snmp in (None, 'v3')
    ]
    + [('guide-evpn-vxlan', 'evpn-vxlan', 'ebgp', True, 'v2c')]
)


@pytest.mark.parametrize('name,design,underlay,shipped,snmp', CASES, ids=['-'.join(map(str, c)) for c in CASES])
def test_every_reference_resolves(name, design, underlay, shipped, snmp):
    rendered = dbs(name, design, underlay, shipped, snmp)
    assert rendered
    found = {device: violations(db) for device, db in rendered.items()}
    assert not any(found.values()), {device: v for device, v in found.items() if v}
    for db in rendered.values():  # with collectors, every telemetry table is there to be checked; without, none
        expected = TELEMETRY_TABLES | SNMP_TABLES[snmp] if snmp else set()
        assert set(db) & (TELEMETRY_TABLES | set().union(*SNMP_TABLES.values())) == expected
    if shipped:  # the buffer chain is there to be checked: PG -> profile -> pool
        assert all(
            {'BUFFER_POOL', 'BUFFER_PROFILE', 'BUFFER_PG', 'BUFFER_QUEUE'} <= set(db) for db in rendered.values()
        )


@cache
def _routed_lag():
    """A context the guide has not: an EVPN leaf whose peer link is a routed LAG (no MLAG), as SONiC renders the
    only PORTCHANNEL_INTERFACE entries (tests/unit/templates/test_frr_sonic.py's no-mlag variant)."""
    intent = {**guide_intent('evpn-vxlan'), 'device_types': SHIPPED}
    ctx = build_contexts(plan_of(guide_spec('evpn-vxlan')), intent)['leaf1']
    ctx['mlag'] = None
    return render(SONIC, ctx)


def test_a_routed_lag_resolves():
    db = json.loads(_routed_lag())
    assert db['PORTCHANNEL_INTERFACE'] and violations(db) == []


def _all_dbs():
    return [db for case in CASES for db in dbs(*case).values()] + [json.loads(_routed_lag())]


def _instance(ref):
    """A rendered config_db holding a reference of ``ref``'s kind, with the key of the entry holding it."""
    for db in _all_dbs():
        for key, entry in db.get(ref.table, {}).items():
            if ref.at == 'names' and entry:
                return db, key
            if ref.at.startswith('key['):
                parts = key.split('|')
                index = int(ref.at[4:-1])
                if index < len(parts) and not (ref.targets[0].endswith('!') and len(parts) == 1):
                    return db, key
            if ref.at.startswith('field:') and entry.get(ref.at.removeprefix('field:')):
                return db, key
    return None, None


def _dangle(db, ref, key):
    """``db`` with the one reference of ``ref``'s kind in entry ``key`` pointing at nothing."""
    db = copy.deepcopy(db)
    entries = db[ref.table]
    entry = entries[key]
    if ref.at == 'names':
        first = next(iter(entry))
        entry['Ethernet9999'] = entry.pop(first)
    elif ref.at.startswith('key['):
        parts = key.split('|')
        parts[int(ref.at[4:-1])] = 'Dangling9'
        entries['|'.join(parts)] = entries.pop(key)
    else:
        name = ref.at.removeprefix('field:')
        entry[name] = ['Dangling9'] if isinstance(entry[name], list) else 'Dangling9'
    return db


@pytest.mark.parametrize('ref', REFS, ids=[f'{r.table}-{r.at}-{(r.targets or r.allow)[0]}' for r in REFS])
def test_negative_control_one_dangling_reference_per_row(ref):
    db, key = _instance(ref)
    assert db is not None, f'no rendered config_db holds a {ref.table} {ref.at}: the row is never exercised'
    assert violations(db) == []
    found = violations(_dangle(db, ref, key))
    assert any(ref.source in v and 'Dangling9' in v or 'Ethernet9999' in v for v in found), found


@pytest.mark.parametrize('must', MUSTS, ids=[f'{m.table}-{m.field}' for m in MUSTS])
@pytest.mark.parametrize('broken', ['disabled', 'absent'])
def test_negative_control_a_broken_must(must, broken):
    """The management VRF disabled (or its table gone) while a telemetry table sends in VRF ``mgmt``: caught, once
    per table that names it (the trap table with v2c, the only version SONiC sends traps with)."""
    snmp = 'v2c' if must.table == 'SNMP_TRAP_CONFIG' else 'v3'
    db = dbs('guide-evpn-vxlan', 'evpn-vxlan', shipped=True, snmp=snmp)['leaf1']
    assert any(entry.get(must.field) == must.value for entry in db[must.table].values())
    assert violations(db) == []
    table, key, leaf, _ = must.needs
    if broken == 'absent':
        del db[table]
    else:
        db[table][key][leaf] = 'false'
    found = [v for v in violations(db) if must.source in v]
    sending = [key for key, entry in db[must.table].items() if entry.get(must.field) == must.value]
    assert found == [
        f"{must.table}|{name}: {must.field} 'mgmt' needs MGMT_VRF_CONFIG|vrf_global mgmtVrfEnabled 'true' "
        f'({must.source})'
        for name in sending
    ]


def test_negative_control_unknown_table_and_field():
    db = dbs('guide-evpn-vxlan', 'evpn-vxlan', shipped=True, snmp='v3')['leaf1']
    db['SYSLOG_CONFIG'] = {'GLOBAL': {}}
    db['PORT']['Ethernet1']['fec'] = 'rs'
    db['FLEX_COUNTER_TABLE']['PFCWD']['POLL_INTERVAL'] = '1000'  # sonic-flex_counter.yang's PFCWD has none
    db['FLEX_COUNTER_TABLE']['PFC_WD'] = {'FLEX_COUNTER_STATUS': 'enable'}  # the group is PFCWD
    assert sorted(violations(db)) == [
        "FLEX_COUNTER_TABLE|PFCWD: field 'POLL_INTERVAL' is in no row of the table of references",
        'FLEX_COUNTER_TABLE|PFC_WD: no such container in sonic-flex_counter.yang',
        "PORT|Ethernet1: field 'fec' is in no row of the table of references",
        'SYSLOG_CONFIG: no row in the table of references (sonic_refs.TABLES): look it up and add it',
    ]


def test_every_rendered_table_has_a_row_and_every_row_table_is_rendered():
    rendered = set().union(*(set(db) for db in _all_dbs()))
    assert rendered <= set(TABLES)
    assert {ref.table for ref in REFS} | {must.table for must in MUSTS} <= rendered
