"""The NOS registry (facts/nos.py) is complete: every entry has its template file, a platform and the shipped device
types the seed loads, commands for every runbook check, counter parsers for its counter tools, and the interface
naming its template asks for; the places that spelled a NOS read it. A broken entry is named (negative controls)."""

import dataclasses
import re
from pathlib import Path

import pytest

from netbox_aifabric.acceptance.counters import COUNTER_TOOLS, NOS_PARSERS, PARSERS
from netbox_aifabric.acceptance.fabric import PLATFORM_NOS
from netbox_aifabric.acceptance.judge import RDMA_TOOLS, TOOLS
from netbox_aifabric.acceptance.runbook import EVPN_COMMANDS, NOS_COMMANDS, ROCE_COMMANDS, Runbook, runbook_script
from netbox_aifabric.facts.catalog import device_type_seed
from netbox_aifabric.facts.nos import (
    NOS_REGISTRY,
    RUNBOOK_CHECKS,
    Nos,
    RunbookCommands,
    acceptance_nos,
    nos_by_key,
    nos_by_platform,
)
from netbox_aifabric.render.filters import INTERFACE_NAMING

pytestmark = pytest.mark.pure

TEMPLATES = Path(__file__).resolve().parents[2] / 'templates'
_INTERFACE_KEY = re.compile(r"aifabric_interface\('([^']*)'\)")


def problems(entry: Nos, device_types: set[str]) -> list[str]:
    """What the entry lacks, each naming the entry."""
    found = []
    path = TEMPLATES / entry.template
    if not path.is_file():
        found.append(f'{entry.key}: no template file {entry.template}')
    if not (entry.platform and re.fullmatch(r'[a-z0-9-]+', entry.platform_slug)):
        found.append(f'{entry.key}: no platform name and slug for the seed')
    if not (entry.template_name and entry.mime_type and entry.file_extension):
        found.append(f'{entry.key}: no ConfigTemplate name, MIME type or file extension')
    for role, slug in (('leaf', entry.leaf_device_type), ('spine', entry.spine_device_type)):
        if slug and slug not in device_types:
            found.append(f'{entry.key}: {role} device type {slug} is not shipped (data/device_types/)')
    if bool(entry.leaf_device_type) != bool(entry.spine_device_type):
        found.append(f'{entry.key}: a leaf device type without a spine one, or the reverse')
    # a switch NOS (it runs on the shipped switch types) has a runbook: every check has its commands
    if entry.leaf_device_type and entry.runbook is None:
        found.append(f'{entry.key}: a switch NOS without runbook commands')
    for check in RUNBOOK_CHECKS if entry.runbook else ():
        if not getattr(entry.runbook, check):
            found.append(f'{entry.key}: no commands for the runbook check {check}')
    if entry.runbook and set(entry.counter_tools) != set(NOS_PARSERS.get(entry.key, ())):
        found.append(f'{entry.key}: counter tools {entry.counter_tools} without their parsers (acceptance/counters.py)')
    commands = {c for check in RUNBOOK_CHECKS for c in getattr(entry.runbook, check)} if entry.runbook else set()
    for kind, command in entry.judged:
        if command not in commands or "'" in command:
            found.append(f'{entry.key}: judged {kind} command "{command}" is not one of its runbook commands')
    if path.is_file() and set(_INTERFACE_KEY.findall(path.read_text())) - {entry.key}:
        found.append(f'{entry.key}: its template names interfaces as another NOS does')
    return found


def shipped_device_types() -> set[str]:
    return {entry['slug'] for entry in device_type_seed()}


@pytest.mark.parametrize('entry', NOS_REGISTRY, ids=lambda n: n.key)
def test_every_entry_is_complete(entry):
    assert problems(entry, shipped_device_types()) == []


def test_keys_platforms_templates_and_names_are_unique():
    for attribute in ('key', 'platform', 'platform_slug', 'template', 'template_name'):
        values = [getattr(entry, attribute) for entry in NOS_REGISTRY]
        assert len(set(values)) == len(values), attribute


