"""scripts/lib/pytest_args.sh: how ``scripts/test``'s arguments become pytest's (the pure tier's quick profile,
pytest-xdist and the slow label left out; everything else, CI included, passed on untouched)."""

import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.pure

LIB = Path(__file__).resolve().parents[2] / 'scripts' / 'lib' / 'pytest_args.sh'
CONTROLLER = ['-p', 'tests.xdist_django']  # Django in the workers only
XDIST = CONTROLLER + ['-n', 'auto', '--dist', 'worksteal']
QUICK = ['--hypothesis-profile=quick']
# prints PURE_ONLY, then each array as its length and its items, NUL-separated (arguments may hold any text)
SCRIPT = f"""set -euo pipefail
source {shlex.quote(str(LIB))}
pytest_args "$@"
printf '%s\\0' "${{PURE_ONLY:-}}" "${{#PYTEST_PROFILE[@]}}" "${{PYTEST_PROFILE[@]}}" "${{#PYTEST_PREFIX[@]}}" \\
    "${{PYTEST_PREFIX[@]}}" "${{#PYTEST_AFTER[@]}}" "${{PYTEST_AFTER[@]}}"
"""


def pytest_args(*args):
    """(pure_only, before, after): what scripts/test puts before and after the arguments."""
    out = subprocess.run(['bash', '-c', SCRIPT, 'scripts/test', *args], capture_output=True, text=True, check=True)
    words = out.stdout.split('\0')[:-1]
    pure, arrays, i = words[0], [], 1
    for _ in range(3):
        n = int(words[i])
        arrays.append(words[i + 1 : i + 1 + n])
        i += 1 + n
    assert i == len(words)
    profile, prefix, after = arrays
    return pure == '1', profile + prefix, after


@pytest.mark.parametrize(
    ('args', 'before', 'after'),
    [
        (['-m', 'pure'], QUICK + XDIST, ['-m', '(pure) and not slow']),
        (['-mpure', '-k', 'x'], QUICK + XDIST, ['-m', '(pure) and not slow']),
        (['tests/unit', '-m', ' pure  and lab '], QUICK + XDIST, ['-m', '(pure and lab) and not slow']),
        (['-m', 'pure', '-n', '3'], QUICK + CONTROLLER, ['-m', '(pure) and not slow']),
        (['-m', 'pure', '--numprocesses=3'], QUICK + CONTROLLER, ['-m', '(pure) and not slow']),
        (['-m', 'pure', '--hypothesis-profile=full'], XDIST, ['-m', '(pure) and not slow']),
        (['-m', 'pure and slow'], QUICK + XDIST, []),
        (['-m', 'netbox', '-m', 'pure'], QUICK + XDIST, ['-m', '(pure) and not slow']),  # pytest takes the last -m
    ],
)
def test_the_pure_tier_gets_the_quick_profile_xdist_and_leaves_slow_out(args, before, after):
    assert pytest_args(*args) == (True, before, after)


@pytest.mark.parametrize(
    'args',
    [
        [],
        ['-m', 'netbox'],
        ['-m', 'pure or netbox'],
        ['-m', 'pure and lab or netbox'],
        ['-m', 'not slow'],
        ['-m', 'pure', '-m', 'netbox'],
    ],
)
def test_everything_else_is_passed_on_untouched(args):
    """CI (no arguments) and any other selection: one process, the full example counts, slow included."""
    assert pytest_args(*args) == (False, [], [])


# an argument: the words scripts/test looks for, or any text (an argument cannot hold NUL)
ARG = st.sampled_from(['-m', 'pure', 'pure and lab', 'pure and slow', 'netbox', '-n', '2', '-k', ' ']) | st.text(
    st.characters(exclude_characters='\x00', exclude_categories=('Cs',)), max_size=12
)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(ARG, max_size=6))
def test_any_arguments_give_a_decision_and_never_drop_one(args):
    """Whatever the arguments: the function ends normally, adds nothing outside the pure tier, and in it only ever
    narrows the user's own -m expression by `and not slow`."""
    pure, before, after = pytest_args(*args)
    if not pure:
        assert (before, after) == ([], [])
    elif after:
        assert after[0] == '-m' and after[1].endswith(') and not slow') and after[1].startswith('(pure')
