"""Functions of `jax.numpy` that select, insert or place elements: `insert extract compress
choose place put put_along_axis fill_diagonal mask_indices partition argpartition
sort_complex trim_zeros block`.

Layer 5, after `integer_math`. No primitive of its own: each is JAX's composition of
indexing (`x.at[...]`), `where`, sorting and concatenation. NumPy's in-place forms
(`inplace=True`) raise, as JAX's do: didax arrays are immutable.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy import (
    creation,
    index_grids,
    manipulation,
    predicates,
    promotion,
    rearrange,
    reductions,
    setops,
    sorting,
    ufuncs,
)
from didax.numpy.axis_args import canonical_axis
from didax.numpy.inner_jit import inner_jit

__all__ = [
    "argpartition",
    "block",
    "choose",
    "compress",
    "extract",
    "fill_diagonal",
    "insert",
    "mask_indices",
    "partition",
    "place",
    "put",
    "put_along_axis",
    "sort_complex",
    "trim_zeros",
]


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def _immutable(name: str) -> ValueError:
    return ValueError(
        f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are immutable. "
        "Pass inplace=False to instead return an updated array."
    )


def _tile_to_size(arr: Any, size: int) -> Any:
    n = _aval(arr).shape[0]
    if n < size:
        arr = rearrange.tile(arr, int(np.ceil(size / n)))
    return arr[:size] if _aval(arr).shape[0] > size else arr


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """`arr` with `values` inserted before the indices `obj`. Like `jax.numpy.insert`."""
    promotion.check_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
    a = creation.asarray(arr)
    if axis is None:
        a, axis = manipulation.ravel(a), 0
    axis = canonical_axis(axis, _aval(a).ndim)
    n_input = _aval(a).shape[axis]
    if isinstance(obj, slice):
        indices = creation.arange(*obj.indices(n_input))
    else:
        indices = creation.asarray(obj)
    if _aval(indices).ndim > 1:
        raise ValueError(
            f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {obj}"
        )
    if not dtypes.is_int(_aval(indices).dtype):
        if _aval(indices).size == 0 and not isinstance(obj, core.Tracer):
            indices = lax.convert_element_type(indices, np.int32)
        else:
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    values = creation.asarray(values, _aval(a).dtype)
    if _aval(values).ndim < _aval(a).ndim:  # np.array(ndmin=a.ndim): leading 1s
        shape = (1,) * (_aval(a).ndim - _aval(values).ndim) + _aval(values).shape
        values = manipulation.reshape(values, shape)
    if _aval(indices).size == 1:
        index = manipulation.ravel(indices)[0]
        if _aval(indices).ndim == 0:
            values = manipulation.moveaxis(values, 0, axis)
        indices = creation.full(_aval(values).shape[axis], index)
    n_insert = np.broadcast_shapes(_aval(indices).shape, (_aval(values).shape[axis],))[0]
    out_shape = list(_aval(a).shape)
    out_shape[axis] += n_insert
    out = creation.zeros(tuple(out_shape), _aval(a).dtype)
    indices = ufuncs.where(ufuncs.less(indices, 0), ufuncs.add(indices, n_input), indices)
    indices = ufuncs.clip(indices, 0, n_input)
    order = sorting.argsort(indices)
    values_ind = indices.at[order].add(creation.arange(n_insert, dtype=_aval(indices).dtype))
    mask = creation.ones(n_input + n_insert, dtype=bool).at[values_ind].set(False)
    (arr_ind,) = setops.nonzero(mask, size=n_input)
    lead = (slice(None),) * axis
    out = out.at[(*lead, values_ind)].set(values)
    return out.at[(*lead, arr_ind)].set(a)


def compress(
    condition: Any,
    a: Any,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: Any = 0,
    out: None = None,
) -> Any:
    """The slices of `a` along `axis` where `condition` is true. Like `jax.numpy.compress`."""
    promotion.check_arraylike("compress", condition, a, fill_value)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    cond = lax.convert_element_type(creation.asarray(condition), np.bool_)
    if _aval(cond).ndim != 1:
        raise ValueError("condition must be a 1D array")
    arr = creation.asarray(a)
    if axis is None:
        axis, arr = 0, manipulation.ravel(arr)
    else:
        arr = manipulation.moveaxis(arr, axis, 0)
    n = _aval(arr).shape[0]
    cond, extra = cond[:n], cond[n:]
    arr = arr[: _aval(cond).shape[0]]
    if size is None:
        if predicates.any(extra):
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[cond]
    elif not 0 <= size <= _aval(arr).shape[0]:
        raise ValueError(
            "size must be positive and not greater than the size of the array axis;"
            f" got {size=} for a.shape[axis]={_aval(arr).shape[0]}"
        )
    else:
        mask = manipulation.expand_dims(cond, tuple(range(1, _aval(arr).ndim)))
        arr = ufuncs.where(mask, arr, creation.asarray(fill_value, _aval(arr).dtype))
        order = sorting.argsort(cond, stable=True, descending=True)
        result = arr[order][:size]
    return manipulation.moveaxis(result, 0, axis)


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    """The elements of `arr` where `condition` is true. Like `jax.numpy.extract`."""
    promotion.check_arraylike("extreact", condition, arr, fill_value)  # JAX's spelling
    flat = manipulation.ravel
    cond, a = flat(creation.asarray(condition)), flat(creation.asarray(arr))
    return compress(cond, a, size=size, fill_value=fill_value)


def choose(a: Any, choices: Any, out: None = None, mode: str = "raise") -> Any:
    """`choices[a[i]][i]` for every index `i`. Like `jax.numpy.choose`."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    promotion.check_arraylike("choose", a, *choices)
    a, choices = creation.asarray(a), [creation.asarray(c) for c in choices]
    if not dtypes.is_int(_aval(a).dtype):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, core.Tracer):
            raise core.ConcretizationError(
                "The error occurred because jnp.choose was jit-compiled with mode='raise'. "
                "Use mode='wrap' or mode='clip' instead."
            )
        if predicates.any(ufuncs.logical_or(ufuncs.less(a, 0), ufuncs.greater_equal(a, n))):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = ufuncs.remainder(a, n)
    elif mode == "clip":
        a = ufuncs.clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    a, *choices = manipulation.broadcast_arrays(a, *choices)
    grid = index_grids.indices(_aval(a).shape, sparse=True)
    return manipulation.stack(choices)[(a, *grid)]


