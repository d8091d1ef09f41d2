"""`take` and `take_along_axis`: one `gather` along an axis. Like `jax.numpy.take` and
`jax.numpy.take_along_axis`.

Layer 5, after `indexing`. Out-of-bounds indices fill (NaN, or the dtype's minimum for
integers) unless `mode="clip"` or `"wrap"`, as in JAX.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy import axis_args, creation, inner_jit, manipulation, promotion, ufuncs
from didax.numpy.indexing import _Index, _normalize
from didax.primitives import slicing
from didax.primitives.slicing import (
    GatherDimensionNumbers,
    GatherScatterMode,
)

# ----------------------------------------------------------------------------- take


def _take(
    a: Any,
    indices: Any,
    axis: int | None,
    mode: Any,
    unique_indices: bool,
    indices_are_sorted: bool,
    fill_value: Any,
) -> Any:
    if axis is None:
        a = manipulation.reshape(a, (-1,))
        axis = 0
    shape = core.get_aval(a).shape
    axis = axis_args.canonical_axis(axis, len(shape))
    n = shape[axis]
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        indices = ufuncs.where(ufuncs.less(indices, 0), ufuncs.add(indices, n), indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = ufuncs.remainder(
            indices, lax.convert_element_type(n, core.get_aval(indices).dtype)
        )
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    index_dims = core.get_aval(indices).ndim
    out_shape = shape[:axis] + core.get_aval(indices).shape + shape[axis + 1 :]
    if n == 0:
        if core.get_aval(indices).size:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return lax.full(out_shape, 0, core.get_aval(a).dtype)
    slice_sizes = list(shape)
    slice_sizes[axis] = 1
    dnums = GatherDimensionNumbers(
        offset_dims=(*range(axis), *range(axis + index_dims, len(shape) + index_dims - 1)),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
    )
    return slicing.gather(
        a,
        lax.expand_dims(indices, (index_dims,)),
        dnums,
        slice_sizes,
        mode=gather_mode,
        fill_value=fill_value,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
    )


_take_jit = inner_jit.inner_jit(_take, "_take", static_argnums=(2, 3, 4, 5, 6))


def take(
    a: Any,
    indices: Any,
    axis: int | None = None,
    out: None = None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> Any:
    """Elements of `a` at `indices` along `axis` (of the flattened `a` when None). Like
    `jax.numpy.take`: out-of-bounds indices fill with NaN (the dtype's minimum for
    integers) unless `mode="clip"` or `"wrap"`."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    promotion.check_arraylike("take", a, indices)
    a, indices = creation.asarray(a), creation.asarray(indices)
    if not dtypes.is_int(core.get_aval(indices).dtype):
        raise TypeError(f"take: indices must be integers, got {core.get_aval(indices).dtype}")
    return _take_jit(a, indices, axis, mode, unique_indices, indices_are_sorted, fill_value)


def _take_along_axis(arr: Any, indices: Any, axis: int | None, mode: Any, fill_value: Any) -> Any:
    if axis is None:
        if core.get_aval(indices).ndim != 1:
            raise ValueError(
                "take_along_axis indices must be 1D if axis=None, got shape "
                f"{core.get_aval(indices).shape}"
            )
        arr = manipulation.reshape(arr, (-1,))
        axis = 0
    a_shape, idx_shape = core.get_aval(arr).shape, core.get_aval(indices).shape
    rank = len(a_shape)
    if len(idx_shape) != rank:
        raise ValueError(
            f"indices and arr must have the same number of dimensions; {len(idx_shape)} vs. {rank}"
        )
    axis = axis_args.canonical_axis(axis, rank)
    arr_shape = a_shape[:axis] + (1,) + a_shape[axis + 1 :]
    out_shape = np.broadcast_shapes(idx_shape, arr_shape)
    if a_shape[axis] == 0:
        return lax.full(out_shape, 0, core.get_aval(arr).dtype)
    indices = lax.convert_element_type(indices, dtypes.int32)
    if mode != "promise_in_bounds":
        indices = _normalize(_Index("array", indices), a_shape[axis]).value
    index_dims = [i for i, n in enumerate(idx_shape) if i == axis or n != 1]
    indices = lax.reshape(indices, (*(out_shape[i] for i in index_dims), 1))
    slice_sizes, offset_dims, squeeze, batch_operand, batch_indices = [], [], [], [], []
    new_i = j = 0
    for i in range(rank):
        if i == axis:  # the indexed axis: collapsed, read at the index
            slice_sizes.append(1)
            index_axis = new_i
            new_i += 1
            j += 1
        elif idx_shape[i] == 1:  # the whole axis of `arr`
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:  # `arr` broadcasts along the indices: drop its axis
            squeeze.append(i)
            j += 1
        else:  # matched one to one: a batching dimension
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            batch_operand.append(new_i)
            batch_indices.append(j)
            new_i += 1
            j += 1
    if squeeze:
        arr = lax.squeeze(arr, squeeze)
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=(index_axis,),
        start_index_map=(index_axis,),
        operand_batching_dims=tuple(batch_operand),
        start_indices_batching_dims=tuple(batch_indices),
    )
    return slicing.gather(
        arr,
        indices,
        dnums,
        tuple(slice_sizes),
        mode="fill" if mode is None else mode,
        fill_value=fill_value,
    )


_take_along_axis_jit = inner_jit.inner_jit(
    _take_along_axis, "take_along_axis", static_argnums=(2, 3, 4)
)


def take_along_axis(
    arr: Any,
    indices: Any,
    axis: int | None = -1,
    mode: Any = None,
    fill_value: Any = None,
) -> Any:
    """`arr` read at `indices` along `axis`, the other axes matched one to one (as
    `argsort`'s output indexes its input). Like `jax.numpy.take_along_axis`."""
    promotion.check_arraylike("take_along_axis", arr, indices)
    arr, indices = creation.asarray(arr), creation.asarray(indices)
    if not dtypes.is_int(core.get_aval(indices).dtype):
        raise TypeError(
            f"take_along_axis: indices must be integers, got {core.get_aval(indices).dtype}"
        )
    return _take_along_axis_jit(arr, indices, axis, mode, fill_value)


__all__ = ["take", "take_along_axis"]
