"""Diagonals and triangles: `diagonal trace diag diagflat tri tril triu`. Like `jax.numpy`'s.

Layer 5, after `rearrange` (whose `slice_axis` and flips they use). A diagonal is a gather of
`(i, i + offset)` pairs, as JAX stages it; `tril`/`triu` select with an iota mask.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from didax import dtypes, lax
from didax.numpy import (
    axis_args,
    creation,
    manipulation,
    promotion,
    reductions,
    ufuncs,
)
from didax.numpy.axis_args import _aval
from didax.numpy.predicates import _i32


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The diagonal of the planes spanned by `axis1` and `axis2`, as the last axis. Like
    `jax.numpy.diagonal`."""
    promotion.check_arraylike("diagonal", a)
    a = creation.asarray(a)
    nd = _aval(a).ndim
    if nd < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    a1, a2 = axis_args.canonical_axis(axis1, nd), axis_args.canonical_axis(axis2, nd)
    if a1 == a2:
        raise ValueError("axis1 and axis2 must not be equal")
    a = manipulation.moveaxis(a, (a1, a2), (-2, -1))
    *batch, n, m = _aval(a).shape
    offset = operator.index(offset)
    length = builtins.max(0, builtins.min(n + builtins.min(offset, 0), m - builtins.max(offset, 0)))
    rows = np.arange(length, dtype=np.int32) - builtins.min(offset, 0)
    cols = np.arange(length, dtype=np.int32) + builtins.max(offset, 0)
    return a[..., creation.asarray(rows), creation.asarray(cols)]


def trace(
    a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: None = None
) -> Any:
    """The sum along the diagonal. Like `jax.numpy.trace`."""
    return reductions.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diag(v: Any, k: int = 0) -> Any:
    """A vector's diagonal matrix, or a matrix's `k`-th diagonal. Like `jax.numpy.diag`."""
    promotion.check_arraylike("diag", v)
    v = creation.asarray(v)
    nd = _aval(v).ndim
    if nd == 2:
        return diagonal(v, k)
    if nd != 1:
        raise ValueError("diag input must be 1d or 2d")
    k = operator.index(k)
    n = _aval(v).shape[0] + builtins.abs(k)
    rows = lax.broadcasted_iota(dtypes.int32, (n, n), 0)
    cols = lax.broadcasted_iota(dtypes.int32, (n, n), 1)
    on = lax.eq(lax.add(rows, lax.full((), k, dtypes.int32)), cols)
    padded = lax.pad(
        v, lax.full((), 0, _aval(v).dtype), [(builtins.max(k, 0), builtins.max(-k, 0), 0)]
    )
    spread = lax.broadcast_in_dim(padded, (n, n), (1,))  # (r, c) reads padded[c]
    return ufuncs.where(on, spread, lax.full((), 0, _aval(v).dtype))


def diagflat(v: Any, k: int = 0) -> Any:
    """Like `jax.numpy.diagflat`."""
    return diag(manipulation.ravel(creation.asarray(v)), k)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
    """Ones at and below the `k`-th diagonal. Like `jax.numpy.tri`."""
    M = N if M is None else M  # noqa: N806
    rows = lax.broadcasted_iota(dtypes.int32, (N, M), 0)
    cols = lax.broadcasted_iota(dtypes.int32, (N, M), 1)
    mask = lax.ge(lax.add(rows, lax.full((), k, dtypes.int32)), cols)
    dtype = dtypes.default_float() if dtype is None else creation.to_dtype(dtype)
    return lax.convert_element_type(mask, dtype, False)


def _tri_mask(x: Any, k: int, upper: bool) -> Any:
    shape = _aval(x).shape
    if len(shape) < 2:
        raise ValueError(f"{'triu' if upper else 'tril'}: array must be at least 2-d")
    n, m = shape[-2:]
    rows = lax.broadcasted_iota(_i32, (n, m), 0)
    cols = lax.broadcasted_iota(_i32, (n, m), 1)
    shifted = lax.add(rows, lax.full((), k, _i32))
    mask = lax.ge(cols, shifted) if upper else lax.le(cols, shifted)
    return lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))


def tril(m: Any, k: int = 0) -> Any:
    """Like `jax.numpy.tril`."""
    m = creation.asarray(m)
    zeros = lax.full(_aval(m).shape, 0, _aval(m).dtype)
    return lax.select_n(_tri_mask(m, k, upper=False), zeros, m)


def triu(m: Any, k: int = 0) -> Any:
    """Like `jax.numpy.triu`."""
    m = creation.asarray(m)
    zeros = lax.full(_aval(m).shape, 0, _aval(m).dtype)
    return lax.select_n(_tri_mask(m, k, upper=True), zeros, m)


# `Array` and tracer methods these functions back; `didax/numpy/__init__.py` puts them in
# `core.operator_table`
METHODS = {
    "diagonal": diagonal,
    "trace": trace,
}

__all__ = [
    "diag",
    "diagflat",
    "diagonal",
    "trace",
    "tri",
    "tril",
    "triu",
]
