"""Collectives over named axes: psum, pmax, pmin (and pmean), axis_index; the casts of a
check_vma shard_map's body, pvary and psum_invariant.

Layer 2. A collective names the axis it acts over (`lax.psum(x, "i")`); the axis is bound by
`vmap(..., axis_name="i")`, whose trace `core.bind` hands the primitive to (see
`core.axis_name_params`). Under vmap the batching rule IS the semantics: a psum over the
vmapped axis is a sum over the batch dimension, rebound as `psum[axes=(0,)]` with a positional
axis (a plain reduction, as JAX 0.10.2 writes it), and its result is the same for every
element of the batch (unmapped). An unbatched value summed over the axis is multiplied by the
axis size. Reductions over positional axes evaluate, differentiate and lower like
`reduce_sum`/`reduce_max`. A named axis that reaches lowering is a shard_map's mesh axis
(pmap's too): in its body, inside an SPMD program, each collective lowers to an op between
partitions (`stablehlo.all_reduce` with a combining region, `all_gather`, `reduce_scatter`,
`collective_permute`, `all_to_all`, `partition_id` for axis_index), over the groups of
partitions its axes name; in pmap's replicated program over several processes, to an op
across replicas; anywhere else it raises NameError. In a `shard_map(check_vma=True)` body
the collectives are also typed by the mesh axes their values vary along (the "varying axes"
section). Last, `sharding_constraint`
(`with_sharding_constraint`), a note to XLA's SPMD partitioner rather than a collective.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes, tree_util
from didax.array import Array
from didax.core import NOT_MAPPED, ShapedArray
from didax.jaxpr import pp_params_rules
from didax.primitives import concatenation, creation, elementwise, rules, shape
from didax.primitives.convert import convert_element_type
from didax.runtime import sharding as sharding_module
from didax.tree_util import tree_flatten, tree_unflatten


def _axes_tuple(axis_name: Any) -> tuple[Any, ...]:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _check_groups(name: str, axis_index_groups: Any) -> None:
    if axis_index_groups is not None:
        raise NotImplementedError(f"{name}: axis_index_groups is not supported by didax")


def _named(axes: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a for a in axes if not isinstance(a, int))


def _positional(axes: tuple[Any, ...]) -> tuple[int, ...]:
    return tuple(a for a in axes if isinstance(a, int))


def _unbound(axes: tuple[Any, ...]) -> NameError:
    return NameError(f"unbound axis name: {_named(axes)[0]}")


def _times(x: Any, size: int) -> Any:
    # `size * x` with the constant in x's dtype first, as JAX writes it: `mul 3.0:f32[] x`
    return elementwise.mul(np.array(size, core.get_aval(x).dtype), x)


# ----------------------------------------------------------------------------- varying axes
# In a `shard_map(check_vma=True)` body each value's type says along which mesh axes it
# varies (`aval.vma`, JAX's `{V:x}`). A collective over such axes acts on a varying operand:
# the staging trace first casts an invariant one with `pvary` (its vma rule asks for the
# collective's axes). psum then gives a value invariant along them (`psum_invariant`, JAX's
# check_vma spelling of psum), as pmax and pmin do; all_gather, psum_scatter, ppermute and
# all_to_all give values still varying along them; axis_index varies along its axis. Over
# a vmap's axis, or a check_vma=False shard_map's, collectives keep their untyped forms.


def _vma_axes(names: tuple[Any, ...]) -> frozenset:
    """Those of `names` that are check_vma shard_map axes."""
    return frozenset(n for n in _named(names) if core.vma_mesh_axes(n) is not None)


def _collective_vma(key: str) -> core.VmaRule:
    # the operand must vary along the collective's (check_vma) axes
    def rule(vmas, **params):
        (vma,) = vmas
        return [vma | _vma_axes(_axes_tuple(params[key]))]

    return rule


def _mesh_order(aval: ShapedArray, names: Any) -> tuple:
    return aval.mesh_axes or core.vma_mesh_axes(names[0]) or tuple(names)


pvary_p = core.Primitive("pvary")


def pvary(x: Any, axis_name: Any) -> Any:
    """`x` (a pytree), typed as varying along the named mesh axes too: a cast, no
    computation. In a check_vma shard_map's body didax inserts it itself where JAX does."""
    names = _axes_tuple(axis_name)
    if not names:
        return x
    leaves, tree = tree_flatten(x)
    order = core.vma_mesh_axes(names[0]) or names
    axes = tuple(a for a in order if a in names)
    return tree_unflatten(tree, [pvary_p.bind(v, axes=axes) for v in leaves])


