"""The xdist scheduling of tests/conftest.py: the folders of `ONE_SCOPE` are one scope each;
the slow scopes of `START_FIRST` exist (a renamed module would silently lose its head start)
and leave the work queue first, in their order, then the others in xdist's order; and xdist
still takes work with `popitem(last=False)`, the one call `SlowFirst` changes."""

from __future__ import annotations

import inspect
from pathlib import Path

from helpers.scheduling import ONE_SCOPE, START_FIRST, SlowFirst, scope_of
from xdist.scheduler import LoadScopeScheduling

ROOT = Path(__file__).parent.parent


def test_start_first_scopes_exist() -> None:
    missing = [scope for scope in START_FIRST if not (ROOT / scope).exists()]
    assert not missing, f"START_FIRST names no such test module or folder: {missing}"


def test_a_folder_of_one_scope_goes_to_one_worker() -> None:
    assert all((ROOT / folder).is_dir() for folder in ONE_SCOPE), ONE_SCOPE
    notebooks = sorted((ROOT / "tests/notebooks").glob("test_*.py"))
    assert len(notebooks) > 1  # the package-scoped lesson runs are shared by several modules
    scopes = {scope_of(f"{p.relative_to(ROOT).as_posix()}::test_x[a]") for p in notebooks}
    assert scopes == {"tests/notebooks"}
    assert scope_of("tests/browser/test_lab.py::test_x") == "tests/browser"
    assert scope_of("tests/core/test_course.py::test_x") == "tests/core/test_course.py"


def test_slow_scopes_leave_the_queue_first() -> None:
    queue = SlowFirst()
    for scope in ["tests/a.py", START_FIRST[3], "tests/b.py", START_FIRST[0]]:
        queue[scope] = {f"{scope}::t": False}
    taken = [queue.popitem(last=False)[0] for _ in range(4)]
    assert taken == [START_FIRST[0], START_FIRST[3], "tests/a.py", "tests/b.py"]


def test_xdist_takes_work_from_the_front_of_the_queue() -> None:
    source = inspect.getsource(LoadScopeScheduling._assign_work_unit)
    assert "self.workqueue.popitem(last=False)" in source
