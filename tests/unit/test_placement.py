"""Balanced placement of new servers over the leaf pairs (models/nodes.py ``place_servers``): new servers
go to the pair with room that carries the fewest, stored ones never move; checked on plain node stand-ins (no
database), against a brute-force oracle of the documented rule."""

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netbox_aifabric.models.nodes import GPU_SERVERS_PER_PAIR, place_servers, server_slot
from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.pure


def node(role, node_id, pair=None, stored=False):
    group = 'leaf' if role == 'leaf' else role
    return SimpleNamespace(role=role, group=group, node_id=node_id, pair=pair, pk=node_id if stored else None)


def leaves(pairs):
    return [node('leaf', i, (i + 1) // 2, stored=True) for i in range(1, 2 * pairs + 1)]


def test_growth_from_one_pair_to_two_puts_the_new_servers_on_the_new_pair():
    stored = [node('gpu', k, 1, stored=True) for k in range(1, 5)] + [node('storage', 1, 1, stored=True)]
    new = [node('gpu', k) for k in range(5, 9)]
    place_servers([*leaves(2), *stored, *new])
    assert [n.pair for n in stored] == [1] * 5  # never moved
    assert [n.pair for n in new] == [2, 2, 2, 2]


def test_a_new_fabric_spreads_its_servers_and_a_full_pair_takes_no_more():
    new = [node('gpu', k) for k in range(1, 9)]
    place_servers([*leaves(2), *new])
    assert [n.pair for n in new] == [1, 2, 1, 2, 1, 2, 1, 2]
    full = [node('gpu', k, 1, stored=True) for k in range(1, GPU_SERVERS_PER_PAIR + 1)]
    extra = [node('gpu', GPU_SERVERS_PER_PAIR + 1)]
    place_servers([*leaves(1), *full, *extra])
    assert extra[0].pair is None  # no pair with room: the default stays, the planner names the full leaf


def oracle(nodes):
    """The documented rule, one node at a time, by brute force."""
    racks = sorted({n.pair for n in nodes if n.group == 'leaf'})
    placed = [(n.pair, n.group, server_slot(n)) for n in nodes if n.group != 'leaf' and n.pk is not None]
    out = {}
    for group in ('gpu', 'storage'):
        for n in (n for n in nodes if n.group == group and n.pk is None):
            limit = GPU_SERVERS_PER_PAIR if group == 'gpu' else 8
            room = [
                r
                for r in racks
                if (r, group, server_slot(n)) not in placed and sum(1 for p in placed if p[:2] == (r, group)) < limit
            ]
            if room:
                rack = min(room, key=lambda r: (sum(1 for p in placed if p[0] == r), r))
                placed.append((rack, group, server_slot(n)))
                out[group, n.node_id] = rack
    return out


@settings(max_examples=examples(60), deadline=None)
@given(
    st.integers(1, 4),
    st.lists(st.tuples(st.sampled_from(['gpu', 'storage']), st.integers(1, 90), st.booleans()), max_size=40),
)
def test_placement_matches_the_rule_and_never_moves_a_stored_node(pairs, wanted):
    seen, nodes = set(), leaves(pairs)
    for role, node_id, stored in wanted:
        if (role, node_id) not in seen:
            seen.add((role, node_id))
            nodes.append(node(role, node_id, (node_id % pairs) + 1 if stored else None, stored))
    before = {(n.group, n.node_id): n.pair for n in nodes if n.pk is not None}
    expected = oracle(nodes)
    place_servers(nodes)
    assert {(n.group, n.node_id): n.pair for n in nodes if n.pk is not None} == before
    got = {(n.group, n.node_id): n.pair for n in nodes if n.pk is None and n.group != 'leaf' and n.pair is not None}
    assert got == expected
