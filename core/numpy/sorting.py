"""Sorting and order: `sort`, `argsort` (ascending or descending, stable) and `argmin`.
Like `jax.numpy`'s.

Layer 5, after `cumulative`. NaNs sort last (first with `descending`); `argmin` is the
`argmax` of the order-reversed input, so ties and NaNs pick the first, as in JAX.
"""

from __future__ import annotations

from typing import Any

from didax import lax
from didax.numpy import (
    axis_args,
    creation,
    inner_jit,
    manipulation,
    promotion,
    reductions,
)
from didax.numpy.axis_args import _aval
from didax.numpy.predicates import _i32, _is_float


def argmin(a: Any, axis: int | None = None, out: None = None, keepdims: bool = False) -> Any:
    """Like `jax.numpy.argmin`: the first minimum (the first NaN, if any)."""
    promotion.check_arraylike("argmin", a)
    a = creation.asarray(a)
    if _is_float(a):
        flipped = lax.neg(a)
    else:  # ~x reverses the order of integers without overflow; `not` that of booleans
        flipped = lax.bitwise_not(a)
    return reductions.argmax(flipped, axis=axis, keepdims=keepdims)


def sort(
    a: Any,
    axis: int | None = -1,
    *,
    kind: Any = None,
    order: Any = None,
    stable: bool = True,
    descending: bool = False,
) -> Any:
    """Like `jax.numpy.sort` (NaNs last; with `descending`, first)."""
    a, axis = _sort_operand("sort", a, axis, order)
    return _sort_jit(a, axis, bool(stable), bool(descending))


def _sort(a: Any, axis: int, stable: bool, descending: bool) -> Any:
    out = lax.sort(a, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


_sort_jit = inner_jit.inner_jit(_sort, "sort", static_argnums=(1, 2, 3))


def argsort(
    a: Any,
    axis: int | None = -1,
    *,
    kind: Any = None,
    order: Any = None,
    stable: bool = True,
    descending: bool = False,
) -> Any:
    """Like `jax.numpy.argsort` (ties keep their order, descending too, as in JAX)."""
    a, axis = _sort_operand("argsort", a, axis, order)
    return _argsort_jit(a, axis, bool(stable), bool(descending))


def _argsort(a: Any, axis: int, stable: bool, descending: bool) -> Any:
    iota = lax.broadcasted_iota(_i32, _aval(a).shape, axis)
    if descending:  # reversed, sorted, reversed back: stable ties in descending order
        a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
    out = lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)[1]
    return lax.rev(out, (axis,)) if descending else out


_argsort_jit = inner_jit.inner_jit(_argsort, "argsort", static_argnums=(1, 2, 3))


def _sort_operand(name: str, a: Any, axis: int | None, order: Any) -> tuple[Any, int]:
    # the array and the axis sort/argsort sort along (None: of the flattened array)
    promotion.check_arraylike(name, a)
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    a = creation.asarray(a)
    if axis is None:
        a, axis = manipulation.ravel(a), 0
    return a, axis_args.canonical_axis(axis, _aval(a).ndim)


# `Array` and tracer methods these functions back; `didax/numpy/__init__.py` puts them in
# `core.operator_table`
METHODS = {
    "argmin": argmin,
    "argsort": argsort,
    "sort": sort,
}

__all__ = [
    "argmin",
    "argsort",
    "sort",
]
