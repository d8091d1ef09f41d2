"""User-defined reverse-mode derivatives: `custom_vjp`, its primitive `custom_vjp_call`, and
`custom_lin`, the linear primitive whose transpose calls the user's backward function.

Layer 4, after custom_derivatives.py (whose staging, call rules and argument helpers it
shares). The jvp rule of `custom_vjp_call` runs the user's forward function and emits
`custom_lin` of the tangents: so grad works, and forward mode raises, as in JAX. vmap
batches `call_jaxpr` and wraps the user's forward and backward functions in vmap. With
`symbolic_zeros=True`, the forward function gets each argument leaf as a `CustomVJPPrimal`
(its value, and whether it is being differentiated), and the backward function a
`SymbolicZero` for each output cotangent known to be zero.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import array, core, dtypes
from didax.control_flow.custom_derivatives import (
    CustomFunction,
    SymbolicZero,
    batched_operands,
    check_no_closure_tangents,
    custom_call_abstract_eval,
    custom_call_impl,
    custom_call_lowering,
    example_aval,
    long_aval,
    merge_nondiff,
    rule_input,
    tangent_aval,
)
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.interpreters.jvp import JVPTrace, JVPTracer
from didax.interpreters.vmap import vmap_flat, vmap_jaxpr
from didax.jaxpr import pp_params_rules
from didax.primitives import ad_helpers, shape
from didax.tree_util import PyTreeDef, tree_flatten, tree_map, tree_unflatten


@dataclasses.dataclass(slots=True)
class CustomVJPPrimal:
    """An argument leaf as a forward function defined with `symbolic_zeros=True` gets it:
    its value, and whether it is being differentiated. Like
    `jax.custom_derivatives.CustomVJPPrimal`."""

    value: Any
    perturbed: bool


def custom_vjp_primal_tree_values(tree: Any) -> Any:
    """`tree` with each `CustomVJPPrimal` leaf replaced by its value. Like
    `jax.custom_derivatives.custom_vjp_primal_tree_values`."""

    def value(leaf: Any) -> Any:
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value

    return tree_map(value, tree)


class custom_vjp(CustomFunction):  # noqa: N801 - JAX's name
    """A function with a user-defined vjp. Like `jax.custom_vjp`.

    Give the rule with `f.defvjp(fwd, bwd)`: `fwd(*args) -> (out, residuals)` and
    `bwd(*nondiff_args, residuals, ct_out) -> tuple` with one cotangent (or None) per
    differentiable argument. Forward-mode differentiation of `f` raises TypeError, as in JAX.
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def defvjp(
        self,
        fwd: Callable[..., Any],
        bwd: Callable[..., Any],
        symbolic_zeros: bool = False,
        optimize_remat: bool = False,
    ) -> None:
        """Set the forward and backward functions. With `symbolic_zeros`, `fwd` gets each
        argument leaf as a `CustomVJPPrimal` and `bwd` a `SymbolicZero` for each output
        cotangent known to be zero; `bwd` may return one (or None) for an input.
        `optimize_remat` is accepted and changes nothing: JAX's optimization of the function
        under `remat` (its `remat_opt` equation) is not built; the values are the same."""
        if symbolic_zeros and optimize_remat:
            raise NotImplementedError(
                "remat optimization for custom_vjp does not support symbolic zeros"
            )
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def _check_defined(self, name: str) -> None:
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")

    def _bind(self, name, nondiff, leaves, in_tree, closed, consts, out_tree):  # noqa: ANN001, ANN202
        fwd = CustomVjpFwd(
            self.fwd,
            name,
            nondiff,
            self.nondiff_argnums,
            in_tree,
            out_tree,
            closed.out_avals,
            self.symbolic_zeros,
        )
        avals = [core.get_aval(x) for x in leaves]
        bwd = CustomVjpBwd(self.bwd, name, nondiff, in_tree, avals, self.symbolic_zeros)
        return custom_vjp_call_p.bind(
            *consts,
            *leaves,
            call_jaxpr=closed,
            fwd=fwd,
            bwd=bwd,
            num_consts=len(consts),
            symbolic_zeros=self.symbolic_zeros,
            name=name,
        )

    def _call_under_jvp(
        self, trace: JVPTrace, name: str, nondiff: list, leaves: list, in_tree: PyTreeDef
    ) -> Any:
        # fwd on the primal values (the function itself is not traced), then `custom_lin`
        # of the tangents, as `custom_vjp_call`'s jvp rule does
        tracers = [trace.full_raise(x) for x in leaves]
        fwd = CustomVjpFwd(
            self.fwd, name, nondiff, self.nondiff_argnums, in_tree, None, None, self.symbolic_zeros
        )
        perturbed = [not isinstance(t.tangent, Zero) for t in tracers]
        outs, res, res_tree = fwd([t.primal for t in tracers], perturbed)
        avals = [t.aval for t in tracers]
        bwd = CustomVjpBwd(self.bwd, name, nondiff, in_tree, avals, self.symbolic_zeros)
        bwd = bwd.for_residuals(res)
        tangents_out = custom_lin_p.bind(
            *res,
            *(ad_helpers.instantiate(t.tangent) for t in tracers),
            num_res=len(res),
            bwd=bwd,
            res_tree=res_tree,
            out_tree=fwd.result_tree,
            out_avals=tuple(core.get_aval(x) for x in outs),
        )
        out = [JVPTracer(trace, p, t) for p, t in zip(outs, tangents_out, strict=True)]
        return tree_unflatten(fwd.result_tree, out)


