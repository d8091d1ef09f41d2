"""The provenance views: `%grad --jaxpr`'s and `%vmap`'s programs marked with each equation's
derivation (read from the IR) in the model, text/plain and text/html; and the per-equation
cost table joined to the optimized HLO."""

from __future__ import annotations

import re

import didax
import didax.numpy as dnp
import numpy as np
from didax import lax
from didax.display import program
from didax.display import provenance as pv
from didax.magics import reports, sections
from didax.widgets import views


def sin_times_x(x):
    return dnp.sin(x) * x


def _stages():
    report = reports.grad_report(sin_times_x, (dnp.float32(0.5),), programs=True, call="f(x)")
    return sections.grad_stages(report)


# The marks of the "Done when" for f(x) = sin(x) * x, per program
DONE_WHEN = {
    "f": ["eqn 0; eqn 1"],  # f prints on one line: `b = sin a; c = mul b a`
    "jvp": [
        "primal of eqn 0",
        "tangent of eqn 0",
        "tangent of eqn 0",
        "primal of eqn 1",
        "tangent of eqn 1",
        "tangent of eqn 1",
        "tangent of eqn 1",
    ],
    "linearized": ["tangent of eqn 0", "tangent of eqn 1", "tangent of eqn 1", "tangent of eqn 1"],
    "transposed": [
        "transpose of eqn 1",
        "transpose of eqn 1",
        "transpose of eqn 0",
        "cotangent sum",
    ],
}


def test_grad_stages_mark_each_equation_with_its_derivation() -> None:
    stages = _stages()
    models = [program.jaxpr_model(s.jaxpr, s.inputs, s.outputs, s.marks) for s in stages]
    got = [[m for m, _ in model.line_marks().values()] for model in models]
    assert got == list(DONE_WHEN.values())
    jvp = models[1]
    assert [(e.primitive, e.status) for e in jvp.eqns][3:5] == [
        ("mul", "unchanged"),
        ("mul", "new"),
    ]


def test_marks_reach_text_plain_and_html() -> None:
    view = views.TransformView(_stages())
    plain = view._repr_mimebundle_()["text/plain"]
    html = view._repr_mimebundle_()["text/html"]
    for mark in {m for ms in DONE_WHEN.values() for m in ms}:
        assert f"# {mark}" in plain, mark
        assert f"  {mark}</span>" in html, mark
    assert re.search(r"mul c a +# primal of eqn 1\n", plain)


def test_vmap_view_names_changed_params_and_nested_marks() -> None:
    def g(x, w):
        return lax.cond(x.sum() > 0, dnp.sin, dnp.cos, dnp.dot(x, w))

    xs, w = np.ones((5, 3), np.float32), np.ones((3, 4), np.float32)
    report = reports.vmap_report(g, (xs, w), in_axes=(0, None), call="g(xs, w)")
    plain = views.TransformView(sections.vmap_stages(report)).text()
    assert (
        "# batched eqn 2 (dimension_numbers (([0], [0]), ([], [])) \u2192 (([1], [0]), ([], [])))"
        in (plain)
    )
    assert "dropped" not in plain
    assert "# eqn 4/branch 1/eqn 0" in plain  # the per-example program's numbers, nested
    # a batched predicate makes cond a select of both branches, inlined: their equations
    # keep their paths
    assert re.search(r"sin o +# batched eqn 4/branch 1/eqn 0\n", plain)
    assert re.search(r"cos j +# batched eqn 4/branch 0/eqn 0\n", plain)


# ----------------------------------------------------------------------------- costs


def fused(x):
    y = dnp.sin(x)
    return dnp.sum(y * 3.0 + dnp.cos(y))


def test_cost_table_joins_equations_to_their_fusion() -> None:
    x = np.ones(8, np.float32)
    table = pv.compiled_cost_table(fused, x)
    assert [r.eqn.primitive for r in table.rows] == ["sin", "mul", "cos", "add", "reduce_sum"]
    fusions = {name for r in table.rows for name in r.landed}
    assert len(fusions) == 1  # XLA fused the five equations into one loop
    ((name, kind, paths),) = table.fusions
    assert kind == "kLoop" and paths == ((0,), (1,), (2,), (3,), (4,))
    assert all(r.kinds == ("kLoop",) * len(r.landed) and r.instructions for r in table.rows)
    sin, mul, cos, add, total = table.rows
    assert (sin.flops, sin.transcendentals, sin.bytes) == (8, 8, 64)
    assert (mul.flops, mul.transcendentals, mul.bytes) == (8, 0, 8 * 4 * 2 + 4)
    assert (total.flops, total.bytes) == (8, 36)
    assert "fuses 5 equations" in table.text()


def test_cost_table_of_a_matmul_counts_multiply_adds() -> None:
    w, x = np.ones((3, 4), np.float32), np.ones((2, 3), np.float32)
    table = pv.compiled_cost_table(lambda w, x: dnp.tanh(x @ w), w, x)
    dot, tanh = table.rows
    assert dot.eqn.primitive == "dot_general" and dot.flops == 2 * 2 * 4 * 3
    assert dot.bytes == (12 + 6 + 8) * 4
    assert tanh.transcendentals == 8
    assert dot.instructions and tanh.instructions


def test_cost_table_of_nested_jit_attributes_its_equations() -> None:
    def g(x):
        return dnp.cos(x) * 2.0

    def outer(x):
        return didax.jit(g)(dnp.sin(x))

    table = pv.compiled_cost_table(outer, np.ones(4, np.float32))
    rows = {r.eqn.path: r for r in table.rows}
    assert rows[(1,)].eqn.primitive == "jit" and rows[(1,)].flops == 0
    assert rows[(1, 0)].eqn.primitive == "cos" and rows[(1, 0)].instructions
    assert rows[(1, 0)].transcendentals == 4


def test_op_name_paths() -> None:
    assert pv.op_name_path("jit(f)/sin#3") == (3,)
    assert pv.op_name_path("jit(f)/jit(g)#2/cos#0") == (2, 0)
    assert pv.op_name_path("jit(f)") is None
    assert pv.op_name_path("x") is None


def test_parse_hlo_reads_fusions_and_metadata() -> None:
    text = """HloModule m

%fused_computation (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %sin_0.0 = f32[4]{0} sine(%p), metadata={op_name="jit(f)/sin#0" stack_frame_id=1}
}

ENTRY %main.2 (a: f32[4]) -> (f32[4], f32[]) {
  %a = f32[4]{0} parameter(0)
  %sine_fusion = f32[4]{0} fusion(%a), kind=kLoop, calls=%fused_computation
  ROOT %t = (f32[4]{0}, f32[]) tuple(%sine_fusion, %a)
}
"""
    ins = {i.name: i for i in pv.parse_hlo(text)}
    assert ins["sin_0.0"].computation == "fused_computation"
    assert ins["sin_0.0"].path == (0,) and ins["sin_0.0"].opcode == "sine"
    assert (ins["sine_fusion"].kind, ins["sine_fusion"].calls) == ("kLoop", "fused_computation")
    assert ins["t"].opcode == "tuple"


def test_residuals_say_which_equation_they_serve() -> None:
    stages = _stages()
    linearized = stages[2]
    rows = {r.label: r.text for r in linearized.inputs}
    # cos(x), the residual of sin's derivative, serves eqn 0; sin(x) and x serve eqn 1's
    assert [text.rsplit("  ", 1)[-1] for text in rows.values()] == [
        "(for eqn 0)",
        "(for eqn 1)",
        "(for eqn 1)",
    ]
