"""Elementwise arithmetic and transcendental primitives.

Layer 2. Operands have equal shapes, or some are scalars (rank 0), as JAX 0.10's lax allows
(`mul b 3.0:f32[]`); dtypes must be equal. Each op's jvp rule states its derivative; the
linear ones (add, sub, neg, mul and div in one operand, add_any) also have transpose rules.
Tangents may be symbolic zeros (`core.Zero`): rules skip the work for them.

Complex operands: the transcendental ops, arithmetic and `abs` (whose result is real) accept
them as JAX's do, and their jvp rules are the complex derivatives (C-linear in the tangent);
`floor`, `round`, `rem` refuse them; `max`/`min` order them lexicographically. The last
section holds `real`, `imag`, `conj` and `complex`, which move between real and complex.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, UndefinedPrimal, Zero
from didax.primitives import ad_helpers, rules, shape, vmap_helpers
from didax.primitives.comparison import and_p, eq, ge, gt, lt, select_n
from didax.primitives.convert import _scalar_constant, convert_element_type


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


def _unary_jvp(prim: core.Primitive, tangent: Callable[..., Any]) -> core.JvpRule:
    """The jvp rule of a unary primitive from its derivative: `tangent(t, x, out, **params)`
    is the output tangent for the input tangent `t` (never a `Zero`: the jvp interpreter
    does not run rules whose tangents are all zero)."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple:
        (x,), (t,) = primals, tangents
        out = prim.bind(x, **params)
        return [out], [tangent(t, x, out, **params)]

    return rule


def _const(value: float, like: Any) -> Any:
    """A scalar constant of `like`'s dtype (a literal when staged)."""
    aval = core.get_aval(like)
    return _scalar_constant(np.asarray(value, aval.dtype), aval.weak_type)


def _mul_tangent(t: Any, factor: Any) -> Any:
    return t if isinstance(t, Zero) else mul(t, factor)


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


@core.jvp_rules.register(add_p)
def _add_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = add(x, y)
    return [out], [add_tangents(_out_tangent(x_dot, out), _out_tangent(y_dot, out))]


@core.jvp_rules.register(add_any_p)
def _add_any_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = add_any(x, y)
    return [out], [add_tangents(_out_tangent(x_dot, out), _out_tangent(y_dot, out))]


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


@core.jvp_rules.register(sub_p)
def _sub_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = sub(x, y)
    y_part = _out_tangent(y_dot, out)
    neg_y = y_part if isinstance(y_part, Zero) else neg(y_part)
    return [out], [add_tangents(_out_tangent(x_dot, out), neg_y)]


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


@core.jvp_rules.register(mul_p)
def _mul_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = mul(x, y)  # d(xy) = dx y + x dy
    t = add_tangents(_mul_tangent(x_dot, y), y_dot if isinstance(y_dot, Zero) else mul(x, y_dot))
    return [out], [_out_tangent(t, out)]


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


@core.jvp_rules.register(div_p)
def _div_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = div(x, y)  # d(x/y) = dx / y - (x/y) dy / y
    x_part = x_dot if isinstance(x_dot, Zero) else div(x_dot, y)
    y_part = y_dot if isinstance(y_dot, Zero) else neg(mul(y_dot, div(out, y)))
    return [out], [_out_tangent(add_tangents(x_part, y_part), out)]


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


@core.jvp_rules.register(rem_p)
def _rem_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = rem(x, y)  # x - y * trunc(x / y): d = dx - dy * trunc(x / y)
    y_part = y_dot if isinstance(y_dot, Zero) else neg(mul(y_dot, round_toward_zero(div(x, y))))
    return [out], [add_tangents(_out_tangent(x_dot, out), _out_tangent(y_part, out))]


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

    @core.jvp_rules.register(prim)
    def _jvp(primals, tangents):
        (x, y), (x_dot, y_dot) = primals, tangents
        out = prim.bind(x, y)
        x_part = _mul_tangent(x_dot, _balanced_eq(x, out, y))
        y_part = _mul_tangent(y_dot, _balanced_eq(y, out, x))
        return [out], [_out_tangent(add_tangents(x_part, y_part), out)]

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
            out = np.where(zeros, np.negative(np.add(np.negative(x), np.negative(y))), out)
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


