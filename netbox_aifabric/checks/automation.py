"""Automation rules: what ConfigTemplates, Ansible and pynetbox read is there, valid and current. Every device the plan
gives a context has a schema-valid ``aifabric`` context (``docs/aifabric-context.v1.schema.json``, shipped as
``data/aifabric-context.v1.schema.json``) equal to what the plan and intent would build now; every switch has a config
template and its render succeeds. Pure: ``checks.compliance`` gathers the devices' templates and render outcomes into
:class:`~.engine.DeviceAutomation` facts."""

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import jsonschema

from netbox_aifabric.checks.engine import DeviceAutomation, Facts, Finding, Obj, Rule, Skip

__all__ = ('RULES', 'SCHEMA_PATH', 'context_errors')

SCHEMA_PATH = Path(__file__).resolve().parents[1] / 'data' / 'aifabric-context.v1.schema.json'


@cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    return jsonschema.Draft202012Validator(schema)


def context_errors(context: object) -> list[str]:
    """The schema's complaints about ``context`` (``path: message``), in path order; none for a valid one."""
    errors = sorted(_validator().iter_errors(context), key=lambda e: [str(p) for p in e.absolute_path])
    return [f'{"/".join(str(p) for p in e.absolute_path) or "(top)"}: {e.message}' for e in errors]


def _device(name: str) -> Obj:
    return Obj('dcim.device', name)


def _needs_devices(facts: Facts) -> dict[str, DeviceAutomation]:
    """The devices' automation facts; rules on the devices skip for a fabric never applied (no devices, the contexts
    are the plan's own) or when the facts could not be gathered."""
    if facts.context_source != 'devices':
        raise Skip('the fabric has not been applied: its devices have no contexts yet')
    if facts.automation is None:
        raise Skip(facts.errors.get('automation') or 'the devices were not read')
    return facts.automation


def check_context(facts: Facts) -> Iterator[Finding]:
    """Every device the plan gives a context has an ``aifabric`` context valid against schema v1."""
    devices = _needs_devices(facts)
    for name in sorted(devices):
        context = facts.contexts.get(name)
        if context is None:
            yield Finding((_device(name),), 'an aifabric context (schema v1)', 'none')
            continue
        errors = context_errors(context)
        if errors:
            more = f' (+{len(errors) - 1} more)' if len(errors) > 1 else ''
            yield Finding((_device(name),), 'valid against aifabric-context.v1', errors[0] + more)


def check_template(facts: Facts) -> Iterator[Finding]:
    """Every switch has a config template (its own, its role's or its platform's, as NetBox resolves it)."""
    devices = _needs_devices(facts)
    for name in sorted(devices):
        state = devices[name]
        if state.switch and state.config_template is None:
            yield Finding((_device(name),), 'a config template (device, role or platform)', 'none')


def check_render(facts: Facts) -> Iterator[Finding]:
    """Every switch with a config template renders without error."""
    devices = _needs_devices(facts)
    for name in sorted(devices):
        state = devices[name]
        if state.switch and state.config_template is not None and state.render_error:
            yield Finding((_device(name),), f'{state.config_template} renders', state.render_error)


def check_stale(facts: Facts) -> Iterator[Finding]:
    """Every stored context equals the one the plan and intent build now (none changed since the last apply)."""
    devices = _needs_devices(facts)
    if facts.planned is None:
        raise Skip(facts.errors.get('plan') or 'the plan is not known')
    for name in sorted(devices):
        stored, planned = facts.contexts.get(name), facts.planned.get(name)
        if stored is None or planned is None or stored == planned:
            continue  # a missing context is check_context's finding
        keys = sorted(k for k in set(stored) | set(planned) if stored.get(k) != planned.get(k))
        yield Finding((_device(name),), 'the context the plan and intent give now', f'differs in {", ".join(keys)}')


RULES = (
    Rule(
        'automation-context',
        'automation',
        'Every device has a schema-valid aifabric context',
        'error',
        'Config templates, Ansible and pynetbox scripts read the aifabric context: a device without one, or with one '
        'outside the schema, renders nothing or renders wrong.',
        'Apply the fabric: it writes every device its context.',
        check_context,
    ),
    Rule(
        'automation-template',
        'automation',
        'Every switch has a config template',
        'error',
        'Configs come from NetBox, not by hand: a switch without a config template has no rendered config to deploy '
        'or to keep in Git.',
        'Give the fabric a NOS (its switch platform with the shipped template: netbox aifabric_load_templates), or '
        'assign a config template to the device or its role.',
        check_template,
    ),
    Rule(
        'automation-render',
        'automation',
        "Every switch's config renders",
        'error',
        'A template that fails on a device (a missing key, an edited template) leaves that switch without a config '
        'exactly when it is needed.',
        'Open the device\'s "Render Config" tab for the error; fix the template, or re-apply if the context is stale.',
        check_render,
    ),
    Rule(
        'automation-stale',
        'automation',
        'No stale context',
        'warning',
        'The intent changed after the last apply (or a context was edited by hand): the rendered configs no longer '
        'show what the fabric is meant to be.',
        'Review the Plan tab and apply the fabric.',
        check_stale,
    ),
)
