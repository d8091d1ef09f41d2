"""Shape primitives: broadcast_in_dim, reshape, transpose, squeeze, slice, pad, concatenate,
stack, iota, and reduce_sum; the helpers that other families' rules build on.

Layer 2. These are the linear structural operations. `reduce_sum` sits here, beside its
transpose `broadcast_in_dim`, because the elementwise family's transpose rules need it to
sum the cotangent of a broadcast scalar, and the shape family must come first. The helpers at
the end (`full`, `instantiate`, `unbroadcast`, `move_axis`, `broadcasting_vmap`) are what
jvp, transpose and vmap rules everywhere use to build zeros and move batch axes.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import array, core, dtypes, pretty
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal, Zero
from didax.primitives import common
from didax.primitives.convert import _scalar_constant, convert_element_type

# ----------------------------------------------------------------------------- broadcast_in_dim

broadcast_in_dim_p = core.Primitive("broadcast_in_dim")


def broadcast_in_dim(x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    """Broadcast `x` to `shape`, its dim i going to `broadcast_dimensions[i]`. Like
    `jax.lax.broadcast_in_dim`."""
    shape, dims = tuple(int(d) for d in shape), tuple(int(d) for d in broadcast_dimensions)
    if (
        core.get_aval(x).shape == shape
        and dims == tuple(range(len(shape)))
        and common.is_didax_value(x)
    ):
        return x
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=dims, sharding=None)


def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions, sharding):
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return [np.broadcast_to(x.reshape(expanded), shape)]


core.impl_rules.register(
    broadcast_in_dim_p, common.validated_impl(broadcast_in_dim_p, _broadcast_in_dim_impl)
)


@core.abstract_eval_rules.register(broadcast_in_dim_p)
def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions, sharding):
    if len(broadcast_dimensions) != x.ndim or any(
        not (0 <= d < len(shape)) or x.shape[i] not in (1, shape[d])
        for i, d in enumerate(broadcast_dimensions)
    ):
        raise TypeError(
            f"broadcast_in_dim: cannot broadcast {x.str_short()} to shape {shape} "
            f"with broadcast_dimensions={broadcast_dimensions}"
        )
    return [ShapedArray(shape, x.dtype, x.weak_type)]


core.jvp_rules.register(broadcast_in_dim_p, common.linear_unary_jvp(broadcast_in_dim_p.bind))


@core.transpose_rules.register(broadcast_in_dim_p)
def _broadcast_in_dim_transpose(cts, x, *, shape, broadcast_dimensions, sharding):
    (ct,) = cts
    in_shape = x.aval.shape
    new_axes = tuple(i for i in range(len(shape)) if i not in broadcast_dimensions)
    size1_axes = tuple(
        d for i, d in enumerate(broadcast_dimensions) if in_shape[i] == 1 and shape[d] != 1
    )
    summed = reduce_sum(ct, tuple(sorted(new_axes + size1_axes)))
    return [reshape(summed, in_shape) if size1_axes else summed]


@core.vmap_rules.register(broadcast_in_dim_p)
def _broadcast_in_dim_vmap(axis_size, vals, dims, *, shape, broadcast_dimensions, sharding):
    (x,), (d,) = vals, dims
    x = move_axis(x, d, 0, axis_size)
    new_dims = (0, *(b + 1 for b in broadcast_dimensions))
    return [broadcast_in_dim(x, (axis_size, *shape), new_dims)], [0]


@pretty.pp_params_rules.register(broadcast_in_dim_p)
def _broadcast_in_dim_pp(params):  # JAX prints the dims only, and only when there are some
    dims = params["broadcast_dimensions"]
    return [("broadcast_dimensions", dims)] if dims else []


@core.lowering_rules.register(broadcast_in_dim_p)
def _broadcast_in_dim_lowering(ctx, x, *, shape, broadcast_dimensions, sharding):
    return [ctx.hlo.broadcast_in_dim(ctx.tensor_type(ctx.avals_out[0]), x, broadcast_dimensions)]


# ----------------------------------------------------------------------------- reshape

reshape_p = core.Primitive("reshape")


def reshape(x: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None) -> Any:
    """Like `jax.lax.reshape` (row-major)."""
    new_sizes = tuple(int(d) for d in new_sizes)
    if dimensions is not None:  # read `x` in this axis order first (one equation, as JAX)
        dimensions = tuple(int(d) for d in dimensions)
        if dimensions == tuple(range(len(dimensions))):
            dimensions = None
    if dimensions is None and core.get_aval(x).shape == new_sizes and common.is_didax_value(x):
        return x
    return reshape_p.bind(x, new_sizes=new_sizes, dimensions=dimensions, sharding=None)


def _reshape_impl(x, *, new_sizes, dimensions, sharding):
    return [np.reshape(x if dimensions is None else np.transpose(x, dimensions), new_sizes)]


core.impl_rules.register(reshape_p, common.validated_impl(reshape_p, _reshape_impl))


@core.abstract_eval_rules.register(reshape_p)
def _reshape_abstract_eval(x, *, new_sizes, dimensions, sharding):
    if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
        raise TypeError(
            f"reshape: dimensions {dimensions} is not a permutation of the axes of {x.str_short()}"
        )
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(f"reshape: cannot reshape {x.str_short()} to new_sizes={new_sizes}")
    return [ShapedArray(new_sizes, x.dtype, x.weak_type)]


core.jvp_rules.register(reshape_p, common.linear_unary_jvp(reshape_p.bind))


@core.transpose_rules.register(reshape_p)
def _reshape_transpose(cts, x, *, new_sizes, dimensions, sharding):
    (ct,) = cts
    if dimensions is None:
        return [reshape(ct, x.aval.shape)]
    permuted = reshape(ct, tuple(x.aval.shape[d] for d in dimensions))
    return [transpose(permuted, tuple(int(i) for i in np.argsort(dimensions)))]


@core.vmap_rules.register(reshape_p)
def _reshape_vmap(axis_size, vals, dims, *, new_sizes, dimensions, sharding):
    (x,), (d,) = vals, dims
    batched_dims = None if dimensions is None else (0, *(i + 1 for i in dimensions))
    return [reshape(move_axis(x, d, 0, axis_size), (axis_size, *new_sizes), batched_dims)], [0]


@core.lowering_rules.register(reshape_p)
def _reshape_lowering(ctx, x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        x = ctx.hlo.transpose(x, dimensions)
    return [ctx.hlo.reshape(ctx.tensor_type(ctx.avals_out[0]), x)]


# ----------------------------------------------------------------------------- transpose

transpose_p = core.Primitive("transpose")


def transpose(x: Any, permutation: Sequence[int]) -> Any:
    """Permute the axes of `x`. Like `jax.lax.transpose`."""
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))) and common.is_didax_value(x):
        return x
    return transpose_p.bind(x, permutation=permutation)


core.impl_rules.register(
    transpose_p,
    common.validated_impl(transpose_p, lambda x, *, permutation: [np.transpose(x, permutation)]),
)


@core.abstract_eval_rules.register(transpose_p)
def _transpose_abstract_eval(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(
            f"transpose: permutation {permutation} is not a permutation of the "
            f"axes of {x.str_short()}"
        )
    return [ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)]


core.jvp_rules.register(transpose_p, common.linear_unary_jvp(transpose_p.bind))


@core.transpose_rules.register(transpose_p)
def _transpose_transpose(cts, x, *, permutation):
    (ct,) = cts
    inverse = tuple(int(i) for i in np.argsort(permutation))
    return [transpose(ct, inverse)]


@core.vmap_rules.register(transpose_p)
def _transpose_vmap(axis_size, vals, dims, *, permutation):
    (x,), (d,) = vals, dims
    x = move_axis(x, d, 0, axis_size)
    return [transpose(x, (0, *(p + 1 for p in permutation)))], [0]


core.lowering_rules.register(
    transpose_p, lambda ctx, x, *, permutation: [ctx.hlo.transpose(x, permutation)]
)


# ----------------------------------------------------------------------------- copy

copy_p = core.Primitive("copy")  # what `jnp.array(x)` stages: a copy, as in JAX


def copy(x: Any) -> Any:
    return copy_p.bind(x)


core.impl_rules.register(copy_p, lambda x: [np.array(x, copy=True)])
core.abstract_eval_rules.register(copy_p, common.same_aval)
core.jvp_rules.register(copy_p, common.linear_unary_jvp(copy_p.bind))
core.transpose_rules.register(
    copy_p, lambda cts, x: [cts[0] if isinstance(cts[0], Zero) else copy(cts[0])]
)
core.vmap_rules.register(copy_p, common.vectorized_vmap(copy_p.bind))
core.lowering_rules.register(copy_p, lambda ctx, x: [x])  # values are immutable in XLA


# ----------------------------------------------------------------------------- squeeze

squeeze_p = core.Primitive("squeeze")


def squeeze(x: Any, dimensions: Sequence[int]) -> Any:
    """Remove size-1 axes. Like `jax.lax.squeeze`."""
    ndim = core.get_aval(x).ndim
    dimensions = tuple(sorted(int(d) % ndim if ndim else int(d) for d in dimensions))
    if not dimensions and common.is_didax_value(x):
        return x
    return squeeze_p.bind(x, dimensions=dimensions)


core.impl_rules.register(
    squeeze_p,
    common.validated_impl(squeeze_p, lambda x, *, dimensions: [np.squeeze(x, dimensions)]),
)


@core.abstract_eval_rules.register(squeeze_p)
def _squeeze_abstract_eval(x, *, dimensions):
    if any(not (0 <= d < x.ndim) or x.shape[d] != 1 for d in dimensions):
        # a ValueError, as in JAX
        raise ValueError(
            f"squeeze: dimensions {dimensions} of {x.str_short()} are not all of size 1"
        )
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return [ShapedArray(shape, x.dtype, x.weak_type)]


core.jvp_rules.register(squeeze_p, common.linear_unary_jvp(squeeze_p.bind))


@core.transpose_rules.register(squeeze_p)
def _squeeze_transpose(cts, x, *, dimensions):
    (ct,) = cts
    return [reshape(ct, x.aval.shape)]


@core.vmap_rules.register(squeeze_p)
def _squeeze_vmap(axis_size, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    x = move_axis(x, d, 0, axis_size)
    return [squeeze(x, tuple(d + 1 for d in dimensions))], [0]


core.lowering_rules.register(
    squeeze_p, lambda ctx, x, *, dimensions: [ctx.hlo.reshape(ctx.tensor_type(ctx.avals_out[0]), x)]
)


def expand_dims(x: Any, dimensions: Sequence[int]) -> Any:
    """Insert size-1 axes (a broadcast_in_dim, as in JAX)."""
    shape = list(core.get_aval(x).shape)
    ndim = len(shape) + len(dimensions)
    dims = sorted(d % ndim for d in dimensions)
    for d in dims:
        shape.insert(d, 1)
    kept = tuple(i for i in range(ndim) if i not in dims)
    return broadcast_in_dim(x, tuple(shape), kept)


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


def _slice_impl(x, *, start_indices, limit_indices, strides):
    steps = strides or (1,) * len(start_indices)
    index = tuple(
        builtins.slice(s, e, st)
        for s, e, st in zip(start_indices, limit_indices, steps, strict=True)
    )
    return [np.asarray(x)[index]]


core.impl_rules.register(slice_p, common.validated_impl(slice_p, _slice_impl))


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


core.jvp_rules.register(slice_p, common.linear_unary_jvp(slice_p.bind))


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


core.impl_rules.register(pad_p, common.validated_impl(pad_p, _pad_impl))


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


@core.jvp_rules.register(pad_p)
def _pad_jvp(primals, tangents, *, padding_config):
    (x, v), (x_dot, v_dot) = primals, tangents
    out = pad(x, v, padding_config)
    if isinstance(x_dot, Zero) and isinstance(v_dot, Zero):
        return [out], [Zero.like(out)]
    return [out], [pad(instantiate(x_dot), instantiate(v_dot), padding_config)]


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
    common.validated_impl(
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


@core.jvp_rules.register(concatenate_p)
def _concatenate_jvp(primals, tangents, *, dimension):
    out = concatenate(primals, dimension)
    if all(isinstance(t, Zero) for t in tangents):
        return [out], [Zero.like(out)]
    return [out], [concatenate([instantiate(t) for t in tangents], dimension)]


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


@core.jvp_rules.register(stack_p)
def _stack_jvp(primals, tangents, *, axis):
    out = stack(primals, axis)
    if all(isinstance(t, Zero) for t in tangents):
        return [out], [Zero.like(out)]
    return [out], [stack([instantiate(t) for t in tangents], axis)]


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
# no jvp rule needed: iota has no operands, so its tangent is always a symbolic zero
# no transpose rule: iota has no operands


@core.vmap_rules.register(iota_p)
def _iota_vmap(axis_size, vals, dims, **params):  # never called: iota has no batched operand
    return [iota_p.bind(**params)], [NOT_MAPPED]


core.lowering_rules.register(
    iota_p,
    lambda ctx, *, dtype, shape, dimension, sharding: [
        ctx.hlo.iota(ctx.tensor_type(ctx.avals_out[0]), dimension)
    ],
)


# ----------------------------------------------------------------------------- reduce_sum

reduce_sum_p = core.Primitive("reduce_sum")


def reduce_sum(x: Any, axes: Sequence[int]) -> Any:
    """Sum over `axes`. Like `jax.lax.reduce_sum`."""
    return reduce_sum_p.bind(x, axes=tuple(sorted(int(a) for a in axes)), out_sharding=None)


def _reduce_sum_impl(x, *, axes, out_sharding):
    x = np.asarray(x)
    if not axes:  # XLA returns the operand (NumPy adds 0.0: -0.0 would become 0.0)
        return [x]
    return [np.asarray(np.sum(x, axis=axes, dtype=x.dtype))]


core.impl_rules.register(reduce_sum_p, _reduce_sum_impl)


def reduction_aval(name: str):
    def rule(x: ShapedArray, *, axes: tuple[int, ...], **params: Any) -> list[ShapedArray]:
        if any(not (0 <= a < x.ndim) for a in axes):
            raise TypeError(f"{name}: axes {axes} are out of bounds for {x.str_short()}")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return [ShapedArray(shape, x.dtype, x.weak_type)]

    return rule


core.abstract_eval_rules.register(reduce_sum_p, reduction_aval("reduce_sum"))
core.jvp_rules.register(reduce_sum_p, common.linear_unary_jvp(reduce_sum_p.bind))


@core.transpose_rules.register(reduce_sum_p)
def _reduce_sum_transpose(cts, x, *, axes, out_sharding):
    (ct,) = cts
    kept = tuple(i for i in range(x.aval.ndim) if i not in axes)
    return [broadcast_in_dim(ct, x.aval.shape, kept)]


def reduction_vmap(bind: Any):
    def rule(axis_size, vals, dims, *, axes, **params):
        (x,), (d,) = vals, dims
        new_axes = tuple(a + (a >= d) for a in axes)
        out_dim = d - sum(a < d for a in new_axes)
        return [bind(x, axes=tuple(sorted(new_axes)), **params)], [out_dim]

    return rule


core.vmap_rules.register(reduce_sum_p, reduction_vmap(reduce_sum_p.bind))
core.lowering_rules.register(reduce_sum_p, common.reduce_lowering("add"))

# ----------------------------------------------------------------------------- helpers


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
        if common.is_didax_value(value)
        else array.eager_result(np.asarray(value, core.get_aval(value).dtype)[()], weak)
    )


def instantiate(t: Any) -> Any:
    """A symbolic zero as an array of zeros; other tangents unchanged."""
    if not isinstance(t, Zero):
        return t
    zero = array.eager_result(np.zeros((), t.aval.dtype)[()], t.aval.weak_type)  # weak stays weak
    return broadcast_in_dim(zero, t.aval.shape, ())


def fit_shape(t: Any, aval: ShapedArray) -> Any:
    """A tangent of an operand that an elementwise op broadcast (a scalar, or size-1 axes),
    broadcast to the output's shape: its size-1 axes dropped, then broadcast (as JAX does)."""
    if isinstance(t, Zero):
        return Zero(aval)
    t_shape = core.get_aval(t).shape
    if t_shape == aval.shape:
        return t
    if not t_shape:
        return broadcast_in_dim(t, aval.shape, ())
    kept = tuple(i for i, (a, b) in enumerate(zip(t_shape, aval.shape, strict=True)) if a == b)
    return broadcast_in_dim(reshape(t, tuple(t_shape[i] for i in kept)), aval.shape, kept)