@core.jvp_rules.register(clamp_p)
def _clamp_jvp(primals, tangents):
    (lo, x, hi), (lo_dot, x_dot, hi_dot) = primals, tangents
    out = clamp(lo, x, hi)
    zero = _const(0.0, out)
    out_shape = core.get_aval(out).shape
    t = Zero.like(out)
    if not isinstance(x_dot, Zero):
        inside = and_p.bind(gt(x, lo), lt(x, hi))
        t = select_n(inside, _full(zero, out_shape), x_dot)
    for bound_dot, bound, test in ((lo_dot, lo, lt), (hi_dot, hi, gt)):
        if not isinstance(bound_dot, Zero):
            hit = test(x, bound)
            t = add_tangents(
                t,
                select_n(
                    hit, _full(zero, out_shape), ad_helpers.fit_shape(bound_dot, core.get_aval(out))
                ),
            )
    return [out], [t]


core.vmap_rules.register(clamp_p, vmap_helpers.front_broadcasting_vmap(clamp_p.bind))
# StableHLO's clamp takes rank-0 bounds as they are
core.lowering_rules.register(clamp_p, lambda ctx, lo, x, hi: [ctx.hlo.clamp(lo, x, hi)])

# ----------------------------------------------------------------------------- sign, abs


def _xla_sign(x: Any) -> Any:
    # XLA keeps the zero it is given: sign(-0.0) is -0.0 (NumPy's is 0.0)
    out = np.sign(x)
    if dtypes.kind(out.dtype) == 2:
        out = np.where(x == 0, x, out)[()]
    return out


sign_p = _unary_primitive("sign", _xla_sign, floats_only=False)
abs_p = core.Primitive("abs")  # |x|: of complex x, a real (float32 of complex64)


def _abs_abstract_eval(x: ShapedArray) -> list[ShapedArray]:
    return [x.update(dtype=dtypes.real_of(x.dtype))]


def _abs_impl(x: Any) -> list:
    out = np.abs(x)  # NumPy's abs of complex64 is float32 already
    return [out if out.dtype == dtypes.real_of(x.dtype) else out.astype(dtypes.real_of(x.dtype))]


core.impl_rules.register(abs_p, _abs_impl)
core.abstract_eval_rules.register(abs_p, _abs_abstract_eval)
core.vmap_rules.register(abs_p, rules.vectorized_vmap(abs_p.bind))
core.eager_rules.register(abs_p, rules.eager_unary(np.abs, floats_only=False))


def sign(x: Any) -> Any:
    """Like `jax.lax.sign`."""
    return sign_p.bind(x)


def abs(x: Any) -> Any:  # noqa: A001 - JAX's name
    """Like `jax.lax.abs`."""
    return abs_p.bind(x)


@core.jvp_rules.register(sign_p)
def _sign_jvp(primals, tangents):
    out = sign(primals[0])
    return [out], [Zero.like(out)]


@core.jvp_rules.register(abs_p)
def _abs_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    out = abs(x)
    if not dtypes.is_complex(core.get_aval(x).dtype):
        # d|x| = dx for x >= 0 (at 0 too, as JAX's), -dx below
        return [out], [select_n(ge(x, _const(0.0, x)), neg(x_dot), x_dot)]
    # complex x: d|x| = Re(conj(x) dx) / |x|, with |x| taken as 1 where x == 0 (as JAX)
    x_conj = conj(x)
    out_c = convert_element_type(out, core.get_aval(x).dtype, core.get_aval(out).weak_type)
    zero = _full(_const(0.0, out_c), core.get_aval(out_c).shape)
    one = _full(_const(1.0, out_c), core.get_aval(out_c).shape)
    safe = select_n(eq(out_c, zero), out_c, one)
    return [out], [real(mul(x_dot, div(x_conj, safe)))]


