"""Oracle: reverse mode and Jacobians of every differentiable case of `op_cases` against JAX.

For each case with float32 array arguments: `grad` of a random weighting of the output (all
float arguments at once, `argnums` a tuple), `vjp` with those weights as the cotangent, and
`linearize` with random tangents; on a subset, `jacfwd`, `jacrev` and `hessian`. Results must
have JAX's shapes and dtypes and its values within rtol 1e-4, atol 1e-5. Where JAX itself
raises on a case, the case is skipped.
"""

from __future__ import annotations

from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from op_cases import CASES, OpCase, close_over

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

pytestmark = pytest.mark.oracle

# cases JAX rejects (`raises`) have no derivative to compare
DIFF_CASES = [
    c
    for c in CASES
    if c.differentiable and c.float_positions and getattr(c, "raises", None) is None
]
TOL = 1e-4  # JAX's float32 tolerance: rtol 1e-4, atol 1e-5
# Jacobians and Hessians cost a vmap each: a deterministic third of the cases.
JAC_CASES = DIFF_CASES[::4]


def assert_tree_close(got: Any, want: Any, tol: float) -> None:
    got_leaves, got_tree = didax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert len(got_leaves) == len(want_leaves), f"{got_tree} vs JAX's {want_tree}"
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"shape {g.shape} != JAX's {w.shape}"
        assert g.dtype == w.dtype, f"dtype {g.dtype} != JAX's {w.dtype}"
        if g.dtype.kind != "V":  # float0, the tangent type of integers, holds no values
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol / 10)


def _setup(case: OpCase) -> tuple[Any, Any, list[Any], np.random.Generator]:
    rng = np.random.default_rng([case.seed, 7])
    args = case.make_inputs(rng)
    d_fn, xs = close_over(case.didax_fn, args, case.float_positions)
    j_fn, _ = close_over(case.jax_fn, args, case.float_positions)
    return d_fn, j_fn, xs, rng


def _weights(fn: Any, xs: list[Any], rng: np.random.Generator) -> np.ndarray:
    out = np.asarray(fn(*xs))
    return rng.standard_normal(out.shape).astype(np.float32)


def _jax(fn: Any, *args: Any) -> Any:
    """JAX's answer; where JAX itself fails on a case, there is nothing to compare with."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - any failure of the oracle skips the case
        pytest.skip(f"JAX raises {type(e).__name__} here")


@pytest.mark.parametrize("case", DIFF_CASES, ids=[c.id for c in DIFF_CASES])
def test_grad_and_vjp(case: OpCase) -> None:
    d_fn, j_fn, xs, rng = _setup(case)
    w = _weights(j_fn, xs, rng)
    argnums = tuple(range(len(xs)))
    want = _jax(jax.grad(lambda *a: jnp.sum(j_fn(*a) * w), argnums), *xs)
    got = didax.grad(lambda *a: dnp.sum(d_fn(*a) * w), argnums)(*xs)
    assert_tree_close(got, want, TOL)
    # the same cotangent through vjp: the output and the cotangents of every argument
    d_out, d_vjp = didax.vjp(d_fn, *xs)
    assert_tree_close(d_out, j_fn(*xs), TOL)
    assert_tree_close(d_vjp(w), want, TOL)


@pytest.mark.parametrize("case", DIFF_CASES, ids=[c.id for c in DIFF_CASES])
def test_linearize(case: OpCase) -> None:
    d_fn, j_fn, xs, rng = _setup(case)
    tangents = [rng.standard_normal(np.shape(x)).astype(np.float32) for x in xs]
    j_out, j_t = _jax(jax.jvp, j_fn, tuple(xs), tuple(tangents))
    d_out, d_lin = didax.linearize(d_fn, *xs)
    assert_tree_close(d_out, j_out, TOL)
    assert_tree_close(d_lin(*tangents), j_t, TOL)


@pytest.mark.parametrize("case", JAC_CASES, ids=[c.id for c in JAC_CASES])
@pytest.mark.parametrize("jac", ["jacfwd", "jacrev"])
def test_jacobian(case: OpCase, jac: str) -> None:
    d_fn, j_fn, xs, _ = _setup(case)
    argnums = tuple(range(len(xs)))
    want = _jax(getattr(jax, jac)(j_fn, argnums), *xs)
    got = getattr(didax, jac)(d_fn, argnums)(*xs)
    assert_tree_close(got, want, TOL)


@pytest.mark.parametrize("case", DIFF_CASES[1::6], ids=[c.id for c in DIFF_CASES[1::6]])
def test_hessian(case: OpCase) -> None:
    d_fn, j_fn, xs, rng = _setup(case)
    w = _weights(j_fn, xs, rng)
    want = _jax(jax.hessian(lambda *a: jnp.sum(j_fn(*a) * w)), *xs)
    got = didax.hessian(lambda *a: dnp.sum(d_fn(*a) * w))(*xs)
    assert_tree_close(got, want, 1e-3)