core.impl_rules.register(pvary_p, lambda x, *, axes: [x])


@core.abstract_eval_rules.register(pvary_p)
def _pvary_abstract_eval(x, *, axes):
    if x.vma & set(axes):
        raise ValueError(
            "pvary is a invariant->variant collective. This means that the axis names "
            "mentioned in `axes` passed to `pvary` must not be present in "
            f"`jax.typeof(inp).mat.varying`. Got axes={axes} and jax.typeof(inp)={x}"
        )
    return [core.with_vma(x, x.vma | set(axes), _mesh_order(x, axes))]


core.vma_rules.register(pvary_p, lambda vmas, *, axes: vmas)
core.jvp_rules.register(pvary_p, rules.linear_unary_jvp(pvary_p.bind))


@core.transpose_rules.register(pvary_p)
def _pvary_transpose(cts, x, *, axes):
    (ct,) = cts  # the cotangents of every device along the axes add up
    return [psum_invariant_p.bind(ct, axes=axes)]


@core.vmap_rules.register(pvary_p)
def _pvary_vmap(axis_size, vals, dims, *, axes):
    (x,), (d,) = vals, dims
    return [pvary_p.bind(x, axes=axes)], [d]


core.lowering_rules.register(pvary_p, lambda ctx, x, *, axes: [x])


# ----------------------------------------------------------------------------- all-reduce


def _allreduce_primitive(name: str, reducer: Any) -> core.Primitive:
    prim = core.Primitive(name)
    core.axis_name_params[prim] = "axes"

    def impl(x, *, axes, axis_index_groups):
        if _named(axes):  # a frame would have taken it: no vmap binds the name
            raise _unbound(axes)
        x = np.asarray(x)
        return [np.asarray(reducer(x, axis=_positional(axes))).astype(x.dtype)]

    def abstract_eval(x: ShapedArray, *, axes, axis_index_groups) -> list[ShapedArray]:
        pos = _positional(axes)
        if any(not 0 <= a < x.ndim for a in pos):
            raise TypeError(f"{name}: axes {pos} are out of bounds for {x.str_short()}")
        kept = tuple(d for i, d in enumerate(x.shape) if i not in pos)
        out = ShapedArray(kept, x.dtype, x.weak_type)
        return [core.with_vma(out, x.vma - set(_named(axes)), x.mesh_axes)]

    core.impl_rules.register(prim, impl)
    core.abstract_eval_rules.register(prim, abstract_eval)
    core.vma_rules.register(prim, _collective_vma("axes"))
    return prim


def _allreduce_vmap(prim: core.Primitive, if_unmapped: Any) -> core.VmapRule:
    def rule(axis_size, vals, dims, *, axes, axis_index_groups):
        (x,), (d,) = vals, dims
        name = getattr(axis_size, "name", None)
        if name not in axes:  # another frame's axis: stays batched here
            if d is NOT_MAPPED:
                return [prim.bind(x, axes=axes, axis_index_groups=axis_index_groups)], [d]
            new_axes = tuple(a + (a >= d) if isinstance(a, int) else a for a in axes)
            out_dim = d - sum(isinstance(a, int) and a < d for a in new_axes)
            return [prim.bind(x, axes=new_axes, axis_index_groups=axis_index_groups)], [out_dim]
        _check_groups(prim.name, axis_index_groups)
        if d is NOT_MAPPED:  # the same value at every index of the axis
            rest = tuple(a for a in axes if a != name)
            if rest:
                x = prim.bind(x, axes=rest, axis_index_groups=None)
            return [if_unmapped(x, int(axis_size))], [NOT_MAPPED]
        x = shape.move_axis(x, d, 0, axis_size)
        new_axes = tuple(0 if a == name else a + 1 if isinstance(a, int) else a for a in axes)
        return [prim.bind(x, axes=new_axes, axis_index_groups=None)], [NOT_MAPPED]

    return rule


