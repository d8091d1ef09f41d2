"""The magics in a real Jupyter kernel (ipykernel driven by nbclient): what a notebook stores
for each magic (display_data mimetypes and text/plain, Out[]), the UsageError replies (a
one-line stderr stream, ename UsageError), recovery after an error in the user's function,
and `%unload_ext`. Marker `kernel`; when CI is set, missing Jupyter packages fail the run
instead of skipping it."""

from __future__ import annotations

import os
import re

import pytest

pytestmark = pytest.mark.kernel

try:
    import ipykernel  # noqa: F401
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
except ImportError as e:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise ImportError(f"kernel tests need ipykernel, nbclient and nbformat: {e}") from e
    pytest.skip(f"kernel tests need ipykernel, nbclient and nbformat: {e}", allow_module_level=True)

import didax
from helpers.outputs import WIDGET, is_standin

SETUP = """\
import didax, didax.numpy as jnp

def f(x):
    return jnp.sin(x) * 3.0

def loss(x, y):
    return jnp.sum(jnp.sin(x) * y)

def affine(x, w):
    return x * w + 1.0

def helper(v):
    return v / not_defined_anywhere

def buggy(v):
    return helper(jnp.cos(v))

x = jnp.array([0.5, 1.0, 2.0])
xs = jnp.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
"""

CELLS = [
    "%load_ext didax",  # 0
    SETUP,  # 1
    "%jaxpr f(x)",  # 2
    "g = %grad loss(x, 2.0)\ng",  # 3
    "%grad --argnums 0,1 --jaxpr loss(x, 2.0)",  # 4
    "%vmap --in-axes 0,None affine(xs, 2.0)",  # 5
    "%jit -n 2 -r 2 f(x)",  # 6
    "%%jaxpr\ny = x * 2.0\nf(y)",  # 7
    "%grad 3 + 4",  # 8
    "%grad --bogus loss(x, 2.0)",  # 9
    "%grad buggy(1.0)",  # 10
    "import didax.core\nst = didax.core.trace_state()\n(len(st.stack), st.dynamic)",  # 11
    "%grad loss(x, 3.0)",  # 12
    "%grad loss(x, 2.0);",  # 13
    "%unload_ext didax",  # 14
    "%grad loss(x, 2.0)",  # 15
    "%load_ext didax",  # 16
    "c = %jaxpr f(x)",  # 17
    "didax.make_jaxpr(f)(x)",  # 18
]


def run_notebook(kernel_name, sources, *, allow_errors, errors=None):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    client = NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=60,
        startup_timeout=60,
        allow_errors=allow_errors,
        resources={"metadata": {"path": "."}},
    )
    if errors is not None:
        client.on_cell_error = lambda cell, cell_index, execute_reply: errors.__setitem__(
            cell_index, execute_reply["content"]
        )
    client.execute()
    return nb


@pytest.fixture(scope="module")
def executed(kernel_name):
    errors: dict[int, dict] = {}
    nb = run_notebook(kernel_name, CELLS, allow_errors=True, errors=errors)
    return nb, errors


def outputs(cell, kind):
    return [o for o in cell.outputs if o.output_type == kind]


def out_text(cell):
    (res,) = outputs(cell, "execute_result")
    return res["data"]["text/plain"]


def display(cell, widget=False):
    """The one view a cell displayed: a widget if it needs the kernel (%jaxpr, %jit), with
    its stand-in output after it (the same HTML, for when the widget cannot be drawn), else
    its HTML alone (%grad, %vmap: a widget would show "model not found" when reopened)."""
    disp, *rest = outputs(cell, "display_data")
    assert set(disp["data"]) == {"text/plain", "text/html"} | ({WIDGET} if widget else set())
    assert [is_standin(d["data"]) for d in rest] == ([True] if widget else [])
    return disp["data"]


def local_names():
    ns: dict = {}
    exec(SETUP, ns)  # noqa: S102 - the same definitions as the notebook's, in this process
    return ns


def test_no_unexpected_errors(executed):
    nb, errors = executed
    assert sorted(errors) == [8, 9, 10, 15], errors
    for i in (0, 1, 14):
        assert nb.cells[i].outputs == [] or all(
            o.output_type == "stream" and o.name == "stdout" for o in nb.cells[i].outputs
        )


def test_jaxpr_cell(executed):
    nb, _ = executed
    ns = local_names()
    expected = str(didax.make_jaxpr(ns["f"])(ns["x"]))
    for i, call in ((2, "f(x)"), (7, "f(y)")):
        # shown once: Out[] is the report's view, displayed with its stand-in
        data = display(nb.cells[i], widget=True)
        assert outputs(nb.cells[i], "execute_result") == []
        assert data["text/plain"].startswith(f"jaxpr of {call}\n{expected}\n  inputs ")
        assert re.search(
            r'<label for="[-\w]+" class="dx-primitive dx-prim[^>]*>sin</label>', data["text/html"]
        )