@pytest.mark.parametrize(
    ('change', 'named'),
    [
        ({'template': 'sonic/missing.j2'}, 'sonic: no template file sonic/missing.j2'),
        ({'platform_slug': ''}, 'sonic: no platform name and slug for the seed'),
        ({'leaf_device_type': 'no-such-type'}, 'sonic: leaf device type no-such-type is not shipped'),
        ({'runbook': None}, 'sonic: a switch NOS without runbook commands'),
        (
            {'runbook': RunbookCommands(physical=('show interfaces status {port}',))},
            'sonic: no commands for the runbook check evpn',
        ),
        (
            {'judged': (('pfc', 'show pfc counters'), ('errors', 'show interfaces counters errors'))},
            'sonic: counter tools',
        ),
        ({'judged': (('pfc', 'show pfc counters -a'), ('queue', 'show queue counters'))}, 'sonic: judged pfc command'),
        ({'template': 'cumulus/startup.yaml.j2'}, 'sonic: its template names interfaces as another NOS does'),
    ],
)
def test_an_incomplete_entry_is_named(change, named):
    broken = dataclasses.replace(nos_by_key('sonic'), **change)
    assert any(p.startswith(named) for p in problems(broken, shipped_device_types())), problems(
        broken, shipped_device_types()
    )


def test_counter_parsers_are_keyed_as_the_registry():
    """acceptance/counters.py keeps a parser per '<key>-<kind>' of the registry, no more, no less."""
    assert set(NOS_PARSERS) == {nos.key for nos in acceptance_nos()}
    for nos in acceptance_nos():
        assert set(NOS_PARSERS[nos.key]) == set(nos.counter_tools), nos.key
    registry_tools = {f'{nos.key}-{kind}' for nos in acceptance_nos() for kind in nos.counter_tools}
    assert set(COUNTER_TOOLS) == set(PARSERS) == registry_tools | {'ethtool'}
    assert set(TOOLS) == set(COUNTER_TOOLS) | {'iperf3', 'ping', *RDMA_TOOLS}


def test_the_nos_tables_read_the_registry():
    runbook = {nos.key: nos.runbook for nos in NOS_REGISTRY if nos.runbook}
    assert PLATFORM_NOS == {nos.platform_slug: nos.key for nos in NOS_REGISTRY if nos.runbook}
    assert NOS_COMMANDS == {key: commands.physical for key, commands in runbook.items()}
    assert EVPN_COMMANDS == {key: commands.evpn for key, commands in runbook.items()}
    assert ROCE_COMMANDS == {key: commands.roce for key, commands in runbook.items()}
    assert INTERFACE_NAMING == {nos.key: dict(nos.interface_naming) for nos in NOS_REGISTRY}
    assert INTERFACE_NAMING['nvue'] == {'Port-Channel': 'bond', 'Ethernet': 'swp'}


def test_lookups():
    assert nos_by_platform('cumulus') is nos_by_key('nvue')
    assert nos_by_platform('junos') is None
    with pytest.raises(KeyError, match="'junos' is not a NOS: one of sonic, nvue, eos, frr"):
        nos_by_key('junos')
    assert [nos.key for nos in acceptance_nos()] == ['sonic', 'nvue', 'eos']


def test_the_runbook_script_maps_each_judged_command_to_its_tool():
    """The script's counter_tool case: one pattern per judged command ({port}: any port), and the NIC's ethtool."""
    script = runbook_script(Runbook('f'))
    case = script[script.index('counter_tool() {') : script.index('esac', script.index('counter_tool() {'))]
    tools = re.findall(r'^    (.+)\) echo (\S+) ;;$', case, re.M)
    expected = [("'ethtool -S '*", 'ethtool')] + [
        ("'" + command.replace('{port}', "'*'") + "'", f'{nos.key}-{kind}')
        for nos in acceptance_nos()
        for kind, command in nos.judged
    ]
    assert tools == expected
    assert ("'show interfaces '*' counters errors | json'", 'eos-errors') in tools
    assert 'set NOS=eos|nvue|sonic"' in script and 'NOS: eos, nvue or sonic for switches' in script
