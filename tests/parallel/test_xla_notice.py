"""XLA's GSPMD deprecation notice is kept off stderr (`executable._without_gspmd_notice`), and
nothing else written to stderr while a partitioned program compiles is lost."""

from __future__ import annotations

import os

from didax.runtime import executable
from subprocess_devices import run_with_devices

SCRIPT = """
import contextlib, json, os, sys, tempfile
log = tempfile.TemporaryFile()
os.dup2(log.fileno(), 2)  # everything written to this process's stderr, from here on
import numpy as np
import didax
from didax.runtime import executable
from didax.sharding import Mesh, NamedSharding, PartitionSpec as P
if sys.argv[1] == "unfiltered":
    executable._without_gspmd_notice = contextlib.nullcontext
mesh = Mesh(np.array(didax.devices()), ("x",))
x = didax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P("x")))
total = float(didax.jit(lambda a: (a * 2).sum())(x))
log.seek(0)
print(json.dumps({"total": total, "stderr": log.read().decode()}))
"""


def test_a_partitioned_compile_logs_no_gspmd_notice() -> None:
    filtered = run_with_devices(SCRIPT, "filtered")
    assert filtered["total"] == 56.0
    assert "GSPMD" not in filtered["stderr"]
    # the same program without the filter: XLA does print the notice (so the check above
    # can fail)
    unfiltered = run_with_devices(SCRIPT, "unfiltered")
    assert "GSPMD sharding propagation is going to be deprecated" in unfiltered["stderr"]


def test_other_stderr_output_during_a_compile_is_written_back(capfd) -> None:
    notice = b"W1125 sharding_propagation.cc:3132] " + executable._GSPMD_NOTICE + b" ...\n"
    with executable._without_gspmd_notice():
        os.write(2, b"before\n" + notice + b"after\n")
        assert capfd.readouterr().err == ""  # held back while the body runs
    assert capfd.readouterr().err == "before\nafter\n"