@core.lowering_rules.register(sign_p)
def _sign_lowering(ctx, x):
    aval = ctx.avals_in[0]
    if aval.dtype == dtypes.bool_:
        return [x]
    if aval.dtype.kind == "u":  # StableHLO's sign wants signed operands: sign is x != 0
        nonzero = rules.compare(ctx, x, rules.broadcast_constant(ctx, 0, aval), "NE", aval.dtype)
        return [ctx.hlo.convert(ctx.tensor_type(aval), nonzero)]
    return [ctx.hlo.sign(x)]


@core.lowering_rules.register(abs_p)
def _abs_lowering(ctx, x):
    dtype = ctx.avals_in[0].dtype
    return [x] if dtype == dtypes.bool_ or dtype.kind == "u" else [ctx.hlo.abs(x)]


# ----------------------------------------------------------------------------- floor

floor_p = _unary_primitive("floor", np.floor)


def floor(x: Any) -> Any:
    """Like `jax.lax.floor`."""
    return floor_p.bind(x)


core.jvp_rules.register(floor_p, _unary_jvp(floor_p, lambda t, x, out: Zero.like(out)))


core.lowering_rules.register(floor_p, rules.direct_lowering("floor"))

ceil_p = _unary_primitive("ceil", np.ceil)


def ceil(x: Any) -> Any:
    """Like `jax.lax.ceil`."""
    return ceil_p.bind(x)


core.jvp_rules.register(ceil_p, _unary_jvp(ceil_p, lambda t, x, out: Zero.like(out)))
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


core.jvp_rules.register(round_p, _unary_jvp(round_p, lambda t, x, out, **_: Zero.like(out)))


core.lowering_rules.register(
    round_p,
    lambda ctx, x, *, rounding_method: [
        ctx.hlo.round_nearest_even(x) if rounding_method == 1 else ctx.hlo.round_nearest_afz(x)
    ],
)


# ----------------------------------------------------------------------------- transcendental

sin_p = _unary_primitive("sin", np.sin, complex_ok=True)
cos_p = _unary_primitive("cos", np.cos, complex_ok=True)
tan_p = _unary_primitive("tan", np.tan, complex_ok=True)
tanh_p = _unary_primitive("tanh", np.tanh, complex_ok=True)
exp_p = _unary_primitive("exp", np.exp, complex_ok=True)
log_p = _unary_primitive("log", np.log, complex_ok=True)
log1p_p = _unary_primitive("log1p", np.log1p, complex_ok=True)
expm1_p = _unary_primitive("expm1", np.expm1, complex_ok=True)
sqrt_p = _unary_primitive("sqrt", np.sqrt, complex_ok=True)
logistic_p = _unary_primitive("logistic", lambda x: 1 / (1 + np.exp(-x)), complex_ok=True)


def sin(x: Any) -> Any:
    """Elementwise sine. Like `jax.lax.sin`."""
    return sin_p.bind(x)


def cos(x: Any) -> Any:
    """Like `jax.lax.cos`."""
    return cos_p.bind(x)


def tan(x: Any) -> Any:
    """Like `jax.lax.tan`."""
    return tan_p.bind(x)


def tanh(x: Any) -> Any:
    """Like `jax.lax.tanh`."""
    return tanh_p.bind(x)


def exp(x: Any) -> Any:
    """Like `jax.lax.exp`."""
    return exp_p.bind(x)


def log(x: Any) -> Any:
    """Like `jax.lax.log`."""
    return log_p.bind(x)


def log1p(x: Any) -> Any:
    """Like `jax.lax.log1p`."""
    return log1p_p.bind(x)


def expm1(x: Any) -> Any:
    """Like `jax.lax.expm1`."""
    return expm1_p.bind(x)


def sqrt(x: Any) -> Any:
    """Like `jax.lax.sqrt`."""
    return sqrt_p.bind(x)


def logistic(x: Any) -> Any:
    """`1 / (1 + exp(-x))`. Like `jax.lax.logistic`."""
    return logistic_p.bind(x)


