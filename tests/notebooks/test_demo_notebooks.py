"""The classroom notebooks in demo_notebooks/ run top to bottom in a real kernel on the
current didax (marker `notebooks`), their stored outputs are what that run prints, and the
key programs they print are the ones computed here, in this process, and by JAX.

Every notebook in demo_notebooks/ is executed here except those in `COVERED_ELSEWHERE`.
A cell tagged `raises-exception` must raise; any other cell must not, nor write to stderr
(jaxlib's C++ log lines aside). To refresh the stored outputs after a change to didax:

    PYTHONPATH=tests python tests/notebooks/test_demo_notebooks.py [NAME.ipynb ...]

(that executes the notebooks and drops jaxlib's log lines, which `nbconvert --execute` keeps).
"""

from __future__ import annotations

import contextlib
import functools
import html
import importlib.util
import io
import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import didax
import didax.figures
import numpy as np
import pytest
from float_text import outputs_match
from helpers import kernels
from helpers.environment import AS_A_LEARNER

pytestmark = pytest.mark.notebooks

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


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("jupyter")
    name = write_kernelspec(root)
    with kernels.on_jupyter_path(root):
        yield name


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
    and the cells APPENDED to it, run after its own. A notebook that failed raises its error
    for its own tests only: the next notebook of the lesson gets a fresh kernel."""

    def __init__(self, kernel_name: str) -> None:
        self.kernel_name = kernel_name
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
                for source in APPENDED.get(key, []):  # tagged: an error there stops nothing
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


@pytest.fixture(scope="module")
def lessons(kernel_name: str) -> Lessons:
    return Lessons(kernel_name)


@pytest.fixture(scope="module")
def run(lessons: Lessons) -> Any:
    """`run(name)`: the notebook executed in a kernel, once per test module."""
    return lambda name: lessons.executed(name)[0]


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


# --------------------------------------------------------------------------- every notebook


def test_every_demo_notebook_is_tested() -> None:
    assert NOTEBOOKS, "no demo notebooks found"
    for name, test in COVERED_ELSEWHERE.items():
        assert (DEMOS / name).exists() and (DEMOS.parent / test).exists(), (name, test)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_notebook_is_executed(name: str) -> None:
    nb = nbformat.read(DEMOS / name, as_version=4)
    nbformat.validate(nb)
    cells = code_cells(nb)
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1)), (
        "stored notebook is not executed top to bottom"
    )
    for cell in cells:
        for kind, text in shown(cell):
            assert not JAXLIB_LOG.search(text), (cell.source, text)
            assert (kind == "error") == (RAISES in cell.metadata.get("tags", [])), cell.source


@pytest.mark.parametrize("name", [*NOTEBOOKS, *COVERED_ELSEWHERE])
def test_stored_views_carry_their_widget_state(name: str) -> None:
    """Every stored view has its widgets' state in the notebook's metadata, so that nbconvert
    and other static renderers draw the view, not an empty box."""
    nb = nbformat.read(DEMOS / name, as_version=4)
    view = "application/vnd.jupyter.widget-view+json"
    ids = [
        out.data[view]["model_id"]
        for cell in code_cells(nb)
        for out in cell.outputs
        if view in out.get("data", {})
    ]
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    missing = [i for i in ids if i not in state.get("state", {})]
    assert not missing, f"{name}: {len(missing)} of {len(ids)} views without stored state"


# what a reader must not meet in a stored output: this machine's paths, didax's internal
# reprs, tracebacks through didax's own files
NOT_FOR_READERS = re.compile(
    r"/work/|/home/|/root/|/tmp/|site-packages|\bVar\(|\bLiteral\(|object at 0x|core/\w+\.py"
)
# ... except inside the listings of didax's own code a click on a primitive's name shows (the
# rules of `while`, say, build `Var(...)`s): the engine is the textbook (in the widget state's
# JSON text the quotes are escaped)
SOURCE_LISTING = re.compile(
    r'class=\\?"dx-link\\?"[^>]*>[^<]*</a><div class=\\?"dx-code\\?"[^>]*>.*?</div>', re.S
)


@pytest.mark.parametrize("name", [*NOTEBOOKS, *COVERED_ELSEWHERE])
def test_stored_outputs_hide_machine_paths_and_internal_reprs(name: str) -> None:
    nb = nbformat.read(DEMOS / name, as_version=4)
    # the widgets' stored state: what a front end with the widget manager shows (and hovers)
    state = SOURCE_LISTING.sub("", json.dumps(nb.metadata.get("widgets", {}), ensure_ascii=False))
    found = NOT_FOR_READERS.search(state)
    assert not found, (name, "widget state", state[max(0, found.start() - 200) :][:300])
    for cell in code_cells(nb):
        for out in cell.outputs:
            texts = [out.get("text", ""), *out.get("traceback", [])]
            texts += [v for v in out.get("data", {}).values() if isinstance(v, str)]
            for text in map(SOURCE_LISTING.sub, [""] * len(texts), texts):
                found = NOT_FOR_READERS.search(text)
                assert not found, (name, cell.source, text[max(0, found.start() - 80) :][:200])


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name: str, run: Any) -> None:
    nb = run(name)
    for cell in code_cells(nb):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if RAISES in cell.metadata.get("tags", []):
            assert errors, f"cell tagged {RAISES} did not raise:\n{cell.source}"
            continue
        assert not errors, (cell.source, [f"{o.ename}: {o.evalue}" for o in errors])
        stderr = [o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        assert not stderr, (cell.source, stderr)


# a cell tagged `timing` prints times: its stored outputs are compared with every number (and
# its unit) hidden, so that the words still must match
TIMING = "timing"
_NUMBER = re.compile(r"\d[\d.,]*(?:e[-+]?\d+)?\s*(?:ms|µs|ns|s\b|x\b)?")


# Within `%jit`'s time budget a slow (loaded) machine makes fewer eager runs, down to one, which
# has no spread to print: both forms of the line read as one. And `%timeit`'s warning that the
# slowest run took over 4x the fastest comes and goes with the machine's load: left out.
_ONE_RUN = re.compile(r"# per loop \(#run, #loops?; run more for a spread\)")
_RUNS = "# ± # per loop (mean ± std. dev. of #runs, #loops each)"
_SLOW_RUN = re.compile(
    r"^[^\n]*The slowest run took #times longer than the fastest\.[^\n]*\n", re.M
)


# With the numbers hidden, so is the layout around them: NumPy pads an array's columns and
# wraps its rows by the width of its widest float, which a last digit changes from one CPU to
# another (`-0.13840477` here, `-0.1384048` there: a row wraps after another column). Whitespace
# goes, and so does a comma after a number (`_NUMBER` takes it with the number unless padding
# came between). The words, brackets and signs still must match.
_LAYOUT = re.compile(r"\s+|(?<=#),")


def timings_hidden(seen: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [
        (kind, _LAYOUT.sub("", _SLOW_RUN.sub("", _ONE_RUN.sub(_RUNS, _NUMBER.sub("#", text)))))
        for kind, text in seen
    ]


def test_timings_hidden_keeps_words_and_signs_but_not_the_layout() -> None:
    # lesson 06's `%jit` result as stored, and as another CPU printed it (seen in CI): a last
    # digit less (`-0.1384048`) narrows the columns, so NumPy puts four on a line, not three
    here = np.full((7, 7), -0.13840477, np.float32)
    here[0, 2] = 0.5166987  # padded to the widest column: `0.5166987 ,`
    there = np.full((7, 7), -0.1384048, np.float32)
    there[0, 2] = 0.5166989
    with np.printoptions(threshold=10, edgeitems=3):
        texts = [repr(here), repr(there), str(here), str(there), repr(-there)]

    def hidden(text: str) -> list[tuple[str, str]]:
        return timings_hidden([("execute_result", text)])

    assert hidden(texts[0]) == hidden(texts[1])
    assert hidden(texts[2]) == hidden(texts[3])
    assert hidden(texts[0]) != hidden(texts[4])  # signs still count
    assert hidden(texts[0]) != hidden(texts[1].replace("array", "Array"))  # and words
    assert hidden("compiled 3 x 3 calls, eager 1 x 3 calls") == hidden(
        "compiled 3 x 3 calls, eager 3 x 3 calls"
    )


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_outputs_are_current(name: str, run: Any) -> None:
    stored = code_cells(nbformat.read(DEMOS / name, as_version=4))
    fresh = code_cells(run(name))
    assert [c.source for c in stored] == [c.source for c in fresh]
    for old, new in zip(stored, fresh, strict=True):
        if TIMING in old.metadata.get("tags", []):  # times differ from run to run
            assert timings_hidden(shown(old)) == timings_hidden(shown(new)), old.source
            continue
        # floats within float_text's tolerance: machines differ in the last digits
        assert outputs_match(shown(old), shown(new)), (
            f"stored outputs of {name} are stale; refresh them with "
            f"`PYTHONPATH=tests python tests/notebooks/test_demo_notebooks.py {name}`\n{old.source}"
        )


# --------------------------------------------------------------------------- engine_tour

TOUR = "02_engine_tour.ipynb"

# (a snippet naming the cell, the program it prints): the cell's output is that program as
# didax prints it here, and JAX prints the same program.
TOUR_JAXPRS = [
    ("closed = didax.make_jaxpr(f)(x)", "didax.make_jaxpr(f)(x)"),
    ("closed_g = didax.make_jaxpr(g)(x)", "didax.make_jaxpr(g)(x)"),
]


@functools.cache
def tour_here() -> dict[str, Any]:
    return replay(TOUR)


def test_engine_tour_prints_the_programs_didax_computes(run: Any) -> None:
    nb, ns = run(TOUR), tour_here()
    for snippet, expr in TOUR_JAXPRS:
        jaxpr = str(eval(expr, ns))
        assert jaxpr + "\n" in stdout(cell_with(nb, snippet)), expr
    first = stdout(cell_with(nb, "closed = didax.make_jaxpr(f)(x)"))
    assert first == str(didax.make_jaxpr(ns["f"])(ns["x"])) + "\n"
    # jit traces once per shape: the print inside runs for the 1st and 3rd calls only
    traces = stdout(cell_with(nb, "noisy_jit = didax.jit(noisy)")).count("tracing with")
    assert traces == 2


@pytest.mark.oracle
def test_engine_tour_programs_are_jax_programs() -> None:
    """What the intro promises: with `didax` replaced by `jax`, the tour runs unchanged and
    prints the same programs, costs and derivatives."""
    jax = pytest.importorskip("jax")
    # the Stepper is didax's view (didax.widgets): it has no JAX counterpart to run
    didax_only = ("Stepper(", "stepper.")
    ns, jax_ns = tour_here(), replay(TOUR, didax_only, didax=jax, jnp=jax.numpy, lax=jax.lax)
    for _, expr in TOUR_JAXPRS:
        assert str(eval(expr, ns)) == as_jax(str(eval(expr, jax_ns))), expr
    for expr in (
        "f(x)",
        "per_row",
        "didax.jvp(f, (x,), (jnp.ones(3),))[1]",
    ):
        np.testing.assert_allclose(
            np.asarray(eval(expr, ns)),
            np.asarray(eval(expr, jax_ns)),
            rtol=1e-4,
            atol=1e-5,
            err_msg=expr,
        )


def test_engine_tour_composes_the_transformations(run: Any) -> None:
    """Section 4: jit(vmap(grad(f))) gives one gradient per row, row 0 being grad(f)(x), as
    the cell prints it (the lessons 03-07 take each transformation apart)."""
    ns = tour_here()
    out = stdout(cell_with(run(TOUR), "per_row = didax.jit(didax.vmap(didax.grad(f)))(xs)"))
    lines = out.splitlines()
    assert lines[0] == "(4, 3)"
    looped = np.stack([np.asarray(didax.grad(ns["f"])(row)) for row in ns["xs"]])
    np.testing.assert_allclose(np.asarray(ns["per_row"]), looped, rtol=1e-6)
    assert lines[1] == "row 0 is grad(f)(x): True"
    assert lines[2] == str(didax.jvp(ns["f"], (ns["x"],), (ns["jnp"].ones(3),)))


# --------------------------------------------------------------------------- extending_didax

EXTENDING = "08_your_own_primitive_and_interpreter.ipynb"


@functools.cache
def extending_here() -> dict[str, Any]:
    return replay(EXTENDING)


def test_extending_prints_what_didax_computes(run: Any) -> None:
    nb, ns = run(EXTENDING), extending_here()
    a, b = ns["a"], ns["b"]
    jaxpr = didax.make_jaxpr(ns["square_add"])(a, b)
    assert [e.primitive for e in jaxpr.jaxpr.eqns] == [ns["multiply_add_p"]]
    assert stdout(cell_with(nb, "def multiply_add_abstract_eval")) == str(jaxpr) + "\n"
    grad_text = stdout(cell_with(nb, "def multiply_add_transpose"))
    assert str(didax.make_jaxpr(didax.grad(ns["loss"]))(a, b)) + "\n" in grad_text
    assert grad_text.count("multiply_add") == 3  # forward, and once per use of `a` backward
    lowered = stdout(cell_with(nb, "def multiply_add_lowering"))
    assert ns["square_add_jit"].lower(a, b).as_text() + "\n" in lowered
    assert "stablehlo.multiply" in lowered and "stablehlo.add" in lowered
    assert stdout(cell_with(nb, "ours = program(square_add)")).endswith("\nTrue\n")
    inverse_jaxpr = didax.make_jaxpr(ns["f_inv"])(ns["f"](0.5))
    assert stdout(cell_with(nb, "f_inv = inverse(f)")).endswith(str(inverse_jaxpr) + "\n")
    assert "tanh" not in str(inverse_jaxpr) and "exp" not in str(inverse_jaxpr)


@pytest.mark.oracle
def test_extending_values_match_jax() -> None:
    """The new primitive is `a * a + b` and `inverse(f)` is `arctanh(log(y))`: JAX computes
    the notebook's compositions from those."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    ns = extending_here()
    a, b, batch, ys = (np.asarray(ns[k]) for k in ("a", "b", "batch", "ys"))

    def close(got: Any, want: Any) -> None:
        for g, w in zip(
            jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True
        ):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-5)

    square_add = lambda a, b: a * a + b
    close(
        ns["ours"],
        (
            jax.vmap(jax.grad(lambda a, b: jnp.sum(square_add(a, b) * a)), (0, None))(batch, b),
            jax.grad(jax.grad(lambda s: jnp.sum(square_add(s * a, b) * (s * a))))(1.0),
        ),
    )
    close(didax.jvp(ns["square_add"], (a, b), (b, a)), jax.jvp(square_add, (a, b), (b, a)))
    close(
        didax.vmap(ns["square_add"], in_axes=(0, None))(batch, b),
        jax.vmap(square_add, in_axes=(0, None))(batch, b),
    )
    f_inverse = lambda y: jnp.arctanh(jnp.log(y))
    close(
        didax.jit(didax.vmap(didax.grad(ns["inverse"](ns["f"]))))(ys),
        jax.jit(jax.vmap(jax.grad(f_inverse)))(ys),
    )
    close(ns["inverse"](ns["g"])(ns["g"](a)), a)


