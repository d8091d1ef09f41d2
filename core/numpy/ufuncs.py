"""Elementwise functions (NumPy's ufuncs): arithmetic, comparisons, `where`, `clip`, and
the unary float functions (`sin`, `exp`, ...).

Layer 5, after `manipulation`. A binary function promotes and broadcasts its operands
(`promotion.py`), then applies one lax op, so its jaxpr has the equations JAX's has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy.creation import asarray
from didax.numpy.inner_jit import inner_jit
from didax.numpy.promotion import (
    broadcast,
    broadcast_nonscalars,
    check_arraylike,
    promote,
    promote_pair,
    to_inexact,
)
from didax.primitives import elementwise as _ew
from didax.primitives import hyperbolic as _hyp
from didax.primitives import trigonometric as _trig


def _elementwise(name: str, fn: Any, prim: core.Primitive) -> Any:
    """A binary elementwise function: promote, broadcast, apply the lax op `fn`. Eager
    Arrays of one dtype (or an Array and a Python scalar of its dtype) need neither: the
    primitive's eager shortcut computes them in one NumPy call."""
    eager = core.eager_rules[prim]  # `bind`'s eager hook, called here without the wrappers
    on_bools = {"add": lax.bitwise_or, "multiply": lax.bitwise_and}.get(name)

    def op(x: Any, y: Any) -> Any:
        if core.trace_state() is core.EAGER_STATE:
            out = eager(x, y)
            if out is not NotImplemented:
                return out
        x, y = promote_pair(name, x, y)
        if (
            on_bools is not None
            and getattr(getattr(x, "aval", None), "dtype", None) == dtypes.bool_
        ):
            return on_bools(x, y)  # JAX adds bools with `or`, multiplies them with `and`
        return fn(x, y)

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


add = _elementwise("add", lax.add, _ew.add_p)
subtract = _elementwise("subtract", lax.sub, _ew.sub_p)
multiply = _elementwise("multiply", lax.mul, _ew.mul_p)


def divide(x: Any, y: Any) -> Any:
    """True division: integers are converted to float first. Like `jax.numpy.divide`."""
    x, y = promote("div", x, y)
    if not dtypes.is_float(core.get_aval(x).dtype):
        x, y = (to_inexact("div", v) for v in (x, y))
    return lax.div(*broadcast("div", x, y, numpy_name="true_divide"))


true_divide = divide


def floor_divide(x: Any, y: Any) -> Any:
    """Like `jax.numpy.floor_divide` (an inner jit)."""
    check_arraylike("floor_divide", x, y)
    return _floor_divide_jit(x, y)


def _floor_divide(x: Any, y: Any) -> Any:
    x, y = promote_pair("floor_divide", x, y)
    dtype, weak = core.get_aval(x).dtype, core.get_aval(x).weak_type
    if dtypes.is_float(dtype):  # as JAX: Python's float divmod, then round
        # constants as weak as the operands
        zero = lax.convert_element_type(0, dtype, weak)
        one = lax.convert_element_type(1, dtype, weak)
        mod = lax.rem(x, y)
        div = lax.div(_where_jit(lax.eq(y, zero), x, lax.sub(x, mod)), y)
        fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(y), lax.sign(mod)))
        lax.select_n(fix, mod, lax.add(mod, y))  # divmod's remainder (unused here)
        return lax.round(lax.select_n(fix, div, lax.sub(div, one)), 0)
    q = lax.div(x, y)
    if np.issubdtype(dtype, np.unsignedinteger):  # as JAX: no negative quotients to fix
        return q
    zero = lax.convert_element_type(0, dtype, weak)  # of the operands' dtype (int8, ...)
    one = lax.convert_element_type(1, dtype, weak)
    fix = lax.bitwise_and(lax.ne(lax.sign(x), lax.sign(y)), lax.ne(lax.rem(x, y), zero))
    return _where_jit(fix, lax.sub(q, one), q)


_floor_divide_jit = inner_jit(_floor_divide, "floor_divide")


def remainder(x: Any, y: Any) -> Any:
    """Remainder with the sign of `y`. Like `jax.numpy.remainder` (an inner jit)."""
    check_arraylike("remainder", x, y)
    return _remainder_jit(x, y)


def _remainder(x: Any, y: Any) -> Any:
    x, y = promote_pair("remainder", x, y)
    aval = core.get_aval(y)
    zero = lax.convert_element_type(0, aval.dtype, False)
    if not dtypes.is_float(aval.dtype):  # x % 0 is not a trap: divide by 1 instead, as JAX
        zero_divisor = lax.eq(y, zero)
        one = lax.full(aval.shape, 1, None if aval.weak_type else aval.dtype)  # full_like
        y = _where_jit(zero_divisor, one, y)
    r = lax.rem(x, y)
    nonzero = lax.ne(r, zero)
    fix = lax.bitwise_and(lax.ne(lax.lt(r, zero), lax.lt(y, zero)), nonzero)
    return lax.select_n(fix, r, lax.add(r, y))


