"""Collectives over named axes: psum, pmax, pmin (and pmean), axis_index.

Layer 2. A collective names the axis it acts over (`lax.psum(x, "i")`); the axis is bound by
`vmap(..., axis_name="i")`, whose trace `core.bind` hands the primitive to (see
`core.axis_name_params`). Under vmap the batching rule IS the semantics: a psum over the
vmapped axis is a sum over the batch dimension, rebound as `psum[axes=(0,)]` with a positional
axis (a plain reduction, as JAX 0.10.2 writes it), and its result is the same for every
element of the batch (unmapped). An unbatched value summed over the axis is multiplied by the
axis size. Reductions over positional axes evaluate, differentiate and lower like
`reduce_sum`/`reduce_max`; named axes left in a jaxpr outside any vmap raise NameError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.array import Array
from didax.core import NOT_MAPPED, ShapedArray
from didax.primitives import common, shape
from didax.primitives.convert import convert_element_type
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
    const = np.array(size, core.get_aval(x).dtype)
    return core.operator_table["multiply"](const, x)


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
        return [ShapedArray(kept, x.dtype, x.weak_type)]

    core.impl_rules.register(prim, impl)
    core.abstract_eval_rules.register(prim, abstract_eval)
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


def _allreduce_lowering(op: str) -> core.LoweringRule:
    positional = common.reduce_lowering(op)

    def rule(ctx, x, *, axes, axis_index_groups):
        if _named(axes):
            raise _unbound(axes)
        return positional(ctx, x, axes=_positional(axes))

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
        if isinstance(leaf, core.Tracer):
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


core.jvp_rules.register(psum_p, common.linear_unary_jvp(psum_p.bind))


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
    return tree_unflatten(tree, [core.operator_table["divide"](v, n) for v in leaves])


# ----------------------------------------------------------------------------- axis_index

axis_index_p = core.Primitive("axis_index")
core.axis_name_params[axis_index_p] = "axis_name"


def axis_index(axis_name: Any) -> Any:
    """This element's index along the named axis (int32). Like `jax.lax.axis_index`."""
    return axis_index_p.bind(axis_name=axis_name)


def _axis_index_impl(*, axis_name):
    raise NameError(f"unbound axis name: {axis_name}")


core.impl_rules.register(axis_index_p, _axis_index_impl)
core.abstract_eval_rules.register(
    axis_index_p, lambda *, axis_name: [ShapedArray((), dtypes.int32)]
)
# no jvp or transpose rule: an integer with no operands


@core.vmap_rules.register(axis_index_p)
def _axis_index_vmap(axis_size, vals, dims, *, axis_name):
    if getattr(axis_size, "name", None) != axis_name:
        return [axis_index_p.bind(axis_name=axis_name)], [NOT_MAPPED]
    return [shape.iota(dtypes.int32, int(axis_size))], [0]


@core.lowering_rules.register(axis_index_p)
def _axis_index_lowering(ctx, *, axis_name):
    raise NameError(f"unbound axis name: {axis_name}")
