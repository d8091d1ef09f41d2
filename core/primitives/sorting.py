"""`sort`: JAX's multi-operand sort along one dimension, ordered lexicographically by its
first `num_keys` operands, the rest carried along (`lax.sort_key_val` is its two-operand form).

Layer 2. `random.permutation` and `random.choice` shuffle by sorting random keys, as JAX's do.
The NumPy impl is a stable lexicographic argsort applied to every operand; the lowering is
one `stablehlo.sort` whose comparator compares the keys in order (a total order on floats:
-NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN, as JAX's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, UndefinedPrimal, Zero
from didax.primitives import creation, rules, shape

sort_p = core.Primitive("sort", multiple_results=True)


def sort(
    operand: Any | Sequence[Any], dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> Any:
    """Sort `operand` (or several operands, by their first `num_keys`) along `dimension`.
    Like `jax.lax.sort`."""
    single = not isinstance(operand, (tuple, list))
    operands = [operand] if single else list(operand)
    ndim = core.get_aval(operands[0]).ndim
    dimension = dimension + ndim if dimension < 0 else dimension
    if not 0 <= dimension < max(ndim, 1):
        raise ValueError(f"sort: dimension {dimension} out of range for rank {ndim}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys={num_keys} must be between 1 and {len(operands)}")
    outs = sort_p.bind(*operands, dimension=dimension, is_stable=bool(is_stable), num_keys=num_keys)
    return outs[0] if single else tuple(outs)


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> tuple:
    """`values` sorted along `dimension` by `keys`. Like `jax.lax.sort_key_val`."""
    return sort((keys, values), dimension, is_stable, num_keys=1)


def sort_order_key(x: np.ndarray) -> np.ndarray:
    # floats: -0.0 before 0.0 and NaNs at the ends, as XLA's total order puts them
    if not dtypes.is_float(x.dtype):
        return x
    f = x.astype(np.float32) if x.dtype.itemsize < 4 else x
    signed = f.view(np.int32 if f.dtype.itemsize == 4 else np.int64)
    return np.where(signed < 0, ~signed ^ np.iinfo(signed.dtype).min, signed)


def _real_keys(x: np.ndarray) -> list[np.ndarray]:
    # complex keys order lexicographically on (real, imag), as XLA's comparator does
    if dtypes.is_complex(x.dtype):
        return [sort_order_key(np.real(x)), sort_order_key(np.imag(x))]
    return [sort_order_key(x)]


def _sort_impl(*operands, dimension, is_stable, num_keys):
    ops = [np.asarray(x) for x in operands]
    keys = [np.moveaxis(k, dimension, -1) for x in ops[:num_keys] for k in _real_keys(x)]
    flat = [k.reshape(-1, k.shape[-1]) if k.ndim else k.reshape(1, 1) for k in keys]
    order = np.stack(
        [np.lexsort(tuple(k[i] for k in reversed(flat))) for i in range(flat[0].shape[0])]
    )
    order = order.reshape(keys[0].shape)
    return [
        np.moveaxis(np.take_along_axis(np.moveaxis(x, dimension, -1), order, -1), -1, dimension)
        if x.ndim
        else x
        for x in ops
    ]


core.impl_rules.register(sort_p, rules.validated_impl(sort_p, _sort_impl))


@core.abstract_eval_rules.register(sort_p)
def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    first = operands[0]
    if any(x.shape != first.shape for x in operands):
        raise TypeError(
            "sort: operands must have the same shape, got "
            + ", ".join(x.str_short() for x in operands)
        )
    return [ShapedArray(x.shape, x.dtype, x.weak_type) for x in operands]


@core.jvp_rules.register(sort_p)
def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    # each tangent is carried by a sort on the primal keys: linear in the tangent
    params = dict(dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    outs = sort_p.bind(*primals, **params)
    keys = primals[:num_keys]
    tangents_out = [
        Zero.like(o) if isinstance(t, Zero) else sort_p.bind(*keys, t, **params)[-1]
        for o, t in zip(outs, tangents, strict=True)
    ]
    return list(outs), tangents_out


@core.transpose_rules.register(sort_p)
def _sort_transpose(cts, *operands, dimension, is_stable, num_keys):
    # linear in the carried operands: undo the permutation, by sorting the cotangent on the
    # sorted positions (the permutation itself, from a sorted iota)
    keys = operands[:num_keys]
    if any(isinstance(k, UndefinedPrimal) for k in keys):
        raise ValueError("sort: cannot transpose with respect to the sort keys")
    params = dict(dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    aval = core.get_aval(keys[0])
    iota = creation.broadcasted_iota(dtypes.int32, aval.shape, dimension)
    perm = sort_p.bind(*keys, iota, **params)[-1]
    out: list[Any] = [None] * num_keys
    for x, ct in zip(operands[num_keys:], cts[num_keys:], strict=True):
        if not isinstance(x, UndefinedPrimal):
            out.append(None)
        elif isinstance(ct, Zero):
            out.append(Zero(x.aval))
        else:
            out.append(sort_p.bind(perm, ct, dimension=dimension, is_stable=True, num_keys=1)[1])
    return out


@core.vmap_rules.register(sort_p)
def _sort_vmap(axis_size, vals, dims, *, dimension, is_stable, num_keys):
    moved = [shape.move_axis(x, d, 0, axis_size) for x, d in zip(vals, dims, strict=True)]
    outs = sort_p.bind(*moved, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return list(outs), [0] * len(outs)


@core.lowering_rules.register(sort_p)
def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
    hlo, ir = ctx.hlo, ctx.ir
    types = [ctx.tensor_type(a) for a in ctx.avals_out]
    i64 = ir.IntegerType.get_signless(64)
    op = hlo.SortOp(
        types,
        list(operands),
        dimension=ir.IntegerAttr.get(i64, dimension),
        is_stable=ir.BoolAttr.get(is_stable),
    )
    scalars = [ctx.tensor_type(ShapedArray((), a.dtype)) for a in ctx.avals_in]
    block = op.comparator.blocks.append(*[t for t in scalars for _ in range(2)])
    with ir.InsertionPoint(block):
        args = block.arguments
        result = None
        for i in reversed(range(num_keys)):  # lexicographic: key 0 decides first
            x, y, dtype = args[2 * i], args[2 * i + 1], ctx.avals_in[i].dtype
            less = total_order_compare(ctx, x, y, "LT", dtype)
            if result is None:
                result = less
            else:
                equal = total_order_compare(ctx, x, y, "EQ", dtype)
                result = hlo.or_(less, hlo.and_(equal, result))
        hlo.return_([result])
    return list(op.results)


def total_order_compare(
    ctx: core.LoweringContext, x: Any, y: Any, direction: str, dtype: np.dtype
) -> Any:
    if not dtypes.is_float(dtype):
        return rules.compare(ctx, x, y, direction, dtype)
    hlo = ctx.hlo
    if dtypes.is_complex(dtype):  # lexicographic on (real, imag)
        part = dtypes.real_of(dtype)
        rx, ry, ix, iy = hlo.real(x), hlo.real(y), hlo.imag(x), hlo.imag(y)
        on_imag = total_order_compare(ctx, ix, iy, direction, part)
        if direction == "EQ":
            return hlo.and_(total_order_compare(ctx, rx, ry, "EQ", part), on_imag)
        return hlo.or_(
            total_order_compare(ctx, rx, ry, direction, part),
            hlo.and_(total_order_compare(ctx, rx, ry, "EQ", part), on_imag),
        )
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get("TOTALORDER"),
    )
