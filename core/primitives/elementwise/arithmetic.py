"""Elementwise arithmetic primitives: add, add_any, sub, neg, mul, div, rem, max, min, clamp,
sign, abs, floor, ceil, round; and the factories the elementwise family builds its primitives
and unary jvp rules with.

Layer 2 (`didax.primitives.elementwise`, first). Operands have equal shapes, or some are
scalars (rank 0), as JAX 0.10's lax allows (`mul b 3.0:f32[]`); dtypes must be equal. Each
op's jvp rule states its derivative; the linear ones (add, sub, neg, mul and div in one
operand, add_any) also have transpose rules. Complex operands: arithmetic and `abs` (whose
result is real) accept them as JAX's do; `floor`, `round`, `rem` refuse them; `max`/`min`
order them lexicographically.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, UndefinedPrimal, Zero
from didax.primitives import ad_helpers, rules, shape, vmap_helpers
from didax.primitives.comparison import and_p, eq, gt, lt, select_n
from didax.primitives.convert import _scalar_constant


def _unary_primitive(
    name: str, fn: Callable[..., Any], *, floats_only: bool = True, complex_ok: bool = False
) -> core.Primitive:
    prim = core.Primitive(name)
    aval = rules.float_aval(name, complex_ok) if floats_only else rules.same_aval
    core.impl_rules.register(prim, rules.elementwise_impl(fn, aval, floats_only))
    core.abstract_eval_rules.register(prim, aval)
    core.vmap_rules.register(prim, rules.vectorized_vmap(prim.bind))
    core.eager_rules.register(prim, rules.eager_unary(fn, floats_only))
    return prim


def _binary_primitive(
    name: str,
    fn: Callable[..., Any],
    allowed: str = "any",
    aval: core.AbstractEvalRule | None = None,
) -> core.Primitive:
    prim = core.Primitive(name)
    aval = aval or rules.naryop_aval(name, allowed)
    core.impl_rules.register(prim, rules.elementwise_impl(fn, aval, allowed == "float"))
    core.abstract_eval_rules.register(prim, aval)
    core.vmap_rules.register(prim, vmap_helpers.broadcasting_vmap(prim.bind))
    core.eager_rules.register(prim, rules.eager_binary(fn, allowed == "float"))
    return prim


def _const(value: float, like: Any) -> Any:
    """A scalar constant of `like`'s dtype (a literal when staged)."""
    aval = core.get_aval(like)
    return _scalar_constant(np.asarray(value, aval.dtype), aval.weak_type)


def _out_tangent(t: Any, out: Any) -> Any:
    return ad_helpers.fit_shape(t, core.get_aval(out))


# ----------------------------------------------------------------------------- add, add_any

add_p = _binary_primitive("add", np.add)
add_any_p = _binary_primitive("add_any", np.add)  # the sum of two tangents or cotangents


def add(x: Any, y: Any) -> Any:
    """Like `jax.lax.add`."""
    return add_p.bind(x, y)


def add_any(x: Any, y: Any) -> Any:
    return add_any_p.bind(x, y)


def add_tangents(a: Any, b: Any) -> Any:
    """The sum of two tangents, either of which may be a symbolic zero."""
    if isinstance(a, Zero):
        return b
    if isinstance(b, Zero):
        return a
    return add_any(a, b)


