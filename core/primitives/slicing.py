"""Indexing primitives: gather, the scatter family (scatter, scatter-add, scatter-sub,
scatter-mul, scatter-min, scatter-max; `scatter` with a function is `.at[].apply`),
dynamic_slice, dynamic_update_slice and rev.

Layer 2 (`didax.primitives`), after `dot`. The dimension numbers (`GatherDimensionNumbers`,
`ScatterDimensionNumbers`) and `GatherScatterMode` are JAX's, and print as JAX prints them,
so a jaxpr of `x[idx]` or `x.at[i].add(y)` reads as JAX's. Out of bounds: gather clamps
(CLIP, PROMISE_IN_BOUNDS) or fills (FILL_OR_DROP); scatter drops out-of-bounds windows
(FILL_OR_DROP, PROMISE_IN_BOUNDS) or clamps (CLIP); dynamic_slice/dynamic_update_slice clamp,
as XLA does. `didax.numpy`'s indexing (`x[idx]`, `x.at[...]`) is built from these.
"""

from __future__ import annotations

import builtins
import enum
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from didax import core, dtypes, jaxpr
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal, Zero
from didax.primitives import (
    ad_helpers,
    comparison,
    concatenation,
    creation,
    elementwise,
    rules,
    shape,
)
from didax.primitives.convert import convert_element_type

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
    if isinstance(x_dot, Zero):
        return [out], [Zero.like(out)]
    fill = None if params["fill_value"] is None else 0
    return [out], [gather_p.bind(x_dot, idx, **{**params, "fill_value": fill})]


@core.transpose_rules.register(gather_p)
def _gather_transpose(
    cts,
    x,
    idx,
    *,
    dimension_numbers,
    slice_sizes,
    indices_are_sorted,
    unique_indices,
    mode,
    fill_value,
):
    (ct,) = cts
    dn = dimension_numbers
    scatter_dn = ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims,
        inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims,
    )
    zeros = creation.full(x.aval.shape, 0, x.aval.dtype)
    out = scatter_add(
        zeros,
        idx,
        ct,
        scatter_dn,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode=mode,
    )
    return [out, None]


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


def scatter_apply(
    operand: Any,
    scatter_indices: Any,
    update_jaxpr: jaxpr.Jaxpr,
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = None,
) -> Any:
    """`operand` with the scalar function staged as `update_jaxpr` (two scalar arguments,
    the second unused) applied at the indexed windows: a `scatter` carrying the function,
    as `jax.lax.scatter_apply` binds it. Tracing the function is the caller's job (this
    layer sits below the tracers); `didax.numpy`'s `x.at[idx].apply(f)` does it."""
    unused = creation.full(tuple(update_shape), 0, core.get_aval(operand).dtype)
    return scatter_p.bind(
        operand,
        scatter_indices,
        unused,
        dimension_numbers=ScatterDimensionNumbers(*(_tuple_ints(d) for d in dimension_numbers)),
        indices_are_sorted=bool(indices_are_sorted),
        mode=GatherScatterMode.from_any(mode),
        unique_indices=bool(unique_indices),
        update_consts=(),
        update_jaxpr=update_jaxpr,
    )


def _scatter_update_jaxpr(prim: core.Primitive | None, dtype: np.dtype) -> Any:
    """The scalar combiner JAX records in a scatter's params (`add i j` for scatter-add)."""
    if prim is None:
        return None
    aval = ShapedArray((), dtype)
    a, b, c = jaxpr.Var(aval), jaxpr.Var(aval), jaxpr.Var(aval)
    return jaxpr.Jaxpr([], [a, b], [c], [jaxpr.JaxprEqn(prim, [a, b], [c], {})])


def _scatter_bind(
    prim: core.Primitive,
    combiner: core.Primitive | None,
    operand: Any,
    scatter_indices: Any,
    updates: Any,
    dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: Any,
) -> Any:
    dtype = core.get_aval(operand).dtype
    return prim.bind(
        operand,
        scatter_indices,
        updates,
        dimension_numbers=ScatterDimensionNumbers(*(_tuple_ints(d) for d in dimension_numbers)),
        indices_are_sorted=bool(indices_are_sorted),
        mode=GatherScatterMode.from_any(mode),
        unique_indices=bool(unique_indices),
        update_consts=(),
        update_jaxpr=_scatter_update_jaxpr(combiner, dtype),
    )


