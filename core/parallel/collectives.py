"""Collectives over named axes: psum, pmax, pmin (and pmean), axis_index; the casts of a
check_vma shard_map's body, pvary and psum_invariant.

Layer 4, the first module of didax.parallel: first-order primitives, but a family of their
own that the interpreters never import (the staging and transpose interpreters get the two
casts through `vma.set_casts`, called at the bottom). A collective names the axis it
acts over (`lax.psum(x, "i")`); the axis is bound by `vmap(..., axis_name="i")`, whose trace
`core.bind` hands the primitive to (see `core.axis_name_params`). Under vmap the batching rule
IS the semantics: a psum over the vmapped axis is a sum over the batch dimension, rebound as
`psum[axes=(0,)]` with a positional axis (a plain reduction, as JAX 0.10.2 writes it), and its
result is the same for every element of the batch (unmapped). An unbatched value summed over
the axis is multiplied by the axis size. Reductions over positional axes evaluate,
differentiate and lower like `reduce_sum`/`reduce_max`. A named axis that reaches lowering is
a shard_map's mesh axis (pmap's too): in its body, inside an SPMD program, each collective
lowers to an op between partitions (`stablehlo.all_reduce` with a combining region,
`partition_id` for axis_index; exchanges.py's `all_gather`, `reduce_scatter`,
`collective_permute`, `all_to_all`), over the groups of partitions its axes name; in pmap's
replicated program over several processes, to an op across replicas; anywhere else it raises
NameError. In a `shard_map(check_vma=True)` body the collectives are also typed by the mesh
axes their values vary along (the "varying axes" section).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes, vma
from didax.array import Array
from didax.config import config
from didax.core import NOT_MAPPED, ShapedArray
from didax.primitives import creation, elementwise, rules, shape
from didax.primitives.convert import convert_element_type
from didax.runtime.sharding import partial_manual_text
from didax.tree_util import tree_flatten, tree_unflatten


def axes_tuple(axis_name: Any) -> tuple[Any, ...]:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def check_groups(name: str, axis_index_groups: Any) -> None:
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


pvary_p = core.Primitive("pvary")


def pvary(x: Any, axis_name: Any) -> Any:
    """`x` (a pytree), typed as varying along the named mesh axes too: a cast, no
    computation. In a check_vma shard_map's body didax inserts it itself where JAX does."""
    names = axes_tuple(axis_name)
    if not names:
        return x
    leaves, tree = tree_flatten(x)
    order = vma.mesh_axes_of(names[0]) or names
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
    return [core.with_vma(x, x.vma | set(axes), vma.mesh_order(x, axes))]


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
    core.vma_rules.register(prim, vma.collective_rule("axes"))
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
        check_groups(prim.name, axis_index_groups)
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


def device_groups(ctx: core.LoweringContext, names: tuple[Any, ...]) -> np.ndarray:
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


def replica_groups(ctx: core.LoweringContext, names: tuple[Any, ...]) -> Any:
    return ctx.ir.DenseIntElementsAttr.get(device_groups(ctx, names))


def channel_attrs(ctx: core.LoweringContext, global_ids: bool = True) -> dict[str, Any]:
    # in an SPMD program, ids name partitions: a channel handle (and global device ids)
    if ctx.module.manual_mesh is None:
        return {}
    out = {"channel_handle": ctx.hlo.ChannelHandle.get(COLLECTIVE_CHANNEL, 1)}
    if global_ids:
        out["use_global_device_ids"] = True
    return out


_BOOL_COMBINERS = {"add": "or", "maximum": "or", "minimum": "and"}


def add_combiner(ctx: core.LoweringContext, op: Any, dtype: Any, name: str) -> None:
    # the region that combines two values, as stablehlo.reduce's body does
    name = _BOOL_COMBINERS[name] if dtype == dtypes.bool_ else name
    scalar = ctx.tensor_type(ShapedArray((), dtype))
    body = op.regions[0].blocks.append(scalar, scalar)
    with ctx.ir.InsertionPoint(body):
        combined = getattr(ctx.hlo, name)(*body.arguments)
        ctx.hlo.return_([ctx.module.typed_annotation(combined, ShapedArray((), dtype))])


def _allreduce_lowering(op: str) -> core.LoweringRule:
    positional = rules.reduce_lowering(op)

    def rule(ctx, x, *, axes, axis_index_groups):
        (x,) = positional(ctx, x, axes=_positional(axes))
        if not _named(axes):
            return [x]
        groups = replica_groups(ctx, _named(axes))
        aval = ctx.avals_out[0]
        reduce = ctx.hlo.AllReduceOp([ctx.tensor_type(aval)], [x], groups, **channel_attrs(ctx))
        add_combiner(ctx, reduce, aval.dtype, op)
        return [reduce.results[0]]

    return rule