# ----------------------------------------------------------------------------- replicas
# A named axis reaches lowering in two kinds of program. In a shard_map's body inside an SPMD
# program (`lowering.ModuleBuilder.manual_mesh`, JAX's manual sharding), partition k runs
# mesh position k (row-major), and a collective over some mesh axes acts within each group
# of partitions that differ only along them: `replica_groups` list partition ids, with a
# channel handle and `use_global_device_ids`, as JAX 0.10.2 writes them. In pmap's replicated
# program of several processes (`ModuleBuilder.replica_axes`), replica k holds index k of
# the one axis: one group of all replicas. Elsewhere a named axis is unbound (NameError).

COLLECTIVE_CHANNEL = 1  # JAX's channel id for every collective (its type: device to device)


def _groups(ctx: core.LoweringContext, names: tuple[Any, ...]) -> np.ndarray:
    # the groups of partition (or replica) ids taking part, ordered as `names` lists the axes
    mesh = ctx.module.manual_mesh
    if mesh is not None:
        for name in names:
            if name not in mesh.axis_names:
                raise NameError(f"unbound axis name: {name}")
        axes = [mesh.axis_names.index(n) for n in names]
        others = [i for i in range(len(mesh.axis_names)) if i not in axes]
        size = int(np.prod([mesh.axis_sizes[a] for a in axes], dtype=np.int64))
        iota = np.arange(mesh.size, dtype=np.int64).reshape(mesh.axis_sizes)
        return np.ascontiguousarray(iota.transpose([*others, *axes]).reshape(-1, size))
    bound = dict(ctx.module.replica_axes)
    for name in names:
        if name not in bound:
            raise NameError(f"unbound axis name: {name}")
    size = int(np.prod([bound[n] for n in names], dtype=np.int64))
    return np.arange(size, dtype=np.int64).reshape(1, size)


def _replica_groups(ctx: core.LoweringContext, names: tuple[Any, ...]) -> Any:
    return ctx.ir.DenseIntElementsAttr.get(_groups(ctx, names))


def _channel(ctx: core.LoweringContext, global_ids: bool = True) -> dict[str, Any]:
    # in an SPMD program, ids name partitions: a channel handle (and global device ids)
    if ctx.module.manual_mesh is None:
        return {}
    out = {"channel_handle": ctx.hlo.ChannelHandle.get(COLLECTIVE_CHANNEL, 1)}
    if global_ids:
        out["use_global_device_ids"] = True
    return out


_BOOL_COMBINERS = {"add": "or", "maximum": "or", "minimum": "and"}


def _add_combiner(ctx: core.LoweringContext, op: Any, dtype: Any, name: str) -> None:
    # the region that combines two values, as stablehlo.reduce's body does
    name = _BOOL_COMBINERS[name] if dtype == dtypes.bool_ else name
    scalar = ctx.tensor_type(ShapedArray((), dtype))
    body = op.regions[0].blocks.append(scalar, scalar)
    with ctx.ir.InsertionPoint(body):
        ctx.hlo.return_([getattr(ctx.hlo, name)(*body.arguments)])


def _allreduce_lowering(op: str) -> core.LoweringRule:
    positional = rules.reduce_lowering(op)

    def rule(ctx, x, *, axes, axis_index_groups):
        (x,) = positional(ctx, x, axes=_positional(axes))
        if not _named(axes):
            return [x]
        groups = _replica_groups(ctx, _named(axes))
        aval = ctx.avals_out[0]
        reduce = ctx.hlo.AllReduceOp([ctx.tensor_type(aval)], [x], groups, **_channel(ctx))
        _add_combiner(ctx, reduce, aval.dtype, op)
        return [reduce.results[0]]

    return rule


