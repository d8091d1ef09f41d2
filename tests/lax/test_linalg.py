"""Linear algebra against JAX: `lax.linalg.cholesky`, `triangular_solve`, `lu` (their rules
by `check_rules`, their jaxprs as JAX prints them) and `jnp.linalg.inv`, `solve`, `det`,
`slogdet`, `cholesky`: values, dtypes and shapes under eval, jit and vmap, batched, and
their gradients.

Where JAX's side of a test takes a gradient or a vmap, it is one `jax.jit` program
(`helpers.oracle.jax_quick`): run eagerly, each of its operations is a compile of its own."""

from __future__ import annotations

import didax
import didax.numpy as jnp
import numpy as np
import pytest
from didax import lax as dlax
from didax.primitives import linalg as plinalg
from didax.test_util import check_rules

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")
from helpers.jaxpr_text import canonical
from helpers.oracle import jax_quick

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(7)
A3 = (RNG.normal(size=(3, 3)) + 2 * np.eye(3)).astype(np.float32)
A4 = RNG.normal(size=(4, 4)).astype(np.float32)
AB = RNG.normal(size=(2, 4, 4)).astype(np.float32)  # a batch of two
SPD = (A4 @ A4.T + 4 * np.eye(4)).astype(np.float32)
B4 = RNG.normal(size=(4,)).astype(np.float32)
BM = RNG.normal(size=(4, 3)).astype(np.float32)


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [np.asarray(y) for y in x]
    return [np.asarray(x)]


def _same(got, want, atol=1e-4):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, atol=atol, rtol=1e-4)


# ----------------------------------------------------------------------------- primitives


def test_triangular_solve_rules():
    # (cholesky_p's jvp assumes a symmetric tangent, as JAX's does, so finite differences on
    # random tangents do not apply to it: its gradients are checked against JAX below)
    for left_side in (True, False):
        for transpose_a in (True, False):
            b = BM if left_side else BM.T
            check_rules(
                plinalg.triangular_solve_p,
                A4,
                b,
                left_side=left_side,
                lower=not transpose_a,
                transpose_a=transpose_a,
                conjugate_a=False,
                unit_diagonal=transpose_a,
            )


@pytest.mark.parametrize("x", [A4, AB, RNG.normal(size=(3, 5)), RNG.normal(size=(5, 3))])
def test_lu_values_eval_and_jit(x):
    x = np.asarray(x, np.float32)
    want = jax.lax.linalg.lu(x)
    _same(dlax.linalg.lu(x), want)
    _same(didax.jit(dlax.linalg.lu)(x), want)


@pytest.mark.parametrize("x", [A4, RNG.normal(size=(3, 5)), RNG.normal(size=(5, 3))])
def test_lu_grad(x):
    x = np.asarray(x, np.float32)

    def loss(lib):
        return lambda a: (lib.lax.linalg.lu(a)[0] ** 3).sum()

    want = jax_quick(jax.grad(loss(jax)), x)
    _same(didax.grad(loss(didax))(x), want, atol=1e-3)
    _same(didax.jit(didax.grad(loss(didax)))(x), want, atol=1e-3)


def test_lu_vmap():
    _same(didax.vmap(dlax.linalg.lu)(AB), jax.vmap(jax.lax.linalg.lu)(AB))
    _same(didax.vmap(dlax.linalg.lu, in_axes=1)(AB), jax.vmap(jax.lax.linalg.lu, in_axes=1)(AB))


@pytest.mark.parametrize("symmetrize_input", [True, False])
def test_cholesky_eval_jit_grad(symmetrize_input):
    def f(lib):
        return lambda a: lib.lax.linalg.cholesky(a, symmetrize_input=symmetrize_input)

    loss = lambda lib: lambda a: (f(lib)(a) ** 2).sum()  # noqa: E731
    want, want_grad = jax_quick(lambda a: (f(jax)(a), jax.grad(loss(jax))(a)), SPD)
    _same(f(didax)(SPD), want)
    _same(didax.jit(f(didax))(SPD), want)
    _same(didax.grad(loss(didax))(SPD), want_grad, atol=1e-3)


def test_cholesky_not_positive_definite_is_nan():
    bad = -np.eye(3, dtype=np.float32)
    want = np.asarray(jax.lax.linalg.cholesky(bad))
    assert np.isnan(want).any()
    for fn in (dlax.linalg.cholesky, didax.jit(dlax.linalg.cholesky)):
        got = np.asarray(fn(bad))
        assert np.isnan(got).any()


