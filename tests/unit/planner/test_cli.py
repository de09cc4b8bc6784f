"""The ``netbox-aifabric`` console script: no NetBox server, no database."""

import json
import subprocess
import sys
from dataclasses import replace

import pytest
import yaml

import netbox_aifabric.intake.cli as cli_module
from netbox_aifabric.intake.cli import main
from netbox_aifabric.planner import PlanWarning
from netbox_aifabric.planner.loader import FIELDS
from tests.unit.planner.helpers import EXAMPLES, ROOT, example

pytestmark = pytest.mark.pure
GOLDEN = ROOT / 'tests' / 'unit' / 'planner' / 'golden'
NOT_A_PLAN = 'expected a plan (a mapping with an allocations mapping)'


def cli(*args):
    """The command as a user runs it, in a process of its own, on this checkout's code (not an installed copy)."""
    command = [sys.executable, '-m', 'netbox_aifabric.intake.cli', *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env={'PYTHONPATH': str(ROOT)})


def run(capsys, *args):
    """``main()`` in this process (fast): (exit status, stdout, stderr)."""
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys, tmp_path, spec_path, *more):
    """Runs ``plan`` with ``-o``; checks exit status 2, nothing on stdout, no output file; returns stderr."""
    output = tmp_path / 'plan.txt'
    status, out, err = run(capsys, 'plan', str(spec_path), *more, '-o', str(output))
    assert (status, out, output.exists()) == (2, '', False), err
    return err


def test_table_is_the_default():
    result = cli('plan', str(EXAMPLES / 'guide-routed.yaml'))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (GOLDEN / 'guide-routed.txt').read_text()


def test_json_and_previous_plan(tmp_path):
    first = cli('plan', str(EXAMPLES / 'guide-evpn-vxlan.yaml'), '--format', 'json')
    assert first.returncode == 0
    plan = json.loads(first.stdout)
    assert plan['allocations']['uplink:leaf:2:spine:2:1'] == '10.255.2.20/31'
    (tmp_path / 'plan.json').write_text(first.stdout)

    grown = example('evpn-vxlan')
    grown['maximums']['spines'] = 8  # would move every leaf loopback without the previous plan
    # 16 uplink ports around the peer link (73, 74), which keeps its ports: a block grown over them would move it
    uplinks = [f'Ethernet{n}' for n in (*range(65, 73), *range(75, 83))]
    grown['leaf_platform']['uplink_ports'] = {'names': uplinks, 'speed': 100}
    grown['pools']['p2p'] = '10.255.4.0/23'
    (tmp_path / 'grown.yaml').write_text(yaml.safe_dump(grown))
    without = json.loads(cli('plan', str(tmp_path / 'grown.yaml'), '--format', 'json').stdout)
    assert without['allocations']['loopback:leaf:1'] == '10.255.0.9/32'
    result = cli('plan', str(tmp_path / 'grown.yaml'), '--previous', str(tmp_path / 'plan.json'), '--format', 'yaml')
    assert result.returncode == 0, result.stderr
    pinned = yaml.safe_load(result.stdout)['allocations']
    assert {k: pinned[k] for k in plan['allocations']} == plan['allocations']


def test_bad_spec_exits_2_with_the_named_error(tmp_path):
    spec = example('evpn-vxlan')
    spec['pools']['p2p'] = '10.255.2.0/28'
    (tmp_path / 'bad.yaml').write_text(yaml.safe_dump(spec))
    result = cli('plan', str(tmp_path / 'bad.yaml'))
    assert result.returncode == 2
    assert result.stdout == ''
    assert result.stderr == (
        'netbox-aifabric: error: pools.p2p: pool 10.255.2.0/28 is too small for the declared maximums: '
        '64 point-to-point /31s needed, 8 available\n'
    )


def test_missing_file_exits_1():
    result = cli('plan', '/nonexistent/spec.yaml')
    assert result.returncode == 1
    assert 'cannot read input' in result.stderr


def test_missing_previous_file_exits_1(capsys):
    status, out, err = run(capsys, 'plan', str(EXAMPLES / 'guide-mlag.yaml'), '--previous', '/nonexistent/plan.json')
    assert (status, out) == (1, '')
    assert err.startswith('netbox-aifabric: cannot read input: ') and '/nonexistent/plan.json' in err


def test_unwritable_output_exits_1(capsys, tmp_path):
    status, _, err = run(capsys, 'plan', str(EXAMPLES / 'guide-mlag.yaml'), '-o', str(tmp_path / 'no' / 'plan.txt'))
    assert status == 1
    assert err.startswith('netbox-aifabric: cannot write output: ')