scatter_p = core.Primitive("scatter")
scatter_add_p = core.Primitive("scatter-add")
scatter_sub_p = core.Primitive("scatter-sub")
scatter_mul_p = core.Primitive("scatter-mul")
scatter_min_p = core.Primitive("scatter-min")
scatter_max_p = core.Primitive("scatter-max")

_COMBINERS = {
    scatter_p: None,
    scatter_add_p: elementwise.add_p,
    scatter_sub_p: elementwise.sub_p,
    scatter_mul_p: elementwise.mul_p,
    scatter_min_p: elementwise.min_p,
    scatter_max_p: elementwise.max_p,
}


def _scatter_wrapper(prim: core.Primitive, doc: str) -> Any:
    def wrapper(
        operand: Any,
        scatter_indices: Any,
        updates: Any,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
    ) -> Any:
        return _scatter_bind(
            prim,
            _COMBINERS[prim],
            operand,
            scatter_indices,
            updates,
            dimension_numbers,
            indices_are_sorted,
            unique_indices,
            mode,
        )

    wrapper.__doc__ = doc
    return wrapper


scatter = _scatter_wrapper(scatter_p, "Overwrite windows of `operand`. Like `jax.lax.scatter`.")
scatter_add = _scatter_wrapper(scatter_add_p, "Add into windows. Like `jax.lax.scatter_add`.")
scatter_sub = _scatter_wrapper(scatter_sub_p, "Subtract from windows. Like `jax.lax.scatter_sub`.")
scatter_mul = _scatter_wrapper(scatter_mul_p, "Multiply windows. Like `jax.lax.scatter_mul`.")
scatter_min = _scatter_wrapper(scatter_min_p, "Minimum into windows. Like `jax.lax.scatter_min`.")
scatter_max = _scatter_wrapper(scatter_max_p, "Maximum into windows. Like `jax.lax.scatter_max`.")
scatter.__name__, scatter_add.__name__, scatter_mul.__name__ = (
    "scatter",
    "scatter_add",
    "scatter_mul",
)
scatter_min.__name__, scatter_max.__name__ = "scatter_min", "scatter_max"
scatter_sub.__name__ = "scatter_sub"


def _scatter_window_sizes(operand_ndim, updates_shape, dn) -> list[int]:
    sizes = [1] * operand_ndim
    window_dims = [
        d
        for d in range(operand_ndim)
        if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
    ]
    for k, d in enumerate(window_dims):
        sizes[d] = updates_shape[dn.update_window_dims[k]]
    return sizes


def _scatter_impl_rule(ufunc: Any) -> core.ImplRule:
    def impl(operand, indices, updates, *, dimension_numbers, mode, **params):
        _scatter_abstract_eval(
            *(ShapedArray(np.shape(v), v.dtype) for v in (operand, indices, updates)),
            dimension_numbers=dimension_numbers,
            **params,
        )
        dn = dimension_numbers
        x = np.array(operand, copy=True)
        idx, u = np.asarray(indices).astype(np.int64), np.asarray(updates).astype(x.dtype)
        sizes = _scatter_window_sizes(x.ndim, u.shape, dn)
        starts = _window_starts(
            idx,
            x.ndim,
            dn.scatter_dims_to_operand_dims,
            dn.operand_batching_dims,
            dn.scatter_indices_batching_dims,
        )
        upper = np.array(x.shape, np.int64) - np.array(sizes, np.int64)
        if mode == GatherScatterMode.CLIP:
            starts = np.clip(starts, 0, upper)
        in_bounds = np.all((starts >= 0) & (starts <= upper), axis=-1)
        scatter_dims = [i for i in range(u.ndim) if i not in dn.update_window_dims]
        batch_shape = idx.shape[:-1]
        u = np.transpose(u, scatter_dims + list(dn.update_window_dims))
        u = u.reshape(batch_shape + tuple(sizes))
        mask = np.broadcast_to(in_bounds.reshape(batch_shape + (1,) * x.ndim), u.shape)
        coords = tuple(c[mask] for c in _window_coords(np.clip(starts, 0, upper), sizes))
        update_jaxpr = params.get("update_jaxpr")
        if ufunc is None and update_jaxpr is not None:  # scatter-apply: x[c] = f(x[c])
            _apply_at(x, coords, update_jaxpr)
        elif ufunc is None:
            x[coords] = u[mask]
        else:
            ufunc.at(x, coords, u[mask])
        return [x]

    return impl