psum_p = _allreduce_primitive("psum", np.sum)


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Sum `x` (a pytree) over the named axis (or tuple of axes) `axis_name`: every index
    of the axis gets the total. Like `jax.lax.psum`; bool inputs are summed as int32.

    Raises:
      NameError: no `vmap(..., axis_name=)` binds the name.
    """
    axes = _axes_tuple(axis_name)
    _check_groups("psum", axis_index_groups)
    if not axes:
        return x
    leaves, tree = tree_flatten(x)
    outs = []
    for leaf in leaves:
        if core.get_aval(leaf).dtype == dtypes.bool_:
            leaf = convert_element_type(leaf, np.int32)
        if isinstance(leaf, core.Tracer) and axes and _vma_axes(axes) == frozenset(axes):
            outs.append(psum_invariant_p.bind(leaf, axes=axes))  # check_vma mesh axes
        elif isinstance(leaf, core.Tracer):
            outs.append(psum_p.bind(leaf, axes=axes, axis_index_groups=None))
        else:
            outs.append(_constant_psum(leaf, axes))
    return tree_unflatten(tree, outs)


def _constant_psum(x: Any, axes: tuple[Any, ...]) -> Array:
    # a constant is the same at every index: the sum is `size * x`, computed now, not staged
    size = int(np.prod([core.axis_frame_size(n) for n in _named(axes)], dtype=np.int64))
    aval = core.get_aval(x)
    value = np.sum(core.to_numpy(x), axis=_positional(axes)) * np.array(size, aval.dtype)
    return Array(value.astype(aval.dtype), aval.weak_type)


core.jvp_rules.register(psum_p, rules.linear_unary_jvp(psum_p.bind))


@core.transpose_rules.register(psum_p)
def _psum_transpose(cts, x, *, axes, axis_index_groups):
    (ct,) = cts
    pos = _positional(axes)
    if pos:  # the transpose of a positional sum broadcasts back
        kept = tuple(i for i in range(x.aval.ndim) if i not in pos)
        ct = shape.broadcast_in_dim(ct, x.aval.shape, kept)
    # psum is psum followed by a broadcast to every index: its transpose sums again
    return [psum_p.bind(ct, axes=_named(axes), axis_index_groups=axis_index_groups)]


core.vmap_rules.register(psum_p, _allreduce_vmap(psum_p, _times))
core.lowering_rules.register(psum_p, _allreduce_lowering("add"))

# psum over a check_vma shard_map's mesh axes, as JAX 0.10.2 names it: a varying operand
# (the staging trace pvarys an invariant one), a result invariant along the axes
psum_invariant_p = core.Primitive("psum_invariant")
core.axis_name_params[psum_invariant_p] = "axes"
core.vma_rules.register(psum_invariant_p, _collective_vma("axes"))


@core.impl_rules.register(psum_invariant_p)
def _psum_invariant_impl(x, *, axes):
    raise _unbound(axes)  # a frame would have taken it


@core.abstract_eval_rules.register(psum_invariant_p)
def _psum_invariant_abstract_eval(x, *, axes):
    if x.vma and not x.vma & set(axes):
        raise ValueError(
            "psum is a variant->invariant collective. This means that the axis names "
            "mentioned in `axes` passed to `psum` must be present in "
            f"`jax.typeof(inp).mat.varying`. Got axes={axes} and "
            f"jax.typeof(inp).mat.varying={set(x.vma)}"
        )
    return [core.with_vma(x, x.vma - set(axes), x.mesh_axes)]


core.jvp_rules.register(psum_invariant_p, rules.linear_unary_jvp(psum_invariant_p.bind))


@core.transpose_rules.register(psum_invariant_p)
def _psum_invariant_transpose(cts, x, *, axes):
    (ct,) = cts  # every device got the total: its cotangent goes back to each, varying
    return [pvary_p.bind(ct, axes=axes)]


@core.vmap_rules.register(psum_invariant_p)
def _psum_invariant_vmap(axis_size, vals, dims, *, axes):
    (x,), (d,) = vals, dims
    name = getattr(axis_size, "name", None)
    if name not in axes:  # another frame's axis (the mesh's): the batch stays where it is
        return [psum_invariant_p.bind(x, axes=axes)], [d]
    rest = tuple(a for a in axes if a != name)  # as psum: the sum over the batch
    x = x if d is NOT_MAPPED else shape.reduce_sum(x, (d,))
    x = _times(x, int(axis_size)) if d is NOT_MAPPED else x
    return [psum_invariant_p.bind(x, axes=rest) if rest else x], [NOT_MAPPED]


@core.lowering_rules.register(psum_invariant_p)
def _psum_invariant_lowering(ctx, x, *, axes):
    return _allreduce_lowering("add")(ctx, x, axes=axes, axis_index_groups=None)


pmax_p = _allreduce_primitive("pmax", np.max)


def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Maximum of `x` (a pytree) over the named axis. Like `jax.lax.pmax`."""
    axes = _axes_tuple(axis_name)
    _check_groups("pmax", axis_index_groups)
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [pmax_p.bind(v, axes=axes, axis_index_groups=None) for v in leaves])


