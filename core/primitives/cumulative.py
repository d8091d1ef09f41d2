"""`cumsum`, `cumprod`, `cummax`, `cummin` and `cumlogsumexp`: the running sum, product,
maximum, minimum and log-sum-exp along one axis (optionally from the end). Like
`jax.lax.cumsum` and its siblings.

Layer 2. `cumsum` is linear: its jvp is the cumsum of the tangent and its transpose the
cumsum in the other direction (each input reaches every output at or after it). `cumprod`'s
jvp runs the same log-depth scan on (value, tangent) pairs with the product rule,
d(a b) = da b + a db, so zeros in the input need no division. Both lower to the
Hillis-Steele scan: log2(n) rounds of `x op (x shifted by 2^k)`, as `stablehlo.slice`, `pad`
and `add`/`multiply` (JAX lowers them through an associative scan on CPU).
`cummax`, `cummin` and `cumlogsumexp` scan the same way with `max`, `min` and
`logaddexp`; their jvp runs the pair scan with each combine's own derivative (a tie of `max`
shares the tangent half and half, as `lax.max`'s jvp does), where JAX differentiates its
`associative_scan`: the same values, another jaxpr.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray
from didax.primitives import concatenation, creation, elementwise, rules
from didax.primitives.comparison import eq, ne, select_n
from didax.primitives.elementwise import add, exp, log1p, mul, neg, sub
from didax.primitives.elementwise.arithmetic import _balanced_eq

cumsum_p = core.Primitive("cumsum")


def _bind_cumulative(prim: core.Primitive, operand: Any, axis: int, reverse: bool) -> Any:
    shape = core.get_aval(operand).shape
    if axis < 0:  # as JAX's lax (jnp.cumsum normalises its axis first)
        raise ValueError("XLA operations do not allow negative axes")
    if axis >= len(shape):
        raise ValueError(f"axis {axis} is out of bounds for array of shape {shape}")
    return prim.bind(operand, axis=int(axis), reverse=bool(reverse))


def _cumulative_impl(np_fn: Any) -> Any:
    """The impl rule running `np_fn` (np.cumsum, np.cumprod, np.maximum.accumulate, ...)
    along `axis`, in `x`'s dtype."""

    def impl(x, *, axis, reverse):
        x = np.asarray(x)
        if reverse:
            return [np.flip(np_fn(np.flip(x, axis), axis, dtype=x.dtype), axis)]
        return [np_fn(x, axis, dtype=x.dtype)]

    return impl


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running sum along `axis` (from the end if `reverse`). Like `jax.lax.cumsum`."""
    return _bind_cumulative(cumsum_p, operand, axis, reverse)


def _scan_of(np_fn: Any) -> Any:
    # The lowering's scan combines every entry with the padding (+0.0 for add, -inf for
    # logaddexp), so a zero result is +0.0 in XLA, where NumPy's running sum keeps -0.0
    def fn(x, axis, dtype):
        return np.add(np_fn(x, axis, dtype=dtype), 0, dtype=dtype)

    return fn


core.impl_rules.register(
    cumsum_p, rules.validated_impl(cumsum_p, _cumulative_impl(_scan_of(np.cumsum)))
)


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


def _scan_lowering(combine: Any, identity: Any) -> core.LoweringRule:
    # combine: an stablehlo op name ("add") or a function (ctx, a, b) -> value;
    # identity: the fill value, or a function of the dtype giving it
    def rule(ctx, x, *, axis, reverse):
        hlo = ctx.hlo
        (aval,) = ctx.avals_in
        n, ndim = aval.shape[axis], aval.ndim
        fill = ctx.constant(identity(aval.dtype) if callable(identity) else identity, aval.dtype)
        step = 1
        while step < n:  # x[i] op= x[i - step] (x[i + step] in reverse)
            part = hlo.slice(x, *_window(aval.shape, axis, step, reverse), [1] * ndim)
            low, high = _pads(ndim, axis, step, reverse)
            shifted = hlo.pad(part, fill, low, high, [0] * ndim)
            x = (
                getattr(hlo, combine)(x, shifted)
                if isinstance(combine, str)
                else combine(ctx, x, shifted)
            )
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


def _pair_scan_jvp(prim: core.Primitive, combine: Any, identity: Any) -> core.JvpRule:
    # The jvp of a running `combine`: the same log-depth scan on (value, tangent) pairs, each
    # step combining an entry with the one 2^k places before it by the combine's derivative
    def rule(primals, tangents, *, axis, reverse):
        (x,), (t,) = primals, tangents
        out = prim.bind(x, axis=axis, reverse=reverse)  # (t is never a Zero: one operand)
        fill = identity(core.get_aval(x).dtype) if callable(identity) else identity
        n, step = core.get_aval(x).shape[axis], 1
        while step < n:
            x_s, t_s = _shifted(x, axis, step, reverse, fill), _shifted(t, axis, step, reverse, 0)
            x, t = combine(x, t, x_s, t_s)
            step *= 2
        return [out], [t]

    return rule


def _mul_pair(a, da, b, db):
    return mul(a, b), add(mul(da, b), mul(a, db))  # d(a b) = da b + a db


core.jvp_rules.register(cumprod_p, _pair_scan_jvp(cumprod_p, _mul_pair, 1))


# no transpose rule: cumprod is not linear
core.vmap_rules.register(cumprod_p, _cumulative_vmap(cumprod_p))
core.lowering_rules.register(cumprod_p, _scan_lowering("multiply", 1))

# ----------------------------------------------------------------------------- cummax, cummin


def _lowest(dtype: Any) -> Any:
    return -np.inf if dtypes.is_float(dtype) else np.iinfo(dtype).min


def _highest(dtype: Any) -> Any:
    return np.inf if dtypes.is_float(dtype) else np.iinfo(dtype).max


cummax_p = core.Primitive("cummax")


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running maximum along `axis` (from the end if `reverse`). Like `jax.lax.cummax`."""
    return _bind_cumulative(cummax_p, operand, axis, reverse)


