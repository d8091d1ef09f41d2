"""The collectives that move blocks between the indices of a named axis: all_gather,
psum_scatter (`reduce_scatter`), ppermute and all_to_all.

Layer 4, in didax.parallel after collectives.py (whose axis helpers, replica groups and
varying-axes rule they share). As the all-reduces: under vmap the batching rule is the
semantics (a gather, a sum and slice, a permutation or a transpose of the batch axis); in a
shard_map body, or pmap's program, each lowers to its op between partitions or replicas
(`stablehlo.all_gather`, `reduce_scatter`, `collective_permute`, `all_to_all`). In a
check_vma body their values still vary along the axes they act over.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, typed_sharding, vma
from didax.core import NOT_MAPPED
from didax.parallel.collectives import (
    add_combiner,
    axes_tuple,
    channel_attrs,
    check_groups,
    device_groups,
    replica_groups,
)
from didax.primitives import concatenation, elementwise, rules, shape
from didax.tree_util import tree_flatten, tree_unflatten

# ----------------------------------------------------------------------------- gathers


def _names_size(axis_name: tuple[Any, ...]) -> int:
    return int(np.prod([core.axis_frame_size(n) for n in axis_name], dtype=np.int64))


def _one_name(prim: str, axis_name: tuple[Any, ...], frame: Any) -> None:
    if axis_name != (frame,):  # JAX: "Please open a feature request!"
        raise NotImplementedError(f"{prim} over several axis names {axis_name} under vmap")


def _unbound_impl(name: str) -> Any:
    def impl(*args, axis_name, **params):
        raise NameError(f"unbound axis name: {axes_tuple(axis_name)[0]}")

    return impl


def _fold_axis(x: Any, axis: int) -> Any:
    # merge `axis` and the one after it
    shp = list(core.get_aval(x).shape)
    shp[axis : axis + 2] = [shp[axis] * shp[axis + 1]]
    return shape.reshape(x, tuple(shp))


def _split_axis(x: Any, axis: int, factor: int) -> Any:
    shp = list(core.get_aval(x).shape)
    shp[axis : axis + 1] = [factor, shp[axis] // factor]
    return shape.reshape(x, tuple(shp))


all_gather_p = core.Primitive("all_gather")
core.axis_name_params[all_gather_p] = "axis_name"


def all_gather(
    x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0, tiled: bool = False
) -> Any:
    """Every index of the named axis gets all the values of `x` along it, stacked at `axis`
    (or concatenated, with `tiled=True`). Like `jax.lax.all_gather`."""
    names = axes_tuple(axis_name)
    check_groups("all_gather", axis_index_groups)
    size = _names_size(names)
    leaves, tree = tree_flatten(x)
    outs = []
    for leaf in leaves:
        ndim = core.get_aval(leaf).ndim + (0 if tiled else 1)
        if not -ndim <= axis < ndim:
            raise ValueError(f"all_gather: axis {axis} is out of bounds for rank {ndim}")
        dim = axis % ndim
        outs.append(
            all_gather_p.bind(
                leaf,
                all_gather_dimension=dim,
                axis_name=names,
                axis_index_groups=None,
                axis_size=size,
                tiled=tiled,
            )
        )
    return tree_unflatten(tree, outs)


core.impl_rules.register(all_gather_p, _unbound_impl("all_gather"))


@core.abstract_eval_rules.register(all_gather_p)
def _all_gather_abstract_eval(
    x, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled
):
    shp = list(x.shape)
    if tiled:
        shp[all_gather_dimension] *= axis_size
    else:
        shp.insert(all_gather_dimension, axis_size)
    return [x.update(shape=tuple(shp))]  # varying as its operand


core.vma_rules.register(all_gather_p, vma.collective_rule("axis_name"))


core.jvp_rules.register(all_gather_p, rules.linear_unary_jvp(all_gather_p.bind))


@core.transpose_rules.register(all_gather_p)
def _all_gather_transpose(
    cts, x, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled
):
    (ct,) = cts  # each index keeps the sum of the cotangents of its own slice
    return [psum_scatter(ct, axis_name, scatter_dimension=all_gather_dimension, tiled=tiled)]


def _shift_past_batch(dim: int, d: Any, tiled: bool) -> tuple[int, Any]:
    # Under another frame's vmap (all_gather and psum_scatter alike): the collective's axis
    # `dim` moves past a batch axis `d` at or before it; an untiled collective's batch axis
    # after it moves by one.
    if d is not NOT_MAPPED:
        if d <= dim:
            dim += 1
        elif not tiled:
            d += 1
    return dim, d


@core.vmap_rules.register(all_gather_p)
def _all_gather_vmap(
    frame_size, vals, dims, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled
):
    (x,), (d,) = vals, dims
    frame = getattr(frame_size, "name", None)
    params = dict(
        axis_name=axis_name, axis_index_groups=axis_index_groups, axis_size=axis_size, tiled=tiled
    )
    if frame not in axis_name:  # another frame's axis
        dim, d = _shift_past_batch(all_gather_dimension, d, tiled)
        return [all_gather_p.bind(x, all_gather_dimension=dim, **params)], [d]
    _one_name("all_gather", axis_name, frame)
    # the batch axis IS the gathered axis: the same stacked value at every index
    y = shape.move_axis(x, d, all_gather_dimension, frame_size)
    return [_fold_axis(y, all_gather_dimension) if tiled else y], [NOT_MAPPED]


@core.lowering_rules.register(all_gather_p)
def _all_gather_lowering(
    ctx, x, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled
):
    groups = replica_groups(ctx, axis_name)
    aval = ctx.avals_in[0]
    if not tiled:  # stacked: gather along a new axis of size 1
        shp = list(aval.shape)
        shp.insert(all_gather_dimension, 1)
        x = ctx.hlo.reshape(ctx.tensor_type(aval.update(shape=tuple(shp))), x)
    out = ctx.tensor_type(ctx.avals_out[0])
    op = ctx.hlo.AllGatherOp([out], [x], all_gather_dimension, groups, **channel_attrs(ctx))
    return [op.results[0]]


# ----------------------------------------------------------------------------- scatters

reduce_scatter_p = core.Primitive("reduce_scatter")
core.axis_name_params[reduce_scatter_p] = "axis_name"


def psum_scatter(
    x: Any,
    axis_name: Any,
    *,
    scatter_dimension: int = 0,
    axis_index_groups: Any = None,
    tiled: bool = False,
) -> Any:
    """psum, of which index k of the named axis keeps only slice k along
    `scatter_dimension` (a block of it, with `tiled=True`). Like `jax.lax.psum_scatter`."""
    names = axes_tuple(axis_name)
    check_groups("psum_scatter", axis_index_groups)
    if not names:
        return x
    size = _names_size(names)
    leaves, tree = tree_flatten(x)
    outs = [
        reduce_scatter_p.bind(
            leaf,
            axis_name=names,
            scatter_dimension=scatter_dimension,
            axis_index_groups=None,
            axis_size=size,
            tiled=tiled,
        )
        for leaf in leaves
    ]
    return tree_unflatten(tree, outs)


core.impl_rules.register(reduce_scatter_p, _unbound_impl("reduce_scatter"))


@core.abstract_eval_rules.register(reduce_scatter_p)
def _reduce_scatter_abstract_eval(
    x, *, axis_name, scatter_dimension, axis_index_groups, axis_size, tiled
):
    shp = list(x.shape)
    n = shp[scatter_dimension]
    if tiled:
        if n % axis_size:
            raise ValueError(
                f"tiled reduce_scatter operand scatter dimension size {n} must be divisible "
                f"by shard_count {axis_size}"
            )
        shp[scatter_dimension] = n // axis_size
    else:
        if n != axis_size:
            raise ValueError(
                f"reduce_scatter operand scatter dimension size {n} must match shard count "
                f"{axis_size}"
            )
        del shp[scatter_dimension]
    return [x.update(shape=tuple(shp))]  # varying as its operand


core.vma_rules.register(reduce_scatter_p, vma.collective_rule("axis_name"))


core.jvp_rules.register(reduce_scatter_p, rules.linear_unary_jvp(reduce_scatter_p.bind))


@core.transpose_rules.register(reduce_scatter_p)
def _reduce_scatter_transpose(
    cts, x, *, axis_name, scatter_dimension, axis_index_groups, axis_size, tiled
):
    (ct,) = cts  # every index's slice came from every index: gather them back
    return [all_gather(ct, axis_name, axis=scatter_dimension, tiled=tiled)]


@core.vmap_rules.register(reduce_scatter_p)
def _reduce_scatter_vmap(
    frame_size, vals, dims, *, axis_name, scatter_dimension, axis_index_groups, axis_size, tiled
):
    (x,), (d,) = vals, dims
    frame = getattr(frame_size, "name", None)
    params = dict(
        axis_name=axis_name, axis_index_groups=axis_index_groups, axis_size=axis_size, tiled=tiled
    )
    if frame not in axis_name:  # another frame's axis
        dim, d = _shift_past_batch(scatter_dimension, d, tiled)
        return [reduce_scatter_p.bind(x, scatter_dimension=dim, **params)], [d]
    _one_name("psum_scatter", axis_name, frame)
    # the sum over the batch, whose slice k along scatter_dimension is index k's result
    if d is NOT_MAPPED:
        y = _times_after(x, int(frame_size))
    else:
        y = shape.reduce_sum(x, (d,))
    if tiled:
        y = _split_axis(y, scatter_dimension, int(frame_size))
    return [y], [scatter_dimension]


def _times_after(x: Any, size: int) -> Any:
    # `x * size`, as JAX writes it here: `mul x 3.0:f32[]`
    return elementwise.mul(x, np.array(size, core.get_aval(x).dtype))


@core.lowering_rules.register(reduce_scatter_p)
def _reduce_scatter_lowering(
    ctx, x, *, axis_name, scatter_dimension, axis_index_groups, axis_size, tiled
):
    groups = replica_groups(ctx, axis_name)
    aval, out_aval = ctx.avals_in[0], ctx.avals_out[0]
    shp = list(aval.shape)
    shp[scatter_dimension] //= axis_size  # 1 when not tiled: dropped below
    block = ctx.tensor_type(aval.update(shape=tuple(shp)))
    op = ctx.hlo.ReduceScatterOp(block, x, scatter_dimension, groups, **channel_attrs(ctx))
    add_combiner(ctx, op, aval.dtype, "add")
    out = op.results[0]
    return [out if tiled else ctx.hlo.reshape(ctx.tensor_type(out_aval), out)]


# ----------------------------------------------------------------------------- ppermute

ppermute_p = core.Primitive("ppermute")
core.axis_name_params[ppermute_p] = "axis_name"


def ppermute(x: Any, axis_name: Any, perm: Any) -> Any:
    """Send index `src`'s value to index `dst` for each `(src, dst)` in `perm`; indices that
    receive nothing get zeros. Like `jax.lax.ppermute`."""
    names = axes_tuple(axis_name)
    perm = tuple(tuple(int(i) for i in pair) for pair in perm)
    leaves, tree = tree_flatten(x)
    outs = [ppermute_p.bind(leaf, axis_name=names, perm=perm) for leaf in leaves]
    return tree_unflatten(tree, outs)


core.impl_rules.register(ppermute_p, _unbound_impl("ppermute"))
core.abstract_eval_rules.register(ppermute_p, rules.same_aval)
core.vma_rules.register(ppermute_p, vma.collective_rule("axis_name"))
core.jvp_rules.register(ppermute_p, rules.linear_unary_jvp(ppermute_p.bind))


@core.transpose_rules.register(ppermute_p)
def _ppermute_transpose(cts, x, *, axis_name, perm):
    (ct,) = cts  # send the cotangents back the way the values came
    return [ppermute_p.bind(ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))]


@core.vmap_rules.register(ppermute_p)
def _ppermute_vmap(frame_size, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    frame = getattr(frame_size, "name", None)
    if frame not in axis_name:
        return [ppermute_p.bind(x, axis_name=axis_name, perm=perm)], [d]
    rest = tuple(n for n in axis_name if n != frame)
    if rest:
        return [ppermute_p.bind(x, axis_name=rest, perm=perm)], [d]
    if len(perm) != int(frame_size):
        raise NotImplementedError(
            f"ppermute under vmap needs a full permutation of the axis of size "
            f"{int(frame_size)}, got perm={perm}"
        )
    if d is NOT_MAPPED:  # the same value everywhere: a full permutation leaves it alone
        return [x], [d]
    source = [0] * int(frame_size)
    for src, dst in perm:
        source[dst] = src
    return [_take_along(x, d, source)], [d]


def _take_along(x: Any, d: int, indices: list[int]) -> Any:
    # x's slices along `d`, in the order `indices` (JAX uses a gather; didax slices)
    aval = core.get_aval(x)
    pieces = []
    for i in indices:
        start = [0] * aval.ndim
        limit = list(aval.shape)
        start[d], limit[d] = i, i + 1
        pieces.append(concatenation.slice(x, tuple(start), tuple(limit)))
    return concatenation.concatenate(pieces, d)


@core.lowering_rules.register(ppermute_p)
def _ppermute_lowering(ctx, x, *, axis_name, perm):
    # each pair within each group (its ids sorted, as JAX does)
    groups = [sorted(g) for g in device_groups(ctx, axis_name)]
    pairs = np.array([(g[s], g[d]) for g in groups for s, d in perm], np.int64).reshape(-1, 2)
    out = ctx.tensor_type(ctx.avals_out[0])
    channel = channel_attrs(ctx, global_ids=False)
    op = ctx.hlo.CollectivePermuteOp(
        x, ctx.ir.DenseIntElementsAttr.get(pairs), results=[out], **channel
    )
    return [op.result]


# ----------------------------------------------------------------------------- all_to_all

all_to_all_p = core.Primitive("all_to_all")
core.axis_name_params[all_to_all_p] = "axis_name"


def all_to_all(
    x: Any,
    axis_name: Any,
    split_axis: int,
    concat_axis: int,
    *,
    axis_index_groups: Any = None,
    tiled: bool = False,
) -> Any:
    """Split `x` along `split_axis` into one chunk per index of the named axis, send chunk k
    to index k, and stack what arrives along `concat_axis` (concatenate, with `tiled=True`).
    Like `jax.lax.all_to_all`."""
    check_groups("all_to_all", axis_index_groups)
    leaves, tree = tree_flatten(x)
    return tree_unflatten(
        tree, [_all_to_all_leaf(v, axis_name, split_axis, concat_axis, tiled) for v in leaves]
    )


def _all_to_all_leaf(x: Any, axis_name: Any, split: int, concat: int, tiled: bool) -> Any:
    size = _names_size(axes_tuple(axis_name))
    n = core.get_aval(x).shape[split]
    if tiled:
        if n % size:
            raise ValueError(
                f"The size of all_to_all split_axis ({n}) has to be divisible by the size of "
                f"the named axis {axis_name} ({size})"
            )
    else:
        if n != size:
            raise ValueError(
                "all_to_all requires the size of the mapped axis axis_name to equal "
                f"x.shape[split_axis], but they are {size} and {n} respectively."
            )
        if split < concat:
            concat += 1  # concat_axis counts positions after split_axis is removed
            x = shape.expand_dims(x, (concat,))
        elif concat < split:
            x = shape.expand_dims(x, (concat,))
            split += 1
    out = all_to_all_p.bind(
        x,
        axis_name=axis_name,
        split_axis=split,
        concat_axis=concat,
        axis_index_groups=None,
        tiled=tiled,
    )
    if not tiled and split != concat:
        out = shape.squeeze(out, (split,))
    return out


core.impl_rules.register(all_to_all_p, _unbound_impl("all_to_all"))


@core.abstract_eval_rules.register(all_to_all_p)
def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_index_groups, tiled):
    size = _names_size(axes_tuple(axis_name))
    shp = list(x.shape)
    if shp[split_axis] % size:
        raise ValueError(
            f"all_to_all: split axis size {shp[split_axis]} is not divisible by {size}"
        )
    shp[split_axis] //= size
    shp[concat_axis] *= size
    return [x.update(shape=tuple(shp), weak_type=False)]  # varying as its operand


core.vma_rules.register(all_to_all_p, vma.collective_rule("axis_name"))


core.jvp_rules.register(all_to_all_p, rules.linear_unary_jvp(all_to_all_p.bind))


@core.transpose_rules.register(all_to_all_p)
def _all_to_all_transpose(cts, x, *, axis_name, split_axis, concat_axis, axis_index_groups, tiled):
    (ct,) = cts  # the chunks go back: split where they were stacked, stack where split
    return [
        all_to_all_p.bind(
            ct,
            axis_name=axis_name,
            split_axis=concat_axis,
            concat_axis=split_axis,
            axis_index_groups=axis_index_groups,
            tiled=tiled,
        )
    ]


@core.vmap_rules.register(all_to_all_p)
def _all_to_all_vmap(
    frame_size, vals, dims, *, axis_name, split_axis, concat_axis, axis_index_groups, tiled
):
    (x,), (d,) = vals, dims
    frame = getattr(frame_size, "name", None)
    names = axes_tuple(axis_name)
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups, tiled=tiled)
    if frame not in names:  # another frame's axis
        if d is not NOT_MAPPED:
            split_axis += d <= split_axis
            concat_axis += d <= concat_axis
        out = all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis, **params)
        return [out], [d]
    _one_name("all_to_all", names, frame)
    size = int(frame_size)
    if d is NOT_MAPPED:
        x, d = shape.move_axis(x, NOT_MAPPED, 0, size), 0
    if split_axis == concat_axis:
        axis = split_axis + (d <= split_axis)
        x = _split_axis(x, axis, size)
        moved = d + (axis <= d)
        perm = list(range(core.get_aval(x).ndim))
        perm[moved], perm[axis] = axis, moved
        return [_fold_axis(shape.transpose(x, tuple(perm)), axis)], [d]
    stacked = _fold_axis(shape.move_axis(x, d, concat_axis, size), concat_axis)
    return [_split_axis(stacked, split_axis, size)], [split_axis]


@core.lowering_rules.register(all_to_all_p)
def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, axis_index_groups, tiled):
    groups = device_groups(ctx, axes_tuple(axis_name))
    out = ctx.tensor_type(ctx.avals_out[0])
    op = ctx.hlo.AllToAllOp(
        [x],
        split_axis,
        concat_axis,
        groups.shape[1],
        ctx.ir.DenseIntElementsAttr.get(groups),
        results=[out],
        **channel_attrs(ctx, global_ids=False),
    )
    return [op.results[0]]


core.unconstrained_results.update({all_gather_p, reduce_scatter_p, ppermute_p, all_to_all_p})


# Sharding in types: in a body manual over some axes, a value split along free `Explicit`
# ones keeps its split through a collective over the manual axes (a new or dropped
# dimension unsplit)
@core.sharding_rules.register(all_gather_p)
def _all_gather_sharding(avals_in, avals_out, *, all_gather_dimension, tiled, **params):
    spec = list(typed_sharding.spec_of(avals_in[0]))
    return [
        tuple(spec if tiled else [*spec[:all_gather_dimension], (), *spec[all_gather_dimension:]])
    ]


@core.sharding_rules.register(reduce_scatter_p)
def _reduce_scatter_sharding(avals_in, avals_out, *, scatter_dimension, tiled, **params):
    spec = typed_sharding.spec_of(avals_in[0])
    return [spec if tiled else tuple(s for d, s in enumerate(spec) if d != scatter_dimension)]


core.sharding_rules.register(
    all_to_all_p, lambda avals_in, avals_out, **params: [typed_sharding.spec_of(avals_in[0])]
)
