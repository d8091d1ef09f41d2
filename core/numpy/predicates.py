"""Predicates and truth reductions: `isnan isinf isclose allclose all any`. Like
`jax.numpy`'s.

Layer 5, after `indexing`'s modules, composing `lax` like the rest of `didax.numpy`. `all` and
`any` are `reduce_min`/`reduce_max` of booleans (JAX's jaxprs show `reduce_and`/`reduce_or`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import dtypes, lax
from didax.numpy import (
    axis_args,
    creation,
    promotion,
)
from didax.numpy.axis_args import _aval

_i32 = dtypes.int32


def _is_float(x: Any) -> bool:
    return dtypes.is_float(_aval(x).dtype)


def _falses(x: Any) -> Any:
    return lax.full(_aval(x).shape, False, dtypes.bool_)


def _broadcast_all(*args: Any) -> list[Any]:
    shape = np.broadcast_shapes(*(_aval(x).shape for x in args))
    return [promotion.broadcast_to(x, shape) if _aval(x).shape != shape else x for x in args]


def isnan(x: Any) -> Any:
    """Like `jax.numpy.isnan`."""
    promotion.check_arraylike("isnan", x)
    x = creation.asarray(x)
    return lax.ne(x, x) if _is_float(x) else _falses(x)


def isinf(x: Any) -> Any:
    """Like `jax.numpy.isinf`."""
    promotion.check_arraylike("isinf", x)
    x = creation.asarray(x)
    if not _is_float(x):
        return _falses(x)
    if dtypes.is_complex(_aval(x).dtype):  # either part infinite
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return lax.eq(lax.abs(x), lax.full((), np.inf, _aval(x).dtype))


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Like `jax.numpy.isclose`."""
    a, b = promotion.promote("isclose", a, b)
    a, b = _broadcast_all(creation.asarray(a), creation.asarray(b))
    dtype = _aval(a).dtype
    if not dtypes.is_float(dtype):
        return lax.eq(a, b)
    part = dtypes.real_of(dtype)  # tolerances compare with |a - b|: real for complex a, b
    tol = lax.add(lax.full((), atol, part), lax.mul(lax.full((), rtol, part), lax.abs(b)))
    out = lax.le(lax.abs(lax.sub(a, b)), tol)
    a_inf, b_inf = isinf(a), isinf(b)
    out = lax.bitwise_and(out, lax.bitwise_not(lax.bitwise_or(a_inf, b_inf)))
    out = lax.bitwise_or(out, lax.bitwise_and(lax.bitwise_and(a_inf, b_inf), lax.eq(a, b)))
    a_nan, b_nan = isnan(a), isnan(b)
    out = lax.bitwise_and(out, lax.bitwise_not(lax.bitwise_or(a_nan, b_nan)))
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(a_nan, b_nan))
    return out


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """Like `jax.numpy.all` (a `reduce_min` of booleans; JAX's jaxpr shows `reduce_and`)."""
    return _bool_reduce("all", lax.reduce_min, x, axis, keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """Like `jax.numpy.any` (a `reduce_max` of booleans; JAX's jaxpr shows `reduce_or`)."""
    return _bool_reduce("any", lax.reduce_max, x, axis, keepdims)


def _bool_reduce(name: str, fn: Any, x: Any, axis: Any, keepdims: bool) -> Any:
    promotion.check_arraylike(name, x)
    x = creation.asarray(x)
    if _aval(x).dtype != dtypes.bool_:
        x = lax.ne(x, lax.full((), 0, _aval(x).dtype))
    axes = axis_args.canonical_axes(name, x, axis)
    out = fn(x, axes)
    return axis_args.expand_reduced(out, x, axes) if keepdims else out


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Like `jax.numpy.allclose`."""
    return all(isclose(a, b, rtol, atol, equal_nan))


# `Array` and tracer methods these functions back; `didax/numpy/__init__.py` puts them in
# `core.operator_table`
METHODS = {
    "all": all,
    "any": any,
}

__all__ = [
    "all",
    "allclose",
    "any",
    "isclose",
    "isinf",
    "isnan",
]