def _apply_at(x: np.ndarray, coords: tuple[np.ndarray, ...], update_jaxpr: Any) -> None:
    """`x[c] = f(x[c])` at each coordinate, once per occurrence (a coordinate listed twice
    gets `f(f(x[c]))`, as XLA applies the update computation per update)."""
    flat = x.reshape(-1)  # a view: x is a fresh copy
    lin = np.ravel_multi_index(coords, x.shape) if x.ndim else np.zeros(0, np.int64)
    order = np.argsort(lin, kind="stable")
    first = np.r_[True, lin[order][1:] != lin[order][:-1]] if lin.size else np.zeros(0, bool)
    starts = np.maximum.accumulate(np.where(first, np.arange(lin.size), 0)) if lin.size else lin
    rank = np.empty(lin.size, np.int64)
    rank[order] = np.arange(lin.size) - starts
    for r in range(int(rank.max(initial=-1)) + 1):  # the r-th occurrence of every coordinate
        sel = lin[rank == r]
        values = flat[sel]
        (out,) = jaxpr.eval_jaxpr(update_jaxpr, [], values, values)
        flat[sel] = np.asarray(out, x.dtype)


def _scatter_abstract_eval(operand, indices, updates, *, dimension_numbers, **params):
    dn = dimension_numbers
    _index_aval_check("scatter", indices)
    combiner = params.get("update_jaxpr")
    if combiner is not None and combiner.eqns and operand.dtype == dtypes.bool_:
        name = combiner.eqns[0].primitive.name
        if name in ("add", "sub"):  # as lax.add and lax.sub, which take no bools
            raise TypeError(f"{name} does not accept dtype bool at position 0.")
    if updates.dtype != operand.dtype:
        raise TypeError(
            f"scatter: updates {updates.str_short()} must have the dtype of the operand "
            f"{operand.str_short()}"
        )
    n_window = operand.ndim - len(dn.inserted_window_dims) - len(dn.operand_batching_dims)
    if len(dn.update_window_dims) != n_window:
        raise TypeError(
            f"scatter: update_window_dims {dn.update_window_dims} must have one entry per "
            f"window dimension of {operand.str_short()}"
        )
    scatter_shape = tuple(s for i, s in enumerate(updates.shape) if i not in dn.update_window_dims)
    if scatter_shape != indices.shape[:-1] or indices.shape[-1] != len(
        dn.scatter_dims_to_operand_dims
    ):
        raise TypeError(
            f"scatter: updates {updates.str_short()} do not match indices {indices.str_short()} "
            f"with {dn}"
        )
    sizes = _scatter_window_sizes(operand.ndim, updates.shape, dn)
    if any(s > n for s, n in zip(sizes, operand.shape, strict=True)):
        raise TypeError(
            f"scatter: windows of updates {updates.str_short()} exceed {operand.str_short()}"
        )
    return [operand]


_UFUNCS = {
    scatter_p: None,
    scatter_add_p: np.add,
    scatter_sub_p: np.subtract,
    scatter_mul_p: np.multiply,
    scatter_min_p: np.minimum,
    scatter_max_p: np.maximum,
}
for _prim, _ufunc in _UFUNCS.items():
    core.impl_rules.register(_prim, _scatter_impl_rule(_ufunc))
    core.abstract_eval_rules.register(_prim, _scatter_abstract_eval)