@pytest.mark.parametrize(
    "params",
    [
        dict(left_side=True, lower=True),
        dict(left_side=False, lower=False, transpose_a=True, unit_diagonal=True),
        dict(left_side=True, lower=False, transpose_a=True),
    ],
)
def test_triangular_solve_eval_jit_vmap_grad(params):
    b = BM if params["left_side"] else BM.T
    f = lambda lib: lambda a, b: lib.lax.linalg.triangular_solve(a, b, **params)  # noqa: E731
    a_batch, b_batch = np.stack([A4, A4 + 1]), np.stack([b, 2 * b])
    loss = lambda lib: lambda a, b: (f(lib)(a, b) ** 2).sum()  # noqa: E731

    def jax_side(a, b, a_batch, b_batch):
        return (
            f(jax)(a, b),
            jax.vmap(f(jax))(a_batch, b_batch),
            jax.vmap(f(jax), (None, 0))(a, b_batch),
            jax.grad(loss(jax), argnums=(0, 1))(a, b),
        )

    want, want_vmap, want_vmap_b, want_grad = jax_quick(jax_side, A4, b, a_batch, b_batch)
    _same(f(didax)(A4, b), want)
    _same(didax.jit(f(didax))(A4, b), want)
    _same(didax.vmap(f(didax))(a_batch, b_batch), want_vmap)
    _same(didax.vmap(f(didax), (None, 0))(A4, b_batch), want_vmap_b)
    got = didax.grad(loss(didax), argnums=(0, 1))(A4, b)
    _same(got, want_grad, atol=1e-3)


def test_triangular_solve_shape_error():
    with pytest.raises(TypeError, match="triangular_solve"):
        dlax.linalg.triangular_solve(A4, BM.T, left_side=True)


def test_linalg_primitive_jaxprs_print_as_jax():
    for f, args in [
        (lambda lib: lib.lax.linalg.lu, (AB,)),
        (lambda lib: lib.lax.linalg.cholesky, (SPD,)),
        (
            lambda lib: lambda a, b: lib.lax.linalg.triangular_solve(a, b, left_side=True),
            (A4, BM),
        ),
    ]:
        got = str(didax.make_jaxpr(f(didax))(*args))
        want = str(jax.make_jaxpr(f(jax))(*args))
        assert canonical(got) == canonical(want), (got, want)


def test_lu_lowers_to_lapack_getrf():
    text = didax.jit(dlax.linalg.lu).lower(A4).as_text()
    assert "lapack_sgetrf_ffi" in text


# ----------------------------------------------------------------------------- jnp.linalg


@pytest.mark.parametrize("name", ["inv", "det"])
@pytest.mark.parametrize("x", [A3[:2, :2], A3, A4, AB], ids=["2x2", "3x3", "4x4", "batch"])
def test_inv_det_values_and_grads(name, x):
    f = lambda lib: getattr(lib.numpy.linalg, name)  # noqa: E731
    loss = lambda lib: lambda a: (f(lib)(a) ** 2).sum()  # noqa: E731
    want, want_grad = jax_quick(lambda a: (f(jax)(a), jax.grad(loss(jax))(a)), x)
    _same(f(didax)(x), want)
    _same(didax.jit(f(didax))(x), want)
    _same(didax.grad(loss(didax))(x), want_grad, atol=2e-3)


def test_det_jvp_is_det_times_trace_of_inverse_times_tangent():
    t = RNG.normal(size=(4, 4)).astype(np.float32)
    _, got = didax.jvp(jnp.linalg.det, (A4,), (t,))
    _, want = jax.jvp(jjnp.linalg.det, (A4,), (t,))
    _same(got, want, atol=1e-3)


def test_slogdet_and_singular_matrices():
    for x in (A4, AB, np.zeros((4, 4), np.float32)):
        _same(tuple(jnp.linalg.slogdet(x)), tuple(jjnp.linalg.slogdet(x)))
        _same(jnp.linalg.det(x), jjnp.linalg.det(x))
    got = didax.grad(lambda a: jnp.linalg.slogdet(a).logabsdet)(A4)
    _same(got, jax.grad(lambda a: jjnp.linalg.slogdet(a).logabsdet)(A4), atol=1e-3)
    assert type(jnp.linalg.slogdet(A4)).__name__ == "SlogdetResult"


