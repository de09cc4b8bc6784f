"""The apply's garbage-collection setting (``apply.collector.full_collections_deferred``): while an apply runs,
CPython's full collections wait; the young generations are collected as usual; the interpreter's thresholds come back
after, also after an error and after nested or concurrent applies."""

import gc
import threading

import pytest

from netbox_aifabric.apply.collector import DEFERRED_FULL_COLLECTIONS, collections_paused, full_collections_deferred

pytestmark = pytest.mark.pure


@pytest.fixture
def thresholds():
    """A known interpreter setting for the test, the process's own put back after it."""
    before = gc.get_threshold()
    gc.set_threshold(700, 7, 9)
    yield (700, 7, 9)
    gc.set_threshold(*before)


def test_full_collections_wait_and_the_young_ones_do_not(thresholds):
    with full_collections_deferred():
        assert gc.get_threshold() == (thresholds[0], thresholds[1], DEFERRED_FULL_COLLECTIONS)
        assert gc.isenabled()
    assert gc.get_threshold() == thresholds


def test_the_thresholds_come_back_after_an_error(thresholds):
    with pytest.raises(RuntimeError), full_collections_deferred():
        raise RuntimeError('the apply failed')
    assert gc.get_threshold() == thresholds


def test_nested_and_concurrent_applies_restore_the_interpreters_setting(thresholds):
    """An apply inside another (a script's) and two at once in threads: the outermost one's end restores."""
    inside = threading.Event()
    release = threading.Event()

    def other_apply():
        with full_collections_deferred():
            inside.set()
            release.wait(5)

    with full_collections_deferred():
        with full_collections_deferred():
            pass
        assert gc.get_threshold()[2] == DEFERRED_FULL_COLLECTIONS  # the inner one's end changed nothing
        worker = threading.Thread(target=other_apply)
        worker.start()
        assert inside.wait(5)
    assert gc.get_threshold()[2] == DEFERRED_FULL_COLLECTIONS  # the thread's apply still runs
    release.set()
    worker.join(5)
    assert gc.get_threshold() == thresholds


@pytest.fixture
def collector_on():
    """The collector on for the test, the process's own setting put back after it."""
    before = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if before else gc.disable)()


def test_a_diff_pauses_every_collection_and_the_collector_comes_back(collector_on):
    with collections_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collections_paused():
        raise RuntimeError('the diff failed')
    assert gc.isenabled()


def test_nested_and_concurrent_diffs_resume_after_the_last(collector_on):
    inside = threading.Event()
    release = threading.Event()

    def other_diff():
        with collections_paused():
            inside.set()
            release.wait(5)

    with collections_paused():
        with collections_paused():
            pass
        assert not gc.isenabled()  # the inner one's end changed nothing
        worker = threading.Thread(target=other_diff)
        worker.start()
        assert inside.wait(5)
    assert not gc.isenabled()  # the thread's diff still runs
    release.set()
    worker.join(5)
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_process_stays_off(collector_on):
    gc.disable()
    with collections_paused():
        pass
    assert not gc.isenabled()
