"""Fuzzing the inputs: whatever a spec file, a spec or a previous plan holds, the answer is a plan or a named error
(:class:`PlanError`; exit status 2 from the CLI), never a traceback."""

import contextlib
import copy
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.intake.cli import main, render
from netbox_aifabric.planner import Plan, PlanError, load_spec, plan_fabric
from netbox_aifabric.planner.loader import FIELDS
from netbox_aifabric.planner.previous import KNOWN_KINDS, check_previous
from netbox_aifabric.planner.warnings import spec_warnings
from tests.hypothesis_profiles import examples
from tests.unit.planner.helpers import EXAMPLES, GUIDES, example

pytestmark = pytest.mark.pure
FUZZ = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON_LIKE = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
# Values near the edges the checks draw: counts, VLANs, VNIs, ASNs, MTUs, prefixes, name templates
# fmt: off
EDGE_VALUES = st.sampled_from([
    0, -1, 1, 2, 3, 48, 4094, 4095, 9216, 9217, 23456, 64496, 65535, 65536, 65551, 16_777_216, 2**32, 2**32 - 1,
    '', ' ', 'mlag', 'routed', 'evpn-vxlan', 'ospf', 'gpu', 'storage', '10.255.0.0/24', '10.255.0.1/24',
    '10.255.0.0/31', '10.255.0.0/32', '0.0.0.0/0', '2001:db8::/64', '2001:db8::/127', '192.0.2.0/24',
    '02:00:00:00:00:aa', 'oob', 'leaf', 'management', 'telemetry', '172.16.0.0/24', '172.16.0.1',
    'Ethernet{port}', 'Ethernet{}', '{port:>3}', '{number}', '{port.real}', [], {}, [1, 2],
    [[1, 2]], [1, 1], {'first': 1, 'count': 0, 'speed': 100}, {'id': 1, 'name': 'leaf1'},
])
# Pieces of YAML syntax, tags PyYAML constructs (binary, set, omap, timestamp), characters YAML refuses
YAML_TOKENS = st.sampled_from([
    'name: ', 'design: ', 'maximums: ', 'pools: ', 'mlag', '\n', '  ', '- ', ': ', '{', '}', '[', ']', ', ', '"', "'",
    '&a ', '*a', '<<: ', '!!binary ', '!!set ', '!!omap ', '!!timestamp ', '? ', '# ', '1', '-1', '1e999',
    '2024-13-01', 'null', '~', '\t', '\x00', '\x85', '\ufeff', '\ud7ff', 'é', '---\n', '...\n', '%YAML 1.1\n',
])
# fmt: on


EXAMPLE_FILES = [
    *(path.read_bytes() for path in sorted(EXAMPLES.glob('guide-*.yaml'))),
    *(json.dumps(example(design), indent=1).encode() for design in GUIDES),
]


def spliced(raw, edits):
    """``raw`` with each (position, bytes, length) edit: ``length`` bytes at ``position`` replaced by ``bytes``."""
    for position, insert, length in edits:
        position %= len(raw) + 1
        raw = raw[:position] + insert + raw[position + length :]
    return raw


CORRUPTED_EXAMPLES = st.builds(
    spliced,
    st.sampled_from(EXAMPLE_FILES),
    st.lists(
        st.tuples(
            st.integers(0, 3000),
            st.binary(max_size=3) | YAML_TOKENS.map(lambda t: t.encode('utf-8', 'surrogatepass')),
            st.integers(0, 3),
        ),
        max_size=4,
    ),
)


@pytest.fixture(scope='module')
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp('fuzz')


@FUZZ
@given(
    raw=st.binary(max_size=300)
    | CORRUPTED_EXAMPLES
    | st.text(max_size=200).map(str.encode)
    | st.lists(YAML_TOKENS, max_size=40).map(''.join).map(lambda t: t.encode('utf-8', 'surrogatepass')),
    suffix=st.sampled_from(['.yaml', '.json']),
)
def test_any_bytes_as_the_spec_file(workdir, raw, suffix):
    spec, output = workdir / f'spec{suffix}', workdir / 'plan.txt'
    spec.write_bytes(raw)
    output.unlink(missing_ok=True)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(['plan', str(spec), '-o', str(output)])
    assert out.getvalue() == ''
    if status == 0:  # a corrupted example can still be a valid spec
        assert output.exists()
        assert all(line.startswith('netbox-aifabric: warning: ') for line in err.getvalue().splitlines())
        return
    assert status in (1, 2)
    assert not output.exists()
    (line,) = err.getvalue().splitlines()
    assert line.startswith('netbox-aifabric: error: ' if status == 2 else 'netbox-aifabric: cannot read input: ')


