"""The `Array` methods and operators that `didax.numpy` provides (`x + y`, `x.sum()`,
`x.reshape(...)`, ...): `OPERATORS`, which `didax/numpy/__init__.py` puts in
`core.operator_table`, and `astype`.

Layer 5, after `products`.
"""

from __future__ import annotations

from typing import Any

from didax import lax
from didax.numpy.creation import to_dtype
from didax.numpy.manipulation import ravel, reshape, squeeze, swapaxes, transpose
from didax.numpy.products import dot, matmul
from didax.numpy.reductions import argmax, max, mean, min, prod, sum
from didax.numpy.ufuncs import (
    abs,
    add,
    clip,
    divide,
    equal,
    floor_divide,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_or,
    multiply,
    negative,
    not_equal,
    positive,
    power,
    remainder,
    subtract,
)


def astype(x: Any, dtype: Any) -> Any:
    return lax.convert_element_type(x, to_dtype(dtype), False)


def _reshape_method(x: Any, *shape: Any, order: str = "C", out_sharding: Any = None) -> Any:
    return reshape(x, shape[0] if len(shape) == 1 else shape, order, out_sharding=out_sharding)


def _transpose_method(x: Any, *axes: Any) -> Any:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return transpose(x, axes or None)


OPERATORS = {
    "add": add,
    "subtract": subtract,
    "multiply": multiply,
    "divide": divide,
    "floor_divide": floor_divide,
    "remainder": remainder,
    "power": power,
    "matmul": matmul,
    "less": less,
    "less_equal": less_equal,
    "greater": greater,
    "greater_equal": greater_equal,
    "equal": equal,
    "not_equal": not_equal,
    "logical_and": logical_and,
    "logical_or": logical_or,
    "negative": negative,
    "positive": positive,
    "abs": abs,
    "reshape_method": _reshape_method,
    "astype": astype,
    "sum": sum,
    "mean": mean,
    "max": max,
    "min": min,
    "prod": prod,
    "argmax": argmax,
    "transpose_method": _transpose_method,
    "transpose": transpose,
    "squeeze": squeeze,
    "swapaxes": swapaxes,
    "ravel": ravel,
    "flatten": ravel,
    "clip": clip,
    "dot": dot,
}


__all__ = [
    "astype",
]
