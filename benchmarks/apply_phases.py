"""Where a first apply's time goes, by phase, and the floor PostgreSQL sets for the same rows (bench_apply.py).

``PhaseTimer``: the apply's steps (planning and diff, the bulk writer's steps, NetBox's side effects it produces, the
per-object saves left) timed by wrapping them for the duration of one apply; each phase's *own* time (its wrapped
callees' time taken out) split into the time its SQL took (Django's ``execute_wrapper``: the statement sent until
its answer is read) and the rest, Python's. Cheap enough (a few µs per call) to run on every benchmark apply.

``CopyFloor``: the rows the apply inserted (every table with an integer ``id``: rows above the table's largest id
before the apply), read back and written again with ``COPY … FROM STDIN`` into new tables shaped like the real ones
(``LIKE … INCLUDING ALL``: their indexes, unique ones included; no triggers, no foreign-key checks; WAL-logged like
the real ones, not temporary) in one committed transaction, dropped afterwards: what PostgreSQL needs to store those
rows when nothing else is done.
"""

import time
from collections import defaultdict
from contextlib import contextmanager

__all__ = ('PHASES', 'CopyFloor', 'PhaseTimer')

# (module, attribute (Class.method or function), phase): the steps of netbox_aifabric/apply/writes.py and writer.py
PHASES = (
    ('netbox_aifabric.intake.inputs', 'stored_plan', 'plan: intent read, fabric planned'),
    ('netbox_aifabric.intake.inputs', 'build_contexts', 'plan: config contexts built'),
    ('netbox_aifabric.apply.writes', 'desired_objects', 'plan: desired objects'),
    ('netbox_aifabric.apply.writes', 'compute_changes', 'diff against NetBox'),
    ('netbox_aifabric.apply.writes', '_before_writes', 'permission checks before the writes'),
    ('netbox_aifabric.apply.writes', '_delete_owned', 'deletions'),
    ('netbox_aifabric.apply.writes', '_write_create', 'per-object creates (save(): devices with components, ...)'),
    ('netbox_aifabric.apply.writes', '_write_existing', 'per-object updates and adoptions'),
    ('netbox_aifabric.apply.writes', '_write_attribute', 'per-object attribute saves'),
    ('netbox_aifabric.apply.writer', 'BulkWriter.stage', 'bulk: clean() of each new object'),
    ('netbox_aifabric.apply.writer', 'BulkWriter._write', 'bulk: INSERTs (bulk_create) and prefetches'),
    ('netbox_aifabric.apply.writer', 'BulkWriter._write_cables', 'bulk: cables and terminations'),
    ('netbox_aifabric.apply.writer', 'BulkWriter._cabled', 'bulk: cabled interfaces updated'),
    ('netbox_aifabric.apply.writer', 'BulkWriter._m2m', 'bulk: many-to-many rows'),
    ('netbox_aifabric.apply.writer', 'BulkWriter._tags', 'bulk: tags'),
    ('netbox_aifabric.apply.writer', 'BulkWriter._own', 'bulk: ownership rows'),
    ('netbox_aifabric.apply.writer', 'BulkWriter._update', 'bulk: values set on written objects'),
    ('netbox_aifabric.apply.writer', '_as_save_would', "bulk: save()'s own field values"),
    ('netbox_aifabric.apply.writer', '_signals', 'NetBox side effects: post_save receivers'),
    ('netbox_aifabric.apply.writer', '_change_log', 'NetBox side effects: change log and events'),
    ('netbox_aifabric.apply.writer', '_snapshot', 'NetBox side effects: snapshots'),
    ('netbox_aifabric.apply.writer', '_trace', 'NetBox side effects: cable path tracing'),
)
OTHER = 'the rest: transaction, lock, commit handlers (search cache, events), record'


