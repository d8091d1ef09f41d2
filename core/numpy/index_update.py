"""`x.at[idx].set/add/sub/multiply/divide/power/min/max/get/apply`: functional updates, each
one `scatter*` (`.get` a gather). Like JAX's `_IndexUpdateHelper` and `_IndexUpdateRef`.

Layer 5, after `index_take`. The index is parsed and planned as `x[idx]` plans it
(`indexing.py`); updates drop out-of-bounds entries unless `mode="clip"`. `OPERATORS` gives
`Array` and tracers `x[idx]`, `x.at` and `x.take`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from didax import core, lax
from didax.interpreters import staging
from didax.numpy import creation, promotion, ufuncs
from didax.numpy.index_take import take
from didax.numpy.indexing import (
    _check_bool_shapes,
    _expand_bool,
    _gather_plan,
    getitem,
    parse,
    rewriting_take,
)
from didax.primitives import refs, slicing
from didax.primitives.slicing import (
    ScatterDimensionNumbers,
)
from didax.ref_types import AbstractRef

# ----------------------------------------------------------------------------- scatter


def _scatter(
    x: Any,
    index: Any,
    y: Any,
    op: Callable[..., Any],
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: Any,
) -> Any:
    x = creation.asarray(x)
    x_aval = core.get_aval(x)
    if (
        isinstance(y, int)
        and not isinstance(y, bool)
        and x_aval.dtype.kind in "iu"
        and np.iinfo(x_aval.dtype).min <= y <= np.iinfo(x_aval.dtype).max
    ):
        y = creation.asarray(y, x_aval.dtype)
    else:
        y = creation.asarray(y)
    entries = parse(index, x_aval.shape)
    _check_bool_shapes(entries, x_aval.shape)
    plan = _gather_plan(_expand_bool(entries), x_aval.shape)
    if 0 in plan.slice_shape:
        return x
    x, y = promotion.promote("scatter", x, y)
    y = promotion.broadcast_to(y, plan.slice_shape)
    if plan.newaxis_dims:
        y = lax.squeeze(y, plan.newaxis_dims)
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    if plan.scalar_bool_dims:
        x = lax.expand_dims(x, plan.scalar_bool_dims)
    dnums = ScatterDimensionNumbers(
        update_window_dims=plan.dnums.offset_dims,
        inserted_window_dims=plan.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=plan.dnums.start_index_map,
    )
    out = op(
        x,
        plan.indices,
        y,
        dnums,
        indices_are_sorted=plan.indices_are_sorted or indices_are_sorted,
        unique_indices=plan.unique_indices or unique_indices,
        mode=mode,
    )
    if plan.scalar_bool_dims:
        out = lax.squeeze(out, plan.scalar_bool_dims)
    return lax.convert_element_type(out, x_aval.dtype, x_aval.weak_type)


class _IndexUpdateRef:
    """`x.at[idx]`: the functional updates of `x` at `idx`. Like JAX's `_IndexUpdateRef`."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
        fill_value: Any = None,
        out_sharding: Any = None,
    ) -> Any:
        """`x[idx]`; out-of-bounds indices clamp unless `mode="fill"`."""
        if fill_value is not None and np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        if isinstance(fill_value, np.ndarray):
            fill_value = fill_value.item()
        return rewriting_take(
            self.array,
            self.index,
            mode=mode,
            fill_value=fill_value,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )

    def _update(self, op: Callable[..., Any], values: Any, kwargs: dict) -> Any:
        return _scatter(
            self.array,
            self.index,
            values,
            op,
            kwargs.get("indices_are_sorted", False),
            kwargs.get("unique_indices", False),
            kwargs.get("mode"),
        )

    def set(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] = values`, functionally."""
        return self._update(slicing.scatter, values, kwargs)

    def add(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] += values` (repeated indices accumulate)."""
        return self._update(slicing.scatter_add, values, kwargs)

    def subtract(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] -= values`."""
        return self._update(slicing.scatter_sub, values, kwargs)

    def multiply(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] *= values`."""
        return self._update(slicing.scatter_mul, values, kwargs)

    mul = multiply

    def divide(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] /= values`."""
        x = self.array
        ones = creation.ones_like(x)
        return ufuncs.divide(x, _IndexUpdateRef(ones, self.index).multiply(values, **kwargs))

    def power(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] **= values`."""
        x = self.array
        ones = creation.ones_like(x)
        return ufuncs.power(x, _IndexUpdateRef(ones, self.index).multiply(values, **kwargs))

    def min(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] = minimum(x[idx], values)`."""
        return self._update(slicing.scatter_min, values, kwargs)

    def max(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] = maximum(x[idx], values)`."""
        return self._update(slicing.scatter_max, values, kwargs)

    def apply(self, func: Callable[[Any], Any], **kwargs: Any) -> Any:
        """`x[idx] = func(x[idx])`, `func` applied once per occurrence of an index: one
        `scatter` carrying `func`'s jaxpr, as JAX's. Not differentiable (as in JAX)."""
        dtype = core.get_aval(creation.asarray(self.array)).dtype
        scalar = core.ShapedArray((), dtype)
        closed = staging.trace_to_jaxpr(lambda v, _: [func(v)], [scalar, scalar])
        if closed.consts:
            raise NotImplementedError(
                "didax: .at[].apply of a function closing over arrays is not supported"
            )

        def op(x: Any, indices: Any, y: Any, dnums: Any, **options: Any) -> Any:
            update_shape = core.get_aval(y).shape
            return slicing.scatter_apply(
                x, indices, closed.jaxpr, dnums, update_shape=update_shape, **options
            )

        zero = lax.convert_element_type(0, dtype)
        return self._update(op, zero, kwargs)


class _IndexUpdateHelper:
    """`x.at`: index it (`x.at[idx]`) to update `x` at `idx`. Like JAX's `x.at`."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


def _getitem(x: Any, index: Any) -> Any:  # `x[idx]`; a ref's tracer reads the ref
    if type(x.aval) is AbstractRef:
        return refs.ref_get(x, index)
    return getitem(x, index)


def _setitem(x: Any, index: Any, value: Any) -> None:  # `x[idx] = v`: only a ref's tracer
    if type(x.aval) is not AbstractRef:
        raise TypeError(
            "JAX arrays are immutable and do not support in-place item assignment. Instead "
            "of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
            "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"
        )
    refs.ref_set(x, index, value)


OPERATORS = {"getitem": _getitem, "setitem": _setitem, "at": _IndexUpdateHelper, "take": take}
