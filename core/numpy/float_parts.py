"""Floating-point decompositions and log-sum functions of `jax.numpy`: `frexp ldexp modf
spacing` (mantissa, exponent, fractional part, distance to the next float), `logaddexp
logaddexp2` and `sinc`.

Layer 5, after `calculus`. No primitive of its own; each function is JAX's composition:
`frexp` reads the exponent bits through `bitcast_convert_type`, `logaddexp` is
`max + log1p(exp(-|x1 - x2|))` with JAX's custom JVP, `sinc` has JAX's Maclaurin JVP at 0.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from didax import core, dtypes, lax
from didax.control_flow.custom_derivatives import custom_jvp
from didax.numpy import creation, mathfuncs, predicates, promotion, ufuncs
from didax.numpy.inner_jit import inner_jit
from didax.numpy.mathfuncs import _inexact
from didax.primitives.elementwise.arithmetic import _const

__all__ = ["frexp", "ldexp", "logaddexp", "logaddexp2", "modf", "sinc", "spacing"]


def _dtype(x: Any) -> np.dtype:
    return core.get_aval(x).dtype


def _c(x: Any, value: Any) -> Any:  # a scalar of x's dtype and weak type (JAX's _const)
    return _const(value, x)


def _zeros(x: Any) -> Any:
    aval = core.get_aval(x)
    return lax.full(aval.shape, 0, aval.dtype)


def _replace_inf(x: Any) -> Any:
    re = lax.real(x) if dtypes.is_complex(_dtype(x)) else x
    return lax.select_n(lax.eq(re, _c(re, np.inf)), x, _zeros(x))


def _wrap_between(x: Any, a: float) -> Any:  # into [-a, a]
    rem = lax.rem(lax.add(x, _c(x, a)), _c(x, 2 * a))
    rem = lax.select_n(lax.lt(rem, _c(x, 0)), rem, lax.add(rem, _c(x, 2 * a)))
    return lax.sub(rem, _c(x, a))


def _logaddexp_base(x1: Any, x2: Any, base2: bool) -> Any:
    amax = lax.max(x1, x2)
    exp = lax.exp2 if base2 else lax.exp
    scale = (lambda v: lax.mul(_c(v, 1 / np.log(2)), v)) if base2 else (lambda v: v)
    if dtypes.is_complex(_dtype(x1)):
        delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _c(amax, 2)))
        out = lax.add(amax, scale(lax.log1p(exp(delta))))
        bound = np.pi / np.log(2) if base2 else np.pi
        return lax.complex(lax.real(out), _wrap_between(lax.imag(out), bound))
    delta = lax.sub(x1, x2)
    finite = lax.add(amax, scale(lax.log1p(exp(lax.neg(lax.abs(delta))))))
    return lax.select_n(lax.ne(delta, delta), finite, lax.add(x1, x2))  # NaN: x1 + x2


def _logaddexp_jvp_of(fn: Any, exp: Any) -> Any:
    def jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = fn(x1, x2)
        t = lax.add(
            lax.mul(t1, exp(lax.sub(_replace_inf(x1), _replace_inf(out)))),
            lax.mul(t2, exp(lax.sub(_replace_inf(x2), _replace_inf(out)))),
        )
        return out, t

    return jvp


_logaddexp = custom_jvp(lambda x1, x2: _logaddexp_base(x1, x2, False))
_logaddexp.defjvp(_logaddexp_jvp_of(_logaddexp, lax.exp))
_logaddexp2 = custom_jvp(lambda x1, x2: _logaddexp_base(x1, x2, True))
_logaddexp2.defjvp(_logaddexp_jvp_of(_logaddexp2, lax.exp2))


def logaddexp(x1: Any, x2: Any, /) -> Any:
    """`log(exp(x1) + exp(x2))` without overflow. Like `jax.numpy.logaddexp`."""
    x1, x2 = promotion.broadcast("logaddexp", *_inexact("logaddexp", x1, x2))
    return _logaddexp(x1, x2)


def logaddexp2(x1: Any, x2: Any, /) -> Any:
    """`log2(2**x1 + 2**x2)` without overflow. Like `jax.numpy.logaddexp2`."""
    x1, x2 = promotion.broadcast("logaddexp2", *_inexact("logaddexp2", x1, x2))
    return _logaddexp2(x1, x2)


# ----------------------------------------------------------------------------- frexp, ldexp

_INT_OF_BITS = {16: np.dtype(np.int16), 32: np.dtype(np.int32), 64: np.dtype(np.int64)}


def _finfo(dtype: np.dtype) -> Any:
    return ml_dtypes.finfo(dtype)


def _frexp_body(x: Any) -> Any:
    dtype = _dtype(x)
    info = _finfo(dtype)
    int_type = _INT_OF_BITS[info.bits]
    mask, bias = (1 << info.nexp) - 1, 1 - info.minexp
    tiny = lax.lt(lax.abs(x), _c(x, info.tiny))  # subnormals: scaled up first
    x1 = ufuncs.where(tiny, lax.mul(x, _c(x, 1 << info.nmant)), x)
    x2 = ufuncs.where(tiny, np.array(-info.nmant, int_type), np.array(0, int_type))
    x1 = lax.bitcast_convert_type(x1, int_type)
    i = lambda v: lax.full((), v, int_type)  # noqa: E731
    exponent = lax.bitwise_and(lax.shift_right_arithmetic(x1, i(info.nmant)), i(mask))
    x2 = lax.add(x2, lax.add(lax.sub(exponent, i(bias)), i(1)))
    x1 = lax.bitwise_and(x1, lax.bitwise_not(i(mask << info.nmant)))
    x1 = lax.bitwise_or(x1, i((bias - 1) << info.nmant))
    x1 = lax.bitcast_convert_type(x1, dtype)
    special = lax.bitwise_or(
        lax.bitwise_or(predicates.isinf(x), predicates.isnan(x)), lax.eq(x, _c(x, 0))
    )
    x2 = ufuncs.where(special, _zeros(x2), x2)
    return ufuncs.where(special, x, x1), lax.convert_element_type(x2, np.int32)


_frexp_cjvp = custom_jvp(_frexp_body)


@_frexp_cjvp.defjvp
def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    m, e = _frexp_cjvp(x)
    e_dot = _zeros(e)  # JAX writes a float0 zero; didax's integer tangents are integer zeros
    return (m, e), (lax.mul(t, lax.exp2(lax.neg(lax.convert_element_type(e, _dtype(t))))), e_dot)


def _frexp(x: Any) -> Any:
    (x,) = _inexact("frexp", x)
    if dtypes.is_complex(_dtype(x)):
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp_cjvp(x)


_frexp_jit = inner_jit(_frexp, "frexp")


def frexp(x: Any, /) -> tuple[Any, Any]:
    """The mantissa in [0.5, 1) and the int32 exponent of `x`. Like `jax.numpy.frexp`."""
    ufuncs.check_arraylike("frexp", x)
    return tuple(_frexp_jit(x))


def _ldexp(x1: Any, x2: Any) -> Any:
    x1, x2 = creation.asarray(x1), creation.asarray(x2)
    d1, d2 = _dtype(x1), _dtype(x2)
    if dtypes.is_complex(d1) or dtypes.is_float(d2):
        raise ValueError(f"ldexp not supported for input types {(d1, d2)}")
    (x1,) = _inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, _dtype(x1))
    m, e = _frexp_cjvp(x1)
    e = lax.convert_element_type(
        ufuncs.add(lax.convert_element_type(e, _dtype(x2)), x2), _dtype(x1)
    )
    positive = lax.gt(e, _c(e, 0))  # the exponent may overflow by 1 with a finite result
    m = ufuncs.where(positive, lax.mul(m, _c(m, 2)), m)
    e = ufuncs.where(positive, lax.sub(e, _c(e, 1)), e)
    x = ufuncs.multiply(m, ufuncs.power(_c(m, 2), e))
    keep = lax.bitwise_or(predicates.isinf(x1), lax.eq(x1, _c(x1, 0)))
    return ufuncs.where(keep, x1, x)


_ldexp_jit = inner_jit(_ldexp, "ldexp")


def ldexp(x1: Any, x2: Any, /) -> Any:
    """`x1 * 2**x2` for an integer `x2`. Like `jax.numpy.ldexp`."""
    ufuncs.check_arraylike("ldexp", x1, x2)
    return _ldexp_jit(x1, x2)


def _modf(x: Any) -> Any:
    (x,) = _inexact("modf", x)
    whole = ufuncs.where(lax.ge(x, _c(x, 0)), lax.floor(x), lax.ceil(x))
    return ufuncs.subtract(x, whole), whole


_modf_jit = inner_jit(_modf, "modf")


def modf(x: Any, /, out: None = None) -> tuple[Any, Any]:
    """The fractional and whole parts of `x`, both with `x`'s sign. Like `jax.numpy.modf`."""
    ufuncs.check_arraylike("modf", x)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    return tuple(_modf_jit(x))


