"""Run a script in a fresh Python process with several CPU devices, for the tests that need
them: the device count is fixed when a process's client starts, so a 4-device case cannot
run in the pytest process (which has one). Importable from every test folder (conftest.py
puts this folder on sys.path), like op_cases.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import numpy as np


def run_with_devices(code: str, *argv: str, devices: int = 4, timeout: float = 600) -> Any:
    """Run `code` with `argv` (e.g. the library to import, "didax" or "jax") on `devices`
    CPU devices; what the script printed last, as JSON. Fails with the script's stderr."""
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env.update(
        XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
        TF_CPP_MIN_LOG_LEVEL="1",
        JAX_PLATFORMS="cpu",
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cases(script: str, prefix: str = 't("') -> list[str]:
    """The names of a script's cases: its lines `t("name", ...)` (or another recorder)."""
    return [line.split('"')[1] for line in script.splitlines() if line.startswith(prefix)]


def assert_same_values(mine: Any, theirs: Any, rtol: float = 1e-5) -> None:
    """One case's record from each library: the same exception (`["ERR", type, ...]`), or
    leaves of the same dtypes with values equal within `rtol`."""
    if theirs[0] == "ERR" or mine[0] == "ERR":  # the exception type JAX raises
        assert mine == theirs
        return
    assert [d for d, _ in mine] == [d for d, _ in theirs]  # dtypes, leaf by leaf
    for (_, a), (_, b) in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=rtol)
