"""An edit of a fabric saved while its apply runs, each on its own database connection, both ways round:
the apply's record (status, time, plan hash, allocations) survives the edit, the edit survives the apply, and
growing the fabric afterwards renumbers nothing.

Each interleaving is forced, not hoped for: the side that goes first holds the fabric's row until PostgreSQL shows
the other side waiting on a lock (``pg_stat_activity``), then commits.
"""

import threading
import time

import pytest
from django.db import connection, transaction

from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.lifecycle import after_apply, plan_hash
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

TIMEOUT = 240  # seconds; a loaded 2-core machine plans slowly


def _wait_for_a_lock_waiter():
    """Until another backend of this database waits on a lock (the other thread's statement is blocked)."""
    deadline = time.monotonic() + TIMEOUT
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute('SELECT pg_stat_clear_snapshot()')  # else a transaction sees its first snapshot only
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.05)
        cursor.execute(
            'SELECT pid, state, wait_event_type, wait_event, left(query, 120) FROM pg_stat_activity '
            'WHERE datname = current_database() AND pid <> pg_backend_pid()'
        )
        others = cursor.fetchall()
    raise AssertionError(f'the other thread never waited on the lock: {others}')


class _Threads:
    def __init__(self):
        self.errors = []
        self.threads = []

    def start(self, target):
        def run():
            try:
                target()
            except Exception as e:  # reported by join()
                self.errors.append(e)
            finally:
                connection.close()

        thread = threading.Thread(target=run)
        thread.start()
        self.threads.append(thread)

    def join(self):
        for thread in self.threads:
            thread.join(timeout=TIMEOUT * 2)
        assert [t for t in self.threads if t.is_alive()] == []
        assert self.errors == []


def _apply(pk, progress=None):
    """An apply as the service and the job run it: the objects and the record in one transaction."""
    fabric = Fabric.objects.get(pk=pk)
    with transaction.atomic():
        plan, changes = apply_fabric(fabric, progress=progress)
        after_apply(fabric, plan, None, changes)
    return plan


def _assert_recorded(pk, plan):
    fabric = Fabric.objects.get(pk=pk)
    assert fabric.status == 'applied'
    assert fabric.last_applied is not None
    assert fabric.last_plan_hash == plan_hash(plan)
    assert fabric.applied_allocations == fabric.applied_record(plan.allocations)  # stamped with this fabric
    assert fabric.applied_pins()  # not vacuous: the demo's plan allocates
    return fabric


def _assert_growth_renumbers_nothing(fabric):
    """Room for one more spine: every allocation the apply recorded is planned again as it is, no object updated."""
    applied = fabric.applied_pins()
    fabric.max_spines += 1
    fabric.full_clean()
    fabric.save()
    planned = dict(plan_of(fabric).allocations)
    moved = {key: (value, planned.get(key)) for key, value in applied.items() if planned.get(key) != value}
    assert moved == {}
    _, changes = diff_fabric(fabric)
    renumbered = [
        c.key for c in changes if c.action == 'update' and c.model in ('ipam.ipaddress', 'ipam.prefix', 'ipam.asn')
    ]
    assert renumbered == [] and [c.key for c in changes if c.action in ('delete', 'conflict')] == []


def test_an_edit_saved_during_an_apply_keeps_the_apply_record():
    """The apply holds the fabric's row; an edit loaded now (the pre-apply record) saves while it runs."""
    load_demo()
    pk = Fabric.objects.get(slug='ai-lab-fabric').pk
    applying, plans = threading.Event(), []
    threads = _Threads()

    def progress(done, total, model):
        if not applying.is_set():  # the first report: the row is locked, nothing written yet
            applying.set()
            _wait_for_a_lock_waiter()

    def edit():
        assert applying.wait(TIMEOUT)
        fabric = Fabric.objects.get(pk=pk)  # what a PATCH loads: the apply has not committed
        assert (fabric.status, fabric.applied_allocations) == ('draft', {})
        fabric.snapshot()
        fabric.description = 'edited during the apply'
        fabric.save()  # waits for the apply's row lock (a PATCH's full_clean is no part of the race: left out)

    threads.start(lambda: plans.append(_apply(pk, progress)))
    threads.start(edit)
    threads.join()

    fabric = _assert_recorded(pk, plans[0])
    assert fabric.description == 'edited during the apply'
    assert fabric.pending_change  # the edit came after the apply's plan
    _assert_growth_renumbers_nothing(fabric)


def test_an_apply_started_during_an_edit_plans_the_edit_and_records_itself():
    """The edit holds the fabric's row (saved, not committed); an apply starts and waits for it."""
    load_demo()
    pk = Fabric.objects.get(slug='ai-lab-fabric').pk
    _apply(pk)  # an applied fabric: its record is what a stale save could erase
    before_edit = plan_hash(plan_of(Fabric.objects.get(pk=pk)))
    saved, plans = threading.Event(), []
    threads = _Threads()

    def edit():
        fabric = Fabric.objects.get(pk=pk)
        with transaction.atomic():
            fabric.snapshot()
            fabric.description = 'edited before the apply'
            fabric.uplinks_per_spine += 1  # a second uplink to each spine: the plan changes
            fabric.full_clean()
            fabric.save()
            saved.set()
            _wait_for_a_lock_waiter()  # the apply waits for this transaction

    def apply():
        assert saved.wait(TIMEOUT)
        plans.append(_apply(pk))

    threads.start(edit)
    threads.start(apply)
    threads.join()

    fabric = _assert_recorded(pk, plans[0])
    assert fabric.description == 'edited before the apply'
    assert fabric.pending_change is False  # the apply planned the edit
    assert plan_hash(plans[0]) == plan_hash(plan_of(fabric)) != before_edit  # the edited intent, not the stale one
    _assert_growth_renumbers_nothing(fabric)