class CustomVjpFwd:
    """The user's forward function on flat lists: (args, which are perturbed) -> (outputs,
    residuals, residual tree). A param of `custom_vjp_call`; prints as the function's name.
    With `symbolic_zeros`, the function gets each arg as a `CustomVJPPrimal`."""

    def __init__(
        self,
        fwd: Callable[..., Any],
        fun_name: str,
        nondiff: list,
        nondiff_argnums: tuple[int, ...],
        in_tree: PyTreeDef,
        out_tree: PyTreeDef | None,
        out_avals: Sequence[ShapedArray] | None,
        symbolic_zeros: bool = False,
    ) -> None:
        # out_tree/out_avals are None when the function was not traced (called under jvp)
        self.fwd, self.fun_name, self.nondiff = fwd, fun_name, nondiff
        self.nondiff_argnums, self.in_tree, self.out_tree = nondiff_argnums, in_tree, out_tree
        self.out_avals = None if out_avals is None else list(out_avals)
        self.symbolic_zeros = symbolic_zeros
        self.result_tree: PyTreeDef | None = None
        self.__name__ = getattr(fwd, "__name__", "fwd")

    def __call__(
        self, args: Sequence[Any], perturbed: Sequence[bool]
    ) -> tuple[list, list, PyTreeDef]:
        if self.symbolic_zeros:
            args = [CustomVJPPrimal(x, p) for x, p in zip(args, perturbed, strict=True)]
        dyn = tree_unflatten(self.in_tree, args)
        result = self.fwd(*merge_nondiff(self.nondiff, dyn, self.nondiff_argnums))
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(
                f"Custom VJP fwd rule {self.__name__} for function "
                f"{self.fun_name} must produce a pair (list or tuple of length "
                "two) where the first element represents the primal output "
                "(equal in value to the output of the custom_vjp-decorated "
                "function), and the second element represents residuals (i.e. "
                f"values stored from the forward pass for use on the backward "
                f"pass), but instead the fwd rule output's type was {type(result)}."
            )
        out_leaves, out_tree = tree_flatten(result[0])
        self.result_tree = out_tree
        if self.out_tree is not None and out_tree != self.out_tree:
            raise TypeError(
                f"Custom VJP fwd rule {self.__name__} for function "
                f"{self.fun_name} must produce a pair (list or tuple of length "
                "two) where the first element represents the primal output "
                "(equal in value to the output of the custom_vjp-decorated "
                "function), but the primal output's structure was "
                f"{out_tree} while the function's was {self.out_tree}."
            )
        for x, expected in zip(out_leaves, self.out_avals or [], strict=False):
            if not core.types_match(core.get_aval(x), expected):
                raise TypeError(
                    f"Custom VJP fwd rule {self.__name__} for function "
                    f"{self.fun_name} must produce primal outputs of the "
                    f"function's types: expected {long_aval(expected)} but got "
                    f"{long_aval(core.get_aval(x))}."
                )
        res_leaves, res_tree = tree_flatten(result[1])
        return out_leaves, res_leaves, res_tree


