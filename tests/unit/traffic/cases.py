"""The golden cases: the guide's cluster in each design and fabric M, each with the traffic inventory the guide
describes (see ``golden/README.md``), and how a case is summarised into its reviewed JSON file."""

import copy
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from netbox_aifabric.facts.security import allowed
from netbox_aifabric.planner import load_spec, plan_fabric
from netbox_aifabric.planner.bom import bill_of_materials
from netbox_aifabric.planner.result import Plan
from netbox_aifabric.planner.traffic import Flow, TrafficResult, traffic_matrix

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / 'golden'

# The guide's inventory: distributed training east-west (RDMA, lossless, bursty), dataset reads and checkpoints
# (STORAGE), users copying datasets (USERS into STORAGE: the example specs list no reachability, so the security
# matrix forbids it and the golden shows the warning), and in M (GPU servers only) users reaching the GPU nodes.
GUIDE_FLOWS = (
    Flow('gpu', 'gpu', 50, 'bursty', 'RDMA', 'RDMA', 'training'),
    Flow('storage', 'gpu', 20, 'sustained', 'STORAGE', 'STORAGE', 'dataset reads'),
    Flow('gpu', 'storage', 5, 'sustained', 'STORAGE', 'STORAGE', 'checkpoints'),
    Flow('gpu', 'storage', 1, 'bursty', 'USERS', 'STORAGE', 'user copies'),
)
M_FLOWS = (
    Flow('gpu', 'gpu', 50, 'bursty', 'RDMA', 'RDMA', 'training'),
    Flow('all', 'gpu', 2, 'sustained', 'USERS', 'USERS', 'notebooks'),
)
CASES = {
    'guide-mlag': ('examples/guide-mlag.yaml', GUIDE_FLOWS),
    'guide-routed': ('examples/guide-routed.yaml', GUIDE_FLOWS),
    'guide-evpn-vxlan': ('examples/guide-evpn-vxlan.yaml', GUIDE_FLOWS),
    'size-m': ('examples/size-m.yaml', M_FLOWS),
}
SUMMED_KINDS = ('server-port',)  # too many to review one by one in M: kept as count, sums and the busiest


def spec_of(case: str) -> dict[str, Any]:
    """The case's spec as plain data (a fresh copy)."""
    return copy.deepcopy(_SPECS[case])


def plan_of(case: str) -> Plan:
    """The case's plan."""
    return plan_fabric(load_spec(spec_of(case)))


def allowed_pairs(spec: dict[str, Any]) -> frozenset[tuple[str, str]]:
    """The spec's security matrix by the rendered rule (``facts/security.allowed``)."""
    classes = [
        {'name': c['name'], 'reachability': c.get('reachability'), 'reachable_from': c.get('reachable_from', ())}
        for c in spec['traffic_classes']
    ]
    return frozenset((a['name'], b['name']) for a in classes for b in classes if allowed(a, b))


@cache  # a TrafficResult is frozen; size-m's matrix (a few seconds) is read by three tests
def matrix_of(case: str) -> TrafficResult:
    """The case's flows laid on its plan, against its security matrix."""
    return traffic_matrix(plan_of(case), CASES[case][1], allowed_pairs(spec_of(case)))


def _summary(loads: Iterable[dict[str, Any]]) -> dict[str, Any]:
    loads = list(loads)
    return {
        'count': len(loads),
        'up': round(sum(x['up'] for x in loads), 6),
        'down': round(sum(x['down'] for x in loads), 6),
        'busiest': max(loads, key=lambda x: (x['peak'], x['element']))['element'] if loads else None,
    }


def golden_of(case: str) -> dict[str, Any]:
    """What the golden file of ``case`` holds: the BOM (defaults: 10 % spares, default reach) and the matrix."""
    matrix = matrix_of(case).to_dict()
    loads = matrix['loads']
    return {
        'spec': CASES[case][0],
        'bom': bill_of_materials(plan_of(case)).to_dict(),
        'matrix': {
            'flows': matrix['flows'],
            'loads': [x for x in loads if x['kind'] not in SUMMED_KINDS],
            'summed': {kind: _summary(x for x in loads if x['kind'] == kind) for kind in SUMMED_KINDS},
            'warnings': matrix['warnings'],
        },
    }


_SPECS = {case: yaml.safe_load((ROOT / path).read_text()) for case, (path, _) in CASES.items()}