def unbroadcast(ct: Any, aval: ShapedArray) -> Any:
    """The cotangent of an operand that an elementwise op broadcast (a scalar, or size-1
    axes): summed over the broadcast axes, then reshaped to the operand's shape."""
    if isinstance(ct, Zero):
        return Zero(aval)
    ct_shape = core.get_aval(ct).shape
    if ct_shape == aval.shape:
        return ct
    if not aval.shape:
        return reduce_sum(ct, tuple(range(len(ct_shape))))
    axes = tuple(i for i, (a, b) in enumerate(zip(ct_shape, aval.shape, strict=True)) if a != b)
    return reshape(reduce_sum(ct, axes), aval.shape)


def move_axis(x: Any, src: Any, dst: int, axis_size: int) -> Any:
    """Move batch dim `src` of `x` to `dst`; an unmapped `x` is broadcast along a new axis."""
    if src is NOT_MAPPED:
        shape = list(core.get_aval(x).shape)
        shape.insert(dst, axis_size)
        return broadcast_in_dim(x, tuple(shape), tuple(i for i in range(len(shape)) if i != dst))
    if src == dst:
        return x
    perm = [i for i in range(core.get_aval(x).ndim) if i != src]
    perm.insert(dst, src)
    return transpose(x, tuple(perm))


