"""``ui.context_diff``: a device's config context change per top-level section, old → new.

Hypothesis: for arbitrary nested JSON-like old and new contexts the summary never raises, is empty exactly when the
contexts are equal, names exactly the top-level sections that differ and keeps each within its line limit; a
context that is no mapping raises ``ContextSummaryError`` and nothing else. The exact-output tests build the new
context from the old by one edit and derive the expected lines from that edit."""

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netbox_aifabric.ui.context_diff import (
    ELEMENTS,
    EMPTY,
    MAX_LINES,
    ContextLine,
    ContextSummaryError,
    SectionSummary,
    summarize_context,
)
from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.pure

SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=4)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(['bgp', 'interfaces', 'qos', 'vlans', 'asn', 'hostname']) | st.text(max_size=3)
CONTEXTS = st.dictionaries(KEYS, JSON, max_size=6)
RECORDS = st.lists(
    st.fixed_dictionaries(
        {'name': st.sampled_from(['Ethernet1', 'Ethernet2', 'Ethernet3']), 'mtu': st.integers(0, 10**6)}
    ),
    max_size=3,
    unique_by=lambda r: r['name'],
)


def as_json(record):
    return json.dumps(record, separators=(', ', ': '))


def items(count):
    return f'{count} item' if count == 1 else f'{count} items'


def context():
    """A context shaped as the plugin's: scalars, a dict section, a list of records, a list of scalars."""
    return {
        'hostname': 'leaf1',
        'asn': 65101,
        'bgp': {'asn': 65101, 'router_id': '10.255.0.5', 'unnumbered': False},
        'interfaces': [{'name': f'Ethernet{i}', 'mtu': 9216, 'lag': None} for i in range(1, 13)],
        'vlans': [{'vid': 10, 'name': 'MGMT'}, {'vid': 20, 'name': 'USERS'}],
        'qos': {'pfc_priorities': [3], 'mode': 'lossless'},
        'management': {'jump_hosts': [f'192.0.2.{i}/32' for i in range(1, 9)]},
    }


@given(CONTEXTS, CONTEXTS)
@settings(max_examples=examples(300), deadline=None)
def test_summary_never_raises_and_names_exactly_the_changed_sections(old, new):
    summary = summarize_context(old, new)
    assert (summary == []) == (old == new)
    changed = [k for k in [*old, *(k for k in new if k not in old)] if k not in old or k not in new or old[k] != new[k]]
    assert [s.section for s in summary] == changed
    for section in summary:
        assert 1 <= len(section.lines) <= MAX_LINES
        assert all(line.path == section.section or line.path.startswith(section.section) for line in section.lines)


@given(CONTEXTS)
@settings(max_examples=examples(100), deadline=None)
def test_a_context_against_itself_or_a_copy_is_no_change(old):
    assert summarize_context(old, copy.deepcopy(old)) == []
    assert summarize_context(None, {}) == [] and summarize_context({}, None) == []


@given(CONTEXTS, st.integers(1, 4))
@settings(max_examples=examples(100), deadline=None)
def test_every_line_counted_whatever_the_limit(old, limit):
    new = {**old, 'interfaces': [{'name': f'e{i}', 'v': i} for i in range(9)]}
    full = {s.section: len(s.lines) + s.more for s in summarize_context(old, new, limit=100)}
    for section in summarize_context(old, new, limit=limit):
        assert len(section.lines) == min(limit, full[section.section])
        assert len(section.lines) + section.more == full[section.section]


@given(RECORDS, RECORDS)
@settings(max_examples=examples(200), deadline=None)
def test_records_are_compared_by_name(old, new):
    summary = summarize_context({'interfaces': old}, {'interfaces': new}, limit=100)
    if old == new:
        assert summary == []
        return
    before, after = {r['name']: r for r in old}, {r['name']: r for r in new}
    expected = [ContextLine('interfaces', items(len(old)), items(len(new)))] if len(old) != len(new) else []
    for name in [*before, *(n for n in after if n not in before)]:
        path = f'interfaces[{name}]'
        if name not in after:
            expected.append(ContextLine(path, as_json(before[name]), EMPTY))
        elif name not in before:
            expected.append(ContextLine(path, EMPTY, as_json(after[name])))
        elif before[name] != after[name]:
            expected.append(ContextLine(f'{path}.mtu', str(before[name]['mtu']), str(after[name]['mtu'])))
    if not expected:  # the same records in another order
        expected = [ContextLine('interfaces', f'{len(old)} items', f'{len(new)} items: reordered')]
    assert summary == [SectionSummary('interfaces', tuple(expected))]


