"""Transcendental elementwise primitives: sin, cos, tan, tanh, exp, log, log1p, expm1, sqrt,
logistic, atan2, pow, integer_pow, cbrt, exp2, square, rsqrt.

Layer 2 (`didax.primitives.elementwise`, last; its jvp rules are written with `arithmetic`'s
primitives). Each jvp is `d out = t * f'(x)`, written with the primal `x` and the output
`out` (computed first, as JAX's jaxprs show it). Complex operands: the ops JAX takes complex
accept them, and their jvp rules are the complex derivatives (C-linear in the tangent).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, Zero
from didax.primitives import rules
from didax.primitives.comparison import eq, select_n
from didax.primitives.convert import convert_element_type
from didax.primitives.elementwise.arithmetic import (
    _binary_primitive,
    _const,
    _full,
    _unary_primitive,
    add,
    div,
    mul,
    neg,
    partials_jvp,
    sub,
)
from didax.runtime import client

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


core.jvp_rules.register(sin_p, partials_jvp(sin_p, lambda t, x, out: mul(t, cos(x))))
core.jvp_rules.register(cos_p, partials_jvp(cos_p, lambda t, x, out: neg(mul(t, sin(x)))))
core.jvp_rules.register(  # 1 + tan^2
    tan_p, partials_jvp(tan_p, lambda t, x, out: mul(t, add(_const(1.0, out), integer_pow(out, 2))))
)
core.jvp_rules.register(  # 1 - tanh^2, as JAX writes it: (t + t tanh)(1 - tanh)
    tanh_p,
    partials_jvp(tanh_p, lambda t, x, out: mul(add(t, mul(t, out)), sub(_const(1.0, out), out))),
)
core.jvp_rules.register(exp_p, partials_jvp(exp_p, lambda t, x, out: mul(t, out)))
core.jvp_rules.register(log_p, partials_jvp(log_p, lambda t, x, out: div(t, x)))
core.jvp_rules.register(  # dx / (1 + x)
    log1p_p, partials_jvp(log1p_p, lambda t, x, out: div(t, add(x, _const(1.0, x))))
)
core.jvp_rules.register(  # e^x dx
    expm1_p, partials_jvp(expm1_p, lambda t, x, out: mul(t, add(out, _const(1.0, out))))
)
core.jvp_rules.register(  # dx / (2 sqrt x)
    sqrt_p, partials_jvp(sqrt_p, lambda t, x, out: mul(t, div(_const(0.5, out), out)))
)
core.jvp_rules.register(  # s' = s (1 - s)
    logistic_p,
    partials_jvp(logistic_p, lambda t, x, out: mul(t, mul(out, sub(_const(1.0, out), out)))),
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


# d atan2(x, y) = (y dx - x dy) / (x^2 + y^2)
def _atan2_denominator(x: Any, y: Any) -> Any:
    return add(integer_pow(x, 2), integer_pow(y, 2))


core.jvp_rules.register(
    atan2_p,
    partials_jvp(
        atan2_p,
        lambda t, x, y, out: mul(t, div(y, _atan2_denominator(x, y))),
        lambda t, x, y, out: mul(t, div(neg(x), _atan2_denominator(x, y))),
    ),
)


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


def _integer_exponent(x: Any, y: Any) -> bool:
    return core.get_aval(y).dtype != core.get_aval(x).dtype


def _pow_x_partial(t, x, y, out):  # d/dx x^y = y x^(y-1)
    if not _integer_exponent(x, y):
        return mul(t, mul(y, pow(x, sub(y, _const(1.0, y)))))
    # an integer exponent: y x^(y-1) in x's dtype, and 0 where y == 0 (as JAX)
    yf = convert_element_type(y, core.get_aval(x).dtype, False)
    zero = _full(_const(0.0, x), core.get_aval(out).shape)
    return mul(t, select_n(eq(yf, _const(0.0, x)), mul(yf, pow(x, sub(yf, _const(1.0, x)))), zero))


def _pow_y_partial(t, x, y, out):  # d/dy x^y = log(x) x^y, taken as 0 where x == 0
    if _integer_exponent(x, y):
        return Zero.like(out)  # integers have no tangent
    zero = _const(0.0, x)
    safe_log = select_n(eq(x, zero), log(x), _full(zero, core.get_aval(x).shape))
    return mul(t, mul(safe_log, out))


core.jvp_rules.register(pow_p, partials_jvp(pow_p, _pow_x_partial, _pow_y_partial))


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


def reciprocal(x: Any) -> Any:
    """`1 / x`, as `integer_pow[y=-1]`. Like `jax.lax.reciprocal`."""
    return integer_pow(x, -1)


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


# ----------------------------------------------------------------------------- cbrt, exp2

cbrt_p = _unary_primitive("cbrt", np.cbrt)
exp2_p = _unary_primitive("exp2", np.exp2, complex_ok=True)


def cbrt(x: Any) -> Any:
    """The real cube root. Like `jax.lax.cbrt`."""
    return cbrt_p.bind(x)


def exp2(x: Any) -> Any:
    """2 ** x. Like `jax.lax.exp2`."""
    return exp2_p.bind(x)


core.jvp_rules.register(  # d cbrt(x) = dx / (3 cbrt(x)^2)
    cbrt_p,
    partials_jvp(cbrt_p, lambda t, x, out: mul(t, mul(_const(1 / 3, out), integer_pow(out, -2)))),
)
core.jvp_rules.register(  # d 2^x = log(2) 2^x dx
    exp2_p, partials_jvp(exp2_p, lambda t, x, out: mul(log(_const(2.0, out)), mul(t, out)))
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


# ----------------------------------------------------------------------------- square, rsqrt


def _square_aval(x: ShapedArray, **params: Any) -> list[ShapedArray]:
    if x.dtype == dtypes.bool_:
        raise TypeError(
            "square does not accept dtype bool. Accepted dtypes are subtypes of integer, "
            "floating, complexfloating."
        )
    return [x]


square_p = core.Primitive("square")
core.impl_rules.register(
    square_p, rules.validated_impl(square_p, rules.elementwise_impl(np.square))
)
core.abstract_eval_rules.register(square_p, _square_aval)
core.vmap_rules.register(square_p, rules.vectorized_vmap(square_p.bind))
_square_any = rules.eager_unary(np.square, False)


@core.eager_rules.register(square_p)
def _square_eager(x):  # bools take `bind`'s path, which raises
    return NotImplemented if getattr(x, "dtype", None) == dtypes.bool_ else _square_any(x)


rsqrt_p = _unary_primitive("rsqrt", lambda x: 1 / np.sqrt(x), complex_ok=True)


def square(x: Any) -> Any:
    """`x * x`. Like `jax.lax.square`."""
    return square_p.bind(x)


def rsqrt(x: Any) -> Any:
    """`1 / sqrt(x)`. Like `jax.lax.rsqrt`."""
    return rsqrt_p.bind(x)


core.jvp_rules.register(  # d x^2 = 2 x dx
    square_p, partials_jvp(square_p, lambda t, x, out: mul(t, mul(_const(2.0, x), x)))
)
core.jvp_rules.register(  # d x^-1/2 = -1/2 x^-3/2 dx, as -0.5 * out / x
    rsqrt_p, partials_jvp(rsqrt_p, lambda t, x, out: mul(t, mul(_const(-0.5, x), div(out, x))))
)


@core.lowering_rules.register(square_p)
def _square_lowering(ctx, x):
    if dtypes.is_int(ctx.avals_in[0].dtype):
        return [ctx.hlo.multiply(x, x)]
    return [client.runtime().chlo.square(x)]


core.lowering_rules.register(rsqrt_p, rules.direct_lowering("rsqrt"))
