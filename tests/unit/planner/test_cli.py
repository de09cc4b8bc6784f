"""The ``netbox-aifabric`` console script: no NetBox server, no database."""

import json
import shutil
import subprocess

import pytest
import yaml

from .helpers import EXAMPLES, ROOT, example

pytestmark = pytest.mark.pure
GOLDEN = ROOT / 'tests' / 'unit' / 'planner' / 'golden'


def cli(*args):
    executable = shutil.which('netbox-aifabric') or str(ROOT / '.venv' / 'bin' / 'netbox-aifabric')
    return subprocess.run([executable, *args], capture_output=True, text=True)


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
    grown['leaf_platform']['uplink_ports']['count'] = 16  # 65–80: the old peer-link ports stay pinned inside
    grown['leaf_platform']['peer_link_ports'] = [81, 82]
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
