"""Running the classroom notebooks of demo_notebooks/ for the tests in this folder: in a
real kernel (`Lessons`: a lesson's notebooks one after the other in one kernel, each once per
test session), reading what a reader sees of a cell (`shown`, `stdout`, `result`), and
replaying a notebook's cells in this process (`replay`, `exercises_here`).

Run as a script it refreshes the stored outputs, after a change to didax:

    PYTHONPATH=tests python tests/notebooks/lesson_runs.py [NAME.ipynb ...]

(that executes the notebooks and drops jaxlib's log lines, which `nbconvert --execute` keeps).
"""

from __future__ import annotations

import contextlib
import functools
import html
import importlib.util
import io
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import didax
import didax.figures
import numpy as np
import pytest
from helpers import kernels
from helpers.environment import AS_A_LEARNER

_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
try:
    import ipykernel  # noqa: F401 - the kernel the notebooks run in
    import nbformat
    from jupyter_client import AsyncKernelManager
    from nbclient import NotebookClient
    from nbclient.util import run_sync
    from nbformat.v4 import new_code_cell
except ImportError as e:  # pragma: no cover - depends on the environment
    if _CI:  # CI must run the notebooks, never skip them
        raise ImportError(f"notebook tests need nbclient, nbformat and ipykernel: {e}") from e
    pytest.skip(
        f"notebook tests need nbclient, nbformat and ipykernel: {e}", allow_module_level=True
    )

DEMOS = Path(__file__).parents[2] / "demo_notebooks"
# the script that writes demo_notebooks/student/ (and 11's solutions) from the teacher notebooks
_spec = importlib.util.spec_from_file_location("make_student", DEMOS / "make_student.py")
make_student = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_student)
COVERED_ELSEWHERE = {"01_tour.ipynb": "tests/magics/test_notebooks.py"}
# the course's notebooks and, under solutions/, the worked solutions of their exercises
NOTEBOOKS = sorted(
    str(p.relative_to(DEMOS))
    for p in [*DEMOS.glob("*.ipynb"), *DEMOS.glob("solutions/*.ipynb")]
    if p.name not in COVERED_ELSEWHERE
)
RAISES = "raises-exception"
# glog lines that jaxlib's C++ code writes to stderr, e.g.
# "I1122 08:57:51.036259   22512 pjrt_client.cc:579] PjRt-IFRT device count: ..."
JAXLIB_LOG = re.compile(
    r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.]+:\d+\] .*(\n|$)", re.MULTILINE
)
# A cell's file name holds the kernel's process id (`/tmp/ipykernel_4242/1234.py`); it shows
# wherever a cell's source location is printed (compiled HLO's FileNames, source_info).
KERNEL_PID = re.compile(r"ipykernel_\d+")


# --------------------------------------------------------------------------- running notebooks


def write_kernelspec(root: Path) -> str:
    """A kernelspec under `root` with XLA's default options (the session turns most of its
    optimizations off: `helpers.environment`), as a learner runs the lessons; put `root` on
    JUPYTER_PATH to use it (`helpers.kernels.on_jupyter_path`). Returns its name."""
    kernels.write_kernelspec(root / "kernels" / "didax-notebooks", "didax notebooks", AS_A_LEARNER)
    return "didax-notebooks"


def execute(name: str, kernel_name: str) -> Any:
    """Run a demo notebook in a fresh kernel, in its folder (as JupyterLab runs it); cells
    tagged raises-exception may raise."""
    nb = nbformat.read(DEMOS / name, as_version=4)
    NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=120,
        startup_timeout=60,
        resources={"metadata": {"path": str((DEMOS / name).parent)}},
    ).execute()
    return nb


