"""Creation primitives: `iota` (and `broadcasted_iota`), and `full`, the scalar broadcast to a
shape that rules everywhere use to build zeros and ones.

Layer 2, after `shape`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import array, core, dtypes, typed_sharding, vma
from didax.core import NOT_MAPPED, ShapedArray
from didax.primitives import rules
from didax.primitives.convert import convert_element_type
from didax.primitives.shape import broadcast_in_dim

# ----------------------------------------------------------------------------- iota


iota_p = core.Primitive("iota")


def iota(dtype: Any, size: int) -> Any:
    """0, 1, ..., size-1. Like `jax.lax.iota`."""
    return broadcasted_iota(dtype, (int(size),), 0)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Any:
    """Like `jax.lax.broadcasted_iota`."""
    return iota_p.bind(
        dtype=dtypes.canonicalize(dtype),
        shape=tuple(int(s) for s in shape),
        dimension=int(dimension),
        sharding=None,
    )


def _iota_impl(*, dtype, shape, dimension, sharding):
    index = np.arange(shape[dimension], dtype=dtype)
    expanded = [1] * len(shape)
    expanded[dimension] = shape[dimension]
    return [np.broadcast_to(index.reshape(expanded), shape)]


core.impl_rules.register(iota_p, _iota_impl)
core.abstract_eval_rules.register(
    iota_p, lambda *, dtype, shape, dimension, sharding: [ShapedArray(shape, dtype)]
)


@core.vmap_rules.register(iota_p)
def _iota_vmap(axis_size, vals, dims, **params):  # never called: iota has no batched operand
    return [iota_p.bind(**params)], [NOT_MAPPED]


core.lowering_rules.register(
    iota_p,
    lambda ctx, *, dtype, shape, dimension, sharding: [
        ctx.hlo.iota(ctx.tensor_type(ctx.avals_out[0]), dimension)
    ],
)

# ----------------------------------------------------------------------------- full


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """The scalar `fill_value` broadcast to `shape` (`broadcast_in_dim` of a literal, as JAX
    writes `jnp.zeros`); a weak `fill_value` stays weak when `dtype` is None. Like
    `jax.lax.full`. Rules use it to build zeros."""
    aval = core.get_aval(fill_value)
    if aval.shape:
        raise TypeError(
            f"full must be called with scalar fill_value, got fill_value.shape {aval.shape}."
        )
    weak = dtype is None and aval.weak_type
    value = convert_element_type(fill_value, aval.dtype if dtype is None else dtype, weak)
    if tuple(shape):
        return broadcast_in_dim(value, tuple(shape), ())
    # shape (): the converted scalar itself (no equation, as in JAX), always an Array
    return (
        value
        if rules.is_didax_value(value)
        else array.eager_result(np.asarray(value, core.get_aval(value).dtype)[()], weak)
    )


def full_like(
    x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None
) -> Any:
    """`fill_value` in the shape and dtype of `x` (or `shape`, `dtype`); weak when `x` is and
    no `dtype` is given; a traced `x`'s split over `Explicit` axes kept (with no `shape`),
    and in a check_vma shard_map body its varying axes. Like `jax.lax.full_like`."""
    aval = core.get_aval(x)
    weak = dtype is None and aval.weak_type
    dtype = aval.dtype if dtype is None else dtypes.canonicalize(dtype)
    value = convert_element_type(fill_value, dtype, weak)
    fill_shape = aval.shape if shape is None else tuple(shape)
    traced = shape is None and isinstance(x, core.Tracer)
    split = typed_sharding.named(aval) if traced else None
    out = (
        broadcast_in_dim(value, fill_shape, (), out_sharding=split)
        if fill_shape
        else full((), value)
    )
    return vma.casts().pvary.bind(out, **vma.pvary_params(aval.vma)) if aval.vma else out


def shape_as_value(shape: Sequence[int]) -> Any:
    """A shape as an int32 array. Like `jax.lax.shape_as_value` (static shapes)."""
    if not shape:
        return full((0,), np.array(0, np.int32))
    return np.asarray(shape, dtype=np.int32)
