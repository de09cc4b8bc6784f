"""The Automation rules: on the guide's cluster as applied and rendered every one passes; each negative control breaks
one thing on purpose (a context removed or outside the schema, a switch without template, a failed render, a stale
context) and sees exactly that rule's finding and nothing else. Expectations come from the broken input."""

import copy
import json

import pytest

from netbox_aifabric.checks.automation import SCHEMA_PATH, context_errors
from netbox_aifabric.checks.engine import DeviceAutomation, Facts, run_rules
from netbox_aifabric.checks.rules import RULES, rule
from tests.unit.checks import test_rules as base

pytestmark = pytest.mark.pure

AUTOMATION = [r.id for r in RULES if r.family == 'automation' and r.id != 'automation-acceptance']  # own tests


def test_the_shipped_schema_is_the_documented_one():
    docs = SCHEMA_PATH.parents[2] / 'docs' / 'aifabric-context.v1.schema.json'
    assert json.loads(SCHEMA_PATH.read_text()) == json.loads(docs.read_text())


@pytest.mark.parametrize('guide', ['evpn-vxlan', 'mlag', 'routed'])
def test_the_applied_guide_cluster_passes_every_automation_rule(guide):
    result = run_rules([rule(r) for r in AUTOMATION], base.facts_of(guide))
    assert {r.rule.id: r.status for r in result.results} == dict.fromkeys(AUTOMATION, 'pass')


def test_negative_control_a_device_without_context():
    facts = base.facts_of()
    del facts.contexts['gpu2']
    assert base.failures(facts) == {'automation-context': [(('gpu2',), 'an aifabric context (schema v1)', 'none')]}


def test_negative_control_a_context_outside_the_schema():
    facts = base.facts_of()
    broken = copy.deepcopy(facts.contexts['leaf2'])
    del broken['hostname']
    broken['mtu'] = 'jumbo'
    facts.contexts['leaf2'] = facts.planned['leaf2'] = broken  # not stale: the plan "gives" it too
    errors = context_errors(broken)
    assert len(errors) == 2 and any('hostname' in e for e in errors) and any(e.startswith('mtu:') for e in errors)
    assert base.failures(facts) == {
        'automation-context': [(('leaf2',), 'valid against aifabric-context.v1', f'{errors[0]} (+1 more)')]
    }


def test_negative_control_a_switch_without_config_template():
    facts = base.facts_of()
    facts.automation['spine1'] = DeviceAutomation(True, None)
    assert base.failures(facts) == {
        'automation-template': [(('spine1',), 'a config template (device, role or platform)', 'none')]
    }


def test_a_server_needs_no_template():
    facts = base.facts_of()
    assert facts.automation['gpu1'] == DeviceAutomation(False, None)
    assert base.failures(facts) == {}


def test_negative_control_a_render_that_fails():
    facts = base.facts_of()
    error = "An error occurred while rendering the template: 'dict object' has no attribute 'vtep'"
    facts.automation['leaf1'] = DeviceAutomation(True, 'AI fabric SONiC', error)
    assert base.failures(facts) == {'automation-render': [(('leaf1',), 'AI fabric SONiC renders', error)]}


def test_negative_control_a_stale_context():
    facts = base.facts_of()
    facts.planned = copy.deepcopy(facts.contexts)
    facts.planned['leaf1']['asn'] = facts.contexts['leaf1']['asn'] + 1  # the intent changed after the apply
    facts.planned['leaf1']['bfd'] = {'interval': 999}
    assert base.failures(facts) == {
        'automation-stale': [(('leaf1',), 'the context the plan and intent give now', 'differs in asn, bfd')]
    }


def test_not_applied_or_not_gathered_skips_never_passes():
    facts = base.facts_of()
    facts.context_source = 'plan'
    statuses = {r.rule.id: r.status for r in run_rules([rule(r) for r in AUTOMATION], facts).results}
    assert statuses == dict.fromkeys(AUTOMATION, 'skip')
    facts = Facts('x', {}, errors={'automation': 'the plan fails: no spines'})
    result = run_rules([rule(r) for r in AUTOMATION], facts)
    assert {(r.status, r.note) for r in result.results} == {('skip', 'the plan fails: no spines')}
