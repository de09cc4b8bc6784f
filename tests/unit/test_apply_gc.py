"""The apply's garbage-collection setting (``apply.writer.full_collections_deferred``): while an apply runs, CPython's
full collections wait; the young generations are collected as usual; the interpreter's thresholds come back after,
also after an error and after nested or concurrent applies."""

import gc
import threading

import pytest

from netbox_aifabric.apply.writer import DEFERRED_FULL_COLLECTIONS, full_collections_deferred

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