@pytest.mark.parametrize("a, b", [(A4, B4), (AB, B4), (A4, BM), (AB, BM), (AB, np.stack([BM, BM]))])
def test_solve_values_vmap_grads(a, b):
    loss = lambda lib: lambda a, b: (lib.numpy.linalg.solve(a, b) ** 2).sum()  # noqa: E731
    want, want_grad = jax_quick(
        lambda a, b: (jjnp.linalg.solve(a, b), jax.grad(loss(jax), argnums=(0, 1))(a, b)), a, b
    )
    _same(jnp.linalg.solve(a, b), want)
    _same(didax.jit(jnp.linalg.solve)(a, b), want)
    got = didax.grad(loss(didax), argnums=(0, 1))(a, b)
    _same(got, want_grad, atol=2e-3)


def test_inv_under_vmap_and_integer_input():
    _same(didax.vmap(jnp.linalg.inv)(AB), jax.vmap(jjnp.linalg.inv)(AB))
    ints = np.array([[2, 1], [1, 3]], np.int32)
    _same(jnp.linalg.inv(ints), jjnp.linalg.inv(ints))
    _same(jnp.linalg.det(ints), jjnp.linalg.det(ints))


@pytest.mark.parametrize("upper", [False, True])
def test_jnp_cholesky(upper):
    _same(jnp.linalg.cholesky(SPD, upper=upper), jjnp.linalg.cholesky(SPD, upper=upper))
    loss = lambda lib: lambda a: lib.numpy.linalg.cholesky(a).sum()  # noqa: E731
    _same(didax.grad(loss(didax))(SPD), jax.grad(loss(jax))(SPD), atol=1e-3)


def test_non_square_errors():
    with pytest.raises(ValueError) as want:
        jjnp.linalg.inv(BM)
    with pytest.raises(ValueError) as got:
        jnp.linalg.inv(BM)
    assert str(got.value) == str(want.value)  # "Argument to inv must have shape [..., n, n]"
    for fn in (jnp.linalg.det, jnp.linalg.cholesky):
        with pytest.raises(ValueError, match="square"):
            fn(BM)
    with pytest.raises(ValueError):
        jnp.linalg.solve(B4, B4)


@pytest.mark.parametrize(
    "x",
    [
        np.array([[1.0, 2.0], [2.0, 4.0]], np.float32),
        np.zeros((3, 3), np.float32),
        np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.float32),
    ],
    ids=["rank1-2x2", "zeros", "rank2-3x3"],
)
def test_singular_matrices_give_jaxs_infs_and_nans(x):
    # LAPACK's trsm (eager: the same substitution order) gives JAX's inf/NaN pattern
    want = np.asarray(jjnp.linalg.inv(x))
    for fn in (jnp.linalg.inv, didax.jit(jnp.linalg.inv)):
        np.testing.assert_array_equal(np.asarray(fn(x)), want)
    _same(jnp.linalg.det(x), jjnp.linalg.det(x))
    _same(
        didax.jit(jnp.linalg.solve)(x, np.ones(len(x), np.float32)),
        jjnp.linalg.solve(x, np.ones(len(x), np.float32)),
    )


NAN = np.nan


@pytest.mark.parametrize(
    "x",
    [
        np.array([[NAN, 1.0], [0.0, 1.0]], np.float32),  # a NaN pivot leaves its column
        np.array([[NAN, 1.0, 2.0], [0.0, 1.0, 3.0], [1.0, 2.0, 4.0]], np.float32),
        np.array([[1.0, 2.0], [NAN, 1.0]], np.float32),  # a NaN below is never the pivot
        np.array([[2.0, NAN], [1.0, 1.0]], np.float32),
        np.array([[np.inf, 1.0], [2.0, 1.0]], np.float32),
    ],
    ids=["nan-pivot-2x2", "nan-pivot-3x3", "nan-below", "nan-right", "inf-pivot"],
)
def test_matrices_with_nan_give_jaxs_values_eagerly(x):
    # XLA's kernel is LAPACK's getrf: the eager LU picks and skips pivots as it does (a NaN
    # further down a column is picked as each BLAS build's i?amax does: not tested here)
    b = np.ones(len(x), np.float32)
    for fn, jfn in [
        (lambda a: dlax.linalg.lu(a)[:2], lambda a: jax.lax.linalg.lu(a)[:2]),
        (jnp.linalg.inv, jjnp.linalg.inv),
        (jnp.linalg.det, jjnp.linalg.det),
        (lambda a: jnp.linalg.solve(a, b), lambda a: jjnp.linalg.solve(a, b)),
    ]:
        want = _flat(jfn(x))
        for got in (_flat(fn(x)), _flat(didax.jit(fn)(x))):
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)
