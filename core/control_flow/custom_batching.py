"""User-defined batching: `custom_vmap` and its primitive `custom_vmap_call`, and
`sequential_vmap`. Like `jax.custom_batching`.

Layer 4, after custom_derivatives (whose staging and call rules it shares). Calling a
decorated function stages it to a jaxpr (`call`; values it closes over become leading
operands, `num_consts`) and binds `custom_vmap_call`. Evaluating, staging and lowering run
`call`; only vmap is different: it calls the user's rule, `rule(axis_size, in_batched, *args)
-> (out, out_batched)`, on the arguments with their batch axes in front. The jvp of
`custom_vmap_call` is again a `custom_vmap_call`: of the jvp of `call`, with the jvp of the
rule as its rule, so `vmap(jvp(f))` still batches through the user's rule. Reverse mode is not
supported (as in JAX: the primal output of that jvp needs the tangents); combine with
`custom_vjp` for both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from didax import core
from didax.control_flow.custom_derivatives import (
    _resolve_args,
    _stage,
    batched_operands,
    check_no_closure_tangents,
    custom_call_abstract_eval,
    custom_call_impl,
    custom_call_lowering,
    long_aval,
)
from didax.control_flow.loops import map as lax_map
from didax.core import NOT_MAPPED
from didax.interpreters.jvp import jvp_flat, jvp_jaxpr
from didax.jaxpr import pp_params_rules
from didax.primitives import ad_helpers, shape
from didax.tree_util import PyTreeDef, tree_flatten, tree_unflatten

custom_vmap_call_p = core.Primitive("custom_vmap_call", multiple_results=True)


class custom_vmap:  # noqa: N801 - JAX's name
    """A function with a user-defined batching rule. Like `jax.custom_batching.custom_vmap`.

    Decorate `fun`, then give the rule with `@f.def_vmap`: `rule(axis_size, in_batched, *args)
    -> (out, out_batched)`, where `in_batched` holds one bool per argument leaf (a pytree like
    the arguments), batched arguments carry the batch axis in front, and `out_batched` says
    which leaves of `out` do (a pytree like `out`, or one bool for all).
    """

    def __init__(self, fun: Callable[..., Any]) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Callable[..., Any] | None = None

    def def_vmap(self, vmap_rule: Callable[..., tuple[Any, Any]]) -> Callable[..., Any]:
        """Set the vmap rule; returns it, so this works as a decorator."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = getattr(self.fun, "__name__", "fun")
        if self.vmap_rule is None:
            raise AttributeError(
                f"No batching rule defined for custom_vmap function {name} using def_vmap."
            )
        args = _resolve_args(self.fun, args, kwargs)
        leaves, in_tree = tree_flatten(tuple(args))
        # staged and bound even eagerly, as JAX's (Python scalars in, weak-typed Arrays out)
        closed, consts, out_tree = _stage(self.fun, [], (), leaves, in_tree)
        rule = CustomVmapRule(self.vmap_rule, name, in_tree, out_tree, closed.out_avals)
        outs = custom_vmap_call_p.bind(
            *consts, *leaves, call=closed, rule=rule, num_consts=len(consts)
        )
        return tree_unflatten(out_tree, outs)


class CustomVmapRule:
    """The user's rule as a function of flat lists: (axis_size, in_batched, args) -> (outs,
    out_batched), checking what it returns against the function's outputs. A param of
    `custom_vmap_call` (hashed by identity); it prints as the rule's name."""

    def __init__(
        self,
        rule: Callable[..., Any],
        fun_name: str,
        in_tree: PyTreeDef,
        out_tree: PyTreeDef,
        out_avals: Sequence[core.ShapedArray],
    ) -> None:
        self.rule, self.fun_name = rule, fun_name
        self.in_tree, self.out_tree, self.out_avals = in_tree, out_tree, list(out_avals)
        self.__name__ = getattr(rule, "__name__", "rule")

    def __call__(
        self, axis_size: int, in_batched: Sequence[bool], args: Sequence[Any]
    ) -> tuple[list[Any], list[bool]]:
        py_batched = list(tree_unflatten(self.in_tree, list(in_batched)))
        py_args = tree_unflatten(self.in_tree, list(args))
        result = self.rule(axis_size, py_batched, *py_args)
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(
                f"custom vmap rule ({self.__name__}) for function {self.fun_name} must return "
                f"a pair (output, output batched), but got {result!r}."
            )
        outs, out_tree = tree_flatten(result[0])
        if out_tree != self.out_tree:
            raise ValueError(
                f"structure of output returned by custom vmap rule ({self.__name__}) does not "
                "match that of original custom-vmapped function.\n"
                f"Original output: {self.out_tree}\nRule output: {out_tree}"
            )
        out_batched = _batched_leaves(self, result[1], out_tree)
        for x, batched, aval in zip(outs, out_batched, self.out_avals, strict=True):
            got = core.get_aval(x)
            want = (axis_size, *aval.shape) if batched else aval.shape
            if got.shape != want or got.dtype != aval.dtype:
                raise ValueError(
                    f"custom vmap rule ({self.__name__}) for function {self.fun_name} returned "
                    f"{long_aval(got)} for an output of type {long_aval(aval)} "
                    f"{'batched' if batched else 'not batched'} over an axis of size "
                    f"{axis_size}: expected {aval.dtype.name}[{','.join(map(str, want))}]."
                )
        return outs, out_batched