def test_jaxpr_assigned_displays_and_closed_jaxpr_shows_its_view(executed):
    nb, _ = executed
    ns = local_names()
    expected = str(didax.make_jaxpr(ns["f"])(ns["x"]))
    assert display(nb.cells[17], widget=True)["text/plain"].startswith(f"jaxpr of f(x)\n{expected}")
    data = display(nb.cells[18], widget=True)  # Out[]: the ClosedJaxpr's view, displayed
    assert outputs(nb.cells[18], "execute_result") == []
    assert data["text/plain"] == expected
    assert "dx-primitive" in data["text/html"]


def test_grad_cells(executed):
    nb, _ = executed
    ns = local_names()
    assert out_text(nb.cells[3]) == repr(didax.grad(ns["loss"])(ns["x"], 2.0))
    assert display(nb.cells[3])["text/plain"].startswith(
        "grad of loss(x, 2.0) with respect to x\n  value"
    )
    gx, gy = didax.grad(ns["loss"], argnums=(0, 1))(ns["x"], 2.0)
    assert out_text(nb.cells[4]) == repr((gx, gy)).replace("), Array", "),\n Array")
    plain = display(nb.cells[4])["text/plain"]
    unmarked = "\n".join(re.sub(r" +# [^#]*$", "", line) for line in plain.split("\n"))
    assert str(didax.make_jaxpr(ns["loss"])(ns["x"], 2.0)) in unmarked  # and its marks:
    assert "linearized program" in plain and "# tangent of eqn 0" in plain


def test_vmap_cell(executed):
    nb, _ = executed
    ns = local_names()
    out = didax.vmap(ns["affine"], in_axes=(0, None))(ns["xs"], 2.0)
    assert out_text(nb.cells[5]) == repr(out)
    plain = display(nb.cells[5])["text/plain"]
    assert plain.startswith("vmap(affine, in_axes=(0, None), out_axes=0) on affine(xs, 2.0)")
    batched = didax.make_jaxpr(didax.vmap(ns["affine"], in_axes=(0, None)))(ns["xs"], 2.0)
    unmarked = "\n".join(re.sub(r" +# [^#]*$", "", line) for line in plain.split("\n"))
    assert "batched program\n" + str(batched) in unmarked
    assert "# batched eqn 2" in plain


def test_jit_cell(executed):
    nb, _ = executed
    ns = local_names()
    assert out_text(nb.cells[6]) == repr(didax.jit(ns["f"])(ns["x"]))  # XLA's sin, not NumPy's
    plain = display(nb.cells[6], widget=True)["text/plain"]
    assert "per loop (mean ± std. dev. of 2 runs, 2 loops each)" in plain
    for needle in (
        "  compile  ",
        "  first run  ",
        "  speed-up  ",
        "\nStableHLO\n",
        "\noptimized HLO\n",
        "\ncost analysis\n",
    ):
        assert needle in plain


@pytest.mark.parametrize(
    "index, message",
    [
        (8, "%grad: expected a call like f(x), got '3 + 4'"),
        (9, "%grad: unknown option --bogus (options: --argnums, --jaxpr); see %grad?"),
        (15, "Line magic function `%grad` not found."),
    ],
)
def test_usage_error_replies(executed, index, message):
    nb, errors = executed
    cell = nb.cells[index]
    assert errors[index]["ename"] == "UsageError"
    assert outputs(cell, "error") == []  # IPython prints UsageErrors, no traceback
    # the kernel may send stderr in more than one message (seen once under load): their text
    streams = outputs(cell, "stream")
    assert [s["name"] for s in streams] == ["stderr"] * len(streams), streams
    assert "".join(s["text"] for s in streams) == f"UsageError: {message}\n"


def test_user_error_traceback_and_recovery(executed):
    nb, errors = executed
    assert errors[10]["ename"] == "NameError"
    (err,) = outputs(nb.cells[10], "error")
    tb = "\n".join(err["traceback"])
    assert "buggy" in tb and "helper" in tb and "not_defined_anywhere" in tb
    assert "skipping hidden" in tb
    for engine_file in (
        "staging.py",
        "api.py",
        "derivatives.py",
        "jvp.py",
        "partial_eval.py",
        "magics.py",
    ):
        assert engine_file not in tb
    assert out_text(nb.cells[11]) == "(1, None)"  # trace state back to the default
    ns = local_names()
    assert out_text(nb.cells[12]) == repr(didax.grad(ns["loss"])(ns["x"], 3.0))


def test_semicolon_hides_out_but_not_the_display(executed):
    nb, _ = executed
    assert outputs(nb.cells[13], "execute_result") == []
    assert display(nb.cells[13])["text/plain"].startswith("grad of loss(x, 2.0)")


def test_usage_error_stops_a_run(kernel_name):
    with pytest.raises(CellExecutionError) as exc:
        run_notebook(
            kernel_name,
            ["%load_ext didax", "%vmap --in-axes 0,x len(1)", "1 + 1"],
            allow_errors=False,
        )
    assert exc.value.ename == "UsageError"
