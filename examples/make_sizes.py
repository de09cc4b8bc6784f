"""Generate the benchmark fabric specs ``examples/size-{m,l,xl}.yaml``.

Every size is the guide's EVPN/VXLAN design (``examples/guide-evpn-vxlan.yaml``) scaled up:

* ``evpn-vxlan`` over an eBGP underlay; one spine ASN, one leaf ASN per MLAG pair (range start + primary id − 1);
* leaves in MLAG pairs (1, 2), (3, 4), …; the maximums equal the sizes, one uplink per leaf and spine;
* servers 1..N in contiguous id blocks per pair (pair k gets ids (k − 1)·n + 1 … k·n with n = N / pairs, and
  ``maximums.servers_per_leaf`` = n, so server id → port is one-to-one on each leaf); each server has 2 × 25G bonded
  NICs to its pair and 1 × 100G RDMA NIC (on one leaf of the pair, alternating by id);
* the guide's five traffic classes (VLANs 10–50) and its one tenant (VLANs 20, 30, 40);
* pools from 10.0.0.0/8 that do not overlap, each sized from ``planner.requirements.pool_needs`` to the smallest
  prefix that holds what the maximums need; traffic-class subnets 10.<vlan>.0.0 sized to hold every server;
* leaf and spine platforms with exactly the ports the maximums need (server, RDMA, uplink and peer-link ports).

Run ``.venv/bin/python examples/make_sizes.py`` (or with size names, e.g. ``m xl``) to rewrite the files; the output is
deterministic. Each node is one flow-style line, as in the guide, to keep the files compact.
"""

import json
import math
import sys
from pathlib import Path

import yaml

from netbox_aifabric.planner.requirements import asn_need, pool_needs

HERE = Path(__file__).resolve().parent

# name: (spines, leaves, servers)
SIZES = {'m': (4, 16, 128), 'l': (8, 64, 1024), 'xl': (64, 512, 16_384)}

SPINE_ASN = 65000  # leaf ASNs follow it: 65001 … 65000 + max leaves (≤ 65512 for XL: still 16-bit private)
POOL_BASES = {'loopback': '10.0.0.0', 'vtep': '10.1.0.0', 'mlag_peer': '10.2.0.0', 'p2p': '10.4.0.0'}
TRAFFIC_CLASSES = (  # the guide's five classes; their subnets are 10.<vlan>.0.0/<sized to the server count>
    {'name': 'MGMT', 'vlan': 10, 'vrf': 'MGMT'},
    {'name': 'USERS', 'vlan': 20},
    {'name': 'STORAGE', 'vlan': 30},
    {'name': 'RDMA', 'vlan': 40, 'lossless': True, 'mtu': 9000},
    {'name': 'TELEMETRY', 'vlan': 50, 'vrf': 'MGMT'},
)
TENANT = {'name': 'ai-cluster', 'vrf': 'AI-CLUSTER', 'l3vni': 50001, 'vlans': [20, 30, 40]}
SERVER_SPEED, RDMA_SPEED, FABRIC_SPEED = 25, 100, 400


def _prefixlen(blocks: int, block_prefixlen: int) -> int:
    """The longest prefix that holds ``blocks`` blocks of ``/block_prefixlen``."""
    return block_prefixlen - math.ceil(math.log2(max(blocks, 1)))


