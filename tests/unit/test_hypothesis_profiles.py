"""The hypothesis profiles (tests/hypothesis_profiles.py): full keeps each test's count, quick runs a quarter."""

import pytest
from hypothesis import settings

from tests.hypothesis_profiles import QUICK_FLOOR, examples

pytestmark = pytest.mark.pure


@pytest.fixture
def profile():
    """Loads a profile for the test and restores the session's afterwards."""
    session = settings.default
    yield settings.load_profile
    settings.register_profile('_restore', session)
    settings.load_profile('_restore')


def test_full_keeps_every_count(profile):
    profile('full')
    assert [examples(n) for n in (40, 60, 200, 300, 400)] == [40, 60, 200, 300, 400]


def test_quick_runs_a_quarter_never_below_the_floor(profile):
    profile('quick')
    assert [examples(n) for n in (40, 60, 200, 300, 400)] == [QUICK_FLOOR, 15, 50, 75, 100]


def test_the_session_runs_the_profile_it_was_given(request):
    """scripts/test -m pure passes --hypothesis-profile=quick; without it (CI) the full profile runs."""
    expected = request.config.getoption('hypothesis_profile') or 'full'
    assert settings.default.max_examples == settings.get_profile(expected).max_examples
