"""User-defined derivatives: `custom_jvp` and its primitive, and what `custom_vjp`
(custom_vjp.py) shares with it.

Layer 4, after control_flow/common (JAX's "Custom derivative rules" tutorial;
`jax.custom_jvp`). Calling a decorated function stages it to a jaxpr (`call_jaxpr`; values it
closes over become leading operands, `num_consts`) and binds `custom_jvp_call` (or
`custom_vjp_call`). Evaluating, staging and lowering treat the primitive as a call of
`call_jaxpr` (the call rules here serve both). The jvp rule of `custom_jvp_call` calls the
user's rule instead of differentiating `call_jaxpr`; vmap batches `call_jaxpr` and wraps the
user's rule in vmap. Outside any transformation, a decorated function is simply called.
A rule defined with `symbolic_zeros=True` gets a `SymbolicZero` for each input that is not
being differentiated, instead of an array of zeros, and may return one.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.interpreters import staging
from didax.interpreters.jvp import JVPTrace, JVPTracer
from didax.interpreters.vmap import vmap_flat, vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, Jaxpr, eval_jaxpr, pp_params_rules
from didax.primitives import ad_helpers, shape
from didax.primitives.elementwise import add_tangents
from didax.tree_util import PyTreeDef, tree_flatten, tree_map, tree_unflatten

# --------------------------------------------------------------------------- helpers


def _resolve_args(fun: Callable[..., Any], args: tuple, kwargs: dict) -> tuple:
    # JAX passes keyword arguments to a custom-derivative function positionally.
    if not kwargs:
        return args
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"keyword arguments could not be resolved to positions: {e}") from None
    bound.apply_defaults()
    return bound.args


def _split_nondiff(args: tuple, nondiff_argnums: tuple[int, ...]) -> tuple[list, list]:
    nondiff = [args[i] for i in nondiff_argnums]
    dyn = [a for i, a in enumerate(args) if i not in nondiff_argnums]
    return nondiff, dyn


def merge_nondiff(
    nondiff: Sequence[Any], dyn: Sequence[Any], nondiff_argnums: tuple[int, ...]
) -> list[Any]:
    nd, it = dict(zip(nondiff_argnums, nondiff, strict=True)), iter(dyn)
    return [nd[i] if i in nd else next(it) for i in range(len(nondiff) + len(dyn))]


def _stage(
    fun: Callable[..., Any],
    nondiff: list,
    nondiff_argnums: tuple[int, ...],
    leaves: list,
    in_tree: PyTreeDef,
) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
    # Trace `fun` at the types of the differentiable leaves; its consts become operands.
    store: list[PyTreeDef] = []

    def flat_fn(*xs: Any) -> list[Any]:
        dyn = tree_unflatten(in_tree, xs)
        out_leaves, out_tree = tree_flatten(fun(*merge_nondiff(nondiff, dyn, nondiff_argnums)))
        store[:] = [out_tree]
        return out_leaves

    closed = staging.trace_to_jaxpr(flat_fn, [core.get_aval(x) for x in leaves])
    j = closed.jaxpr
    hoisted = ClosedJaxpr(Jaxpr([], [*j.constvars, *j.invars], j.outvars, j.eqns), [])
    return hoisted, list(closed.consts), store[0]


def _jvp_trace(leaves: Sequence[Any]) -> JVPTrace | None:
    """The JVP trace the arguments belong to, when it is the innermost transformation: the
    rule is then called on the primal values directly, without tracing the function (as
    JAX's JVPTrace.process_custom_jvp_call does)."""
    if not any(isinstance(x, core.Tracer) for x in leaves):
        return None
    trace = core.find_top_trace(leaves)
    return trace if isinstance(trace, JVPTrace) else None


def _eager() -> bool:
    # nothing stages this call: the arguments are values (an outer jvp's rule may be running,
    # as JAX's rules run on values) and no jit or make_jaxpr is tracing
    return core.trace_state().dynamic is None


def long_aval(aval: ShapedArray) -> str:
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def check_no_closure_tangents(kind: str, name: str, tangents: Sequence[Any]) -> None:
    if not all(isinstance(t, Zero) for t in tangents):
        raise TypeError(
            f"Detected differentiation of a {kind} function ({name}) with respect "
            f"to a closed-over value. That isn't supported because the custom rule "
            f"only specifies how to differentiate the {kind} function with respect "
            "to explicit input parameters. Pass the value as an argument instead."
        )


# =========================================================================== symbolic zeros


class SymbolicZero:
    """The tangent of an input that is not being differentiated, as a jvp rule defined with
    `symbolic_zeros=True` receives it (and may return it for an output whose tangent is
    zero). Like `jax.custom_derivatives.SymbolicZero`: not an array (arithmetic on it fails);
    its attributes are its tangent type's (`shape`, `dtype`, `ndim`, ...): an integer input's
    tangent has dtype float0."""

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return "SymbolicZero"

    def __getattr__(self, name: str) -> Any:
        if name == "aval":  # (not set yet: no recursion)
            raise AttributeError(name)
        return getattr(self.aval, name)

    @staticmethod
    def from_primal_value(val: Any) -> SymbolicZero:
        return SymbolicZero(tangent_aval(core.get_aval(val)))


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The type of a tangent of a value of type `aval`: the same for a float, float0 (no
    tangent) for an integer or a bool. Like JAX's `to_tangent_aval`."""
    if dtypes.is_float(aval.dtype):
        return aval
    return ShapedArray(aval.shape, dtypes.float0, aval.weak_type)


def zero_from_primal(val: Any, symbolic_zeros: bool = False) -> Any:
    """A zero tangent for each leaf of `val`: a `SymbolicZero`, or with `symbolic_zeros`
    False an array of zeros (float0 ones for integers). Like
    `jax.custom_derivatives.zero_from_primal`."""

    def zero(x: Any) -> Any:
        aval = tangent_aval(core.get_aval(x))
        if symbolic_zeros:
            return SymbolicZero(aval)
        if aval.dtype == dtypes.float0:
            return np.zeros(aval.shape, dtypes.float0)
        return ad_helpers.instantiate(Zero(aval))

    return tree_map(zero, val)


def _symbolic(t: Any) -> Any:
    # what the rule receives for an input's tangent known to be zero
    return SymbolicZero(tangent_aval(t.aval)) if isinstance(t, Zero) else t


def rule_input(t: Any, symbolic_zeros: bool) -> Any:
    """A tangent (or cotangent) as a custom rule takes it: a `Zero` stays symbolic for a
    rule defined with `symbolic_zeros` (custom_jvp's or custom_vjp's), else it becomes an
    array of zeros."""
    return t if symbolic_zeros else ad_helpers.instantiate(t)


def example_aval(aval: ShapedArray, dim: int | None) -> ShapedArray:
    """The type of one example of a value batched at `dim` (0, or None: not batched)."""
    return aval if dim is None else ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


# =========================================================================== custom_jvp


class CustomFunction:
    """What `custom_jvp` and `custom_vjp` share: a call runs `fun` itself when nothing is
    traced, else stages it and binds the subclass's primitive with the user's rules."""

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(sorted(nondiff_argnums))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = getattr(self.fun, "__name__", "fun")
        self._check_defined(name)
        args = _resolve_args(self.fun, args, kwargs)
        nondiff, dyn = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = tree_flatten(tuple(dyn))
        if _eager() and not any(isinstance(x, core.Tracer) for x in leaves):
            return self.fun(*args)
        trace = _jvp_trace(leaves)
        if trace is not None:
            return self._call_under_jvp(trace, name, nondiff, leaves, in_tree)
        closed, consts, out_tree = _stage(self.fun, nondiff, self.nondiff_argnums, leaves, in_tree)
        outs = self._bind(name, nondiff, leaves, in_tree, closed, consts, out_tree)
        return tree_unflatten(out_tree, outs)

    def __getattr__(self, name: str) -> Any:
        # as JAX's: what the decorated function has reads through (a custom_vmap's def_vmap,
        # under custom_vjp)
        if name.startswith("__") or name == "fun":
            raise AttributeError(name)
        return getattr(self.fun, name)

    def _check_defined(self, name: str) -> None:
        raise NotImplementedError

    def _call_under_jvp(
        self, trace: JVPTrace, name: str, nondiff: list, leaves: list, in_tree: PyTreeDef
    ) -> Any:
        raise NotImplementedError

    def _bind(
        self,
        name: str,
        nondiff: list,
        leaves: list,
        in_tree: PyTreeDef,
        closed: ClosedJaxpr,
        consts: list,
        out_tree: PyTreeDef,
    ) -> list[Any]:
        raise NotImplementedError


class custom_jvp(CustomFunction):  # noqa: N801 - JAX's name
    """A function with a user-defined jvp rule. Like `jax.custom_jvp`.

    Decorate `fun`, then give the rule with `@f.defjvp`: `jvp(primals, tangents) ->
    (primal_out, tangent_out)`, or `jvp(*nondiff_args, primals, tangents)` with
    `nondiff_argnums`. Reverse mode transposes the rule's (linear) tangent computation.
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: Callable[..., Any], symbolic_zeros: bool = False) -> Callable[..., Any]:
        """Set the jvp rule; returns it, so this works as a decorator. With
        `symbolic_zeros`, the rule gets a `SymbolicZero` as the tangent of each input that is
        not being differentiated, instead of an array of zeros."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """One rule per argument, `jvp_i(g_i, primal_out, *primals)`; their sum is the jvp."""

        def jvp(primals: tuple, tangents: tuple) -> tuple:
            out = self(*primals)
            parts = [
                rule(t, out, *primals)
                for rule, t in zip(jvps, tangents, strict=True)
                if rule is not None
            ]
            total = parts[0]
            for p in parts[1:]:
                total = add_tangents(total, p)
            return out, total

        jvp.__name__ = "jvp"
        self.defjvp(jvp)

    def _check_defined(self, name: str) -> None:
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")

    def _call_under_jvp(
        self, trace: JVPTrace, name: str, nondiff: list, leaves: list, in_tree: PyTreeDef
    ) -> Any:
        # the user's rule on the primal values; the function itself is not traced
        rule = CustomJvpRule(self.jvp, name, nondiff, in_tree, None, None, self.symbolic_zeros)
        tracers = [trace.full_raise(x) for x in leaves]
        primals_out, tangents_out = rule(
            [t.primal for t in tracers],
            [rule_input(t.tangent, self.symbolic_zeros) for t in tracers],
        )
        outs = [JVPTracer(trace, p, t) for p, t in zip(primals_out, tangents_out, strict=True)]
        return tree_unflatten(rule.result_tree, outs)

    def _bind(self, name, nondiff, leaves, in_tree, closed, consts, out_tree):  # noqa: ANN001, ANN202
        rule = CustomJvpRule(
            self.jvp, name, nondiff, in_tree, out_tree, closed.out_avals, self.symbolic_zeros
        )
        return custom_jvp_call_p.bind(
            *consts,
            *leaves,
            call_jaxpr=closed,
            jvp=rule,
            num_consts=len(consts),
            symbolic_zeros=self.symbolic_zeros,
            name=name,
        )


class CustomJvpRule:
    """The user's jvp rule as a function of flat lists: (primals, tangents) -> (primals out,
    tangents out), checking what it returns. A param of `custom_jvp_call` (hashed by
    identity); it prints as the rule's name. Input tangents may be `Zero`s where
    `symbolic_zeros` is set (`rule_input`): the user's rule gets them as `SymbolicZero`s. A
    `SymbolicZero` it returns is a `Zero` tangent out (with or without the option, as JAX)."""

    def __init__(
        self,
        jvp: Callable[..., Any],
        fun_name: str,
        nondiff: list,
        in_tree: PyTreeDef,
        out_tree: PyTreeDef | None,
        out_avals: Sequence[ShapedArray] | None,
        symbolic_zeros: bool = False,
    ) -> None:
        # out_tree/out_avals are None when the function was not traced (called under jvp):
        # the outputs are then checked against each other only
        self.jvp, self.fun_name, self.nondiff = jvp, fun_name, nondiff
        self.in_tree, self.out_tree = in_tree, out_tree
        self.out_avals = None if out_avals is None else list(out_avals)
        self.symbolic_zeros = symbolic_zeros
        self.result_tree: PyTreeDef | None = None
        self.__name__ = getattr(jvp, "__name__", "jvp")

    def __call__(self, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list, list]:
        py_primals = tuple(tree_unflatten(self.in_tree, primals))
        py_tangents = tuple(tree_unflatten(self.in_tree, [_symbolic(t) for t in tangents]))
        result = self.jvp(*self.nondiff, py_primals, py_tangents)
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(
                f"Custom JVP rule {self.__name__} for function {self.fun_name} "
                "must produce a pair (list or tuple of length two) representing "
                f"primal and tangent outputs, but got {result!r}."
            )
        p_leaves, p_tree = tree_flatten(result[0])
        t_leaves, t_tree = tree_flatten(result[1])
        if p_tree != t_tree:
            raise TypeError(
                f"Custom JVP rule {self.__name__} for function {self.fun_name} must "
                "produce primal and tangent outputs with equal container (pytree) "
                f"structures, but got {p_tree} and {t_tree} respectively."
            )
        if self.out_tree is not None and p_tree != self.out_tree:
            raise TypeError(
                f"Custom JVP rule {self.__name__} for function {self.fun_name} must "
                "produce a primal output with the same container (pytree) "
                f"structure as the function's output, {self.out_tree}, but got "
                f"{p_tree}."
            )
        self.result_tree = p_tree
        expected_avals = self.out_avals or [core.get_aval(p) for p in p_leaves]
        for i, (p, t, expected) in enumerate(zip(p_leaves, t_leaves, expected_avals, strict=True)):
            pa = core.get_aval(p)
            if not core.types_match(pa, expected):
                raise TypeError(
                    "Custom JVP rule must produce primal outputs with the same "
                    f"shapes and dtypes as the function: expected "
                    f"{long_aval(expected)} but got {long_aval(pa)}."
                )
            zero = isinstance(t, SymbolicZero)
            ta, want = (t.aval, tangent_aval(expected)) if zero else (core.get_aval(t), expected)
            if ta.shape != want.shape or ta.dtype != want.dtype:
                raise TypeError(
                    "Custom JVP rule must produce primal and tangent outputs with "
                    f"corresponding shapes and dtypes. Expected {long_aval(want)} "
                    f"(tangent type of {long_aval(expected)}) but got {long_aval(ta)}."
                )
            if zero:
                t_leaves[i] = Zero(pa)
        return p_leaves, t_leaves


class BatchedJvpRule:
    """A jvp rule mapped over a batch axis: inputs batched at `in_dims` (0 or NOT_MAPPED),
    outputs at 0. `Zero` tangents (a rule with symbolic zeros) are not mapped: the rule gets
    them as `Zero`s of one example's type, and a `Zero` it returns comes back as one."""

    def __init__(self, rule: Any, axis_size: int, in_dims: Sequence[Any]) -> None:
        self.rule, self.axis_size, self.in_dims = rule, axis_size, list(in_dims)
        self.symbolic_zeros = getattr(rule, "symbolic_zeros", False)
        self.__name__ = rule.__name__

    def __call__(self, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list, list]:
        n = len(primals)
        dims = [None if d is NOT_MAPPED else d for d in self.in_dims]
        zeros = [  # one example's Zero for each zero tangent, else None
            None if not isinstance(t, Zero) else Zero(example_aval(t.aval, d))
            for t, d in zip(tangents, dims, strict=True)
        ]
        live = [t for t, z in zip(tangents, zeros, strict=True) if z is None]
        n_out: list[int] = []
        zero_out: list[bool] = []

        def flat(*xs: Any) -> list[Any]:
            it = iter(xs[n:])
            p_out, t_out = self.rule(xs[:n], [next(it) if z is None else z for z in zeros])
            n_out[:] = [len(p_out)]
            zero_out[:] = [isinstance(t, Zero) for t in t_out]
            return [*p_out, *(t for t in t_out if not isinstance(t, Zero))]

        live_dims = [d for d, z in zip(dims, zeros, strict=True) if z is None]
        outs, out_dims = vmap_flat(flat, self.axis_size, dims + live_dims, [*primals, *live])
        outs = [
            shape.move_axis(x, d, 0, self.axis_size) for x, d in zip(outs, out_dims, strict=True)
        ]
        p_out, rest = outs[: n_out[0]], iter(outs[n_out[0] :])
        t_out = [Zero.like(p) if z else next(rest) for p, z in zip(p_out, zero_out, strict=True)]
        return p_out, t_out