def clean(nb: Any) -> Any:
    """Drop what changes from run to run or is not the notebook's own output (execution
    timestamps, jaxlib's log lines, how a stream happened to be split into messages)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("execution", None)
        outputs: list[Any] = []
        for out in cell.outputs:
            if out.output_type == "stream":
                out.text = KERNEL_PID.sub("ipykernel_0", JAXLIB_LOG.sub("", out.text))
                if not out.text:
                    continue
                last = outputs[-1] if outputs else None
                if last and last.output_type == "stream" and last.name == out.name:
                    last.text += out.text  # one block per stream, however it was flushed
                    continue
            elif out.output_type in ("execute_result", "display_data"):
                for key, value in out.data.items():
                    if isinstance(value, str):
                        out.data[key] = KERNEL_PID.sub("ipykernel_0", value)
            outputs.append(out)
        cell.outputs = outputs
    return nb


def shown(cell: Any) -> list[tuple[str, str]]:
    """What a reader sees of a cell's outputs, as (kind, text) pairs."""
    seen = []
    for out in cell.outputs:
        if out.output_type == "stream":
            seen.append((out.name, out.text))
        elif out.output_type in ("execute_result", "display_data"):
            seen.append((out.output_type, out.data.get("text/plain", "")))
        elif out.output_type == "error":
            seen.append(("error", _KERNEL_FILE.sub("<cell>", f"{out.ename}: {out.evalue}")))
    return seen


# A conversion error names the line that asked for a value, in the kernel's file for the cell,
# whose name (the kernel's pid) changes with every run
_KERNEL_FILE = re.compile(r"/\S*ipykernel_\d+/\d+\.py")


def stdout(cell: Any) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


def result(cell: Any) -> str:
    """The text of what the cell's last line showed: its `Out[n]`, or a view (displayed, with
    its widget, by `_ipython_display_`: a display_data holding text/plain, then its stand-in)."""
    outs = [o for o in cell.outputs if o.output_type == "execute_result"]
    outs = outs or [
        o for o in cell.outputs if o.output_type == "display_data" and "text/plain" in o.data
    ]
    (out,) = outs
    return out.data["text/plain"]


def code_cells(nb: Any) -> list[Any]:
    return [c for c in nb.cells if c.cell_type == "code"]


def cell_with(nb: Any, snippet: str) -> Any:
    found = [c for c in code_cells(nb) if snippet in c.source]
    assert len(found) == 1, f"{len(found)} cells contain {snippet!r}"
    return found[0]


# A fresh kernel costs about a second of CPU (ipykernel, `import didax`, the XLA client), so
# the notebooks of one lesson run in one kernel, once per test module: first the student
# copy (in a fresh kernel, as a learner runs it), then the teacher's notebook and its worked
# solutions, each after RESET (not kept). Whatever a notebook left in the kernel that changed
# the next one's outputs would fail test_stored_outputs_are_current: `refresh` writes the
# stored outputs from a fresh kernel each. A notebook that needs a fresh process starts a
# kernel of its own: one that asks for CPU devices (before anything runs), or whose outputs
# show what happens once per process (`%jit`'s compiler start-up).
RESET = """\
import os as _os, numpy as _np
if "didax" in get_ipython().extension_manager.loaded:
    get_ipython().extension_manager.unload_extension("didax")
_np.seterr(divide="warn", over="warn", under="ignore", invalid="warn")  # NumPy's defaults
_os.chdir({folder!r})
%reset -f
"""
FRESH_PROCESS = ("jax_num_cpu_devices", "(once per process)")


def kernel_run(key: str) -> list[str]:
    """The notebooks (paths under demo_notebooks/) run one after the other in the kernel that
    runs `key`."""
    lesson = Path(key).name[:2]
    order = ("student/", "", "solutions/")
    runs: list[list[str]] = []
    for name in sorted(
        (
            n
            for n in [f"student/{n}" for n in STUDENT_COPIES] + NOTEBOOKS
            if Path(n).name[:2] == lesson
        ),
        key=lambda n: order.index(n[: n.find("/") + 1]),
    ):
        text = (DEMOS / name).read_text(encoding="utf-8")
        if not runs or any(s in text for s in FRESH_PROCESS):
            runs.append([])
        runs[-1].append(name)
    (found,) = [r for r in runs if key in r]
    return found


