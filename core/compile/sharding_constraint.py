"""`with_sharding_constraint` (`sharding_constraint`): a note to XLA's SPMD partitioner
about how a value is split, rather than a collective.

Layer 4, the first module of didax.compile (jit_primitive names it: a sharded program's
constraints). Its jvp and transpose constrain the tangent and cotangent the
same way, its vmap rule keeps the batch dimension unconstrained, and it lowers to the
`@Sharding` custom call JAX writes (with `mhlo.sharding` and its unspecified dims).
"""

from __future__ import annotations

from typing import Any

from didax import core, tree_util
from didax.core import NOT_MAPPED
from didax.jaxpr import pp_params_rules
from didax.primitives import rules
from didax.runtime import sharding as sharding_module
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