custom_jvp_call_p = core.Primitive("custom_jvp_call", multiple_results=True)


def custom_call_impl(*args: Any, call_jaxpr: ClosedJaxpr, **params: Any) -> list:
    with core.new_base_main():
        outs = eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)
    return [core.to_numpy(x) for x in outs]


def custom_call_abstract_eval(
    *avals: ShapedArray, call_jaxpr: ClosedJaxpr, **params: Any
) -> list[ShapedArray]:
    return list(call_jaxpr.out_avals)


core.impl_rules.register(custom_jvp_call_p, custom_call_impl)
core.abstract_eval_rules.register(custom_jvp_call_p, custom_call_abstract_eval)


@core.jvp_rules.register(custom_jvp_call_p)
def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros, name):
    check_no_closure_tangents("custom_jvp", name, tangents[:num_consts])
    args = primals[num_consts:]
    return jvp(args, [rule_input(t, jvp.symbolic_zeros) for t in tangents[num_consts:]])


# no transpose rule: custom_jvp_call is not linear (reverse mode transposes the user's rule)


def custom_call_lowering(
    ctx: core.LoweringContext, *args: Any, call_jaxpr: ClosedJaxpr, **params: Any
) -> list:
    return ctx.lower_jaxpr(call_jaxpr, args)  # compiled code runs the function itself