_remainder_jit = inner_jit(_remainder, "remainder")
mod = remainder


def negative(x: Any) -> Any:
    """Like `jax.numpy.negative`."""
    check_arraylike("negative", x)
    return lax.neg(x)


def positive(x: Any) -> Any:
    check_arraylike("positive", x)
    return asarray(x)


def _unary_float(name: str, fn: Any, prim: core.Primitive) -> Any:
    eager = core.eager_rules[prim]  # `bind`'s eager hook, called here without the wrappers

    def op(x: Any) -> Any:
        if core.trace_state() is core.EAGER_STATE:
            out = eager(x)  # an eager float Array: one NumPy call
            if out is not NotImplemented:
                return out
        return fn(to_inexact(name, x))

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


sin = _unary_float("sin", lax.sin, _ew.sin_p)
cos = _unary_float("cos", lax.cos, _ew.cos_p)
tan = _unary_float("tan", lax.tan, _ew.tan_p)
tanh = _unary_float("tanh", lax.tanh, _ew.tanh_p)
arctanh = atanh = _unary_float("arctanh", lax.atanh, _hyp.atanh_p)
exp = _unary_float("exp", lax.exp, _ew.exp_p)
log = _unary_float("log", lax.log, _ew.log_p)
log1p = _unary_float("log1p", lax.log1p, _ew.log1p_p)
expm1 = _unary_float("expm1", lax.expm1, _ew.expm1_p)
sqrt = _unary_float("sqrt", lax.sqrt, _ew.sqrt_p)
arcsin = asin = _unary_float("arcsin", lax.asin, _trig.asin_p)
arccos = acos = _unary_float("arccos", lax.acos, _trig.acos_p)
arctan = atan = _unary_float("arctan", lax.atan, _trig.atan_p)
sinh = _unary_float("sinh", lax.sinh, _hyp.sinh_p)
cosh = _unary_float("cosh", lax.cosh, _hyp.cosh_p)
arcsinh = asinh = _unary_float("arcsinh", lax.asinh, _hyp.asinh_p)


def _arccosh(x: Any) -> Any:
    out = lax.acosh(to_inexact("arccosh", x))
    if dtypes.is_complex(core.get_aval(out).dtype):  # NumPy's branch: a non-negative real part
        re = lax.real(out)
        out = where(lax.lt(re, lax.full((), 0, core.get_aval(re).dtype)), lax.neg(out), out)
    return out


arccosh = acosh = inner_jit(_arccosh, "arccosh")


def abs(x: Any) -> Any:  # noqa: A001
    """Like `jax.numpy.abs`."""
    check_arraylike("abs", x)
    return asarray(x) if core.get_aval(x).dtype == dtypes.bool_ else lax.abs(x)


absolute = abs


def sign(x: Any) -> Any:
    """Like `jax.numpy.sign`."""
    check_arraylike("sign", x)
    return lax.sign(x)


def power(x: Any, y: Any) -> Any:
    """`x ** y`: a static integer exponent is `integer_pow`. Like `jax.numpy.power`."""
    check_arraylike("power", x, y)
    if type(y) is int or (isinstance(y, (np.integer,)) and not isinstance(y, core.Tracer)):
        (x,) = promote("power", x)
        return lax.integer_pow(x, int(y))
    xp, yp = promote_pair("power", x, y)
    if not dtypes.is_float(core.get_aval(xp).dtype):
        raise NotImplementedError("power: integer base with a traced integer exponent")
    y_aval = core.get_aval(y)
    if dtypes.is_int(y_aval.dtype) and y_aval.shape == core.get_aval(yp).shape:
        return lax.pow(xp, y)  # as JAX: an integer exponent array is passed as it is
    return lax.pow(xp, yp)


maximum = _elementwise("maximum", lax.max, _ew.max_p)
minimum = _elementwise("minimum", lax.min, _ew.min_p)


def where(condition: Any, x: Any, y: Any) -> Any:
    """Like `jax.numpy.where` (the three-argument form)."""
    check_arraylike("where", condition, x, y)
    return _where_jit(condition, x, y)