core.impl_rules.register(
    cummax_p, rules.validated_impl(cummax_p, _cumulative_impl(np.maximum.accumulate))
)
core.abstract_eval_rules.register(cummax_p, _cumulative_aval("cummax"))


def _extremum_pair(extremum: Any) -> Any:
    def combine(a, da, b, db):
        out = extremum(a, b)  # a tie shares the tangent, as lax.max's jvp
        return out, add(mul(da, _balanced_eq(a, out, b)), mul(db, _balanced_eq(b, out, a)))

    return combine


core.jvp_rules.register(
    cummax_p, _pair_scan_jvp(cummax_p, _extremum_pair(elementwise.max), _lowest)
)
# no transpose rule: cummax is not linear
core.vmap_rules.register(cummax_p, _cumulative_vmap(cummax_p))
core.lowering_rules.register(cummax_p, _scan_lowering("maximum", _lowest))

cummin_p = core.Primitive("cummin")


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running minimum along `axis` (from the end if `reverse`). Like `jax.lax.cummin`."""
    return _bind_cumulative(cummin_p, operand, axis, reverse)


core.impl_rules.register(
    cummin_p, rules.validated_impl(cummin_p, _cumulative_impl(np.minimum.accumulate))
)
core.abstract_eval_rules.register(cummin_p, _cumulative_aval("cummin"))
core.jvp_rules.register(
    cummin_p, _pair_scan_jvp(cummin_p, _extremum_pair(elementwise.min), _highest)
)
# no transpose rule: cummin is not linear
core.vmap_rules.register(cummin_p, _cumulative_vmap(cummin_p))
core.lowering_rules.register(cummin_p, _scan_lowering("minimum", _highest))

# ----------------------------------------------------------------------------- cumlogsumexp

cumlogsumexp_p = core.Primitive("cumlogsumexp")


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running log(sum(exp(x))) along `axis` (from the end if `reverse`). Like
    `jax.lax.cumlogsumexp`."""
    return _bind_cumulative(cumlogsumexp_p, operand, axis, reverse)


core.impl_rules.register(
    cumlogsumexp_p,
    rules.validated_impl(cumlogsumexp_p, _cumulative_impl(_scan_of(np.logaddexp.accumulate))),
)
core.abstract_eval_rules.register(cumlogsumexp_p, _cumulative_aval("cumlogsumexp"))


def _finite_or_zero(x: Any) -> Any:
    # +inf replaced by 0, so that exp(a - out) is exp(0) = 1 when both are +inf (as JAX)
    inf = creation.full(core.get_aval(x).shape, np.inf, core.get_aval(x).dtype)
    return select_n(eq(x, inf), x, creation.full(core.get_aval(x).shape, 0, core.get_aval(x).dtype))


def _logaddexp(a: Any, b: Any) -> Any:
    # max + log1p(exp(-|a - b|)); a + b where a - b is NaN (both infinite with one sign)
    diff = sub(a, b)
    return select_n(
        ne(diff, diff),
        add(elementwise.max(a, b), log1p(exp(neg(elementwise.abs(diff))))),
        add(a, b),
    )


def _logaddexp_pair(a, da, b, db):
    out = _logaddexp(a, b)  # d out = da exp(a - out) + db exp(b - out)
    o = _finite_or_zero(out)
    weight_a, weight_b = exp(sub(_finite_or_zero(a), o)), exp(sub(_finite_or_zero(b), o))
    return out, add(mul(da, weight_a), mul(db, weight_b))


core.jvp_rules.register(cumlogsumexp_p, _pair_scan_jvp(cumlogsumexp_p, _logaddexp_pair, -np.inf))
# no transpose rule: cumlogsumexp is not linear
core.vmap_rules.register(cumlogsumexp_p, _cumulative_vmap(cumlogsumexp_p))


def _logaddexp_lowering(ctx, a, b):
    hlo, dtype = ctx.hlo, ctx.avals_in[0].dtype
    diff = hlo.subtract(a, b)
    tail = hlo.log_plus_one(hlo.exponential(hlo.negate(hlo.abs(diff))))
    is_nan = rules.compare(ctx, diff, diff, "NE", dtype)
    return hlo.select(is_nan, hlo.add(a, b), hlo.add(hlo.maximum(a, b), tail))


core.lowering_rules.register(cumlogsumexp_p, _scan_lowering(_logaddexp_lowering, -np.inf))