def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
    """`arr` with `vals` (cycled) written where `mask` is true. Like `jax.numpy.place`."""
    promotion.check_arraylike("place", arr, mask, vals)
    data, mask = creation.asarray(arr), creation.asarray(mask)
    vals = manipulation.ravel(creation.asarray(vals))
    if inplace:
        raise _immutable("place")
    if _aval(data).size != _aval(mask).size:
        raise ValueError("place: arr and mask must be the same size")
    if not _aval(vals).size:
        raise ValueError("Cannot place values from an empty array")
    if not _aval(data).size:
        return data
    size = _aval(mask).size
    (indices,) = setops.nonzero(manipulation.ravel(mask), size=size, fill_value=size)
    vals = _tile_to_size(vals, size)
    flat = manipulation.ravel(data).at[indices].set(vals, mode="drop")
    return manipulation.reshape(flat, _aval(data).shape)


def put(a: Any, ind: Any, v: Any, mode: str | None = None, *, inplace: bool = True) -> Any:
    """`a` with `v` (cycled) written at the flat indices `ind`. Like `jax.numpy.put`."""
    if inplace:
        raise _immutable("put")
    promotion.check_arraylike("put", a, ind, v)
    arr = creation.asarray(a)
    ind = manipulation.ravel(creation.asarray(ind))
    v = manipulation.ravel(creation.asarray(v))
    if not _aval(arr).size or not _aval(ind).size or not _aval(v).size:
        return arr
    v = _tile_to_size(v, _aval(ind).shape[0])
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind, scatter_mode = ufuncs.clip(ind, 0, _aval(arr).size - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind, scatter_mode = ufuncs.remainder(ind, _aval(arr).size), "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
    return arr.at[index_grids.unravel_index(ind, _aval(arr).shape)].set(v, mode=scatter_mode)


def _put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None, mode: Any) -> Any:
    shape = _aval(arr).shape
    if axis is None:
        arr, axis_ = manipulation.ravel(arr), 0
    else:
        axis_ = canonical_axis(axis, _aval(arr).ndim)
    if _aval(arr).ndim != _aval(indices).ndim:
        raise ValueError(
            "put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
            f"arr.ndim={_aval(arr).ndim} and indices.ndim={_aval(indices).ndim}."
        )
    try:
        values = promotion.broadcast_to(values, _aval(indices).shape)
    except (ValueError, TypeError):
        raise ValueError(
            "put_along_axis argument 'values' must be broadcastable to 'indices'. Got "
            f"values.shape={_aval(values).shape} and indices.shape={_aval(indices).shape}."
        ) from None
    ndim = _aval(arr).ndim
    idx = tuple(
        indices
        if i == axis_
        else lax.broadcasted_iota(np.int32, (1,) * i + (n,) + (1,) * (ndim - i - 1), i)
        for i, n in enumerate(_aval(indices).shape)
    )
    result = arr.at[idx].set(values, mode=mode)
    return manipulation.reshape(result, shape) if axis is None else result


