"""The gather primitive and the index vocabulary gather and scatter share: JAX's dimension
numbers (`GatherDimensionNumbers`, `ScatterDimensionNumbers`) and `GatherScatterMode`, which
print as JAX prints them, so a jaxpr of `x[idx]` reads as JAX's.

Layer 2 (`didax.primitives.slicing`, first). Out of bounds, gather clamps (CLIP,
PROMISE_IN_BOUNDS) or fills (FILL_OR_DROP), as XLA does. Gather's transpose is a scatter-add,
so it is registered in `scatter.py`, after scatter-add exists.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from didax import core, dtypes
from didax.core import NOT_MAPPED, ShapedArray
from didax.primitives import (
    concatenation,
    elementwise,
    rules,
    shape,
)

# ----------------------------------------------------------------------------- dimension numbers


class GatherDimensionNumbers(NamedTuple):
    """How `gather` reads `operand` at `start_indices`. Like `jax.lax.GatherDimensionNumbers`
    (the index vector is the last axis of the indices)."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How `scatter` writes `updates` into `operand`. Like `jax.lax.ScatterDimensionNumbers`."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """Out-of-bounds indices: CLIP clamps, FILL_OR_DROP fills (gather) or drops (scatter),
    PROMISE_IN_BOUNDS does what XLA does (gather clamps, scatter drops). Like
    `jax.lax.GatherScatterMode`."""

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s: Any) -> GatherScatterMode:
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


def _tuple_ints(xs: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(x) for x in xs)


def _default_fill(dtype: np.dtype) -> Any:
    if dtypes.is_float(dtype):
        return np.nan
    if dtype == dtypes.bool_:
        return True
    if dtype.kind == "u":
        return int(np.iinfo(dtype).max)
    return int(np.iinfo(dtype).min)


def _window_starts(
    idx: np.ndarray,
    ndim: int,
    index_map: Sequence[int],
    operand_batching_dims: Sequence[int],
    indices_batching_dims: Sequence[int],
) -> np.ndarray:
    """Per batch position of the indices, the start of its window in every operand dim."""
    batch_shape = idx.shape[:-1]
    starts = np.zeros((*batch_shape, ndim), np.int64)
    for k, d in enumerate(index_map):
        starts[..., d] = idx[..., k]
    for od, idim in zip(operand_batching_dims, indices_batching_dims, strict=True):
        starts[..., od] = np.arange(batch_shape[idim]).reshape(
            [-1 if i == idim else 1 for i in range(len(batch_shape))]
        )
    return starts


def _window_coords(starts: np.ndarray, sizes: Sequence[int]) -> tuple[np.ndarray, ...]:
    """Index arrays of shape [*batch, *sizes] reading each window from its start."""
    nb, ndim = starts.ndim - 1, len(sizes)
    coords = []
    for d in range(ndim):
        start = starts[..., d].reshape(starts.shape[:-1] + (1,) * ndim)
        offsets = np.arange(sizes[d]).reshape(
            (1,) * nb + tuple(-1 if i == d else 1 for i in range(ndim))
        )
        coords.append(np.broadcast_to(start + offsets, starts.shape[:-1] + tuple(sizes)))
    return tuple(coords)


def _shifted(dims: Sequence[int]) -> tuple[int, ...]:
    """Dimension numbers after a new leading (batch) axis."""
    return tuple(d + 1 for d in dims)


def _index_aval_check(name: str, indices: ShapedArray) -> None:
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"{name}: indices must have an integer type, got {indices.dtype.name}")
    if not indices.ndim:
        raise TypeError(
            f"{name}: indices must have at least one dimension, got {indices.str_short()}"
        )


# ----------------------------------------------------------------------------- gather

gather_p = core.Primitive("gather")


def gather(
    operand: Any,
    start_indices: Any,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: Any = None,
    fill_value: Any = None,
) -> Any:
    """Read windows of `operand` starting at `start_indices`. Like `jax.lax.gather`."""
    parsed = GatherScatterMode.from_any(
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode
    )
    if parsed == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = _default_fill(core.get_aval(operand).dtype)
    else:
        fill_value = None
    return gather_p.bind(
        operand,
        start_indices,
        dimension_numbers=GatherDimensionNumbers(*(_tuple_ints(d) for d in dimension_numbers)),
        slice_sizes=_tuple_ints(slice_sizes),
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
        mode=parsed,
        fill_value=fill_value,
    )


