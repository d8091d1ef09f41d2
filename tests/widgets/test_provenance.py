"""The provenance models (issue 12 ★ items 4 and 5): the stage diff of `%grad --jaxpr`'s
programs and the per-equation cost table joined to the optimized HLO."""

from __future__ import annotations

import didax
import didax.numpy as dnp
import numpy as np
from didax import lax
from didax.display import provenance as pv


def f(x):
    y = dnp.sin(x)
    return y * 3.0


SIN_LINE = f.__code__.co_firstlineno + 1


def _programs(fn=f, x=1.0):
    forward = didax.make_jaxpr(fn)(x)
    jvp = didax.make_jaxpr(lambda x, t: didax.jvp(fn, (x,), (t,)))(x, x)
    linearized = didax.make_jaxpr(didax.linearize(fn, x)[1])(x)
    transposed = didax.make_jaxpr(didax.vjp(fn, x)[1])(x)
    return forward, jvp, linearized, transposed


def _by_status(diff: pv.StageDiff) -> dict[str, list[tuple[str, tuple]]]:
    out: dict[str, list[tuple[str, tuple]]] = {}
    for link in diff.links:
        out.setdefault(link.status.value, []).append((link.eqn.primitive, link.origins))
    return out


def test_sin_becomes_cos_and_mul_in_jvp() -> None:
    forward, jvp, _, _ = _programs()
    diff = pv.stage_diff(forward, jvp, "jvp")
    assert [e.primitive for e in diff.base] == ["sin", "mul"]
    derived = sorted(link.eqn.primitive for link in diff.derived_from((0,)))
    assert derived == ["cos", "mul", "sin"]  # sin itself, its derivative cos, and the product
    statuses = _by_status(diff)
    assert ("cos", ((0,),)) in statuses["new"]
    assert ("mul", ((0,),)) in statuses["new"]
    assert ("sin", ((0,),)) in statuses["unchanged"]
    assert diff.dropped == ()
    for link in diff.derived_from((0,)):
        assert link.eqn.source.line == SIN_LINE
        assert link.eqn.source_text == "y = dnp.sin(x)"


def test_sin_is_dropped_and_becomes_a_mul_by_the_residual() -> None:
    forward, _, linearized, transposed = _programs()
    for diff in pv.stage_diffs(forward, [("linearized", linearized), ("transposed", transposed)]):
        assert diff.dropped == ((0,),), diff.text()  # sin ran at linearization time
        assert diff.status_of((0,)) is pv.Status.DROPPED
        assert diff.status_of((1,)) is pv.Status.UNCHANGED
        (from_sin,) = diff.derived_from((0,))
        assert (from_sin.eqn.primitive, from_sin.status) == ("mul", pv.Status.NEW)
        (from_mul,) = diff.derived_from((1,))
        assert (from_mul.eqn.primitive, from_mul.status) == ("mul", pv.Status.UNCHANGED)
        assert "dropped   sin" in diff.text()


def one_line(x):
    return dnp.sin(x) * 3.0


def test_two_operations_of_one_expression_are_told_apart() -> None:
    # `sin(x) * 3.0`: the call and the product start at the same column
    forward, jvp, _, _ = _programs(one_line)
    diff = pv.stage_diff(forward, jvp)
    assert sorted(link.eqn.primitive for link in diff.derived_from((1,))) == ["mul", "mul"]
    assert all(link.status is pv.Status.UNCHANGED for link in diff.derived_from((1,)))


def test_nested_equations_have_paths_and_links() -> None:
    def g(x):
        return didax.jit(f)(x) + lax.cond(x > 0, dnp.cos, dnp.sin, x)

    forward = didax.make_jaxpr(g)(1.0)
    paths = [(e.path, e.primitive) for e in pv.equations(forward)]
    assert ((0,), "jit") in paths and ((0, 0), "sin") in paths and ((0, 1), "mul") in paths
    grad = didax.make_jaxpr(didax.grad(g))(1.0)
    diff = pv.stage_diff(forward, grad, "grad")
    assert any(link.eqn.primitive == "cos" for link in diff.derived_from((0, 0)))


def test_an_equation_without_source_is_new_and_unlinked() -> None:
    forward, jvp, _, _ = _programs()
    j = jvp.jaxpr
    bare = didax.jaxpr.Jaxpr(
        j.constvars, j.invars, j.outvars, [e._replace(source_info=None) for e in j.eqns]
    )
    diff = pv.stage_diff(forward, bare)
    assert all(link.status is pv.Status.NEW and not link.origins for link in diff.links)
    assert diff.dropped == ((0,), (1,))


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
