"""Shared helpers of the planner tests: the guide's example specs as plain data."""

import copy
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / 'examples'
DESIGNS = ('mlag', 'routed', 'evpn-vxlan')
GUIDES = (*DESIGNS, 'evpn-mh')  # the example specs guide-<name>.yaml: the three designs and EVPN multihoming


def example(design: str) -> dict:
    """A fresh (deep-copied) dict of ``examples/guide-<design>.yaml``."""
    return copy.deepcopy(_EXAMPLES[design])


_EXAMPLES = {d: yaml.safe_load((EXAMPLES / f'guide-{d}.yaml').read_text()) for d in GUIDES}
