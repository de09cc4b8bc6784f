"""The planner imports nothing from Django or NetBox: it loads and plans with those imports blocked."""

import ast
import subprocess
import sys

import pytest

from tests.unit.planner.helpers import ROOT

pytestmark = pytest.mark.pure
PLANNER = ROOT / 'netbox_aifabric' / 'planner'
FORBIDDEN = (
    'django',
    'netbox',
    'dcim',
    'ipam',
    'extras',
    'tenancy',
    'users',
    'utilities',
    'core',
    'vpn',
    'rest_framework',
)

PROBE = """
import importlib.abc, sys, types, yaml
FORBIDDEN = {forbidden!r}

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in FORBIDDEN:
            raise ImportError(f'planner imported {{name}}')

sys.meta_path.insert(0, Block())
# A bare package stands in for netbox_aifabric so that its PluginConfig (NetBox glue) is not executed
package = types.ModuleType('netbox_aifabric')
package.__path__ = [{package!r}]
sys.modules['netbox_aifabric'] = package
from netbox_aifabric.planner import load_spec, plan_fabric
plan = plan_fabric(load_spec(yaml.safe_load(open({example!r}))))
print(len(plan.links), sorted(m for m in sys.modules if m.split('.')[0] in FORBIDDEN))
"""


def test_planner_plans_with_django_and_netbox_blocked():
    code = PROBE.format(
        forbidden=FORBIDDEN,
        package=str(ROOT / 'netbox_aifabric'),
        example=str(ROOT / 'examples' / 'guide-evpn-vxlan.yaml'),
    )
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env={'PATH': ''})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['21', '[]']


def test_planner_sources_import_only_stdlib_netaddr_and_themselves():
    allowed = set(sys.stdlib_module_names) | {'netaddr'}
    for path in sorted(PLANNER.glob('*.py')):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                own = name == 'netbox_aifabric.planner' or name.startswith('netbox_aifabric.planner.')
                assert own or name.split('.')[0] in allowed, f'{path.name} imports {name}'
