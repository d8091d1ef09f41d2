"""Joining and cutting arrays: slice, pad, concatenate, stack. They are each other's
transposes: slice's is a pad, pad's and concatenate's are slices.

Layer 2, after `vmap_helpers`.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal
from didax.primitives import rules
from didax.primitives.ad_helpers import linear_jvp
from didax.primitives.convert import _scalar_constant
from didax.primitives.shape import move_axis, reduce_sum, reshape, squeeze

# ----------------------------------------------------------------------------- slice


slice_p = core.Primitive("slice")


def slice(
    x: Any,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],  # noqa: A001
    strides: Sequence[int] | None = None,
) -> Any:
    """A static slice. Like `jax.lax.slice`."""
    strides = None if strides is None or all(s == 1 for s in strides) else tuple(strides)
    return slice_p.bind(
        x,
        start_indices=tuple(int(i) for i in start_indices),
        limit_indices=tuple(int(i) for i in limit_indices),
        strides=strides,
    )


def slice_in_dim(
    x: Any, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0
) -> Any:
    """A static slice along one axis (None: from the start / to the end; negative indices
    count from the end). Like `jax.lax.slice_in_dim`."""
    shape = core.get_aval(x).shape
    n = shape[axis]
    start = 0 if start_index is None else int(start_index)
    limit = n if limit_index is None else int(limit_index)
    start, limit = start + n if start < 0 else start, limit + n if limit < 0 else limit
    starts = tuple(start if d == axis else 0 for d in range(len(shape)))
    limits = tuple(limit if d == axis else size for d, size in enumerate(shape))
    strides = tuple(stride if d == axis else 1 for d in range(len(shape)))
    # its strides as given, all ones included (`strides=(1, 1)`), as JAX's jaxprs show
    return slice_p.bind(x, start_indices=starts, limit_indices=limits, strides=strides)


def _slice_impl(x, *, start_indices, limit_indices, strides):
    steps = strides or (1,) * len(start_indices)
    index = tuple(
        builtins.slice(s, e, st)
        for s, e, st in zip(start_indices, limit_indices, steps, strict=True)
    )
    return [np.asarray(x)[index]]


core.impl_rules.register(slice_p, rules.validated_impl(slice_p, _slice_impl))


@core.abstract_eval_rules.register(slice_p)
def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
    steps = strides or (1,) * x.ndim
    if not (len(start_indices) == len(limit_indices) == len(steps) == x.ndim) or any(
        not (0 <= s <= e <= n) for s, e, n in zip(start_indices, limit_indices, x.shape)
    ):
        raise TypeError(
            f"slice: indices start={start_indices} limit={limit_indices} are "
            f"out of bounds for {x.str_short()}"
        )
    shape = tuple(
        max(0, -(-(e - s) // st))
        for s, e, st in zip(start_indices, limit_indices, steps, strict=True)
    )
    return [ShapedArray(shape, x.dtype, x.weak_type)]


core.jvp_rules.register(slice_p, rules.linear_unary_jvp(slice_p.bind))


@core.transpose_rules.register(slice_p)
def _slice_transpose(cts, x, *, start_indices, limit_indices, strides):
    (ct,) = cts
    steps = strides or (1,) * x.aval.ndim
    out_shape = core.get_aval(ct).shape
    config = tuple(
        (s, n - (s + (o - 1) * st + 1) if o else n - s, st - 1 if o else 0)
        for s, n, o, st in zip(start_indices, x.aval.shape, out_shape, steps, strict=True)
    )
    return [pad(ct, _scalar_constant(np.zeros((), x.aval.dtype), False), config)]


@core.vmap_rules.register(slice_p)
def _slice_vmap(axis_size, vals, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = vals, dims
    x = move_axis(x, d, 0, axis_size)
    return [
        slice(
            x,
            (0, *start_indices),
            (axis_size, *limit_indices),
            None if strides is None else (1, *strides),
        )
    ], [0]


@core.lowering_rules.register(slice_p)
def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides):
    return [ctx.hlo.slice(x, start_indices, limit_indices, strides or (1,) * len(start_indices))]


# ----------------------------------------------------------------------------- pad


pad_p = core.Primitive("pad")


def pad(x: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """Pad with low, high and interior padding (non-negative here). Like `jax.lax.pad`."""
    return pad_p.bind(
        x, padding_value, padding_config=tuple(tuple(int(i) for i in c) for c in padding_config)
    )


def _pad_impl(x, value, *, padding_config):
    x = np.asarray(x)
    # negative low/high padding crops: pad by the positive parts, then cut the negative ones
    grown = [
        (builtins.max(lo, 0), builtins.max(hi, 0), interior) for lo, hi, interior in padding_config
    ]
    shape = tuple(
        lo + hi + n + max(0, n - 1) * interior
        for n, (lo, hi, interior) in zip(x.shape, grown, strict=True)
    )
    out = np.full(shape, value, x.dtype)
    index = tuple(
        builtins.slice(lo, lo + (n - 1) * (interior + 1) + 1 if n else lo, interior + 1)
        for n, (lo, _, interior) in zip(x.shape, grown, strict=True)
    )
    out[index] = x
    crop = tuple(
        builtins.slice(-builtins.min(lo, 0), n + builtins.min(hi, 0))
        for n, (lo, hi, _) in zip(shape, padding_config, strict=True)
    )
    return [out[crop]]


core.impl_rules.register(pad_p, rules.validated_impl(pad_p, _pad_impl))


@core.abstract_eval_rules.register(pad_p)
def _pad_abstract_eval(x, value, *, padding_config):
    if len(padding_config) != x.ndim or any(interior < 0 for _, _, interior in padding_config):
        raise TypeError(f"pad: bad padding_config {padding_config} for {x.str_short()}")
    shape = tuple(
        lo + hi + n + max(0, n - 1) * interior
        for n, (lo, hi, interior) in zip(x.shape, padding_config, strict=True)
    )
    if any(d < 0 for d in shape):
        raise TypeError(
            f"pad: padding_config {padding_config} gives {x.str_short()} the negative shape {shape}"
        )
    return [ShapedArray(shape, x.dtype, x.weak_type)]


core.jvp_rules.register(pad_p, linear_jvp(pad_p))  # linear in x and the value


@core.transpose_rules.register(pad_p)
def _pad_transpose(cts, x, v, *, padding_config):
    (ct,) = cts
    shape = core.get_aval(ct).shape
    # undo the low/high padding (negative padding cropped: pad those parts back with zeros),
    # then take every (interior + 1)-th element
    unpad = tuple((-lo, -hi, 0) for lo, hi, _ in padding_config)
    unpadded = (
        ct
        if not any(lo or hi for lo, hi, _ in unpad)
        else pad(ct, _scalar_constant(np.zeros((), core.get_aval(ct).dtype), False), unpad)
    )
    strides = tuple(interior + 1 for _, _, interior in padding_config)
    ct_x = slice(unpadded, (0,) * len(shape), core.get_aval(unpadded).shape, strides)
    ct_v = None
    if isinstance(v, UndefinedPrimal):
        total = reduce_sum(ct, tuple(range(len(shape))))
        ct_v = total - reduce_sum(ct_x, tuple(range(len(shape))))
    return [ct_x, ct_v]


@core.vmap_rules.register(pad_p)
def _pad_vmap(axis_size, vals, dims, *, padding_config):
    (x, v), (dx, dv) = vals, dims
    x = move_axis(x, dx, 0, axis_size)
    config = ((0, 0, 0), *padding_config)
    if dv is NOT_MAPPED:
        return [pad(x, v, config)], [0]
    # A batched padding value: one pad per example (JAX selects with a padded mask, but
    # select_n belongs to a family defined after this one).
    v = move_axis(v, dv, 0, axis_size)
    shape = core.get_aval(x).shape
    rows = [
        pad(
            slice(x, (b, *(0 for _ in shape[1:])), (b + 1, *shape[1:])),
            reshape(slice(v, (b,), (b + 1,)), ()),
            config,
        )
        for b in range(axis_size)
    ]
    return [concatenate(rows, 0)], [0]


@core.lowering_rules.register(pad_p)
def _pad_lowering(ctx, x, v, *, padding_config):
    low, high, interior = zip(*padding_config) if padding_config else ((), (), ())
    return [ctx.hlo.pad(x, v, low, high, interior)]


# ----------------------------------------------------------------------------- concatenate


concatenate_p = core.Primitive("concatenate")


def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    """Join arrays along `dimension`. Like `jax.lax.concatenate`."""
    return concatenate_p.bind(*operands, dimension=int(dimension))


core.impl_rules.register(
    concatenate_p,
    rules.validated_impl(
        concatenate_p, lambda *xs, dimension: [np.concatenate(xs, axis=dimension)]
    ),
)


@core.abstract_eval_rules.register(concatenate_p)
def _concatenate_abstract_eval(*xs, dimension):
    first = xs[0]
    if any(x.dtype != first.dtype for x in xs):
        raise TypeError(
            "concatenate: operands must have the same dtype, got "
            + ", ".join(x.dtype.name for x in xs)
        )
    if not (0 <= dimension < first.ndim) or any(
        x.ndim != first.ndim
        or any(a != b for i, (a, b) in enumerate(zip(x.shape, first.shape)) if i != dimension)
        for x in xs
    ):
        raise TypeError(
            f"concatenate: cannot concatenate shapes "
            f"{', '.join(str(x.shape) for x in xs)} along dimension {dimension}"
        )
    shape = list(first.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return [ShapedArray(tuple(shape), first.dtype, all(x.weak_type for x in xs))]


core.jvp_rules.register(concatenate_p, linear_jvp(concatenate_p))


@core.transpose_rules.register(concatenate_p)
def _concatenate_transpose(cts, *xs, dimension):
    (ct,) = cts
    cts_out, start = [], 0
    for x in xs:
        aval = x.aval if isinstance(x, UndefinedPrimal) else core.get_aval(x)
        stop = start + aval.shape[dimension]
        if isinstance(x, UndefinedPrimal):
            starts = tuple(start if i == dimension else 0 for i in range(aval.ndim))
            limits = tuple(stop if i == dimension else n for i, n in enumerate(aval.shape))
            cts_out.append(slice(ct, starts, limits))
        else:
            cts_out.append(None)
        start = stop
    return cts_out


@core.vmap_rules.register(concatenate_p)
def _concatenate_vmap(axis_size, vals, dims, *, dimension):
    moved = [move_axis(x, d, 0, axis_size) for x, d in zip(vals, dims, strict=True)]
    return [concatenate(moved, dimension + 1)], [0]


core.lowering_rules.register(
    concatenate_p, lambda ctx, *xs, dimension: [ctx.hlo.concatenate(list(xs), dimension)]
)

# ----------------------------------------------------------------------------- stack


stack_p = core.Primitive("stack")  # JAX 0.10's jaxprs show jnp.stack as this primitive


def stack(operands: Sequence[Any], axis: int = 0) -> Any:
    """Stack equal-shaped arrays along a new `axis`."""
    return stack_p.bind(*operands, axis=int(axis))


core.impl_rules.register(stack_p, lambda *xs, axis: [np.stack(xs, axis=axis)])


@core.abstract_eval_rules.register(stack_p)
def _stack_abstract_eval(*xs, axis):
    first = xs[0]
    if any(x.shape != first.shape or x.dtype != first.dtype for x in xs):
        raise TypeError(
            "stack: all input arrays must have the same shape and dtype, got "
            + ", ".join(x.str_short() for x in xs)
        )
    if not (0 <= axis <= first.ndim):
        raise TypeError(f"stack: axis {axis} is out of bounds for {first.str_short()}")
    shape = (*first.shape[:axis], len(xs), *first.shape[axis:])
    return [ShapedArray(shape, first.dtype, all(x.weak_type for x in xs))]


core.jvp_rules.register(stack_p, linear_jvp(stack_p))


@core.transpose_rules.register(stack_p)
def _stack_transpose(cts, *xs, axis):
    (ct,) = cts
    out = []
    for i, x in enumerate(xs):
        if not isinstance(x, UndefinedPrimal):
            out.append(None)
        else:
            shape = core.get_aval(ct).shape
            starts = tuple(i if d == axis else 0 for d in range(len(shape)))
            limits = tuple(i + 1 if d == axis else n for d, n in enumerate(shape))
            out.append(squeeze(slice(ct, starts, limits), (axis,)))
    return out


@core.vmap_rules.register(stack_p)
def _stack_vmap(axis_size, vals, dims, *, axis):
    moved = [move_axis(x, d, 0, axis_size) for x, d in zip(vals, dims, strict=True)]
    return [stack(moved, axis + 1)], [0]


@core.lowering_rules.register(stack_p)
def _stack_lowering(ctx, *xs, axis):  # each operand gets a size-1 axis, then concatenate
    pieces = []
    for x, aval in zip(xs, ctx.avals_in, strict=True):
        piece = aval.update(shape=(*aval.shape[:axis], 1, *aval.shape[axis:]))
        pieces.append(ctx.hlo.reshape(ctx.tensor_type(piece), x))
    return [ctx.hlo.concatenate(pieces, axis)]


def index_in_dim(x: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    """The slice of `x` at the static `index` along `axis`. Like `jax.lax.index_in_dim`."""
    index, axis = int(index), int(axis)
    size = core.get_aval(x).shape[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    out = slice_in_dim(x, wrapped, wrapped + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))
