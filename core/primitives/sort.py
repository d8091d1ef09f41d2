"""`sort`: a multi-operand sort along one dimension, ordered lexicographically by the first
`num_keys` operands; the others ride along. Like `jax.lax.sort` (`sort_p`). And `rev`, which
reverses dimensions (`jax.lax.rev`): descending sorts are a sort between two reversals.

Layer 2 (`didax.primitives`). NaNs sort last and -0.0 equals 0.0, as in NumPy and JAX. The jvp sorts the tangents
together with the keys, as a second `sort`; that sort is linear in its non-key operands, and
its transpose applies the inverse permutation by sorting the cotangent by the permutation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, UndefinedPrimal, Zero
from didax.primitives import common, shape

sort_p = core.Primitive("sort", multiple_results=True)


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    """Sort `operand` (an array, or a sequence of arrays of one shape sorted by the first
    `num_keys` of them) along `dimension`. Like `jax.lax.sort`."""
    if isinstance(operand, (list, tuple)):
        return tuple(sort_multi(operand, dimension, is_stable, num_keys))
    (out,) = sort_multi([operand], dimension, is_stable, num_keys)
    return out


def sort_multi(
    operands: Sequence[Any], dimension: int, is_stable: bool, num_keys: int
) -> list[Any]:
    ndim = core.get_aval(operands[0]).ndim
    if not -ndim <= dimension < max(ndim, 1):
        raise ValueError(f"sort: dimension {dimension} is out of bounds for rank {ndim}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys={num_keys} must be in [1, {len(operands)}]")
    return sort_p.bind(
        *operands, dimension=dimension % max(ndim, 1), is_stable=bool(is_stable), num_keys=num_keys
    )


def _sort_impl(*xs, dimension, is_stable, num_keys):
    xs = [np.asarray(x) for x in xs]
    keys = [_sort_key(k) for k in xs[:num_keys]]
    perm = np.lexsort(keys[::-1], axis=dimension)  # lexsort: last key is the primary one
    return [np.take_along_axis(x, perm, axis=dimension) for x in xs]


def _sort_key(x: np.ndarray) -> np.ndarray:
    return x + 0.0 if dtypes.is_float(x.dtype) else x  # -0.0 + 0.0 is 0.0: equal to 0.0


core.impl_rules.register(sort_p, _sort_impl)


@core.abstract_eval_rules.register(sort_p)
def _sort_abstract_eval(*avals, dimension, is_stable, num_keys):
    first = avals[0]
    if any(a.shape != first.shape for a in avals):
        shapes = ", ".join(a.str_short() for a in avals)
        raise TypeError(f"sort: operands must all have the same shape, got {shapes}")
    return [ShapedArray(a.shape, a.dtype, a.weak_type) for a in avals]


@core.jvp_rules.register(sort_p)
def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    outs = sort_p.bind(*primals, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    nonzero = [t for t in tangents if not isinstance(t, Zero)]
    moved = iter(
        sort_p.bind(
            *primals[:num_keys],
            *nonzero,
            dimension=dimension,
            is_stable=is_stable,
            num_keys=num_keys,
        )[num_keys:]
    )
    return outs, [t if isinstance(t, Zero) else next(moved) for t in tangents]


@core.transpose_rules.register(sort_p)
def _sort_transpose(cts, *xs, dimension, is_stable, num_keys):
    keys = xs[:num_keys]
    if any(isinstance(k, UndefinedPrimal) for k in keys):
        raise NotImplementedError("sort: transpose with respect to a sort key")
    aval = core.get_aval(keys[0])
    iota = shape.broadcasted_iota(dtypes.int32, aval.shape, dimension)
    perm = sort_p.bind(*keys, iota, dimension=dimension, is_stable=True, num_keys=num_keys)[
        -1
    ]  # out[i] = x[perm[i]] along `dimension`
    out = []
    for x, ct in zip(xs[num_keys:], cts[num_keys:], strict=True):
        if not isinstance(x, UndefinedPrimal):
            out.append(None)
        elif isinstance(ct, Zero):
            out.append(Zero(x.aval))
        else:  # x_ct[perm[i]] = ct[i]: sort ct by perm
            out.append(sort_p.bind(perm, ct, dimension=dimension, is_stable=True, num_keys=1)[1])
    return [None] * num_keys + out


@core.vmap_rules.register(sort_p)
def _sort_vmap(axis_size, vals, dims, *, dimension, is_stable, num_keys):
    moved = [shape.move_axis(x, d, 0, axis_size) for x, d in zip(vals, dims, strict=True)]
    outs = sort_p.bind(*moved, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return outs, [0] * len(outs)


@core.lowering_rules.register(sort_p)
def _sort_lowering(ctx, *xs, dimension, is_stable, num_keys):
    hlo = ctx.hlo
    avals = ctx.avals_in
    op = hlo.SortOp(
        [ctx.tensor_type(a) for a in ctx.avals_out],
        list(xs),
        dimension=dimension,
        is_stable=is_stable,
    )
    scalars = [ctx.tensor_type(ShapedArray((), a.dtype)) for a in avals for _ in (0, 1)]
    block = op.comparator.blocks.append(*scalars)
    with ctx.ir.InsertionPoint(block):
        args = block.arguments
        less = None
        for k in reversed(range(num_keys)):  # lexicographic: key k decides unless equal
            a, b, dtype = args[2 * k], args[2 * k + 1], avals[k].dtype
            lt_k, eq_k = _less(ctx, a, b, dtype), _equal(ctx, a, b, dtype)
            less = lt_k if less is None else hlo.or_(lt_k, hlo.and_(eq_k, less))
        hlo.return_([less])
    return list(op.results)


def _less(ctx: core.LoweringContext, a: Any, b: Any, dtype: np.dtype) -> Any:
    hlo = ctx.hlo
    lt = common.compare(ctx, a, b, "LT", dtype)
    if not dtypes.is_float(dtype):
        return lt
    a_nan, b_nan = _isnan(ctx, a, dtype), _isnan(ctx, b, dtype)
    return hlo.or_(lt, hlo.and_(b_nan, hlo.not_(a_nan)))  # NaN after every number


def _equal(ctx: core.LoweringContext, a: Any, b: Any, dtype: np.dtype) -> Any:
    hlo = ctx.hlo
    eq = common.compare(ctx, a, b, "EQ", dtype)
    if not dtypes.is_float(dtype):
        return eq
    return hlo.or_(eq, hlo.and_(_isnan(ctx, a, dtype), _isnan(ctx, b, dtype)))


def _isnan(ctx: core.LoweringContext, a: Any, dtype: np.dtype) -> Any:
    return common.compare(ctx, a, a, "NE", dtype)


# ----------------------------------------------------------------------------- rev

rev_p = core.Primitive("rev")


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """Reverse `operand` along `dimensions`. Like `jax.lax.rev`."""
    ndim = core.get_aval(operand).ndim
    dims = tuple(int(d) for d in dimensions)
    if any(not 0 <= d < ndim for d in dims) or len(set(dims)) != len(dims):
        raise ValueError(f"rev: dimensions {dims} are out of range or repeated for rank {ndim}")
    return rev_p.bind(operand, dimensions=dims)


core.impl_rules.register(rev_p, lambda x, *, dimensions: [np.flip(x, dimensions).copy()])
core.abstract_eval_rules.register(rev_p, common.same_aval)
core.jvp_rules.register(rev_p, common.linear_unary_jvp(rev))
core.transpose_rules.register(rev_p, common.linear_unary_transpose(rev))


@core.vmap_rules.register(rev_p)
def _rev_vmap(axis_size, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    return [rev(x, tuple(i + (i >= d) for i in dimensions))], [d]


core.lowering_rules.register(
    rev_p, lambda ctx, x, *, dimensions: [ctx.hlo.reverse(x, list(dimensions))]
)
