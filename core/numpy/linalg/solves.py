"""`didax.numpy.linalg.solves`: solves, inverses, determinants, Cholesky. Like
`jax.numpy.linalg`'s.

Layer 5, composing `didax.numpy`, the linear-algebra primitives (`primitives/linalg.py`:
`lu`, `triangular_solve`, `cholesky`) and `custom_linear_solve` (`control_flow/solves.py`).
`solve` is JAX's: an inner `jit[name=solve]` that factors stop_gradient(A) = P^T L U once and
binds `custom_linear_solve` with A's product as the operator and the two triangular solves
(`jit[name=_lu_solve]`) as solver and transpose solver, so derivatives reuse the factors (a
matrix b is a vmap over its columns, as in JAX); `inv` solves against the identity;
`slogdet` reads the determinant off U's diagonal and the pivots' parity, with JAX's custom
jvp (d log|det A| = tr(A^-1 dA)); `det` is sign * exp(logabsdet) with d det = det tr(A^-1 dA),
and JAX's explicit products for 2x2 and 3x3 matrices.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from didax import api, dtypes, lax
from didax.control_flow import solves
from didax.control_flow.custom_derivatives import custom_jvp
from didax.numpy import (
    creation,
    inner_jit,
    predicates,
    promotion,
    reductions,
    ufuncs,
)
from didax.numpy.axis_args import _aval
from didax.primitives import decompositions
from didax.primitives import linalg as lax_linalg

__all__ = ["cholesky", "det", "inv", "slogdet", "solve", "SlogdetResult"]


# ----------------------------------------------------------------------------- solves


class SlogdetResult(NamedTuple):
    """`slogdet`'s result. Like `jax.numpy.linalg.SlogdetResult`."""

    sign: Any
    logabsdet: Any


def _square(name: str, a: Any) -> Any:
    a = promotion.to_inexact(name, creation.asarray(a))
    shape = _aval(a).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"{name}: expected a square matrix (..., n, n), got shape {shape}")
    return a


def _broadcast_batch(x: Any, batch: tuple[int, ...]) -> Any:
    shape = _aval(x).shape
    if shape[:-2] == batch:
        return x
    out = (*batch, *shape[-2:])
    return lax.broadcast_in_dim(x, out, tuple(range(len(out) - len(shape), len(out))))


def _lu_solve_core(lu: Any, permutation: Any, b: Any, trans: int) -> Any:
    # P A = L U: A x = b is L U x = P b (trans=0); A^T x = b is U^T L^T (P x) = b (trans=1)
    m = _aval(lu).shape[0]
    b_shape = _aval(b).shape
    x = b if len(b_shape) == 2 else lax.reshape(b, (m, int(np.prod(b_shape[1:]))))
    if trans == 0:
        x = x[permutation, :]
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    else:
        x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False, transpose_a=True)
        x = lax_linalg.triangular_solve(
            lu, x, left_side=True, lower=True, unit_diagonal=True, transpose_a=True
        )
        _, inverse = lax.sort_key_val(permutation, lax.iota(np.int32, _aval(permutation).shape[0]))
        x = x[inverse, :]
    return x if _aval(x).shape == b_shape else lax.reshape(x, b_shape)


def _lu_solve_body(lu: Any, permutation: Any, b: Any, trans: int) -> Any:
    # JAX's lax.linalg.lu_solve: b a vector (..., m) or matrices (..., m, k), batches
    # broadcast, the core mapped over them
    vector = _aval(lu).ndim == _aval(b).ndim + 1
    if vector:
        b = lax.broadcast_in_dim(b, (*_aval(b).shape, 1), tuple(range(_aval(b).ndim)))
    batch = tuple(
        np.broadcast_shapes(
            _aval(lu).shape[:-2], _aval(permutation).shape[:-1], _aval(b).shape[:-2]
        )
    )
    lu, b = _broadcast_batch(lu, batch), _broadcast_batch(b, batch)
    if _aval(permutation).shape[:-1] != batch:
        n = _aval(permutation).shape[-1]
        permutation = lax.broadcast_in_dim(
            permutation,
            (*batch, n),
            tuple(range(len(batch) + 1 - _aval(permutation).ndim, len(batch) + 1)),
        )
    fn = lambda lu, p, b: _lu_solve_core(lu, p, b, trans)  # noqa: E731
    for _ in batch:
        fn = api.vmap(fn)
    x = fn(lu, permutation, b)
    return lax.squeeze(x, (_aval(x).ndim - 1,)) if vector else x


