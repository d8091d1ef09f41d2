"""Oracle: reverse mode and Jacobians of every differentiable case of `op_cases` against JAX.

For each case with float32 array arguments: `grad` of a random weighting of the output (all
float arguments at once, `argnums` a tuple), `vjp` with those weights as the cotangent, and
`linearize` with random tangents; on a subset, `jacfwd`, `jacrev` and `hessian`. Results must
have JAX's shapes and dtypes and its values within rtol 1e-4, atol 1e-5. Where JAX itself
raises on a case, the case is skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import didax
import didax.numpy as dnp
import numpy as np
import pytest
from op_cases import CASES, OpCase, close_over

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from helpers.oracle import JaxOracle  # noqa: E402

pytestmark = pytest.mark.oracle


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


def _weights(j_fn: Any, xs: list[Any], rng: np.random.Generator) -> np.ndarray:
    shape = jax.eval_shape(j_fn, *xs).shape  # the output's shape: no computation
    return rng.standard_normal(shape).astype(np.float32)


# JAX's side of every test, made as the tests make their inputs. `JaxOracle` compiles the
# members of one function (all its cases, all the tests) as one program; run eagerly, each of
# JAX's operations is a compile of its own (the ~5 per case took most of this module's time).


def _grad_member(case: OpCase) -> tuple[Any, Callable[..., Any], list[Any]]:
    _, j_fn, xs, rng = _setup(case)
    w = _weights(j_fn, xs, rng)
    argnums = tuple(range(len(xs)))

    def grad_and_out(*a: Any) -> Any:
        return jax.grad(lambda *b: jnp.sum(j_fn(*b) * w), argnums)(*a), j_fn(*a)

    return ("grad", case.id), grad_and_out, xs


def _jvp_member(case: OpCase) -> tuple[Any, Callable[..., Any], list[Any]]:
    _, j_fn, xs, rng = _setup(case)
    tangents = [rng.standard_normal(np.shape(x)).astype(np.float32) for x in xs]
    n = len(xs)
    return ("jvp", case.id), lambda *a: jax.jvp(j_fn, a[:n], a[n:]), [*xs, *tangents]


def _jacobian_member(case: OpCase, jac: str) -> tuple[Any, Callable[..., Any], list[Any]]:
    _, j_fn, xs, _ = _setup(case)
    return (jac, case.id), getattr(jax, jac)(j_fn, tuple(range(len(xs)))), xs


def _hessian_member(case: OpCase) -> tuple[Any, Callable[..., Any], list[Any]]:
    _, j_fn, xs, rng = _setup(case)
    w = _weights(j_fn, xs, rng)
    return ("hessian", case.id), jax.hessian(lambda *a: jnp.sum(j_fn(*a) * w)), xs


def _one_output(case: OpCase) -> bool:
    _, j_fn, xs, _ = _setup(case)
    return isinstance(jax.eval_shape(j_fn, *xs), jax.ShapeDtypeStruct)


# cases JAX rejects (`raises`) have no derivative to compare; the weighted sum below needs
# one output (the jvp of several, `lu`'s, is test_numpy_oracle's)
DIFF_CASES = [
    c
    for c in CASES
    if c.differentiable and c.float_positions and c.raises is None and _one_output(c)
]
TOL = 1e-4  # JAX's float32 tolerance: rtol 1e-4, atol 1e-5
# Jacobians and Hessians cost a vmap each: a deterministic third of the cases.
JAC_CASES = DIFF_CASES[::4]
HESSIAN_CASES = DIFF_CASES[1::6]


def _groups() -> dict[Any, list[tuple[Any, Callable[..., Any], list[Any]]]]:
    members = [_grad_member(c) for c in DIFF_CASES] + [_jvp_member(c) for c in DIFF_CASES]
    members += [_jacobian_member(c, jac) for c in JAC_CASES for jac in ("jacfwd", "jacrev")]
    members += [_hessian_member(c) for c in HESSIAN_CASES]
    groups: dict[Any, list] = {}
    for key, fn, inputs in members:
        case = _BY_ID[key[1]]
        groups.setdefault((case.module, case.name), []).append((key, fn, inputs))
    return groups


_BY_ID = {c.id: c for c in DIFF_CASES}


@pytest.fixture(scope="module")
def oracle() -> JaxOracle:
    return JaxOracle(_groups())


def _jax(oracle: JaxOracle, member: tuple[Any, Callable[..., Any], list[Any]]) -> Any:
    """JAX's answer, compiled; a member that fails under `jit` runs eagerly, as a user would
    call it. Where JAX itself fails on a case, there is nothing to compare with."""
    key, fn, inputs = member
    case = _BY_ID[key[1]]
    try:
        return oracle.result((case.module, case.name), key)
    except Exception:  # noqa: BLE001 - not under jit: ask eager JAX below
        pass
    try:
        return fn(*inputs)
    except Exception as e:  # noqa: BLE001 - any failure of the oracle skips the case
        pytest.skip(f"JAX raises {type(e).__name__} here")


@pytest.mark.parametrize("case", DIFF_CASES, ids=[c.id for c in DIFF_CASES])
def test_grad_and_vjp(case: OpCase, oracle: JaxOracle) -> None:
    d_fn, j_fn, xs, rng = _setup(case)
    w = _weights(j_fn, xs, rng)
    argnums = tuple(range(len(xs)))
    want, want_out = _jax(oracle, _grad_member(case))
    got = didax.grad(lambda *a: dnp.sum(d_fn(*a) * w), argnums)(*xs)
    assert_tree_close(got, want, TOL)
    # the same cotangent through vjp: the output and the cotangents of every argument
    d_out, d_vjp = didax.vjp(d_fn, *xs)
    assert_tree_close(d_out, want_out, TOL)
    assert_tree_close(d_vjp(w), want, TOL)


# Cases whose jvp rule computes the primal output from the tangents too (a reduction over
# (value, tangent) pairs), so that linearize cannot separate them: JAX's raises ValueError
LINEARIZE_RAISES = {"lax.reduce_window.product(float32[3, 4, 5], (2, 2, 1), (1, 1, 1), 'SAME')"}


@pytest.mark.parametrize("case_id", sorted(LINEARIZE_RAISES))
def test_linearize_raises_where_jax_does(case_id: str) -> None:
    d_fn, j_fn, xs, _ = _setup(_BY_ID[case_id])
    with pytest.raises(ValueError, match="Linearization failed") as jax_error:
        jax.linearize(j_fn, *xs)
    with pytest.raises(ValueError) as didax_error:
        didax.linearize(d_fn, *xs)
    assert str(didax_error.value) == str(jax_error.value)


@pytest.mark.parametrize(
    "case", [c for c in DIFF_CASES if c.id not in LINEARIZE_RAISES], ids=lambda c: c.id
)
def test_linearize(case: OpCase, oracle: JaxOracle) -> None:
    d_fn, _, xs, rng = _setup(case)
    tangents = [rng.standard_normal(np.shape(x)).astype(np.float32) for x in xs]
    j_out, j_t = _jax(oracle, _jvp_member(case))
    d_out, d_lin = didax.linearize(d_fn, *xs)
    assert_tree_close(d_out, j_out, TOL)
    assert_tree_close(d_lin(*tangents), j_t, TOL)


@pytest.mark.parametrize("case", JAC_CASES, ids=[c.id for c in JAC_CASES])
@pytest.mark.parametrize("jac", ["jacfwd", "jacrev"])
def test_jacobian(case: OpCase, jac: str, oracle: JaxOracle) -> None:
    d_fn, _, xs, _ = _setup(case)
    argnums = tuple(range(len(xs)))
    want = _jax(oracle, _jacobian_member(case, jac))
    got = getattr(didax, jac)(d_fn, argnums)(*xs)
    assert_tree_close(got, want, TOL)


@pytest.mark.parametrize("case", HESSIAN_CASES, ids=[c.id for c in HESSIAN_CASES])
def test_hessian(case: OpCase, oracle: JaxOracle) -> None:
    d_fn, j_fn, xs, rng = _setup(case)
    w = _weights(j_fn, xs, rng)
    want = _jax(oracle, _hessian_member(case))
    got = didax.hessian(lambda *a: dnp.sum(d_fn(*a) * w))(*xs)
    assert_tree_close(got, want, 1e-3)