# --------------------------------------------------------------------------- exercises

# (notebook, a snippet naming an exercise's checker cell, what the learner must read there):
# the first tries in the course are wrong, and the checker says which rule and input; the
# solutions pass the same checkers.
MANY = "10_many_devices.ipynb"
BUILD = "11_build_your_own_jax.ipynb"

EXERCISES = [
    (
        "03_forward_mode.ipynb",
        "def cube_jvp",
        "✗ not yet — check_rules(cube): the jvp rule is wrong for input 0.",
    ),
    (
        "03_forward_mode.ipynb",
        "def softplus_jvp",
        "✗ not yet — check_rules(softplus): the jvp rule is wrong for input 0.",
    ),
    ("03_forward_mode.ipynb", "def energy", "✗ not yet — check_grads:\n  Not equal to tolerance"),
    (
        "03_forward_mode.ipynb",
        "def tuple_jvp",
        "✗ not yet — check_rules(cube_slip): the jvp rule must return two lists, [outputs] and "
        "[output tangents]; it returned (f32[3], f32[3])\n"
        "✗ not yet — check_rules(cube_slip): the jvp rule's tangent of output 0 is f32[], but "
        "the output is f32[3]",
    ),
    (
        "05_vmap.ipynb",
        "def sum_last_vmap",
        "✗ not yet — check_rules(sum_last): the vmap rule says output 0 has its batch axis at 2, "
        "but that output is f32[2,3], with 2 axes",
    ),
    (
        "04_reverse_mode.ipynb",
        "first try: all?",
        "✗ not yet — the jvp of sum(sin(x) * x), equation 2 (mul): you say known, partial "
        "evaluation stages it",
    ),
    (
        "solutions/04_solutions.ipynb",
        "def unknown_equations",
        "✓ your marks agree with partial_eval_jaxpr on 3 programs",
    ),
    ("solutions/03_solutions.ipynb", "def cube_jvp", "✓ all rules pass: abstract_eval, jvp"),
    ("solutions/03_solutions.ipynb", "def softplus_jvp", "✓ all rules pass: abstract_eval, jvp"),
    (
        "solutions/03_solutions.ipynb",
        "def energy",
        "✓ energy: forward mode matches finite differences",
    ),
    (
        EXTENDING,
        "def jit_inverse",
        "✗ not yet — AssertionError: step 1: inverse(jit(f))(f(0.5)) is 1.58743, expected 0.5;",
    ),
    (
        "solutions/08_solutions.ipynb",
        "def jit_inverse",
        "✓ inverse works through jit and integer_pow; slope 0.0416667 = 1/24",
    ),
    (
        MANY,
        "def global_max",
        "✗ not yet — the devices hold 0.503 0.990 0.621 0.694, but the largest value of all is",
    ),
    ("solutions/10_solutions.ipynb", "def global_max", "✓ every device holds the global maximum"),
    (BUILD, "def bind(op, *args):", "✓ step 1 (eval):"),
    (BUILD, "grad(lambda y: add(mul(y, y)", "[1.         2.54030231 3.58385316]"),
    *[
        ("solutions/11_solutions.ipynb", f'course.check("{step}"', f"✓ step {n} ({step}):")
        for n, step in enumerate(("eval", "jvp", "stage", "vmap", "linearize", "grad"), 1)
    ],
]


@pytest.mark.parametrize(("name", "snippet", "message"), EXERCISES)
def test_exercise_checkers_tell_the_learner(
    name: str, snippet: str, message: str, run: Any
) -> None:
    assert message in stdout(cell_with(run(name), snippet))