_lu_solve = inner_jit.inner_jit(_lu_solve_body, "_lu_solve", static_argnums=(3,))


def _broadcasted_matvec(a: Any, x: Any) -> Any:
    # (..., n, m), (..., m) -> (..., n), at the highest precision, as JAX's
    batch = tuple(np.broadcast_shapes(_aval(a).shape[:-2], _aval(x).shape[:-1]))
    a = _broadcast_batch(a, batch)
    if _aval(x).shape[:-1] != batch:
        n = _aval(x).shape[-1]
        x = lax.broadcast_in_dim(
            x, (*batch, n), tuple(range(len(batch) + 1 - _aval(x).ndim, len(batch) + 1))
        )
    nb = len(batch)
    dims = (((_aval(a).ndim - 1,), (_aval(x).ndim - 1,)), (tuple(range(nb)), tuple(range(nb))))
    return lax.dot_general(a, x, dims, precision=lax.Precision.HIGHEST)


def _matrix_vecmat(a: Any, x: Any) -> Any:
    # x -> A^T x for one matrix, written as JAX's linear_transpose of its matvec comes out
    # (its partial-evaluation trace keeps a same-shape broadcast_in_dim, whose transpose is
    # the reduce_sum over no axes)
    prod = lax.dot_general(x, a, (((0,), (0,)), ((), ())), precision=lax.Precision.HIGHEST)
    return lax.reduce_sum(prod, ())


def _solve_core(a: Any, b: Any) -> Any:
    # JAX's lax.linalg._solve: one factorization, reused by the derivatives through
    # custom_linear_solve (a vector b, or a vmap over b's columns)
    out_shape = tuple(
        d_a if d_b == 1 else d_b
        for d_a, d_b in zip((*_aval(a).shape[:-1], 1), _aval(b).shape, strict=False)
    )
    if out_shape != _aval(b).shape:
        b = lax.broadcast_in_dim(b, out_shape, tuple(range(_aval(b).ndim)))
    lu, _, permutation = lax_linalg.lu(lax.stop_gradient(a))

    def custom_solve(x: Any) -> Any:
        return solves._custom_linear_solve(
            lambda y: _broadcasted_matvec(a, y),
            x,
            lambda _, y: _lu_solve(lu, permutation, y, 0),
            lambda _, y: _lu_solve(lu, permutation, y, 1),
            False,
            (lambda y: _matrix_vecmat(a, y)) if _aval(a).ndim == 2 else None,
        )

    if _aval(a).ndim == _aval(b).ndim + 1:
        return custom_solve(b)
    nb = _aval(b).ndim
    return api.vmap(custom_solve, nb - 1, max(_aval(a).ndim, nb) - 1)(b)


def _solve(a: Any, b: Any) -> Any:
    a_shape, b_shape = _aval(a).shape, _aval(b).shape
    vector = len(b_shape) == 1
    core_a, core_b = 2, 1 if vector else 2
    batch = tuple(np.broadcast_shapes(a_shape[:-core_a], b_shape[: len(b_shape) - core_b]))
    if not batch:
        return _solve_core(a, b)
    # jnp.vectorize's broadcasting over the leading axes, mapped one axis at a time
    a = _broadcast_to_batch(a, batch, core_a)
    b = _broadcast_to_batch(b, batch, core_b)
    fn = _solve_core
    for _ in batch:
        fn = api.vmap(fn)
    return fn(a, b)


def _broadcast_to_batch(x: Any, batch: tuple[int, ...], core_ndim: int) -> Any:
    shape = _aval(x).shape
    target = (*batch, *shape[len(shape) - core_ndim :])
    if shape == target:
        return x
    return lax.broadcast_in_dim(x, target, tuple(range(len(target) - len(shape), len(target))))


