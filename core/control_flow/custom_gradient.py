"""`custom_gradient` and `closure_convert`: two conveniences JAX builds on `custom_vjp`.
Like JAX 0.10.2's `jax.custom_gradient` and `jax.closure_convert`.

Layer 4 (control_flow/), after custom_vjp.py. `custom_gradient(f)`, where `f(*args)` returns
`(value, vjp)`, is a `custom_vjp` whose forward function stages `vjp` at the cotangent's types
and keeps that jaxpr (with the values it closes over as residual leaves) to evaluate in the
backward pass. `closure_convert(fun, *example_args)` stages `fun` and hands back a function
taking the closed-over tracers (values that may carry a derivative) as extra arguments, so
that a `custom_vjp` rule may close over nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from didax import core
from didax.control_flow.common import hoist_consts
from didax.control_flow.custom_vjp import custom_vjp
from didax.interpreters import staging
from didax.jaxpr import ClosedJaxpr, eval_jaxpr
from didax.tree_util import (
    PyTreeDef,
    flatten_fun,
    register_pytree_node,
    tree_flatten,
    tree_unflatten,
)


class _Residuals:
    """What custom_gradient's forward function saves: the staged vjp (as pytree aux data)
    and the values it closes over (the leaves)."""

    def __init__(self, jaxpr: ClosedJaxpr, in_tree: PyTreeDef, out_tree: PyTreeDef, consts: list):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts


register_pytree_node(
    _Residuals,
    lambda r: (r.consts, (r.jaxpr, r.in_tree, r.out_tree)),
    lambda aux, consts: _Residuals(*aux, list(consts)),
)


def custom_gradient(fun: Callable[..., Any]) -> Callable[..., Any]:
    """`fun`, returning `(value, vjp)`, as a function of value whose reverse-mode derivative
    is `vjp` (cotangent of the value -> tuple of cotangents of the arguments, or one
    cotangent for a single argument). Like `jax.custom_gradient`; forward mode raises, as it
    does for any `custom_vjp`."""

    @custom_vjp
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        value, _ = fun(*args, **kwargs)
        return value

    def fwd(*args: Any, **kwargs: Any) -> tuple[Any, _Residuals]:
        value, rule = fun(*args, **kwargs)
        leaves, out_tree = tree_flatten((value,))
        flat_rule, in_tree = flatten_fun(rule, out_tree)
        avals = [core.get_aval(x) for x in leaves]
        closed, consts = hoist_consts(staging.trace_to_jaxpr(flat_rule, avals))
        return value, _Residuals(closed, in_tree(), out_tree, consts)

    def bwd(res: _Residuals, ct: Any) -> tuple:
        cts, out_tree = tree_flatten((ct,))
        if out_tree != res.out_tree:
            raise TypeError(f"{res.out_tree}\n!=\n{out_tree}")
        cts_in = tree_unflatten(res.in_tree, eval_jaxpr(res.jaxpr.jaxpr, [], *res.consts, *cts))
        return (cts_in,) if res.in_tree.node is None else cts_in

    wrapped.defvjp(fwd, bwd)
    return wrapped


def _maybe_perturbed(x: Any) -> bool:
    # a value closed over that a derivative may flow through: a tracer (JAX looks inside
    # jvp tracers with zero tangents too; didax hoists every tracer)
    return isinstance(x, core.Tracer)


def closure_convert(fun: Callable[..., Any], *example_args: Any) -> tuple[Callable[..., Any], list]:
    """`(converted, consts)`: `converted(*args, *consts)` computes `fun(*args)`, with the
    tracers `fun` closes over (at `example_args`' types) passed as `consts`. Like
    `jax.closure_convert`.

    Raises:
        TypeError: `converted` is called with arguments of another pytree structure.
    """
    flat_args, in_tree = tree_flatten(example_args)
    flat_fun, out_tree = flatten_fun(fun, in_tree)
    closed = staging.trace_to_jaxpr(flat_fun, [core.get_aval(x) for x in flat_args])
    out_tree = out_tree()
    perturbed = [_maybe_perturbed(c) for c in closed.consts]
    kept = [c for c, p in zip(closed.consts, perturbed, strict=True) if not p]
    hoisted = [c for c, p in zip(closed.consts, perturbed, strict=True) if p]

    def converted(*args_and_consts: Any) -> Any:
        args = args_and_consts[: len(args_and_consts) - len(hoisted)]
        given = iter(args_and_consts[len(args) :])
        kept_it = iter(kept)
        consts = [next(given) if p else next(kept_it) for p in perturbed]
        leaves, tree = tree_flatten(tuple(args))
        if tree != in_tree:
            raise TypeError(
                "The inputs to the closure produced by closure_convert must have the same "
                "Pytree structure as the example arguments passed when closure_convert was "
                f"called. Expected {in_tree}, but got {tree}"
            )
        return tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, consts, *leaves))

    return converted, hoisted