def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value, **_):
    _gather_abstract_eval(
        ShapedArray(np.shape(operand), operand.dtype),
        ShapedArray(np.shape(indices), indices.dtype),
        dimension_numbers=dimension_numbers,
        slice_sizes=slice_sizes,
    )
    dn = dimension_numbers
    x, idx = np.asarray(operand), np.asarray(indices).astype(np.int64)
    starts = _window_starts(
        idx, x.ndim, dn.start_index_map, dn.operand_batching_dims, dn.start_indices_batching_dims
    )
    upper = np.array(x.shape, np.int64) - np.array(slice_sizes, np.int64)
    in_bounds = np.all((starts >= 0) & (starts <= upper), axis=-1)
    window = x[_window_coords(np.clip(starts, 0, upper), slice_sizes)]
    batch_shape = idx.shape[:-1]
    if mode == GatherScatterMode.FILL_OR_DROP:
        mask = in_bounds.reshape(batch_shape + (1,) * x.ndim)
        window = np.where(mask, window, np.asarray(fill_value).astype(x.dtype))
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offset_sizes = tuple(s for d, s in enumerate(slice_sizes) if d not in dropped)
    window = window.reshape(batch_shape + offset_sizes)
    nb, rank = len(batch_shape), len(batch_shape) + len(offset_sizes)
    batch_positions = [i for i in range(rank) if i not in dn.offset_dims]
    perm = [
        nb + dn.offset_dims.index(i) if i in dn.offset_dims else batch_positions.index(i)
        for i in range(rank)
    ]
    return [np.asarray(np.transpose(window, perm), x.dtype)]


core.impl_rules.register(gather_p, _gather_impl)


@core.abstract_eval_rules.register(gather_p)
def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes, **_):
    dn = dimension_numbers
    _index_aval_check("gather", indices)
    if len(slice_sizes) != operand.ndim:
        raise TypeError(
            f"gather: slice_sizes {slice_sizes} must have one entry per dimension of "
            f"{operand.str_short()}"
        )
    if indices.shape[-1] != len(dn.start_index_map):
        raise TypeError(
            f"gather: the last dimension of indices {indices.str_short()} must equal the length "
            f"of start_index_map {dn.start_index_map}"
        )
    if any(not 0 <= s <= n for s, n in zip(slice_sizes, operand.shape, strict=True)):
        raise TypeError(
            f"gather: slice_sizes {slice_sizes} exceed the shape of {operand.str_short()}"
        )
    dropped = (*dn.collapsed_slice_dims, *dn.operand_batching_dims)
    if any(slice_sizes[d] > 1 for d in dropped):
        raise TypeError(
            f"gather: slice_sizes {slice_sizes} must be at most 1 in collapsed and batching "
            f"dimensions {dropped}"
        )
    offset_sizes = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    if len(offset_sizes) != len(dn.offset_dims):
        raise TypeError(
            f"gather: offset_dims {dn.offset_dims} must have one entry per uncollapsed "
            f"dimension of the slice {slice_sizes}"
        )
    batch = list(indices.shape[:-1])
    rank = len(batch) + len(offset_sizes)
    out = []
    for i in range(rank):
        out.append(offset_sizes.pop(0) if i in dn.offset_dims else batch.pop(0))
    return [ShapedArray(tuple(out), operand.dtype, operand.weak_type)]


@core.jvp_rules.register(gather_p)
def _gather_jvp(primals, tangents, **params):
    (x, idx), (x_dot, _) = primals, tangents
    out = gather_p.bind(x, idx, **params)
    # (x_dot is no symbolic zero: the integer indices have none, and the jvp tracer runs no
    # rule whose tangents all are)
    fill = None if params["fill_value"] is None else 0
    return [out], [gather_p.bind(x_dot, idx, **{**params, "fill_value": fill})]


@core.vmap_rules.register(gather_p)
def _gather_vmap(axis_size, vals, dims, *, dimension_numbers, slice_sizes, **params):
    (x, idx), (x_bdim, idx_bdim) = vals, dims
    dn = dimension_numbers
    idx = shape.move_axis(idx, idx_bdim, 0, axis_size) if idx_bdim is not NOT_MAPPED else idx
    if x_bdim is NOT_MAPPED:  # a new leading batch dim of the indices: a new output batch dim
        new_dn = dn._replace(
            offset_dims=_shifted(dn.offset_dims),
            start_indices_batching_dims=_shifted(dn.start_indices_batching_dims),
        )
        return [
            gather_p.bind(x, idx, dimension_numbers=new_dn, slice_sizes=slice_sizes, **params)
        ], [0]
    x = shape.move_axis(x, x_bdim, 0, axis_size)
    if idx_bdim is NOT_MAPPED:
        idx = shape.move_axis(idx, NOT_MAPPED, 0, axis_size)
    new_dn = GatherDimensionNumbers(
        offset_dims=_shifted(dn.offset_dims),
        collapsed_slice_dims=_shifted(dn.collapsed_slice_dims),
        start_index_map=_shifted(dn.start_index_map),
        operand_batching_dims=(0, *_shifted(dn.operand_batching_dims)),
        start_indices_batching_dims=(0, *_shifted(dn.start_indices_batching_dims)),
    )
    out = gather_p.bind(x, idx, dimension_numbers=new_dn, slice_sizes=(1, *slice_sizes), **params)
    return [out], [0]