# no jvp or transpose rule: JAX 0.10.2 has none for pmax/pmin (NONLINEAR, no derivative)
core.vmap_rules.register(pmax_p, _allreduce_vmap(pmax_p, lambda x, size: x))
core.lowering_rules.register(pmax_p, _allreduce_lowering("maximum"))


pmin_p = _allreduce_primitive("pmin", np.min)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Minimum of `x` (a pytree) over the named axis. Like `jax.lax.pmin`."""
    axes = _axes_tuple(axis_name)
    _check_groups("pmin", axis_index_groups)
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [pmin_p.bind(v, axes=axes, axis_index_groups=None) for v in leaves])


core.vmap_rules.register(pmin_p, _allreduce_vmap(pmin_p, lambda x, size: x))
core.lowering_rules.register(pmin_p, _allreduce_lowering("minimum"))


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Mean of `x` (a pytree) over the named axis: psum divided by the axis size (itself a
    psum of 1, as JAX computes it). Like `jax.lax.pmean`."""
    total = psum(x, axis_name, axis_index_groups=axis_index_groups)
    n = psum(1, axis_name, axis_index_groups=axis_index_groups)
    leaves, tree = tree_flatten(total)
    return tree_unflatten(tree, [_true_divide(v, n) for v in leaves])


def _true_divide(x: Any, n: Any) -> Any:
    # `x / n` as JAX's pmean writes it: an integer or bool `x` as a float first, then
    # `div x n` with the (concrete) count as a literal of x's dtype, weak as Python's `n` is
    aval = core.get_aval(x)
    if not dtypes.is_float(aval.dtype):
        x = convert_element_type(x, dtypes.default_float(), weak_type=aval.weak_type)
    return elementwise.div(x, Array(np.array(n, core.get_aval(x).dtype), True))


# ----------------------------------------------------------------------------- axis_index

axis_index_p = core.Primitive("axis_index")
core.axis_name_params[axis_index_p] = "axis_name"


def axis_index(axis_name: Any) -> Any:
    """This element's index along the named axis (int32). Like `jax.lax.axis_index`."""
    return axis_index_p.bind(axis_name=axis_name)


def _axis_index_impl(*, axis_name):
    raise NameError(f"unbound axis name: {axis_name}")


core.impl_rules.register(axis_index_p, _axis_index_impl)


@core.abstract_eval_rules.register(axis_index_p)
def _axis_index_abstract_eval(*, axis_name):
    out = ShapedArray((), dtypes.int32)
    order = core.vma_mesh_axes(axis_name)  # a check_vma mesh axis: varies along it
    return [out if order is None else core.with_vma(out, frozenset({axis_name}), order)]


# no jvp or transpose rule: an integer with no operands


@core.vmap_rules.register(axis_index_p)
def _axis_index_vmap(axis_size, vals, dims, *, axis_name):
    if getattr(axis_size, "name", None) != axis_name:
        return [axis_index_p.bind(axis_name=axis_name)], [NOT_MAPPED]
    return [creation.iota(dtypes.int32, int(axis_size))], [0]


