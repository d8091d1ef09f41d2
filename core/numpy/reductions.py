"""Reductions: `sum`, `mean`, `max`, `min`, `prod`, `argmax`, with `axis` and `keepdims`.

Layer 5, after `ufuncs`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy.axis_args import canonical_axes, expand_reduced
from didax.numpy.creation import to_dtype
from didax.numpy.manipulation import reshape
from didax.numpy.promotion import check_arraylike

_LOW_PRECISION = (dtypes.float16, np.dtype(dtypes.bfloat16))  # reduced in float32, as JAX


def sum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """Like `jax.numpy.sum`."""
    check_arraylike("sum", x)
    axes = canonical_axes("sum", x, axis)
    aval = core.get_aval(x)
    if dtype is not None:
        x = lax.convert_element_type(x, to_dtype(dtype), False)
    elif aval.dtype == dtypes.bool_ or (dtypes.is_int(aval.dtype) and aval.dtype.itemsize < 4):
        x = lax.convert_element_type(
            x, dtypes.int32 if aval.dtype.kind != "u" else np.uint32, False
        )
    elif aval.dtype in _LOW_PRECISION:  # summed in float32, as JAX does
        out = sum(lax.convert_element_type(x, dtypes.float32, False), axes, keepdims=keepdims)
        return lax.convert_element_type(out, aval.dtype, False)
    elif aval.weak_type:
        x = lax.convert_element_type(x, aval.dtype, False)
    out = lax.reduce_sum(x, axes)
    return expand_reduced(out, x, axes) if keepdims else out


def mean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """Like `jax.numpy.mean`."""
    check_arraylike("mean", x)
    axes = canonical_axes("mean", x, axis)
    aval = core.get_aval(x)
    count = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    out_dtype = (
        to_dtype(dtype)
        if dtype is not None
        else (aval.dtype if dtypes.is_float(aval.dtype) else dtypes.float32)
    )
    # As JAX: bools count as int32; float16/bfloat16 are averaged in float32
    compute = dtypes.float32 if out_dtype in _LOW_PRECISION else out_dtype
    if aval.dtype == dtypes.bool_:
        x = lax.convert_element_type(x, dtypes.int32, False)
    total = sum(lax.convert_element_type(x, compute, False), axis=axes, keepdims=keepdims)
    out = lax.div(total, lax.convert_element_type(float(count), compute, False))
    return out if compute == out_dtype else lax.convert_element_type(out, out_dtype, False)


def _reduction_function(name: str, fn: Any) -> Any:
    def op(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        check_arraylike(name, x)
        axes = canonical_axes(name, x, axis)
        aval = core.get_aval(x)
        if any(aval.shape[a] == 0 for a in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
        if aval.weak_type or dtypes.is_python_scalar(x):  # reductions give strong types
            x = lax.convert_element_type(x, aval.dtype, False)
        out = fn(x, axes)
        return expand_reduced(out, x, axes) if keepdims else out

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


max = _reduction_function("max", lax.reduce_max)  # noqa: A001


min = _reduction_function("min", lax.reduce_min)  # noqa: A001


amax, amin = max, min


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Like `jax.numpy.prod`."""
    check_arraylike("prod", x)
    axes = canonical_axes("prod", x, axis)
    aval = core.get_aval(x)
    if aval.dtype == dtypes.bool_ or (dtypes.is_int(aval.dtype) and aval.dtype.itemsize < 4):
        x = lax.convert_element_type(x, dtypes.int32, False)
    elif aval.dtype in _LOW_PRECISION:  # multiplied in float32, as JAX does
        out = prod(lax.convert_element_type(x, dtypes.float32, False), axes, keepdims)
        return lax.convert_element_type(out, aval.dtype, False)
    elif aval.weak_type or dtypes.is_python_scalar(x):  # reductions give strong types
        x = lax.convert_element_type(x, aval.dtype, False)
    out = lax.reduce_prod(x, axes)
    return expand_reduced(out, x, axes) if keepdims else out


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    """Like `jax.numpy.argmax`."""
    check_arraylike("argmax", x)
    if axis is None:
        flat = reshape(x, (-1,))
        out = lax.argmax(flat, 0)
        axes = tuple(range(core.get_aval(x).ndim))
    else:
        (a,) = canonical_axes("argmax", x, axis)
        if core.get_aval(x).shape[a] == 0:
            raise ValueError("attempt to get argmax of an empty sequence")
        out = lax.argmax(x, a)
        axes = (a,)
    return expand_reduced(out, x, axes) if keepdims else out


__all__ = [
    "amax",
    "amin",
    "argmax",
    "max",
    "mean",
    "min",
    "prod",
    "sum",
]
