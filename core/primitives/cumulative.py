"""`cumsum`: the running sum along one axis (optionally from the end). Like `jax.lax.cumsum`.

Layer 2. It is linear: its jvp is the cumsum of the tangent and its transpose the cumsum in
the other direction (each input reaches every output at or after it). The lowering is the
Hillis-Steele prefix sum: log2(n) rounds of `x + (x shifted by 2^k)`, as `stablehlo.slice`,
`pad` and `add` (JAX lowers it through an associative scan on CPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray
from didax.primitives import common

cumsum_p = core.Primitive("cumsum")


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running sum along `axis` (from the end if `reverse`). Like `jax.lax.cumsum`."""
    ndim = core.get_aval(operand).ndim
    if not -ndim <= axis < max(ndim, 1) or ndim == 0:
        raise ValueError(f"cumsum: axis {axis} is out of bounds for array of rank {ndim}")
    return cumsum_p.bind(operand, axis=axis % ndim, reverse=bool(reverse))


def _cumsum_impl(x, *, axis, reverse):
    x = np.asarray(x)
    if reverse:
        return [np.flip(np.cumsum(np.flip(x, axis), axis, dtype=x.dtype), axis)]
    return [np.cumsum(x, axis, dtype=x.dtype)]


core.impl_rules.register(cumsum_p, common.validated_impl(cumsum_p, _cumsum_impl))


@core.abstract_eval_rules.register(cumsum_p)
def _cumsum_abstract_eval(x, *, axis, reverse):
    if x.dtype == dtypes.bool_:
        raise TypeError(f"cumsum does not accept dtype bool, got {x.str_short()}")
    return [ShapedArray(x.shape, x.dtype, x.weak_type)]


core.jvp_rules.register(
    cumsum_p, common.linear_unary_jvp(lambda t, **params: cumsum_p.bind(t, **params))
)


@core.transpose_rules.register(cumsum_p)
def _cumsum_transpose(cts, x, *, axis, reverse):
    (ct,) = cts  # y_i = sum_{j <= i} x_j, so ct_x_j = sum_{i >= j} ct_y_i
    return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


@core.vmap_rules.register(cumsum_p)
def _cumsum_vmap(axis_size, vals, dims, *, axis, reverse):
    (x,), (d,) = vals, dims
    return [cumsum_p.bind(x, axis=axis + (d <= axis), reverse=reverse)], [d]


@core.lowering_rules.register(cumsum_p)
def _cumsum_lowering(ctx, x, *, axis, reverse):
    hlo = ctx.hlo
    (aval,) = ctx.avals_in
    n, ndim = aval.shape[axis], aval.ndim
    zero = ctx.constant(0, aval.dtype)
    step = 1
    while step < n:  # x[i] += x[i - step] (or x[i + step] in reverse)
        start = [step if (reverse and d == axis) else 0 for d in range(ndim)]
        limit = [n - step if (not reverse and d == axis) else s for d, s in enumerate(aval.shape)]
        part = hlo.slice(x, start, limit, [1] * ndim)
        low = [step if (not reverse and d == axis) else 0 for d in range(ndim)]
        high = [step if (reverse and d == axis) else 0 for d in range(ndim)]
        x = hlo.add(x, hlo.pad(part, zero, low, high, [0] * ndim))
        step *= 2
    return [x]
