"""The complex views: `real imag conj conjugate angle` and the tests `iscomplex isreal
iscomplexobj isrealobj`. Like `jax.numpy`'s.

Layer 5, after `predicates`. On complex input they bind `lax.real` and friends; as JAX's, a
real input is returned itself (`imag`: zeros).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy import (
    creation,
    inner_jit,
    predicates,
    promotion,
)
from didax.numpy.axis_args import _aval


def iscomplexobj(x: Any) -> bool:
    """Whether `x` has a complex dtype. Like `jax.numpy.iscomplexobj`."""
    if x is None:
        return False
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = core.get_aval(x).dtype if core.is_arraylike(x) else np.asarray(x).dtype
    return dtypes.is_complex(np.dtype(dtype))


def isrealobj(x: Any) -> bool:
    """Like `jax.numpy.isrealobj`."""
    return not iscomplexobj(x)


def real(x: Any) -> Any:
    """The real part. Like `jax.numpy.real` (a real `x` is returned as it is)."""
    promotion.check_arraylike("real", x)
    x = creation.asarray(x)
    return lax.real(x) if iscomplexobj(x) else x


def conj(x: Any) -> Any:
    """The complex conjugate. Like `jax.numpy.conj` (a real `x` is returned as it is)."""
    promotion.check_arraylike("conj", x)
    x = creation.asarray(x)
    return lax.conj(x) if iscomplexobj(x) else x


conjugate = conj


def imag(x: Any) -> Any:
    """The imaginary part. Like `jax.numpy.imag` (of a real `x`: zeros)."""
    promotion.check_arraylike("imag", x)
    x = creation.asarray(x)
    if iscomplexobj(x):
        return lax.imag(x)
    return lax.full(_aval(x).shape, 0, _aval(x).dtype)


def iscomplex(x: Any) -> Any:
    """Elementwise: a nonzero imaginary part. Like `jax.numpy.iscomplex`."""
    i = imag(x)
    return lax.ne(i, lax.full((), 0, _aval(i).dtype))


def isreal(x: Any) -> Any:
    """Elementwise: a zero imaginary part. Like `jax.numpy.isreal`."""
    i = imag(x)
    return lax.eq(i, lax.full((), 0, _aval(i).dtype))


def angle(z: Any, deg: bool = False) -> Any:
    """The argument of complex `z` (`atan2(imag, real)`, in a `jit` named `angle` as JAX's
    jaxpr shows); of real `z`: pi where z < 0 (or z is -0.0), else 0. Like `jax.numpy.angle`."""
    if iscomplexobj(z):
        return _angle_jit(creation.asarray(z), bool(deg))
    z = promotion.to_inexact("angle", creation.asarray(z))
    dtype = _aval(z).dtype
    zero = lax.full((), 0.0, dtype)
    negative = lax.bitwise_or(  # z < 0, or z is -0.0 (1/-0.0 is -inf)
        lax.lt(z, zero),
        lax.bitwise_and(lax.eq(z, zero), lax.lt(lax.div(lax.full((), 1.0, dtype), z), zero)),
    )
    pi = np.float32(180.0 if deg else np.pi)
    out = lax.select_n(
        negative, lax.full(_aval(z).shape, 0.0, dtype), lax.full(_aval(z).shape, pi, dtype)
    )
    return lax.select_n(predicates.isnan(z), out, z)


def _angle_complex(z: Any, deg: bool) -> Any:
    re, im = lax.real(z), lax.imag(z)
    out = lax.atan2(im, re)
    return lax.mul(out, lax.full((), 180.0 / np.pi, _aval(out).dtype)) if deg else out


_angle_jit = inner_jit.inner_jit(_angle_complex, "angle", static_argnums=(1,))


# `Array` and tracer methods these functions back; `didax/numpy/__init__.py` puts them in
# `core.operator_table`
METHODS = {
    "conj": conj,
    "conjugate": conj,
    "real": real,
    "imag": imag,
}

__all__ = [
    "angle",
    "conj",
    "conjugate",
    "imag",
    "iscomplex",
    "iscomplexobj",
    "isreal",
    "isrealobj",
    "real",
]