# Each jvp is `d out = t * f'(x)`, written with the primal `x` and the output `out` (computed
# first, as JAX's jaxprs show it).
core.jvp_rules.register(sin_p, _unary_jvp(sin_p, lambda t, x, out: mul(t, cos(x))))
core.jvp_rules.register(cos_p, _unary_jvp(cos_p, lambda t, x, out: neg(mul(t, sin(x)))))
core.jvp_rules.register(  # 1 + tan^2
    tan_p, _unary_jvp(tan_p, lambda t, x, out: mul(t, add(_const(1.0, out), integer_pow(out, 2))))
)
core.jvp_rules.register(  # 1 - tanh^2
    tanh_p,
    _unary_jvp(tanh_p, lambda t, x, out: mul(t, sub(_const(1.0, out), integer_pow(out, 2)))),
)
core.jvp_rules.register(exp_p, _unary_jvp(exp_p, lambda t, x, out: mul(t, out)))
core.jvp_rules.register(log_p, _unary_jvp(log_p, lambda t, x, out: div(t, x)))
core.jvp_rules.register(  # dx / (1 + x)
    log1p_p, _unary_jvp(log1p_p, lambda t, x, out: div(t, add(x, _const(1.0, x))))
)
core.jvp_rules.register(  # e^x dx
    expm1_p, _unary_jvp(expm1_p, lambda t, x, out: mul(t, add(out, _const(1.0, out))))
)
core.jvp_rules.register(  # dx / (2 sqrt x)
    sqrt_p, _unary_jvp(sqrt_p, lambda t, x, out: mul(t, div(_const(0.5, out), out)))
)
core.jvp_rules.register(  # s' = s (1 - s)
    logistic_p,
    _unary_jvp(logistic_p, lambda t, x, out: mul(t, mul(out, sub(_const(1.0, out), out)))),
)


core.lowering_rules.register(sin_p, rules.direct_lowering("sine"))
core.lowering_rules.register(cos_p, rules.direct_lowering("cosine"))
core.lowering_rules.register(tan_p, rules.direct_lowering("tan"))
core.lowering_rules.register(tanh_p, rules.direct_lowering("tanh"))
core.lowering_rules.register(exp_p, rules.direct_lowering("exponential"))
core.lowering_rules.register(log_p, rules.direct_lowering("log"))
core.lowering_rules.register(log1p_p, rules.direct_lowering("log_plus_one"))
core.lowering_rules.register(expm1_p, rules.direct_lowering("exponential_minus_one"))
core.lowering_rules.register(sqrt_p, rules.direct_lowering("sqrt"))
core.lowering_rules.register(logistic_p, rules.direct_lowering("logistic"))


# ----------------------------------------------------------------------------- atan2

atan2_p = _binary_primitive("atan2", np.arctan2, "float")


def atan2(x: Any, y: Any) -> Any:
    """The angle of the point (y, x): `arctan(x / y)` in the right quadrant. Like
    `jax.lax.atan2`."""
    return atan2_p.bind(x, y)


@core.jvp_rules.register(atan2_p)
def _atan2_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = atan2(x, y)  # d atan2(x, y) = (y dx - x dy) / (x^2 + y^2)
    denom = add(integer_pow(x, 2), integer_pow(y, 2))
    x_part = x_dot if isinstance(x_dot, Zero) else mul(x_dot, div(y, denom))
    y_part = y_dot if isinstance(y_dot, Zero) else mul(y_dot, div(neg(x), denom))
    return [out], [_out_tangent(add_tangents(x_part, y_part), out)]


core.lowering_rules.register(atan2_p, rules.direct_lowering("atan2"))


# ----------------------------------------------------------------------------- pow


def _pow_abstract_eval(x, y):
    if not dtypes.is_float(x.dtype):
        raise TypeError(f"pow does not accept dtype {x.dtype.name}")
    if y.dtype != x.dtype and not dtypes.is_int(y.dtype):  # as JAX 0.10: an int exponent is ok
        raise TypeError(
            f"pow requires arguments to have the same dtypes, or an integer "
            f"exponent, got {x.dtype.name}, {y.dtype.name}."
        )
    shape = rules.broadcast_shapes("pow", x, y)
    return [ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)]