@core.lowering_rules.register(axis_index_p)
def _axis_index_lowering(ctx, *, axis_name):
    _groups(ctx, (axis_name,))  # NameError unless a shard_map or pmap binds it
    out = ctx.tensor_type(ctx.avals_out[0])
    mesh = ctx.module.manual_mesh
    if mesh is None:  # replica k is index k of pmap's one axis
        return [ctx.hlo.convert(out, ctx.hlo.replica_id())]
    # partition k is mesh position k, row-major: (k // stride) % size, in ui32 as JAX
    i = mesh.axis_names.index(axis_name)
    stride = int(np.prod(mesh.axis_sizes[i + 1 :], dtype=np.int64))
    div = ctx.constant(np.array(stride, np.uint32))
    mod = ctx.constant(np.array(mesh.axis_sizes[i], np.uint32))
    index = ctx.hlo.remainder(ctx.hlo.divide(ctx.hlo.partition_id(), div), mod)
    return [ctx.hlo.convert(out, index)]


# ----------------------------------------------------------------------------- gathers


def _names_size(axis_name: tuple[Any, ...]) -> int:
    return int(np.prod([core.axis_frame_size(n) for n in axis_name], dtype=np.int64))


def _one_name(prim: str, axis_name: tuple[Any, ...], frame: Any) -> None:
    if axis_name != (frame,):  # JAX: "Please open a feature request!"
        raise NotImplementedError(f"{prim} over several axis names {axis_name} under vmap")


def _unbound_impl(name: str) -> Any:
    def impl(*args, axis_name, **params):
        raise NameError(f"unbound axis name: {_axes_tuple(axis_name)[0]}")

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
    names = _axes_tuple(axis_name)
    _check_groups("all_gather", axis_index_groups)
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


core.vma_rules.register(all_gather_p, _collective_vma("axis_name"))


core.jvp_rules.register(all_gather_p, rules.linear_unary_jvp(all_gather_p.bind))


@core.transpose_rules.register(all_gather_p)
def _all_gather_transpose(
    cts, x, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled
):
    (ct,) = cts  # each index keeps the sum of the cotangents of its own slice
    return [psum_scatter(ct, axis_name, scatter_dimension=all_gather_dimension, tiled=tiled)]


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
        dim = all_gather_dimension
        if d is not NOT_MAPPED:
            if d <= dim:
                dim += 1
            elif not tiled:
                d += 1
        return [all_gather_p.bind(x, all_gather_dimension=dim, **params)], [d]
    _one_name("all_gather", axis_name, frame)
    # the batch axis IS the gathered axis: the same stacked value at every index
    y = shape.move_axis(x, d, all_gather_dimension, frame_size)
    return [_fold_axis(y, all_gather_dimension) if tiled else y], [NOT_MAPPED]


@core.lowering_rules.register(all_gather_p)
def _all_gather_lowering(
    ctx, x, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled
):
    groups = _replica_groups(ctx, axis_name)
    aval = ctx.avals_in[0]
    if not tiled:  # stacked: gather along a new axis of size 1
        shp = list(aval.shape)
        shp.insert(all_gather_dimension, 1)
        x = ctx.hlo.reshape(ctx.tensor_type(aval.update(shape=tuple(shp))), x)
    out = ctx.tensor_type(ctx.avals_out[0])
    op = ctx.hlo.AllGatherOp([out], [x], all_gather_dimension, groups, **_channel(ctx))
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
    names = _axes_tuple(axis_name)
    _check_groups("psum_scatter", axis_index_groups)
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