class PhaseTimer:
    """``with PhaseTimer().active() as timer: apply …``; then ``timer.rows(total)``."""

    def __init__(self):
        self.own = defaultdict(float)  # phase -> seconds, its wrapped callees excluded
        self.sql = defaultdict(float)  # phase -> seconds of SQL issued while it was the innermost phase
        self.queries = defaultdict(int)
        self.calls = defaultdict(int)
        self._stack = [OTHER]
        self._child = [0.0]  # per stack level: time spent in wrapped callees

    def _wrap(self, func, phase):
        def timed(*args, **kwargs):
            self._stack.append(phase)
            self._child.append(0.0)
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                self._stack.pop()
                self.own[phase] += spent - self._child.pop()
                self._child[-1] += spent
                self.calls[phase] += 1

        return timed

    def _sql(self, execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.sql[self._stack[-1]] += time.perf_counter() - start
            self.queries[self._stack[-1]] += 1

    @contextmanager
    def active(self):
        import importlib

        from django.db import connection

        patched = []
        for module_name, attribute, phase in PHASES:
            owner = importlib.import_module(module_name)
            if '.' in attribute:
                class_name, attribute = attribute.split('.')
                owner = getattr(owner, class_name)
            original = getattr(owner, attribute)
            patched.append((owner, attribute, original))
            setattr(owner, attribute, self._wrap(original, phase))
        start = time.perf_counter()
        try:
            with connection.execute_wrapper(self._sql):
                yield self
        finally:
            self.total = time.perf_counter() - start
            self.own[OTHER] += self.total - self._child[0]
            for owner, attribute, original in reversed(patched):
                setattr(owner, attribute, original)

    def rows(self):
        """``[(phase, calls, own seconds, SQL seconds, queries)]``, largest first, phases that ran."""
        phases = [p for _m, _a, p in PHASES] + [OTHER]
        ran = [(p, self.calls[p], self.own[p], self.sql[p], self.queries[p]) for p in phases if self.own[p] > 0]
        return sorted(ran, key=lambda row: -row[2])

    def report(self, size):
        total_sql = sum(self.sql.values())
        print(
            f'\nFirst apply of {size} by phase ({self.total:.1f} s: SQL {total_sql:.1f} s = '
            f'{100 * total_sql / self.total:.0f} %, Python and the rest {self.total - total_sql:.1f} s):'
        )
        print('| Phase (own time) | calls | seconds | SQL seconds | queries | Python seconds |')
        print('|---|---:|---:|---:|---:|---:|')
        for phase, calls, own, sql, queries in self.rows():
            print(f'| {phase} | {calls:,} | {own:.2f} | {sql:.2f} | {queries:,} | {own - sql:.2f} |')


class CopyFloor:
    """``floor = CopyFloor(); floor.mark(); apply …; floor.measure()``: the COPY floor of the rows inserted between."""

    def __init__(self):
        self.marks = {}

    @staticmethod
    def _tables(cursor):
        cursor.execute(
            "SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'id' "
            "AND data_type IN ('integer', 'bigint') AND table_name IN (SELECT table_name FROM "
            "information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE') ORDER BY 1"
        )
        return [row[0] for row in cursor.fetchall()]

    def mark(self):
        from django.db import connection

        with connection.cursor() as cursor:
            tables = self._tables(cursor)
            union = ' UNION ALL '.join(f'SELECT \'{t}\', coalesce(max(id), 0) FROM "{t}"' for t in tables)
            cursor.execute(union)
            self.marks = dict(cursor.fetchall())

    def _inserted(self, cursor):
        """``{table: (rows, COPY text)}`` of the rows above each mark."""
        copied = {}
        for table, mark in self.marks.items():
            buffer = bytearray()
            with cursor.copy(f'COPY (SELECT * FROM "{table}" WHERE id > {int(mark)}) TO STDOUT') as copy:
                for data in copy:
                    buffer += data
            if buffer:
                copied[table] = (buffer.count(b'\n'), bytes(buffer))
        return copied

    def measure(self):
        """``(rows, seconds, {table: rows})``: the inserted rows COPYed into empty tables like theirs, committed."""
        from django.db import connection

        raw = connection.connection  # psycopg 3
        with raw.cursor() as cursor:
            copied = self._inserted(cursor)
        names = {table: f'aifabric_floor_{table}'[:63] for table in copied}
        with raw.transaction(), raw.cursor() as cursor:
            for table, name in names.items():
                cursor.execute(f'CREATE TABLE "{name}" (LIKE "{table}" INCLUDING ALL)')
        try:
            start = time.perf_counter()
            with raw.transaction(), raw.cursor() as cursor:  # committed, as the apply is: its WAL flushed
                for table, (_rows, text) in copied.items():
                    with cursor.copy(f'COPY "{names[table]}" FROM STDIN') as copy:
                        copy.write(text)
            seconds = time.perf_counter() - start
        finally:
            with raw.transaction(), raw.cursor() as cursor:
                for name in names.values():
                    cursor.execute(f'DROP TABLE IF EXISTS "{name}"')
        rows = {table: n for table, (n, _text) in copied.items()}
        return sum(rows.values()), seconds, rows