class CustomVjpBwd:
    """The user's backward function on flat lists: (residuals, residual tree, output
    cotangents) -> one cotangent (or `Zero`) per input. Prints as the function's name.
    Output cotangents may be `Zero`s where `symbolic_zeros` is set (`rule_input`): the
    function gets them as `SymbolicZero`s. A `SymbolicZero` it returns is a `Zero`."""

    def __init__(
        self,
        bwd: Callable[..., Any],
        fun_name: str,
        nondiff: list,
        in_tree: PyTreeDef,
        in_avals: Sequence[ShapedArray],
        symbolic_zeros: bool = False,
    ) -> None:
        self.bwd, self.fun_name, self.nondiff = bwd, fun_name, nondiff
        self.in_tree, self.in_avals = in_tree, list(in_avals)
        self.symbolic_zeros = symbolic_zeros
        self.__name__ = getattr(bwd, "__name__", "bwd")
        self.python_scalars: tuple[bool, ...] = ()  # which residuals fwd gave as Python scalars

    def for_residuals(self, res: Sequence[Any]) -> CustomVjpBwd:
        """This backward function, told which of fwd's residuals were Python scalars: a
        scalar Array residual staged as a literal comes back a Python scalar, and bwd gets it
        as the weakly typed Array it was, as JAX's does."""
        out = CustomVjpBwd(
            self.bwd, self.fun_name, self.nondiff, self.in_tree, self.in_avals, self.symbolic_zeros
        )
        out.python_scalars = tuple(dtypes.is_python_scalar(r) for r in res)
        return out

    def _as_given(self, res: Sequence[Any]) -> list[Any]:
        return [
            array.eager_result(np.asarray(r, dtypes.python_scalar_dtype(r))[()], True)
            if dtypes.is_python_scalar(r)
            and i < len(self.python_scalars)
            and not self.python_scalars[i]
            else r
            for i, r in enumerate(res)
        ]

    def __call__(
        self, res: Sequence[Any], res_tree: PyTreeDef, out_tree: PyTreeDef, cts: Sequence[Any]
    ) -> list[Any]:
        cts = [SymbolicZero(tangent_aval(c.aval)) if isinstance(c, Zero) else c for c in cts]
        result = self.bwd(
            *self.nondiff,
            tree_unflatten(res_tree, self._as_given(res)),
            tree_unflatten(out_tree, cts),
        )
        args = tree_unflatten(self.in_tree, [None] * self.in_tree.num_leaves)
        if not isinstance(result, (tuple, list)) or len(result) != len(args):
            got = tree_flatten(result, is_leaf=lambda x: x is None)[1]
            raise TypeError(
                "Custom VJP bwd rule must produce an output with the same "
                "container (pytree) structure as the args tuple of the primal "
                "function, and in particular must produce a tuple of length equal "
                "to the number of arguments to the primal function, but got bwd "
                f"output structure {got} for primal input structure "
                f"{self.in_tree}."
            )
        leaves: list[Any] = []
        for i, (ct, arg_tree) in enumerate(zip(result, self.in_tree.children, strict=True)):
            if ct is None:
                leaves += [None] * arg_tree.num_leaves
                continue
            ct_leaves, ct_tree = tree_flatten(ct, is_leaf=lambda x: x is None)
            if ct_tree != arg_tree:
                raise TypeError(
                    f"Custom VJP bwd rule must produce an output with the same "
                    f"container (pytree) structure as the args tuple of the "
                    f"primal function, but at output[{i}] the bwd rule produced "
                    f"structure {ct_tree} for an input of structure {arg_tree}."
                )
            leaves += ct_leaves
        out = []
        for i, (ct, aval) in enumerate(zip(leaves, self.in_avals, strict=True)):
            if isinstance(ct, SymbolicZero) and ct.aval.shape != aval.shape:
                raise ValueError(
                    "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that "
                    "does not match the corresponding input tangent shape/dtype: at "
                    f"output[{i}] the SymbolicZero had shape/dtype {long_aval(ct.aval)} "
                    f"while the corresponding input had shape/dtype {long_aval(aval)}. "
                    "Consider just returning a None here instead of a SymbolicZero object."
                )
            if ct is None or isinstance(ct, SymbolicZero):
                out.append(Zero(aval))
                continue
            ct_aval = core.get_aval(ct)
            if ct_aval.shape != aval.shape:
                raise ValueError(
                    "Custom VJP bwd rule must produce an output with the same "
                    "type as the args tuple of the primal function, but at "
                    f"output[{i}] the bwd rule produced an output of type "
                    f"{long_aval(ct_aval)} corresponding to an input of type "
                    f"{long_aval(aval)}, so the shapes do not match"
                )
            out.append(ct)
        return out


