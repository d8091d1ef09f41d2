"""The xdist scheduling of tests/conftest.py: the slow scopes of `START_FIRST` exist (a renamed
module would silently lose its head start) and leave the work queue first, in their order,
then the others in xdist's order; and xdist still takes work with `popitem(last=False)`, the
one call `_SlowFirst` changes."""

from __future__ import annotations

import inspect
from pathlib import Path

from conftest import START_FIRST, _SlowFirst
from xdist.scheduler import LoadScopeScheduling

ROOT = Path(__file__).parent.parent


def test_start_first_scopes_exist() -> None:
    missing = [scope for scope in START_FIRST if not (ROOT / scope).exists()]
    assert not missing, f"START_FIRST names no such test module or folder: {missing}"


def test_slow_scopes_leave_the_queue_first() -> None:
    queue = _SlowFirst()
    for scope in ["tests/a.py", START_FIRST[3], "tests/b.py", START_FIRST[0]]:
        queue[scope] = {f"{scope}::t": False}
    taken = [queue.popitem(last=False)[0] for _ in range(4)]
    assert taken == [START_FIRST[0], START_FIRST[3], "tests/a.py", "tests/b.py"]


def test_xdist_takes_work_from_the_front_of_the_queue() -> None:
    source = inspect.getsource(LoadScopeScheduling._assign_work_unit)
    assert "self.workqueue.popitem(last=False)" in source
