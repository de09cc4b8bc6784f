"""``netbox-aifabric``: plan a fabric from a spec file, with no NetBox server and no database.

    netbox-aifabric plan SPEC.yaml [--previous PLAN.json] [--release] [--format table|json|yaml] [-o FILE]

Exit status: 0 with the plan; 2 with one line ``netbox-aifabric: error: <field>: <message>`` when an input's content
is wrong (not UTF-8, not YAML/JSON, a key written twice, an invalid spec or previous plan); 1 when a file cannot be
opened or written.
"""

import argparse
import io
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import asdict, astuple, fields, is_dataclass
from typing import TextIO

import yaml

from netbox_aifabric.planner import PlanError, SpecError, load_spec, plan_fabric
from netbox_aifabric.planner.previous import check_previous

__all__ = ('format_table', 'main', 'render', 'write_plan')


def _table(title, header, rows):
    rows = [['' if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = [f'{title} ({len(rows)})', '  '.join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append('  '.join('-' * w for w in widths))
    lines.extend('  '.join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in rows)
    return '\n'.join(lines)


def format_table(plan) -> str:
    """The plan as readable allocation tables."""
    sections = [
        f'Fabric {plan.fabric}: {plan.design}, {plan.underlay} underlay',
        _table(
            'Nodes',
            ('role', 'id', 'name', 'asn', 'loopback', 'vtep', 'mlag peer', 'mlag role', 'mh peer', 'management'),
            [
                (n.role, n.id, n.name, n.asn, n.loopback, n.vtep, n.mlag_peer, n.mlag_role, n.mh_peer, n.management)
                for n in plan.nodes
            ],
        ),
        _table(
            'Links',
            ('kind', 'a node', 'a interface', 'b node', 'b interface', 'speed', 'subnet', 'a address', 'b address'),
            [
                (
                    lk.kind,
                    lk.a_node,
                    lk.a_interface,
                    lk.b_node,
                    lk.b_interface,
                    f'{lk.speed}G',
                    lk.subnet,
                    lk.a_address,
                    lk.b_address,
                )
                for lk in plan.links
            ],
        ),
        _table(
            'Server attachments',
            ('server', 'kind', 'lag', 'members', 'rdma', 'vlans', 'esi'),
            [
                (
                    a.server,
                    a.kind,
                    a.lag,
                    ' '.join(f'{n}:{i}' for n, i in a.members),
                    ' '.join(f'{n}:{i}' for n, i in a.rdma),
                    ','.join(str(v) for v in a.vlans),
                    a.esi,
                )
                for a in plan.attachments
            ],
        ),
        _table(
            'VLANs',
            ('vlan', 'name', 'vrf', 'l2vni', 'tenant', 'subnet', 'gateway', 'lossless'),
            [
                (
                    v.vid,
                    v.name,
                    v.vrf,
                    v.l2vni,
                    v.tenant,
                    v.subnet,
                    v.gateway if v.routed else 'not routed',
                    'yes' if v.lossless else '',
                )
                for v in plan.vlans
            ],
        ),
        _table(
            'Rack subnets',
            ('vlan', 'name', 'rack', 'leaves', 'subnet', 'gateway'),
            [(v.vid, v.name, r.rack, ' '.join(r.leaves), r.subnet, r.gateway) for v in plan.vlans for r in v.racks],
        ),
        _table(
            'Switch addresses',
            ('vlan', 'name', 'leaf', 'address'),
            [(v.vid, v.name, leaf, address) for v in plan.vlans for leaf, address in v.switch_addresses],
        ),
        _table(
            'VRFs',
            ('vrf', 'tenant', 'l3vni', 'route target', 'anycast gateway mac'),
            [(v.name, v.tenant, v.l3vni, v.route_target, v.anycast_gateway_mac) for v in plan.vrfs],
        ),
        _table(
            'Leaf capacity',
            ('leaf', 'downlink', 'uplink', 'oversubscription'),
            [
                (c.leaf, f'{c.downlink}G', f'{c.uplink}G', f'{c.ratio}:1' if c.ratio is not None else 'no uplinks')
                for c in plan.capacity
            ],
        ),
        _table(
            'Pools',
            ('pool', 'prefix', 'unit', 'size', 'used', 'free', 'used %'),
            [(p.name, p.prefix, p.unit, p.size, p.used, p.free, p.percent) for p in plan.pools],
        ),
        _table('Summary', ('item', 'count'), plan.summary),
    ]
    if plan.warnings:
        sections.append(_table('Warnings', ('code', 'field', 'message'), [astuple(w) for w in plan.warnings]))
    if plan.reserved:
        sections.append(
            _table('Reserved (removed nodes; --release frees them)', ('allocation',), [(k,) for k in plan.reserved])
        )
    return '\n\n'.join(sections) + '\n'


CHUNK_PIECES = 4096  # the JSON encoder's pieces joined per write: few writes, no whole-plan string


def render(plan, fmt: str) -> str:
    """The plan as one string (``write_plan`` streams the same text)."""
    out = io.StringIO()
    write_plan(plan, fmt, out)
    return out.getvalue()


def _plain(value):
    """A field of the plan as JSON-ready data, as ``Plan.to_dict`` converts it (dataclasses to dicts, tuples of
    pairs for ``summary`` and ``allocations`` to mappings by the caller)."""
    if is_dataclass(value):
        return asdict(value)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _json_pieces(plan) -> Iterator[str]:
    """``json.dumps(plan.to_dict(), indent=2)`` in pieces, converting one field at a time (``test_cli_stream.py``
    holds the two texts equal)."""
    encoder = json.JSONEncoder(indent=2)
    names = [f.name for f in fields(plan) if not (f.name == 'oob' and plan.oob is None)]
    yield '{'
    for n, name in enumerate(names):
        value = getattr(plan, name)
        data = dict(value) if name in ('summary', 'allocations') else _plain(value)
        yield ('\n  ' if n == 0 else ',\n  ') + json.dumps(name) + ': '
        # the field encoded one level deep: its own lines indented by two more spaces
        for piece in encoder.iterencode(data):
            yield piece.replace('\n', '\n  ')
        del data
    yield '\n}\n'


def _write_pieces(pieces: Iterable[str], out: TextIO) -> None:
    batch: list[str] = []
    for piece in pieces:
        batch.append(piece)
        if len(batch) == CHUNK_PIECES:
            out.write(''.join(batch))
            batch.clear()
    out.write(''.join(batch))


def write_plan(plan, fmt: str, out: TextIO) -> None:
    """Write the plan to ``out`` as it is encoded, one top-level field at a time: at XL the JSON text is 55 MB, which
    as one string, with ``to_dict``'s copy of the whole plan behind it, was most of the CLI's peak memory."""
    if fmt == 'json':
        _write_pieces(_json_pieces(plan), out)
    elif fmt == 'yaml':
        yaml.safe_dump(plan.to_dict(), out, sort_keys=False, width=120)  # PyYAML's emitter writes as it goes
    else:
        out.write(format_table(plan))


# libyaml's parser when PyYAML has it: a 16,384-server spec loads in a fraction of the pure-Python time
_YAML_BASE = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
MERGE_TAG = 'tag:yaml.org,2002:merge'
# libyaml's composer recurses in C, without Python's recursion limit: nesting tens of thousands of levels deep
# overflows the stack (a segfault), so the nesting is measured first. A spec nests 4 levels, a plan 5.
MAX_DEPTH = 100
LINE_BREAKS = str.maketrans({c: repr(c)[1:-1] for c in '\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029'})


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping with the same key twice (YAML itself forbids it; PyYAML keeps the last value silently)."""

    def __init__(self, key, mapping, first, second):
        super().__init__(None, None, f'key {key!r} is written twice', second.start_mark)
        self.key, self.mapping = key, mapping
        (line, column), (line2, column2) = ((k.start_mark.line + 1, k.start_mark.column + 1) for k in (first, second))
        self.where = f'lines {line} and {line2}' if line != line2 else f'line {line}, columns {column} and {column2}'


class UniqueKeyLoader(_YAML_BASE):
    """The safe loader, refusing duplicate keys and reporting bad values (a date like 2024-13-01, an integer of
    thousands of digits) as YAML errors with their line instead of a bare ValueError or worse."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, _ in node.value:
                if key_node.tag == MERGE_TAG:  # keys merged in with << may be overridden: that is what << is for
                    continue
                key = self.construct_object(key_node, deep=True)  # cached: the constructor does not redo it
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:  # an unhashable key: the constructor below names it
                    continue
                if first is not key_node:
                    raise DuplicateKeyError(key, node, first, key_node)
        return super().construct_mapping(node, deep=deep)

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep=deep)
        except (yaml.YAMLError, RecursionError):
            raise
        except Exception as e:  # PyYAML's constructors raise what they meet (an empty !!timestamp: AttributeError)
            tag = node.tag.replace('tag:yaml.org,2002:', '!!')
            reason = f': {e}' if isinstance(e, ValueError) else ''
            raise yaml.constructor.ConstructorError(
                None, None, f'not a valid {tag} value{reason}', node.start_mark
            ) from None


YAML_LOADER = UniqueKeyLoader


def _join(prefix, key):
    return f'{prefix}.{key}' if prefix else str(key)


def _node_path(root, target, prefix=''):
    """The dotted path (``servers[2].leaves``) of ``target`` in a composed YAML document (aliases may loop)."""
    stack, seen = [(root, prefix)], set()
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(
                (value, _join(path, key.value if isinstance(key, yaml.ScalarNode) else '?'))
                for key, value in reversed(node.value)
            )
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, f'{path}[{i}]') for i, item in reversed(list(enumerate(node.value))))
    return prefix


