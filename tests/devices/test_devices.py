"""Devices: several CPU devices from XLA_FLAGS or `config.update("jax_num_cpu_devices", N)`,
the device queries, `device_put(x, device)` and `Array.devices()`, each checked against JAX
0.10.2 run the same way. Each case runs in a fresh subprocess (`scripts/device_cases.py`): the
device count is fixed when the client starts, and this test process keeps its one device."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "device_cases.py"


def run(module: str, case: str, *args: str, flags: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "1"
    env["JAX_PLATFORMS"] = "cpu"
    if flags is not None:
        env["XLA_FLAGS"] = flags
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), module, case, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def both(case: str, *args: str, **kwargs) -> tuple[dict, dict]:
    pytest.importorskip("jax")
    return run("didax", case, *args, **kwargs), run("jax", case, *args, **kwargs)


def test_one_device_by_default():
    mine, theirs = both("queries")
    assert mine == theirs
    assert mine["count"] == 1


def test_xla_flags_device_count():
    mine, theirs = both("queries", flags="--xla_force_host_platform_device_count=4")
    assert mine == theirs
    assert mine["count"] == 4
    assert mine["devices"] == [f"CpuDevice(id={i})" for i in range(4)]


def test_config_num_cpu_devices():
    mine, theirs = both("queries", "3")
    assert mine == theirs
    assert mine["count"] == 3


# the first array fixes the device count in JAX; didax's eager arrays never start the
# client, and the update was accepted after them
@pytest.mark.parametrize("first", ["devices", "eager_add", "numpy_scalar", "arange"])
def test_config_after_start_raises(first):
    mine, theirs = both("config_after_start", first)
    assert mine == theirs
    assert mine["error"] == ["RuntimeError", True]


def test_config_after_tracing_only_is_accepted():
    mine, theirs = both("config_after_tracing")
    assert mine == theirs == {"count": 2}


def test_device_put_on_a_device():
    mine, theirs = both("device_put", flags="--xla_force_host_platform_device_count=4")
    assert mine == theirs
    assert mine["x_devices"] == ["CpuDevice(id=2)"]


def test_device_put_unknown_device_raises():
    mine, theirs = both("device_put_unknown_device")
    assert mine == theirs == {"error": "ValueError"}