def _xla_power(x: Any, y: Any) -> Any:
    # an integer exponent is converted to the base's dtype first, as the lowering does:
    # (-1.0) ** 2147483647 is 1.0 (the exponent rounds to 2**31), as under jit and in JAX
    if getattr(y, "dtype", np.dtype(np.float32)).kind in "iu":
        y = np.asarray(y).astype(np.asarray(x).dtype)
    out = np.power(x, y)
    # NumPy computes x ** 0.5 as sqrt(x); XLA as C's pow: (-0.0) ** 0.5 = 0.0, (-inf) ** 0.5
    # = inf
    half = y == 0.5
    if np.any(half) and dtypes.is_real_float(out.dtype):
        fixed = np.where(x == 0, np.zeros_like(out), np.where(np.isneginf(x), -x, out))
        out = np.where(half, fixed, out)[()]
    return out


pow_p = _binary_primitive("pow", _xla_power, "float", _pow_abstract_eval)


def pow(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """`x ** y` for floating `x`; `y` of `x`'s dtype or an integer. Like `jax.lax.pow`."""
    return pow_p.bind(x, y)


@core.lowering_rules.register(pow_p)
def _pow_lowering(ctx, x, y):
    x, y = rules.broadcast_operands(ctx, (x, y))
    if ctx.avals_in[1].dtype != ctx.avals_in[0].dtype:  # an integer exponent: converted
        y = ctx.hlo.convert(ctx.tensor_type(ctx.avals_out[0]), y)
    return [ctx.hlo.power(x, y)]


@core.jvp_rules.register(pow_p)
def _pow_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = pow(x, y)
    x_part = x_dot  # d/dx x^y = y x^(y-1)
    if not isinstance(x_dot, Zero) and core.get_aval(y).dtype != core.get_aval(x).dtype:
        # an integer exponent: y x^(y-1) in x's dtype, and 0 where y == 0 (as JAX)
        dtype = core.get_aval(x).dtype
        yf = convert_element_type(y, dtype, False)
        zero = _full(_const(0.0, x), core.get_aval(out).shape)
        x_part = mul(
            x_dot, select_n(eq(yf, _const(0.0, x)), mul(yf, pow(x, sub(yf, _const(1.0, x)))), zero)
        )
        y_dot = Zero(core.get_aval(y))  # integers have no tangent
    elif not isinstance(x_dot, Zero):
        x_part = mul(x_dot, mul(y, pow(x, sub(y, _const(1.0, y)))))
    y_part = y_dot  # d/dy x^y = log(x) x^y, taken as 0 where x == 0
    if not isinstance(y_dot, Zero):
        zero = _const(0.0, x)
        x_shape = core.get_aval(x).shape
        safe_log = select_n(eq(x, zero), log(x), _full(zero, x_shape))
        y_part = mul(y_dot, mul(safe_log, out))
    return [out], [_out_tangent(add_tangents(x_part, y_part), out)]


integer_pow_p = core.Primitive("integer_pow")


def integer_pow(x: Any, y: int) -> Any:
    """`x ** y` for a static integer `y`. Like `jax.lax.integer_pow`."""
    return integer_pow_p.bind(x, y=int(y))


def _integer_pow_impl(x, *, y):
    x = np.asarray(x)
    if y < 0 and not dtypes.is_float(x.dtype):
        raise ValueError("integer_pow: negative powers of integers")
    return [np.asarray(np.power(x, y) if y >= 0 else 1 / np.power(x, -y)).astype(x.dtype)]


core.impl_rules.register(integer_pow_p, _integer_pow_impl)
core.abstract_eval_rules.register(integer_pow_p, rules.same_aval)


@core.jvp_rules.register(integer_pow_p)
def _integer_pow_jvp(primals, tangents, *, y):
    (x,), (x_dot,) = primals, tangents
    out = integer_pow(x, y)
    if y == 0:
        return [out], [Zero.like(out)]
    factor = _const(float(y), x) if y != 1 else None  # d x^y = y x^(y-1) dx
    if factor is None:
        return [out], [x_dot]
    deriv = mul(factor, x if y == 2 else integer_pow(x, y - 1))
    return [out], [mul(x_dot, deriv)]


core.vmap_rules.register(integer_pow_p, rules.vectorized_vmap(integer_pow))


@core.lowering_rules.register(integer_pow_p)
def _integer_pow_lowering(ctx, x, *, y):
    aval = ctx.avals_in[0]
    if y == 0:
        return [rules.broadcast_constant(ctx, 1, aval)]
    out, power, n = None, x, builtins.abs(y)
    while n:  # by squaring: x^13 = x^8 x^4 x
        if n & 1:
            out = power if out is None else ctx.hlo.multiply(out, power)
        n >>= 1
        if n:
            power = ctx.hlo.multiply(power, power)
    if y < 0:
        out = ctx.hlo.divide(rules.broadcast_constant(ctx, 1, aval), out)
    return [out]


# ----------------------------------------------------------------------------- complex parts
# `real`, `imag`, `conj` and `complex` are linear over the reals. Their transposes are the
# plain (not conjugated) ones, as JAX's: `real`'s is `complex(ct, 0)`, `imag`'s
# `complex(0, -ct)`, so that `grad` of a real function of complex `z` is JAX's answer.

real_p = core.Primitive("real")
imag_p = core.Primitive("imag")
conj_p = core.Primitive("conj")
complex_p = core.Primitive("complex")


def real(x: Any) -> Any:
    """The real part of complex `x`. Like `jax.lax.real`."""
    return real_p.bind(x)


def imag(x: Any) -> Any:
    """The imaginary part of complex `x`. Like `jax.lax.imag`."""
    return imag_p.bind(x)


def conj(x: Any) -> Any:
    """The complex conjugate (of a real `x`: `x` as complex). Like `jax.lax.conj`."""
    return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)


