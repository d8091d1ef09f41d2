"""glibc's malloc thresholds (runtime/host_memory.py, the `didax_malloc_trim_threshold`
option): a repeated jitted call reuses the memory its dropped results freed instead of
faulting fresh pages in, and the option switches it off. Each case runs in a fresh process
(the thresholds are set once, when the client starts)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import didax
import pytest
from didax.config import Config
from didax.runtime import host_memory

pytestmark = pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc", reason="the thresholds are glibc's malloc's"
)
SCRIPT = str(Path(__file__).parent / "scripts" / "result_faults.py")
DEFAULT = (32 << 20, 64 << 20)  # (mmap threshold, trim threshold) set by default
PAGES = 8 * 2 * 1024 * 1024 // 4096  # the results of one call: 4,096 pages


def _env(**variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "MALLOC_" not in k and k != "GLIBC_TUNABLES"}
    return env | variables


def _faults(*args: str, **variables: str) -> tuple[str, float, int]:
    out = subprocess.run(
        [sys.executable, SCRIPT, *args],
        capture_output=True,
        text=True,
        check=True,
        env=_env(**variables),
    )
    thresholds, median, total = out.stdout.rsplit(maxsplit=2)
    return thresholds, float(median), int(total)


def test_a_repeated_call_does_not_fault_its_results_in_again() -> None:
    thresholds, median, _ = _faults()
    assert thresholds == repr(DEFAULT)
    assert median < PAGES / 16  # glibc's own thresholds: 1,000-3,500 a call (once 0)


def test_threshold_zero_leaves_glibc_alone_and_its_calls_fault() -> None:
    thresholds, _, total = _faults(DIDAX_MALLOC_TRIM_THRESHOLD="0")
    assert thresholds == "None"
    assert total > PAGES  # what the option saves: 14,000-50,000 in 15 calls


def test_the_option_is_read_when_the_client_starts() -> None:
    # config.update before the first computation
    assert _faults(str(16 << 20))[0] == repr((8 << 20, 16 << 20))
    didax.devices()  # this process's client has started: the option is locked
    with pytest.raises(RuntimeError, match="didax_malloc_trim_threshold config should be"):
        didax.config.update("didax_malloc_trim_threshold", 0)


def test_a_threshold_the_user_gave_glibc_stands(monkeypatch) -> None:
    assert _faults(MALLOC_TRIM_THRESHOLD_="1000000")[0] == "None"
    for name in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0")
    assert not host_memory.user_set()
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:glibc.malloc.top_pad=0")
    assert host_memory.user_set()


def test_bad_values_are_refused() -> None:
    config = Config()  # a fresh one: this process's option is locked
    for value, error in ((-1, ValueError), (2**31, ValueError), ("1M", TypeError)):
        with pytest.raises(error, match="didax_malloc_trim_threshold must be"):
            config.update("didax_malloc_trim_threshold", value)
    out = subprocess.run(
        [sys.executable, "-c", "import didax"],
        capture_output=True,
        text=True,
        env=_env(DIDAX_MALLOC_TRIM_THRESHOLD="64M"),
    )
    assert "ValueError: invalid byte count '64M'" in out.stderr