def _too_deep_line(text):
    """The line where the nesting first goes beyond MAX_DEPTH (libyaml's event stream is flat), or None."""
    depth = 0
    for event in yaml.parse(text, Loader=_YAML_BASE):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                return event.start_mark.line + 1
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


def _yaml_problem(error, text):
    """``problem at line L, column C`` from any PyYAML error."""
    if isinstance(error, yaml.reader.ReaderError):
        # found again here: libyaml counts the position in bytes, the pure-Python reader in characters
        if found := yaml.reader.Reader.NON_PRINTABLE.search(text):
            line = text.count('\n', 0, found.start()) + 1
            return f'{error.reason}: character {ord(found.group()):#x} at line {line}'
        return error.reason
    problem = getattr(error, 'problem', None) or str(error)
    if getattr(error, 'context', None):
        problem = f'{error.context}: {problem}'
    mark = getattr(error, 'problem_mark', None) or getattr(error, 'context_mark', None)
    return f'{problem} at line {mark.line + 1}, column {mark.column + 1}' if mark else problem


def _load_yaml(text, path, root, prefix):
    if len(text) > MAX_DEPTH and (line := _too_deep_line(text)):  # each level takes a character at least
        raise SpecError(root, f'{path} is nested more than {MAX_DEPTH} levels deep (line {line})')
    loader = UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        return None if node is None else loader.construct_document(node)
    except DuplicateKeyError as e:
        raise SpecError(_join(_node_path(node, e.mapping, prefix), e.key), f'key written twice ({e.where})') from None
    finally:
        loader.dispose()