core.vma_rules.register(reduce_scatter_p, _collective_vma("axis_name"))


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
        dim = scatter_dimension
        if d is not NOT_MAPPED:
            if d <= dim:
                dim += 1
            elif not tiled:
                d += 1
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
    groups = _replica_groups(ctx, axis_name)
    aval, out_aval = ctx.avals_in[0], ctx.avals_out[0]
    shp = list(aval.shape)
    shp[scatter_dimension] //= axis_size  # 1 when not tiled: dropped below
    block = ctx.tensor_type(aval.update(shape=tuple(shp)))
    op = ctx.hlo.ReduceScatterOp(block, x, scatter_dimension, groups, **_channel(ctx))
    _add_combiner(ctx, op, aval.dtype, "add")
    out = op.results[0]
    return [out if tiled else ctx.hlo.reshape(ctx.tensor_type(out_aval), out)]


# ----------------------------------------------------------------------------- ppermute

ppermute_p = core.Primitive("ppermute")
core.axis_name_params[ppermute_p] = "axis_name"


def ppermute(x: Any, axis_name: Any, perm: Any) -> Any:
    """Send index `src`'s value to index `dst` for each `(src, dst)` in `perm`; indices that
    receive nothing get zeros. Like `jax.lax.ppermute`."""
    names = _axes_tuple(axis_name)
    perm = tuple(tuple(int(i) for i in pair) for pair in perm)
    leaves, tree = tree_flatten(x)
    outs = [ppermute_p.bind(leaf, axis_name=names, perm=perm) for leaf in leaves]
    return tree_unflatten(tree, outs)


core.impl_rules.register(ppermute_p, _unbound_impl("ppermute"))
core.abstract_eval_rules.register(ppermute_p, rules.same_aval)
core.vma_rules.register(ppermute_p, _collective_vma("axis_name"))
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
    groups = [sorted(g) for g in _groups(ctx, axis_name)]
    pairs = np.array([(g[s], g[d]) for g in groups for s, d in perm], np.int64).reshape(-1, 2)
    out = ctx.tensor_type(ctx.avals_out[0])
    channel = _channel(ctx, global_ids=False)
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
    _check_groups("all_to_all", axis_index_groups)
    leaves, tree = tree_flatten(x)
    return tree_unflatten(
        tree, [_all_to_all_leaf(v, axis_name, split_axis, concat_axis, tiled) for v in leaves]
    )


def _all_to_all_leaf(x: Any, axis_name: Any, split: int, concat: int, tiled: bool) -> Any:
    size = _names_size(_axes_tuple(axis_name))
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
    size = _names_size(_axes_tuple(axis_name))
    shp = list(x.shape)
    if shp[split_axis] % size:
        raise ValueError(
            f"all_to_all: split axis size {shp[split_axis]} is not divisible by {size}"
        )
    shp[split_axis] //= size
    shp[concat_axis] *= size
    return [x.update(shape=tuple(shp), weak_type=False)]  # varying as its operand


core.vma_rules.register(all_to_all_p, _collective_vma("axis_name"))


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
    names = _axes_tuple(axis_name)
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
    groups = _groups(ctx, _axes_tuple(axis_name))
    out = ctx.tensor_type(ctx.avals_out[0])
    op = ctx.hlo.AllToAllOp(
        [x],
        split_axis,
        concat_axis,
        groups.shape[1],
        ctx.ir.DenseIntElementsAttr.get(groups),
        results=[out],
        **_channel(ctx, global_ids=False),
    )
    return [op.results[0]]


# ----------------------------------------------------------------------------- sharding_constraint
# Not a collective: a note to XLA's SPMD partitioner that a value is to be split as a
# NamedSharding says, here. It computes the identity; jit lowers it as XLA's `@Sharding`
# custom call (with `mhlo.sharding`) in a partitioned program, and as nothing in a program
# for one device. Outside any trace, `with_sharding_constraint` places the value
# (`device_put`), as JAX's does.

sharding_constraint_p = core.Primitive("sharding_constraint")


class _EmptyMesh:  # JAX's `context_mesh` param outside `jax.set_mesh`: printed `Mesh()`
    def __repr__(self) -> str:
        return "Mesh()"


