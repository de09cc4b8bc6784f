"""The guide's 4-node cluster, pinned to a reviewed allocation table per design option (golden files)."""

import json
import os
import subprocess
import sys

import pytest

from netbox_aifabric.intake.cli import format_table
from netbox_aifabric.planner import load_spec, plan_fabric
from tests.unit.planner.helpers import GUIDES, ROOT, example

pytestmark = pytest.mark.pure
GOLDEN = ROOT / 'tests' / 'unit' / 'planner' / 'golden'


@pytest.mark.parametrize('design', GUIDES)
def test_guide_cluster_allocation_table(design):
    text = format_table(plan_fabric(load_spec(example(design))))
    path = GOLDEN / f'guide-{design}.txt'
    if os.environ.get('UPDATE_GOLDEN'):
        path.write_text(text)
    assert text == path.read_text()


def one_nic_guide():
    """The guide's MLAG cluster with one 25G NIC per server (no bond) and the BMCs on the leaves' 1G ports: each
    server lists the pair, its NIC, RDMA NIC and BMC land on one leaf, odd ids on leaf1 and even ids on leaf2."""
    spec = example('mlag')
    spec['nics']['count'] = 1
    spec['bmc'] = 'leaf'
    spec['leaf_platform']['bmc_ports'] = {'first': 100, 'count': 16, 'speed': 1}
    return spec


def test_one_nic_servers_allocation_table():
    text = format_table(plan_fabric(load_spec(one_nic_guide())))
    path = GOLDEN / 'guide-mlag-one-nic.txt'
    if os.environ.get('UPDATE_GOLDEN'):
        path.write_text(text)
    assert text == path.read_text()


# Plans every guide design and prints them as one JSON object, in a fresh interpreter
PLAN_IN_SUBPROCESS = """
import json, sys
import yaml
from netbox_aifabric.planner import load_spec, plan_fabric
specs = {d: yaml.safe_load(open(f'examples/guide-{d}.yaml')) for d in sys.argv[1:]}
print(json.dumps({d: plan_fabric(load_spec(spec)).to_dict() for d, spec in specs.items()}))
"""


def test_same_spec_same_plan_byte_for_byte_across_processes():
    """The same spec gives the same plan in another process, with another string-hash seed: a plan that depended on
    the iteration order of a set or a dict of strings (or on anything else per process) would differ here; two runs in
    one process would not see it."""
    mine = json.dumps({d: plan_fabric(load_spec(example(d))).to_dict() for d in GUIDES}) + '\n'
    texts = []
    for seed in ('1', '2'):
        env = {**os.environ, 'PYTHONHASHSEED': seed}
        result = subprocess.run(
            [sys.executable, '-c', PLAN_IN_SUBPROCESS, *GUIDES], capture_output=True, text=True, cwd=ROOT, env=env
        )
        assert result.returncode == 0, result.stderr
        texts.append(result.stdout)
    assert texts == [mine, mine]


def test_guide_evpn_key_allocations():
    plan = plan_fabric(load_spec(example('evpn-vxlan')))
    nodes = {n.name: n for n in plan.nodes}
    assert (nodes['spine1'].loopback, nodes['spine2'].loopback) == ('10.255.0.1/32', '10.255.0.2/32')
    # leaves are numbered after the declared maximum of 4 spines, whatever the current spine count
    assert (nodes['leaf1'].loopback, nodes['leaf2'].loopback) == ('10.255.0.5/32', '10.255.0.6/32')
    # an MLAG pair shares the primary's VTEP and ASN
    assert nodes['leaf1'].vtep == nodes['leaf2'].vtep == '10.255.1.1/32'
    assert nodes['leaf1'].asn == nodes['leaf2'].asn == 65101
    uplinks = {(lk.a_node, lk.b_node): lk for lk in plan.links if lk.kind == 'uplink'}
    # /31 index = (leaf − 1) × max_spines × max_parallel_uplinks + (spine − 1) × max_parallel_uplinks + (n − 1)
    assert uplinks['spine2', 'leaf2'].subnet == '10.255.2.20/31'
    assert (uplinks['spine2', 'leaf2'].a_address, uplinks['spine2', 'leaf2'].b_address) == (
        '10.255.2.20/31',
        '10.255.2.21/31',
    )
    assert [v.l2vni for v in plan.vlans] == [10010, 10020, 10030, 10040, 10050]
    assert plan.vrfs[0].route_distinguishers == (('leaf1', '10.255.0.5:50001'), ('leaf2', '10.255.0.6:50001'))
    assert [(c.leaf, c.downlink, c.uplink, c.ratio) for c in plan.capacity] == [
        ('leaf1', 425, 200, 2.12),
        ('leaf2', 325, 200, 1.62),
    ]