core.lowering_rules.register(custom_jvp_call_p, custom_call_lowering)


def batched_operands(axis_size: int, vals: Sequence[Any], dims: Sequence[Any]) -> list[Any]:
    return [
        x if d is NOT_MAPPED else shape.move_axis(x, d, 0, axis_size)
        for x, d in zip(vals, dims, strict=True)
    ]


@core.vmap_rules.register(custom_jvp_call_p)
def _custom_jvp_call_vmap(
    axis_size, vals, dims, *, call_jaxpr, jvp, num_consts, symbolic_zeros, name
):
    vals = batched_operands(axis_size, vals, dims)
    dims = [NOT_MAPPED if d is NOT_MAPPED else 0 for d in dims]
    n_out = len(call_jaxpr.out_avals)
    batched = vmap_jaxpr(call_jaxpr, axis_size, dims, [0] * n_out)
    rule = BatchedJvpRule(jvp, axis_size, dims[num_consts:])
    outs = custom_jvp_call_p.bind(
        *vals,
        call_jaxpr=batched,
        jvp=rule,
        num_consts=num_consts,
        symbolic_zeros=symbolic_zeros,
        name=name,
    )
    return outs, [0] * n_out


@pp_params_rules.register(custom_jvp_call_p)
def _custom_jvp_call_pp(params):  # JAX hides num_consts
    return [
        ("name", params["name"]),
        ("call_jaxpr", params["call_jaxpr"]),
        ("jvp", params["jvp"]),
        ("symbolic_zeros", params["symbolic_zeros"]),
    ]
