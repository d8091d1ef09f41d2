"""`didax.numpy.linalg`: norms, solves, inverses, determinants, Cholesky. Like
`jax.numpy.linalg`.

Layer 5, composing `didax.numpy` and the linear-algebra primitives (`primitives/linalg.py`:
`lu`, `triangular_solve`, `cholesky`). `solve` factors A = P^T L U and does two triangular
solves; `inv` solves against the identity; `slogdet` reads the determinant off U's diagonal
and the pivots' parity, with JAX's custom jvp (d log|det A| = tr(A^-1 dA)); `det` is
sign * exp(logabsdet) with d det = det tr(A^-1 dA), and JAX's explicit products for 2x2 and
3x3 matrices. Values match JAX's; the jaxprs are smaller than JAX's (which goes through
`custom_linear_solve`), and gradients come from the primitives' rules. Matrix norms that need
a decomposition (`ord=2`, `-2`, `'nuc'`) raise NotImplementedError.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from didax import dtypes, lax
from didax.control_flow.custom_derivatives import custom_jvp
from didax.numpy import axis_args, creation, extra, promotion, reductions, ufuncs
from didax.numpy.extra import _aval
from didax.primitives import linalg as lax_linalg

__all__ = ["cholesky", "det", "inv", "norm", "slogdet", "solve", "SlogdetResult"]


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """Like `jax.numpy.linalg.norm`."""
    x = promotion.to_inexact("norm", creation.asarray(x))
    ndim = _aval(x).ndim
    if axis is None:
        if ord is None:
            return _frobenius(x, tuple(range(ndim)), keepdims)
        axis = tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(axis_args.canonical_axis(a, ndim) for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"Invalid axis values ({axis}) for jnp.linalg.norm.")


def _frobenius(x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    if dtypes.is_complex(_aval(x).dtype):  # |x|^2 = Re(x conj(x)), as JAX
        squares = lax.real(lax.mul(x, lax.conj(x)))
    else:
        squares = lax.mul(x, x)
    return lax.sqrt(reductions.sum(squares, axis=axes, keepdims=keepdims))


def _vector_norm(x: Any, ord: Any, axes: tuple[int, ...], keepdims: bool) -> Any:  # noqa: A002
    if ord is None or ord == 2:
        return _frobenius(x, axes, keepdims)
    a = lax.abs(x)
    if ord == np.inf:
        return reductions.max(a, axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return reductions.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        nonzero = lax.convert_element_type(
            lax.ne(x, lax.full((), 0, _aval(x).dtype)), _aval(x).dtype
        )
        return reductions.sum(nonzero, axis=axes, keepdims=keepdims)
    if ord == 1:
        return reductions.sum(a, axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    p = lax.full((), float(ord), _aval(x).dtype)
    total = reductions.sum(lax.pow(a, p), axis=axes, keepdims=keepdims)
    return lax.pow(total, lax.div(lax.full((), 1.0, _aval(x).dtype), p))


def _matrix_norm(x: Any, ord: Any, axes: tuple[int, ...], keepdims: bool) -> Any:  # noqa: A002
    row, col = axes
    if ord is None or ord == "fro":
        return _frobenius(x, axes, keepdims)
    a = lax.abs(x)
    if ord in (1, -1, np.inf, -np.inf):
        summed, reduced = (row, col) if ord in (1, -1) else (col, row)
        sums = reductions.sum(a, axis=summed, keepdims=True)
        pick = reductions.max if ord in (1, np.inf) else reductions.min
        out = pick(sums, axis=reduced, keepdims=True)
        return (
            out
            if keepdims
            else lax.reshape(out, tuple(s for i, s in enumerate(_aval(out).shape) if i not in axes))
        )
    if ord in (2, -2, "nuc"):
        raise NotImplementedError(f"norm: ord={ord!r} needs an SVD, not in didax yet")
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


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


def _lu_solve(lu: Any, permutation: Any, b: Any) -> Any:
    # P A = L U, so A x = b is L (U x) = P b: one forward and one backward substitution
    x = lax_linalg.permute_rows(permutation, b)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)


def solve(a: Any, b: Any) -> Any:
    """x with a @ x == b; `b` is (n,) or (..., n, k). Like `jax.numpy.linalg.solve`."""
    a, b = promotion.promote(
        "solve", promotion.to_inexact("solve", creation.asarray(a)), creation.asarray(b)
    )
    a_shape, b_shape = _aval(a).shape, _aval(b).shape
    if len(a_shape) < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a_shape}")
    a = _square("solve", a)
    vector = len(b_shape) == 1
    if vector:
        b = lax.reshape(b, (*b_shape, 1))
    if _aval(b).shape[-2] != a_shape[-1]:
        raise ValueError(f"Invalid shapes for solve: {a_shape}, {b_shape}")
    batch = tuple(np.broadcast_shapes(a_shape[:-2], _aval(b).shape[:-2]))
    a, b = _broadcast_batch(a, batch), _broadcast_batch(b, batch)
    lu, _, permutation = lax_linalg.lu(a)
    x = _lu_solve(lu, permutation, b)
    return lax.reshape(x, _aval(x).shape[:-1]) if vector else x


def inv(a: Any) -> Any:
    """The inverse of each square matrix. Like `jax.numpy.linalg.inv`."""
    a = _square("inv", a)
    aval = _aval(a)
    return solve(a, lax_linalg.eye(aval.shape, aval.dtype))


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
    is_zero = extra.any(lax.eq(diag, lax.full((), 0, dtype)), axis=-1)
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


def slogdet(a: Any) -> SlogdetResult:
    """Sign and log of the absolute value of each determinant. Like
    `jax.numpy.linalg.slogdet` (the LU method)."""
    return SlogdetResult(*_slogdet(_square("slogdet", a)))


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
    return lax.reshape(corner, shape[:-2])


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


def det(a: Any) -> Any:
    """The determinant of each square matrix. Like `jax.numpy.linalg.det`."""
    a = _square("det", a)
    n = _aval(a).shape[-1]
    return _det_small(a, n) if n in (2, 3) else _det(a)
