"""tests/conftest.py's ``selects_pure_only``: which -m expressions let a run skip importing the NetBox tier's modules.
A wrong True silently drops NetBox tests from a run; a wrong False costs every pure run the import of the whole
NetBox tier (about 5 s of CPU per pytest process: scripts/test's ``(pure) and not slow`` did, before)."""

import pytest

from tests.conftest import selects_pure_only

pytestmark = pytest.mark.pure


@pytest.mark.parametrize(
    'markexpr',
    [
        'pure',
        'pure and not lab',
        ' pure  and lab ',
        '(pure) and not slow',  # scripts/test -m pure
        '(pure and lab) and not slow',
        '(pure and not lab) and not slow',
        'not (not pure)',
        'pure and (lab or slow)',
    ],
)
def test_only_pure_tests_can_match(markexpr):
    assert selects_pure_only(markexpr)


@pytest.mark.parametrize(
    'markexpr',
    [
        '',  # no -m: everything
        'netbox',
        'not slow',
        'pure or netbox',
        'pure and lab or netbox',  # and binds first: netbox tests match
        '(pure and lab or netbox) and not slow',
        'not pure',
        'slow',
        'pure or',  # malformed: pytest reports it, nothing is skipped here
    ],
)
def test_a_test_without_pure_can_match(markexpr):
    assert not selects_pure_only(markexpr)


@pytest.mark.parametrize('args', [['-m', 'pure'], ['-m', 'pure and not lab'], ['-m', 'pure and slow']])
def test_scripts_test_pure_runs_skip_the_netbox_tier_modules(args):
    """The last -m that scripts/test hands pytest for its pure tier (scripts/lib/pytest_args.sh) is one of these."""
    from tests.unit.test_scripts_test_args import pytest_args

    _, _, after = pytest_args(*args)
    assert selects_pure_only(after[-1] if after else args[-1])  # after: ['-m', '(<yours>) and not slow'] or none
