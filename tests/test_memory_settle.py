"""`helpers.memory.settle`, which tests/conftest.py runs between two test modules of an xdist
worker: the module's cyclic garbage is freed, what it leaves alive is frozen (GC's permanent
generation: full collections no longer scan it)."""

from __future__ import annotations

import gc
import weakref

from helpers import memory


class _Node:
    pass


def test_settle_frees_cycles_and_freezes_what_lives() -> None:
    live = _Node()
    live.me = live
    dead = _Node()
    dead.me = dead
    ref = weakref.ref(dead)
    del dead
    frozen = gc.get_freeze_count()
    memory.settle()
    assert ref() is None  # the cycle was collected, not frozen
    assert gc.get_freeze_count() > frozen
    assert not any(o is live for o in gc.get_objects())  # frozen: out of every generation
