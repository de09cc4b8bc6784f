"""CPython's cyclic garbage collector around the reads that hold a whole fabric: the apply and the diff.

Both read every object the fabric owns (thousands of model instances, their many-to-many caches) and hold them to
their end. Each collection the reads trigger walks objects that are still alive; worse, the survivors are promoted
to the oldest generation, and once they make up a quarter of it CPython runs a full collection of NetBox's whole heap
(about a million objects in a NetBox process) to free next to nothing.

- :func:`full_collections_deferred` (the apply): the young generations are collected as usual (an apply runs for
  minutes at L and makes millions of short-lived cycles, which they free), only the full collections wait.
- :func:`collections_paused` (the diff, a read of about a second at M): no collection at all; what the diff made is
  freed by reference counting when its caller drops it, its few cycles by the next young collection. Measured on the
  Plan tab at M (``gc.callbacks``): one full collection of 545 ms in a 1,354 ms request, none with the diff paused.

Either holds for the outermost caller: nested or concurrent uses (threads) put the interpreter's setting back when
the last one ends, also after an error."""

import gc
import threading
from contextlib import contextmanager

__all__ = ('DEFERRED_FULL_COLLECTIONS', 'collections_paused', 'full_collections_deferred')

# CPython's oldest generation is collected only after this many collections of the one below it, while an apply runs;
# the interpreter's own default is 10
DEFERRED_FULL_COLLECTIONS = 1_000_000
_deferred = {'depth': 0, 'threshold': None}
_paused = {'depth': 0, 'enabled': False}
_lock = threading.Lock()


@contextmanager
def full_collections_deferred():
    """CPython's full garbage collections (of the oldest generation) put off while an apply runs; the young
    generations are collected as usual, and the interpreter's threshold comes back when the outermost apply ends.

    Why: an apply holds every object it writes until it ends, so the heap grows by hundreds of MiB and each full
    collection walks all of it to find next to nothing. Measured on fabric L's first apply (benchmarks/bench_apply.py,
    ``gc.callbacks``): 22 full collections took 15.5 s of 192 s and freed 17,871 objects, while the young generations
    freed the apply's 4.7 million cyclic objects in 2.8 s."""
    with _lock:
        if _deferred['depth'] == 0:
            _deferred['threshold'] = gc.get_threshold()
            young, middle, _oldest = _deferred['threshold']
            gc.set_threshold(young, middle, DEFERRED_FULL_COLLECTIONS)
        _deferred['depth'] += 1
    try:
        yield
    finally:
        with _lock:
            _deferred['depth'] -= 1
            if _deferred['depth'] == 0:
                gc.set_threshold(*_deferred['threshold'])


@contextmanager
def collections_paused():
    """No garbage collection while a diff runs; the collector comes back (if it was on) when the outermost use ends."""
    with _lock:
        if _paused['depth'] == 0:
            _paused['enabled'] = gc.isenabled()
            gc.disable()
        _paused['depth'] += 1
    try:
        yield
    finally:
        with _lock:
            _paused['depth'] -= 1
            if _paused['depth'] == 0 and _paused['enabled']:
                gc.enable()
