"""`didax.numpy.linalg`: norms. Like `jax.numpy.linalg` (only `norm` so far).

Layer 5, composing `didax.numpy`. Matrix norms that need a decomposition (`ord=2`, `-2`,
`'nuc'`) raise NotImplementedError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import lax
from didax.numpy import axis_args, creation, promotion, reductions
from didax.numpy.extra import _aval

__all__ = ["norm"]


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
    return lax.sqrt(reductions.sum(lax.mul(x, x), axis=axes, keepdims=keepdims))


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