def _batched_leaves(rule: CustomVmapRule, out_batched: Any, out_tree: PyTreeDef) -> list[bool]:
    # one bool for every output, or a pytree of bools like the output
    if isinstance(out_batched, bool):
        return [out_batched] * out_tree.num_leaves
    flags, tree = tree_flatten(out_batched)
    if tree != out_tree or not all(isinstance(b, bool) for b in flags):
        raise ValueError(
            f"structure of output value and output batching specification returned by custom "
            f"vmap rule ({rule.__name__}) do not match.\nOutputs: {out_tree}\n"
            f"Batching spec: {tree}"
        )
    return flags


# a call of `call` (JAX names the param `call`, custom_jvp_call's rules `call_jaxpr`)
core.impl_rules.register(
    custom_vmap_call_p, lambda *args, call, **_: custom_call_impl(*args, call_jaxpr=call)
)
core.abstract_eval_rules.register(
    custom_vmap_call_p, lambda *avals, call, **_: custom_call_abstract_eval(call_jaxpr=call)
)
core.lowering_rules.register(
    custom_vmap_call_p,
    lambda ctx, *args, call, **_: custom_call_lowering(ctx, *args, call_jaxpr=call),
)


@core.vmap_rules.register(custom_vmap_call_p)
def _custom_vmap_call_vmap(axis_size, vals, dims, *, call, rule, num_consts):
    if any(d is not NOT_MAPPED for d in dims[:num_consts]):
        raise NotImplementedError(
            f"custom_vmap function {rule.fun_name} closes over a value batched by an outer "
            "vmap; pass it as an argument instead."
        )
    args = batched_operands(axis_size, vals[num_consts:], dims[num_consts:])
    outs, out_batched = rule(axis_size, [d is not NOT_MAPPED for d in dims[num_consts:]], args)
    return outs, [0 if b else NOT_MAPPED for b in out_batched]


@core.jvp_rules.register(custom_vmap_call_p)
def _custom_vmap_call_jvp(primals, tangents, *, call, rule, num_consts):
    check_no_closure_tangents("custom_vmap", rule.fun_name, tangents[:num_consts])
    consts, args = primals[:num_consts], primals[num_consts:]
    arg_tangents = [ad_helpers.instantiate(t) for t in tangents[num_consts:]]
    n_in, n_out = len(args), len(call.out_avals)
    # the jvp of `call` with the consts as leading operands: (consts, args, tangents)
    jvp_call, _ = jvp_jaxpr(call, [False] * num_consts + [True] * n_in, instantiate=True)
    args_tree = tree_flatten((rule.in_tree.unflatten(args), rule.in_tree.unflatten(args)))[1]
    outs_tree = tree_flatten((rule.out_tree.unflatten(range(n_out)),) * 2)[1]
    jvp_rule = CustomVmapRule(
        JvpOfRule(rule, n_in), rule.fun_name, args_tree, outs_tree, call.out_avals * 2
    )
    outs = custom_vmap_call_p.bind(
        *consts, *args, *arg_tangents, call=jvp_call, rule=jvp_rule, num_consts=num_consts
    )
    return outs[:n_out], outs[n_out:]


class JvpOfRule:
    """The rule of the jvp of a `custom_vmap_call`: the jvp of the user's rule. A primal and its
    tangent are given to the rule batched alike (the unbatched one broadcast along the batch
    axis when only the other is batched); an output's tangent is batched as the output."""

    def __init__(self, rule: CustomVmapRule, n_in: int) -> None:
        self.rule, self.n_in = rule, n_in
        self.__name__ = f"jvp_of_{rule.__name__}"

    def __call__(self, axis_size: int, in_batched: Any, primals: Any, tangents: Any) -> tuple:
        flags = tree_flatten(in_batched)[0]
        p_batched, t_batched = flags[: self.n_in], flags[self.n_in :]
        ps, ts = tree_flatten(primals)[0], tree_flatten(tangents)[0]
        both = [p or t for p, t in zip(p_batched, t_batched, strict=True)]
        ps = [_batched_like(x, had, want, axis_size) for x, had, want in zip(ps, p_batched, both)]
        ts = [_batched_like(x, had, want, axis_size) for x, had, want in zip(ts, t_batched, both)]
        out_batched: list[bool] = []

        def primal_rule(*xs: Any) -> list[Any]:
            outs, batched = self.rule(axis_size, both, xs)
            out_batched[:] = batched
            return outs

        p_out, t_out = jvp_flat(primal_rule, ps, ts)
        out_tree = self.rule.out_tree
        result = (out_tree.unflatten(p_out), out_tree.unflatten(t_out))
        flags = out_tree.unflatten(out_batched)
        return result, (flags, flags)


def _batched_like(x: Any, batched: bool, want: bool, axis_size: int) -> Any:
    return shape.move_axis(x, NOT_MAPPED, 0, axis_size) if want and not batched else x


@pp_params_rules.register(custom_vmap_call_p)
def _custom_vmap_call_pp(params):  # JAX hides num_consts
    return [("call", params["call"]), ("rule", params["rule"])]


def sequential_vmap(f: Callable[..., Any]) -> custom_vmap:
    """`f` batched by a loop (`lax.map`) over the batch: for functions without a batched form.
    Like `jax.custom_batching.sequential_vmap`."""
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size: int, in_batched: list, *args: Any) -> tuple[Any, bool]:
        flags = tree_flatten(in_batched)[0]
        leaves, tree = tree_flatten(args)
        batched = [x for x, b in zip(leaves, flags, strict=True) if b]

        def one(xs: Sequence[Any]) -> Any:
            it = iter(xs)
            return f.fun(*tree.unflatten([next(it) if b else x for x, b in zip(leaves, flags)]))

        return lax_map(one, batched), True

    return f
