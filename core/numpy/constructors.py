"""More array constructors: `identity empty empty_like full_like copy logspace geomspace`.
Like `jax.numpy`'s.

Layer 5, after `index_grids`. `empty` and `empty_like` are zeros, as JAX's (XLA has no
uninitialised memory).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import lax
from didax.numpy import (
    axis_args,
    creation,
    manipulation,
    promotion,
    ufuncs,
)
from didax.numpy.axis_args import _aval


def identity(n: int, dtype: Any = None) -> Any:
    """Like `jax.numpy.identity`."""
    return creation.eye(n, dtype=dtype)


def empty(shape: Any, dtype: Any = None) -> Any:
    """Zeros, as JAX's (XLA has no uninitialised memory). Like `jax.numpy.empty`."""
    return creation.zeros(shape, dtype)


def empty_like(prototype: Any, dtype: Any = None, shape: Any = None) -> Any:
    """Like `jax.numpy.empty_like` (zeros)."""
    return full_like(prototype, 0, dtype, shape)


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    """Like `jax.numpy.full_like`."""
    promotion.check_arraylike("full_like", a)
    aval = _aval(creation.asarray(a))
    dtype = aval.dtype if dtype is None else creation.to_dtype(dtype)
    if np.ndim(fill_value) == 0:  # (a traced `a`'s split and varying axes kept, as JAX's)
        fill = lax.convert_element_type(fill_value, dtype, False)
        return lax.full_like(
            a, fill, dtype, None if shape is None else axis_args.shape_tuple(shape)
        )
    shape = aval.shape if shape is None else axis_args.shape_tuple(shape)
    fill = lax.convert_element_type(creation.asarray(fill_value), dtype, False)
    return promotion.broadcast_to(fill, shape)


def copy(a: Any, order: Any = None) -> Any:
    """Like `jax.numpy.copy`."""
    return creation.array(a)


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: Any = 10.0,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """base ** linspace(start, stop). Like `jax.numpy.logspace`."""
    exponents = creation.linspace(start, stop, num, endpoint=endpoint)
    out = ufuncs.power(
        lax.convert_element_type(creation.asarray(base), _aval(exponents).dtype, False), exponents
    )
    out = out if dtype is None else lax.convert_element_type(out, creation.to_dtype(dtype), False)
    return manipulation.moveaxis(out, 0, axis) if axis else out


def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> Any:
    """Numbers evenly spaced on a log scale from start to stop. Like `jax.numpy.geomspace`."""
    start, stop = (
        promotion.to_inexact("geomspace", creation.asarray(start)),
        promotion.to_inexact("geomspace", creation.asarray(stop)),
    )
    sign = lax.sign(start)
    logs = creation.linspace(
        lax.log(lax.abs(start)), lax.log(lax.abs(stop)), num, endpoint=endpoint
    )
    out = ufuncs.multiply(sign, lax.exp(logs))
    out = out if dtype is None else lax.convert_element_type(out, creation.to_dtype(dtype), False)
    return manipulation.moveaxis(out, 0, axis) if axis else out


# `Array` and tracer methods these functions back; `didax/numpy/__init__.py` puts them in
# `core.operator_table`
METHODS = {
    "copy": copy,
}

__all__ = [
    "copy",
    "empty",
    "empty_like",
    "full_like",
    "geomspace",
    "identity",
    "logspace",
]
