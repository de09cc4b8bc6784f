"""FRR's own dry run (tests/frr.py: vtysh's grammar, then zebra, staticd, ospfd, bfdd and bgpd reading the file with
their real handlers) over every switch of every example spec in ``examples/`` and each benchmark size, with the
spec's eBGP underlay and with an OSPF underlay (``ospf_spec``).

- The guide's examples (size S: the guide's cluster, ``examples/guide-*.yaml``): every spine and leaf, both underlays.
- Size M (``examples/size-m.yaml``, the shape of ``benchmarks/sizes.py``'s SIZE_M): every spine and leaf, both
  underlays (``slow``: about 80 dry runs).
- Size L (``examples/size-l.yaml``, the shape of SIZE_L): its largest spine (the most BGP sessions) and a leaf, both
  underlays (``slow``: planning L takes tens of seconds per underlay).
- Size XL (``examples/size-xl.yaml``): a spine (512 leaf sessions: the ``maximum-paths`` FRR's parser refused) and a
  leaf (``slow``: planning XL takes minutes).

FRR missing fails these tests unless ``AIFABRIC_SKIP_FRR=1`` (as in test_frr_sonic.py).
"""

from functools import cache
from pathlib import Path

import pytest

from benchmarks.sizes import SIZE_L, SIZE_M
from tests.render_fixtures import ROOT, contexts_of, example_spec, ospf_spec
from tests.unit.templates.helpers import render
from tests.unit.templates.test_frr_sonic import assert_frr_accepts

pytestmark = pytest.mark.pure

FRR = 'frr/frr.conf.j2'
GUIDE_EXAMPLES = sorted(p.stem for p in Path(ROOT, 'examples').glob('guide-*.yaml'))
SIZES = ('size-m', 'size-l', 'size-xl')
UNDERLAYS = ('ebgp', 'ospf')


def test_every_example_is_covered():
    """A new example file is checked here or named as a size with its own dry-run test: none slips past."""
    examples = {p.stem for p in Path(ROOT, 'examples').glob('*.yaml')}
    assert examples == set(GUIDE_EXAMPLES) | set(SIZES)
    untested = [size for size in SIZES if f'test_{size.replace("-", "_")}_accepted_by_frr' not in globals()]
    assert untested == []
    assert GUIDE_EXAMPLES == ['guide-evpn-mh', 'guide-evpn-vxlan', 'guide-mlag', 'guide-routed']


@cache
def _contexts(example, underlay):
    raw = example_spec(example)
    if underlay == 'ospf':
        raw = ospf_spec(raw)
    return {
        name: ctx for name, ctx in contexts_of(raw, raw['design']).items() if ctx['role'] in ('spine', 'leaf', 'border')
    }


def switch_cases(examples):
    return [
        (example, underlay, name)
        for example in examples
        for underlay in UNDERLAYS
        for name in _contexts(example, underlay)
    ]


@pytest.mark.parametrize(('example', 'underlay', 'name'), switch_cases(GUIDE_EXAMPLES))
def test_guide_examples_accepted_by_frr(example, underlay, name):
    ctx = _contexts(example, underlay)[name]
    assert ctx['fabric']['underlay'] == underlay
    assert (ctx['ospf'] is not None) == (underlay == 'ospf')
    assert_frr_accepts(render(FRR, ctx))


@pytest.mark.slow
def test_size_m_is_the_benchmark_shape():
    raw = example_spec('size-m')
    assert (len(raw['spines']), len(raw['leaves'])) == (SIZE_M['spine_count'], SIZE_M['leaf_count'])


@pytest.mark.slow
@pytest.mark.parametrize('underlay', UNDERLAYS)
def test_size_m_accepted_by_frr(underlay):
    ctxs = _contexts('size-m', underlay)
    assert len(ctxs) == SIZE_M['spine_count'] + SIZE_M['leaf_count']
    for ctx in ctxs.values():
        assert_frr_accepts(render(FRR, ctx))


def largest_spine_and_a_leaf(ctxs: dict) -> tuple[dict, dict]:
    """The spine with the most BGP sessions, underlay and overlay (the first by name among equals), and the first
    leaf by name."""
    spines = sorted((c for c in ctxs.values() if c['role'] == 'spine'), key=lambda c: c['hostname'])
    leaves = sorted((c for c in ctxs.values() if c['role'] == 'leaf'), key=lambda c: c['hostname'])
    return max(spines, key=lambda c: len(c['bgp']['neighbors']) + len(c['bgp']['evpn_peers'])), leaves[0]


@pytest.mark.slow
@pytest.mark.parametrize('underlay', UNDERLAYS)
def test_size_l_accepted_by_frr(underlay):
    """L as XL: its largest spine and a leaf, per underlay (every switch would be 72 dry runs per underlay)."""
    ctxs = _contexts('size-l', underlay)
    assert len(ctxs) == SIZE_L['spine_count'] + SIZE_L['leaf_count']
    spine, leaf = largest_spine_and_a_leaf(ctxs)
    assert spine['fabric']['underlay'] == leaf['fabric']['underlay'] == underlay
    assert (spine['ospf'] is not None) == (leaf['ospf'] is not None) == (underlay == 'ospf')
    # an eBGP underlay session per leaf uplink (none with OSPF), and the EVPN overlay to every leaf in both
    underlay_sessions = SIZE_L['leaf_count'] * SIZE_L['uplinks_per_spine'] if underlay == 'ebgp' else 0
    assert len(spine['bgp']['neighbors']) == underlay_sessions
    assert len(spine['bgp']['evpn_peers']) == SIZE_L['leaf_count']
    assert_frr_accepts(render(FRR, spine))
    assert_frr_accepts(render(FRR, leaf))


@pytest.mark.slow
def test_size_xl_accepted_by_frr():
    """One test for both switches: planning XL is most of its time (about 3 minutes on the shared machine)."""
    ctxs = _contexts('size-xl', 'ebgp')
    spine, leaf = ctxs['spine1'], ctxs['leaf1']
    assert len(spine['bgp']['neighbors']) == 512  # more underlay sessions than FRR's documented maximum-paths
    spine_text = render(FRR, spine)
    assert '  maximum-paths 128' in spine_text.splitlines()
    assert_frr_accepts(spine_text)
    assert_frr_accepts(render(FRR, leaf))