def plans_or_refuses(data, previous=None, release=False):
    """A plan (that renders) or a PlanError; anything else fails the test with its traceback."""
    try:
        spec = load_spec(data)
        plan = plan_fabric(spec, previous=check_previous(previous), release=release)
    except PlanError as e:
        assert e.field and isinstance(e.field, str) and e.message
        return None
    assert isinstance(plan, Plan)
    spec_warnings(spec)
    render(plan, 'table')
    render(plan, 'json')
    return plan


@FUZZ
@given(data=JSON_LIKE | st.dictionaries(st.sampled_from(sorted(FIELDS)), JSON_LIKE | EDGE_VALUES, max_size=8))
def test_any_json_value_as_the_spec(data):
    plans_or_refuses(data)


def paths(value):
    """Every (container, key) pair inside ``value``, depth first."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield value, key
        yield from paths(child)


@st.composite
def mutated(draw, document):
    """A copy of ``document`` with 1–3 random values replaced (by any JSON value or an edge value) or deleted."""
    document = copy.deepcopy(document)  # hypothesis replays a strategy: the original must stay as it was
    for _ in range(draw(st.integers(1, 3))):
        places = list(paths(document))
        if not places:
            break
        container, key = draw(st.sampled_from(places))
        if draw(st.integers(0, 3)) == 0:
            del container[key]
        else:
            container[key] = copy.deepcopy(draw(EDGE_VALUES | JSON_LIKE))  # edge values are shared objects
    return document


def port_inventory_spec():
    """The routed guide with the keys no example carries: explicit port names with further speeds, peer-link names,
    a block's own name pattern, a rack prefix length and an oversubscription target."""
    spec = example('routed')
    spec['oversubscription_target'] = 2.5
    spec['traffic_classes'][1]['rack_prefixlen'] = 26
    platform = spec['leaf_platform']
    platform['uplink_ports'] = {'names': [f'Ethernet{65 + i}/1' for i in range(8)], 'speed': 100, 'speeds': [40]}
    platform['server_ports']['interface'] = 'Ethernet{port:02d}'
    platform['peer_link_names'] = [f'Ethernet{port}' for port in platform.pop('peer_link_ports')]
    return spec


def management_spec():
    """The EVPN guide with the management keys no example carries: a gateway of its own, BMC ports on the leaves."""
    spec = example('evpn-vxlan')
    spec['management_gateway'] = '172.16.0.100'
    spec['bmc'] = 'leaf'
    spec['nics']['bmc_speed'] = 1
    spec['leaf_platform']['bmc_ports'] = {'first': 101, 'count': 48, 'speed': 1}
    return spec


# the shipped examples (three designs and EVPN multihoming), the port-inventory and the management variants
FUZZ_SPECS = {
    **{name: example(name) for name in GUIDES},
    'port-inventory': port_inventory_spec(),
    'management': management_spec(),
}


@FUZZ
@given(data=st.data(), name=st.sampled_from(sorted(FUZZ_SPECS)))
def test_mutated_example_specs(data, name):
    plans_or_refuses(data.draw(mutated(FUZZ_SPECS[name])))


def test_the_fuzzed_specs_plan():
    """The starting points are valid: the mutations, not the originals, are refused."""
    assert all(plans_or_refuses(spec) is not None for spec in FUZZ_SPECS.values())


PLANS = {name: plan_fabric(load_spec(spec)).to_dict() for name, spec in FUZZ_SPECS.items()}
ALLOCATION_KEYS = st.builds(
    '{}:{}'.format, st.sampled_from([*KNOWN_KINDS, 'gateway', '']), st.sampled_from(['leaf:1', 'spine:2', ''])
)


@st.composite
def mutated_previous(draw):
    """A real plan (or its bare allocations) with keys deleted, added or given other values; or no plan at all."""
    previous = PLANS[draw(st.sampled_from(sorted(PLANS)))]
    allocations = dict(previous['allocations'])
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(JSON_LIKE)
    if choice == 1:
        return {**previous, 'allocations': draw(JSON_LIKE)}
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(sorted(previous['allocations'])) | ALLOCATION_KEYS)
        if draw(st.booleans()) and key in allocations:
            del allocations[key]
        else:
            allocations[key] = draw(
                st.sampled_from(sorted(set(previous['allocations'].values()))) | EDGE_VALUES | JSON_LIKE
            )
    return {**previous, 'allocations': allocations} if draw(st.booleans()) else allocations


@FUZZ
@given(previous=mutated_previous(), name=st.sampled_from(sorted(FUZZ_SPECS)), release=st.booleans())
def test_mutated_previous_plans(previous, name, release):
    plans_or_refuses(copy.deepcopy(FUZZ_SPECS[name]), previous, release)
