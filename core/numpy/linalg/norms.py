"""`didax.numpy.linalg.norms`: `norm`, `vector_norm`, `matrix_norm`, `cond`. Like
`jax.numpy.linalg`'s.

Layer 5, after `decompositions`: the spectral norms (`ord=2`, `-2`) and the nuclear norm
(`'nuc'`) read the singular values; the others are sums and maxima of |x|, as JAX's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import dtypes, lax
from didax.numpy import (
    axis_args,
    complex_parts,
    creation,
    inner_jit,
    manipulation,
    predicates,
    promotion,
    reductions,
    ufuncs,
)
from didax.numpy.axis_args import _aval
from didax.numpy.linalg import decompositions, solves

__all__ = ["cond", "matrix_norm", "norm", "vector_norm"]


def _sum_squares(x: Any, axis: Any, keepdims: bool) -> Any:  # sum of |x|^2 = Re(x conj(x))
    squares = complex_parts.real(ufuncs.multiply(x, complex_parts.conj(x)))
    return reductions.sum(squares, axis=axis, keepdims=keepdims)


def _max0(x: Any, axis: Any, keepdims: bool) -> Any:  # JAX's amax(..., initial=0)
    m = reductions.max(x, axis=axis, keepdims=keepdims)
    return lax.max(lax.full((), 0, _aval(m).dtype), m)


def _vector_norm(x: Any, ord: Any, axis: Any, keepdims: bool) -> Any:  # noqa: A002
    if ord is None or ord == 2:
        return ufuncs.sqrt(_sum_squares(x, axis, keepdims))
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord in ("inf", "-inf"):
            msg += f"Use '{ord[:-3]}jax.numpy.inf' instead."
        raise ValueError(msg)
    if ord == np.inf:
        return _max0(ufuncs.abs(x), axis, keepdims)
    if ord == -np.inf:
        return reductions.min(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        real = dtypes.real_of(_aval(x).dtype)
        return reductions.sum(ufuncs.not_equal(x, 0), dtype=real, axis=axis, keepdims=keepdims)
    if ord == 1:
        return reductions.sum(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    a = ufuncs.abs(x)
    dtype = _aval(a).dtype
    total = reductions.sum(ufuncs.power(a, lax.full((), ord, dtype)), axis=axis, keepdims=keepdims)
    return ufuncs.power(total, lax.full((), 1.0 / ord, dtype))


def _norm(x: Any, ord: Any, axis: Any, keepdims: bool) -> Any:  # noqa: A002, C901
    ndim = _aval(x).ndim
    if axis is None:
        if ord is None:  # NumPy's undocumented any-rank Frobenius norm
            return ufuncs.sqrt(_sum_squares(x, None, keepdims))
        axis = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axis = tuple(axis_args.canonical_axis(a, ndim) for a in axis)
    else:
        axis = (axis_args.canonical_axis(axis, ndim),)
    if len(axis) == 1:
        return _vector_norm(x, 2 if ord is None else ord, axis, keepdims)
    if len(axis) != 2:
        raise ValueError(
            f"Improper number of axes for norm: {axis=}. Pass one axis to compute a "
            "vector-norm, or two axes to compute a matrix-norm."
        )
    row, col = axis
    if ord is None or ord in ("f", "fro"):
        return ufuncs.sqrt(_sum_squares(x, axis, keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        summed, picked = (row, col) if ord in (1, -1) else (col, row)
        if not keepdims and picked > summed:
            picked -= 1
        sums = reductions.sum(ufuncs.abs(x), axis=summed, keepdims=keepdims)
        if ord in (1, np.inf):
            return _max0(sums, picked, keepdims)
        return reductions.min(sums, axis=picked, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        s = decompositions.svd(manipulation.moveaxis(x, axis, (-2, -1)), compute_uv=False)
        if ord == 2:
            y = _max0(s, -1, False)
        elif ord == -2:
            y = reductions.min(s, axis=-1)
        else:
            y = reductions.sum(s, axis=-1)
        return manipulation.expand_dims(y, axis) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


_norm_inner = inner_jit.inner_jit(_norm, "norm", static_argnums=(1, 2, 3))


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """Vector or matrix norm. Like `jax.numpy.linalg.norm`."""
    promotion.check_arraylike("jnp.linalg.norm", x)
    x = promotion.to_inexact("norm", creation.asarray(x))
    axis = tuple(axis) if isinstance(axis, list) else axis
    return _norm_inner(x, ord, axis, bool(keepdims))


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:  # noqa: A002
    """The norm of the matrices over the last two axes. Like `jax.numpy.linalg.matrix_norm`."""
    promotion.check_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:  # noqa: A002
    """The vector norm along `axis` (all axes by default). Like
    `jax.numpy.linalg.vector_norm`."""
    promotion.check_arraylike("jnp.linalg.vector_norm", x)
    x = creation.asarray(x)
    axis = tuple(axis) if isinstance(axis, list) else axis
    return _vector_norm(x, ord, axis, keepdims)


def _cond(x: Any, p: Any) -> Any:
    if p is None or p == 2:
        s = decompositions.svdvals(x)
        return ufuncs.divide(s[..., 0], s[..., -1])
    if p == -2:
        s = decompositions.svdvals(x)
        r = ufuncs.divide(s[..., -1], s[..., 0])
    else:
        shape = _aval(x).shape
        if shape[-2] != shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for {p=}, array must be square; got {shape=}")
        r = ufuncs.multiply(
            norm(x, ord=p, axis=(-2, -1)), norm(solves.inv(x), ord=p, axis=(-2, -1))
        )
    # NaNs become infs where x itself has none
    x_nan = predicates.any(predicates.isnan(x), axis=(-2, -1))
    return ufuncs.where(
        ufuncs.logical_and(predicates.isnan(r), ufuncs.logical_not(x_nan)), np.inf, r
    )


_cond_inner = inner_jit.inner_jit(_cond, "cond", static_argnums=(1,))


def cond(x: Any, p: Any = None) -> Any:
    """The condition number of each matrix. Like `jax.numpy.linalg.cond`."""
    promotion.check_arraylike("cond", x)
    shape = _aval(creation.asarray(x)).shape
    if len(shape) < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got arr.shape={shape}")
    if shape[-1] == 0 or shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got arr.shape={shape}")
    return _cond_inner(creation.asarray(x), p)