def test_warnings_go_to_stderr(capsys, monkeypatch):
    """The plan's warnings (plan_fabric fills Plan.warnings) go to stderr too; stdout is the plan with its Warnings
    table."""
    warning = PlanWarning('public-asn', 'spine_asn', 'spine ASN 13335 is public')
    planned = cli_module.plan_fabric
    monkeypatch.setattr(cli_module, 'plan_fabric', lambda *a, **kw: replace(planned(*a, **kw), warnings=(warning,)))
    status, out, err = run(capsys, 'plan', str(EXAMPLES / 'guide-routed.yaml'))
    golden = (GOLDEN / 'guide-routed.txt').read_text()
    table = 'Warnings (1)\ncode        field      message\n----------  ---------  -------------------------\n'
    assert (status, out) == (0, golden + '\n' + table + 'public-asn  spine_asn  spine ASN 13335 is public\n')
    assert err == 'netbox-aifabric: warning: spine_asn: spine ASN 13335 is public (public-asn)\n'


# Content problems: exit status 2, one line on stderr, nothing on stdout, no output file


def test_spec_not_utf8(capsys, tmp_path):
    raw = b'name: ai-lab\ndesign: caf\xe9\n'
    (path := tmp_path / 'latin1.yaml').write_bytes(raw)
    offset = raw.index(b'\xe9')
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: spec: {path} is not UTF-8 text: byte 0xe9 at offset {offset} (line 2) cannot be '
        'decoded\n'
    )


def test_spec_not_yaml(capsys, tmp_path):
    text = 'name: ai-lab\ndesign: mlag\n  maximums: {}\n'
    (path := tmp_path / 'bad.yaml').write_text(text)
    column = text.splitlines()[2].index(':') + 1
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: spec: {path} is not valid YAML: mapping values are not allowed in this context at '
        f'line 3, column {column}\n'
    )


def test_spec_with_a_control_character(capsys, tmp_path):
    (path := tmp_path / 'bell.yaml').write_text('name: ai-lab\ndesign: mlag\x07\n')
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: spec: {path} is not valid YAML: control characters are not allowed: character 0x7 '
        'at line 2\n'
    )


@pytest.mark.parametrize(
    ('value', 'problem'),
    [
        ('2024-13-01', 'not a valid !!timestamp value: month must be in 1..12'),
        ('!!timestamp', 'not a valid !!timestamp value'),
    ],
)
def test_spec_with_an_impossible_value(capsys, tmp_path, value, problem):
    """PyYAML raises a bare ValueError (no line) for the date, an AttributeError for the empty timestamp (found by
    test_fuzz): both are YAML errors at their line now."""
    (path := tmp_path / 'date.yaml').write_text(f'name: ai-lab\ndesign: {value}\n')
    column = len('design: ') + 1
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: spec: {path} is not valid YAML: {problem} at line 2, column {column}\n'
    )


def test_spec_not_json(capsys, tmp_path):
    text = '{"name" "ai-lab"}'
    (path := tmp_path / 'bad.json').write_text(text)
    column = text.index('"ai-lab"') + 1
    assert refused(capsys, tmp_path, path) == (
        f"netbox-aifabric: error: spec: {path} is not valid JSON: Expecting ':' delimiter at line 1, column {column}\n"
    )


@pytest.mark.parametrize('text', ['', '# nothing yet\n', 'null\n'])
def test_empty_spec_file(capsys, tmp_path, text):
    (path := tmp_path / 'empty.yaml').write_text(text)
    assert refused(capsys, tmp_path, path) == (
        'netbox-aifabric: error: spec: the spec is empty: expected a mapping with name, design, maximums and pools\n'
    )


def line_of(lines, text, start=0):
    """1-based number of the first line from ``start`` (0-based) that starts with ``text``."""
    return next(n for n, line in enumerate(lines[start:], start + 1) if line.startswith(text))


def test_yaml_key_written_twice(capsys, tmp_path):
    """PyYAML keeps the last of two equal keys silently; the spec loader names both lines."""
    lines = (EXAMPLES / 'guide-evpn-vxlan.yaml').read_text().splitlines()
    lines.insert(line_of(lines, '  p2p:'), '  p2p: 10.255.9.0/24')
    (path := tmp_path / 'twice.yaml').write_text('\n'.join(lines) + '\n')
    first = line_of(lines, '  p2p:')
    second = line_of(lines, '  p2p:', first)
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: pools.p2p: key written twice (lines {first} and {second})\n'
    )
    lines.append('spine_asn: 65000')
    path.write_text('\n'.join(lines) + '\n')
    first, second = line_of(lines, 'spine_asn:'), len(lines)
    assert refused(capsys, tmp_path, path) == (  # the outer mapping is read first
        f'netbox-aifabric: error: spine_asn: key written twice (lines {first} and {second})\n'
    )


def test_yaml_key_written_twice_on_one_line(capsys, tmp_path):
    text = (EXAMPLES / 'guide-routed.yaml').read_text().replace('{id: 2, name: spine2}', '{id: 2, id: 3, name: s}')
    (path := tmp_path / 'twice.yaml').write_text(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if 'id: 3' in row)
    row = text.splitlines()[line - 1]
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: spines[1].id: key written twice (line {line}, columns {row.index("id") + 1} and '
        f'{row.index("id: 3") + 1})\n'
    )