class BatchedVjpFwd:
    """A forward function mapped over a batch axis: outputs and residuals at axis 0."""

    def __init__(self, fwd: Any, axis_size: int, in_dims: Sequence[Any]) -> None:
        self.fwd, self.axis_size, self.in_dims = fwd, axis_size, list(in_dims)
        self.out_tree = fwd.out_tree
        self.__name__ = fwd.__name__

    def __call__(
        self, args: Sequence[Any], perturbed: Sequence[bool]
    ) -> tuple[list, list, PyTreeDef]:
        found: list[Any] = []

        def flat(*xs: Any) -> list[Any]:
            outs, res, res_tree = self.fwd(xs, perturbed)
            found[:] = [len(outs), res_tree]
            return [*outs, *res]

        dims = [None if d is NOT_MAPPED else d for d in self.in_dims]
        vals, out_dims = vmap_flat(flat, self.axis_size, dims, args)
        vals = [
            shape.move_axis(x, d, 0, self.axis_size) for x, d in zip(vals, out_dims, strict=True)
        ]
        n_out, res_tree = found
        return vals[:n_out], vals[n_out:], res_tree


class BatchedVjpBwd:
    """A backward function mapped over a batch axis: residuals and cotangents batched at 0;
    each input cotangent returned at its input's batch dim (summed where it is unbatched).
    `Zero` cotangents (symbolic zeros) are not mapped: the inner function gets one
    example's `Zero`."""

    def __init__(self, bwd: Any, axis_size: int, in_dims: Sequence[Any]) -> None:
        self.bwd, self.axis_size, self.in_dims = bwd, axis_size, list(in_dims)
        self.symbolic_zeros = bwd.symbolic_zeros
        self.__name__ = bwd.__name__

    def for_residuals(self, res: Sequence[Any]) -> BatchedVjpBwd:
        return self  # the inner bwd sees batch tracers, never Python scalars

    def __call__(
        self, res: Sequence[Any], res_tree: PyTreeDef, out_tree: PyTreeDef, cts: Sequence[Any]
    ) -> list[Any]:
        n_res = len(res)
        zero_mask: list[bool] = []
        # one example's Zero for each zero cotangent (outputs are batched at 0), else None
        zeros = [Zero(example_aval(c.aval, 0)) if isinstance(c, Zero) else None for c in cts]
        live = [c for c, z in zip(cts, zeros, strict=True) if z is None]

        def flat(*xs: Any) -> list[Any]:
            it = iter(xs[n_res:])
            cts_out = [next(it) if z is None else z for z in zeros]
            cts_in = self.bwd(xs[:n_res], res_tree, out_tree, cts_out)
            zero_mask[:] = [c is None or isinstance(c, Zero) for c in cts_in]
            return [c for c, z in zip(cts_in, zero_mask, strict=True) if not z]

        vals, dims = vmap_flat(flat, self.axis_size, [0] * (n_res + len(live)), [*res, *live])
        it = zip(vals, dims, strict=True)
        out = []
        for is_zero, d_in in zip(zero_mask, self.in_dims, strict=True):
            if is_zero:
                out.append(None)
                continue
            ct, d = next(it)
            ct = shape.move_axis(ct, d, 0, self.axis_size)
            out.append(
                shape.reduce_sum(ct, (0,))
                if d_in is NOT_MAPPED
                else shape.move_axis(ct, 0, d_in, self.axis_size)
            )
        return out


