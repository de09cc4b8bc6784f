"""Test tiers: every test carries exactly one tier marker (registered in pyproject.toml).

- ``pure``: no database, no NetBox objects, no browser: ``scripts/test -m pure`` runs only these, in seconds, and
  skips the PostgreSQL, Chromium and FRR set-up (FRR's checks run when FRR is installed, see tests/frr.py);
- ``netbox``: the NetBox tier: a test database, NetBox's views, API and GraphQL, the live server and the browser.

A collection with a test that has no tier, or two, stops before any test runs, naming the tests. So does a ``pure``
test that is a Django database test case (it would need the database the pure tier does not set up).

A run of the pure tier alone (an -m expression only pure tests can match: ``-m pure``, ``-m 'pure and ...'``, the
``-m '(pure) and not slow'`` of ``scripts/test -m pure``) does not import the test modules that mark only
``netbox`` (and never ``pure``): their tests would be deselected anyway, and importing them cost about 10 of the
pure tier's seconds (``test_wizard.py`` resolves URLs at import, which builds NetBox's URL conf and GraphQL schema).
The full run (scripts/test, CI) collects and tier-checks every module.
"""

import gc
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests import hypothesis_profiles  # noqa: F401  (registers the full and quick profiles before pytest_configure)

TIERS = ('pure', 'netbox')
TIER_CHECKED = pytest.StashKey[set]()  # the node ids the check saw (tests/unit/test_layout.py reads it)


def tier_problems(items) -> list[str]:
    """One line per collected test whose tier markers are wrong (none, two, or pure on a database test case)."""
    from django.test import TransactionTestCase

    problems = []
    for item in items:
        tiers = sorted({mark.name for mark in item.iter_markers() if mark.name in TIERS})
        if len(tiers) != 1:
            problems.append(f'{item.nodeid}: {len(tiers)} tier markers {tiers}, needs exactly one of {list(TIERS)}')
        elif tiers == ['pure'] and isinstance(getattr(item, 'cls', None), type):
            if issubclass(item.cls, TransactionTestCase):
                problems.append(f'{item.nodeid}: marked pure but a Django database test case')
    return problems


def selects_pure_only(markexpr: str) -> bool:
    """True when the -m expression can select no test that lacks the ``pure`` marker, whatever other markers it has:
    ``pure``, ``pure and not lab``, and ``(pure) and not slow`` (what scripts/test -m pure passes); not ``pure or
    netbox`` nor ``pure and lab or netbox``. Evaluated with pytest's own -m parser, ``pure`` false and every other name
    of the expression true or false in turn."""
    from _pytest.mark.expression import Expression  # pytest's -m grammar (pinned pytest)

    if not markexpr.strip():
        return False  # no -m: every test
    try:
        expression = Expression.compile(markexpr)
    except SyntaxError:
        return False  # pytest itself reports a malformed -m
    others = sorted(expression.idents() - {'pure'})
    if len(others) > 12:
        return False  # too many to try: collect everything, as without -m
    for values in itertools.product((False, True), repeat=len(others)):
        truth = dict(zip(others, values), pure=False)
        if expression.evaluate(lambda name, /, **kwargs: truth[name]):
            return False
    return True


_NETBOX_MARK = re.compile(r'\bpytest\.mark\.netbox\b')
_PURE_MARK = re.compile(r'\bpytest\.mark\.pure\b')


def netbox_only_module(path: Path) -> bool:
    """A test module that marks netbox somewhere and pure nowhere: none of its tests can be in the pure tier."""
    text = path.read_text(encoding='utf-8')
    return bool(_NETBOX_MARK.search(text)) and not _PURE_MARK.search(text)


BRANCHING_TESTS = Path(__file__).resolve().parent / 'branching'
BRANCHING_CONFIGURATION = 'aifabric_test_branching'


def pytest_ignore_collect(collection_path, config):
    # tests/branching needs NetBox Branching's configuration (scripts/test runs it in a pytest of its own), and only
    # it: there the other tests are not collected
    in_branching = collection_path.resolve().is_relative_to(BRANCHING_TESTS)
    if os.environ.get('NETBOX_CONFIGURATION') == BRANCHING_CONFIGURATION:
        if not in_branching and collection_path.is_file() and collection_path.name.startswith('test_'):
            return True
    elif in_branching:
        return True
    if collection_path.suffix != '.py' or not collection_path.name.startswith('test_'):
        return None
    if selects_pure_only(config.getoption('markexpr', '') or '') and netbox_only_module(collection_path):
        return True
    return None  # pytest decides as usual


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything: every collected test is checked
def pytest_collection_modifyitems(config, items):
    problems = tier_problems(items)
    config.stash[TIER_CHECKED] = {item.nodeid for item in items}
    if problems:
        raise pytest.UsageError(
            'Tests without exactly one tier marker (add pytestmark = pytest.mark.pure or .netbox):\n  '
            + '\n  '.join(problems)
        )


WHEEL_TEST = 'tests/unit/test_layout.py::test_wheel_ships_migrations_templates_and_data'
WHEEL_BUILD = pytest.StashKey[tuple[subprocess.Popen, Path]]()  # (pip, the wheel's folder), started at collection


def start_wheel_build(folder: Path) -> subprocess.Popen:
    """``pip wheel`` of this checkout into ``folder``, as a user's ``pip install .`` builds it (isolated build)."""
    root = Path(__file__).resolve().parents[1]
    command = [sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', '-w', str(folder), str(root)]
    return subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def pytest_collection_finish(session):
    # The wheel build (pip's isolated build environment: about 4 s of CPU, mostly in pip) starts as soon as the
    # wheel test is selected and runs on the second core beside the other tests; the test waits for it.
    # Under pytest-xdist every worker collects every test but runs only some: there the test starts its own build.
    if session.config.option.collectonly or hasattr(session.config, 'workerinput'):
        return
    if not any(item.nodeid == WHEEL_TEST for item in session.items):
        return
    folder = Path(tempfile.mkdtemp(prefix='aifabric-wheel-'))
    session.config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    session.config.stash[WHEEL_BUILD] = (start_wheel_build(folder), folder)


@pytest.hookimpl(trylast=True)  # after the other plugins' unconfigure: about the end of a pytest process
def pytest_unconfigure(config):
    # Python's exit runs full garbage collections over every object still alive, NetBox's modules and the tests'
    # (about 300,000): 0.8 s per pytest process, three processes under xdist. Frozen objects are left out of those
    # collections (the process ends anyway); exit handlers, pytest's clean-ups and output flushing still run.
    gc.freeze()
