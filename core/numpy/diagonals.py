"""Diagonals and triangles: `diagonal trace diag diagflat tri tril triu`. Like `jax.numpy`'s.

Layer 5, after `rearrange` (whose `slice_axis` and flips they use). A diagonal is a gather of
`(i, i + offset)` pairs, as JAX stages it; `tril`/`triu` select with an iota mask, in an inner `jit` as JAX's.
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
from didax.numpy.inner_jit import inner_jit
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


def _tri_mask(n: int, m: int, k: int) -> Any:  # True at and below the k-th diagonal
    rows = lax.broadcasted_iota(_i32, (n, m), 0)
    shifted = lax.add(rows, lax.full((), k, _i32))
    return lax.ge(shifted, lax.broadcasted_iota(_i32, (n, m), 1))


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
    """Ones at and below the `k`-th diagonal. Like `jax.numpy.tri`."""
    M = N if M is None else M  # noqa: N806
    dtype = dtypes.default_float() if dtype is None else creation.to_dtype(dtype)
    return lax.convert_element_type(_tri_mask(N, M, k), dtype, False)


def _triangle(m: Any, k: int, upper: bool) -> Any:
    # JAX's: the mask of tri(k) (upper: of tri(k - 1), whose entries are zeroed), broadcast
    # over the batch, then zeros, then one select
    shape = _aval(m).shape
    mask = _tri_mask(*shape[-2:], k - 1 if upper else k)
    if len(shape) > 2:
        mask = lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))
    zeros = lax.full(shape, 0, _aval(m).dtype)
    return lax.select_n(mask, m, zeros) if upper else lax.select_n(mask, zeros, m)


_tril_jit = inner_jit(lambda m, k: _triangle(m, k, upper=False), "tril", static_argnums=(1,))
_triu_jit = inner_jit(lambda m, k: _triangle(m, k, upper=True), "triu", static_argnums=(1,))


def _checked(name: str, m: Any) -> Any:
    promotion.check_arraylike(name, m)
    m = creation.asarray(m)
    if _aval(m).ndim < 2:
        raise ValueError(f"Argument to jax.numpy.{name} must be at least 2D")
    return m


def tril(m: Any, k: int = 0) -> Any:
    """Zeros above the `k`-th diagonal. Like `jax.numpy.tril`."""
    return _tril_jit(_checked("tril", m), operator.index(k))


def triu(m: Any, k: int = 0) -> Any:
    """Zeros below the `k`-th diagonal. Like `jax.numpy.triu`."""
    return _triu_jit(_checked("triu", m), operator.index(k))


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
