"""Shared pytest set-up: the session's multi-device workers (`device_workers`, see
`helpers/devices.py`), how pytest-xdist shares the tests out, the environment the session's
processes start in (one bytecode cache, most of XLA's optimizations off:
`helpers/environment.py`), and a watchdog that backs pytest-timeout up against hangs it
cannot interrupt. (tests/ is on sys.path through `pythonpath` in pyproject.toml: `helpers`
and `op_cases` import from every test folder.)

pytest-xdist (`-n 2` in pyproject.toml's addopts; `-n 0` runs in one process) hands each
worker whole test modules, so that a module-scoped fixture (the parallel scripts' results)
runs once, and each folder of `helpers.scheduling.ONE_SCOPE` to one worker: tests/browser,
which starts one JupyterLab and one Chromium for it, and tests/notebooks, which runs each
lesson's notebooks once for it.

Every test has a time limit (`timeout` in pyproject.toml, a `@pytest.mark.timeout(N)` marker
to change it). pytest-timeout's signal method fails the test and the run goes on, but its
SIGALRM handler only runs when the main thread returns to Python: a program looping forever
inside XLA never does. So a watchdog thread also arms at each test's start, and if the test is
still running `_GRACE` seconds after its limit it names the test, dumps every thread's stack and
ends the run with exit status 1 (a report instead of a hang)."""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
from collections.abc import Iterator

import pytest
from helpers import environment, memory
from helpers.devices import DeviceWorkers
from helpers.scheduling import SlowFirst, scope_of
from xdist.scheduler import LoadScopeScheduling

_GRACE = 30.0  # seconds past the limit before the watchdog gives up on pytest-timeout


def pytest_configure(config: pytest.Config) -> None:
    # in the controlling process, before xdist starts its workers: they and every process
    # they start inherit the environment
    if not hasattr(config, "workerinput"):
        for change in (environment.share_bytecode_cache, environment.compile_quickly):
            restore = change()
            if restore is not None:
                config.add_cleanup(restore)


def _time_limit(item: pytest.Item) -> float:
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.kwargs.get("timeout", marker.args[0] if marker.args else None)
    else:
        value = item.config.getoption("timeout", None)
        if value is None:
            try:
                value = item.config.getini("timeout")
            except ValueError:  # pytest-timeout not installed: the watchdog alone guards
                value = item.config.inicfg.get("timeout")
    return float(value) if value else 0.0


def _abort(config: pytest.Config, nodeid: str, limit: float) -> None:
    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is not None:  # give fd 2 back to the terminal: the run ends with os._exit
        capture.suspend_global_capture(in_=False)
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # xdist reports it crashed, ends the run
    sys.stderr.write(
        f"\n\n+++ {nodeid} is still running {limit + _GRACE:.0f} s after its start "
        f"(time limit {limit:.0f} s) and pytest-timeout could not interrupt it: "
        f"ending {f'xdist worker {worker} and so ' if worker else ''}the run +++\n"
    )
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    sys.stderr.flush()
    os._exit(1)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    limit = _time_limit(item)
    watchdog = None
    if limit > 0:
        watchdog = threading.Timer(limit + _GRACE, _abort, (item.config, item.nodeid, limit))
        watchdog.daemon = True
        watchdog.start()
    try:
        yield
    finally:
        if watchdog is not None:
            watchdog.cancel()
    if nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None):
        memory.settle()  # between modules: GC's old objects frozen, the free heap given back


@pytest.fixture(scope="session")
def device_workers() -> Iterator[DeviceWorkers]:
    """A worker process per library (didax, JAX) on 4 CPU devices, started at first use."""
    workers = DeviceWorkers(devices=4)
    yield workers
    workers.close()


class _ByModule(LoadScopeScheduling):
    """xdist's load-by-scope scheduling, a scope being a test module (not a class in it),
    each folder of `ONE_SCOPE` one scope, and the slow scopes of `START_FIRST` handed out
    first."""

    def __init__(self, config: pytest.Config, log: object = None) -> None:
        super().__init__(config, log)
        self.workqueue = SlowFirst()

    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> LoadScopeScheduling:
    return _ByModule(config, log)
