"""The card's repository layout and packaging (no database needed)."""

import ast
import zipfile
from pathlib import Path

import pytest

from tests.conftest import WHEEL_BUILD, start_wheel_build

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.pure


def test_top_level_layout():
    for name in ('setup.py', 'README.md', 'netbox_aifabric', 'templates', 'migrations', 'tests', 'docs'):
        assert (ROOT / name).exists(), name


def test_setup_maps_migrations_and_templates_into_the_package():
    tree = ast.parse((ROOT / 'setup.py').read_text())
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, 'id', '') == 'setup')
    kwargs = {k.arg: k.value for k in call.keywords}
    package_dir = ast.literal_eval(kwargs['package_dir'])
    assert package_dir['netbox_aifabric.migrations'] == 'migrations'
    assert package_dir['netbox_aifabric.device_templates'] == 'templates'


def test_migrations_are_importable_from_the_package():
    import netbox_aifabric.migrations as migrations

    assert Path(migrations.__path__[0]).resolve() == (ROOT / 'migrations').resolve()
    assert (ROOT / 'migrations' / '0001_initial.py').exists()


def test_plugin_config():
    tree = ast.parse((ROOT / 'netbox_aifabric' / '__init__.py').read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    values = {
        t.id: ast.literal_eval(s.value)
        for s in cls.body
        if isinstance(s, ast.Assign)
        for t in s.targets
        if isinstance(s.value, ast.Constant)
    }
    assert values['base_url'] == 'aifabric'
    assert values['min_version'] == '4.7.0'
    assert values['max_version'] == '4.7.99'


def test_wheel_ships_migrations_templates_and_data(request, tmp_path):
    """Build the wheel as a user's ``pip install .`` would and look inside it (tests/conftest.py starts the build
    when the session is collected, so that it runs beside the other tests)."""
    build, folder = request.config.stash.get(WHEEL_BUILD, None) or (start_wheel_build(tmp_path), tmp_path)
    output, _ = build.communicate(timeout=600)
    assert build.returncode == 0, output
    wheel = next(folder.glob('netbox_aifabric-*.whl'))
    names = zipfile.ZipFile(wheel).namelist()
    assert 'netbox_aifabric/migrations/0001_initial.py' in names
    assert 'netbox_aifabric/device_templates/README.md' in names
    assert 'netbox_aifabric/data/qos_presets.json' in names
    assert 'netbox_aifabric/templates/netbox_aifabric/attrs/spines.html' in names
    assert any(name.endswith('.dist-info/licenses/LICENSE') for name in names), 'the wheel carries no LICENSE'


def test_license_file_is_the_license_setup_py_declares():
    tree = ast.parse((ROOT / 'setup.py').read_text())
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, 'id', '') == 'setup')
    declared = ast.literal_eval(next(k.value for k in call.keywords if k.arg == 'license'))
    text = (ROOT / 'LICENSE').read_text()
    assert declared == 'Apache-2.0'
    assert 'Apache License' in text and 'Version 2.0, January 2004' in text
    assert 'END OF TERMS AND CONDITIONS' in text  # the whole licence, not its header only


def test_pre_commit_runs_the_checks_scripts_test_runs():
    """.pre-commit-config.yaml's local hooks are the four checks CI runs before pytest (scripts/test), with the
    pinned tools from .venv: a hook that drifts from CI (another command, a tool CI does not install) fails here."""
    import yaml

    config = yaml.safe_load((ROOT / '.pre-commit-config.yaml').read_text())
    hooks = {hook['id']: hook for repo in config['repos'] for hook in repo['hooks']}
    assert [repo['repo'] for repo in config['repos']] == ['local']
    assert set(hooks) == {'ruff', 'ruff-format', 'makemigrations', 'mkdocs'}
    ci = (ROOT / 'scripts' / 'test').read_text()
    for hook_id, command in {
        'ruff': 'ruff check',
        'ruff-format': 'ruff format --check',
        'makemigrations': 'makemigrations netbox_aifabric --check --dry-run',
    }.items():
        assert command in hooks[hook_id]['entry'] and command in ci, hook_id
    assert 'mkdocs build --strict' in hooks['mkdocs']['entry']
    for hook in hooks.values():
        tool = next(word for word in hook['entry'].split() if word.startswith('.venv/bin/'))
        assert tool.removeprefix('.venv/bin/') in {'ruff', 'netbox', 'mkdocs'}, hook['id']


def test_no_code_comment_points_to_an_issue_number():
    """A reader of the code cannot look up an issue of the team's tracker: comments and docstrings say the why
    themselves (the changelog and commits carry the history)."""
    import re

    reference = re.compile(r'\b' + 'issue' + r's? #?[0-9]+', re.IGNORECASE)
    folders = ('netbox_aifabric', 'templates', 'migrations', 'tests', 'scripts', 'benchmarks')
    suffixes = {'.py', '.j2', '.html', '.sh', ''}
    found = [
        f'{path.relative_to(ROOT)}:{number}'
        for folder in folders
        for path in sorted((ROOT / folder).rglob('*'))
        if path.is_file() and path.suffix in suffixes and '__pycache__' not in path.parts
        for number, line in enumerate(path.read_text(errors='replace').splitlines(), 1)
        if reference.search(line)
    ]
    assert found == []


def test_every_collected_test_carries_exactly_one_tier_marker(request):
    """tests/conftest.py checked every test of this session before -m deselected any (a collection with an untiered
    test stops there, naming it); the full run (scripts/test, CI) collects them all."""
    from tests.conftest import TIER_CHECKED, tier_problems

    checked = request.config.stash.get(TIER_CHECKED, set())
    assert {item.nodeid for item in request.session.items} <= checked
    assert request.node.nodeid in checked
    assert tier_problems(request.session.items) == []


class _Item:
    def __init__(self, nodeid, *marks, cls=None):
        self.nodeid, self.cls = nodeid, cls
        self._marks = [getattr(pytest.mark, name).mark for name in marks]

    def iter_markers(self):
        return iter(self._marks)


def test_tier_check_names_a_test_without_a_tier_or_with_two():
    from django.test import SimpleTestCase, TestCase

    from tests.conftest import tier_problems

    problems = tier_problems(
        [
            _Item('a.py::fine', 'pure'),
            _Item('b.py::fine_too', 'netbox', 'django_db', cls=TestCase),
            _Item('c.py::untiered', 'django_db'),
            _Item('d.py::both', 'pure', 'netbox'),
            _Item('e.py::pure_db', 'pure', cls=TestCase),
            _Item('f.py::pure_simple', 'pure', cls=SimpleTestCase),
        ]
    )
    assert [p.split(':')[0] for p in problems] == ['c.py', 'd.py', 'e.py']
    assert '0 tier markers' in problems[0] and '2 tier markers' in problems[1] and 'Django database' in problems[2]