class _DuplicatedKeys(dict):
    """A JSON object that had a key twice (``duplicate``); found after parsing to name its path."""

    duplicate = None


def _json_object(pairs):
    data = dict(pairs)
    if len(data) == len(pairs):
        return data
    seen = set()
    marked = _DuplicatedKeys(pairs)
    marked.duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))
    return marked


def _duplicate_path(data, prefix):
    """Path of the first key written twice in parsed JSON (an object marked by ``_json_object``), or None."""
    stack = [(data, prefix)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _DuplicatedKeys):
            return _join(path, value.duplicate)
        if isinstance(value, dict):
            stack.extend((v, _join(path, k)) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, f'{path}[{i}]') for i, v in reversed(list(enumerate(value))))
    return None


def _load_json(text, path, root, prefix):
    try:
        data = json.loads(text, object_pairs_hook=_json_object)
    except json.JSONDecodeError as e:
        raise SpecError(root, f'{path} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}') from None
    except ValueError as e:  # an integer of thousands of digits
        raise SpecError(root, f'{path} is not valid JSON: {e}') from None
    except RecursionError:
        raise SpecError(root, f'{path} is nested too deeply') from None
    if (field := _duplicate_path(data, prefix)) is None:
        return data
    try:  # JSON is YAML: the YAML loader knows the lines of both keys
        _load_yaml(text, path, root, prefix)
    except SpecError as e:
        if e.field == field:
            raise
    except (yaml.YAMLError, RecursionError):
        pass
    raise SpecError(field, 'key written twice')


