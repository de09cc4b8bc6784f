"""Test tiers: every test carries exactly one tier marker (registered in pyproject.toml).

- ``pure``: no database, no NetBox objects, no browser: ``scripts/test -m pure`` runs only these, in seconds, and
  skips the PostgreSQL, Chromium and FRR set-up (FRR's checks run when FRR is installed, see tests/frr.py);
- ``netbox``: the NetBox tier: a test database, NetBox's views, API and GraphQL, the live server and the browser.

A collection with a test that has no tier, or two, stops before any test runs, naming the tests. So does a ``pure``
test that is a Django database test case (it would need the database the pure tier does not set up).
"""

import pytest

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


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything: every collected test is checked
def pytest_collection_modifyitems(config, items):
    problems = tier_problems(items)
    config.stash[TIER_CHECKED] = {item.nodeid for item in items}
    if problems:
        raise pytest.UsageError(
            'Tests without exactly one tier marker (add pytestmark = pytest.mark.pure or .netbox):\n  '
            + '\n  '.join(problems)
        )