@pytest.mark.parametrize("name", [*NOTEBOOKS, *COVERED_ELSEWHERE])
def test_links_open_in_lab(name: str) -> None:
    """Lab started as `jupyter lab demo_notebooks/` serves nothing outside that folder: the
    notebook's links to didax's modules go through `didax_source`, a link to ../core inside
    it, and each points at a file that exists."""
    nb = nbformat.read(DEMOS / name, as_version=4)
    text = "".join(c.source for c in nb.cells if c.cell_type == "markdown")
    targets = [t for t in re.findall(r"\]\(([^)#]+)\)", text) if "://" not in t]
    if "11_" in name:
        assert any("didax_source/interpreters/" in t for t in targets), targets
    for target in targets:
        path = ((DEMOS / name).parent / target).resolve()
        inside = os.path.normpath((DEMOS / name).parent / target)
        assert inside.startswith(str(DEMOS)), target  # not above Lab's root
        assert path.exists(), target


def test_build_your_own_shows_perturbation_confusion(run: Any) -> None:
    nb = run("solutions/11_solutions.ipynb")
    assert stdout(cell_with(nb, "def derivative(f, x):")) == "1.0\n"  # tagged: right
    assert stdout(cell_with(nb, "class UntaggedJVP")) == "2.0\n"  # untagged: confused


def test_forward_mode_avoids_perturbation_confusion(run: Any) -> None:
    nb = run("03_forward_mode.ipynb")
    assert result(cell_with(nb, "naive_derivative(lambda x")) == "2.0"  # the naive Dual's answer
    assert result(cell_with(nb, "derivative(lambda x: x * derivative")).startswith("Array(1.")
    jaxpr = stdout(cell_with(nb, "didax.jvp(g, (x,), (t,))"))
    g = lambda x: didax.numpy.sin(x) * 2.0 + x * x
    x = didax.numpy.array([0.0, 1.5, 3.0])
    t = didax.numpy.ones(3)
    assert jaxpr == str(didax.make_jaxpr(lambda x, t: didax.jvp(g, (x,), (t,)))(x, t)) + "\n"


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


def test_engine_tour_steps_through_a_jaxpr(run: Any) -> None:
    nb, ns = run(TOUR), tour_here()
    first = result(cell_with(nb, "stepper = Stepper(closed, x)"))
    assert first == "step 0: next is sin in program\n  a = f32[3] [0.5 1.  2. ]   (program)"
    stepped = stdout(cell_with(nb, 'stepper.buttons["next"].click()'))
    lines = stepped.splitlines()
    assert lines[0] == "step 3: next is add in program" and len(lines) == 6
    assert lines[-1] == f"done after 6 steps - output: {str(ns['f'](ns['x']))}"
    # the stored widget state shows the stepper where the last click left it
    assert any("done after 6 steps" in t for t in widget_texts(nb))


def test_reverse_mode_shows_the_stage_diff(run: Any) -> None:
    """The view of `%grad --jaxpr` marks each later stage's equations with the equation of f
    they were derived from and their role, as the notebook's text reads them."""
    texts = " ".join(" ".join(t.split()) for t in widget_texts(run("04_reverse_mode.ipynb")))
    for line in (
        "c:f32[3] = sin a primal of eqn 0",
        "d:f32[3] = cos a tangent of eqn 0",
        "e:f32[3] = mul b d tangent of eqn 0",
        "e:f32[3] = broadcast_in_dim d transpose of eqn 2",
    ):
        assert line in texts, line


def test_control_flow_debug_print_runs_with_the_values(run: Any) -> None:
    out = stdout(cell_with(run("07_control_flow.ipynb"), "def double(x):"))
    assert out == (
        "-- jit, called twice: traced once, run twice\n"
        "print sees JitTracer(~float32[])\n"
        "debug.print sees 1.0\ndebug.print sees 2.0\n"
        "-- vmap over three examples\n"
        "print sees VmapTracer(aval=float32[], batched=float32[3])\n"
        "debug.print sees 0.0\ndebug.print sees 1.0\ndebug.print sees 2.0\n"
        "-- grad\n"
        "print sees GradTracer(primal=3.0, typeof(tangent)=f32[])\n"
        "debug.print sees 3.0\n"
    )


@pytest.mark.oracle
def test_control_flow_debug_print_is_jax_debug_print() -> None:
    """With `didax` replaced by `jax`, the debug.print cell prints the same lines."""
    jax = pytest.importorskip("jax")
    source = cell_with(nbformat.read(DEMOS / "07_control_flow.ipynb", as_version=4), "def double")
    printed = []
    for module, jnp in ((didax, didax.numpy), (jax, jax.numpy)):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(source.source, {"didax": module, "jnp": jnp})  # noqa: S102 - our notebook
            getattr(module, "effects_barrier", lambda: None)()
        printed.append(out.getvalue())
    assert printed[0] == printed[1]


def test_reverse_mode_prints_the_programs_didax_computes(run: Any) -> None:
    nb = run("04_reverse_mode.ipynb")
    x = didax.numpy.array([0.5, 1.0, 2.0])
    f = lambda x: didax.numpy.sum(didax.numpy.sin(x) * x)
    _, f_lin = didax.linearize(f, x)
    _, f_vjp = didax.vjp(f, x)
    lin = str(didax.make_jaxpr(f_lin)(didax.numpy.ones(3)))
    assert stdout(cell_with(nb, "y, f_lin = didax.linearize(f, x)")).startswith(lin + "\n")
    assert stdout(cell_with(nb, "y, f_vjp = didax.vjp(f, x)")).startswith(
        str(didax.make_jaxpr(f_vjp)(1.0)) + "\n"
    )
    assert "broadcast_in_dim" in str(didax.make_jaxpr(f_vjp)(1.0))  # what the text predicts


def test_vmap_notebook_prints_the_batched_program(run: Any) -> None:
    nb, ns = run("05_vmap.ipynb"), replay("05_vmap.ipynb")
    batched = didax.make_jaxpr(didax.vmap(ns["f"], in_axes=(0, None)))(ns["xs"], ns["w"])
    assert stdout(cell_with(nb, "print(didax.vmap(f, in_axes=(0, None))(xs, w))")).endswith(
        str(batched) + "\n"
    )
    assert stdout(cell_with(nb, "looped = jnp.stack")).endswith("same as a loop: True\n")


def test_jit_notebook_follows_the_pipeline(run: Any) -> None:
    nb = run("06_jit_and_xla.ipynb")

    def f(x: Any) -> Any:
        return didax.numpy.sum(didax.numpy.exp(x) * 2.0)

    x = didax.numpy.arange(4.0)
    text = stdout(cell_with(nb, "lowered = f_jit.lower(x)"))
    assert text == f"{didax.make_jaxpr(f)(x)}\n{didax.jit(f).lower(x).as_text()}\n"
    assert "fusion" in stdout(cell_with(nb, "compiled = lowered.compile()"))
    (view,) = [
        o.data["text/plain"]
        for o in cell_with(nb, "%jit").outputs
        if "text/plain" in o.get("data", {})
    ][:1]
    speed_up = re.search(r"speed-up +([\d.]+)x", view)
    assert speed_up and float(speed_up[1]) > 2, view  # ten fused steps on a large array
    cost = re.search(r"compiling costs (\d+) eager calls", stdout(cell_with(nb, "tiny = lambda")))
    assert cost and int(cost[1]) > 10
    hint = stdout(cell_with(nb, "def repeat_double"))
    assert "static_argnums" in hint and "ipykernel" not in hint and hint.endswith("8.0\n")


def test_control_flow_steps_into_the_loop(run: Any) -> None:
    nb = run("07_control_flow.ipynb")
    stepped = result(cell_with(nb, "stepper = Stepper("))
    assert stepped.startswith("step 7: next is add in program > while iteration 3\n"), stepped
    assert "g = f32[] 4.   (program > while iteration 2)" in stepped


def test_vmap_notebook_shows_the_vmap_view(run: Any) -> None:
    nb = run("05_vmap.ipynb")
    (view,) = [o.data["text/plain"] for o in cell_with(nb, "%vmap").outputs[:1]]
    one, _, batched = view.partition("batched program")
    assert "per-example program" in one and "broadcast_in_dim" not in one
    assert "broadcast_in_dim" in batched and "reduce_sum[axes=(1,)" in batched


def test_control_flow_notebook_prints_the_programs_didax_computes(run: Any) -> None:
    nb, ns = run("07_control_flow.ipynb"), replay("07_control_flow.ipynb")
    cond = str(didax.make_jaxpr(ns["relu_cond"])(2.0))
    assert stdout(cell_with(nb, "def relu_cond")).endswith(cond + "\n")
    loop = str(didax.make_jaxpr(ns["doublings_to_exceed"])(1.0, 100.0))
    assert stdout(cell_with(nb, "def doublings_to_exceed")) == f"7\n{loop}\n"
    assert "static_argnums" in stdout(cell_with(nb, "def relu_python"))
    assert "lax.scan" in stdout(cell_with(nb, "explain(didax.grad("))


def test_mlp_trains_and_takes_per_example_gradients(run: Any) -> None:
    nb = run("09_train_an_mlp.ipynb")
    start, end = map(float, re.findall(r"(\d+\.\d+)", stdout(cell_with(nb, "def sgd_step"))))
    assert end < start / 5, (start, end)
    shapes = result(cell_with(nb, "per_example = didax.vmap"))
    assert shapes.startswith(
        "([((8, 1, 32), (8, 32)), ((8, 32, 32), (8, 32)), ((8, 32, 1), (8, 1))]"
    )
    (curve,) = [svg_image(o.data["text/html"]) for o in cell_with(nb, 'loss_curve({"SGD').outputs]
    assert 'class="dx-curve-0"' in curve and ">step</text>" in curve
    assert "loss (log scale)" in curve
    # the lesson's learning rate descends at every step; 0.1 spikes, as the text explains
    compared = stdout(cell_with(nb, "went_up = lambda"))
    went_up = re.fullmatch(
        r"steps that raised the loss: (\d+) at lr = 0.1, 0 at lr = 0.02\n", compared
    )
    assert went_up and int(went_up[1]) > 10, compared