def complex(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """`x + i y` from two real arrays of one dtype. Like `jax.lax.complex`."""
    return complex_p.bind(x, y)


def _part_abstract_eval(name: str) -> core.AbstractEvalRule:
    def rule(x: ShapedArray) -> list[ShapedArray]:
        if not dtypes.is_complex(x.dtype):
            raise TypeError(
                f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes "
                "of complexfloating."
            )
        return [x.update(dtype=dtypes.real_of(x.dtype))]

    return rule


def _conj_abstract_eval(x: ShapedArray, *, input_dtype: np.dtype) -> list[ShapedArray]:
    if not dtypes.is_float(x.dtype):
        raise TypeError(
            f"conj does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes of "
            "floating, complexfloating."
        )
    return [x.update(dtype=dtypes.complex_of(x.dtype))]


def _complex_abstract_eval(x: ShapedArray, y: ShapedArray) -> list[ShapedArray]:
    for a in (x, y):
        if a.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(
                f"complex does not accept dtype {a.dtype.name}. Accepted dtypes are float32, "
                "float64."
            )
    (out,) = rules.naryop_aval("complex")(x, y)
    return [out.update(dtype=dtypes.complex_of(out.dtype))]


def _complex_impl(x: Any, y: Any) -> list:
    x, y = np.asarray(x), np.asarray(y)
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), dtypes.complex_of(x.dtype))
    out.real, out.imag = x, y  # not x + 1j * y, which turns (inf, 0) into (inf, nan)
    return [out]


core.impl_rules.register(real_p, rules.validated_impl(real_p, lambda x: [np.real(x)]))
core.impl_rules.register(imag_p, rules.validated_impl(imag_p, lambda x: [np.imag(x)]))
core.impl_rules.register(
    conj_p,
    rules.validated_impl(
        conj_p, lambda x, *, input_dtype: [np.conj(np.asarray(x, dtypes.complex_of(x.dtype)))]
    ),
)
core.impl_rules.register(complex_p, rules.validated_impl(complex_p, _complex_impl))
core.abstract_eval_rules.register(real_p, _part_abstract_eval("real"))
core.abstract_eval_rules.register(imag_p, _part_abstract_eval("imag"))
core.abstract_eval_rules.register(conj_p, _conj_abstract_eval)
core.abstract_eval_rules.register(complex_p, _complex_abstract_eval)

