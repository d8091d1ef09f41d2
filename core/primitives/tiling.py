"""`tile`, `split` and `unstack`: JAX 0.10.2's primitives for `jnp.tile`, `jnp.split` and
`jnp.unstack` (their jaxprs show `tile[reps=...]`, `split[axis=... sizes=...]`,
`unstack[axis=...]`). Like `jax.lax.tile` ...

Layer 2, after `concatenation`. All three are linear: the jvp applies the op to the
tangents; the transposes are a reshape and `reduce_sum` (tile), `concatenate` (split) and
`stack` (unstack), as JAX's. Lowerings: broadcast and reshape (tile), static slices (split,
unstack).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core
from didax.core import NOT_MAPPED, UndefinedPrimal
from didax.primitives import ad_helpers, rules
from didax.primitives.concatenation import concatenate, stack_p
from didax.primitives.shape import reduce_sum, reshape

# ----------------------------------------------------------------------------- tile

tile_p = core.Primitive("tile")


def tile(x: Any, reps: Sequence[int]) -> Any:
    """`x` repeated `reps[i]` times along axis i. Like `jax.lax.tile`."""
    return tile_p.bind(x, reps=tuple(int(r) for r in reps))


core.impl_rules.register(
    tile_p, rules.validated_impl(tile_p, lambda x, *, reps: [np.tile(np.asarray(x), reps)])
)


@core.abstract_eval_rules.register(tile_p)
def _tile_abstract_eval(x, *, reps):
    if x.ndim != len(reps):
        raise TypeError(
            f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} and "
            f"x.ndim={x.ndim}."
        )
    return [x.update(shape=tuple(int(n) for n in np.multiply(x.shape, reps)))]


core.jvp_rules.register(tile_p, ad_helpers.linear_jvp(tile_p))


@core.transpose_rules.register(tile_p)
def _tile_transpose(cts, x, *, reps):
    (ct,) = cts
    pairs = tuple(k for pair in zip(reps, x.aval.shape, strict=True) for k in pair)
    return [reduce_sum(reshape(ct, pairs), tuple(2 * i for i in range(x.aval.ndim)))]


@core.vmap_rules.register(tile_p)
def _tile_vmap(axis_size, vals, dims, *, reps):
    (x,), (d,) = vals, dims
    new_reps = list(reps)
    new_reps.insert(d, 1)
    return [tile(x, new_reps)], [d]


@core.lowering_rules.register(tile_p)
def _tile_lowering(ctx, x, *, reps):
    (aval,), (out,) = ctx.avals_in, ctx.avals_out
    expanded = aval.update(shape=tuple(j for n in aval.shape for j in (1, n)))
    pairs = aval.update(shape=tuple(k for pair in zip(reps, aval.shape, strict=True) for k in pair))
    y = ctx.hlo.reshape(ctx.tensor_type(expanded), x)
    y = ctx.hlo.broadcast_in_dim(ctx.tensor_type(pairs), y, list(range(2 * aval.ndim)))
    return [ctx.hlo.reshape(ctx.tensor_type(out), y)]


# ----------------------------------------------------------------------------- split

split_p = core.Primitive("split", multiple_results=True)


def split(x: Any, sizes: Sequence[int], axis: int = 0) -> list[Any]:
    """`x` cut along `axis` into pieces of `sizes`. Like `jax.lax.split`."""
    # sizes kept as given: jnp.split passes np.int64s, which JAX's jaxprs print as such
    return split_p.bind(x, sizes=tuple(sizes), axis=int(axis))


def _split_impl(x, *, sizes, axis):
    return [np.asarray(p) for p in np.split(np.asarray(x), np.cumsum(sizes)[:-1], axis=axis)]


core.impl_rules.register(split_p, rules.validated_impl(split_p, _split_impl))


@core.abstract_eval_rules.register(split_p)
def _split_abstract_eval(x, *, sizes, axis):
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if x.shape[axis] != sum(sizes):
        raise ValueError(
            f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the operand "
            f"shape {list(x.shape)}"
        )
    shape = list(x.shape)
    outs = []
    for size in sizes:
        shape[axis] = size
        outs.append(x.update(shape=tuple(shape)))
    return outs


core.jvp_rules.register(split_p, ad_helpers.linear_jvp(split_p))


@core.transpose_rules.register(split_p)
def _split_transpose(cts, x, *, sizes, axis):
    assert isinstance(x, UndefinedPrimal), "split is transposed in its operand"
    return [concatenate([ad_helpers.instantiate(ct) for ct in cts], axis)]


@core.vmap_rules.register(split_p)
def _split_vmap(axis_size, vals, dims, *, sizes, axis):
    (x,), (d,) = vals, dims
    outs = split(x, sizes, axis + 1 if axis >= d else axis)
    return outs, [d] * len(sizes)


def _slices_lowering(ctx, x, axis, widths, squeeze):
    (aval,) = ctx.avals_in
    start, outs = 0, []
    for width, out in zip(widths, ctx.avals_out, strict=True):
        starts = [0] * aval.ndim
        limits = list(aval.shape)
        starts[axis], limits[axis] = start, start + width
        piece_shape = list(aval.shape)
        piece_shape[axis] = width
        piece = ctx.hlo.slice(x, starts, limits, [1] * aval.ndim)
        outs.append(ctx.hlo.reshape(ctx.tensor_type(out), piece) if squeeze else piece)
        start += width
    return outs


@core.lowering_rules.register(split_p)
def _split_lowering(ctx, x, *, sizes, axis):
    return _slices_lowering(ctx, x, axis, sizes, False)


# ----------------------------------------------------------------------------- unstack

unstack_p = core.Primitive("unstack", multiple_results=True)


def unstack(x: Any, axis: int = 0) -> tuple[Any, ...]:
    """The slices of `x` along `axis`, that axis removed, as a tuple. Like `jax.lax.unstack`."""
    return tuple(unstack_p.bind(x, axis=int(axis)))


def _unstack_impl(x, *, axis):
    x = np.asarray(x)
    return [np.asarray(np.take(x, i, axis=axis)) for i in range(x.shape[axis])]


core.impl_rules.register(unstack_p, rules.validated_impl(unstack_p, _unstack_impl))


@core.abstract_eval_rules.register(unstack_p)
def _unstack_abstract_eval(x, *, axis):
    if x.ndim == 0:
        raise ValueError(
            "unstack requires arrays with rank > 0, however a scalar array of shape () was passed."
        )
    shape = tuple(n for i, n in enumerate(x.shape) if i != axis)
    return [x.update(shape=shape) for _ in range(x.shape[axis])]


core.jvp_rules.register(unstack_p, ad_helpers.linear_jvp(unstack_p))


@core.transpose_rules.register(unstack_p)
def _unstack_transpose(cts, x, *, axis):
    return [stack_p.bind(*(ad_helpers.instantiate(ct) for ct in cts), axis=axis)]


@core.vmap_rules.register(unstack_p)
def _unstack_vmap(axis_size, vals, dims, *, axis):
    (x,), (d,) = vals, dims
    if d is NOT_MAPPED:
        outs = unstack(x, axis)
        return outs, [NOT_MAPPED] * len(outs)
    out_axis, out_d = (axis, d - 1) if axis < d else (axis + 1, d)
    outs = unstack(x, out_axis)
    return outs, [out_d] * len(outs)


@core.lowering_rules.register(unstack_p)
def _unstack_lowering(ctx, x, *, axis):
    (aval,) = ctx.avals_in
    return _slices_lowering(ctx, x, axis, [1] * aval.shape[axis], True)