EMPTY_MESH = _EmptyMesh()


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """`x` (a pytree of arrays), marked to be split as `shardings` (a NamedSharding, or a
    pytree prefix of `x` of them) inside a jitted function; outside any trace, `x` placed
    so. Like `jax.lax.with_sharding_constraint`.

    Inside a program, a dimension need not split evenly (XLA pads the blocks), as in JAX.

    Raises:
      ValueError: a spec longer than its array's rank.
    """
    leaves, treedef = tree_flatten(x)
    targets = tree_util.broadcast_prefix(shardings, treedef, "with_sharding_constraint")
    outs = []
    for leaf, target in zip(leaves, targets, strict=True):
        if not isinstance(target, sharding_module.NamedSharding):
            raise TypeError(
                f"with_sharding_constraint: expected a NamedSharding, got {target!r} (didax "
                "has no context mesh for a bare PartitionSpec)"
            )
        target.check_rank(core.get_aval(leaf).ndim, "with_sharding_constraint")
        if not isinstance(leaf, core.Tracer):
            outs.append(sharding_module.put(leaf, target))
            continue
        out = sharding_constraint_p.bind(
            leaf,
            sharding=target,
            layout=None,
            unconstrained_dims=frozenset(),
            context_mesh=EMPTY_MESH,
        )
        outs.append(out)
    return tree_unflatten(treedef, outs)


core.impl_rules.register(sharding_constraint_p, lambda x, **params: [x])
core.abstract_eval_rules.register(sharding_constraint_p, rules.same_aval)


@core.jvp_rules.register(sharding_constraint_p)
def _sharding_constraint_jvp(primals, tangents, **params):
    (x,), (x_dot,) = primals, tangents  # linear: the tangent is split the same way
    out = sharding_constraint_p.bind(x, **params)
    if isinstance(x_dot, core.Zero):
        return [out], [x_dot]
    return [out], [sharding_constraint_p.bind(x_dot, **params)]


@core.transpose_rules.register(sharding_constraint_p)
def _sharding_constraint_transpose(cts, x, **params):
    (ct,) = cts  # the identity's transpose, with the cotangent split the same way
    if isinstance(ct, core.Zero):
        return [ct]
    return [sharding_constraint_p.bind(ct, **params)]


@core.vmap_rules.register(sharding_constraint_p)
def _sharding_constraint_vmap(axis_size, vals, dims, *, sharding, unconstrained_dims, **params):
    # the batch dimension is left to the partitioner: UNCONSTRAINED in the spec, as JAX
    (x,), (d,) = vals, dims
    if d is NOT_MAPPED:
        return [
            sharding_constraint_p.bind(
                x, sharding=sharding, unconstrained_dims=unconstrained_dims, **params
            )
        ], [d]
    spec = list(sharding.spec) + [None] * (core.get_aval(x).ndim - 1 - len(sharding.spec))
    spec.insert(d, sharding_module.PartitionSpec.UNCONSTRAINED)
    batched = sharding_module.NamedSharding(sharding.mesh, sharding_module.PartitionSpec(*spec))
    shifted = frozenset(u + (u >= d) for u in unconstrained_dims) | {d}
    out = sharding_constraint_p.bind(x, sharding=batched, unconstrained_dims=shifted, **params)
    return [out], [d]


@core.lowering_rules.register(sharding_constraint_p)
def _sharding_constraint_lowering(ctx, x, *, sharding, unconstrained_dims, **params):
    devices = ctx.module.device_assignment
    if devices is None:  # a program for one device: nothing to partition
        return [x]
    text = sharding.hlo_text(ctx.avals_in[0].ndim, devices)
    config = ""
    if unconstrained_dims:
        config = f"unspecified_dims=[{','.join(map(str, sorted(unconstrained_dims)))}]"
    return [ctx.module.sharding_annotation(x, text, config)]


@pp_params_rules.register(sharding_constraint_p)
def _sharding_constraint_pp(params):  # JAX prints an empty frozenset as `frozenset({})`
    dims = params["unconstrained_dims"]
    return [
        ("context_mesh", params["context_mesh"]),
        ("layout", params["layout"]),
        ("sharding", params["sharding"]),
        ("unconstrained_dims", f"frozenset({{{', '.join(map(str, sorted(dims)))}}})"),
    ]