def test_yaml_merge_keys_may_be_overridden(capsys, tmp_path):
    """``<<`` merges a mapping in; a key written next to it overrides the merged one: that is no duplicate."""
    text = (EXAMPLES / 'guide-routed.yaml').read_text()
    text = text.replace('maximums: {', 'maximums: {<<: {leaves: 2, spines: 1}, ')
    (path := tmp_path / 'merge.yaml').write_text(text)
    status, out, err = run(capsys, 'plan', str(path))
    assert (status, err) == (0, '')


def test_json_key_written_twice(capsys, tmp_path):
    lines = json.dumps(example('evpn-vxlan'), indent=2).splitlines()
    leaves = line_of(lines, '    "leaves":')
    lines.insert(leaves, '    "leaves": 16,')
    (path := tmp_path / 'twice.json').write_text('\n'.join(lines))
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: maximums.leaves: key written twice (lines {leaves} and {leaves + 1})\n'
    )


def test_spec_nested_too_deeply(capsys, tmp_path):
    """libyaml composes recursively in C: 100,000 levels overflowed the stack (a segfault, not even a traceback)."""
    (path := tmp_path / 'deep.yaml').write_text('name: ' + '[' * 100_000 + ']' * 100_000 + '\n')
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: spec: {path} is nested more than 100 levels deep (line 1)\n'
    )
    (path := tmp_path / 'deep.yaml').write_text('name: ' + '[' * 101 + ']' * 101 + '\n')  # any length
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: spec: {path} is nested more than 100 levels deep (line 1)\n'
    )
    (path := tmp_path / 'deep.json').write_text('{"name": ' + '[' * 100_000 + ']' * 100_000 + '}')
    assert refused(capsys, tmp_path, path) == f'netbox-aifabric: error: spec: {path} is nested too deeply\n'


def test_key_with_a_line_break_stays_on_one_line(capsys, tmp_path):
    (path := tmp_path / 'newline.json').write_text('{"name": "x", "a\\nb": 1}')
    assert refused(capsys, tmp_path, path) == (
        f'netbox-aifabric: error: a\\nb: unknown key (known: {", ".join(FIELDS)})\n'
    )


# The previous plan


@pytest.fixture
def plan_file(tmp_path):
    """The evpn-vxlan guide's plan as JSON, and its dict."""
    status = main(['plan', str(EXAMPLES / 'guide-evpn-vxlan.yaml'), '--format', 'json', '-o', str(tmp_path / 'p.json')])
    assert status == 0
    return tmp_path / 'p.json', json.loads((tmp_path / 'p.json').read_text())


def test_previous_with_a_bad_value(capsys, tmp_path, plan_file):
    path, plan = plan_file
    plan['allocations']['loopback:leaf:1'] = '10.255.0.300/32'
    path.write_text(json.dumps(plan))
    err = refused(capsys, tmp_path, EXAMPLES / 'guide-evpn-vxlan.yaml', '--previous', str(path))
    assert err == (
        'netbox-aifabric: error: previous.allocations.loopback:leaf:1: "10.255.0.300/32" is not an IPv4 /32 address\n'
    )


def test_previous_key_written_twice(capsys, tmp_path, plan_file):
    path, plan = plan_file
    lines = json.dumps(plan, indent=2).splitlines()
    at = line_of(lines, '    "loopback:leaf:1":')
    lines.insert(at, lines[at - 1])
    path.write_text('\n'.join(lines))
    err = refused(capsys, tmp_path, EXAMPLES / 'guide-evpn-vxlan.yaml', '--previous', str(path))
    field = 'previous.allocations.loopback:leaf:1'
    assert err == f'netbox-aifabric: error: {field}: key written twice (lines {at} and {at + 1})\n'


@pytest.mark.parametrize(
    ('text', 'message'),
    [
        ('[1, 2]', f'previous: {NOT_A_PLAN}, got list'),
        ('{"fabric": "ai-lab"}', 'previous: not a plan: it has no allocations mapping'),
        ('{"allocations": 7}', 'previous.allocations: expected a mapping of allocation key to value, got int'),
    ],
)
def test_previous_that_is_not_a_plan(capsys, tmp_path, text, message):
    (path := tmp_path / 'previous.json').write_text(text)
    err = refused(capsys, tmp_path, EXAMPLES / 'guide-mlag.yaml', '--previous', str(path))
    assert err == f'netbox-aifabric: error: {message}\n'


def test_previous_empty_or_not_utf8(capsys, tmp_path):
    (path := tmp_path / 'previous.json').write_text('null')
    err = refused(capsys, tmp_path, EXAMPLES / 'guide-mlag.yaml', '--previous', str(path))
    assert err == f'netbox-aifabric: error: previous: {path} is empty: {NOT_A_PLAN}\n'
    path.write_bytes(b'\xfe\xff{}')
    err = refused(capsys, tmp_path, EXAMPLES / 'guide-mlag.yaml', '--previous', str(path))
    assert err == (
        f'netbox-aifabric: error: previous: {path} is not UTF-8 text: byte 0xfe at offset 0 (line 1) cannot be '
        'decoded\n'
    )