_put_along_axis_jit = inner_jit(_put_along_axis, "put_along_axis", static_argnums=(3, 4))


def put_along_axis(
    arr: Any, indices: Any, values: Any, axis: int | None, inplace: bool = True, *, mode: Any = None
) -> Any:
    """`arr` with `values` written at `indices` along `axis`. Like
    `jax.numpy.put_along_axis`."""
    if inplace:
        raise _immutable("put_along_axis")
    promotion.check_arraylike("put_along_axis", arr, indices, values)
    arr, indices = creation.asarray(arr), creation.asarray(indices)
    return _put_along_axis_jit(arr, indices, creation.asarray(values), axis, mode)


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
    """`a` with its main diagonal set to `val`. Like `jax.numpy.fill_diagonal`."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    promotion.check_arraylike("fill_diagonal", a, val)
    a, val = creation.asarray(a), creation.asarray(val)
    shape = _aval(a).shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and not builtins.all(n == shape[0] for n in shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = builtins.min(shape)
    idx = index_grids.diag_indices(n, len(shape))
    fill = val if _aval(val).ndim == 0 else _tile_to_size(manipulation.ravel(val), n)
    return a.at[idx].set(fill)


def mask_indices(n: int, mask_func: Any, k: int = 0, *, size: int | None = None) -> Any:
    """The indices where `mask_func(ones((n, n)), k)` is nonzero. Like
    `jax.numpy.mask_indices`."""
    i, j = setops.nonzero(mask_func(creation.ones((n, n)), k), size=size)
    return (i, j)


def _partition_setup(name: str, a: Any, kth: int, axis: int) -> tuple[Any, int, int]:
    arr = creation.asarray(a)
    if dtypes.is_complex(_aval(arr).dtype):
        raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
    axis = canonical_axis(axis, _aval(arr).ndim)
    kth = canonical_axis(kth, _aval(arr).shape[axis])
    return manipulation.swapaxes(arr, axis, -1), kth, axis


def _partition(a: Any, kth: int, axis: int) -> Any:
    # JAX's order: the kth + 1 smallest ascending, then the rest descending (as top_k gives)
    arr, kth, axis = _partition_setup("partition", a, kth, axis)
    ordered = sorting.sort(arr, axis=-1)
    bottom, top = ordered[..., : kth + 1], rearrange.flip(ordered[..., kth + 1 :], -1)
    return manipulation.swapaxes(manipulation.concatenate([bottom, top], -1), -1, axis)


_partition_jit = inner_jit(_partition, "partition", static_argnums=(1, 2))


def partition(a: Any, kth: int, axis: int = -1) -> Any:
    """`a` with its kth element in sorted place, smaller ones before, larger after. Like
    `jax.numpy.partition` (the same arrangement as JAX's)."""
    promotion.check_arraylike("partition", a)
    return _partition_jit(a, kth, axis)


def _argpartition(a: Any, kth: int, axis: int) -> Any:
    # JAX's order: the kth + 1 smallest by value (stable), then the others by index
    arr, kth, axis = _partition_setup("argpartition", a, kth, axis)
    bottom = sorting.argsort(arr, axis=-1, stable=True)[..., : kth + 1]
    n = _aval(arr).shape[-1]
    taken = reductions.sum(
        ufuncs.equal(manipulation.expand_dims(bottom, -1), creation.arange(n)), axis=-2
    )
    top = sorting.argsort(taken, axis=-1, stable=True)[..., : n - kth - 1]
    out = manipulation.concatenate([bottom, lax.convert_element_type(top, np.int32)], -1)
    return manipulation.swapaxes(out, -1, axis)


_argpartition_jit = inner_jit(_argpartition, "argpartition", static_argnums=(1, 2))


def argpartition(a: Any, kth: int, axis: int = -1) -> Any:
    """The indices that would partition `a`. Like `jax.numpy.argpartition`."""
    promotion.check_arraylike("partition", a)
    return _argpartition_jit(a, kth, axis)


def _sort_complex(a: Any) -> Any:
    a = sorting.sort(creation.asarray(a))
    return lax.convert_element_type(a, dtypes.complex_of(_aval(a).dtype))


_sort_complex_jit = inner_jit(_sort_complex, "sort_complex")


def sort_complex(a: Any) -> Any:
    """`a` sorted (real part first), as a complex array. Like `jax.numpy.sort_complex`."""
    promotion.check_arraylike("sort_complex", a)
    return _sort_complex_jit(a)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """`filt` without its leading (`f`) and trailing (`b`) zeros. Like
    `jax.numpy.trim_zeros` (concrete values only, as JAX's)."""
    promotion.check_arraylike("trim_zeros", filt)
    filt = creation.asarray(filt)
    if isinstance(filt, core.Tracer):
        raise core.ConcretizationError(
            "Abstract tracer value encountered where concrete value is expected: "
            "Error arose in the `filt` argument of trim_zeros()"
        )
    ndim = _aval(filt).ndim
    axes = range(ndim) if axis is None else np.atleast_1d(axis)
    axis_set = {canonical_axis(int(ax), ndim) for ax in axes}
    if not axis_set or ("f" not in trim.lower() and "b" not in trim.lower()):
        return filt
    value = np.asarray(filt)

    def bounds(ax: int) -> slice:
        if ax not in axis_set:
            return slice(None)
        mask = value.any(axis=tuple(i for i in range(ndim) if i != ax))
        if not mask.any():
            return slice(0, 0)
        start = int(mask.argmax()) if "f" in trim.lower() else None
        stop = value.shape[ax] - int(mask[::-1].argmax()) if "b" in trim.lower() else None
        return slice(start, stop)

    return filt[tuple(bounds(ax) for ax in range(ndim))]


def _block(xs: Any) -> tuple[Any, int]:
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if isinstance(xs, list):
        if not xs:
            raise ValueError("jax.numpy.block does not allow empty list arguments")
        parts, depths = zip(*(_block(x) for x in xs), strict=True)
        if builtins.any(d != depths[0] for d in depths[1:]):
            raise ValueError("Mismatched list depths in jax.numpy.block")
        rank = builtins.max(depths[0], builtins.max(_aval(x).ndim for x in parts))
        parts = [
            manipulation.reshape(x, (1,) * (rank - _aval(x).ndim) + _aval(x).shape) for x in parts
        ]
        return manipulation.concatenate(parts, axis=-depths[0]), depths[0] + 1
    return creation.asarray(xs), 1


def _block_fn(arrays: Any) -> Any:
    return _block(arrays)[0]


_block_jit = inner_jit(_block_fn, "block")


def block(arrays: Any) -> Any:
    """One array assembled from nested lists of blocks. Like `jax.numpy.block`."""
    return _block_jit(arrays)