def parse_document(raw: bytes, path: str, root: str = 'spec'):
    """A spec or plan file's bytes as plain data: JSON when ``path`` ends in ``.json``, else YAML.

    ``root`` names the document in errors (``spec``, ``previous``); paths inside the previous plan start with it,
    those inside the spec do not (they are the spec's own field paths).

    Raises:
        SpecError: not UTF-8, not YAML/JSON, nested too deeply, or a key written twice.
    """
    try:
        text = raw.decode('utf-8').removeprefix('\ufeff')  # a byte-order mark is allowed
    except UnicodeDecodeError as e:
        line = raw.count(b'\n', 0, e.start) + 1
        raise SpecError(
            root,
            f'{path} is not UTF-8 text: byte {raw[e.start]:#04x} at offset {e.start} (line {line}) cannot be decoded',
        ) from None
    prefix = '' if root == 'spec' else root
    try:
        if path.endswith('.json'):
            return _load_json(text, path, root, prefix)
        return _load_yaml(text, path, root, prefix)
    except yaml.YAMLError as e:
        raise SpecError(root, f'{path} is not valid YAML: {_yaml_problem(e, text)}'.translate(LINE_BREAKS)) from None
    except RecursionError:  # PyYAML's pure-Python composer recurses
        raise SpecError(root, f'{path} is nested too deeply') from None


def _read_bytes(path):
    with open(path, 'rb') as f:
        return f.read()


def _previous_plan(raw, path, fabric):
    """The allocations of the plan file at ``path``, which must be a plan of ``fabric`` (the spec's name)."""
    data = parse_document(raw, path, 'previous')
    if data is None:
        raise SpecError('previous', f'{path} is empty: expected a plan (a mapping with an allocations mapping)')
    if isinstance(data, dict) and 'allocations' not in data:
        raise SpecError('previous', 'not a plan: it has no allocations mapping')
    return check_previous(data, fabric)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog='netbox-aifabric', description='Plan AI/GPU leaf-spine fabrics.')
    commands = parser.add_subparsers(dest='command', required=True)
    plan = commands.add_parser('plan', help='number a fabric from a spec file (YAML or JSON)')
    plan.add_argument('spec', help='fabric spec (see docs/planner.md)')
    plan.add_argument('--previous', help='an earlier plan (JSON): everything in it is kept')
    plan.add_argument('--release', action='store_true', help="free a removed node's allocations")
    plan.add_argument('--format', choices=('table', 'json', 'yaml'), default='table')
    plan.add_argument('-o', '--output', help='write the plan to this file instead of stdout')
    args = parser.parse_args(argv)

    try:
        raw_spec = _read_bytes(args.spec)
        raw_previous = _read_bytes(args.previous) if args.previous else None
    except OSError as e:
        print(f'netbox-aifabric: cannot read input: {e}'.translate(LINE_BREAKS), file=sys.stderr)
        return 1
    try:
        spec = load_spec(parse_document(raw_spec, args.spec))
        previous = _previous_plan(raw_previous, args.previous, spec.name) if args.previous else None
        result = plan_fabric(spec, previous=previous, release=args.release)
    except PlanError as e:
        print(f'netbox-aifabric: error: {e}'.translate(LINE_BREAKS), file=sys.stderr)
        return 2
    if args.output:
        try:
            with open(args.output, 'w', encoding='utf-8') as f:
                write_plan(result, args.format, f)
        except OSError as e:
            print(f'netbox-aifabric: cannot write output: {e}'.translate(LINE_BREAKS), file=sys.stderr)
            return 1
    else:
        write_plan(result, args.format, sys.stdout)
    for warning in result.warnings:  # on stderr: stdout stays the plan alone, for tools reading its JSON or YAML
        line = f'netbox-aifabric: warning: {warning.field}: {warning.message} ({warning.code})'
        print(line.translate(LINE_BREAKS), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