core.jvp_rules.register(real_p, rules.linear_unary_jvp(real_p.bind))
core.jvp_rules.register(imag_p, rules.linear_unary_jvp(imag_p.bind))
core.jvp_rules.register(conj_p, rules.linear_unary_jvp(conj_p.bind))


@core.jvp_rules.register(complex_p)
def _complex_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = complex(x, y)
    return [out], [complex(ad_helpers.instantiate(x_dot), ad_helpers.instantiate(y_dot))]


def _zero_scalar(like: Any) -> Any:
    return _scalar_constant(np.zeros((), core.get_aval(like).dtype), False)


@core.transpose_rules.register(real_p)
def _real_transpose(cts, x):
    (ct,) = cts
    return [complex(ct, _zero_scalar(ct))]


@core.transpose_rules.register(imag_p)
def _imag_transpose(cts, x):
    (ct,) = cts
    return [complex(_zero_scalar(ct), neg(ct))]


@core.transpose_rules.register(conj_p)
def _conj_transpose(cts, x, *, input_dtype):
    (ct,) = cts
    return [conj(ct) if dtypes.is_complex(input_dtype) else real(ct)]


@core.transpose_rules.register(complex_p)
def _complex_transpose(cts, x, y):
    (ct,) = cts
    ct_x = ad_helpers.unbroadcast(real(ct), x.aval) if isinstance(x, UndefinedPrimal) else None
    ct_y = ad_helpers.unbroadcast(imag(neg(ct)), y.aval) if isinstance(y, UndefinedPrimal) else None
    return [ct_x, ct_y]


core.vmap_rules.register(real_p, rules.vectorized_vmap(real_p.bind))
core.vmap_rules.register(imag_p, rules.vectorized_vmap(imag_p.bind))
core.vmap_rules.register(conj_p, rules.vectorized_vmap(conj_p.bind))
core.vmap_rules.register(complex_p, vmap_helpers.broadcasting_vmap(complex_p.bind))
core.lowering_rules.register(real_p, rules.direct_lowering("real"))
core.lowering_rules.register(imag_p, rules.direct_lowering("imag"))
core.lowering_rules.register(complex_p, rules.direct_lowering("complex"))


@core.lowering_rules.register(conj_p)
def _conj_lowering(ctx, x, *, input_dtype):
    if not dtypes.is_complex(input_dtype):  # a real x: x + 0i
        zero = rules.broadcast_constant(ctx, 0, ctx.avals_in[0])
        return [ctx.hlo.complex(x, zero)]
    return [ctx.hlo.complex(ctx.hlo.real(x), ctx.hlo.negate(ctx.hlo.imag(x)))]


# ----------------------------------------------------------------------------- cbrt, exp2

cbrt_p = _unary_primitive("cbrt", np.cbrt)
exp2_p = _unary_primitive("exp2", np.exp2)


def cbrt(x: Any) -> Any:
    """The real cube root. Like `jax.lax.cbrt`."""
    return cbrt_p.bind(x)


def exp2(x: Any) -> Any:
    """2 ** x. Like `jax.lax.exp2`."""
    return exp2_p.bind(x)


core.jvp_rules.register(  # d cbrt(x) = dx / (3 cbrt(x)^2)
    cbrt_p,
    _unary_jvp(cbrt_p, lambda t, x, out: mul(t, mul(_const(1 / 3, out), integer_pow(out, -2)))),
)
core.jvp_rules.register(  # d 2^x = log(2) 2^x dx
    exp2_p, _unary_jvp(exp2_p, lambda t, x, out: mul(log(_const(2.0, out)), mul(t, out)))
)
# no transpose rules: not linear (NONLINEAR in tests/lax/test_rule_coverage.py)
core.lowering_rules.register(cbrt_p, rules.direct_lowering("cbrt"))


@core.lowering_rules.register(exp2_p)
def _exp2_lowering(ctx, x):
    # 2^x = exp(x log 2), as JAX lowers it
    (aval,) = ctx.avals_in
    log2 = ctx.hlo.broadcast_in_dim(
        ctx.tensor_type(aval), ctx.constant(np.log(2.0), aval.dtype), []
    )
    return [ctx.hlo.exponential(ctx.hlo.multiply(log2, x))]
