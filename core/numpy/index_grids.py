"""Index grids: `indices ix_ meshgrid`, flat and multi-dimensional indices (`unravel_index
ravel_multi_index`) and the index pairs of triangles and diagonals (`tril_indices triu_indices
diag_indices` and their `*_from`). Like `jax.numpy`'s.

Layer 5, after `diagonals`.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy import (
    axis_args,
    creation,
    manipulation,
    promotion,
    ufuncs,
)
from didax.numpy.axis_args import _aval


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    """Like `jax.numpy.tril_indices`."""
    return _index_arrays(*np.tril_indices(n, k, m))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    """Like `jax.numpy.triu_indices`."""
    return _index_arrays(*np.triu_indices(n, k, m))


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """Like `jax.numpy.tril_indices_from`."""
    shape = _aval(creation.asarray(arr)).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return tril_indices(shape[0], k, shape[1])


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    """Like `jax.numpy.triu_indices_from`."""
    shape = _aval(creation.asarray(arr)).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return triu_indices(shape[0], k, shape[1])


def diag_indices(n: int, ndim: int = 2) -> tuple[Any, ...]:
    """Like `jax.numpy.diag_indices`."""
    return (creation.asarray(np.arange(n, dtype=np.int32)),) * ndim


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    """Like `jax.numpy.diag_indices_from`."""
    shape = _aval(creation.asarray(arr)).shape
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def _index_arrays(rows: np.ndarray, cols: np.ndarray) -> tuple[Any, Any]:
    return creation.asarray(rows.astype(np.int32)), creation.asarray(cols.astype(np.int32))


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: bool = False) -> Any:
    """The index grid of an array of shape `dimensions`. Like `jax.numpy.indices`."""
    dimensions = tuple(map(operator.index, dimensions))
    dtype = dtypes.int32 if dtype is None else creation.to_dtype(dtype)
    n = len(dimensions)
    out = []
    for i, d in enumerate(dimensions):
        if sparse:
            shape = tuple(d if j == i else 1 for j in range(n))
            out.append(lax.broadcasted_iota(dtype, shape, i))
        else:
            out.append(lax.broadcasted_iota(dtype, dimensions, i))
    return tuple(out) if sparse else manipulation.stack(out) if out else creation.zeros((0,), dtype)


def ix_(*args: Any) -> tuple[Any, ...]:
    """Open index grids from 1-d sequences. Like `jax.numpy.ix_`."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = creation.asarray(a)
        if _aval(a).ndim != 1:
            raise ValueError(
                f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {_aval(a).shape}"
            )
        if _aval(a).dtype == dtypes.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not supported.")
        shape = tuple(_aval(a).shape[0] if j == i else 1 for j in range(n))
        out.append(manipulation.reshape(a, shape))
    return tuple(out)


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """The coordinates of flat indices in an array of `shape` (negative indices count from
    the end; out of range ones are clipped). Like `jax.numpy.unravel_index`."""
    promotion.check_arraylike("unravel_index", indices)
    indices = creation.asarray(indices)
    shape = axis_args.shape_tuple(shape)
    dtype = _aval(indices).dtype
    total = int(np.prod(shape, dtype=np.int64))
    size = lax.full((), total, dtype)
    flat = ufuncs.where(lax.lt(indices, lax.full((), 0, dtype)), lax.add(indices, size), indices)
    flat = ufuncs.clip(flat, 0, total - 1)
    out = []
    for n in reversed(shape):
        n_ = lax.full((), n, dtype)
        out.append(lax.rem(flat, n_))
        flat = lax.div(flat, n_)
    return tuple(reversed(out))


def ravel_multi_index(multi_index: Any, dims: Any, mode: str = "raise", order: str = "C") -> Any:
    """Flat indices of coordinates in an array of shape `dims`. Like
    `jax.numpy.ravel_multi_index` (mode "wrap" or "clip"; "raise" needs concrete indices)."""
    dims = axis_args.shape_tuple(dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    index = [creation.asarray(i) for i in multi_index]
    index = manipulation.broadcast_arrays(*index)
    dtype = _aval(index[0]).dtype
    if mode == "raise":
        for i, n in zip(index, dims, strict=True):
            values = np.asarray(
                core.concrete_or_error(
                    i,
                    "The error occurred because ravel_multi_index was jit-compiled with mode='raise'. Use mode='wrap' or mode='clip' instead.",
                )
            )
            if values.size and (values.min() < 0 or values.max() >= n):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "wrap":
        index = [
            ufuncs.remainder(i, lax.full((), n, dtype)) for i, n in zip(index, dims, strict=True)
        ]
    elif mode == "clip":
        index = [ufuncs.clip(i, 0, n - 1) for i, n in zip(index, dims, strict=True)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
    order_dims = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
    stride, total = 1, None
    for d in order_dims:
        term = lax.mul(index[d], lax.full((), stride, dtype))
        total = term if total is None else lax.add(total, term)
        stride *= dims[d]
    return total


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    """Like `jax.numpy.meshgrid`."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    arrays = [manipulation.ravel(creation.asarray(x)) for x in xi]
    dims = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) >= 2:  # x varies along columns: dims 0 and 1 swap
        dims[0], dims[1] = 1, 0
    shape = [0] * len(arrays)
    for a, d in zip(arrays, dims, strict=True):
        shape[d] = _aval(a).shape[0]
    out = []
    for a, d in zip(arrays, dims, strict=True):
        target = tuple(s if j == d else 1 for j, s in enumerate(shape)) if sparse else tuple(shape)
        out.append(lax.broadcast_in_dim(a, target, (d,)))
    return out


__all__ = [
    "diag_indices",
    "diag_indices_from",
    "indices",
    "ix_",
    "meshgrid",
    "ravel_multi_index",
    "tril_indices",
    "tril_indices_from",
    "triu_indices",
    "triu_indices_from",
    "unravel_index",
]
