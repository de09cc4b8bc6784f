"""SONiC referential integrity (sonic_refs.py, a cited table of the YANG models' leafrefs): no reference of a rendered
config_db is unresolved, for the guide's cluster and size M, every design, both underlays, with the generic device
types of the examples and with the shipped SONiC device types (whose contexts carry the buffer tables); and a negative
control per row: one dangling reference of that kind is caught, as are an unknown table and an unknown field."""

import copy
import json
from functools import cache

import pytest

from netbox_aifabric.facts.context import build_contexts
from tests.render_fixtures import DESIGNS, GUIDES, design_of, example_spec, guide_intent, guide_spec, ospf_spec, plan_of

from .helpers import render
from .sonic_refs import REFS, TABLES, violations

pytestmark = pytest.mark.pure

SONIC = 'sonic/config_db.json.j2'
# the shipped SONiC device types (facts/sonic.py SONIC_PLATFORMS): the guide's 48x25G + 8x100G ToR and a 32x100G spine
SHIPPED = {'leaf': 'arista-dcs-7050sx3-48yc8-sonic', 'spine': '7726-32x-o'}


def spec_of(name, design, underlay):
    """A guide example (``guide-<variant>``) or size M (``size-m``, natively EVPN/VXLAN) in ``design`` and
    ``underlay``."""
    raw = guide_spec(name.removeprefix('guide-')) if name.startswith('guide-') else example_spec(name)
    if raw['design'] != design:
        raw['design'] = design
        raw.pop('tenants', None)
    return ospf_spec(raw) if underlay == 'ospf' else raw


@cache
def _dbs(name, design, underlay, shipped):
    intent = {**guide_intent(design, underlay), 'device_types': SHIPPED if shipped else {}}
    contexts = build_contexts(plan_of(spec_of(name, design, underlay)), intent)
    return json.dumps(
        {
            device: json.loads(render(SONIC, ctx))
            for device, ctx in contexts.items()
            if ctx['role'] in ('spine', 'leaf', 'border') and not ctx['evpn_mh']
        }
    )


def dbs(name, design, underlay='ebgp', shipped=False):
    """``{switch: config_db}`` of a fabric (a fresh copy each call)."""
    return json.loads(_dbs(name, design, underlay, shipped))


CASES = [
    (f'guide-{g}', design_of(g), underlay, shipped)
    for g in GUIDES
    for underlay in ('ebgp', 'ospf')
    for shipped in (False, True)
] + [
    ('size-m', design, underlay, shipped)
    for design in DESIGNS
    for underlay in ('ebgp', 'ospf')
    for shipped in (False, True)
]


@pytest.mark.parametrize('name,design,underlay,shipped', CASES, ids=['-'.join(map(str, c)) for c in CASES])
def test_every_reference_resolves(name, design, underlay, shipped):
    rendered = dbs(name, design, underlay, shipped)
    assert rendered
    found = {device: violations(db) for device, db in rendered.items()}
    assert not any(found.values()), {device: v for device, v in found.items() if v}
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


@pytest.mark.parametrize('ref', REFS, ids=[f'{r.table}-{r.at}-{r.targets[0]}' for r in REFS])
def test_negative_control_one_dangling_reference_per_row(ref):
    db, key = _instance(ref)
    assert db is not None, f'no rendered config_db holds a {ref.table} {ref.at}: the row is never exercised'
    assert violations(db) == []
    found = violations(_dangle(db, ref, key))
    assert any(ref.source in v and 'Dangling9' in v or 'Ethernet9999' in v for v in found), found


def test_negative_control_unknown_table_and_field():
    db = dbs('guide-evpn-vxlan', 'evpn-vxlan', shipped=True)['leaf1']
    db['SYSLOG_SERVER'] = {'10.0.0.1': {}}
    db['PORT']['Ethernet1']['fec'] = 'rs'
    assert violations(db) == [
        "PORT|Ethernet1: field 'fec' is in no row of the table of references",
        'SYSLOG_SERVER: no row in the table of references (sonic_refs.TABLES): look it up and add it',
    ]


def test_every_rendered_table_has_a_row_and_every_row_table_is_rendered():
    rendered = set().union(*(set(db) for db in _all_dbs()))
    assert rendered <= set(TABLES)
    assert {ref.table for ref in REFS} <= rendered