@pytest.mark.parametrize('bad', ['text', 3, ['a'], ('b',)])
def test_a_context_that_is_no_mapping_is_a_named_error(bad):
    for old, new in ((bad, {}), ({}, bad)):
        with pytest.raises(ContextSummaryError, match=f'is a {type(bad).__name__}, not a mapping'):
            summarize_context(old, new)


@given(st.one_of(SCALARS, st.lists(SCALARS, max_size=3)).filter(lambda v: v is not None), CONTEXTS)
@settings(max_examples=examples(100), deadline=None)
def test_any_non_mapping_side_raises_the_named_error_only(bad, other):
    with pytest.raises(ContextSummaryError):
        summarize_context(bad, other)


def test_a_scalar_and_a_nested_key_changed():
    old = context()
    new = copy.deepcopy(old)
    new['asn'] = new['bgp']['asn'] = old['asn'] + 1
    assert summarize_context(old, new) == [
        SectionSummary('asn', (ContextLine('asn', str(old['asn']), str(old['asn'] + 1)),)),
        SectionSummary('bgp', (ContextLine('bgp.asn', str(old['asn']), str(old['asn'] + 1)),)),
    ]


def test_keys_added_and_removed_show_the_absent_side_as_a_dash():
    old = context()
    new = copy.deepcopy(old)
    del new['hostname']
    new['bgp']['bfd'] = True
    new['telemetry'] = {'gnmi': 'on'}
    assert [(s.section, s.text()) for s in summarize_context(old, new)] == [
        ('hostname', [f'hostname: {old["hostname"]} → {EMPTY}']),
        ('bgp', [f'bgp.bfd: {EMPTY} → true']),
        ('telemetry', [f'telemetry: {EMPTY} → {{"gnmi": "on"}}']),
    ]


def test_a_long_section_is_capped_with_the_rest_counted():
    old = context()
    new = copy.deepcopy(old)
    for interface in new['interfaces']:
        interface['mtu'] = 9000
    (section,) = summarize_context(old, new)
    names = [i['name'] for i in old['interfaces']]
    assert section.lines == tuple(ContextLine(f'interfaces[{n}].mtu', '9216', '9000') for n in names[:MAX_LINES])
    assert section.more == len(names) - MAX_LINES
    assert section.text()[-1] == f'… {len(names) - MAX_LINES} more'


def test_a_record_removed_and_one_renamed_by_its_vid():
    old = context()
    new = copy.deepcopy(old)
    new['interfaces'].pop()
    new['vlans'][1]['name'] = 'TENANTS'
    removed = old['interfaces'][-1]
    assert summarize_context(old, new) == [
        SectionSummary(
            'interfaces',
            (
                ContextLine('interfaces', f'{len(old["interfaces"])} items', f'{len(new["interfaces"])} items'),
                ContextLine(f'interfaces[{removed["name"]}]', as_json(removed), EMPTY),
            ),
        ),
        # the VLAN keeps its vid: its name changed, it was not removed and another added
        SectionSummary('vlans', (ContextLine('vlans[20].name', 'USERS', 'TENANTS'),)),
    ]


def test_lists_short_whole_long_by_count_and_elements():
    old = context()
    new = copy.deepcopy(old)
    new['qos']['pfc_priorities'] = [3, 4]
    hosts = old['management']['jump_hosts']
    new['management']['jump_hosts'] = hosts[1:] + [f'198.51.100.{i}/32' for i in range(1, ELEMENTS + 2)]
    added = new['management']['jump_hosts'][len(hosts) - 1 :]
    summary = {s.section: s.lines for s in summarize_context(old, new)}
    assert summary['qos'] == (ContextLine('qos.pfc_priorities', '[3]', '[3, 4]'),)
    detail = [f'+ {a}' for a in added[:ELEMENTS]] + [f'− {hosts[0]}', f'… {len(added) - ELEMENTS} more']
    after = items(len(new['management']['jump_hosts']))
    assert summary['management'] == (
        ContextLine('management.jump_hosts', items(len(hosts)), f'{after}: ' + ', '.join(detail)),
    )


def test_long_values_are_cut():
    old, new = {'description': 'a' * 100}, {'description': 'b' * 100}
    (section,) = summarize_context(old, new)
    assert section.lines[0].old == 'a' * 59 + '…' and section.lines[0].new == 'b' * 59 + '…'