# --------------------------------------------------------------------------- many devices

# The notebook's code cells run under JAX 0.10.2 in a process with 4 devices (the count is
# fixed when a runtime starts, so not here): `didax` -> `jax`, the sharding names from
# `jax.sharding`; each cell's printed text, as JSON. The sharding picture is left out (JAX
# draws it with `rich`, not a test dependency) and compared by the shard shapes after it.
_UNDER_JAX = """
import contextlib, io, json, sys
import jax
cells = json.loads(sys.stdin.read())
ns, printed = {}, []
for source in cells:
    source = (source.replace("import didax.numpy as jnp", "import jax.numpy as jnp")
              .replace("from didax import lax", "from jax import lax")
              .replace("from didax.sharding import", "from jax.sharding import")
              .replace("import didax", "import jax as didax")
              .replace("didax.debug.visualize_array_sharding(", "("))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<cell>", "exec"), ns)
    printed.append(out.getvalue())
print(json.dumps(printed))
"""


def test_many_devices_agree_with_one_device(run: Any) -> None:
    nb = run(MANY)
    for snippet in ("ys = didax.pmap", "def parallel_step", "step = didax.jit", "def block_step"):
        assert "True" in stdout(cell_with(nb, snippet)).split(), snippet
    hlo = stdout(cell_with(nb, "compiled = step.lower")).splitlines()
    assert hlo[1] == "['f32[1]', 'f32[8,3]', 'f32[3,1]', 'f32[8,1]']"  # one device's blocks
    assert hlo[2] == "True"  # XLA inserted an all-reduce
    assert "psum[axes=(0,)" in stdout(cell_with(nb, "def normalize"))
    assert "shard_map[" in stdout(cell_with(nb, "ys = didax.pmap"))


