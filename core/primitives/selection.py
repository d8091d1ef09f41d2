"""`top_k`: the k largest entries along an axis and their indices. Like `jax.lax.top_k`.

Layer 2, after `slicing` (its jvp gathers the tangent at the chosen indices, as JAX's does).
The order is XLA's: descending in the total order on floats (NaN above inf, -NaN below
-inf, 0.0 above -0.0), ties by the lower index. The NumPy impl is a stable argsort of the
sort keys `sorting.py` uses; the lowering is a stable `stablehlo.sort` of (x, iota) in that
order, then the first k (JAX emits `chlo.top_k`, which XLA expands alike).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, Zero
from didax.primitives import rules, shape
from didax.primitives.slicing import GatherDimensionNumbers, GatherScatterMode, gather
from didax.primitives.sorting import sort_order_key, total_order_compare

top_k_p = core.Primitive("top_k", multiple_results=True)


def top_k(operand: Any, k: int, *, axis: int = -1) -> list[Any]:
    """The `k` largest entries along `axis` (descending) and their int32 indices. Like
    `jax.lax.top_k`."""
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    ndim = core.get_aval(operand).ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis argument out of range: axis={axis} for an array of rank {ndim}")
    values, indices = top_k_p.bind(operand, k=int(k), axis=axis % ndim)
    return [values, indices]  # a list, as JAX's


def _top_k_impl(x, *, k, axis):
    x = np.asarray(x)
    if dtypes.is_complex(x.dtype):
        raise TypeError("top_k does not accept complex operands")
    key = sort_order_key(x.astype(np.int8) if x.dtype == np.bool_ else x).astype(np.int64)
    order = np.argsort(-key, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, idx, axis=axis), idx.astype(np.int32)]


core.impl_rules.register(top_k_p, rules.validated_impl(top_k_p, _top_k_impl))


@core.abstract_eval_rules.register(top_k_p)
def _top_k_abstract_eval(x, *, k, axis):
    if x.ndim == 0:
        raise TypeError("top_k operand must have >= 1 dimension, got ()")
    if k > x.shape[axis]:
        raise ValueError(
            "k argument to top_k must be no larger than size along axis; got "
            f"k={k} with shape={list(x.shape)} and axis={axis}"
        )
    out = (*x.shape[:axis], k, *x.shape[axis + 1 :])
    return [ShapedArray(out, x.dtype), ShapedArray(out, dtypes.int32)]


@core.jvp_rules.register(top_k_p)
def _top_k_jvp(primals, tangents, *, k, axis):
    (x,), (t,) = primals, tangents
    values, indices = top_k_p.bind(x, k=k, axis=axis)
    # (t is no symbolic zero: the jvp tracer runs no rule whose tangents all are) the tangent at the chosen indices: a gather batched over the other axes
    aval = core.get_aval(indices)
    idx = shape.reshape(indices, (*aval.shape, 1))
    others = tuple(i for i in range(aval.ndim) if i != axis)
    dnums = GatherDimensionNumbers(
        offset_dims=(),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
        operand_batching_dims=others,
        start_indices_batching_dims=others,
    )
    slice_sizes = (1,) * aval.ndim
    t_out = gather(t, idx, dnums, slice_sizes, mode=GatherScatterMode.PROMISE_IN_BOUNDS)
    return [values, indices], [t_out, Zero.like(indices)]


# no transpose rule: top_k is not linear


@core.vmap_rules.register(top_k_p)
def _top_k_vmap(axis_size, vals, dims, *, k, axis):
    x = shape.move_axis(vals[0], dims[0], 0, axis_size)
    return list(top_k_p.bind(x, k=k, axis=axis + 1)), [0, 0]


@core.lowering_rules.register(top_k_p)
def _top_k_lowering(ctx, x, *, k, axis):
    hlo, ir = ctx.hlo, ctx.ir
    (x_aval,) = ctx.avals_in
    i64 = ir.IntegerType.get_signless(64)
    idx_aval = x_aval.update(dtype=dtypes.int32)
    iota = hlo.iota(ctx.tensor_type(idx_aval), ir.IntegerAttr.get(i64, axis))
    op = hlo.SortOp(
        [ctx.tensor_type(x_aval), ctx.tensor_type(idx_aval)],
        [x, iota],
        dimension=ir.IntegerAttr.get(i64, axis),
        is_stable=ir.BoolAttr.get(True),
    )
    scalar_x = ctx.tensor_type(ShapedArray((), x_aval.dtype))
    scalar_i = ctx.tensor_type(ShapedArray((), dtypes.int32))
    block = op.comparator.blocks.append(scalar_x, scalar_x, scalar_i, scalar_i)
    with ir.InsertionPoint(block):
        a, b = block.arguments[0], block.arguments[1]
        hlo.return_([total_order_compare(ctx, a, b, "GT", x_aval.dtype)])
    limit = list(x_aval.shape)
    limit[axis] = k
    start, strides = [0] * x_aval.ndim, [1] * x_aval.ndim
    return [hlo.slice(r, start, limit, strides) for r in op.results]
