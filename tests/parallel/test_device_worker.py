"""The session's multi-device workers (tests/helpers/devices.py): each library's scripts
run in one process on 4 CPU devices, which undoes what a script leaves behind (config
options, its prelude modules), reports a script's error with its traceback, and is
replaced when it dies."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.devices import run_fresh

PROBE = Path(__file__).parent / "scripts" / "worker_probe.py"


@pytest.mark.parametrize("library", ["didax", "jax"])
def test_one_process_per_library_whose_state_each_script_finds_as_new(device_workers, library):
    if library == "jax":
        pytest.importorskip("jax")
    first = device_workers.run(PROBE, library, "set")
    assert first["devices"] == 4 and first["x64"] is True
    second = device_workers.run(PROBE, library, "read")
    assert second["pid"] == first["pid"]  # the same worker process
    assert second["x64"] is False  # the option the first script set is back to its default
    assert second["prelude_runs"] == ["read"]  # the prelude module ran afresh


def test_a_failing_script_reports_its_traceback_and_the_worker_goes_on(device_workers):
    with pytest.raises(AssertionError, match="ValueError: the probe's own error"):
        device_workers.run(PROBE, "didax", "raise")
    assert device_workers.run(PROBE, "didax", "read")["devices"] == 4


def test_a_dead_worker_is_replaced(device_workers):
    before = device_workers.run(PROBE, "didax", "read")["pid"]
    with pytest.raises(AssertionError, match="the didax worker died"):
        device_workers.run(PROBE, "didax", "die")
    assert device_workers.run(PROBE, "didax", "read")["pid"] != before


def test_run_both_runs_each_library_and_run_fresh_a_new_process(device_workers):
    pytest.importorskip("jax")
    mine, theirs = device_workers.run_both(PROBE, "read")
    assert mine["pid"] != theirs["pid"] and mine["devices"] == theirs["devices"] == 4
    fresh = run_fresh(PROBE, "didax", "read")
    assert fresh["devices"] == 4 and fresh["pid"] != mine["pid"]