def spacing(x: Any, /) -> Any:
    """The distance from `x` to the next float away from zero. Like `jax.numpy.spacing`."""
    (x,) = _inexact("spacing", x)
    dtype = _dtype(x)
    if dtypes.is_complex(dtype):
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = _c(x, np.inf)
    if dtype == np.float16:
        return ufuncs.subtract(
            lax.nextafter(x, promotion.broadcast_to(inf, core.get_aval(x).shape)), x
        )
    toward = mathfuncs.copysign(inf, x)
    out = ufuncs.subtract(lax.nextafter(x, toward), x)
    smallest = mathfuncs.copysign(np.array(_finfo(dtype).smallest_subnormal, dtype), x)
    return ufuncs.where(lax.eq(out, _c(out, 0)), smallest, out)


# ----------------------------------------------------------------------------- sinc


def _sinc_maclaurin_value(k: int, x: Any) -> Any:
    # the k-th derivative of sin(x)/x at 0, as JAX writes it (x * 0 + c keeps x's shape)
    zero = lax.mul(x, _c(x, 0))
    return zero if k % 2 else lax.add(zero, _c(x, (-1) ** (k // 2) / (k + 1)))


_sinc_maclaurin = custom_jvp(_sinc_maclaurin_value, nondiff_argnums=(0,))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), lax.mul(_sinc_maclaurin(k + 1, x), t)


def _sinc(x: Any) -> Any:
    (x,) = _inexact("sinc", x)
    eq_zero = lax.eq(x, _c(x, 0))
    pi_x = lax.mul(_c(x, np.pi), x)
    safe_pi_x = ufuncs.where(eq_zero, _c(x, 1), pi_x)
    return ufuncs.where(eq_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe_pi_x), safe_pi_x))


_sinc_jit = inner_jit(_sinc, "sinc")


def sinc(x: Any, /) -> Any:
    """`sin(pi x) / (pi x)`, 1 at 0. Like `jax.numpy.sinc`."""
    ufuncs.check_arraylike("sinc", x)
    return _sinc_jit(x)