@pytest.mark.oracle
def test_many_devices_prints_what_jax_prints(run: Any) -> None:
    pytest.importorskip("jax")
    import subprocess

    nb = run(MANY)
    cells = code_cells(nb)
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    proc = subprocess.run(
        [sys.executable, "-c", _UNDER_JAX],
        input=json.dumps([c.source for c in cells]),
        env={**env, **AS_A_LEARNER, "JAX_PLATFORMS": "cpu", "TF_CPP_MIN_LOG_LEVEL": "2"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for cell, text in zip(cells, theirs, strict=True):
        ours = stdout(cell)
        if "visualize_array_sharding" in cell.source:
            ours = ours.splitlines()[-1:]
            text = text.splitlines()
        elif "compiled = step.lower" in cell.source:  # JAX's Shardy program: other HLO names
            ours, text = ours.splitlines()[2:], text.splitlines()[2:]
        elif "check_global_max(global_max)" in cell.source:  # the same verdict
            ours, text = ours.split(" — ")[0], text.split(" — ")[0]
        else:  # JAX prints some integer params as `np.int64(1)`
            text = re.sub(r"np\.int64\((\d+)\)", r"\1", text)
            text = text.replace("ArrayImpl", "Array")
        assert ours == text, cell.source


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


# --------------------------------------------------------------------------- wrong answers

# (notebook, checker, a wrong answer as code that defines `answer`, what the message must
# say): every exercise's checker is safe to get wrong. An endless loop, an exception, a
# wrong value or shape gets a message naming the exercise's step within 10 s, and the
# namespace still works afterwards (the checker runs again on the worked answer).
PLANTED_ANSWERS = [
    (
        "03_forward_mode.ipynb",
        "check",
        "p = new_unary('softplus_np', lambda x: np.log1p(np.exp(x)))\n"
        "core.jvp_rules.register(p)(lambda primals, tangents: (\n"
        "    [p.bind(primals[0])], [tangents[0] / (1.0 + np.exp(-primals[0]))]))\n"
        "run_check = lambda: check(p, np.array([-2.0, 0.0, 3.0]))",
        "✗ not yet — check_rules(softplus_np), the jvp rule on tracers (as under jit): "
        "TracerArrayConversionError",
    ),
    (
        "03_forward_mode.ipynb",
        "check",
        "p = new_unary('cube_raises', lambda x: x ** 3)\n"
        "core.jvp_rules.register(p)(lambda primals, tangents: {}['no rule'])\n"
        "run_check = lambda: check(p, np.array([0.5, 2.0]))",
        "✗ not yet — check_rules(cube_raises): the jvp rule failed for input 0",
    ),
    (
        "04_reverse_mode.ipynb",
        "check_unknowns",
        "def answer(jaxpr, unknown_inputs):\n    while True:\n        pass",
        "✗ not yet — unknown_equations on the jvp of sum(sin(x) * x) did not finish within",
    ),
    (
        "04_reverse_mode.ipynb",
        "check_unknowns",
        "answer = lambda jaxpr, unknown_inputs: [True]",
        "✗ not yet — the jvp of sum(sin(x) * x) has 9 equations, you marked 1",
    ),
    (
        "04_reverse_mode.ipynb",
        "check_unknowns",
        "answer = lambda jaxpr, unknown_inputs: [unknown_inputs[5] for e in jaxpr.eqns]",
        "✗ not yet — unknown_equations on the jvp of sum(sin(x) * x): IndexError",
    ),
    (
        "07_control_flow.ipynb",
        "check_sqrt",
        "def answer(a):\n"
        "    return lax.while_loop(lambda g: jnp.abs(g * g - a) >= 1e-4,\n"
        "                          lambda g: (g - a / g) / 2, a)",
        "✗ not yet — newton_sqrt(2.0) did not finish in 1,000 steps",
    ),
    (
        "07_control_flow.ipynb",
        "check_sqrt",
        "def answer(a):\n    return a / 0 if a is None else [][0]",
        "✗ not yet — newton_sqrt(2.0): IndexError: list index out of range",
    ),
    ("07_control_flow.ipynb", "check_sqrt", "answer = lambda a: a", "newton_sqrt(2.0) = 2.0"),
    (
        "07_control_flow.ipynb",
        "check_sqrt",
        "answer = lambda a: jnp.stack([a, a])",
        "✗ not yet — newton_sqrt(2.0): TypeError",
    ),
    (
        "07_control_flow.ipynb",
        "check_clip",
        "answer = lambda x: x if x > 0.1 else 0.0 * x",
        "✗ not yet — clip_small under jit: TracerBoolConversionError",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        "answer = didax.jit(lambda x, n: x ** n if n > 1 else x)",
        "✗ not yet — power_jit(x, 5): TracerBoolConversionError",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        "answer = didax.jit(power, static_argnums=0)",
        "The error was:\n  TypeError: unhashable type",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        "def answer(x, n):\n"
        "    return lax.while_loop(lambda c: c[0] >= 0, lambda c: (c[0] + 1, c[1] * x),\n"
        "                          (0, jnp.ones_like(x)))[1]",
        "✗ not yet — power_loop(2, 2) did not finish in 1,000 steps",
    ),
    (
        "08_your_own_primitive_and_interpreter.ipynb",
        "check_inverse_exercise",
        "def answer(out, x, *, jaxpr, **params):\n    return [[out]]",
        "✗ not yet — step 1: inverse(jit(f))(f(0.5)): ",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        "answer = lambda params, grads: didax.tree.map(lambda p, g: p - 3.0 * g, params, grads)",
        "though each step starts downhill: the learning rate is too large",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        "answer = lambda params, grads: didax.tree.map(lambda p, g: p + 0.01 * g, params, grads)",
        "the update steps along the gradient, uphill",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        "answer = lambda params, grads: params[0]",
        "✗ not yet — the update changed the structure of the parameters",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_per_example",
        "answer = didax.vmap(didax.grad(loss), in_axes=(0, 0, 0))",
        "✗ not yet — my_per_example(params, xs, ys): ValueError",
    ),
]


# every rule-checking exercise (03, 04, 05) and every checker of 06-09: a rule or a function
# that never returns (each checker runs the learner's code under course.call_bounded, or
# traces it so before stepping it with course.run_bounded), an exception, a wrong shape
def _rule(table: str, name: str, make: str, body: str, args: str) -> str:
    """Plant code: a primitive `name` (made by the notebook's `make`) whose `table` rule runs
    `body`, checked by the notebook's `check` on `args`."""
    signature = {"jvp": "primals, tangents", "transpose": "cts, x, w", "vmap": "n, vals, dims"}
    return (
        f"p = {make.format(name=name)}\n@core.{table}_rules.register(p)\n"
        f"def rule({signature[table]}):\n    {body}\nrun_check = lambda: check(p, {args})"
    )


LOOP = "while True:\n        pass"
CUBE = "new_unary('{name}', lambda x: x ** 3)"
SCALE = "new_primitive('{name}', np.multiply, lambda x, w: x)"
SUM_LAST = "new_primitive('{name}', lambda x: np.sum(x, axis=-1), lambda s: s[:-1])"
TWO = "np.array([0.5, 2.0])"
PLANTED_ANSWERS += [
    (
        "03_forward_mode.ipynb",
        "check",
        _rule("jvp", "cube_loop", CUBE, LOOP, TWO),
        "✗ not yet — check_rules(cube_loop) did not finish within",
    ),
    (
        "03_forward_mode.ipynb",
        "check",
        _rule("jvp", "cube_shape", CUBE, "return [p.bind(primals[0])], [jnp.ones(5)]", TWO),
        "✗ not yet — check_rules(cube_shape): the jvp rule's tangent of output 0 is f32[5]",
    ),
    (
        "03_forward_mode.ipynb",
        "check_energy",
        "core.jvp_rules.register(cube_p, lambda p, t: {}['no rule'], replace=True)\n"
        "run_check = check_energy",
        "✗ not yet — check_grads(energy): KeyError: 'no rule'\n"
        "  Likely cause: cube's jvp rule (exercise 1)",
    ),
    (
        "03_forward_mode.ipynb",
        "check_energy",
        f"def loop(p, t):\n    {LOOP}\n"
        "core.jvp_rules.register(cube_p, loop, replace=True)\nrun_check = check_energy",
        "✗ not yet — check_grads(energy) did not finish within",
    ),
    (
        "04_reverse_mode.ipynb",
        "check",
        _rule("transpose", "scale_loop", SCALE, LOOP, f"{TWO}, {TWO}"),
        "✗ not yet — check_rules(scale_loop) did not finish within",
    ),
    (
        "04_reverse_mode.ipynb",
        "check",
        _rule("transpose", "scale_raises", SCALE, "return {}['no rule']", f"{TWO}, {TWO}"),
        "✗ not yet — check_rules(scale_raises): the transpose rule failed for linear inputs",
    ),
    (
        "04_reverse_mode.ipynb",
        "check",
        _rule("transpose", "scale_shape", SCALE, "return [jnp.ones(5), None]", f"{TWO}, {TWO}"),
        "the cotangent of input 0 has shape (5,), the input has shape (2,)",
    ),
    (
        "05_vmap.ipynb",
        "check",
        _rule("vmap", "sum_loop", SUM_LAST, LOOP, "np.ones((2, 3))"),
        "✗ not yet — check_rules(sum_loop) did not finish within",
    ),
    (
        "05_vmap.ipynb",
        "check",
        _rule("vmap", "sum_raises", SUM_LAST, "return {}['no rule']", "np.ones((2, 3))"),
        "✗ not yet — check_rules(sum_raises): the vmap rule failed for in_axes (0,)",
    ),
    (
        "05_vmap.ipynb",
        "check",
        _rule("vmap", "sum_shape", SUM_LAST, "return [jnp.ones(7)], [0]", "np.ones((2, 3))"),
        "✗ not yet — check_rules(sum_shape): the vmap rule is wrong for in_axes (0,)",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        f"def answer(x, n):\n    {LOOP}",
        "✗ not yet — power_jit(x, 5) did not finish within",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        f"def answer(x, n):\n    {LOOP}",  # a Python loop: it never ends while traced
        "✗ not yet — power_loop(2, 2) did not finish within",
    ),
    (
        "07_control_flow.ipynb",
        "check_clip",
        f"def answer(x):\n    {LOOP}",
        "✗ not yet — clip_small under jit did not finish within",
    ),
    (
        "07_control_flow.ipynb",
        "check_sqrt",
        f"def answer(a):\n    {LOOP}",
        "✗ not yet — newton_sqrt(2.0) did not finish within",
    ),
    (
        "08_your_own_primitive_and_interpreter.ipynb",
        "check_inverse_exercise",
        f"def answer(out, x, *, jaxpr, **params):\n    {LOOP}",
        "✗ not yet — step 1: inverse(jit(f))(f(0.5)): StepLimit: did not finish within",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_per_example",
        f"def answer(params, xs, ys):\n    {LOOP}",
        "✗ not yet — my_per_example(params, xs, ys): StepLimit: did not finish within",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_per_example",
        "answer = lambda params, xs, ys: didax.tree.map(lambda g: 2 * g, "
        "didax.vmap(didax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys))",
        "✗ not yet — leaf 0: values differ from a loop of grads by up to",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        f"def answer(params, grads):\n    {LOOP}",
        "✗ not yet — update(params, grads): StepLimit: did not finish within",
    ),
]


# the kinds the lists above leave out, so that every checker meets a wrong value, a wrong
# shape, an exception and an endless loop (12-16's own lists come after the test)
PLANTED_ANSWERS += [
    (
        "03_forward_mode.ipynb",
        "check",
        _rule("jvp", "cube_value", CUBE, "return [p.bind(primals[0])], [2.0 * tangents[0]]", TWO),
        "✗ not yet — check_rules(cube_value): the jvp rule is wrong for input 0.",
    ),
    (
        "03_forward_mode.ipynb",
        "check_energy",
        "core.jvp_rules.register(cube_p, lambda p, t: ([cube(p[0])], [2.0 * p[0] * t[0]]), "
        "replace=True)\nrun_check = check_energy",
        "✗ not yet — check_grads:\n  Not equal to tolerance",
    ),
    (
        "03_forward_mode.ipynb",
        "check_energy",
        "core.jvp_rules.register(cube_p, lambda p, t: ([cube(p[0])], [jnp.ones(5)]), "
        "replace=True)\nrun_check = check_energy",
        "✗ not yet — check_grads(energy): TypeError: mul got incompatible shapes",
    ),
    (
        "04_reverse_mode.ipynb",
        "check",
        _rule("transpose", "scale_value", SCALE, "return [cts[0], None]", f"{TWO}, {TWO}"),
        "✗ not yet — check_rules(scale_value): the transpose rule is wrong for linear inputs",
    ),
    (
        "04_reverse_mode.ipynb",
        "check_unknowns",
        "answer = lambda jaxpr, unknown_inputs: [False] * len(jaxpr.eqns)",
        "✗ not yet — the jvp of sum(sin(x) * x), equation 2 (mul): you say known",
    ),
    (
        "05_vmap.ipynb",
        "check",
        _rule(
            "vmap",
            "sum_value",
            SUM_LAST,
            "return [jnp.sum(to_front(vals[0], dims[0], n), axis=1)], [0]",
            "np.ones((2, 3)) * np.arange(3.0)",
        ),
        "✗ not yet — check_rules(sum_value): the vmap rule is wrong for in_axes (0,)",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        "answer = lambda x, n: jnp.ones(3)",
        "✗ not yet — power_jit(x, 5): ValueError: operands could not be broadcast together",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_power",
        "answer = lambda x, n: x",
        "✗ not yet — power_jit(x, 5): AssertionError: power_jit([1, 2], 5) = [1. 2.]",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        "answer = lambda x, n: 1 / 0",
        "✗ not yet — power_loop(2, 2): ZeroDivisionError",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        "answer = lambda x, n: jnp.ones(3)",
        "✗ not yet — power_loop(2, 2): AssertionError: power_loop(2, 2) = [1. 1. 1.]",
    ),
    (
        "06_jit_and_xla.ipynb",
        "check_one_trace",
        "answer = lambda x, n: x",
        "✗ not yet — power_loop(2, 2): AssertionError: power_loop(2, 2) = [2.], expected 4.0",
    ),
    (
        "07_control_flow.ipynb",
        "check_clip",
        "answer = lambda x: jnp.stack([x, x])",
        "✗ not yet — clip_small under jit: TypeError",
    ),
    (
        "07_control_flow.ipynb",
        "check_clip",
        "answer = lambda x: x",
        "✗ not yet — clip_small under jit: AssertionError: expected [0.0, -0.5, 2.0], got",
    ),
    (
        "08_your_own_primitive_and_interpreter.ipynb",
        "check_inverse_exercise",
        "def answer(out, x, *, jaxpr, **params):\n    return {}['no rule']",
        "✗ not yet — step 1: inverse(jit(f))(f(0.5)): KeyError: 'no rule'",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_per_example",
        "answer = lambda params, xs, ys: didax.grad(loss)(params, xs, ys)",
        "✗ not yet — leaf 0: expected one gradient per example, shape (4, 1, 32), got (1, 32)",
    ),
    (
        "09_train_an_mlp.ipynb",
        "check_update",
        "answer = lambda params, grads: 1 / 0",
        "✗ not yet — update(params, grads): ZeroDivisionError: division by zero",
    ),
]


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


@pytest.mark.parametrize(("name", "checker", "answer", "message"), PLANTED_ANSWERS)
def test_a_planted_wrong_answer_gets_a_message(
    name: str, checker: str, answer: str, message: str
) -> None:
    with exercises_here(name) as ns:
        said = _answer_planted(ns, checker, answer)
    assert message in said, said
    assert not said.rstrip().endswith("The error was:"), said  # not cut before the reason


def _answer_planted(ns: dict[str, Any], checker: str, answer: str) -> str:
    """Run `answer` in `ns`, then its checker: what the checker printed (within 10 s)."""
    exec(answer, ns)  # noqa: S102 - the test's own code
    check = ns[checker]
    if "run_check" in ns:  # the answer is a primitive with rules, checked by the code given
        run_it = ns.pop("run_check")
    elif checker == "check_linear":  # the answer is the class `Linear` as (re)defined
        run_it = check
    elif checker == "check_inverse_exercise":  # the learner's answer is a registered rule
        ns["inverse_rules"].register(ns["jit_p"], ns["answer"], replace=True)
        run_it = check
    else:
        run_it = functools.partial(check, ns["answer"])
    start = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        run_it()
    said = out.getvalue()
    assert time.monotonic() - start < 10.0, said
    return said


# the new lessons' checkers (12, 14, 15): a wrong value, an exception, an endless loop
PLANTED_ANSWERS += [
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "answer = lambda x: jnp.sqrt(jnp.sum(x * x))",
        "✗ not yet — grad at x = 0 is [nan nan nan]: not finite",
    ),
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "answer = lambda x: jnp.sum(x)",
        "✗ not yet — grad at x = 0 is [1. 1. 1.], expected zeros",
    ),
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "def answer(x):\n    while True:\n        pass",
        "✗ not yet — grad(safe_norm)(zeros) did not finish within",
    ),
    (
        "14_pytrees.ipynb",
        "check_linear",
        "class Linear(Linear):\n    pass",
        "✗ not yet — tree.leaves(layer) has 1 leaf: Linear is not registered yet",
    ),
    (
        "14_pytrees.ipynb",
        "check_linear",
        "class Linear(Linear):\n    pass\n"
        "tree_util.register_pytree_node(Linear, lambda m: ((m.b, m.w), None), "
        "lambda aux, c: Linear(*c))",
        "✗ not yet — grad's w and b are swapped or wrong",
    ),
    (
        "15_finding_nans.ipynb",
        "check_safe",
        "answer = lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0)",
        "equation 5: mul(0.0, inf) is NaN",
    ),
    (
        "15_finding_nans.ipynb",
        "check_safe",
        "answer = lambda x: x.nope",
        "✗ not yet — safe_sqrt_relu: AttributeError",
    ),
    (
        "15_finding_nans.ipynb",
        "check_safe",
        "def answer(x):\n    while True:\n        pass",
        "✗ not yet — vmap(safe_sqrt_relu) did not finish within",
    ),
]


