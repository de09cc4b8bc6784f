"""The card's repository layout and packaging (no database needed)."""

import ast
import configparser
import email.parser
import importlib.metadata
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import netbox_aifabric.version
from tests.conftest import WHEEL_BUILD, start_wheel_build

ROOT = Path(__file__).resolve().parents[2]
# Packages the plugin adds to a NetBox venv (NetBox neither pins nor installs them), each for what no NetBox package
# does: they may be installed as long as nothing they pull in, at any depth, changes a version NetBox pins.
ADDITIONS = {
    'hier-config': 'the EOS and FRR running-config comparison (checks/config_diff.py); pulls pydantic',
    'dulwich': 'the intended configs committed to Git without a git binary (render/git_store.py)',
}

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
    when the session is collected, so that it runs beside the other tests): the files, the LICENSE, the metadata and
    requirements that install into a NetBox 4.7 venv without replacing anything of NetBox's."""
    build, folder = request.config.stash.get(WHEEL_BUILD, None) or (start_wheel_build(tmp_path), tmp_path)
    output, _ = build.communicate(timeout=600)
    assert build.returncode == 0, output
    wheel = zipfile.ZipFile(next(folder.glob('netbox_aifabric-*.whl')))
    names = wheel.namelist()
    assert 'netbox_aifabric/migrations/0001_initial.py' in names
    assert 'netbox_aifabric/device_templates/README.md' in names
    assert 'netbox_aifabric/data/qos_presets.json' in names
    assert 'netbox_aifabric/templates/netbox_aifabric/attrs/spines.html' in names
    dist_info = next(name.split('/')[0] for name in names if name.endswith('.dist-info/METADATA'))
    license_file = f'{dist_info}/licenses/LICENSE'
    assert license_file in names, 'the wheel carries no LICENSE'
    assert wheel.read(license_file) == (ROOT / 'LICENSE').read_bytes()
    metadata = email.parser.Parser().parsestr(wheel.read(f'{dist_info}/METADATA').decode())
    assert metadata['Name'] == 'netbox-aifabric'
    assert metadata['Version'] == netbox_aifabric.version.__version__
    assert 'Apache-2.0' in (metadata['License-Expression'], metadata['License'])
    assert metadata.get_all('License-File') == ['LICENSE']
    entry_points = configparser.ConfigParser()
    entry_points.read_string(wheel.read(f'{dist_info}/entry_points.txt').decode())
    assert dict(entry_points['console_scripts']) == {'netbox-aifabric': 'netbox_aifabric.intake.cli:main'}
    requirements = runtime_requirements(metadata.get_all('Requires-Dist'))
    assert requirements, 'the planner and the CLI need netaddr and PyYAML'
    assert unmet_in_netbox_venv(requirements) == []


