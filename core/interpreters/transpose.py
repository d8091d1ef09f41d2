"""Transposition: run a linear jaxpr backwards, from output cotangents to input cotangents.

Layer 3, after partial_eval (autodidax part 4, "vjp and grad"; seed 003, `backward_pass`).
The inputs of a linear jaxpr are either known (residuals: values the linear map depends on)
or `UndefinedPrimal`s (the linear inputs). `backward_pass` first evaluates the equations that
read no linear input, then walks the rest in reverse, calling each primitive's transpose rule
and summing the cotangents of a variable used more than once with `add_any`. Cotangents are
symbolic zeros (`core.Zero`) until something nonzero reaches them: an equation whose output
cotangents are all zero is skipped. `vjp_flat` is linearize followed by this.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax import core, vma
from didax import source_info as si
from didax.core import UndefinedPrimal, Zero
from didax.interpreters import partial_eval, staging
from didax.jaxpr import Atom, ClosedJaxpr, Jaxpr, Literal, Var, bind_eqn
from didax.primitives import ad_helpers
from didax.primitives.convert import convert_element_type, convert_element_type_p
from didax.primitives.elementwise import add_tangents, imag_p, real_p

_CT_SUM = si.Derivation(None, "cotangent sum")  # the add_any summing a variable's cotangents


def backward_pass(
    jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any], cts: Sequence[Any]
) -> list[Any]:
    """Transpose `jaxpr`, linear in the inputs given as `UndefinedPrimal`s in `args`.

    `cts` holds one cotangent per output (an array or a `Zero`). Returns, for each input, its
    cotangent (possibly a `Zero`) where the input is an `UndefinedPrimal`, and None elsewhere.
    Like JAX's `backward_pass`.
    """
    primal_env: dict[Var, Any] = dict(zip(jaxpr.constvars, consts, strict=True))
    d = core.trace_state().stack[-1].deriving  # what the rules emit derives from (see below)
    linear: set[Var] = set()
    for v, x in zip(jaxpr.invars, args, strict=True):
        if isinstance(x, UndefinedPrimal):
            linear.add(v)
        else:
            primal_env[v] = x

    def read_primal(x: Atom) -> Any:
        if isinstance(x, Literal):
            return x.value
        return UndefinedPrimal(x.aval) if x in linear else primal_env[x]

    # Forward: equations that read no linear variable are ordinary (nonlinear) computation.
    linear_eqns = []
    for i, eqn in enumerate(jaxpr.eqns):
        if any(isinstance(x, Var) and x in linear for x in eqn.invars):
            linear_eqns.append(eqn)
            linear.update(eqn.outvars)
        else:
            outs = bind_eqn(eqn, [read_primal(x) for x in eqn.invars], i)
            primal_env.update(zip(eqn.outvars, outs, strict=True))

    ct_env: dict[Var, Any] = {}

    def write_ct(x: Atom, ct: Any) -> None:
        if ct is None or isinstance(ct, Zero) or not isinstance(x, Var) or x not in linear:
            return
        if x not in ct_env:
            ct_env[x] = ct
            return
        mark = si.begin_derived(d, _CT_SUM)
        try:
            ct_env[x] = add_tangents(ct_env[x], ct)
        finally:
            si.end_rule(d, mark)

    for x, ct in zip(jaxpr.outvars, cts, strict=True):
        write_ct(x, ct)
    for eqn in reversed(linear_eqns):
        cts_out = [ct_env.pop(v, None) for v in eqn.outvars]
        if all(ct is None for ct in cts_out):
            continue  # every output cotangent is zero, so are the inputs'
        cts_out = [
            Zero(v.aval) if ct is None else ct for v, ct in zip(eqn.outvars, cts_out, strict=True)
        ]
        operands = [read_primal(x) for x in eqn.invars]
        token = si.enter(eqn.source_info)  # what the rule stages comes from eqn's line
        src = eqn.derivation  # and from the equation of f that eqn's own derivation names
        try:
            mark = si.begin_derived(d, src and src._replace(role="transpose", params=None))
            try:
                cts_in = core.transpose_rules[eqn.primitive](cts_out, *operands, **eqn.params)
            finally:
                si.end_rule(d, mark)
            for x, ct in zip(eqn.invars, cts_in, strict=True):
                write_ct(x, ct)
        finally:
            si.leave(token)
    # (an input's cotangent is cast to its type: the linear equations' own types may not
    # carry every `pvary`, see `vma.invariant_as`)
    return [
        (vma.invariant_as(v.aval, ct_env[v]) if v in ct_env else Zero(v.aval))
        if isinstance(x, UndefinedPrimal)
        else None
        for v, x in zip(jaxpr.invars, args, strict=True)
    ]


def transpose_jaxpr(
    closed: ClosedJaxpr, linear: Sequence[bool], ct_nonzero: Sequence[bool] | None = None
) -> ClosedJaxpr:
    """The transpose of `closed` with respect to the inputs marked in `linear`.

    The result maps (nonlinear inputs, cotangents of the outputs marked in `ct_nonzero`, by
    default all) to the cotangents of the linear inputs, zeros made concrete. Used by the
    transpose rules of higher-order primitives (jit, cond, scan).
    """
    in_avals, out_avals = closed.in_avals, closed.out_avals
    if ct_nonzero is None:
        ct_nonzero = [True] * len(out_avals)
    res_avals = [a for a, lin in zip(in_avals, linear, strict=True) if not lin]
    ct_avals = [a for a, nz in zip(out_avals, ct_nonzero, strict=True) if nz]
    n_res = len(res_avals)

    def fn(*args: Any) -> list[Any]:
        res, cts = iter(args[:n_res]), iter(args[n_res:])
        primals = [
            UndefinedPrimal(a) if lin else next(res)
            for a, lin in zip(in_avals, linear, strict=True)
        ]
        cts_out = [
            next(cts) if nz else Zero(a) for a, nz in zip(out_avals, ct_nonzero, strict=True)
        ]
        cts_in = backward_pass(closed.jaxpr, closed.consts, primals, cts_out)
        return [ad_helpers.instantiate(ct) for ct, lin in zip(cts_in, linear, strict=True) if lin]

    return staging.trace_to_jaxpr(fn, [*res_avals, *ct_avals])


def vjp_flat(
    fn: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], Callable[[Sequence[Any], Sequence[Any]], list[Any]], list[Any], Jaxpr]:
    """Evaluate `fn` at `primals`; return its outputs, the function from (residuals, output
    cotangents) to input cotangents (a `Zero` for each input nothing reaches, and for integer
    inputs), the residuals, and the linear jaxpr transposed (residuals as its constvars).
    Flat lists in and out; like `jax.vjp`. The function holds no values: the residuals are
    passed to it, so a caller can carry them as pytree leaves."""
    __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
    primals_out, lin, in_linear, out_nonzero = partial_eval.linearize_flat(fn, primals)
    in_avals = [core.get_aval(x) for x in primals]
    weak_back = iter([_weak_cotangent(lin.jaxpr, v) for v in lin.jaxpr.invars])
    weak_cts = [lin_in and next(weak_back) for lin_in in in_linear]

    def fn_vjp(residuals: Sequence[Any], cts: Sequence[Any]) -> list[Any]:
        cts_lin = [ct for ct, nz in zip(cts, out_nonzero, strict=True) if nz]
        undefined = [UndefinedPrimal(v.aval) for v in lin.jaxpr.invars]
        cts_in = iter(backward_pass(lin.jaxpr, list(residuals), undefined, cts_lin))
        return [
            (_with_weak_type(next(cts_in), aval) if weak else next(cts_in))
            if lin_in
            else Zero(aval)
            for aval, lin_in, weak in zip(in_avals, in_linear, weak_cts, strict=True)
        ]

    return primals_out, fn_vjp, list(lin.consts), lin.jaxpr


def _weak_cotangent(jaxpr: Jaxpr, var: Var) -> bool:
    # Whether JAX's cotangent for a weakly typed input is weak. In JAX weakness flows: the
    # output seed is weak, the residuals of weak values are weak, and the transpose of the
    # convert that made a weak input strong converts back. didax's linear program holds strong
    # residuals, so the input's cotangent is made weak again at the end (`_with_weak_type`),
    # except where JAX's own transposes make it strong: `real` and `imag` transpose to
    # `complex(ct, 0)` with a strong zero (grad of a real function of a complex input), unless
    # a weak-dropping convert of the input transposes it back first.
    if not var.aval.weak_type:
        return False
    drops_weak = any(
        eqn.primitive is convert_element_type_p and var in eqn.invars for eqn in jaxpr.eqns
    )
    return drops_weak or not any(eqn.primitive in (real_p, imag_p) for eqn in jaxpr.eqns)


def _with_weak_type(ct: Any, aval: core.ShapedArray) -> Any:
    ct_aval = core.get_aval(ct)
    if isinstance(ct, Zero) or ct_aval.weak_type or ct_aval.dtype != aval.dtype:
        return ct
    return convert_element_type(ct, aval.dtype, True)


def linear_transpose_flat(
    fn: Callable[..., Sequence[Any]], in_avals: Sequence[Any]
) -> Callable[[Sequence[Any]], list[Any]]:
    """The transpose of the linear function `fn` (flat lists), traced at `in_avals`."""
    __tracebackhide__ = True
    closed = staging.trace_to_jaxpr(fn, in_avals)

    def fn_transpose(cts: Sequence[Any]) -> list[Any]:
        undefined = [UndefinedPrimal(a) for a in in_avals]
        return backward_pass(closed.jaxpr, closed.consts, undefined, cts)

    return fn_transpose
