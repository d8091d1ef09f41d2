"""What the lessons print is what didax computes here, in this process, and what JAX computes
for the same program; and the views and links a lesson shows work."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import sys
from typing import Any

import didax
import numpy as np
import pytest
from helpers.environment import AS_A_LEARNER
from lesson_runs import (  # nbformat through it: it skips without Jupyter
    COVERED_ELSEWHERE,
    DEMOS,
    EXTENDING,
    MANY,
    NOTEBOOKS,
    as_jax,
    cell_with,
    code_cells,
    nbformat,
    replay,
    result,
    stdout,
    svg_image,
    widget_texts,
)

pytestmark = pytest.mark.notebooks


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