custom_vjp_call_p = core.Primitive("custom_vjp_call", multiple_results=True)
core.impl_rules.register(custom_vjp_call_p, custom_call_impl)
core.abstract_eval_rules.register(custom_vjp_call_p, custom_call_abstract_eval)


@core.jvp_rules.register(custom_vjp_call_p)
def _custom_vjp_call_jvp(
    primals, tangents, *, call_jaxpr, fwd, bwd, num_consts, symbolic_zeros, name
):
    check_no_closure_tangents("custom_vjp", name, tangents[:num_consts])
    outs, res, res_tree = fwd(
        primals[num_consts:], [not isinstance(t, Zero) for t in tangents[num_consts:]]
    )
    arg_tangents = [ad_helpers.instantiate(t) for t in tangents[num_consts:]]
    out_avals = tuple(a for a in call_jaxpr.out_avals)
    tangents_out = custom_lin_p.bind(
        *res,
        *arg_tangents,
        num_res=len(res),
        bwd=bwd.for_residuals(res),
        res_tree=res_tree,
        out_tree=fwd.out_tree,
        out_avals=out_avals,
    )
    return outs, tangents_out


# no transpose rule: custom_vjp_call is not linear (its jvp emits custom_lin, which is)
core.lowering_rules.register(custom_vjp_call_p, custom_call_lowering)


@core.vmap_rules.register(custom_vjp_call_p)
def _custom_vjp_call_vmap(
    axis_size, vals, dims, *, call_jaxpr, fwd, bwd, num_consts, symbolic_zeros, name
):
    vals = batched_operands(axis_size, vals, dims)
    dims = [NOT_MAPPED if d is NOT_MAPPED else 0 for d in dims]
    n_out = len(call_jaxpr.out_avals)
    batched = vmap_jaxpr(call_jaxpr, axis_size, dims, [0] * n_out)
    arg_dims = dims[num_consts:]
    outs = custom_vjp_call_p.bind(
        *vals,
        call_jaxpr=batched,
        fwd=BatchedVjpFwd(fwd, axis_size, arg_dims),
        bwd=BatchedVjpBwd(bwd, axis_size, arg_dims),
        num_consts=num_consts,
        symbolic_zeros=symbolic_zeros,
        name=name,
    )
    return outs, [0] * n_out


@pp_params_rules.register(custom_vjp_call_p)
def _custom_vjp_call_pp(params):  # JAX hides num_consts
    return [
        ("name", params["name"]),
        ("bwd", params["bwd"]),
        ("call_jaxpr", params["call_jaxpr"]),
        ("fwd", params["fwd"]),
        ("symbolic_zeros", params["symbolic_zeros"]),
    ]


# --------------------------------------------------------------------------- custom_lin

# The tangent of a custom_vjp function's output: linear in the tangents (operands after the
# `num_res` residuals); its transpose calls the user's backward function.
custom_lin_p = core.Primitive("custom_lin", multiple_results=True)


def _custom_lin_impl(*args: Any, **params: Any) -> list:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


core.impl_rules.register(custom_lin_p, _custom_lin_impl)
core.abstract_eval_rules.register(custom_lin_p, lambda *avals, out_avals, **params: list(out_avals))


@core.jvp_rules.register(custom_lin_p)
def _custom_lin_jvp(primals, tangents, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


@core.transpose_rules.register(custom_lin_p)
def _custom_lin_transpose(cts, *args, num_res, bwd, res_tree, out_tree, out_avals):
    res = args[:num_res]
    cts = [rule_input(ct, bwd.symbolic_zeros) for ct in cts]
    return [None] * num_res + bwd(res, res_tree, out_tree, cts)


@core.vmap_rules.register(custom_lin_p)
def _custom_lin_vmap(axis_size, vals, dims, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


@core.lowering_rules.register(custom_lin_p)  # reached by compiling jvp of a custom_vjp
def _custom_lin_lowering(ctx, *args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")