def build_spec(size: str) -> dict:
    """The spec (plain data, as ``load_spec`` takes it) of one size: ``m``, ``l`` or ``xl``."""
    n_spines, n_leaves, n_servers = SIZES[size]
    pairs = n_leaves // 2
    per_pair = n_servers // pairs
    assert n_leaves % 2 == 0 and n_servers % pairs == 0, 'servers must spread evenly over the pairs'
    needs = pool_needs(n_spines, n_leaves, 1)
    pools = {name: f'{base}/{_prefixlen(needs[name].span, needs[name].prefixlen)}' for name, base in POOL_BASES.items()}
    # Every server plus the network, broadcast and gateway addresses
    subnet_len = _prefixlen(n_servers + 3, 32)
    traffic_classes = []
    for tc in TRAFFIC_CLASSES:
        name, vlan, *rest = tc.items()
        traffic_classes.append(dict([name, vlan, ('subnet', f'10.{tc["vlan"]}.0.0/{subnet_len}'), *rest]))
    server_first, rdma_first, uplink_first = 1, per_pair + 1, 2 * per_pair + 1
    peer_first = uplink_first + n_spines
    return {
        'name': f'size-{size}',
        'design': 'evpn-vxlan',
        'underlay': 'ebgp',
        'maximums': {'spines': n_spines, 'leaves': n_leaves, 'parallel_uplinks': 1, 'servers_per_leaf': per_pair},
        'uplinks_per_spine': 1,
        'pools': pools,
        'spine_asn': SPINE_ASN,
        'leaf_asn_range': [SPINE_ASN + 1, SPINE_ASN + asn_need(n_leaves)],
        'l2vni_base': 10000,
        'anycast_gateway_mac': '02:00:00:00:00:aa',
        'spines': [{'id': i, 'name': f'spine{i}'} for i in range(1, n_spines + 1)],
        'leaves': [{'id': i, 'name': f'leaf{i}'} for i in range(1, n_leaves + 1)],
        'mlag_pairs': [[2 * k - 1, 2 * k] for k in range(1, pairs + 1)],
        'nics': {'count': 2, 'speed': SERVER_SPEED, 'rdma_count': 1, 'rdma_speed': RDMA_SPEED},
        'servers': [
            {'id': i, 'name': f'gpu{i}', 'leaves': [2 * k - 1, 2 * k]}
            for k in range(1, pairs + 1)
            for i in range((k - 1) * per_pair + 1, k * per_pair + 1)
        ],
        'traffic_classes': traffic_classes,
        'tenants': [TENANT],
        'leaf_platform': {
            'name': f'{per_pair}x{SERVER_SPEED}G+{per_pair}x{RDMA_SPEED}G+{n_spines + 2}x{FABRIC_SPEED}G leaf',
            'interface': 'Ethernet{port}',
            'server_ports': {'first': server_first, 'count': per_pair, 'speed': SERVER_SPEED},
            'rdma_ports': {'first': rdma_first, 'count': per_pair, 'speed': RDMA_SPEED},
            'uplink_ports': {'first': uplink_first, 'count': n_spines, 'speed': FABRIC_SPEED},
            'peer_link_ports': [peer_first, peer_first + 1],
            'peer_link_speed': FABRIC_SPEED,
        },
        'spine_platform': {
            'name': f'{n_leaves}x{FABRIC_SPEED}G spine',
            'interface': 'Ethernet{port}',
            'downlink_ports': {'first': 1, 'count': n_leaves, 'speed': FABRIC_SPEED},
        },
    }


def _scalar(value) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return '[' + ', '.join(_scalar(v) for v in value) + ']'
    if isinstance(value, dict):
        return '{' + ', '.join(f'{k}: {_scalar(v)}' for k, v in value.items()) + '}'
    text = str(value)
    # Plain when YAML reads it back as this very string inside a flow collection, else double-quoted
    if not any(c in text for c in '{}[],":') and yaml.safe_load(f'[{text}]') == [text]:
        return text
    return json.dumps(text, ensure_ascii=False)


def to_yaml(spec: dict, title: str) -> str:
    """The spec as YAML: top-level keys in block style, one flow-style line per node, server or class."""
    lines = [f'# {line}' if line else '#' for line in title.splitlines()]
    for key, value in spec.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f'{key}:')
            lines.extend(f'  - {_scalar(item)}' for item in value)
        elif isinstance(value, dict) and key.endswith('_platform'):
            lines.append(f'{key}:')
            lines.extend(f'  {k}: {_scalar(v)}' for k, v in value.items())
        else:
            lines.append(f'{key}: {_scalar(value)}')
    return '\n'.join(lines) + '\n'


def main(argv: list[str]) -> int:
    for size in argv or list(SIZES):
        n_spines, n_leaves, n_servers = SIZES[size]
        title = (
            f'Benchmark size {size.upper()}: {n_spines} spines × {n_leaves} leaves (MLAG pairs) × {n_servers:,} '
            'servers,\nthe guide-evpn-vxlan design scaled up. Generated by examples/make_sizes.py; do not edit.'
        )
        path = HERE / f'size-{size}.yaml'
        path.write_text(to_yaml(build_spec(size), title), encoding='utf-8')
        print(f'wrote {path.relative_to(HERE.parent)}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