def test_the_sdist_ships_the_license_and_builds_the_same_wheel(request, tmp_path):
    """The source distribution (``python -m build --sdist``, isolated as a release build is) carries the LICENSE,
    the README its metadata reads, the migrations and the device templates, and ``pip install`` of it builds a
    wheel with exactly the files of the wheel built from the checkout."""
    build, folder = request.config.stash.get(WHEEL_BUILD, None) or (start_wheel_build(tmp_path), tmp_path)
    sdist_build = run([sys.executable, '-m', 'build', '--sdist', '-o', str(tmp_path / 'sdist'), str(ROOT)], tmp_path)
    assert sdist_build.returncode == 0, sdist_build.stdout
    sdist = next((tmp_path / 'sdist').glob('netbox_aifabric-*.tar.gz'))
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split('/')[0]
        names = {name.removeprefix(f'{top}/') for name in archive.getnames()}
        assert archive.extractfile(f'{top}/LICENSE').read() == (ROOT / 'LICENSE').read_bytes()
    migrations = {f'migrations/{path.name}' for path in (ROOT / 'migrations').glob('*.py')}
    device_templates = {str(path.relative_to(ROOT)) for path in (ROOT / 'templates').rglob('*.j2')}
    assert {'LICENSE', 'README.md', 'setup.py', 'PKG-INFO', *migrations, *device_templates} <= names
    pip = [sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', '-w', str(tmp_path / 'w'), str(sdist)]
    wheel_build = run(pip, tmp_path)
    assert wheel_build.returncode == 0, wheel_build.stdout
    build.wait(timeout=600)
    from_checkout = zipfile.ZipFile(next(folder.glob('netbox_aifabric-*.whl'))).namelist()
    from_sdist = zipfile.ZipFile(next((tmp_path / 'w').glob('netbox_aifabric-*.whl'))).namelist()
    assert sorted(from_sdist) == sorted(from_checkout)


def run(command, cwd):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


def runtime_requirements(requires_dist):
    """What ``pip install <wheel>`` installs: the Requires-Dist lines no extra selects."""
    requirements = [Requirement(line) for line in requires_dist or ()]
    return [r for r in requirements if r.marker is None or r.marker.evaluate({'extra': ''})]


def unmet_in_netbox_venv(
    requirements, installed=importlib.metadata.version, netbox_pins=None, additions=ADDITIONS, requires=None
):
    """The requirements that would change a NetBox 4.7 venv: a ``netbox`` distribution (none is installed from
    NetBox's tarball, git or image: pip would install a second NetBox), or a range that the version installed here
    or NetBox's own pin (its Requires-Dist, what its requirements.txt installs) does not satisfy. A package of
    ``additions`` NetBox does not pin is added, not changed: it and what it pulls in (``requires``, default the
    installed metadata) are checked against NetBox's pins where NetBox pins them."""
    requires = requires or importlib.metadata.requires
    if netbox_pins is None:
        netbox_pins = {
            canonicalize_name(r.name): next(iter(r.specifier)).version
            for r in runtime_requirements(importlib.metadata.requires('netbox'))
            if len(r.specifier) == 1 and next(iter(r.specifier)).operator == '=='
        }
    problems = []
    for requirement in requirements:
        name = canonicalize_name(requirement.name)
        if name == 'netbox':
            problems.append(f'{requirement}: a second NetBox')
            continue
        try:
            version = installed(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            version = None
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            problems.append(f'{requirement}: installed {version}')
        pin = netbox_pins.get(name)
        if pin is None and name in additions and version is not None:
            problems += _changed_pins(requirement, netbox_pins, requires)
        elif pin is None or not requirement.specifier.contains(pin, prereleases=True):
            problems.append(f'{requirement}: NetBox pins {pin}')
    return problems


def _changed_pins(addition, netbox_pins, requires):
    """What ``addition`` pulls in (its runtime requirements, at any depth) that a NetBox pin does not satisfy."""
    problems, seen, todo = [], set(), [addition]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        pin = netbox_pins.get(name)
        if pin is not None:
            if not requirement.specifier.contains(pin, prereleases=True):
                problems.append(f'{addition} pulls {requirement}: NetBox pins {pin}')
            continue  # NetBox's own package: its requirements are NetBox's
        try:
            todo += runtime_requirements(requires(requirement.name))
        except importlib.metadata.PackageNotFoundError:
            problems.append(f'{addition} pulls {requirement}: not installed here')
    return problems


def test_requirement_check_names_netbox_and_what_netbox_does_not_satisfy():
    """The negative control of the wheel test's requirement check: what the plugin required before, and worse."""
    pins = {'netaddr': '1.3.0', 'pyyaml': '6.0.3', 'jinja2': '3.1.6'}
    installed = {'netaddr': '1.3.0', 'PyYAML': '6.0.3', 'jinja2': '3.1.6', 'netbox': '4.7.3'}.get
    fine = [Requirement('netaddr>=1.0'), Requirement('PyYAML>=6.0')]
    assert unmet_in_netbox_venv(fine, installed, pins) == []
    assert unmet_in_netbox_venv([Requirement('netbox>=4.7,<4.8')], installed, pins) == [
        'netbox<4.8,>=4.7: a second NetBox'
    ]
    assert unmet_in_netbox_venv([Requirement('netaddr>=2')], installed, pins) == [
        'netaddr>=2: installed 1.3.0',
        'netaddr>=2: NetBox pins 1.3.0',
    ]
    assert unmet_in_netbox_venv([Requirement('django-tables2')], installed, pins) == [
        'django-tables2: installed None',
        'django-tables2: NetBox pins None',
    ]
    # an addition NetBox does not pin is allowed, but not one that pulls a version against NetBox's pins
    added = {'netaddr': '1.3.0', 'hier-config': '3.7.1', 'pydantic': '2.14.4'}.get
    tree = {'hier-config': ['pydantic>=2.9', 'netaddr>=1.0'], 'pydantic': [], 'netaddr': []}.__getitem__
    addition = [Requirement('hier-config>=3.7')]
    assert unmet_in_netbox_venv(addition, added, pins, {'hier-config': ''}, tree) == []
    assert unmet_in_netbox_venv(addition, added, pins, {}, tree) == ['hier-config>=3.7: NetBox pins None']
    against = {'hier-config': ['netaddr>=2'], 'netaddr': []}.__getitem__
    assert unmet_in_netbox_venv(addition, added, pins, {'hier-config': ''}, against) == [
        'hier-config>=3.7 pulls netaddr>=2: NetBox pins 1.3.0'
    ]
    assert runtime_requirements(['pynetbox>=7.4; extra == "pynetbox"', 'PyYAML>=6.0']) == [Requirement('PyYAML>=6.0')]
    assert unmet_in_netbox_venv(runtime_requirements(importlib.metadata.requires('netbox-aifabric'))) == []


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
