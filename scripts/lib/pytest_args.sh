# shellcheck shell=bash
# How scripts/test turns its arguments into pytest's (sourced, not executed; no side effects, so that
# tests/unit/test_scripts_test_args.py can source it alone).

# pytest's last -m expression (the one pytest uses), spaces squeezed.
last_markexpr() {
    local arg prev='' expr=''
    for arg in "$@"; do
        if [[ $prev == -m ]]; then
            expr=$arg
        elif [[ $arg == -m?* ]]; then
            expr=${arg#-m}
        fi
        prev=$arg
    done
    printf '%s' "$expr" | tr -s ' ' | sed 's/^ //; s/ $//'
}

# True when pytest's last -m selects only the pure tier: exactly `pure`, or `pure and <more>` without an `or` (which
# could select tests outside the pure tier: `pure and lab or netbox`).
pure_only() {
    local expr
    expr=$(last_markexpr "$@")
    [[ $expr == pure || ($expr == 'pure and '* && " $expr " != *' or '*) ]]
}

# pytest_args <scripts/test's arguments>: sets PURE_ONLY (1 or empty) and the arrays that go before the arguments
# (PYTEST_PROFILE, PYTEST_PREFIX) and after them (PYTEST_AFTER: pytest takes the last -m).
# - the pure tier runs hypothesis' quick profile (a quarter of each property test's examples, see
#   tests/hypothesis_profiles.py) unless the arguments name a profile; everything else (CI) runs the full counts;
# - on every core (pytest-xdist; most of its wall time is FRR's daemons and the lab's convergence, which leave a core
#   idle in one process) unless the arguments give -n or --numprocesses;
# - with tests/xdist_django.py, which keeps pytest-django from setting Django up in xdist's controller (it runs no
#   test; its set-up delayed the workers' start by about 2.5 s) and does nothing in a run that is not distributed;
# - without the tests labelled slow (heavy proofs that a smaller pure test covers too: docs/development.md lists
#   them) unless the expression names slow.
# shellcheck disable=SC2034  # the variables are read by scripts/test
pytest_args() {
    PURE_ONLY=
    PYTEST_PROFILE=()
    PYTEST_PREFIX=()
    PYTEST_AFTER=()
    pure_only "$@" || return 0
    PURE_ONLY=1
    local expr
    expr=$(last_markexpr "$@")
    if [[ " $* " != *' --hypothesis-profile'* ]]; then PYTEST_PROFILE=(--hypothesis-profile=quick); fi
    PYTEST_PREFIX=(-p tests.xdist_django) # Django set up in the workers only, not in xdist's controller
    if [[ " $* " != *' -n'* && " $* " != *' --numprocesses'* ]]; then PYTEST_PREFIX+=(-n auto --dist worksteal); fi
    if [[ " $expr " != *' slow '* ]]; then PYTEST_AFTER=(-m "($expr) and not slow"); fi
}
