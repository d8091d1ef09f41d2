"""Which values `checkpoint` may save for the backward pass: the policies of
`didax.checkpoint_policies`, and `checkpoint_name` with its `name` primitive. Like JAX 0.10.2's
`jax.checkpoint_policies` and `jax.ad_checkpoint.checkpoint_name`.

Layer 4 (control_flow/), before checkpoint.py, which asks a policy about each equation whose
operands are known when it partially evaluates: `policy(primitive, *in_avals, **params)` is
True when the equation's outputs may be saved (residuals), False when the backward pass
recomputes them. `name` is an identity primitive that tags a value for the name policies.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from didax import core
from didax.primitives import rules
from didax.primitives.dot import dot_general_p
from didax.tree_util import tree_map

# ----------------------------------------------------------------------------- name

name_p = core.Primitive("name")


def checkpoint_name(x: Any, name: str) -> Any:
    """`x` (a pytree), each leaf tagged `name` for the checkpoint policies. Like
    `jax.ad_checkpoint.checkpoint_name`."""
    return tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


core.impl_rules.register(name_p, lambda x, *, name: [x])
core.abstract_eval_rules.register(name_p, rules.same_aval)


@core.jvp_rules.register(name_p)
def _name_jvp(primals, tangents, *, name):
    (x,), (x_dot,) = primals, tangents
    return [name_p.bind(x, name=name)], [x_dot]  # the tangent is not named, as in JAX


# no transpose rule: the jvp passes tangents around `name`, so no linear use reaches it
core.vmap_rules.register(name_p, rules.vectorized_vmap(name_p.bind))
core.lowering_rules.register(name_p, lambda ctx, x, *, name: [x])


# ----------------------------------------------------------------------------- policies


def everything_saveable(*_: Any, **__: Any) -> bool:
    """Save every value computed from known operands (no recomputation)."""
    return True


def nothing_saveable(*_: Any, **__: Any) -> bool:
    """Save nothing: recompute everything (checkpoint's default)."""
    return False


@dataclass(frozen=True)
class DotsSaveable:
    """Save the results of `dot_general` (only those without batch dimensions when
    `only_if_no_batch_dims`)."""

    only_if_no_batch_dims: bool = False

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        if prim is not dot_general_p:
            return False
        if not self.only_if_no_batch_dims:
            return True
        (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
        return not lhs_batch and not rhs_batch


@dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only values tagged by `checkpoint_name` with one of these names."""

    saveable_names: frozenset[str]

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] in self.saveable_names


@dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only named values, except those with one of these names."""

    names: frozenset[str]

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names: str) -> SaveOnlyTheseNames:
    return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names: str) -> SaveAnyNamesButThese:
    return SaveAnyNamesButThese(frozenset(names))


def save_anything_except_these_names(*names: str) -> Any:
    """As JAX 0.10.2's: saves every value (its names are not consulted)."""
    return lambda *_, **__: True


def save_from_both_policies(policy_1: Any, policy_2: Any) -> Any:
    """Save what either policy saves."""

    def policy(prim: core.Primitive, *args: Any, **params: Any) -> bool:
        out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(
                "The return value of the policies should be a boolean. Got: "
                f"{out1} and {out2}. Please write a custom policy function directly, rather "
                "than using this helper function."
            )
        return out1 or out2

    return policy


dots_saveable = checkpoint_dots = DotsSaveable(False)
dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = DotsSaveable(True)

checkpoint_policies = SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=checkpoint_dots_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
)
