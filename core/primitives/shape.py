"""Shape primitives: broadcast_in_dim, reshape, transpose, copy, squeeze (and
`expand_dims`), rev, and reduce_sum; and `move_axis`, the batching helper their own vmap rules
need.

Layer 2, after `convert`. These are the linear structural operations. `reduce_sum` sits here,
beside its transpose `broadcast_in_dim`, because the elementwise family's transpose rules need
it to sum the cotangent of a broadcast scalar, and the shape family must come first. The
helpers built on these primitives are in `creation.py` (`full`), `ad_helpers.py` (`instantiate`,
`unbroadcast`) and `vmap_helpers.py` (`broadcasting_vmap`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, typed_sharding
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.jaxpr import pp_params_rules
from didax.primitives import rules
from didax.runtime.sharding import typed

# ----------------------------------------------------------------------------- broadcast_in_dim

broadcast_in_dim_p = core.Primitive("broadcast_in_dim")


def broadcast_in_dim(
    x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int], *, out_sharding: Any = None
) -> Any:
    """Broadcast `x` to `shape`, its dim i going to `broadcast_dimensions[i]` (`out_sharding`:
    a NamedSharding splitting the result over `Explicit` axes). Like
    `jax.lax.broadcast_in_dim`."""
    shape, dims = tuple(int(d) for d in shape), tuple(int(d) for d in broadcast_dimensions)
    if (
        core.get_aval(x).shape == shape
        and dims == tuple(range(len(shape)))
        and out_sharding is None
        and rules.is_didax_value(x)
    ):
        return x
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=dims, sharding=out_sharding)


def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions, sharding):
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return [np.broadcast_to(x.reshape(expanded), shape)]


core.impl_rules.register(
    broadcast_in_dim_p, rules.validated_impl(broadcast_in_dim_p, _broadcast_in_dim_impl)
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
    return [typed(ShapedArray(shape, x.dtype, x.weak_type), sharding)]


core.jvp_rules.register(broadcast_in_dim_p, rules.linear_unary_jvp(broadcast_in_dim_p.bind))


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


@pp_params_rules.register(broadcast_in_dim_p)
def _broadcast_in_dim_pp(params):  # JAX prints the dims only, and only when there are some
    dims = params["broadcast_dimensions"]
    return [("broadcast_dimensions", dims)] if dims else []


@core.lowering_rules.register(broadcast_in_dim_p)
def _broadcast_in_dim_lowering(ctx, x, *, shape, broadcast_dimensions, sharding):
    return [ctx.hlo.broadcast_in_dim(ctx.tensor_type(ctx.avals_out[0]), x, broadcast_dimensions)]


# ----------------------------------------------------------------------------- reshape


reshape_p = core.Primitive("reshape")


def reshape(
    x: Any,
    new_sizes: Sequence[int],
    dimensions: Sequence[int] | None = None,
    *,
    out_sharding: Any = None,
) -> Any:
    """Like `jax.lax.reshape` (row-major; `out_sharding`: a NamedSharding, or a spec over
    the context mesh, splitting the result over `Explicit` axes)."""
    sharding = None if out_sharding is None else typed_sharding.resolve(out_sharding)
    new_sizes = tuple(int(d) for d in new_sizes)
    if dimensions is not None:  # read `x` in this axis order first (one equation, as JAX)
        dimensions = tuple(int(d) for d in dimensions)
        if dimensions == tuple(range(len(dimensions))):
            dimensions = None
    if (
        dimensions is None
        and sharding is None
        and core.get_aval(x).shape == new_sizes
        and rules.is_didax_value(x)
    ):
        return x
    return reshape_p.bind(x, new_sizes=new_sizes, dimensions=dimensions, sharding=sharding)


def _reshape_impl(x, *, new_sizes, dimensions, sharding):
    return [np.reshape(x if dimensions is None else np.transpose(x, dimensions), new_sizes)]


core.impl_rules.register(reshape_p, rules.validated_impl(reshape_p, _reshape_impl))


@core.abstract_eval_rules.register(reshape_p)
def _reshape_abstract_eval(x, *, new_sizes, dimensions, sharding):
    if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
        raise TypeError(
            f"reshape: dimensions {dimensions} is not a permutation of the axes of {x.str_short()}"
        )
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(f"reshape: cannot reshape {x.str_short()} to new_sizes={new_sizes}")
    return [ShapedArray(new_sizes, x.dtype, x.weak_type)]


core.jvp_rules.register(reshape_p, rules.linear_unary_jvp(reshape_p.bind))


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
    if permutation == tuple(range(len(permutation))) and rules.is_didax_value(x):
        return x
    return transpose_p.bind(x, permutation=permutation)


core.impl_rules.register(
    transpose_p,
    rules.validated_impl(transpose_p, lambda x, *, permutation: [np.transpose(x, permutation)]),
)


@core.abstract_eval_rules.register(transpose_p)
def _transpose_abstract_eval(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(
            f"transpose: permutation {permutation} is not a permutation of the "
            f"axes of {x.str_short()}"
        )
    return [ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)]


core.jvp_rules.register(transpose_p, rules.linear_unary_jvp(transpose_p.bind))


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
core.abstract_eval_rules.register(copy_p, rules.same_aval)
core.jvp_rules.register(copy_p, rules.linear_unary_jvp(copy_p.bind))
core.transpose_rules.register(
    copy_p, lambda cts, x: [cts[0] if isinstance(cts[0], Zero) else copy(cts[0])]
)
core.vmap_rules.register(copy_p, rules.vectorized_vmap(copy_p.bind))
core.lowering_rules.register(copy_p, lambda ctx, x: [x])  # values are immutable in XLA

# ----------------------------------------------------------------------------- squeeze


squeeze_p = core.Primitive("squeeze")


def squeeze(x: Any, dimensions: Sequence[int]) -> Any:
    """Remove size-1 axes. Like `jax.lax.squeeze`."""
    ndim = core.get_aval(x).ndim
    dimensions = tuple(sorted(int(d) % ndim if ndim else int(d) for d in dimensions))
    if not dimensions and rules.is_didax_value(x):
        return x
    return squeeze_p.bind(x, dimensions=dimensions)


core.impl_rules.register(
    squeeze_p,
    rules.validated_impl(squeeze_p, lambda x, *, dimensions: [np.squeeze(x, dimensions)]),
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


core.jvp_rules.register(squeeze_p, rules.linear_unary_jvp(squeeze_p.bind))


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


# ----------------------------------------------------------------------------- rev

rev_p = core.Primitive("rev")


def rev(x: Any, dimensions: Sequence[int]) -> Any:
    """Reverse `x` along `dimensions`. Like `jax.lax.rev`."""
    return rev_p.bind(x, dimensions=tuple(int(d) for d in dimensions))


def _rev_impl(x, *, dimensions):
    _rev_abstract_eval(ShapedArray(np.shape(x), x.dtype), dimensions=dimensions)
    return [np.flip(np.asarray(x), dimensions) if dimensions else np.asarray(x)]


core.impl_rules.register(rev_p, _rev_impl)


@core.abstract_eval_rules.register(rev_p)
def _rev_abstract_eval(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions) or any(not 0 <= d < x.ndim for d in dimensions):
        raise TypeError(f"rev: dimensions {dimensions} are not distinct axes of {x.str_short()}")
    return [x]


core.jvp_rules.register(rev_p, rules.linear_unary_jvp(rev_p.bind))


@core.transpose_rules.register(rev_p)
def _rev_transpose(cts, x, *, dimensions):
    (ct,) = cts
    return [rev(ct, dimensions)]


@core.vmap_rules.register(rev_p)
def _rev_vmap(axis_size, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    x = move_axis(x, d, 0, axis_size)
    return [rev(x, tuple(k + 1 for k in dimensions))], [0]


core.lowering_rules.register(rev_p, lambda ctx, x, *, dimensions: [ctx.hlo.reverse(x, dimensions)])


# ----------------------------------------------------------------------------- reduce_sum


reduce_sum_p = core.Primitive("reduce_sum")


def reduce_sum(x: Any, axes: Sequence[int], *, out_sharding: Any = None) -> Any:
    """Sum over `axes` (`out_sharding`: a NamedSharding, or a spec over the context mesh,
    splitting the result over `Explicit` axes). Like `jax.lax.reduce_sum`."""
    split = None if out_sharding is None else typed_sharding.resolve(out_sharding)
    return reduce_sum_p.bind(x, axes=tuple(sorted(int(a) for a in axes)), out_sharding=split)


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
core.jvp_rules.register(reduce_sum_p, rules.linear_unary_jvp(reduce_sum_p.bind))


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
core.lowering_rules.register(reduce_sum_p, rules.reduce_lowering("add"))


@pp_params_rules.register(reduce_sum_p)
def _reduce_sum_pp(params):  # a given out_sharding: over the abstract mesh, as JAX prints it
    s = params["out_sharding"]
    if s is not None:
        s = f"NamedSharding(mesh={typed_sharding.AbstractMesh(s.mesh)!r}, spec={s.spec!r})"
    return [("axes", params["axes"]), ("out_sharding", s)]


# ----------------------------------------------------------------------------- move_axis (a batching helper the rules above use)


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


# ----------------------------------------------------------------------------- shape helpers
# (no primitives of their own: `broadcast_in_dim` and `reshape`, as JAX writes them)


def broadcast(x: Any, sizes: Sequence[int]) -> Any:
    """`x` with new leading axes of `sizes`. Like `jax.lax.broadcast`."""
    shape = np.shape(x) if not isinstance(x, core.Tracer) else core.get_aval(x).shape
    if not sizes:
        return x
    dims = tuple(range(len(sizes), len(sizes) + len(shape)))
    return broadcast_in_dim(x, (*sizes, *shape), dims)


def broadcast_to_rank(x: Any, rank: int) -> Any:
    """`x` with leading axes of size 1 up to `rank`. Like `jax.lax.broadcast_to_rank`."""
    ndim = core.get_aval(x).ndim
    return x if ndim == rank else broadcast(x, (1,) * (rank - ndim))


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape the `shapes` broadcast to (NumPy's rules). Like `jax.lax.broadcast_shapes`."""
    try:
        return tuple(int(n) for n in np.broadcast_shapes(*(tuple(s) for s in shapes)))
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
        ) from None


def collapse(x: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """`x` with the axes `start_dimension:stop_dimension` merged into one. Like
    `jax.lax.collapse`."""
    shape = core.get_aval(x).shape
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(
            f"Invalid dimension range passed to collapse: {shape}"
            f"[{start_dimension}:{stop_dimension}]"
        )
    size = int(np.prod(shape[lo:hi]))
    return reshape(x, (*shape[:lo], size, *shape[hi:]))


def broadcast_like(x: Any, like: Any) -> Any:
    """`x` broadcast (NumPy's rules, one `broadcast_in_dim`) to the shape of `like`. Like
    `jax.lax.broadcast_like`."""
    shape, target = core.get_aval(x).shape, core.get_aval(like).shape
    if shape == target:
        return x
    if np.broadcast_shapes(shape, target) != target:
        raise ValueError(
            f"Incompatible shapes for broadcasting: {shape} and requested shape {target}"
        )
    return broadcast_in_dim(x, target, tuple(range(len(target) - len(shape), len(target))))