def batch_to_front(x: Any, d: Any, out_shape: tuple[int, ...], axis_size: int) -> Any:
    """`x` as an operand of shape [axis_size, *out_shape], or left alone if it is an
    unbatched scalar (elementwise primitives accept scalars)."""
    shape = core.get_aval(x).shape
    if d is NOT_MAPPED:
        if not shape:
            return x
        return broadcast_in_dim(x, (axis_size, *out_shape), tuple(range(1, len(out_shape) + 1)))
    x = move_axis(x, d, 0, axis_size)
    if len(shape) - 1 == len(out_shape):
        return x
    return broadcast_in_dim(x, (axis_size, *out_shape), (0,))


def broadcasting_vmap(bind: Any) -> core.VmapRule:
    """Batching of an n-ary elementwise primitive, as JAX batches it: operands of one shape
    batched at one dim are bound as they are; otherwise batch dims go to the front, unbatched
    arrays get a size-1 batch axis and batched scalars trailing size-1 axes, and the
    primitive's size-1 broadcasting does the rest. Unbatched scalars are left alone."""

    def rule(axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple:
        shapes = [core.get_aval(x).shape for x in vals]
        shp, dim = next((s, d) for s, d in zip(shapes, dims, strict=True) if d is not NOT_MAPPED)
        if all(s == shp and d == dim for s, d in zip(shapes, dims, strict=True) if s):
            return [bind(*vals, **params)], [dim]
        moved = [
            move_axis(x, d, 0, 1) if s else x for x, s, d in zip(vals, shapes, dims, strict=True)
        ]
        ndim = builtins.max(core.get_aval(x).ndim for x in moved)
        moved = [
            x
            if d is NOT_MAPPED or len(s) == ndim
            else broadcast_in_dim(x, (axis_size,) + (1,) * (ndim - 1), (0,))
            for x, s, d in zip(moved, shapes, dims, strict=True)
        ]
        return [bind(*moved, **params)], [0]

    return rule


def front_broadcasting_vmap(bind: Any) -> core.VmapRule:
    """Batching of an elementwise primitive that does not broadcast size-1 axes (`clamp`):
    batch dims to the front, unbatched arrays broadcast along it, unbatched scalars left."""

    def rule(axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple:
        shapes = [core.get_aval(x).shape for x in vals]
        unbatched = [
            s if d is NOT_MAPPED else s[:d] + s[d + 1 :] for s, d in zip(shapes, dims, strict=True)
        ]
        out_shape = next((s for s in unbatched if s), ())
        moved = [
            batch_to_front(x, d, out_shape, axis_size) for x, d in zip(vals, dims, strict=True)
        ]
        return [bind(*moved, **params)], [0]

    return rule
