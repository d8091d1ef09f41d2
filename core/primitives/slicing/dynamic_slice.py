"""dynamic_slice and dynamic_update_slice (start indices that are traced values), and the
`*_in_dim` helpers built on them.

Layer 2 (`didax.primitives.slicing`, after `scatter`): under vmap with batched starts they
become a gather and a scatter. Start indices clamp so the window stays in bounds, as XLA's do.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal
from didax.primitives import (
    ad_helpers,
    comparison,
    concatenation,
    creation,
    elementwise,
    shape,
)
from didax.primitives.convert import convert_element_type
from didax.primitives.slicing.gather import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    _gather_vmap,
    _tuple_ints,
)
from didax.primitives.slicing.scatter import scatter

# ----------------------------------------------------------------------------- dynamic_slice

dynamic_slice_p = core.Primitive("dynamic_slice")


def _normalize_start(i: Any, n: int, allow_negative: bool) -> Any:
    """A start index, negative ones counted from the end (staged as JAX stages it)."""
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
        dtype = dtypes.canonicalize(np.asarray(i).dtype)
        return convert_element_type(int(i) + n if allow_negative and i < 0 else int(i), dtype)
    aval = core.get_aval(i)
    if not allow_negative or aval.dtype.kind == "u":
        return i
    negative = comparison.lt(i, 0)
    shifted = elementwise.add(convert_element_type(i, aval.dtype, False), n)
    return comparison.select_n(negative, i, shifted)


def _start_list(x: Any, start_indices: Any, allow_negative_indices: Any, name: str) -> list[Any]:
    aval = core.get_aval(x)
    if not isinstance(start_indices, (list, tuple)):
        # one `slice` (strides printed, as JAX's array iteration writes it) and `squeeze` each
        start_indices = [
            shape.squeeze(
                concatenation.slice_p.bind(
                    start_indices, start_indices=(k,), limit_indices=(k + 1,), strides=(1,)
                ),
                (0,),
            )
            for k in range(core.get_aval(start_indices).shape[0])
        ]
    if len(start_indices) != aval.ndim:
        raise ValueError(
            "Length of slice indices must match number of operand dimensions "
            f"({len(start_indices)} vs {aval.shape})"
        )
    allow = (
        [allow_negative_indices] * aval.ndim
        if isinstance(allow_negative_indices, bool)
        else list(allow_negative_indices)
    )
    return [
        _normalize_start(i, n, a) for i, n, a in zip(start_indices, aval.shape, allow, strict=True)
    ]


def dynamic_slice(
    operand: Any,
    start_indices: Any,
    slice_sizes: Sequence[int],
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Any:
    """A slice of static size at traced start indices, clamped into bounds. Like
    `jax.lax.dynamic_slice`."""
    starts = _start_list(operand, start_indices, allow_negative_indices, "dynamic_slice")
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=_tuple_ints(slice_sizes))


def _clamped_starts(
    shape_: Sequence[int], sizes: Sequence[int], starts: Sequence[Any]
) -> list[int]:
    return [int(min(max(int(s), 0), n - k)) for s, n, k in zip(starts, shape_, sizes, strict=True)]


def _dynamic_slice_impl(x, *starts, slice_sizes):
    _dynamic_slice_abstract_eval(
        ShapedArray(np.shape(x), x.dtype),
        *(ShapedArray(np.shape(s), s.dtype) for s in starts),
        slice_sizes=slice_sizes,
    )
    x = np.asarray(x)
    lo = _clamped_starts(x.shape, slice_sizes, starts)
    return [x[tuple(builtins.slice(a, a + k) for a, k in zip(lo, slice_sizes, strict=True))]]


core.impl_rules.register(dynamic_slice_p, _dynamic_slice_impl)


def _check_starts(name: str, x: ShapedArray, starts: Sequence[ShapedArray]) -> None:
    if len(starts) != x.ndim:
        raise TypeError(f"{name}: {len(starts)} start indices for {x.str_short()}")
    if any(s.shape or not dtypes.is_int(s.dtype) for s in starts):
        raise TypeError(
            f"{name}: start indices must be integer scalars, got "
            + ", ".join(s.str_short() for s in starts)
        )


@core.abstract_eval_rules.register(dynamic_slice_p)
def _dynamic_slice_abstract_eval(x, *starts, slice_sizes):
    _check_starts("dynamic_slice", x, starts)
    if len(slice_sizes) != x.ndim or any(
        not 0 <= k <= n for k, n in zip(slice_sizes, x.shape, strict=True)
    ):
        raise TypeError(f"dynamic_slice: slice_sizes {slice_sizes} do not fit {x.str_short()}")
    return [ShapedArray(tuple(slice_sizes), x.dtype, x.weak_type)]


core.jvp_rules.register(dynamic_slice_p, ad_helpers.linear_jvp(dynamic_slice_p, (0,)))


@core.transpose_rules.register(dynamic_slice_p)
def _dynamic_slice_transpose(cts, x, *starts, slice_sizes):
    (ct,) = cts
    nones = [None] * len(starts)
    zeros = creation.full(x.aval.shape, 0, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts), *nones]


def _starts_as_indices(starts: Sequence[Any], dims: Sequence[Any], axis_size: int) -> Any:
    """The scalar start indices as one [axis_size, n] index array (batched ones per row)."""
    columns = []
    for s, d in zip(starts, dims, strict=True):
        s = convert_element_type(s, dtypes.int32, False)
        s = (
            shape.move_axis(s, d, 0, axis_size)
            if d is not NOT_MAPPED
            else shape.move_axis(s, NOT_MAPPED, 0, axis_size)
        )
        columns.append(shape.broadcast_in_dim(s, (axis_size, 1), (0,)))
    return concatenation.concatenate(columns, 1)


@core.vmap_rules.register(dynamic_slice_p)
def _dynamic_slice_vmap(axis_size, vals, dims, *, slice_sizes):
    (x, *starts), (x_bdim, *start_dims) = vals, dims
    if all(d is NOT_MAPPED for d in start_dims):
        x = shape.move_axis(x, x_bdim, 0, axis_size)
        zero = convert_element_type(np.int32(0), dtypes.int32)
        return [dynamic_slice_p.bind(x, zero, *starts, slice_sizes=(axis_size, *slice_sizes))], [0]
    idx = _starts_as_indices(starts, start_dims, axis_size)  # a gather per batch element
    n = len(starts)
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(n)), collapsed_slice_dims=(), start_index_map=tuple(range(n))
    )
    vals2, dims2 = [x, idx], [x_bdim, 0]
    return _gather_vmap(
        axis_size,
        vals2,
        dims2,
        dimension_numbers=dn,
        slice_sizes=slice_sizes,
        indices_are_sorted=False,
        unique_indices=False,
        mode=GatherScatterMode.CLIP,
        fill_value=None,
    )


@core.lowering_rules.register(dynamic_slice_p)
def _dynamic_slice_lowering(ctx, x, *starts, slice_sizes):
    return [ctx.hlo.dynamic_slice(x, list(starts), slice_sizes)]


# ----------------------------------------------------------------------------- dynamic_update_slice

dynamic_update_slice_p = core.Primitive("dynamic_update_slice")


def dynamic_update_slice(
    operand: Any,
    update: Any,
    start_indices: Any,
    *,
    allow_negative_indices: bool | Sequence[bool] = True,
) -> Any:
    """`operand` with `update` written at traced start indices, clamped into bounds. Like
    `jax.lax.dynamic_update_slice`."""
    starts = _start_list(operand, start_indices, allow_negative_indices, "dynamic_update_slice")
    return dynamic_update_slice_p.bind(operand, update, *starts)


def _dynamic_update_slice_impl(x, update, *starts):
    _dynamic_update_slice_abstract_eval(
        *(ShapedArray(np.shape(v), v.dtype) for v in (x, update, *starts))
    )
    out = np.array(x, copy=True)
    update = np.asarray(update)
    lo = _clamped_starts(out.shape, update.shape, starts)
    out[tuple(builtins.slice(a, a + k) for a, k in zip(lo, update.shape, strict=True))] = update
    return [out]


core.impl_rules.register(dynamic_update_slice_p, _dynamic_update_slice_impl)


@core.abstract_eval_rules.register(dynamic_update_slice_p)
def _dynamic_update_slice_abstract_eval(x, update, *starts):
    _check_starts("dynamic_update_slice", x, starts)
    if (
        update.dtype != x.dtype
        or update.ndim != x.ndim
        or any(k > n for k, n in zip(update.shape, x.shape, strict=True))
    ):
        raise TypeError(
            f"dynamic_update_slice: update {update.str_short()} does not fit operand "
            f"{x.str_short()}"
        )
    return [ShapedArray(x.shape, x.dtype, x.weak_type)]


core.jvp_rules.register(  # linear in the operand and the update
    dynamic_update_slice_p, ad_helpers.linear_jvp(dynamic_update_slice_p, (0, 1))
)


@core.transpose_rules.register(dynamic_update_slice_p)
def _dynamic_update_slice_transpose(cts, x, u, *starts):
    (ct,) = cts
    nones = [None] * len(starts)
    u_aval = u.aval if isinstance(u, UndefinedPrimal) else core.get_aval(u)
    x_ct = u_ct = None
    if isinstance(x, UndefinedPrimal):
        zeros = creation.full(u_aval.shape, 0, u_aval.dtype)
        x_ct = dynamic_update_slice_p.bind(ct, zeros, *starts)
    if isinstance(u, UndefinedPrimal):
        u_ct = dynamic_slice_p.bind(ct, *starts, slice_sizes=u_aval.shape)
    return [x_ct, u_ct, *nones]


@core.vmap_rules.register(dynamic_update_slice_p)
def _dynamic_update_slice_vmap(axis_size, vals, dims):
    (x, u, *starts), (x_bdim, u_bdim, *start_dims) = vals, dims
    x = shape.move_axis(x, x_bdim, 0, axis_size)
    u = shape.move_axis(u, u_bdim, 0, axis_size)
    if all(d is NOT_MAPPED for d in start_dims):
        zero = convert_element_type(np.int32(0), dtypes.int32)
        return [dynamic_update_slice_p.bind(x, u, zero, *starts)], [0]
    # a scatter per batch element, start indices clamped as dynamic_update_slice clamps them
    u_shape = core.get_aval(u).shape[1:]
    x_shape = core.get_aval(x).shape[1:]
    idx = _starts_as_indices(starts, start_dims, axis_size)
    upper = np.array([n - k for n, k in zip(x_shape, u_shape, strict=True)], np.int32)
    idx = elementwise.clamp(
        np.int32(0), idx, shape.broadcast_in_dim(upper, (axis_size, len(u_shape)), (1,))
    )
    n = len(starts)
    dn = ScatterDimensionNumbers(
        update_window_dims=tuple(range(1, n + 1)),
        inserted_window_dims=(),
        scatter_dims_to_operand_dims=tuple(range(1, n + 1)),
        operand_batching_dims=(0,),
        scatter_indices_batching_dims=(0,),
    )
    return [scatter(x, idx, u, dn, indices_are_sorted=True, unique_indices=True)], [0]


@core.lowering_rules.register(dynamic_update_slice_p)
def _dynamic_update_slice_lowering(ctx, x, u, *starts):
    return [ctx.hlo.dynamic_update_slice(x, u, list(starts))]


# ----------------------------------------------------------------------------- rev


# ----------------------------------------------------------------------------- in_dim helpers


def dynamic_slice_in_dim(
    operand: Any,
    start_index: Any,
    slice_size: int,
    axis: int = 0,
    *,
    allow_negative_indices: bool = True,
) -> Any:
    """`operand[..., start_index:start_index + slice_size]` along `axis`. Like
    `jax.lax.dynamic_slice_in_dim`."""
    aval = core.get_aval(operand)
    axis = int(axis)
    starts: list[Any] = [0] * aval.ndim
    starts[axis] = start_index
    sizes = list(aval.shape)
    sizes[axis] = int(slice_size)
    allow = [False] * aval.ndim
    allow[axis] = allow_negative_indices
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow)


def dynamic_index_in_dim(
    operand: Any,
    index: Any,
    axis: int = 0,
    keepdims: bool = True,
    *,
    allow_negative_indices: bool = True,
) -> Any:
    """`operand[..., index]` along `axis`. Like `jax.lax.dynamic_index_in_dim`."""
    out = dynamic_slice_in_dim(
        operand, index, 1, axis, allow_negative_indices=allow_negative_indices
    )
    return out if keepdims else shape.squeeze(out, (axis,))


def dynamic_update_slice_in_dim(
    operand: Any,
    update: Any,
    start_index: Any,
    axis: int,
    *,
    allow_negative_indices: bool = True,
) -> Any:
    """Write `update` at `start_index` along `axis`. Like `jax.lax.dynamic_update_slice_in_dim`."""
    ndim = core.get_aval(operand).ndim
    axis = int(axis)
    starts: list[Any] = [0] * ndim
    starts[axis] = start_index
    allow = [False] * ndim
    allow[axis] = allow_negative_indices
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow)


def dynamic_update_index_in_dim(
    operand: Any,
    update: Any,
    index: Any,
    axis: int,
    *,
    allow_negative_indices: bool = True,
) -> Any:
    """Write `update` (with or without the size-1 axis) at `index` along `axis`. Like
    `jax.lax.dynamic_update_index_in_dim`."""
    axis = int(axis)
    if core.get_aval(update).ndim == core.get_aval(operand).ndim - 1:
        update = shape.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(
        operand, update, index, axis, allow_negative_indices=allow_negative_indices
    )