psum_p = _allreduce_primitive("psum", np.sum)


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Sum `x` (a pytree) over the named axis (or tuple of axes) `axis_name`: every index
    of the axis gets the total. Like `jax.lax.psum`; bool inputs are summed as int32.

    Raises:
      NameError: no `vmap(..., axis_name=)` binds the name.
    """
    axes = axes_tuple(axis_name)
    check_groups("psum", axis_index_groups)
    if not axes:
        return x
    leaves, tree = tree_flatten(x)
    outs = []
    for leaf in leaves:
        if core.get_aval(leaf).dtype == dtypes.bool_:
            leaf = convert_element_type(leaf, np.int32)
        if isinstance(leaf, core.Tracer) and axes and vma.checked_axes(axes) == frozenset(axes):
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
core.vma_rules.register(psum_invariant_p, vma.collective_rule("axes"))


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
    axes = axes_tuple(axis_name)
    check_groups("pmax", axis_index_groups)
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [pmax_p.bind(v, axes=axes, axis_index_groups=None) for v in leaves])


# no jvp or transpose rule: JAX 0.10.2 has none for pmax/pmin (NONLINEAR, no derivative)
core.vmap_rules.register(pmax_p, _allreduce_vmap(pmax_p, lambda x, size: x))
core.lowering_rules.register(pmax_p, _allreduce_lowering("maximum"))


pmin_p = _allreduce_primitive("pmin", np.min)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Minimum of `x` (a pytree) over the named axis. Like `jax.lax.pmin`."""
    axes = axes_tuple(axis_name)
    check_groups("pmin", axis_index_groups)
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
    order = vma.mesh_axes_of(axis_name)  # a check_vma mesh axis: varies along it
    return [out if order is None else core.with_vma(out, frozenset({axis_name}), order)]


# no jvp or transpose rule: an integer with no operands


@core.vmap_rules.register(axis_index_p)
def _axis_index_vmap(axis_size, vals, dims, *, axis_name):
    if getattr(axis_size, "name", None) != axis_name:
        return [axis_index_p.bind(axis_name=axis_name)], [NOT_MAPPED]
    return [creation.iota(dtypes.int32, int(axis_size))], [0]


@core.lowering_rules.register(axis_index_p)
def _axis_index_lowering(ctx, *, axis_name):
    device_groups(ctx, (axis_name,))  # NameError unless a shard_map or pmap binds it
    out = ctx.tensor_type(ctx.avals_out[0])
    mesh = ctx.module.manual_mesh
    if mesh is None:  # replica k is index k of pmap's one axis
        return [ctx.hlo.convert(out, ctx.hlo.replica_id())]
    # partition k is mesh position k, row-major: (k // stride) % size, in ui32 as JAX
    i = mesh.axis_names.index(axis_name)
    stride = int(np.prod(mesh.axis_sizes[i + 1 :], dtype=np.int64))

    def index() -> Any:  # (two constants, even when equal, as JAX's)
        div = ctx.module.constant(np.array(stride, np.uint32), shared=False)
        mod = ctx.module.constant(np.array(mesh.axis_sizes[i], np.uint32), shared=False)
        return ctx.hlo.convert(
            out, ctx.hlo.remainder(ctx.hlo.divide(ctx.hlo.partition_id(), div), mod)
        )

    module = ctx.module
    free = module.free_axes()
    if not free:
        return [index()]
    # in a body manual over some axes only, as JAX: the partition's id read in a
    # computation manual over the others too (the partitioners reject it otherwise)
    if not config.read("jax_use_shardy_partitioner"):  # GSPMD: a function, made manual
        (y,) = module.call_built("shmap_body", [out], lambda: [index()])
        y = module.spmd_call("Sharding", y, out, "{manual}")
        text = partial_manual_text(mesh, module.manual_axes, 0)
        return [module.spmd_call("SPMDShardToFullShape", y, out, text)]
    ir = ctx.ir
    names = ", ".join(f'"{a}"' for a in free)
    op = ctx.module.sdy.ManualComputationOp(
        [out],
        [],
        ir.Attribute.parse("#sdy.sharding_per_value<[]>"),
        ir.Attribute.parse("#sdy.sharding_per_value<[<@mesh, []>]>"),
        ir.Attribute.parse(f"#sdy<manual_axes{{{names}}}>"),
    )
    with ir.InsertionPoint(op.body.blocks.append()):
        ctx.module.sdy.ReturnOp([index()])
    return list(op.results)


core.unconstrained_results.update({pvary_p, psum_p, psum_invariant_p, pmax_p, pmin_p, axis_index_p})


vma.set_casts(vma.Casts(pvary=pvary_p, psum_invariant=psum_invariant_p))
