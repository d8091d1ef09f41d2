"""The reverse-mode interpreters themselves: partial evaluation (at trace time and on
jaxprs), dead-code elimination, `backward_pass` and `transpose_jaxpr`, and the symbolic zeros
that keep both from computing what is known to be zero."""

from __future__ import annotations

from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from didax import core, lax
from didax.interpreters import partial_eval as pe
from didax.interpreters import transpose as tr
from didax.jaxpr import dce_jaxpr, eval_jaxpr, typecheck
from hypothesis import given
from test_reverse_properties import EAGER, Program, draw_like, programs, seeds

X = np.array([0.5, -1.0, 2.0], np.float32)
Y = np.array([1.5, 0.25, -0.5], np.float32)


def names(closed: Any) -> list[str]:
    return [e.primitive.name for e in closed.eqns]


def run(closed: Any, *args: Any) -> list[Any]:
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


# ----------------------------------------------------------------------------- jaxprs


def f3(x: Any, y: Any) -> tuple:
    s = dnp.sin(x)
    return s, s * y, dnp.cos(y) + 1.0


def test_partial_eval_jaxpr_splits_known_from_unknown() -> None:
    closed = didax.make_jaxpr(f3)(X, Y)
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(closed, [False, True])
    assert out_unknowns == [False, True, True]
    assert names(known) == ["sin"] and names(unknown) == ["mul", "cos", "add"]
    assert num_res == 1  # sin(x), read by the unknown side
    typecheck(known.jaxpr)
    typecheck(unknown.jaxpr)
    s, res = run(known, X)
    outs = run(unknown, res, Y)
    for got, want in zip([s, *outs], f3(X, Y), strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_partial_eval_jaxpr_instantiate() -> None:
    closed = didax.make_jaxpr(f3)(X, Y)
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(
        closed, [False, True], instantiate=[True, False, False]
    )
    assert out_unknowns == [True, True, True]
    assert len(known.out_avals) == num_res == 1  # the known output is now a residual
    (res,) = run(known, X)
    np.testing.assert_allclose(np.asarray(run(unknown, res, Y)[0]), np.sin(X), rtol=1e-6)


def test_partial_eval_jaxpr_all_known_and_all_unknown() -> None:
    closed = didax.make_jaxpr(f3)(X, Y)
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(closed, [False, False])
    assert out_unknowns == [False] * 3 and num_res == 0 and not unknown.eqns
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(closed, [True, True])
    assert out_unknowns == [True] * 3 and num_res == 0 and not known.eqns


@EAGER
@given(programs(), seeds, seeds)
def test_partial_eval_jaxpr_recomposes(prog: Program, seed: int, mask_seed: int) -> None:
    rng = np.random.default_rng(seed)
    xs = draw_like(rng, prog.in_shapes)
    unknowns = list(np.random.default_rng(mask_seed).random(len(xs)) < 0.5)
    closed = didax.make_jaxpr(lambda *a: prog(dnp, *a))(*xs)
    known, unknown, out_unknowns, num_res = pe.partial_eval_jaxpr(closed, unknowns)
    typecheck(known.jaxpr)
    typecheck(unknown.jaxpr)
    known_outs = run(known, *(x for x, u in zip(xs, unknowns, strict=True) if not u))
    n_known = len(known_outs) - num_res
    res = known_outs[n_known:]
    unknown_outs = iter(run(unknown, *res, *(x for x, u in zip(xs, unknowns, strict=True) if u)))
    known_iter = iter(known_outs[:n_known])
    got = [next(unknown_outs) if u else next(known_iter) for u in out_unknowns]
    want = run(closed, *xs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


def test_dce_jaxpr() -> None:
    closed = didax.make_jaxpr(f3)(X, Y)
    jaxpr, used_inputs = dce_jaxpr(closed.jaxpr, [True, False, False])
    assert names(jaxpr) == ["sin"] and used_inputs == [True, False]
    assert len(jaxpr.invars) == 1
    typecheck(jaxpr)
    _, used_inputs = dce_jaxpr(closed.jaxpr, [True, False, False], instantiate=True)
    assert used_inputs == [True, True]


# ----------------------------------------------------------------------------- trace time


def test_partial_eval_flat_runs_known_and_stages_unknown() -> None:
    pvals = [pe.PartialVal.known(X), pe.PartialVal.unknown(core.get_aval(Y))]
    closed, pvals_out = pe.partial_eval_flat(lambda x, y: f3(x, y), pvals)
    assert [p.is_known for p in pvals_out] == [True, False, False]
    np.testing.assert_allclose(np.asarray(pvals_out[0].const), np.sin(X), rtol=1e-6)
    assert names(closed) == ["mul", "cos", "add"]
    assert len(closed.consts) == 1  # sin(x), computed now, read later
    outs = run(closed, Y)
    np.testing.assert_allclose(np.asarray(outs[0]), np.sin(X) * Y, rtol=1e-6)


def test_linear_jaxpr_has_no_zeros_and_no_primal_work() -> None:
    def f(x, y, n):
        return dnp.sin(x) * 2.0 + lax.stop_gradient(y * y) + n

    _, lin, in_linear, out_nonzero = pe.linearize_flat(lambda *a: [f(*a)], [X, Y, 3])
    assert in_linear == [True, True, False] and out_nonzero == [True]
    assert names(lin) == ["mul", "mul"]  # x_dot * cos(x), then * 2.0: nothing else
    assert len(lin.jaxpr.invars) == 2


def test_linearize_of_constant_output_is_symbolic_zero() -> None:
    _, lin, _, out_nonzero = pe.linearize_flat(lambda x: [x * 2.0, dnp.ones(3)], [X])
    assert out_nonzero == [True, False]
    assert len(lin.jaxpr.outvars) == 1


# ----------------------------------------------------------------------------- transposition

counted_p = core.Primitive("counted_scale")  # x * 3, counting its transpositions
core.impl_rules.register(counted_p, lambda x: [x * np.float32(3)])
core.abstract_eval_rules.register(counted_p, lambda x: [x])
CALLS: list[int] = []


@core.transpose_rules.register(counted_p)
def _counted_transpose(cts, x):
    CALLS.append(1)
    (ct,) = cts
    return [counted_p.bind(ct)]


def test_backward_pass_skips_equations_whose_cotangents_are_zero() -> None:
    closed = didax.make_jaxpr(lambda x, y: (counted_p.bind(x), y * 2.0))(X, Y)
    args = [core.UndefinedPrimal(core.get_aval(X)), core.UndefinedPrimal(core.get_aval(Y))]
    CALLS.clear()
    cts = tr.backward_pass(
        closed.jaxpr, closed.consts, args, [core.Zero(core.get_aval(X)), np.ones(3, np.float32)]
    )
    assert CALLS == []
    assert isinstance(cts[0], core.Zero)
    np.testing.assert_allclose(np.asarray(cts[1]), 2.0)
    cts = tr.backward_pass(
        closed.jaxpr, closed.consts, args, [np.ones(3, np.float32), core.Zero(core.get_aval(Y))]
    )
    assert CALLS == [1]
    np.testing.assert_allclose(np.asarray(cts[0]), 3.0)
    assert isinstance(cts[1], core.Zero)


def test_backward_pass_accumulates_and_evaluates_nonlinear_parts() -> None:
    # x is linear; c is known: the nonlinear sin(c) is evaluated forward, x's two uses add up
    closed = didax.make_jaxpr(lambda x, c: x * dnp.sin(c) + x)(X, Y)
    args = [core.UndefinedPrimal(core.get_aval(X)), Y]
    ct_x, ct_c = tr.backward_pass(closed.jaxpr, closed.consts, args, [np.ones(3, np.float32)])
    assert ct_c is None
    np.testing.assert_allclose(np.asarray(ct_x), np.sin(Y) + 1.0, rtol=1e-6)


@pytest.mark.parametrize("ct_nonzero", [None, (True, False), (False, True)])
def test_transpose_jaxpr(ct_nonzero: Any) -> None:
    closed = didax.make_jaxpr(lambda c, x: (x * c, dnp.sum(x)))(Y, X)
    transposed = tr.transpose_jaxpr(closed, [False, True], ct_nonzero)
    typecheck(transposed.jaxpr)
    mask = ct_nonzero or (True, True)
    cts = [np.full(3, 2.0, np.float32), np.float32(5.0)]
    (ct_x,) = run(transposed, Y, *(c for c, nz in zip(cts, mask, strict=True) if nz))
    want = (Y * 2.0 if mask[0] else 0.0) + (5.0 if mask[1] else 0.0)
    np.testing.assert_allclose(np.asarray(ct_x), want + np.zeros(3), rtol=1e-6)


def test_partial_eval_rules_table_is_the_one_jit_fills() -> None:
    assert didax.compile.jit_primitive.jit_p in pe.partial_eval_jaxpr_rules
    assert didax.compile.jit_primitive.jit_p in core.transpose_rules
