"""Run test scripts on several CPU devices. The device count is fixed when a process's client
starts, so a 4-device case cannot run in the pytest process (which has one): it runs in a
worker process started with `XLA_FLAGS=--xla_force_host_platform_device_count=4`.

`DeviceWorkers` (the session fixture `device_workers` in tests/conftest.py) keeps one such
worker per library ("didax", "jax"), started once and reused by every script
(`helpers/device_worker.py`): starting Python, importing a library and its client costs
seconds a script. `run_both` runs a script under didax and JAX at once, on the two workers.
`run_fresh` runs a script in a process of its own, for scripts that need a cold process
(they patch the library's modules, or count the compilations from its start).

A script is a .py file under tests/ that takes the library's name as `sys.argv[1]` and prints
its record as JSON, last; what it printed last is what these functions return."""

from __future__ import annotations

import ast
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
LIBRARIES = ("didax", "jax")


def _environment(devices: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env.update(
        XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
        TF_CPP_MIN_LOG_LEVEL="1",
        JAX_PLATFORMS="cpu",
        PYTHONPATH=os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    return env


def _last_json(stdout: str) -> Any:
    return json.loads(stdout.strip().splitlines()[-1])


def run_fresh(script: Path, *argv: str, devices: int = 4, timeout: float = 600) -> Any:
    """Run `script` with `argv` in a new process on `devices` CPU devices; what it printed
    last, as JSON. Fails with the script's stderr."""
    proc = subprocess.run(
        [sys.executable, str(script), *argv],
        env=_environment(devices),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return _last_json(proc.stdout)


class _Worker:
    """One worker process for one library; one script at a time."""

    def __init__(self, library: str, devices: int) -> None:
        self.library = library
        self.log = tempfile.TemporaryFile()
        read, write = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "helpers.device_worker", library, str(write)],
            env=_environment(devices),
            stdin=subprocess.PIPE,
            stdout=self.log,
            stderr=self.log,
            pass_fds=(write,),
            text=True,
        )
        os.close(write)
        self.answers: queue.Queue[str] = queue.Queue()
        reader = os.fdopen(read, "r")
        threading.Thread(target=self._read, args=(reader,), daemon=True).start()
        self.ready = False

    def _read(self, reader: Any) -> None:
        for line in reader:
            self.answers.put(line)
        self.answers.put("")  # end of file: the worker died

    def alive(self) -> bool:
        return self.proc.poll() is None

    def submit(self, script: Path, argv: tuple[str, ...]) -> None:
        self.start = self.log.seek(0, os.SEEK_END)
        request = {"path": str(script), "argv": [self.library, *argv]}
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def _answer(self, timeout: float) -> dict:
        try:
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            self.close()
            raise AssertionError(f"the {self.library} worker took over {timeout} s") from None
        if not line:
            self.log.seek(0)
            raise AssertionError(
                f"the {self.library} worker died ({self.proc.wait()}):\n"
                + self.log.read().decode(errors="replace")[-3000:]
            )
        return json.loads(line)

    def result(self, timeout: float) -> Any:
        if not self.ready:  # the worker's start: importing the library and its client
            assert self._answer(timeout)["stdout"] == "ready"
            self.ready = True
        answer = self._answer(timeout)
        if not answer["ok"]:
            self.log.seek(self.start)
            logged = self.log.read().decode(errors="replace")
            raise AssertionError(answer["error"][-3000:] + logged[-2000:])
        return _last_json(answer["stdout"])

    def close(self) -> None:
        if self.alive():
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class DeviceWorkers:
    """A worker per library on `devices` CPU devices, started at first use and restarted
    after one dies or hangs."""

    def __init__(self, devices: int = 4) -> None:
        self.devices = devices
        self._workers: dict[str, _Worker] = {}

    def _worker(self, library: str) -> _Worker:
        worker = self._workers.get(library)
        if worker is None or not worker.alive():
            worker = self._workers[library] = _Worker(library, self.devices)
        return worker

    def run(self, script: Path, library: str, *argv: str, timeout: float = 600) -> Any:
        """What `python script library *argv` printed last, as JSON."""
        worker = self._worker(library)
        worker.submit(script, argv)
        return worker.result(timeout)

    def run_both(self, script: Path, *argv: str, timeout: float = 600) -> tuple[Any, Any]:
        """`run(script, "didax")` and `run(script, "jax")`, at the same time."""
        workers = [self._worker(library) for library in LIBRARIES]
        for worker in workers:
            worker.submit(script, argv)
        results, failures = [], []
        for worker in workers:  # both answers are read, so that neither is left queued
            try:
                results.append(worker.result(timeout))
            except AssertionError as failure:
                failures.append(failure)
        if failures:
            raise failures[0]
        return results[0], results[1]

    def close(self) -> None:
        for worker in self._workers.values():
            worker.close()


def cases(script: Path, *recorders: str) -> list[str]:
    """The names of a script's cases: its top-level calls `t("name", ...)` (or of the other
    recorders named), in order."""
    names = []
    for node in ast.parse(Path(script).read_text()).body:
        call = node.value if isinstance(node, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id in (recorders or ("t",))
            and call.args
            and isinstance(call.args[0], ast.Constant)
        ):
            names.append(call.args[0].value)
    return names


def assert_same_values(mine: Any, theirs: Any, rtol: float = 1e-5) -> None:
    """One case's record from each library: the same exception (`["ERR", type, ...]`), or
    leaves of the same dtypes with values equal within `rtol`."""
    if theirs[0] == "ERR" or mine[0] == "ERR":  # the exception type JAX raises
        assert mine == theirs
        return
    assert [d for d, _ in mine] == [d for d, _ in theirs]  # dtypes, leaf by leaf
    for (_, a), (_, b) in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=rtol)
