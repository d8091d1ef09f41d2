"""The multi-device worker's process (`python -m helpers.device_worker LIBRARY RESPONSE_FD`,
started by `helpers.devices.DeviceWorkers` with `XLA_FLAGS` asking for several CPU devices):
imports LIBRARY ("didax" or "jax"), starts its client, then runs test scripts on request,
one at a time, each as `python SCRIPT ARGV...` would run it with tests/ on `PYTHONPATH`
(a script imports its sibling modules by their place there: `parallel.scripts.pmap_prelude`).

A request is one JSON line on stdin, `{"path": ..., "argv": [...]}`; the answer one JSON line
on RESPONSE_FD, `{"ok": bool, "stdout": what the script printed, "error": its traceback}`.
Anything written to fds 1 and 2 (XLA's logs) goes to the worker's log, never into an answer.
Between scripts the worker undoes what a script may leave behind: the library's config
options, `sys.argv`, `sys.path`, warning filters, and the test-side modules the script
imported (a script's prelude module runs afresh for each script). A script that patches the
library's own modules or counts compilations from a cold start runs in a fresh process
instead (`helpers.devices.run_fresh`)."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import runpy
import sys
import traceback
import warnings
from pathlib import Path

from helpers import memory

TESTS = Path(__file__).resolve().parent.parent


def _test_side_modules() -> set[str]:
    names = set()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve().is_relative_to(TESTS) and name != __name__:
            names.add(name)
    return names


def _run(library: str, path: str, argv: list[str]) -> dict:
    lib = sys.modules[library]
    options = dict(lib.config.values)
    saved = (sys.argv[:], sys.path[:], warnings.filters[:], _test_side_modules())
    out = io.StringIO()
    sys.argv = [path, *argv]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
        answer = {"ok": True, "stdout": out.getvalue(), "error": ""}
    except BaseException:  # noqa: B036 - the script's SystemExit or KeyboardInterrupt too
        answer = {"ok": False, "stdout": out.getvalue(), "error": traceback.format_exc()}
    finally:
        sys.argv, sys.path[:], warnings.filters[:] = saved[0], saved[1], saved[2]
        for name in _test_side_modules() - saved[3]:
            del sys.modules[name]
        for name, value in options.items():
            if lib.config.values.get(name) != value:
                lib.config.update(name, value)
        memory.give_back()  # what the script's compiles left free in the heap
    return answer


def main() -> None:
    library, fd = sys.argv[1], int(sys.argv[2])
    answers = os.fdopen(fd, "w", buffering=1)
    importlib.import_module(library).devices()  # the client starts once, before any script
    answers.write(json.dumps({"ok": True, "stdout": "ready", "error": ""}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        answers.write(json.dumps(_run(library, request["path"], request["argv"])) + "\n")


if __name__ == "__main__":
    main()
