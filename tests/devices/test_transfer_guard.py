"""`didax.transfer_guard(level)`, `transfer_guard_host_to_device`, `..._device_to_device`,
`..._device_to_host` and the `jax_transfer_guard*` options, checked against JAX 0.10.2 on 4
CPU devices (`scripts/placement_cases.py`): for every guard and level, which of 26
transfers (implicit: host values passed to jit, to `jnp.asarray` or to eager operations, an
un-committed Array moved by jit, reads to the host; explicit: `device_put`, `device_get`)
raise, with the exception's
type and message, and what "log_explicit" logs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "placement_cases.py"


def test_every_guard_level_and_transfer(placement):
    mine, theirs = placement("guard_transfers")
    assert mine == theirs
    disallow = mine["transfer_guard(disallow)"]
    assert disallow["jit_numpy"][0] == "JaxRuntimeError"
    assert disallow["jit_numpy"][1].startswith(
        "INVALID_ARGUMENT: Disallowed host-to-device transfer: aval=ShapedArray(float32[3]), "
        "dst_sharding=SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    )
    assert disallow["device_put_numpy"] == "no error"  # explicit: only *_explicit refuses
    assert mine["transfer_guard(disallow_explicit)"]["device_put_other_device"][1].startswith(
        "INVALID_ARGUMENT: Disallowed device-to-device transfer"
    )
    assert all(v == "no error" for v in mine["transfer_guard(allow)"].values())


def test_options_and_nesting(placement):
    mine, theirs = placement("guard_config")
    assert mine == theirs
    assert mine["values"] == ["disallow"] * 4 and mine["bad_level"][0] == "ValueError"
    assert mine["inner_allow"] == "no error" and mine["restored"][0] == "JaxRuntimeError"


def jax_logged() -> list[str]:
    # JAX logs from C++ to stderr ("W... guard_lib.cc:125] host-to-device transfer: ...")
    pytest.importorskip("jax")
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env.update(
        XLA_FLAGS="--xla_force_host_platform_device_count=4",
        TF_CPP_MIN_LOG_LEVEL="1",
        JAX_PLATFORMS="cpu",
    )
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "jax", "guard_logs"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [line.split("] ", 1)[1] for line in proc.stderr.splitlines() if "guard_lib" in line]


def test_log_explicit_logs_as_jax(device_workers):
    mine = device_workers.run(SCRIPT, "didax", "guard_logs")["messages"]
    assert mine == jax_logged()
    assert mine == [
        "host-to-device transfer: aval=ShapedArray(float32[3]), "
        "dst_sharding=SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    ]