class Lessons:
    """Each notebook executed once, in its lesson's kernel (`kernel_run`): `executed(key)` is
    the notebook (cleaned unless a student copy, whose test reads the cells' timing first)
    and the cells `appended` to it (by key), run after its own. A notebook that failed
    raises its error for its own tests only: the next notebook of the lesson gets a fresh
    kernel."""

    def __init__(self, kernel_name: str, appended: dict[str, list[str]]) -> None:
        self.kernel_name = kernel_name
        self.appended = appended
        self.done: dict[str, Any] = {}

    def executed(self, key: str) -> tuple[Any, list[Any]]:
        if key not in self.done:
            self._run(kernel_run(key))
        found = self.done[key]
        if isinstance(found, BaseException):
            raise found
        return found

    def _run(self, keys: list[str]) -> None:
        km = None  # the kernel; None: the next notebook starts a fresh one
        try:
            for key in keys:
                if km is not None:
                    folder = str((DEMOS / key).parent)
                    reset = nbformat.v4.new_notebook(
                        cells=[new_code_cell(RESET.format(folder=folder))]
                    )
                    try:
                        self._execute(km, key, reset)
                    except Exception:  # noqa: BLE001 - then a fresh kernel
                        km = _shut_down(km)
                km = km or AsyncKernelManager(kernel_name=self.kernel_name)
                nb = nbformat.read(DEMOS / key, as_version=4)
                own = len(nb.cells)
                for source in self.appended.get(key, []):  # tagged: an error there stops nothing
                    nb.cells.append(new_code_cell(source, metadata={"tags": [RAISES]}))
                try:
                    self._execute(km, key, nb)
                except Exception as e:  # noqa: BLE001 - raised by the notebook's own tests
                    self.done[key] = e
                    km = _shut_down(km)
                    continue
                appended = nb.cells[own:]
                del nb.cells[own:]
                self.done[key] = (nb if key.startswith("student/") else clean(nb), appended)
        finally:
            if km is not None:
                _shut_down(km)

    @staticmethod
    def _execute(km: Any, key: str, nb: Any) -> None:
        """Execute `nb` (as notebook `key` runs) in the kernel of `km`, starting it if need be."""
        client = NotebookClient(
            nb,
            km=km,
            timeout=60 if key.startswith("student/") else 120,
            startup_timeout=60,
            record_timing=True,
            resources={"metadata": {"path": str((DEMOS / key).parent)}},
        )
        try:
            client.execute()
        finally:
            if client.kc is not None:  # the client's channels; the kernel stays
                client.kc.stop_channels()


def _shut_down(km: Any) -> None:
    """Shut the kernel of `km` down; None, for `km = _shut_down(km)`: no kernel now."""
    with contextlib.suppress(Exception):  # already dead
        run_sync(km.shutdown_kernel)(now=True)


# --------------------------------------------------------------------------- in this process


def replay(name: str, skip: tuple[str, ...] = (), **names: Any) -> dict[str, Any]:
    """Run a notebook's code cells here, in order, in a namespace that starts with `names`
    (and imports rebound to them): the values a test compares with the kernel's output.
    Cells containing a snippet in `skip` are left out (didax's own views, under `jax`)."""
    ns: dict[str, Any] = {"__name__": "__notebook__"}
    nb = nbformat.read(DEMOS / name, as_version=4)
    for cell in code_cells(nb):
        if RAISES in cell.metadata.get("tags", []) or any(s in cell.source for s in skip):
            continue
        if cell.source.startswith("%%"):  # a cell magic: a view, nothing the cells after read
            continue
        source = re.sub(r"^%.*$", "pass", cell.source, flags=re.MULTILINE)  # line magics
        for alias, module in names.items():  # `import didax.numpy as jnp` -> the given module
            source = re.sub(
                rf"^(import [\w.]+ as {alias}|from [\w.]+ import [\w, ]*\b{alias}\b.*"
                rf"|import {alias})$",
                "pass",
                source,
                flags=re.MULTILINE,
            )
            ns[alias] = module
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, f"<{name} cell>", "exec"), ns)  # noqa: S102 - our notebook
    return ns


def as_jax(text: str) -> str:
    # JAX 0.10 prints some params that vmap computed as numpy scalars: `axes=(np.int64(1),)`
    return re.sub(r"np\.int64\((-?\d+)\)", r"\1", text)