def _solve_jit(a: Any, b: Any) -> Any:
    return _solve(a, b)


_solve_inner = inner_jit.inner_jit(_solve_jit, "solve")


def solve(a: Any, b: Any) -> Any:
    """x with a @ x == b; `b` is (..., n) or (..., n, k). Like `jax.numpy.linalg.solve`:
    an LU factorization and `custom_linear_solve`, in an inner `jit`."""
    promotion.check_arraylike("jnp.linalg.solve", a, b)
    a, b = promotion.promote(
        "solve", promotion.to_inexact("solve", creation.asarray(a)), creation.asarray(b)
    )
    a, b = promotion.to_inexact("solve", a), promotion.to_inexact("solve", b)
    a_shape, b_shape = _aval(a).shape, _aval(b).shape
    if len(a_shape) < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a_shape}")
    if (
        len(b_shape) > 1
        and len(a_shape) == len(b_shape) + 1
        and a_shape[-1] == b_shape[-1]
        and a_shape[-1] != b_shape[-2]
    ):
        raise ValueError(
            f"Invalid shapes for solve: {a_shape}, {b_shape}. Prior to JAX v0.5.0, this would "
            "have been treated as a batched 1-dimensional solve. To recover this behavior, use "
            "solve(a, b[..., None]).squeeze(-1)."
        )
    n = b_shape[-1] if len(b_shape) == 1 else b_shape[-2]
    if a_shape[-1] != a_shape[-2] or a_shape[-1] != n:
        raise ValueError(f"Invalid shapes for solve: {a_shape}, {b_shape}")
    return _solve_inner(a, b)


def _inv(a: Any) -> Any:
    shape = _aval(a).shape
    eye = creation.eye(shape[-1], dtype=_aval(a).dtype)
    if len(shape) > 2:
        eye = lax.broadcast_in_dim(eye, shape, (len(shape) - 2, len(shape) - 1))
    return solve(a, eye)


_inv_inner = inner_jit.inner_jit(_inv, "inv")


def inv(a: Any) -> Any:
    """The inverse of each square matrix: a solve against the identity, in an inner `jit`.
    Like `jax.numpy.linalg.inv`."""
    promotion.check_arraylike("inv", a)
    a = promotion.to_inexact("inv", creation.asarray(a))
    shape = _aval(a).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {shape}.")
    return _inv_inner(a)


