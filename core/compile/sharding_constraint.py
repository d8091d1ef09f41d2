"""`with_sharding_constraint` (`sharding_constraint`): a note to XLA's SPMD partitioner
about how a value is split, rather than a collective.

Layer 4, the first module of didax.compile (jit_primitive names it: a sharded program's
constraints). Its jvp and transpose constrain the tangent and cotangent the
same way, its vmap rule keeps the batch dimension unconstrained, and it lowers to the
`@Sharding` custom call JAX writes (with `mhlo.sharding` and its unspecified dims).
"""

from __future__ import annotations

from typing import Any

from didax import core, tree_util, typed_sharding
from didax.core import NOT_MAPPED
from didax.interpreters import lowering
from didax.jaxpr import pp_params_rules
from didax.primitives import rules
from didax.runtime import sharding as sharding_module
from didax.runtime.sharding import AxisType, PartitionSpec
from didax.tree_util import tree_flatten, tree_unflatten

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
    text = lowering.sharding_text(sharding, ctx.avals_in[0].ndim, devices, unconstrained_dims)
    config = ""
    if unconstrained_dims and not text.startswith("#sdy"):
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


# ----------------------------------------------------------------------------- reshard
# Sharding in types: `reshard` changes how a value is split over a mesh's Explicit axes, so
# its type (`f32[8@x]` to `f32[8]`). Its result is split as `dst_sharding` says; it lowers as
# a sharding constraint (XLA moves the blocks), and its jvp and transpose reshard the tangent
# and the cotangent (back to the operand's split).

reshard_p = core.Primitive("reshard")


def reshard(x: Any, out_shardings: Any) -> Any:
    """`x` (a pytree of arrays) split as `out_shardings` says (a NamedSharding, or a
    PartitionSpec over the context mesh of `set_mesh`; or a pytree prefix of them). Like
    `jax.sharding.reshard`.

    Raises:
      ValueError: a PartitionSpec outside `set_mesh`.
    """
    leaves, treedef = tree_flatten(x)
    targets = tree_util.broadcast_prefix(out_shardings, treedef, "reshard")
    outs = []
    for leaf, target in zip(leaves, targets, strict=True):
        target = typed_sharding.resolve(target)
        ndim = core.get_aval(leaf).ndim
        target.check_rank(ndim, "reshard")
        target = typed_sharding.full_spec(target, ndim)  # a result's spec, as JAX's
        outs.append(_reshard(leaf, target))
    return tree_unflatten(treedef, outs)


def _reshard(x: Any, target: Any) -> Any:
    # a value outside any trace is placed (the impl rule would leave it on one device)
    if isinstance(x, core.Tracer):
        return reshard_p.bind(x, dst_sharding=target)
    return sharding_module.put(x, target)


core.impl_rules.register(reshard_p, lambda x, *, dst_sharding: [x])


@core.abstract_eval_rules.register(reshard_p)
def _reshard_abstract_eval(x, *, dst_sharding):
    return [sharding_module.typed(core.ShapedArray.update(x), dst_sharding)]


# (its result's type is its own abstract evaluation: no other split to join)
core.sharding_rules.register(
    reshard_p, lambda avals_in, avals_out, *, dst_sharding: [typed_sharding.spec_of(avals_out[0])]
)


@core.jvp_rules.register(reshard_p)
def _reshard_jvp(primals, tangents, *, dst_sharding):
    (x,), (x_dot,) = primals, tangents
    out = _reshard(x, dst_sharding)
    if isinstance(x_dot, core.Zero):
        return [out], [core.Zero(core.get_aval(out))]
    return [out], [_reshard(x_dot, dst_sharding)]


@core.transpose_rules.register(reshard_p)
def _reshard_transpose(cts, x, *, dst_sharding):
    (ct,) = cts  # back to the operand's split
    if isinstance(ct, core.Zero):
        return [core.Zero(x.aval)]
    return [_reshard(ct, typed_sharding.named(x.aval, dst_sharding.mesh))]


@core.vmap_rules.register(reshard_p)
def _reshard_vmap(axis_size, vals, dims, *, dst_sharding):
    # the batch dimension is not split (None in the spec at its place)
    (x,), (d,) = vals, dims
    if d is not NOT_MAPPED:
        spec = list(dst_sharding.spec)
        spec.insert(d, None)
        dst_sharding = sharding_module.NamedSharding(dst_sharding.mesh, PartitionSpec(*spec))
    return [_reshard(x, dst_sharding)], [d]


@core.lowering_rules.register(reshard_p)
def _reshard_lowering(ctx, x, *, dst_sharding):
    devices = ctx.module.device_assignment
    # (to a mesh with no `Explicit` axis, as JAX's `auto_axes` casts: no constraint)
    if devices is None or AxisType.Explicit not in dst_sharding.mesh.axis_types:
        return [x]
    text = lowering.sharding_text(dst_sharding, ctx.avals_in[0].ndim, devices)
    return [ctx.module.sharding_annotation(x, text)]


pp_params_rules.register(reshard_p, lambda params: [])  # JAX prints `reshard b`
