"""Hypothesis example counts per profile (hypothesis' own ``settings.register_profile`` mechanism).

- ``full`` (the default: CI, ``scripts/test`` without ``-m pure``): every property and fuzz test runs the count it
  names, e.g. ``@settings(max_examples=examples(200))`` runs 200 examples;
- ``quick`` (``scripts/test -m pure`` passes ``--hypothesis-profile=quick``): a quarter of each count, at least
  ``QUICK_FLOOR``, to shorten the pure tier (see docs/development.md). The same properties run, on fewer inputs.

tests/conftest.py imports this module, so the profiles exist before hypothesis' pytest plugin loads the one named by
``--hypothesis-profile``, and before any test module computes its counts.
"""

from hypothesis import settings

FULL_EXAMPLES = 100  # hypothesis' default max_examples: the full profile keeps it
QUICK_EXAMPLES = 25
QUICK_FLOOR = 10

settings.register_profile('full', max_examples=FULL_EXAMPLES)
settings.register_profile('quick', max_examples=QUICK_EXAMPLES)
settings.load_profile('full')  # --hypothesis-profile (pytest_configure) replaces it


def examples(full: int) -> int:
    """The example count of a test that runs ``full`` examples under the full profile, scaled to the loaded one."""
    scaled = full * settings.default.max_examples // FULL_EXAMPLES
    return scaled if scaled >= full else max(QUICK_FLOOR, scaled)