def _gather_dnums_attr(ctx, dn, index_vector_dim):
    return ctx.hlo.GatherDimensionNumbers.get(
        offset_dims=list(dn.offset_dims),
        collapsed_slice_dims=list(dn.collapsed_slice_dims),
        operand_batching_dims=list(dn.operand_batching_dims),
        start_indices_batching_dims=list(dn.start_indices_batching_dims),
        start_index_map=list(dn.start_index_map),
        index_vector_dim=index_vector_dim,
    )


def _index_bounds(ctx, idx_aval, index_map, operand_shape, window_sizes):
    """The largest in-bounds start of each index component, as an array shaped like the indices."""
    upper = np.array([operand_shape[d] - window_sizes[d] for d in index_map], np.int64)
    upper = np.broadcast_to(upper.astype(idx_aval.dtype), idx_aval.shape)
    return ctx.constant(np.ascontiguousarray(upper), idx_aval.dtype)


def _clamp_indices(ctx, idx, idx_aval, index_map, operand_shape, window_sizes):
    zeros = ctx.constant(np.zeros(idx_aval.shape, idx_aval.dtype), idx_aval.dtype)
    upper = _index_bounds(ctx, idx_aval, index_map, operand_shape, window_sizes)
    return ctx.hlo.clamp(zeros, idx, upper)


@core.lowering_rules.register(gather_p)
def _gather_lowering(ctx, x, idx, *, dimension_numbers, slice_sizes, mode, fill_value, **_):
    x_aval, idx_aval = ctx.avals_in
    out_aval = ctx.avals_out[0]
    dn = dimension_numbers
    if mode == GatherScatterMode.CLIP:
        idx = _clamp_indices(ctx, idx, idx_aval, dn.start_index_map, x_aval.shape, slice_sizes)
    out = ctx.hlo.gather(
        x,
        idx,
        _gather_dnums_attr(ctx, dn, idx_aval.ndim - 1),
        slice_sizes,
        indices_are_sorted=False,
    )
    if mode != GatherScatterMode.FILL_OR_DROP:
        return [out]
    # fill every window that is not wholly in bounds
    zeros = ctx.constant(np.zeros(idx_aval.shape, idx_aval.dtype), idx_aval.dtype)
    upper = _index_bounds(ctx, idx_aval, dn.start_index_map, x_aval.shape, slice_sizes)
    ok = ctx.hlo.and_(
        rules.compare(ctx, idx, zeros, "GE", idx_aval.dtype),
        rules.compare(ctx, idx, upper, "LE", idx_aval.dtype),
    )
    bool_aval = ShapedArray(idx_aval.shape[:-1], dtypes.bool_)
    reduce = ctx.hlo.ReduceOp(
        [ctx.tensor_type(bool_aval)], [ok], [ctx.constant(True, dtypes.bool_)], [idx_aval.ndim - 1]
    )
    scalar = ctx.tensor_type(ShapedArray((), dtypes.bool_))
    body = reduce.regions[0].blocks.append(scalar, scalar)
    with ctx.ir.InsertionPoint(body):
        ctx.hlo.return_([ctx.hlo.and_(*body.arguments)])
    batch_positions = [i for i in range(out_aval.ndim) if i not in dn.offset_dims]
    mask = ctx.hlo.broadcast_in_dim(
        ctx.tensor_type(out_aval.update(dtype=dtypes.bool_, weak_type=False)),
        reduce.results[0],
        batch_positions,
    )
    fill = ctx.hlo.broadcast_in_dim(
        ctx.tensor_type(out_aval), ctx.constant(fill_value, out_aval.dtype), []
    )
    return [ctx.hlo.select(mask, out, fill)]


# ----------------------------------------------------------------------------- scatter family


def index_take(src: Any, idxs: Sequence[Any], axes: Sequence[int]) -> Any:
    """`src` read at the index arrays `idxs` along `axes` (taken modulo the axes' sizes), the
    other axes kept. Like `jax.lax.index_take`."""
    indices = concatenation.concatenate([shape.expand_dims(i, (1,)) for i in idxs], 1)
    src_shape = core.get_aval(src).shape
    sizes = np.array([src_shape[ax] for ax in axes], core.get_aval(indices).dtype)
    nd = core.get_aval(indices).ndim
    sizes = shape.expand_dims(sizes, tuple(range(nd - 1)))
    # Python's `%` (JAX writes `indices % sizes`): a negative index counts from the end
    indices = elementwise.rem(elementwise.add(elementwise.rem(indices, sizes), sizes), sizes)
    slice_sizes = list(src_shape)
    for ax in axes:
        slice_sizes[ax] = 1
    n_idx = core.get_aval(indices).shape[1]
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(range(1, len(src_shape) - n_idx + 1)),
        collapsed_slice_dims=tuple(axes),
        start_index_map=tuple(axes),
    )
    return gather(src, indices, dnums, tuple(slice_sizes))
