"""Cumulative sums and products: `cumsum`, `cumprod`. Like `jax.numpy`'s.

Layer 5, after `complex_parts`. Each binds its primitive (`cumsum`, `cumprod`) in an inner jit,
as JAX's does, so the jaxpr shows a `pjit` named for the function.
"""

from __future__ import annotations

from typing import Any

from didax import dtypes, lax
from didax.numpy import (
    axis_args,
    creation,
    inner_jit,
    manipulation,
    promotion,
)
from didax.numpy.axis_args import _aval
from didax.numpy.predicates import _i32


def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """Like `jax.numpy.cumsum`: the `cumsum` primitive, in an inner jit as JAX's."""
    return _cumsum_jit(*_scan_args("cumsum", a, axis, dtype))


def _scan_args(name: str, a: Any, axis: Any, dtype: Any) -> tuple[Any, int | None, Any]:
    promotion.check_arraylike(name, a)
    a = creation.asarray(a)
    axis = None if axis is None else axis_args.canonical_axis(axis, _aval(a).ndim)
    return a, axis, None if dtype is None else creation.to_dtype(dtype)


def _cumsum(x: Any, axis: int | None, dtype: Any) -> Any:
    if axis is None:
        x, axis = manipulation.ravel(x), 0
    x = _scan_dtype(x, dtype)
    return lax.cumsum(x, axis)


_cumsum_jit = inner_jit.inner_jit(_cumsum, "cumsum", static_argnums=(1, 2))


def _scan_dtype(x: Any, dtype: Any) -> Any:
    # an explicit dtype, else booleans accumulate in int32, as JAX's
    if dtype is not None:
        return lax.convert_element_type(x, dtype, False)
    if _aval(x).dtype == dtypes.bool_:
        return lax.convert_element_type(x, _i32, False)
    if _aval(x).weak_type:  # the sum of a weak scalar is strongly typed
        return lax.convert_element_type(x, _aval(x).dtype, False)
    return x


def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """Like `jax.numpy.cumprod`: the `cumprod` primitive, in an inner jit as JAX's."""
    return _cumprod_jit(*_scan_args("cumprod", a, axis, dtype))


def _cumprod(x: Any, axis: int | None, dtype: Any) -> Any:
    if axis is None:
        x, axis = manipulation.ravel(x), 0
    return lax.cumprod(_scan_dtype(x, dtype), axis)


_cumprod_jit = inner_jit.inner_jit(_cumprod, "cumprod", static_argnums=(1, 2))


# `Array` and tracer methods these functions back; `didax/numpy/__init__.py` puts them in
# `core.operator_table`
METHODS = {
    "cumsum": cumsum,
    "cumprod": cumprod,
}

__all__ = [
    "cumprod",
    "cumsum",
]