def _gather_dnums_of(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(
        offset_dims=dn.update_window_dims,
        collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims,
    )


def _gather_updates(ct: Any, idx: Any, updates_aval: ShapedArray, params: dict) -> Any:
    """The windows of `ct` a scatter wrote from `updates`, read in the scatter's mode as JAX
    reads them (FILL_OR_DROP: dropped windows read 0; PROMISE_IN_BOUNDS: they clamp)."""
    dn = params["dimension_numbers"]
    sizes = _scatter_window_sizes(core.get_aval(ct).ndim, updates_aval.shape, dn)
    mode = params["mode"]
    return gather(
        ct,
        idx,
        _gather_dnums_of(dn),
        sizes,
        indices_are_sorted=params["indices_are_sorted"],
        unique_indices=params["unique_indices"],
        mode=mode,
        fill_value=0,
    )


def _rebind(prim: core.Primitive, x: Any, idx: Any, u: Any, params: dict) -> Any:
    dtype = core.get_aval(x).dtype
    return prim.bind(
        x, idx, u, **{**params, "update_jaxpr": _scatter_update_jaxpr(_COMBINERS[prim], dtype)}
    )


@core.jvp_rules.register(scatter_add_p)
def _scatter_add_jvp(primals, tangents, **params):
    (x, idx, u), (x_dot, _, u_dot) = primals, tangents
    out = scatter_add_p.bind(x, idx, u, **params)
    if isinstance(x_dot, Zero) and isinstance(u_dot, Zero):
        return [out], [Zero.like(out)]
    return [out], [
        scatter_add_p.bind(
            ad_helpers.instantiate(x_dot), idx, ad_helpers.instantiate(u_dot), **params
        )
    ]


@core.transpose_rules.register(scatter_add_p)
def _scatter_add_transpose(cts, x, idx, u, **params):
    (ct,) = cts
    x_ct = ct if isinstance(x, UndefinedPrimal) else None
    u_ct = _gather_updates(ct, idx, u.aval, params) if isinstance(u, UndefinedPrimal) else None
    return [x_ct, None, u_ct]


@core.jvp_rules.register(scatter_sub_p)
def _scatter_sub_jvp(primals, tangents, **params):
    (x, idx, u), (x_dot, _, u_dot) = primals, tangents
    out = scatter_sub_p.bind(x, idx, u, **params)
    if isinstance(x_dot, Zero) and isinstance(u_dot, Zero):
        return [out], [Zero.like(out)]
    t = scatter_sub_p.bind(
        ad_helpers.instantiate(x_dot), idx, ad_helpers.instantiate(u_dot), **params
    )
    return [out], [t]


@core.transpose_rules.register(scatter_sub_p)
def _scatter_sub_transpose(cts, x, idx, u, **params):
    (ct,) = cts
    x_ct = ct if isinstance(x, UndefinedPrimal) else None
    u_ct = None
    if isinstance(u, UndefinedPrimal):
        u_ct = elementwise.neg(_gather_updates(ct, idx, u.aval, params))
    return [x_ct, None, u_ct]


@core.jvp_rules.register(scatter_p)
def _scatter_jvp(primals, tangents, **params):
    # Duplicate indices: the same (last) update wins in the primal and the tangent here, as
    # in NumPy; XLA does not promise which one wins.
    (x, idx, u), (x_dot, _, u_dot) = primals, tangents
    if params["update_jaxpr"] is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    out = scatter_p.bind(x, idx, u, **params)
    if isinstance(x_dot, Zero) and isinstance(u_dot, Zero):
        return [out], [Zero.like(out)]
    return [out], [
        scatter_p.bind(ad_helpers.instantiate(x_dot), idx, ad_helpers.instantiate(u_dot), **params)
    ]


@core.transpose_rules.register(scatter_p)
def _scatter_transpose(cts, x, idx, u, **params):
    (ct,) = cts
    x_ct = u_ct = None
    if isinstance(x, UndefinedPrimal):  # the overwritten entries get no cotangent
        u_aval = u.aval if isinstance(u, UndefinedPrimal) else core.get_aval(u)
        x_ct = scatter_p.bind(ct, idx, creation.full(u_aval.shape, 0, u_aval.dtype), **params)
    if isinstance(u, UndefinedPrimal):
        u_ct = _gather_updates(ct, idx, u.aval, params)
        if not params["unique_indices"]:  # only the update that was written gets the cotangent
            won = _winning_updates(x.aval.shape, idx, u.aval, params)
            u_ct = comparison.select_n(won, creation.full(u.aval.shape, 0, u.aval.dtype), u_ct)
    return [x_ct, None, u_ct]


def _winning_updates(x_shape: tuple[int, ...], idx: Any, u_aval: ShapedArray, params: dict) -> Any:
    """Which elements of the updates a scatter with repeated indices kept: scatter each
    update window's number, read the numbers back, compare."""
    dn = params["dimension_numbers"]
    scatter_dims = [d for d in range(u_aval.ndim) if d not in dn.update_window_dims]
    scatter_shape = tuple(u_aval.shape[d] for d in scatter_dims)
    one = convert_element_type(1, dtypes.int32)
    ids = elementwise.add(creation.iota(dtypes.int32, int(np.prod(scatter_shape, dtype=int))), one)
    ids = shape.broadcast_in_dim(shape.reshape(ids, scatter_shape), u_aval.shape, scatter_dims)
    zeros = creation.full(x_shape, 0, dtypes.int32)
    written = _rebind(scatter_p, zeros, idx, ids, params)
    return comparison.eq(
        _gather_updates(written, idx, u_aval.update(dtype=dtypes.int32), params), ids
    )


@core.jvp_rules.register(scatter_mul_p)
def _scatter_mul_jvp(primals, tangents, **params):
    (x, idx, u), (x_dot, _, u_dot) = primals, tangents
    out = scatter_mul_p.bind(x, idx, u, **params)
    if not isinstance(u_dot, Zero) and not params["unique_indices"]:
        raise NotImplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True`"
        )
    t = Zero.like(out) if isinstance(x_dot, Zero) else scatter_mul_p.bind(x_dot, idx, u, **params)
    if not isinstance(u_dot, Zero):  # unique windows: d(x * u) = x * u_dot there
        zeros = creation.full(core.get_aval(x).shape, 0, core.get_aval(x).dtype)
        placed = _rebind(scatter_p, zeros, idx, u_dot, params)
        term = elementwise.mul(x, placed)
        t = term if isinstance(t, Zero) else elementwise.add_any(t, term)
    return [out], [t]


@core.transpose_rules.register(scatter_mul_p)
def _scatter_mul_transpose(cts, x, idx, u, **params):
    (ct,) = cts
    if isinstance(u, UndefinedPrimal):
        raise NotImplementedError("scatter-mul: cannot transpose with respect to the updates")
    return [scatter_mul_p.bind(ct, idx, u, **params), None, None]


def _scatter_extremal_jvp(prim: core.Primitive) -> core.JvpRule:
    # The tangent of the winner; ties (an operand entry and updates, or several updates,
    # equal to the result) share it equally.
    def rule(primals, tangents, **params):
        (x, idx, u), (x_dot, _, u_dot) = primals, tangents
        out = prim.bind(x, idx, u, **params)
        if isinstance(x_dot, Zero) and isinstance(u_dot, Zero):
            return [out], [Zero.like(out)]
        x_aval, u_aval = core.get_aval(x), core.get_aval(u)
        x_dot, u_dot = ad_helpers.instantiate(x_dot), ad_helpers.instantiate(u_dot)
        zeros_x = creation.full(x_aval.shape, 0, x_aval.dtype)
        zeros_u = creation.full(u_aval.shape, 0, u_aval.dtype)
        ones_u = creation.full(u_aval.shape, 1, u_aval.dtype)
        x_wins = comparison.eq(x, out)
        u_wins = comparison.eq(u, _gather_updates(out, idx, u_aval, params))
        add = lambda a, b, c: _rebind(scatter_add_p, a, b, c, params)  # noqa: E731
        t_sum = add(
            comparison.select_n(x_wins, zeros_x, x_dot),
            idx,
            comparison.select_n(u_wins, zeros_u, u_dot),
        )
        count = add(
            convert_element_type(x_wins, x_aval.dtype),
            idx,
            comparison.select_n(u_wins, zeros_u, ones_u),
        )
        return [out], [elementwise.div(t_sum, count)]

    return rule


core.jvp_rules.register(scatter_min_p, _scatter_extremal_jvp(scatter_min_p))
core.jvp_rules.register(scatter_max_p, _scatter_extremal_jvp(scatter_max_p))
# no transpose rules for scatter-mul's updates, scatter-min, scatter-max: not linear


def _scatter_vmap(prim: core.Primitive) -> core.VmapRule:
    # Every operand gets a leading batch dim, matched by the batching dimension numbers.
    def rule(axis_size, vals, dims, *, dimension_numbers, **params):
        x, idx, u = (shape.move_axis(v, d, 0, axis_size) for v, d in zip(vals, dims, strict=True))
        dn = dimension_numbers
        new_dn = ScatterDimensionNumbers(
            update_window_dims=_shifted(dn.update_window_dims),
            inserted_window_dims=_shifted(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=_shifted(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=(0, *_shifted(dn.operand_batching_dims)),
            scatter_indices_batching_dims=(0, *_shifted(dn.scatter_indices_batching_dims)),
        )
        return [prim.bind(x, idx, u, dimension_numbers=new_dn, **params)], [0]

    return rule


def _scatter_lowering(prim: core.Primitive) -> core.LoweringRule:
    def rule(
        ctx, x, idx, u, *, dimension_numbers, mode, unique_indices, indices_are_sorted, **params
    ):
        x_aval, idx_aval, u_aval = ctx.avals_in
        dn = dimension_numbers
        if mode == GatherScatterMode.CLIP:
            sizes = _scatter_window_sizes(x_aval.ndim, u_aval.shape, dn)
            idx = _clamp_indices(
                ctx, idx, idx_aval, dn.scatter_dims_to_operand_dims, x_aval.shape, sizes
            )
        attr = ctx.hlo.ScatterDimensionNumbers.get(
            update_window_dims=list(dn.update_window_dims),
            inserted_window_dims=list(dn.inserted_window_dims),
            input_batching_dims=list(dn.operand_batching_dims),
            scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
            scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
            index_vector_dim=idx_aval.ndim - 1,
        )
        op = ctx.hlo.ScatterOp(
            [ctx.tensor_type(ctx.avals_out[0])],
            [x],
            idx,
            [u],
            attr,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )
        scalar = ctx.tensor_type(ShapedArray((), x_aval.dtype))
        body = op.regions[0].blocks.append(scalar, scalar)
        with ctx.ir.InsertionPoint(body):
            old, new = body.arguments
            combine = _HLO_COMBINERS[prim]
            if combine is not None and x_aval.dtype == dtypes.bool_:
                combine = {"add": "or_", "multiply": "and_", "minimum": "and_", "maximum": "or_"}[
                    combine
                ]
            update_jaxpr = params.get("update_jaxpr")
            if combine is None and update_jaxpr is not None:  # scatter-apply: f(old)
                (out,) = ctx.lower_jaxpr(jaxpr.ClosedJaxpr(update_jaxpr, []), [old, new])
            else:
                out = new if combine is None else getattr(ctx.hlo, combine)(old, new)
            ctx.hlo.return_([out])
        return [op.results[0]]

    return rule


_HLO_COMBINERS = {
    scatter_p: None,
    scatter_add_p: "add",
    scatter_sub_p: "subtract",
    scatter_mul_p: "multiply",
    scatter_min_p: "minimum",
    scatter_max_p: "maximum",
}
for _prim in _UFUNCS:
    core.vmap_rules.register(_prim, _scatter_vmap(_prim))
    core.lowering_rules.register(_prim, _scatter_lowering(_prim))


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


@core.jvp_rules.register(dynamic_slice_p)
def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *starts = primals
    out = dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes)
    if isinstance(tangents[0], Zero):
        return [out], [Zero.like(out)]
    return [out], [dynamic_slice_p.bind(tangents[0], *starts, slice_sizes=slice_sizes)]


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


@core.jvp_rules.register(dynamic_update_slice_p)
def _dynamic_update_slice_jvp(primals, tangents):
    (x, u, *starts), (x_dot, u_dot, *_) = primals, tangents
    out = dynamic_update_slice_p.bind(x, u, *starts)
    if isinstance(x_dot, Zero) and isinstance(u_dot, Zero):
        return [out], [Zero.like(out)]
    return [out], [
        dynamic_update_slice_p.bind(
            ad_helpers.instantiate(x_dot), ad_helpers.instantiate(u_dot), *starts
        )
    ]


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

rev_p = core.Primitive("rev")


def rev(x: Any, dimensions: Sequence[int]) -> Any:
    """Reverse `x` along `dimensions`. Like `jax.lax.rev`."""
    return rev_p.bind(x, dimensions=_tuple_ints(dimensions))


def _rev_impl(x, *, dimensions):
    _rev_abstract_eval(ShapedArray(np.shape(x), x.dtype), dimensions=dimensions)
    return [np.flip(np.asarray(x), dimensions) if dimensions else np.asarray(x)]


core.impl_rules.register(rev_p, _rev_impl)


@core.abstract_eval_rules.register(rev_p)
def _rev_abstract_eval(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions) or any(not 0 <= d < x.ndim for d in dimensions):
        raise TypeError(f"rev: dimensions {dimensions} are not distinct axes of {x.str_short()}")
    return [x]


@core.jvp_rules.register(rev_p)
def _rev_jvp(primals, tangents, *, dimensions):
    (x,), (x_dot,) = primals, tangents
    out = rev(x, dimensions)
    return [out], [Zero.like(out) if isinstance(x_dot, Zero) else rev(x_dot, dimensions)]


@core.transpose_rules.register(rev_p)
def _rev_transpose(cts, x, *, dimensions):
    (ct,) = cts
    return [rev(ct, dimensions)]


@core.vmap_rules.register(rev_p)
def _rev_vmap(axis_size, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    x = shape.move_axis(x, d, 0, axis_size)
    return [rev(x, tuple(k + 1 for k in dimensions))], [0]


core.lowering_rules.register(rev_p, lambda ctx, x, *, dimensions: [ctx.hlo.reverse(x, dimensions)])


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
