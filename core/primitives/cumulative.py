"""`cumsum` and `cumprod`: the running sum and product along one axis (optionally from the
end). Like `jax.lax.cumsum` and `jax.lax.cumprod`.

Layer 2. `cumsum` is linear: its jvp is the cumsum of the tangent and its transpose the
cumsum in the other direction (each input reaches every output at or after it). `cumprod`'s
jvp runs the same log-depth scan on (value, tangent) pairs with the product rule,
d(a b) = da b + a db, so zeros in the input need no division. Both lower to the
Hillis-Steele scan: log2(n) rounds of `x op (x shifted by 2^k)`, as `stablehlo.slice`, `pad`
and `add`/`multiply` (JAX lowers them through an associative scan on CPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, Zero
from didax.primitives import concatenation, creation, rules
from didax.primitives.elementwise import add, mul

cumsum_p = core.Primitive("cumsum")


def _bind_cumulative(prim: core.Primitive, operand: Any, axis: int, reverse: bool) -> Any:
    ndim = core.get_aval(operand).ndim
    if not -ndim <= axis < max(ndim, 1) or ndim == 0:
        raise ValueError(f"{prim.name}: axis {axis} is out of bounds for array of rank {ndim}")
    return prim.bind(operand, axis=axis % ndim, reverse=bool(reverse))


def _cumulative_impl(np_fn: Any) -> Any:
    """The impl rule running `np_fn` (np.cumsum, np.cumprod) along `axis`, in `x`'s dtype."""

    def impl(x, *, axis, reverse):
        x = np.asarray(x)
        if reverse:
            return [np.flip(np_fn(np.flip(x, axis), axis, dtype=x.dtype), axis)]
        return [np_fn(x, axis, dtype=x.dtype)]

    return impl


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running sum along `axis` (from the end if `reverse`). Like `jax.lax.cumsum`."""
    return _bind_cumulative(cumsum_p, operand, axis, reverse)


core.impl_rules.register(cumsum_p, rules.validated_impl(cumsum_p, _cumulative_impl(np.cumsum)))


def _cumulative_aval(name: str) -> core.AbstractEvalRule:
    def rule(x: ShapedArray, *, axis: int, reverse: bool) -> list[ShapedArray]:
        if x.dtype == dtypes.bool_:
            raise TypeError(f"{name} does not accept dtype bool, got {x.str_short()}")
        return [ShapedArray(x.shape, x.dtype, x.weak_type)]

    return rule


core.abstract_eval_rules.register(cumsum_p, _cumulative_aval("cumsum"))


core.jvp_rules.register(
    cumsum_p, rules.linear_unary_jvp(lambda t, **params: cumsum_p.bind(t, **params))
)


@core.transpose_rules.register(cumsum_p)
def _cumsum_transpose(cts, x, *, axis, reverse):
    (ct,) = cts  # y_i = sum_{j <= i} x_j, so ct_x_j = sum_{i >= j} ct_y_i
    return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


def _cumulative_vmap(prim: core.Primitive) -> core.VmapRule:
    def rule(axis_size, vals, dims, *, axis, reverse):
        (x,), (d,) = vals, dims  # the scanned axis moves past the batch axis
        return [prim.bind(x, axis=axis + (d <= axis), reverse=reverse)], [d]

    return rule


core.vmap_rules.register(cumsum_p, _cumulative_vmap(cumsum_p))


def _scan_lowering(op: str, identity: int) -> core.LoweringRule:
    def rule(ctx, x, *, axis, reverse):
        hlo = ctx.hlo
        (aval,) = ctx.avals_in
        n, ndim = aval.shape[axis], aval.ndim
        fill = ctx.constant(identity, aval.dtype)
        step = 1
        while step < n:  # x[i] op= x[i - step] (x[i + step] in reverse)
            part = hlo.slice(x, *_window(aval.shape, axis, step, reverse), [1] * ndim)
            low, high = _pads(ndim, axis, step, reverse)
            x = getattr(hlo, op)(x, hlo.pad(part, fill, low, high, [0] * ndim))
            step *= 2
        return [x]

    return rule


def _window(shp: tuple[int, ...], axis: int, step: int, reverse: bool) -> tuple[list, list]:
    # the part of the array that moves `step` places along `axis` (towards the end, or the
    # start in reverse)
    n = shp[axis]
    start = [step if (reverse and d == axis) else 0 for d in range(len(shp))]
    limit = [n - step if (not reverse and d == axis) else s for d, s in enumerate(shp)]
    return start, limit


def _pads(ndim: int, axis: int, step: int, reverse: bool) -> tuple[list, list]:
    low = [step if (not reverse and d == axis) else 0 for d in range(ndim)]
    high = [step if (reverse and d == axis) else 0 for d in range(ndim)]
    return low, high


core.lowering_rules.register(cumsum_p, _scan_lowering("add", 0))

# ----------------------------------------------------------------------------- cumprod

cumprod_p = core.Primitive("cumprod")


def cumprod(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running product along `axis` (from the end if `reverse`). Like `jax.lax.cumprod`."""
    return _bind_cumulative(cumprod_p, operand, axis, reverse)


core.impl_rules.register(cumprod_p, rules.validated_impl(cumprod_p, _cumulative_impl(np.cumprod)))
core.abstract_eval_rules.register(cumprod_p, _cumulative_aval("cumprod"))


def _shifted(x: Any, axis: int, step: int, reverse: bool, fill: Any) -> Any:
    aval = core.get_aval(x)
    part = concatenation.slice(x, *_window(aval.shape, axis, step, reverse))
    low, high = _pads(aval.ndim, axis, step, reverse)
    config = [(lo, hi, 0) for lo, hi in zip(low, high, strict=True)]
    return concatenation.pad(part, creation.full((), fill, aval.dtype), config)


@core.jvp_rules.register(cumprod_p)
def _cumprod_jvp(primals, tangents, *, axis, reverse):
    (x,), (t,) = primals, tangents
    out = cumprod_p.bind(x, axis=axis, reverse=reverse)
    if isinstance(t, Zero):
        return [out], [Zero.like(out)]
    n, step = core.get_aval(x).shape[axis], 1
    while step < n:  # the scan on (x, t): (a, da) * (b, db) = (a b, da b + a db)
        x_s, t_s = _shifted(x, axis, step, reverse, 1), _shifted(t, axis, step, reverse, 0)
        x, t = mul(x, x_s), add(mul(t, x_s), mul(x, t_s))
        step *= 2
    return [out], [t]


# no transpose rule: cumprod is not linear
core.vmap_rules.register(cumprod_p, _cumulative_vmap(cumprod_p))
core.lowering_rules.register(cumprod_p, _scan_lowering("multiply", 1))
