"""More elementwise functions, composed as `jax.numpy` composes them: angle conversions
(`deg2rad rad2deg degrees radians`), `log2 log10 hypot reciprocal fabs fmax fmin signbit
isposinf isneginf nan_to_num heaviside nextafter`, and the bitwise functions (`bitwise_and
bitwise_or bitwise_xor bitwise_not invert left_shift right_shift` and their array-API
spellings).

Layer 5, after `setops`. No primitive of its own: `log10` is log(x) / log(10), `hypot`
JAX's overflow-safe max * sqrt(1 + (min / max)^2), `signbit` reads the sign bit through a
`bitcast_convert_type`, the bitwise functions are the `and`/`or`/`xor`/`not`/`shift_*`
primitives.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from didax import dtypes, lax
from didax.numpy import (
    creation,
    inner_jit,
    predicates,
    promotion,
    ufuncs,
)
from didax.numpy.axis_args import _aval
from didax.numpy.predicates import _is_float

__all__ = [
    "around",
    "round",
    "arctan2",
    "atan2",
    "bartlett",
    "blackman",
    "cbrt",
    "ceil",
    "copysign",
    "divmod",
    "exp2",
    "float_power",
    "floor",
    "fmod",
    "hamming",
    "hanning",
    "pow",
    "rint",
    "trunc",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "deg2rad",
    "degrees",
    "fabs",
    "fmax",
    "fmin",
    "heaviside",
    "hypot",
    "invert",
    "isneginf",
    "isposinf",
    "left_shift",
    "log10",
    "log2",
    "nan_to_num",
    "nextafter",
    "rad2deg",
    "radians",
    "reciprocal",
    "right_shift",
    "signbit",
]


def _inexact(name: str, *args: Any) -> list[Any]:
    args = promotion.promote(
        name, *(creation.asarray(a) if not dtypes.is_python_scalar(a) else a for a in args)
    )
    return [promotion.to_inexact(name, a) for a in args]


def _const(x: Any, value: float) -> Any:
    return lax.full((), value, _aval(x).dtype)


def deg2rad(x: Any) -> Any:
    """Like `jax.numpy.deg2rad`."""
    (x,) = _inexact("deg2rad", x)
    return lax.mul(x, _const(x, np.pi / 180))


def rad2deg(x: Any) -> Any:
    """Like `jax.numpy.rad2deg`."""
    (x,) = _inexact("rad2deg", x)
    return lax.mul(x, _const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


def log2(x: Any) -> Any:
    """Like `jax.numpy.log2`: log(x) / log(2)."""
    (x,) = _inexact("log2", x)
    return lax.div(lax.log(x), lax.log(_const(x, 2)))


def log10(x: Any) -> Any:
    """Like `jax.numpy.log10`: log(x) / log(10)."""
    (x,) = _inexact("log10", x)
    return lax.div(lax.log(x), lax.log(_const(x, 10)))


def hypot(x1: Any, x2: Any) -> Any:
    """sqrt(x1^2 + x2^2) without overflow. Like `jax.numpy.hypot`."""
    x1, x2 = _inexact("hypot", x1, x2)
    x1, x2 = promotion.broadcast("hypot", lax.abs(x1), lax.abs(x2))
    inf = _const(x1, np.inf)
    any_inf = lax.bitwise_or(lax.eq(x1, inf), lax.eq(x2, inf))
    big, small = lax.max(x1, x2), lax.min(x1, x2)
    zero = lax.eq(big, _const(big, 0))
    ratio = lax.div(small, ufuncs.where(zero, _const(big, 1), big))
    out = ufuncs.where(
        zero, big, lax.mul(big, lax.sqrt(lax.add(_const(big, 1), lax.mul(ratio, ratio))))
    )
    return ufuncs.where(any_inf, inf, out)


def reciprocal(x: Any) -> Any:
    """1 / x, as `integer_pow[y=-1]`. Like `jax.numpy.reciprocal`."""
    (x,) = _inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def fabs(x: Any) -> Any:
    """Like `jax.numpy.fabs` (real input only)."""
    (x,) = _inexact("fabs", x)
    if dtypes.is_complex(_aval(x).dtype):
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(x)


# fmax and fmin are JAX's bodies, so that under jax_numpy_rank_promotion the ops that check
# (and name themselves in the message) are JAX's: `greater`/`less`, then `bitwise_or`


def fmax(x1: Any, x2: Any) -> Any:
    """The maximum, ignoring a NaN in either. Like `jax.numpy.fmax`."""
    promotion.check_arraylike("fmax", x1, x2)
    return ufuncs.where(bitwise_or(ufuncs.greater(x1, x2), predicates.isnan(x2)), x1, x2)


def fmin(x1: Any, x2: Any) -> Any:
    """The minimum, ignoring a NaN in either. Like `jax.numpy.fmin`."""
    promotion.check_arraylike("fmin", x1, x2)
    return ufuncs.where(bitwise_or(ufuncs.less(x1, x2), predicates.isnan(x2)), x1, x2)


def _signbit(x: Any) -> Any:
    dtype = _aval(x).dtype
    if dtype.itemsize == 2:  # float16/bfloat16: widen, which keeps the sign bit
        x = lax.convert_element_type(x, dtypes.float32, False)
        dtype = dtypes.float32
    int_type = np.dtype(f"int{dtype.itemsize * 8}")
    bits = lax.bitcast_convert_type(x, int_type)
    top = lax.shift_right_arithmetic(bits, lax.full((), dtype.itemsize * 8 - 1, int_type))
    return lax.convert_element_type(top, dtypes.bool_, False)


_signbit_jit = inner_jit.inner_jit(_signbit, "signbit")


def signbit(x: Any) -> Any:
    """True where the sign bit is set (-0.0 and -nan too). Like `jax.numpy.signbit`."""
    promotion.check_arraylike("signbit", x)
    x = creation.asarray(x)
    dtype = _aval(x).dtype
    if dtype == dtypes.bool_:
        return lax.full(_aval(x).shape, False, dtypes.bool_)
    if dtypes.is_int(dtype):
        return lax.lt(x, lax.full((), 0, dtype))
    if dtypes.is_complex(dtype):
        raise ValueError("jnp.signbit is not well defined for complex inputs")
    return _signbit_jit(x)


def isposinf(x: Any, /, out: None = None) -> Any:
    """Like `jax.numpy.isposinf`."""
    x = creation.asarray(x)
    if not dtypes.is_float(_aval(x).dtype):
        return lax.full(_aval(x).shape, False, dtypes.bool_)
    return lax.eq(x, _const(x, np.inf))


def isneginf(x: Any, /, out: None = None) -> Any:
    """Like `jax.numpy.isneginf`."""
    x = creation.asarray(x)
    if not dtypes.is_float(_aval(x).dtype):
        return lax.full(_aval(x).shape, False, dtypes.bool_)
    return lax.eq(x, _const(x, -np.inf))


def nan_to_num(
    x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None, neginf: Any = None
) -> Any:
    """NaN and infinities replaced by finite numbers (the dtype's largest by default). Like
    `jax.numpy.nan_to_num`."""
    promotion.check_arraylike("nan_to_num", x)
    x = creation.asarray(x)
    dtype = _aval(x).dtype
    if not dtypes.is_float(dtype):
        return x
    if dtypes.is_complex(dtype):
        parts = [
            nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in (lax.real(x), lax.imag(x))
        ]
        return lax.complex(*parts)
    info = ml_dtypes.finfo(dtype)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = ufuncs.where(predicates.isnan(x), _const(x, nan), x)
    out = ufuncs.where(lax.eq(out, _const(x, np.inf)), _const(x, posinf), out)
    return ufuncs.where(lax.eq(out, _const(x, -np.inf)), _const(x, neginf), out)


def heaviside(x1: Any, x2: Any) -> Any:
    """0 below zero, 1 above, x2 at zero, NaN at NaN. Like `jax.numpy.heaviside` (whose
    `where`s broadcast without checking jax_numpy_rank_promotion)."""
    x1, x2 = _inexact("heaviside", x1, x2)
    zero = _const(x1, 0)
    at_zero = ufuncs.where(predicates.isnan(x1), x1, x2)
    above = ufuncs.where(lax.gt(x1, zero), _const(x1, 1), at_zero)
    return ufuncs.where(lax.lt(x1, zero), zero, above)


def nextafter(x1: Any, x2: Any) -> Any:
    """The next float after x1 towards x2. Like `jax.numpy.nextafter`."""
    x1, x2 = _inexact("nextafter", x1, x2)
    return lax.nextafter(*promotion.broadcast("nextafter", x1, x2))


def _bitwise(name: str, fn: Any) -> Any:
    def op(x1: Any, x2: Any, /) -> Any:
        x1, x2 = promotion.broadcast(name, *promotion.promote(name, x1, x2))
        if dtypes.is_float(_aval(x1).dtype):
            raise TypeError(f"{name} requires integer or boolean arguments, got {_aval(x1).dtype}")
        return fn(x1, x2)

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


bitwise_and = _bitwise("bitwise_and", lax.bitwise_and)
bitwise_or = _bitwise("bitwise_or", lax.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", lax.bitwise_xor)


def bitwise_not(x: Any, /) -> Any:
    """Like `jax.numpy.bitwise_not` (`invert`)."""
    x = creation.asarray(x)
    if dtypes.is_float(_aval(x).dtype):
        raise TypeError(f"bitwise_not requires integer or boolean arguments, got {_aval(x).dtype}")
    return lax.bitwise_not(x)


invert = bitwise_invert = bitwise_not


def _shift_right(x1: Any, x2: Any) -> Any:
    signed = _aval(x1).dtype.kind == "i"
    return (lax.shift_right_arithmetic if signed else lax.shift_right_logical)(x1, x2)


left_shift = bitwise_left_shift = _bitwise("left_shift", lax.shift_left)
right_shift = bitwise_right_shift = _bitwise("right_shift", _shift_right)


# ----------------------------------------------------------------------------- rounding


def _rounding(name: str, fn: Any) -> Any:
    def op(x: Any) -> Any:
        promotion.check_arraylike(name, x)
        if not dtypes.is_python_scalar(x):
            x = creation.asarray(x)
            if not dtypes.is_float(_aval(x).dtype):  # integers and bools are already whole
                return x
        (x,) = _inexact(name, x)
        if dtypes.is_complex(_aval(x).dtype):
            raise TypeError(f"{name} does not support complex-valued inputs.")
        return fn(x)

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}` (integers are returned as they are)."
    return op


def _trunc(x: Any) -> Any:
    return ufuncs.where(lax.lt(x, _const(x, 0)), lax.ceil(x), lax.floor(x))


floor = _rounding("floor", lax.floor)
ceil = _rounding("ceil", lax.ceil)
trunc = _rounding("trunc", inner_jit.inner_jit(_trunc, "trunc"))


def _rint(x: Any) -> Any:
    return lax.round(x, 1)  # halves to even


_rint_jit = inner_jit.inner_jit(_rint, "rint")


def rint(x: Any) -> Any:
    """Round to the nearest integer, halves to even, as a float. Like `jax.numpy.rint`."""
    (x,) = _inexact("rint", x)
    return _rint_jit(x)


def cbrt(x: Any) -> Any:
    """The real cube root. Like `jax.numpy.cbrt`."""
    (x,) = _inexact("cbrt", x)
    return lax.cbrt(x)


def exp2(x: Any) -> Any:
    """2 ** x. Like `jax.numpy.exp2`."""
    (x,) = _inexact("exp2", x)
    return lax.exp2(x)


def arctan2(x1: Any, x2: Any, /) -> Any:
    """The angle of the point (x2, x1). Like `jax.numpy.arctan2`."""
    x1, x2 = _inexact("arctan2", x1, x2)
    promotion.check_rank_promotion("arctan2", x1, x2)
    return lax.atan2(*promotion.broadcast_nonscalars("arctan2", x1, x2))


atan2 = arctan2
pow = ufuncs.power  # noqa: A001 - jax.numpy.pow


def float_power(x: Any, y: Any, /) -> Any:
    """x ** y in floating point. Like `jax.numpy.float_power`."""
    x, y = _inexact("float_power", x, y)
    promotion.check_rank_promotion("float_power", x, y)
    return lax.pow(*promotion.broadcast_nonscalars("float_power", x, y))


def _fmod(x1: Any, x2: Any) -> Any:
    x1, x2 = promotion.promote("fmod", x1, x2)
    promotion.check_rank_promotion("fmod", x1, x2)
    x2 = lax.convert_element_type(x2, _aval(x2).dtype, False)
    return lax.rem(*promotion.broadcast_nonscalars("fmod", x1, x2))


_fmod_jit = inner_jit.inner_jit(_fmod, "fmod")


def fmod(x1: Any, x2: Any, /) -> Any:
    """The remainder with the sign of x1 (C's fmod). Like `jax.numpy.fmod`."""
    promotion.check_arraylike("fmod", x1, x2)
    return _fmod_jit(x1, x2)


def divmod(x1: Any, x2: Any, /) -> tuple[Any, Any]:  # noqa: A001 - jax.numpy.divmod
    """(x1 // x2, x1 % x2). Like `jax.numpy.divmod`."""
    return ufuncs.floor_divide(x1, x2), ufuncs.remainder(x1, x2)


def _copysign(x1: Any, x2: Any) -> Any:
    x1, x2 = promotion.promote("copysign", x1, x2)
    x2 = lax.convert_element_type(x2, _aval(x2).dtype, False)
    negative = signbit(x2)
    return ufuncs.where(negative, lax.neg(lax.abs(x1)), lax.abs(x1))


_copysign_jit = inner_jit.inner_jit(_copysign, "copysign")


def copysign(x1: Any, x2: Any, /) -> Any:
    """|x1| with the sign of x2. Like `jax.numpy.copysign`."""
    x1, x2 = _inexact("copysign", x1, x2)
    promotion.check_rank_promotion("copysign", x1, x2)
    if dtypes.is_complex(_aval(x1).dtype):
        raise TypeError("copysign does not support complex-valued inputs")
    return _copysign_jit(x1, x2)


# ----------------------------------------------------------------------------- windows


def _window(name: str, M: int, fn: Any) -> Any:  # noqa: N803
    if M <= 1:
        return creation.ones((max(M, 0),), dtypes.default_float())
    n = lax.iota(dtypes.default_float(), M)
    return fn(n, float(M - 1))


def hamming(M: int) -> Any:  # noqa: N803
    """Like `jax.numpy.hamming`."""
    return _window("hamming", M, lambda n, m: 0.54 - 0.46 * lax.cos(2 * np.pi * n / m))


def hanning(M: int) -> Any:  # noqa: N803
    """Like `jax.numpy.hanning`."""
    return _window("hanning", M, lambda n, m: 0.5 - 0.5 * lax.cos(2 * np.pi * n / m))


def blackman(M: int) -> Any:  # noqa: N803
    """Like `jax.numpy.blackman`."""
    return _window(
        "blackman",
        M,
        lambda n, m: 0.42 - 0.5 * lax.cos(2 * np.pi * n / m) + 0.08 * lax.cos(4 * np.pi * n / m),
    )


def bartlett(M: int) -> Any:  # noqa: N803
    """Like `jax.numpy.bartlett`."""
    return _window("bartlett", M, lambda n, m: 1 - lax.abs(2 * n - m) / m)


# ----------------------------------------------------------------------------- round


def round(a: Any, decimals: int = 0, out: None = None) -> Any:  # noqa: A001
    """Round half to even, to `decimals` places. Like `jax.numpy.round`."""
    promotion.check_arraylike("round", a)
    a = creation.asarray(a)
    if not _is_float(a):
        if decimals < 0:
            raise NotImplementedError("round: integer input with decimals < 0")
        return a
    if dtypes.is_complex(_aval(a).dtype):  # each part rounded, as JAX
        return lax.complex(round(lax.real(a), decimals), round(lax.imag(a), decimals))
    if decimals == 0:
        return lax.round(a, 1)
    dtype = _aval(a).dtype
    factor = lax.full((), 10.0**decimals, dtype)
    return lax.div(lax.round(lax.mul(a, factor), 1), factor)


around = round


# Array and Tracer methods and operators (`x.round()`; on integers and bools `~x`, `x ^ y`,
# `x << n`, `x >> n`), registered by didax.numpy's __init__ in core.operator_table
METHODS = {
    "round": round,
    "invert": bitwise_not,
    "bitwise_xor": bitwise_xor,
    "left_shift": left_shift,
    "right_shift": right_shift,
}
