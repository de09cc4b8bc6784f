"""A render outside NetBox (examples/nornir/netbox_jinja.py, what the Nornir example renders with) is NetBox's render
byte for byte: every shipped template, every switch of every guide example, rendered in a Python where NetBox and
Django cannot be imported, equals the render in NetBox's own ConfigTemplate environment (helpers.render: the
environment ``utilities.jinja2.render_jinja2`` builds), refusals included. docs/automation.md."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from netbox_aifabric.facts.nos import NOS_REGISTRY
from tests.render_fixtures import GUIDES, observed_contexts
from tests.unit.templates.helpers import TEMPLATES, render

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[2]
NORNIR = ROOT / 'examples' / 'nornir'
SWITCH_ROLES = ('leaf', 'spine')  # the guides' switches (the other contexts are servers')
# Every import of NetBox or Django fails, as on a host with neither installed
NO_NETBOX = """
import importlib.abc, sys
class NoNetBox(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split('.')[0]
        if top in ('netbox', 'django', 'dcim', 'extras', 'ipam', 'users', 'utilities'):
            raise ModuleNotFoundError(f'No module named {top!r}', name=top)
sys.meta_path.insert(0, NoNetBox())
"""
RENDER_ALL = """
import json
job = json.load(sys.stdin)
sys.path.insert(0, job['path'])
import netbox_jinja
out = {}
for key, (code, context) in job['renders'].items():
    try:
        out[key] = netbox_jinja.render(code, {'aifabric': context})
    except Exception as error:
        out[key] = f'{type(error).__name__}: {error}'
loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('netbox', 'django') or m == 'netbox_aifabric.validators')
print(json.dumps({'renders': out, 'loaded': loaded}))
"""


def example(name: str):
    """examples/nornir/<name>.py, imported from its file (the examples are no package)."""
    spec = importlib.util.spec_from_file_location(name, NORNIR / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


netbox_jinja = example('netbox_jinja')


def without_netbox(code: str, stdin: str = '') -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, '-c', NO_NETBOX + code], input=stdin, capture_output=True, text=True, cwd=ROOT, check=False
    )


def netbox_render(template: str, context: dict) -> str:
    try:
        return render(template, context)
    except Exception as error:
        return f'{type(error).__name__}: {error}'


def test_the_filters_import_without_netbox_or_django():
    done = without_netbox('import netbox_aifabric.render.filters as f; print(f.line("a\\nrouter bgp 666"))')
    assert done.returncode == 0, done.stderr
    assert done.stdout == 'a router bgp 666\n'


def test_a_local_render_is_netboxs_render_byte_for_byte():
    renders, expected = {}, {}
    for guide in GUIDES:
        for device, context in observed_contexts(guide).items():
            if context['role'] not in SWITCH_ROLES:
                continue
            context = json.loads(json.dumps(context))  # what NetBox's API returns
            for nos in NOS_REGISTRY:
                key = f'{guide} {device} {nos.key}'
                renders[key] = ((TEMPLATES / nos.template).read_text(), context)
                expected[key] = netbox_render(nos.template, context)
    done = without_netbox(RENDER_ALL, json.dumps({'path': str(NORNIR), 'renders': renders}))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer['loaded'] == []
    differ = [key for key in renders if answer['renders'][key] != expected[key]]
    assert differ == []
    assert sum(not text.startswith('UnsupportedFeature') for text in expected.values()) > len(expected) // 2


def test_trim_blocks_changes_every_shipped_template():
    """Why the local environment keeps Jinja's defaults: nornir-jinja2's and Ansible's ``trim_blocks`` render every
    shipped template differently from NetBox."""
    context = observed_contexts('mlag')['leaf1']
    for nos in NOS_REGISTRY:
        code = (TEMPLATES / nos.template).read_text()
        default = netbox_jinja.render(code, {'aifabric': context})
        assert default == render(nos.template, context), nos.key
        assert netbox_jinja.render(code, {'aifabric': context}, {'trim_blocks': True}) != default, nos.key