# 12, 14 and 15: the kinds their lists above leave out
PLANTED_ANSWERS += [
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "answer = lambda x: x",
        "✗ not yet — safe_norm: TypeError: Gradient only defined for scalar-output functions.",
    ),
    (
        "12_custom_derivatives.ipynb",
        "check_safe_norm",
        "answer = lambda x: 1 / 0",
        "✗ not yet — safe_norm: ZeroDivisionError",
    ),
    (
        "14_pytrees.ipynb",
        "check_linear",
        "class Linear(Linear):\n    pass\n"
        "tree_util.register_pytree_node(Linear, lambda m: 1 / 0, lambda aux, c: Linear(*c))",
        "✗ not yet — ZeroDivisionError: division by zero",
    ),
    (
        "14_pytrees.ipynb",
        "check_linear",
        "class Linear(Linear):\n    pass\n"
        "def flatten(m):\n    while True:\n        pass\n"
        "tree_util.register_pytree_node(Linear, flatten, lambda aux, c: Linear(*c))",
        "✗ not yet — tree.leaves(layer) did not finish within",
    ),
    (
        "15_finding_nans.ipynb",
        "check_safe",
        "answer = lambda x: jnp.stack([x, x])",
        "✗ not yet — safe_sqrt_relu: ValueError: operands could not be broadcast together",
    ),
]


# lesson 16's policy: saves the wrong values, answers no bool, raises, never returns
PLANTED_ANSWERS += [
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "answer = lambda prim, *avals, **params: False",
        "✗ not yet — it keeps the arguments only; dots_saveable keeps 4 outputs of dot_general",
    ),
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "answer = lambda prim, *avals, **params: True",
        "✗ not yet — it keeps 4 outputs of cos, 3 outputs of sin; dots_saveable keeps 4 outputs",
    ),
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "answer = lambda prim, *avals, **params: None",
        "✗ not yet — save_dots, asked about dot_general: TypeError: a policy answers True or "
        "False; it answered None",
    ),
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "answer = lambda prim, *avals, **params: params['nope']",
        "✗ not yet — save_dots, asked about dot_general: KeyError",
    ),
    (
        "16_checkpointing.ipynb",
        "check_policy",
        "def answer(prim, *avals, **params):\n    while True:\n        pass",
        "✗ not yet — the policy did not finish within",
    ),
]


# (code planted after the worked engine of notebook 11, the step checked, what it must say):
# a wrong value, a wrong shape, an exception and an endless loop, in a real kernel
BUILD_PLANTS = [
    (
        "class Neg(EvalInterpreter):\n"
        "    def interpret_op(self, op, args):\n"
        "        return args[0] if op is Op.neg else super().interpret_op(op, args)\n"
        "current_interpreter = Neg()",
        "eval",
        "✗ not yet — step 1 (eval): neg(x) at x=",
    ),
    (
        "def vmap(f, xs):\n    return f(xs[0])",
        "vmap",
        "✗ not yet — step 4 (vmap): vmap(add(x, 1.5))",
    ),
    ("def linearize(f, x):\n    return 1 / 0", "linearize", "raised ZeroDivisionError"),
    ("def transpose(lin, ct):\n    while True:\n        pass", "grad", "did not finish within"),
]


def run_time(cell: Any) -> Any:
    """How long a cell executed by NotebookClient(record_timing=True) took to run."""
    timing = cell.metadata.execution
    return np.datetime64(timing["shell.execute_reply"][:26]) - np.datetime64(
        timing["iopub.execute_input"][:26]
    )


def test_build_your_own_checkers_answer_planted_mistakes_in_a_kernel(lessons: Lessons) -> None:
    """Each planted mistake gets its message within 10 s, and the kernel runs the next cell
    under the interpreter it expects."""
    cells = lessons.executed(BUILD_SOLVED)[1]
    for cell, (_, _, message) in zip(cells, BUILD_PLANTS, strict=False):
        took = run_time(cell)
        assert took < np.timedelta64(10, "s"), (cell.source, took)
        assert message in stdout(cell), (cell.source, stdout(cell))
    assert len(cells) == len(BUILD_PLANTS) + 1
    assert stdout(cells[-1]) == "EvalInterpreter 3.0\n"  # the loop left no interpreter


# notebook 10's checker, in a kernel (the notebook asks for 4 CPU devices before anything
# runs, which a test process that already started didax cannot give): an endless loop, a
# collective over an axis name pmap does not bind, a wrong shape, a wrong value
MANY_PLANTS = [
    (
        "def answer(row):\n    while True:\n        pass",
        "✗ not yet — pmap(global_max) did not finish within",
    ),
    (
        "answer = lambda row: lax.pmax(jnp.max(row), 'j')",
        "✗ not yet — pmap(global_max): NameError: Found an unbound axis name: j.",
    ),
    ("answer = lambda row: row", "✗ not yet — expected one value per device, shape (4,), got"),
    ("answer = lambda row: jnp.max(row)", "✗ not yet — the devices hold"),
]


def test_many_devices_checker_answers_planted_mistakes_in_a_kernel(lessons: Lessons) -> None:
    cells = lessons.executed(MANY)[1]
    for cell, (_, message) in zip(cells, MANY_PLANTS, strict=False):
        assert run_time(cell) < np.timedelta64(10, "s"), (cell.source, run_time(cell))
        assert message in stdout(cell), (cell.source, stdout(cell))
    assert len(cells) == len(MANY_PLANTS) + 1
    assert stdout(cells[-1]).startswith("✓ every device holds the global maximum")


# Cells run after a notebook's own, in its kernel (`Lessons`): each plant of notebook 11
# is undone after its check, so that the next one meets the worked engine; then the kernel
# still works. Each of notebook 10's plants is followed by the worked answer, which passes.
BUILD_SOLVED = "solutions/11_solutions.ipynb"
APPENDED = {
    BUILD_SOLVED: [
        *(
            f"_keep = dict(globals())\n{plant}\ncourse.check({step!r}, globals())\n"
            "globals().update(_keep)"
            for plant, step, _ in BUILD_PLANTS
        ),
        "print(type(current_interpreter).__name__, add(1.0, 2.0))",
    ],
    MANY: [
        *(f"{plant}\ncheck_global_max(answer)" for plant, _ in MANY_PLANTS),
        "check_global_max(lambda row: lax.pmax(jnp.max(row), 'i'))",
    ],
}


# --------------------------------------------------------------------------- student copies

STUDENT_COPIES = sorted(p.name for p in (DEMOS / "student").glob("*.ipynb"))


def test_every_teacher_notebook_has_a_student_copy() -> None:
    teacher = sorted(p.name for p in DEMOS.glob("[0-9][0-9]_*.ipynb"))
    assert STUDENT_COPIES == teacher


GENERATED = make_student.generated()  # once: each test compares one of its files


@pytest.mark.parametrize("path", sorted(GENERATED, key=str), ids=lambda p: p.name)
def test_generated_notebooks_are_current(path: Path) -> None:
    """student/ and solutions/11 are what make_student.py writes from the teacher notebooks
    as they are now (regenerated here, in memory)."""
    assert path.exists(), f"run `python demo_notebooks/make_student.py` to write {path.name}"
    assert path.read_text(encoding="utf-8") == GENERATED[path], (
        f"{path} is stale: run `python demo_notebooks/make_student.py`"
    )