def _where(condition: Any, x: Any, y: Any) -> Any:
    if core.get_aval(condition).dtype != dtypes.bool_:
        condition = lax.ne(condition, lax.convert_element_type(0, core.get_aval(condition).dtype))
    x, y = promote("where", x, y)  # weak only when both are, as in JAX
    condition, x, y = broadcast_nonscalars("where", condition, x, y)
    out_shape = np.broadcast_shapes(*(core.get_aval(v).shape for v in (condition, x, y)))
    x, y = (
        lax.broadcast_in_dim(v, out_shape, ()) if not core.get_aval(v).shape and out_shape else v
        for v in (x, y)
    )
    return lax.select_n(condition, y, x)


_where_jit = inner_jit(_where, "_where")


def clip(x: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    """Like `jax.numpy.clip`."""
    check_arraylike("clip", x)
    bounds = [v for v in (x, min, max) if v is not None]
    if any(dtypes.is_complex(core.get_aval(v).dtype) for v in bounds if core.is_arraylike(v)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Please convert to a real "
            "value or array by taking the real or imaginary components via "
            "jax.numpy.real/imag respectively."
        )
    return _clip_jit(x, min, max)


def _clip(x: Any, min: Any, max: Any) -> Any:  # noqa: A002
    x = asarray(x)
    if min is not None:  # NumPy's promotion: clip(int32, 0.5, 1.5) is float32
        x = maximum(min, x)
    if max is not None:
        x = minimum(max, x)
    return x


_clip_jit = inner_jit(_clip, "clip")


def _comparison_function(name: str, fn: Any) -> Any:
    def op(x: Any, y: Any) -> Any:
        x, y = promote_pair(name, x, y)
        if fn in (lax.eq, lax.ne) or not dtypes.is_complex(core.get_aval(x).dtype):
            return fn(x, y)
        # complex numbers order lexicographically on (real, imag), as in NumPy and JAX
        rx, ry = lax.real(x), lax.real(y)
        return lax.select_n(lax.eq(rx, ry), fn(rx, ry), fn(lax.imag(x), lax.imag(y)))

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


greater = _comparison_function("greater", lax.gt)
less = _comparison_function("less", lax.lt)
equal = _comparison_function("equal", lax.eq)
greater_equal = _comparison_function("greater_equal", lax.ge)
less_equal = _comparison_function("less_equal", lax.le)
not_equal = _comparison_function("not_equal", lax.ne)


def logical_and(x: Any, y: Any) -> Any:
    return lax.bitwise_and(*promote_pair("logical_and", x, y))


def logical_or(x: Any, y: Any) -> Any:
    return lax.bitwise_or(*promote_pair("logical_or", x, y))


def _truth(x: Any) -> Any:
    # a boolean array: x itself, or x != 0 (as JAX's logical functions read numbers)
    x = asarray(x)
    aval = core.get_aval(x)
    return x if aval.dtype == dtypes.bool_ else lax.ne(x, lax.full((), 0, aval.dtype))


def logical_not(x: Any) -> Any:
    """Like `jax.numpy.logical_not`."""
    return lax.bitwise_not(_truth(x))


def logical_xor(x: Any, y: Any) -> Any:
    """Like `jax.numpy.logical_xor`."""
    x, y = promote_pair("logical_xor", x, y)
    return lax.bitwise_xor(_truth(x), _truth(y))


def isfinite(x: Any) -> Any:
    """Like `jax.numpy.isfinite` (complex: both parts finite)."""
    x = to_inexact("isfinite", x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


def square(x: Any) -> Any:
    """Like `jax.numpy.square` (bools as int32)."""
    check_arraylike("square", x)
    x = asarray(x)
    if core.get_aval(x).dtype == dtypes.bool_:
        x = lax.convert_element_type(x, dtypes.int32)
    return lax.square(x)


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """The choice of the first true condition, else `default`. Like `jax.numpy.select`."""
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})"
        )
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    out = default
    for cond, choice in zip(reversed(condlist), reversed(choicelist), strict=True):
        cond = asarray(cond)
        if core.get_aval(cond).dtype != dtypes.bool_:
            raise TypeError(
                f"condlist must be a sequence of boolean arrays, got {core.get_aval(cond).dtype}"
            )
        out = where(cond, choice, out)
    return out


__all__ = [
    "select",
    "abs",
    "absolute",
    "add",
    "clip",
    "cos",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor_divide",
    "greater",
    "greater_equal",
    "isfinite",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "positive",
    "power",
    "remainder",
    "sign",
    "sin",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "arctanh",
    "atanh",
    "arcsin",
    "asin",
    "arccos",
    "acos",
    "arctan",
    "atan",
    "sinh",
    "cosh",
    "arcsinh",
    "asinh",
    "arccosh",
    "acosh",
    "true_divide",
    "where",
]