def partials_jvp(prim: core.Primitive, *partials: Callable[..., Any] | None) -> core.JvpRule:
    """The jvp rule of `prim` from one partial derivative per operand, as JAX's `defjvp`:
    `partial(t, *primals, out, **params)` is the output tangent due to that operand's tangent
    `t` alone (None: the operand has no tangent, like integer indices). Symbolic-zero
    tangents are skipped, the parts summed in operand order with `add_any`, and the sum
    broadcast to the output's shape (a tangent of a scalar operand)."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple:
        out = prim.bind(*primals, **params)
        t_out: Any = Zero.like(out)
        for partial, t in zip(partials, tangents, strict=True):
            if partial is not None and not isinstance(t, Zero):
                t_out = add_tangents(t_out, partial(t, *primals, out, **params))
        return [out], [_out_tangent(t_out, out)]

    return rule


def _add_partial(t: Any, x: Any, y: Any, out: Any) -> Any:
    return _out_tangent(t, out)


core.jvp_rules.register(add_p, partials_jvp(add_p, _add_partial, _add_partial))
core.jvp_rules.register(add_any_p, partials_jvp(add_any_p, _add_partial, _add_partial))


def _add_transpose(cts, x, y):
    (ct,) = cts
    return [
        ad_helpers.unbroadcast(ct, v.aval) if isinstance(v, UndefinedPrimal) else None
        for v in (x, y)
    ]


core.transpose_rules.register(add_p, _add_transpose)
core.transpose_rules.register(add_any_p, _add_transpose)
core.lowering_rules.register(add_p, rules.direct_lowering("add", bool_op="or_"))
core.lowering_rules.register(add_any_p, rules.direct_lowering("add", bool_op="or_"))

# ----------------------------------------------------------------------------- sub, neg

sub_p = _binary_primitive("sub", np.subtract)
neg_p = _unary_primitive("neg", np.negative, floats_only=False)


def sub(x: Any, y: Any) -> Any:
    """Like `jax.lax.sub`."""
    return sub_p.bind(x, y)


def neg(x: Any) -> Any:
    """Like `jax.lax.neg`."""
    return neg_p.bind(x)


core.jvp_rules.register(
    sub_p, partials_jvp(sub_p, _add_partial, lambda t, x, y, out: neg(_out_tangent(t, out)))
)


@core.transpose_rules.register(sub_p)
def _sub_transpose(cts, x, y):
    (ct,) = cts
    ct_x = ad_helpers.unbroadcast(ct, x.aval) if isinstance(x, UndefinedPrimal) else None
    ct_y = None
    if isinstance(y, UndefinedPrimal):
        ct_y = ad_helpers.unbroadcast(neg(ct), y.aval)
    return [ct_x, ct_y]


core.jvp_rules.register(neg_p, rules.linear_unary_jvp(neg_p.bind))
core.transpose_rules.register(neg_p, rules.linear_unary_transpose(neg_p.bind))
core.lowering_rules.register(sub_p, rules.direct_lowering("subtract"))
core.lowering_rules.register(neg_p, rules.direct_lowering("negate"))

# ----------------------------------------------------------------------------- mul, div

mul_p = _binary_primitive("mul", np.multiply)


def mul(x: Any, y: Any) -> Any:
    """Like `jax.lax.mul`."""
    return mul_p.bind(x, y)


core.jvp_rules.register(  # d(xy) = dx y + x dy
    mul_p, partials_jvp(mul_p, lambda t, x, y, out: mul(t, y), lambda t, x, y, out: mul(x, t))
)


@core.transpose_rules.register(mul_p)
def _mul_transpose(cts, x, y):
    (ct,) = cts
    if isinstance(x, UndefinedPrimal) and isinstance(y, UndefinedPrimal):
        raise ValueError("mul: cannot transpose a product of two linear operands")
    if isinstance(x, UndefinedPrimal):
        return [ad_helpers.unbroadcast(mul(ct, y), x.aval), None]
    return [None, ad_helpers.unbroadcast(mul(x, ct), y.aval)]


core.lowering_rules.register(mul_p, rules.direct_lowering("multiply", bool_op="and_"))


def _safe_divisor(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # XLA's integer division never traps: x / 0 and INT_MIN / -1 are defined (below); NumPy
    # divides by 1 in their place, and the results are then put right
    bad = y == 0
    if np.issubdtype(x.dtype, np.signedinteger):
        bad = bad | ((x == np.iinfo(x.dtype).min) & (y == -1))
    return np.where(bad, np.ones_like(y), y)


def _div_impl(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype != y.dtype:  # eager operands raise the TypeError staged ones raise
        core.abstract_eval_rules[div_p](
            ShapedArray(x.shape, x.dtype), ShapedArray(y.shape, y.dtype)
        )
    if dtypes.is_float(x.dtype):
        return [np.divide(x, y).astype(x.dtype)]
    ys = _safe_divisor(x, y)
    q = np.floor_divide(x, ys)
    q = q + ((np.remainder(x, ys) != 0) & ((x < 0) != (ys < 0))).astype(q.dtype)  # toward 0
    # as XLA: x / 0 is -1 (all bits set: the maximum of an unsigned type); INT_MIN / -1 is
    # INT_MIN, which dividing by 1 gave already
    q = np.where(y == 0, np.array(-1).astype(x.dtype), q)
    return [np.asarray(q, x.dtype)]


div_p = core.Primitive("div")
core.impl_rules.register(div_p, _div_impl)
core.abstract_eval_rules.register(div_p, rules.naryop_aval("div"))
core.vmap_rules.register(div_p, vmap_helpers.broadcasting_vmap(div_p.bind))


def div(x: Any, y: Any) -> Any:
    """Like `jax.lax.div` (integer division rounds toward zero)."""
    return div_p.bind(x, y)


core.jvp_rules.register(  # d(x/y) = dx / y - (x/y) dy / y
    div_p,
    partials_jvp(
        div_p, lambda t, x, y, out: div(t, y), lambda t, x, y, out: neg(mul(t, div(out, y)))
    ),
)


@core.transpose_rules.register(div_p)
def _div_transpose(cts, x, y):
    (ct,) = cts
    if isinstance(y, UndefinedPrimal):
        raise ValueError("div: cannot transpose with respect to the denominator")
    return [ad_helpers.unbroadcast(div(ct, y), x.aval), None]


core.lowering_rules.register(div_p, rules.direct_lowering("divide"))


# ----------------------------------------------------------------------------- rem


def _xla_fmod(x: Any, y: Any) -> np.ndarray:
    # C's fmod for floats (NumPy's and XLA's agree); for integers XLA defines x % 0 = x and
    # INT_MIN % -1 = 0 (where NumPy gives 0 and warns)
    x, y = np.asarray(x), np.asarray(y)
    if dtypes.is_float(x.dtype) or x.dtype == np.bool_:
        return np.fmod(x, y)
    r = np.fmod(x, _safe_divisor(x, y))
    return np.where(y == 0, x, r)


rem_p = core.Primitive("rem")
core.impl_rules.register(rem_p, rules.elementwise_impl(_xla_fmod))
core.abstract_eval_rules.register(rem_p, rules.naryop_aval("rem", "real"))
core.vmap_rules.register(rem_p, vmap_helpers.broadcasting_vmap(rem_p.bind))


def rem(x: Any, y: Any) -> Any:
    """C-style remainder (sign of `x`). Like `jax.lax.rem`."""
    return rem_p.bind(x, y)


# rem(x, y) = x - y * trunc(x / y): d = dx - dy * trunc(x / y)
core.jvp_rules.register(
    rem_p,
    partials_jvp(
        rem_p, _add_partial, lambda t, x, y, out: neg(mul(t, round_toward_zero(div(x, y))))
    ),
)


def round_toward_zero(x: Any) -> Any:
    return mul(sign(x), floor(abs(x)))


core.lowering_rules.register(rem_p, rules.direct_lowering("remainder"))


# ----------------------------------------------------------------------------- max, min


def _balanced_eq(x: Any, z: Any, y: Any) -> Any:
    # 1 where x alone attains the extremum z, 0.5 where x and y tie, 0 elsewhere (as JAX)
    one, half, zero = _const(1.0, z), _const(0.5, z), _const(0.0, z)
    z_shape = core.get_aval(z).shape
    pick = select_n(eq(y, z), _full(one, z_shape), _full(half, z_shape))
    return select_n(eq(x, z), _full(zero, z_shape), pick)


def _full(value: Any, shp: tuple[int, ...]) -> Any:
    return shape.broadcast_in_dim(value, shp, ()) if shp else value


def _extremum(name: str, fn: Callable[..., Any]) -> core.Primitive:
    prim = _binary_primitive(name, fn)

    core.jvp_rules.register(
        prim,
        partials_jvp(
            prim,
            lambda t, x, y, out: mul(t, _balanced_eq(x, out, y)),
            lambda t, x, y, out: mul(t, _balanced_eq(y, out, x)),
        ),
    )

    return prim


def _xla_maximum(x: Any, y: Any) -> Any:
    # XLA orders -0.0 below +0.0 (NumPy returns the first operand of equal ones):
    # max(-0, 0) = 0 = -0 + 0, and max(-0, -0) = -0 = -0 + -0
    out = np.maximum(x, y)
    if dtypes.kind(out.dtype) == 2:
        zeros = (x == 0) & (y == 0)
        if zeros.any():
            out = np.where(zeros, np.add(x, y, dtype=out.dtype), out)
    return out


def _xla_minimum(x: Any, y: Any) -> Any:
    # min(-0, 0) = -0 = -(-(-0) + -0); min(0, 0) = 0
    out = np.minimum(x, y)
    if dtypes.kind(out.dtype) == 2:
        zeros = (x == 0) & (y == 0)
        if zeros.any():
            out = np.where(zeros, -np.add(-x, -y, dtype=out.dtype), out)
    return out


max_p = _extremum("max", _xla_maximum)
min_p = _extremum("min", _xla_minimum)


def max(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """Elementwise maximum. Like `jax.lax.max`."""
    return max_p.bind(x, y)


def min(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """Elementwise minimum. Like `jax.lax.min`."""
    return min_p.bind(x, y)


def _extremum_lowering(op: str, bool_op: str, direction: str) -> core.LoweringRule:
    real_rule = rules.direct_lowering(op, bool_op=bool_op)

    def rule(ctx, x, y):
        dtype = ctx.avals_in[0].dtype
        if not dtypes.is_complex(dtype):
            return real_rule(ctx, x, y)
        # complex: lexicographic on (real, imag), as JAX (XLA's maximum takes no complex)
        hlo, part = ctx.hlo, dtypes.real_of(dtype)
        x, y = rules.broadcast_operands(ctx, (x, y))
        rx, ry, ix, iy = hlo.real(x), hlo.real(y), hlo.imag(x), hlo.imag(y)
        pick_x = hlo.select(
            rules.compare(ctx, rx, ry, "EQ", part),
            rules.compare(ctx, ix, iy, direction, part),
            rules.compare(ctx, rx, ry, direction, part),
        )
        return [hlo.select(pick_x, x, y)]

    return rule


core.lowering_rules.register(max_p, _extremum_lowering("maximum", "or_", "GT"))
core.lowering_rules.register(min_p, _extremum_lowering("minimum", "and_", "LT"))


# ----------------------------------------------------------------------------- clamp

clamp_p = core.Primitive("clamp")


def clamp(lo: Any, x: Any, hi: Any) -> Any:
    """`min(max(x, lo), hi)`. Like `jax.lax.clamp`."""
    return clamp_p.bind(lo, x, hi)


core.impl_rules.register(
    clamp_p, rules.validated_impl(clamp_p, lambda lo, x, hi: [np.asarray(np.clip(x, lo, hi))])
)


@core.abstract_eval_rules.register(clamp_p)
def _clamp_abstract_eval(lo, x, hi):
    if lo.dtype != x.dtype or hi.dtype != x.dtype:
        raise TypeError(
            "clamp requires arguments to have the same dtypes, got "
            f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}."
        )
    for bound in (lo, hi):
        if bound.shape and bound.shape != x.shape:
            raise TypeError(
                f"clamp: bounds must be scalars or have the operand's shape "
                f"{x.shape}, got {bound.shape}"
            )
    return [ShapedArray(x.shape, x.dtype, x.weak_type)]


def _where_else_zero(which: Any, t: Any, out: Any) -> Any:
    # the tangent `t` (of a bound: broadcast) where `which`, 0 elsewhere
    zeros = _full(_const(0.0, out), core.get_aval(out).shape)
    return select_n(which, zeros, ad_helpers.fit_shape(t, core.get_aval(out)))


# the tangent of x inside the bounds, that of a bound where x passes it
core.jvp_rules.register(
    clamp_p,
    partials_jvp(
        clamp_p,
        lambda t, lo, x, hi, out: _where_else_zero(lt(x, lo), t, out),
        lambda t, lo, x, hi, out: _where_else_zero(and_p.bind(gt(x, lo), lt(x, hi)), t, out),
        lambda t, lo, x, hi, out: _where_else_zero(gt(x, hi), t, out),
    ),
)


core.vmap_rules.register(clamp_p, vmap_helpers.front_broadcasting_vmap(clamp_p.bind))
# StableHLO's clamp takes rank-0 bounds as they are
core.lowering_rules.register(clamp_p, lambda ctx, lo, x, hi: [ctx.hlo.clamp(lo, x, hi)])

# ----------------------------------------------------------------------------- sign


def _xla_sign(x: Any) -> Any:
    # XLA keeps the zero it is given: sign(-0.0) is -0.0 (NumPy's is 0.0)
    out = np.sign(x)
    if dtypes.kind(out.dtype) == 2:
        out = np.where(x == 0, x, out)[()]
    return out


sign_p = _unary_primitive("sign", _xla_sign, floats_only=False)


def sign(x: Any) -> Any:
    """Like `jax.lax.sign`."""
    return sign_p.bind(x)


core.jvp_rules.register(sign_p, rules.zero_jvp(sign_p))


@core.lowering_rules.register(sign_p)
def _sign_lowering(ctx, x):
    aval = ctx.avals_in[0]
    if aval.dtype == dtypes.bool_:
        return [x]
    if aval.dtype.kind == "u":  # StableHLO's sign wants signed operands: sign is x != 0
        nonzero = rules.compare(ctx, x, rules.broadcast_constant(ctx, 0, aval), "NE", aval.dtype)
        return [ctx.hlo.convert(ctx.tensor_type(aval), nonzero)]
    return [ctx.hlo.sign(x)]


# ----------------------------------------------------------------------------- floor

floor_p = _unary_primitive("floor", np.floor)


def floor(x: Any) -> Any:
    """Like `jax.lax.floor`."""
    return floor_p.bind(x)


core.jvp_rules.register(floor_p, rules.zero_jvp(floor_p))


core.lowering_rules.register(floor_p, rules.direct_lowering("floor"))

ceil_p = _unary_primitive("ceil", np.ceil)


def ceil(x: Any) -> Any:
    """Like `jax.lax.ceil`."""
    return ceil_p.bind(x)


core.jvp_rules.register(ceil_p, rules.zero_jvp(ceil_p))
# no transpose rule: piecewise constant (ZERO_DERIVATIVE in tests/lax/test_rule_coverage.py)
core.lowering_rules.register(ceil_p, rules.direct_lowering("ceil"))

round_p = core.Primitive("round")


def round(x: Any, rounding_method: int = 0) -> Any:  # noqa: A001 - JAX's name
    """Round to the nearest integer: halves away from zero (`rounding_method=0`) or to even
    (1). Like `jax.lax.round`."""
    return round_p.bind(x, rounding_method=int(rounding_method))


def _round_impl(x, *, rounding_method):
    if rounding_method == 1:
        return [np.asarray(np.round(x)).astype(x.dtype)]
    # half away from zero, as XLA: exact (floor(|x| + 0.5) rounds 0.49999997 up in float32)
    # and keeping the sign of zeros (round(-0.0) and round(-0.4) are -0.0)
    a = np.abs(x)
    whole = np.floor(a)
    out = np.copysign(whole + (a - whole >= 0.5), x)
    return [np.asarray(out).astype(x.dtype)]


core.impl_rules.register(round_p, rules.validated_impl(round_p, _round_impl))
core.abstract_eval_rules.register(round_p, rules.float_aval("round"))
core.vmap_rules.register(round_p, rules.vectorized_vmap(round_p.bind))


core.jvp_rules.register(round_p, rules.zero_jvp(round_p))


core.lowering_rules.register(
    round_p,
    lambda ctx, x, *, rounding_method: [
        ctx.hlo.round_nearest_even(x) if rounding_method == 1 else ctx.hlo.round_nearest_afz(x)
    ],
)
