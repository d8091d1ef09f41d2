"""The scatter family: scatter, scatter-add, scatter-sub, scatter-mul, scatter-min,
scatter-max (`scatter` with a function is `.at[].apply`), and gather's transpose.

Layer 2 (`didax.primitives.slicing`, after `gather`). Scatter drops out-of-bounds windows
(FILL_OR_DROP, PROMISE_IN_BOUNDS) or clamps them (CLIP), as XLA does. Gather's transpose rule
is a scatter-add, and scatter's own rules read windows with gather, so gather's transpose is
registered here rather than beside gather (a module cannot import its importer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, jaxpr
from didax.core import ShapedArray, UndefinedPrimal
from didax.primitives import (
    ad_helpers,
    comparison,
    creation,
    elementwise,
    shape,
)
from didax.primitives.convert import convert_element_type
from didax.primitives.slicing.gather import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    _clamp_indices,
    _index_aval_check,
    _shifted,
    _tuple_ints,
    _window_coords,
    _window_starts,
    gather,
    gather_p,
)

# ----------------------------------------------------------------------------- gather's transpose


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


core.jvp_rules.register(scatter_add_p, ad_helpers.linear_jvp(scatter_add_p, (0, 2)))


@core.transpose_rules.register(scatter_add_p)
def _scatter_add_transpose(cts, x, idx, u, **params):
    (ct,) = cts
    x_ct = ct if isinstance(x, UndefinedPrimal) else None
    u_ct = _gather_updates(ct, idx, u.aval, params) if isinstance(u, UndefinedPrimal) else None
    return [x_ct, None, u_ct]


core.jvp_rules.register(scatter_sub_p, ad_helpers.linear_jvp(scatter_sub_p, (0, 2)))


@core.transpose_rules.register(scatter_sub_p)
def _scatter_sub_transpose(cts, x, idx, u, **params):
    (ct,) = cts
    x_ct = ct if isinstance(x, UndefinedPrimal) else None
    u_ct = None
    if isinstance(u, UndefinedPrimal):
        u_ct = elementwise.neg(_gather_updates(ct, idx, u.aval, params))
    return [x_ct, None, u_ct]


_scatter_linear_jvp = ad_helpers.linear_jvp(scatter_p, (0, 2))


@core.jvp_rules.register(scatter_p)
def _scatter_jvp(primals, tangents, **params):
    # Linear in the operand and the updates. Duplicate indices: the same (last) update wins
    # in the primal and the tangent here, as in NumPy; XLA does not promise which one wins.
    if params["update_jaxpr"] is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    return _scatter_linear_jvp(primals, tangents, **params)


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


def _scatter_mul_updates_partial(u_dot, x, idx, u, out, **params):
    if not params["unique_indices"]:
        raise NotImplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True`"
        )
    # unique windows: d(x * u) = x * u_dot there
    zeros = creation.full(core.get_aval(x).shape, 0, core.get_aval(x).dtype)
    return elementwise.mul(x, _rebind(scatter_p, zeros, idx, u_dot, params))


core.jvp_rules.register(
    scatter_mul_p,
    elementwise.partials_jvp(
        scatter_mul_p,
        lambda x_dot, x, idx, u, out, **params: scatter_mul_p.bind(x_dot, idx, u, **params),
        None,  # integer indices
        _scatter_mul_updates_partial,
    ),
)


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