def test_student_copy_conventions() -> None:
    """The tags of a teacher cell decide the student copy: a predict cell keeps its code and
    loses its output (and its view's widget state), an exercise loses its solution regions
    and its output, an after:STEP cell runs once the learner's engine passes STEP."""
    output = {"output_type": "display_data", "metadata": {}, "data": {}}
    view = {**output, "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "v1"}}}

    def code(source: str, tags: list[str], outputs: list[Any]) -> dict[str, Any]:
        meta = {"tags": tags} if tags else {}
        return {"cell_type": "code", "execution_count": 1, "id": "c", "metadata": meta,
                "outputs": outputs, "source": source}  # fmt: skip

    state = {"v1": {"state": {"children": ["IPY_MODEL_v2"]}}, "v2": {"state": {}}, "v3": {}}
    teacher = {
        "cells": [
            {
                "cell_type": "markdown",
                "id": "m",
                "metadata": {},
                "source": "[s](solutions/03_solutions.ipynb) [n](04_reverse_mode.ipynb) "
                "[c](didax_source/core.py) [w](https://jax.dev)",
            },  # fmt: skip
            code("print(jaxpr)", ["predict"], [view]),
            code(
                "def f(x):\n    # BEGIN SOLUTION: raise NotImplementedError  # yours\n"
                "    return x\n    # END SOLUTION\n\ncheck(f)",
                ["exercise"],
                [output],
            ),
            code("print(derivative(f))", ["after:jvp"], [output]),
            code("x = 1", [], [output]),
        ],
        "metadata": {"widgets": {make_student.WIDGET_STATE: {"state": state}}},
    }
    student = make_student.student_copy(teacher)
    md, predict, exercise, after, plain = student["cells"]
    assert "".join(md["source"]) == (
        "[s](../solutions/03_solutions.ipynb) [n](04_reverse_mode.ipynb) "
        "[c](../didax_source/core.py) [w](https://jax.dev)"
    )
    assert "".join(predict["source"]) == "print(jaxpr)" and predict["outputs"] == []
    assert "".join(exercise["source"]) == (
        "def f(x):\n    raise NotImplementedError  # yours\n\ncheck(f)"
    )
    assert exercise["outputs"] == []
    assert "".join(after["source"]) == (
        "if course.passes('jvp', globals()):  # your engine, once step 2 passes\n"
        "    print(derivative(f))\nelse:\n    print('(this cell runs once step 2 passes)')"
    )
    assert after["outputs"] == [] and plain["outputs"] == [output]
    assert student["metadata"]["widgets"][make_student.WIDGET_STATE]["state"] == {}
    kept = make_student.student_copy(
        {**teacher, "cells": teacher["cells"][4:] + [code("", [], [view])]}
    )
    assert set(kept["metadata"]["widgets"][make_student.WIDGET_STATE]["state"]) == {"v1", "v2"}
    worked = make_student.solutions_copy(teacher, "solutions/11_solutions.ipynb")
    assert "".join(worked["cells"][2]["source"]) == "def f(x):\n    return x\n\ncheck(f)"
    with pytest.raises(ValueError, match="not closed"):
        make_student.split_solutions("# BEGIN SOLUTION\nx = 1", student=True)
    with pytest.raises(ValueError, match="names no course step"):
        make_student.guarded("x", "hessian")


@pytest.mark.parametrize("name", STUDENT_COPIES)
def test_student_copy_links_open_in_lab(name: str) -> None:
    nb = nbformat.read(DEMOS / "student" / name, as_version=4)
    text = "".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for target in re.findall(r"\]\(([^)#\s]+)", text):
        if "://" in target:
            continue
        inside = os.path.normpath(DEMOS / "student" / target)
        assert inside.startswith(str(DEMOS)), target  # not above Lab's root
        assert (DEMOS / "student" / target).resolve().exists(), target


@pytest.mark.parametrize("name", STUDENT_COPIES)
def test_student_copy_runs_top_to_bottom(name: str, lessons: Lessons) -> None:
    """A learner's copy runs with every exercise as given (first tries, stubs): no uncaught
    error, no cell over 30 s; each checker says what is not done yet, and a cell that needs
    a finished engine says so. It runs first in its lesson's kernel: a fresh kernel."""
    nb = lessons.executed(f"student/{name}")[0]
    for cell in code_cells(nb):
        took = run_time(cell)
        assert took < np.timedelta64(30, "s"), (cell.source, took)
    for cell in code_cells(clean(nb)):
        errors = [f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
        tags = cell.metadata.get("tags", [])
        stderr = [o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        if RAISES not in tags:  # a magic's UsageError is printed to stderr, not raised
            assert not errors and not stderr, (cell.source, errors, stderr)
        if "exercise" in tags:
            assert "✗ not yet" in stdout(cell), (cell.source, stdout(cell))
        if any(t.startswith("after:") for t in tags):
            assert stdout(cell).startswith("(this cell runs once step "), stdout(cell)


# --------------------------------------------------------------------------- final project

PROJECT = "20_final_project.ipynb"

# (step checked, a wrong answer planted into the worked project, what the message says)
PROJECT_PLANTS = [
    ("rules", "softplus_p = core.Primitive('softplus_bare')", "✗ not yet — rules: no impl, "),
    (
        "rules",
        "core.jvp_rules.register(softplus_p, lambda p, t: ([softplus(p[0])], [t[0]]), "
        "replace=True)",
        "✗ not yet — rules: check_rules(softplus): the jvp rule is wrong for input 0.",
    ),
    (
        "rules",
        "core.vmap_rules.register(softplus_p, lambda n, v, d: ([softplus(v[0])], [5]), "
        "replace=True)",
        "✗ not yet — rules: check_rules(softplus): the vmap rule",
    ),
    (
        "composes",
        "core.jvp_rules.register(softplus_p, lambda p, t: ([softplus(p[0])], "
        "[t[0] / (1 + np.exp(-np.asarray(p[0])))]), replace=True)",
        "✗ not yet — ",
    ),
    (
        "model",
        "def predict(params, x):\n    for w, b in params[:-1]:\n        x = jnp.tanh(x @ w + b)\n"
        "    w, b = params[-1]\n    return x @ w + b",
        "no softplus. Likely cause: predict uses jnp.tanh",
    ),
    ("model", "predict = lambda params, x: x[:, 0]", "has shape (8,), expected (8, 1)"),
    ("train", "train = lambda key: (None, [1.0, 0.9])", "not below a quarter"),
    ("train", "train = lambda key: (None, [1.0, float('nan')])", "the loss is nan at step 1"),
    ("train", "train = lambda key: 1 / 0", "ZeroDivisionError"),
    ("train", "def train(key):\n    while True:\n        pass", "did not finish within"),
]


@pytest.mark.parametrize(("step", "plant", "message"), PROJECT_PLANTS)
def test_final_project_checker_answers_planted_mistakes(
    step: str, plant: str, message: str
) -> None:
    with exercises_here(PROJECT) as ns:  # a plant re-registers the primitive's rules
        assert didax.course.project_verdict(step, ns).startswith("✓")  # the worked project
        exec(plant, ns)  # noqa: S102 - the test's own code
        start = time.monotonic()
        said = didax.course.project_verdict(step, ns)
        assert time.monotonic() - start < 10.0, said
    assert said.startswith("✗ not yet") and message in said, said


def test_final_project_passes_and_its_student_copy_does_not(run: Any) -> None:
    nb = run(PROJECT)
    for step in ("rules", "composes", "model", "train"):
        assert stdout(cell_with(nb, f'course.check_project("{step}"')).startswith(f"✓ {step}:")
    student = nbformat.read(DEMOS / "student" / PROJECT, as_version=4)
    assert "np.logaddexp" not in "".join(c.source for c in code_cells(student))


# --------------------------------------------------------------------------- the course map

MAP = "00_start_here.ipynb"
LESSONS = sorted(p.name for p in DEMOS.glob("[0-9][0-9]_*.ipynb") if p.name != MAP)
PLAN = re.compile(r"\*\*Plan \(about (\d+) minutes\)\.\*\*")
PLAN_ROW = re.compile(r"^\| (\d+)\. .* \| (\d+)\+? \|", re.MULTILINE)
ROUTE_ROW = re.compile(r"^\| \[\w+\]\(([\w/]+\.ipynb)\) \| ([^|]+) \| (\d+) \|$", re.MULTILINE)


def plan(name: str) -> tuple[int, dict[int, int]]:
    """A lesson's stated minutes and its plan table's minutes per numbered section."""
    intro = nbformat.read(DEMOS / name, as_version=4).cells[0].source
    (total,) = PLAN.findall(intro)
    return int(total), {int(n): int(m) for n, m in PLAN_ROW.findall(intro)}


def routes(text: str) -> dict[str, list[tuple[str, str, int]]]:
    """The route tables of a course map: {route heading: [(notebook, sections, minutes)]},
    each followed by its stated total (checked here)."""
    found = {}
    parts = re.split(r"^(#+ .*|\*\*Session \d.*)$", text, flags=re.MULTILINE)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        rows = [(Path(n).name, s.strip(), int(m)) for n, s, m in ROUTE_ROW.findall(body)]
        if rows:
            (stated,) = re.findall(r"^Total: (\d+) minutes\.$", body, flags=re.MULTILINE)
            assert int(stated) == sum(m for _, _, m in rows), (heading, stated)
            found[heading.strip("#* ")] = rows
    return found


def sections(spec: str, table: dict[int, int]) -> list[int]:
    if spec == "all":
        return sorted(table)
    picked = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("–")
        picked += range(int(first), int(last or first) + 1)
    return picked


@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_plan_adds_up(name: str) -> None:
    total, table = plan(name)
    assert list(table) == list(range(1, len(table) + 1)), table  # sections 1..n
    assert sum(table.values()) == total, (name, table)


def test_course_map_routes_are_the_lessons_plans() -> None:
    """00_start_here and the README hold the same routes; each row's minutes are the sum of
    the named sections of that notebook's plan, a session fits in 90 minutes, and the full
    route takes every lesson once."""
    text = "".join(c.source + "\n" for c in nbformat.read(DEMOS / MAP, as_version=4).cells)
    course_map = routes(text)
    readme = (DEMOS.parent / "README.md").read_text(encoding="utf-8")
    assert routes(readme.split("### Course map")[1].split("\n## ")[0]) == course_map
    assert len(course_map) == 5, list(course_map)
    for heading, rows in course_map.items():
        for name, spec, minutes in rows:
            total, table = plan(name)
            assert minutes == sum(table[s] for s in sections(spec, table)), (heading, name)
            if spec == "all":
                assert minutes == total, (heading, name)
        if heading != "The full route":
            assert sum(m for _, _, m in rows) <= 90, heading
    full = course_map["The full route"]
    assert [n for n, _, _ in full] == LESSONS and {s for _, s, _ in full} == {"all"}


@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_ends_with_questions_and_answers(name: str) -> None:
    nb = nbformat.read(DEMOS / name, as_version=4)
    (cell,) = [c for c in nb.cells if c.source.startswith("## Check your understanding")]
    questions, _, answers = cell.source.partition("<details><summary>Answers</summary>")
    assert len(re.findall(r"^\d+\. ", questions, re.MULTILINE)) >= 3, cell.source
    assert len(re.findall(r"^\d+\. ", answers, re.MULTILINE)) == len(
        re.findall(r"^\d+\. ", questions, re.MULTILINE)
    )


@pytest.mark.parametrize("name", [*NOTEBOOKS, *COVERED_ELSEWHERE])
def test_figures_come_from_the_shared_helper(name: str) -> None:
    """Every diagram and curve is drawn by didax.figures (theme colours, inline SVG with an
    image copy): no notebook pastes its own SVG helper or stores an SVG image of its own."""
    nb = nbformat.read(DEMOS / name, as_version=4)
    for cell in code_cells(nb):
        assert "<svg" not in cell.source and "IPython.display import SVG" not in cell.source
        for out in cell.outputs:
            assert "image/svg+xml" not in out.get("data", {}), cell.source
            html_out = out.get("data", {}).get("text/html", "")
            assert not html_out.startswith("<svg"), cell.source  # Lab's sanitizer drops it
            if 'class="dx-figure"' in html_out:  # theme colours, as the views (theme.py)
                assert not re.search(r'(?:fill|stroke)="#', svg_image(html_out)), cell.source
                assert 'class="dx-svg-copy"' in html_out, cell.source


def svg_image(html_out: str) -> str:
    """A figure's inline SVG (the drawing a trusted notebook shows, in theme colours)."""
    (svg,) = re.findall(r'<div class="dx-svg-live" style="display:none">(<svg.*?</svg>)', html_out)
    return svg


# --------------------------------------------------------------------------- 12-15


def test_custom_derivatives_fix_the_overflow_and_clip(run: Any) -> None:
    nb = run("12_custom_derivatives.ipynb")
    assert stdout(cell_with(nb, "print(didax.jit(softplus_naive)")) == "inf nan\n"
    assert stdout(cell_with(nb, "def softplus_jvp")).startswith("1.0 0.5\n")
    assert "custom_jvp_call" in stdout(cell_with(nb, "def softplus_jvp"))
    assert stdout(cell_with(nb, "def clip_bwd")) == "5.0 1.0\n"


def test_jacobians_measure_the_cost_of_each_mode(run: Any) -> None:
    text = stdout(cell_with(run("13_jacobians.ipynb"), "def flops("))
    found = re.findall(r"(wide|tall).*jacfwd ([\d,]+) flops, jacrev ([\d,]+) flops", text)
    cost = {k: (int(f.replace(",", "")), int(r.replace(",", ""))) for k, f, r in found}
    assert cost["wide"][0] > 50 * cost["wide"][1], cost  # jacfwd: 512 passes, jacrev: 4
    assert cost["tall"][1] > 50 * cost["tall"][0], cost


@pytest.mark.oracle
def test_jacobians_are_jax_jacobians() -> None:
    jax = pytest.importorskip("jax")
    ns = replay("13_jacobians.ipynb", ("time.perf_counter", "def flops", "t_fwd"))
    w, x = np.asarray(ns["w"]), np.asarray(ns["x3"])
    layer = lambda w, x: jax.numpy.tanh(w @ x)
    want = jax.jacrev(layer, argnums=1)(w, x)
    np.testing.assert_allclose(didax.jacfwd(ns["layer"], argnums=1)(w, x), want, rtol=1e-5)
    energy = lambda x: jax.numpy.sum(jax.numpy.sin(x) * x)
    np.testing.assert_allclose(ns["h"], jax.hessian(energy)(x), rtol=1e-5, atol=1e-6)


def test_pytrees_keep_their_structure(run: Any) -> None:
    nb = run("14_pytrees.ipynb")
    assert stdout(cell_with(nb, "grads = didax.grad(model)")).startswith("True\n")
    printed = stdout(cell_with(nb, "print(didax.tree.structure(params))"))
    assert "\nPyTreeDef({'frozen': None, 'layer': (*, *), 'scale': *})\n" in printed


def test_finding_nans_names_the_first_equation(run: Any) -> None:
    nb = run("15_finding_nans.ipynb")
    assert stdout(cell_with(nb, "print(f(0.0), didax.grad(f)(0.0)")) == "0.0 nan 0.25\n"
    found = stdout(cell_with(nb, "def first_nan")).splitlines()[-1]
    assert found == "equation 5: mul(0.0, inf) is NaN"
    assert stdout(cell_with(nb, "didax.debug_nans(True)")) == (
        "grad(f): FloatingPointError: invalid value (nan) encountered in mul\n"
        "Invalid nan value encountered in the output of a jax.jit function. Calling the "
        "de-optimized version.\n"
        "jit(grad(f)): FloatingPointError: invalid value (nan) encountered in mul\n"
    )


# --------------------------------------------------------------------------- 16

CHECKPOINTING = "16_checkpointing.ipynb"


def test_checkpointing_keeps_less_and_recomputes(run: Any) -> None:
    """What lesson 16's text says of its cells: grad keeps three residuals of the chain,
    checkpoint only the argument, its backward pass is a remat2 that recomputes; the table
    trades bytes for flops as the text says."""
    nb = run(CHECKPOINTING)
    kept = stdout(cell_with(nb, "print_residuals(f, 1.0)")).splitlines()
    assert [line.split(" from ")[0] for line in kept] == [
        "f32[] output of cos",
        "f32[] output of sin",
        "f32[] output of cos",
    ]
    assert [line.split(":")[-1] for line in kept] == ["27 (f)", "19 (f)", "11 (f)"]
    assert stdout(cell_with(nb, "print_saved_residuals(didax.checkpoint(f)")) == (
        "f32[] from the argument x\n"
    )
    backward = stdout(cell_with(nb, "didax.grad(didax.checkpoint(f)))(1.0)"))
    assert "remat2[\n      differentiated=True" in backward
    first, second = re.findall(r"= (-?[\d.]+)", backward.splitlines()[-1])
    assert first == second
    lowered = stdout(cell_with(nb, ".lower(1.0).as_text()"))
    assert "%3:2 = stablehlo.optimization_barrier %arg0" in lowered
    assert "= stablehlo.sine %3#0" in lowered and "%0 = stablehlo.sine %arg0" in lowered
    rows = re.findall(
        r"^(.+?)\s+(\d+) KiB\s+([\d,]+) \(([-+][\d.]+)%\)$",
        stdout(cell_with(nb, "def saved_bytes")),
        re.MULTILINE,
    )
    table = {name: (int(kib), float(extra)) for name, kib, _, extra in rows}
    assert table["no checkpoint"] == (448, 0.0) == table["everything_saveable"]
    assert table["checkpoint(net)"][0] == 0 and 30 < table["checkpoint(net)"][1] < 40
    assert table["nothing_saveable"] == table["checkpoint(net)"]
    assert table["each layer checkpointed"][0] == 192
    assert table["dots_saveable"] == (256, 0.1)
    ok = stdout(cell_with(nb, "check_policy(save_dots)"))
    assert ok.startswith("✓ save_dots keeps what dots_saveable keeps")


@pytest.mark.oracle
def test_checkpointing_residuals_are_jax_residuals() -> None:
    """The residuals lesson 16 reads are those JAX saves for the same functions (places
    aside: the notebook's cells are not this file)."""
    jax = pytest.importorskip("jax")
    jax_saved = pytest.importorskip("jax._src.ad_checkpoint").saved_residuals
    ns = replay(CHECKPOINTING)
    jnp_ = jax.numpy

    def seen(saved: Any, fn: Any, *args: Any) -> list[tuple[Any, ...]]:
        return [(a.shape, a.dtype, s.split(" from <")[0].split(" from /")[0])
                for a, s in saved(fn, *args)]  # fmt: skip

    def f(x: Any) -> Any:
        return jnp_.sin(jnp_.cos(jnp_.sin(x)))

    def net(ws: Any, x: Any) -> Any:
        for w in ws:
            x = jnp_.sin(x @ w)
        return jnp_.sum(x)

    ws = [np.asarray(w) for w in ns["ws"]]
    x = np.asarray(ns["x"])
    dots = jax.checkpoint(net, policy=jax.checkpoint_policies.dots_saveable)
    pairs = [
        ((ns["f"], 1.0), (f, 1.0)),
        ((didax.checkpoint(ns["f"]), 1.0), (jax.checkpoint(f), 1.0)),
        ((ns["net"], ns["ws"], ns["x"]), (net, ws, x)),
        (
            (didax.checkpoint(ns["net"], policy=ns["policies"].dots_saveable), ns["ws"], ns["x"]),
            (dots, ws, x),
        ),
    ]
    for ours, theirs in pairs:
        assert seen(ns["saved_residuals"], *ours) == seen(jax_saved, *theirs)