def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
    """The Cholesky factor of each symmetric positive-definite matrix (lower, or upper if
    `upper`). Like `jax.numpy.linalg.cholesky`."""
    a = _square("cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return lax_linalg.matrix_transpose(L) if upper else L


# ----------------------------------------------------------------------------- determinants


def _diagonal(x: Any) -> Any:
    # the main diagonal of each matrix: a masked row sum
    return reductions.sum(lax.mul(x, lax_linalg.eye_like(x)), axis=-1)


def _trace_solve(a: Any, g: Any) -> Any:  # tr(A^-1 G) for each matrix
    return reductions.sum(_diagonal(solve(a, g)), axis=-1)


@custom_jvp
def _slogdet(a: Any) -> tuple[Any, Any]:
    dtype = _aval(a).dtype
    lu, pivots, _ = lax_linalg.lu(a)
    diag = _diagonal(lu)
    is_zero = predicates.any(lax.eq(diag, lax.full((), 0, dtype)), axis=-1)
    piv = _aval(pivots)
    swaps = lax.ne(pivots, lax.broadcasted_iota(piv.dtype, piv.shape, piv.ndim - 1))
    negative = lax.lt(diag, lax.full((), 0, dtype))
    parity = lax.add(_count(swaps), _count(negative))
    odd = lax.convert_element_type(lax.rem(parity, np.int32(2)), dtype)
    sign = lax.sub(lax.full((), 1, dtype), lax.mul(odd, lax.full((), 2, dtype)))
    sign = ufuncs.where(is_zero, lax.full((), 0, dtype), sign)
    logdet = reductions.sum(lax.log(lax.abs(diag)), axis=-1)
    logdet = ufuncs.where(is_zero, lax.full((), -np.inf, dtype), logdet)
    return sign, logdet


def _count(mask: Any) -> Any:  # true entries along the last axis, as int32
    return reductions.sum(lax.convert_element_type(mask, np.int32), axis=-1)


@_slogdet.defjvp
def _slogdet_jvp(primals: tuple, tangents: tuple) -> tuple:
    (a,), (g,) = primals, tangents
    sign, logdet = _slogdet(a)
    return (sign, logdet), (creation.zeros_like(sign), _trace_solve(a, g))


def _slogdet_qr(a: Any) -> tuple[Any, Any]:
    # |det A| = prod |R_ii|; each Householder reflector actually applied (tau != 0) flips the
    # sign. No derivative, as JAX's (geqrf has none).
    dtype = _aval(a).dtype
    if dtypes.is_complex(dtype):
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    n = _aval(a).shape[-1]
    r, taus = decompositions.geqrf(a)
    diag = _diagonal(r)
    logdet = reductions.sum(lax.log(lax.abs(diag)), axis=-1)
    sign_diag = reductions.prod(lax.sign(diag), axis=-1)
    flips = ufuncs.where(lax.ne(taus[..., : n - 1], lax.full((), 0, dtype)), -1, 1)
    sign_taus = lax.convert_element_type(reductions.prod(flips, axis=-1), dtype)
    return lax.mul(sign_diag, sign_taus), logdet


def slogdet(a: Any, *, method: str | None = None) -> SlogdetResult:
    """Sign and log of the absolute value of each determinant, by LU (`method=None` or
    "lu") or QR ("qr"). Like `jax.numpy.linalg.slogdet`."""
    a = _square("slogdet", a)
    if method is None or method == "lu":
        return SlogdetResult(*_slogdet(a))
    if method == "qr":
        return SlogdetResult(*_slogdet_qr(a))
    raise ValueError(
        f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), and 'qr'."
    )


@custom_jvp
def _det(a: Any) -> Any:
    sign, logdet = _slogdet(a)
    return lax.mul(sign, lax.exp(logdet))


@_det.defjvp
def _det_jvp(primals: tuple, tangents: tuple) -> tuple:
    (a,), (g,) = primals, tangents
    d = _det(a)
    return d, lax.mul(d, _trace_solve(a, g))  # d det A = det A tr(A^-1 dA)


def _entry(a: Any, i: int, j: int) -> Any:
    shape = _aval(a).shape
    corner = lax.slice(a, (0,) * (len(shape) - 2) + (i, j), (*shape[:-2], i + 1, j + 1))
    return lax.squeeze(corner, (len(shape) - 2, len(shape) - 1))


def _det_small(a: Any, n: int) -> Any:
    # the explicit products JAX uses for 2x2 and 3x3 (rule of Sarrus)
    e = lambda i, j: _entry(a, i, j)  # noqa: E731
    if n == 2:
        return lax.sub(lax.mul(e(0, 0), e(1, 1)), lax.mul(e(0, 1), e(1, 0)))
    plus = [(0, 0, 1, 1, 2, 2), (0, 1, 1, 2, 2, 0), (0, 2, 1, 0, 2, 1)]
    minus = [(0, 2, 1, 1, 2, 0), (0, 0, 1, 2, 2, 1), (0, 1, 1, 0, 2, 2)]
    term = lambda t: lax.mul(lax.mul(e(t[0], t[1]), e(t[2], t[3])), e(t[4], t[5]))  # noqa: E731
    total = lax.add(lax.add(term(plus[0]), term(plus[1])), term(plus[2]))
    for t in minus:
        total = lax.sub(total, term(t))
    return total


def _det_body(a: Any) -> Any:
    n = _aval(a).shape[-1]
    return _det_small(a, n) if n in (2, 3) else _det(a)


_det_inner = inner_jit.inner_jit(_det_body, "det")


def det(a: Any) -> Any:
    """The determinant of each square matrix, in an inner `jit`. Like
    `jax.numpy.linalg.det`."""
    return _det_inner(_square("det", a))