# --------------------------------------------------------------------------- extending_didax

EXTENDING = "08_your_own_primitive_and_interpreter.ipynb"


# --------------------------------------------------------------------------- exercises

# (notebook, a snippet naming an exercise's checker cell, what the learner must read there):
# the first tries in the course are wrong, and the checker says which rule and input; the
# solutions pass the same checkers.
MANY = "10_many_devices.ipynb"
BUILD = "11_build_your_own_jax.ipynb"


def widget_texts(nb: Any) -> list[str]:
    """The text of every HTML widget in a notebook's stored widget state (what a front end
    with the widget manager shows), tags and styles removed."""
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    texts = []
    for model in state.values():
        value = model["state"].get("value")
        if model["model_name"] == "HTMLModel" and isinstance(value, str):
            value = re.sub(r"<style.*?</style>|<[^>]+>", "", value, flags=re.DOTALL)
            texts.append(html.unescape(value))
    return texts


# --------------------------------------------------------------------------- refreshing


def refresh(names: list[str]) -> None:
    """Execute the named notebooks (default: those this file tests) and store the outputs."""
    import tempfile

    with tempfile.TemporaryDirectory() as root, kernels.on_jupyter_path(Path(root)):
        kernel = write_kernelspec(Path(root))
        for name in names or NOTEBOOKS:
            nb = clean(execute(name, kernel))
            nb.metadata["kernelspec"] = {
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
                "name": "python3",
            }
            nbformat.validate(nb)
            nbformat.write(nb, DEMOS / name)
            print(f"refreshed {DEMOS / name}")
    make_student.main()  # the student copies (and 11's solutions) carry the new outputs


if __name__ == "__main__":
    refresh(sys.argv[1:])


# A notebook is replayed once for all of its plants (09's and 20's replays train a model);
# `exercises_here` undoes what a plant changed, so that each plant meets the worked notebook.
_replayed = functools.cache(replay)


def _rule_tables(ns: dict[str, Any]) -> list[didax.core.RuleTable]:
    """didax's rule tables and the notebook's own (08's `inverse_rules`)."""
    spaces = [vars(didax.core), ns]
    return [t for space in spaces for t in space.values() if isinstance(t, didax.core.RuleTable)]


@contextlib.contextmanager
def exercises_here(name: str) -> Iterator[dict[str, Any]]:
    """The namespace of notebook `name` replayed (once per test session); afterwards its names
    are put back as they were, and so is every rule a plant replaced (`replace=True`). A plant
    that makes a new primitive or class leaves only that new object registered."""
    ns = _replayed(name)
    names = dict(ns)
    tables = [(t, {p: t[p] for p in t.primitives()}) for t in _rule_tables(ns)]
    try:
        yield ns
    finally:
        ns.clear()
        ns.update(names)
        for table, rules in tables:
            for prim, rule in rules.items():
                if table[prim] is not rule:
                    table.register(prim, rule, replace=True)


def run_time(cell: Any) -> Any:
    """How long a cell executed by NotebookClient(record_timing=True) took to run."""
    timing = cell.metadata.execution
    return np.datetime64(timing["shell.execute_reply"][:26]) - np.datetime64(
        timing["iopub.execute_input"][:26]
    )


# Cells run after a notebook's own, in its kernel (`Lessons`): each plant of notebook 11
# is undone after its check, so that the next one meets the worked engine; then the kernel
# still works. Each of notebook 10's plants is followed by the worked answer, which passes.
BUILD_SOLVED = "solutions/11_solutions.ipynb"


# --------------------------------------------------------------------------- student copies

STUDENT_COPIES = sorted(p.name for p in (DEMOS / "student").glob("*.ipynb"))


# --------------------------------------------------------------------------- final project

PROJECT = "20_final_project.ipynb"


def svg_image(html_out: str) -> str:
    """A figure's inline SVG (the drawing a trusted notebook shows, in theme colours)."""
    (svg,) = re.findall(r'<div class="dx-svg-live" style="display:none">(<svg.*?</svg>)', html_out)
    return svg
