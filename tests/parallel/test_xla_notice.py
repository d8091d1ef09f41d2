"""XLA's GSPMD deprecation notice is kept off stderr (`executable._without_gspmd_notice`) when
GSPMD partitions (`jax_use_shardy_partitioner=False`), and nothing else written to stderr
while a partitioned program compiles is lost; with Shardy, the default, there is no notice
and no filter."""

from __future__ import annotations

import os
from pathlib import Path

from didax.runtime import executable
from helpers.devices import run_fresh

# a fresh process each: the script redirects fd 2 and patches didax.runtime.executable
SCRIPT = Path(__file__).parent / "scripts" / "xla_notice.py"


def test_a_partitioned_compile_logs_no_gspmd_notice() -> None:
    filtered = run_fresh(SCRIPT, "filtered")
    assert filtered["total"] == 56.0
    assert "GSPMD" not in filtered["stderr"]
    # the same program without the filter: XLA does print the notice (so the check above
    # can fail)
    unfiltered = run_fresh(SCRIPT, "unfiltered")
    assert "GSPMD sharding propagation is going to be deprecated" in unfiltered["stderr"]


def test_shardy_compiles_without_the_notice_or_the_filter() -> None:
    # Shardy is the default partitioner: XLA prints no GSPMD notice, and didax's stderr
    # filter (patched to raise in this run) is not used
    shardy = run_fresh(SCRIPT, "shardy")
    assert shardy["total"] == 56.0
    assert "GSPMD" not in shardy["stderr"]


def test_other_stderr_output_during_a_compile_is_written_back(capfd) -> None:
    notice = b"W1125 sharding_propagation.cc:3132] " + executable._GSPMD_NOTICE + b" ...\n"
    with executable._without_gspmd_notice():
        os.write(2, b"before\n" + notice + b"after\n")
        assert capfd.readouterr().err == ""  # held back while the body runs
    assert capfd.readouterr().err == "before\nafter\n"
