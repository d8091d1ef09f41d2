"""`nonzero`, `flatnonzero`, `argwhere` and `unique`, with JAX's static `size=`. Like
`jax.numpy`'s.

Layer 5, composing `didax.numpy`. Their output shapes depend on the data, so under `jit` (or
any transformation that hides values) they need `size=`: the result is cut or padded to
`size` entries, padding with `fill_value` (or, by default, a value JAX documents: index 0
for `nonzero`, the smallest element for `unique`). Without `size=` they read the values,
and raise ConcretizationTypeError on a traced array, as JAX does.

The algorithm is JAX's, written with array operations only: the k-th nonzero entry's flat
index is the number of entries whose running count of nonzeros is < k+1, i.e. the running
sum of a histogram of the running count (`cumsum(bincount(cumsum(mask)))`); `unique` sorts,
marks each entry that differs from its predecessor, and takes the marked ones that way.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from didax import core, dtypes, lax
from didax.numpy import (
    axis_args,
    creation,
    cumulative,
    manipulation,
    predicates,
    promotion,
    reductions,
    ufuncs,
)
from didax.numpy.axis_args import _aval

__all__ = [
    "array_equal",
    "array_equiv",
    "intersect1d",
    "isin",
    "lexsort",
    "setdiff1d",
    "setxor1d",
    "union1d",
    "argwhere",
    "flatnonzero",
    "nonzero",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]

_SIZE_HINT = (
    "To make jnp.unique() compatible with JIT and other transforms, you can specify a "
    "concrete value for the size argument, which will determine the output size."
)


def _concrete(x: Any, message: str) -> np.ndarray:
    # x's value, or JAX's ConcretizationTypeError (with `message`) when it is traced
    if isinstance(x, core.Tracer) and x.to_concrete_value() is None:
        raise core.ConcretizationTypeError(x._abstract_message(message))
    return np.asarray(core.concrete_or_error(x, message))


def _bincount(x: Any, length: int) -> Any:
    # how often each of 0..length-1 occurs in x (larger values are dropped)
    zeros = lax.full((length,), 0, dtypes.int32)
    return zeros.at[ufuncs.clip(x, 0)].add(1, mode="drop")


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple[Any, ...]:
    """The indices of the nonzero entries, one array per axis. Like `jax.numpy.nonzero`."""
    promotion.check_arraylike("nonzero", a)
    arr = creation.asarray(a)
    shape = _aval(arr).shape
    if not shape:
        raise ValueError(
            "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() "
            "instead. If this is within a jitted function, consider using ufuncs.where with three "
            "arguments instead."
        )
    mask = (
        arr if _aval(arr).dtype == dtypes.bool_ else lax.ne(arr, lax.full((), 0, _aval(arr).dtype))
    )
    if size is None:
        size = _concrete(
            reductions.sum(mask),
            "The size argument of jnp.nonzero must be statically specified to use "
            "jnp.nonzero within JAX transformations.",
        )
    size = int(size)  # a concrete count (as an array) or the caller's int
    if size == 0 or int(np.prod(shape)) == 0:
        return tuple(lax.full((size,), 0, dtypes.int32) for _ in shape)
    flat = cumulative.cumsum(_bincount(cumulative.cumsum(mask), size))
    strides = [np.int32(np.prod(shape[i + 1 :])) for i in range(len(shape))]
    out = tuple(
        ufuncs.remainder(ufuncs.floor_divide(flat, stride), n)
        for stride, n in zip(strides, shape, strict=True)
    )
    if fill_value is None:
        return out
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
    if len(fills) != len(shape) or any(np.shape(f) != () for f in fills):
        raise ValueError(
            f"fill_value must be a scalar or a tuple of length {len(shape)}; got {fill_value}"
        )
    padding = lax.ge(lax.iota(dtypes.int32, size), reductions.sum(mask))
    return tuple(ufuncs.where(padding, f, entry) for f, entry in zip(fills, out, strict=True))


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the nonzero entries of the flattened array. Like
    `jax.numpy.flatnonzero`."""
    return nonzero(manipulation.ravel(creation.asarray(a)), size=size, fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the nonzero entries, one row per entry. Like `jax.numpy.argwhere`."""
    arr = creation.asarray(a)
    if _aval(arr).ndim == 0:
        arr = lax.reshape(arr, (1,))
        rows = nonzero(arr, size=size, fill_value=fill_value)[0]
        return lax.reshape(lax.slice(rows, (0,), (0,)), (_aval(rows).shape[0], 0))
    columns = nonzero(arr, size=size, fill_value=fill_value)
    return lax.transpose(manipulation.stack(columns), (1, 0))


def _neq(a: Any, b: Any, equal_nan: bool) -> Any:
    # a != b, but two NaNs count as one value if equal_nan
    differs = lax.ne(a, b)
    if equal_nan and dtypes.is_float(_aval(a).dtype):
        both_nan = lax.bitwise_and(lax.ne(a, a), lax.ne(b, b))
        differs = lax.bitwise_and(differs, lax.bitwise_not(both_nan))
    return differs


def _rows(x: Any, start: int, stop: int) -> Any:
    shape = _aval(x).shape
    return lax.slice(x, (start,) + (0,) * (len(shape) - 1), (stop, *shape[1:]))


def _sorted_with_mask(x: Any, equal_nan: bool) -> tuple[Any, Any, Any]:
    # x (a vector, or slices along axis 0) sorted stably, lexicographically by the slices'
    # entries, with the permutation; and True where a slice differs from the one before
    n, *rest = _aval(x).shape
    if not rest:
        aux, perm = lax.sort_key_val(x, lax.iota(dtypes.int32, n))
    else:  # jnp.lexsort of the slices' columns, the first column the primary key
        columns = lax.reshape(x, (n, int(np.prod(rest))))
        keys = [
            lax.squeeze(lax.slice(columns, (0, j), (n, j + 1)), (1,))
            for j in range(_aval(columns).shape[1])
        ]
        perm = lax.sort((*keys, lax.iota(dtypes.int32, n)), dimension=0, num_keys=len(keys))[-1]
        aux = x[perm]
    differs = _neq(_rows(aux, 1, n), _rows(aux, 0, n - 1), equal_nan)
    if rest:
        differs = predicates.any(differs, tuple(range(1, len(rest) + 1)))
    mask = lax.concatenate([lax.full((1,), True, dtypes.bool_), differs], 0)
    return aux, mask, perm


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    size: int | None = None,
    fill_value: Any = None,
    sorted: bool = True,  # noqa: A002 - JAX's name
) -> Any:
    """The sorted unique values of the flattened array, or the unique slices along `axis`
    (and, as asked, the index of each one's first occurrence, the index of each entry's
    value, and the counts). Like `jax.numpy.unique`."""
    promotion.check_arraylike("unique", ar)
    arr = creation.asarray(ar)
    if size is None:
        _concrete(arr, "The error arose for the first argument of jnp.unique(). " + _SIZE_HINT)
    flattened = axis is None and _aval(arr).ndim != 1  # the inverse takes arr's shape
    if axis is None:
        aux_in, axis = manipulation.ravel(arr), 0
    else:
        axis = axis_args.canonical_axis(axis, _aval(arr).ndim)
        aux_in = manipulation.moveaxis(arr, axis, 0)
    n = _aval(aux_in).shape[0]
    if n == 0 or _aval(aux_in).size == 0:
        raise NotImplementedError("unique: empty input is not supported by didax yet")
    aux, mask, perm = _sorted_with_mask(aux_in, equal_nan)
    if size is None:
        size = int(np.count_nonzero(core.concrete_or_error(mask, "unique")))
    (ind,) = nonzero(mask, size=size)
    result = aux[ind]
    count = reductions.sum(mask)
    if fill_value is not None:
        valid = lax.lt(lax.iota(dtypes.int32, size), count)
        valid = lax.expand_dims(valid, tuple(range(1, _aval(result).ndim)))
        fill = lax.convert_element_type(creation.asarray(fill_value), _aval(result).dtype, False)
        result = ufuncs.where(valid, result, fill)
    out: list[Any] = [manipulation.moveaxis(result, 0, axis)]
    if return_index:
        out.append(perm[ind])
    if return_inverse:
        position = lax.sub(cumulative.cumsum(mask), np.int32(1))
        inverse = lax.full((n,), 0, dtypes.int32).at[perm].set(position)
        out.append(lax.reshape(inverse, _aval(arr).shape) if flattened else inverse)
    if return_counts:
        (starts,) = nonzero(mask, size=size + 1)
        tail = lax.slice(starts, (1,), (size + 1,))
        tail = ufuncs.where(tail, tail, n)  # past the last value: the end of the array
        ends = lax.concatenate([lax.slice(starts, (0,), (1,)), tail], 0)
        out.append(lax.sub(lax.slice(ends, (1,), (size + 1,)), lax.slice(ends, (0,), (size,))))
    return out[0] if len(out) == 1 else tuple(out)


class _UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """Unique values, first indices, inverse indices and counts (NaNs all distinct). Like
    `jax.numpy.unique_all`."""
    promotion.check_arraylike("unique_all", x)
    out = unique(x, True, True, True, equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueAllResult(*out)


def unique_counts(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """Like `jax.numpy.unique_counts`."""
    promotion.check_arraylike("unique_counts", x)
    out = unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueCountsResult(*out)


def unique_inverse(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """Like `jax.numpy.unique_inverse`."""
    promotion.check_arraylike("unique_inverse", x)
    out = unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueInverseResult(*out)


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """Like `jax.numpy.unique_values`."""
    promotion.check_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# ----------------------------------------------------------------------------- set algebra


def isin(
    element: Any,
    test_elements: Any,
    assume_unique: bool = False,
    invert: bool = False,
    *,
    method: str = "auto",
) -> Any:
    """True where an entry of `element` is one of `test_elements`. Like `jax.numpy.isin`."""
    promotion.check_arraylike("isin", element, test_elements)
    element, test = promotion.promote(
        "isin", creation.asarray(element), creation.asarray(test_elements)
    )
    test = manipulation.ravel(test)
    shape = _aval(element).shape
    wide = (*shape, _aval(test).shape[0])
    a = lax.broadcast_in_dim(element, wide, tuple(range(len(shape))))
    b = lax.broadcast_in_dim(test, wide, (len(shape),))
    found = predicates.any(lax.eq(a, b), axis=-1)
    return lax.bitwise_not(found) if invert else found


def _sorted_subset(
    name: str, a: Any, b: Any, invert: bool, size: int | None, fill_value: Any, fill_first: bool
) -> Any:
    # the sorted unique values of a that are (not, if invert) in b; with `size`, cut or
    # padded to it (padding: fill_value, else the first value (fill_first) or 0, as JAX)
    flat = manipulation.ravel(a)
    if _aval(flat).shape[0] == 0:
        raise NotImplementedError(f"{name}: empty input is not supported by didax yet")
    aux, mask, _ = _sorted_with_mask(flat, True)
    keep = lax.bitwise_and(mask, isin(aux, b, invert=invert))
    if size is None:
        where_kept = _concrete(keep, f"The error arose in jnp.{name}(). " + _SIZE_HINT)
        return aux[creation.asarray(np.flatnonzero(where_kept).astype(np.int32))]
    (index,) = nonzero(keep, size=size)
    values = aux[index]
    count = reductions.sum(keep)
    zero = lax.full((), 0, _aval(values).dtype)
    if fill_value is not None:
        fill = lax.convert_element_type(creation.asarray(fill_value), _aval(values).dtype, False)
    elif fill_first and size:
        fill = ufuncs.where(lax.gt(count, np.int32(0)), values[0], zero)
    else:
        fill = zero
    return ufuncs.where(lax.lt(lax.iota(dtypes.int32, size), count), values, fill)


def _set_operands(name: str, ar1: Any, ar2: Any) -> list[Any]:
    """The two operands of a set operation, as arrays of their common dtype."""
    promotion.check_arraylike(name, ar1, ar2)
    return promotion.promote(name, creation.asarray(ar1), creation.asarray(ar2))


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted values in either. Like `jax.numpy.union1d`."""
    a, b = _set_operands("union1d", ar1, ar2)
    both = lax.concatenate([manipulation.ravel(a), manipulation.ravel(b)], 0)
    return unique(both, size=size, fill_value=fill_value)


def intersect1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    return_indices: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """The sorted values in both. Like `jax.numpy.intersect1d` (no `return_indices`)."""
    if return_indices:
        raise NotImplementedError("intersect1d: return_indices=True is not supported by didax")
    a, b = _set_operands("intersect1d", ar1, ar2)
    return _sorted_subset("intersect1d", a, b, False, size, fill_value, fill_first=True)


def setdiff1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """The sorted values of ar1 not in ar2. Like `jax.numpy.setdiff1d`."""
    a, b = _set_operands("setdiff1d", ar1, ar2)
    return _sorted_subset("setdiff1d", a, b, True, size, fill_value, fill_first=False)


def lexsort(keys: Any, axis: int = -1) -> Any:
    """The permutation sorting by the last key, then the one before, ... Like
    `jax.numpy.lexsort`."""
    keys = [creation.asarray(k) for k in (keys if isinstance(keys, (tuple, list)) else list(keys))]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({_aval(k).shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    shape = _aval(keys[0]).shape
    if not shape:
        return lax.full((), 0, dtypes.int32)
    axis = axis_args.canonical_axis(axis, len(shape))
    iota = lax.broadcasted_iota(dtypes.int32, shape, axis)
    return lax.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """True if the arrays have one shape and equal entries. Like `jax.numpy.array_equal`."""
    a1, a2 = creation.asarray(a1), creation.asarray(a2)
    if _aval(a1).shape != _aval(a2).shape:
        return creation.asarray(False)
    a1, a2 = promotion.promote("array_equal", a1, a2)
    same = lax.eq(a1, a2)
    if equal_nan and dtypes.is_float(_aval(a1).dtype):
        same = lax.bitwise_or(same, lax.bitwise_and(predicates.isnan(a1), predicates.isnan(a2)))
    return predicates.all(same)


def array_equiv(a1: Any, a2: Any) -> Any:
    """True if the arrays broadcast together and are equal. Like `jax.numpy.array_equiv`."""
    a1, a2 = creation.asarray(a1), creation.asarray(a2)
    try:
        shape = np.broadcast_shapes(_aval(a1).shape, _aval(a2).shape)
    except ValueError:
        return creation.asarray(False)
    a1, a2 = promotion.promote("array_equiv", a1, a2)
    return predicates.all(
        lax.eq(promotion.broadcast_to(a1, shape), promotion.broadcast_to(a2, shape))
    )


def setxor1d(
    ar1: Any,
    ar2: Any,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """The sorted values in exactly one of the two. Like `jax.numpy.setxor1d`."""
    a, b = _set_operands("setxor1d", ar1, ar2)
    only_a = _sorted_subset("setxor1d", a, b, True, None, None, False)
    only_b = _sorted_subset("setxor1d", b, a, True, None, None, False)
    both = lax.concatenate([only_a, only_b], 0)
    if _aval(both).shape[0] == 0:
        return both
    return unique(both, size=size, fill_value=fill_value)


# The `Array` methods of this module's functions (`x.ptp()` is `ptp(x)`); `didax/numpy/__init__.py`
# puts them in `core.operator_table`.
METHODS = {"nonzero": nonzero}
