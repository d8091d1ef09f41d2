"""`checkpoint` (`remat`): differentiate a function recomputing its intermediates in the
backward pass instead of saving them. The `remat2` primitive; like JAX 0.10.2's
`jax.checkpoint`, whose jaxprs print the same equation.

Layer 4 (control_flow/), after checkpoint_policies.py. `checkpoint(f)(x)` stages `f` and binds
`remat2[jaxpr=..., prevent_cse=True, differentiated=False, policy=None]`: evaluated, it is
just `f`. Its jvp is a `remat2` of the jvp jaxpr. The point is its partial evaluation (the
step from jvp to linearize/grad): the primal half is evaluated at once, inline, while the
tangent half is staged as `remat2[differentiated=True]` over a jaxpr that *recomputes* from
the inputs every intermediate the policy does not save; saved ones (the policy says yes to
the equation that makes them) become residuals, each passed through `reduce_precision` as
JAX does. Transposing keeps the recomputation inside a `remat2`; compiled, a differentiated
`remat2`'s operands go through an optimization barrier so XLA cannot share the recomputation
with the forward pass.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import api_util, core
from didax.control_flow import ref_carries
from didax.control_flow.checkpoint_policies import nothing_saveable
from didax.control_flow.common import hoist_consts, jaxpr_as_fun, trace_to_subjaxpr
from didax.core import NOT_MAPPED, UndefinedPrimal, Zero
from didax.interpreters import partial_eval, stepping
from didax.interpreters.jvp import jvp_jaxpr
from didax.interpreters.transpose import transpose_jaxpr
from didax.interpreters.vmap import batched_out_dims, vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr, live_eqns
from didax.primitives.precision_barriers import reduce_precision_p
from didax.tree_util import tree_flatten, tree_unflatten

remat_p = core.Primitive("remat2", multiple_results=True)


def checkpoint(
    fun: Callable[..., Any],
    *,
    prevent_cse: bool = True,
    policy: Callable[..., bool] | None = None,
    static_argnums: int | Sequence[int] = (),
) -> Callable[..., Any]:
    """`fun`, whose intermediates reverse mode recomputes instead of saving, except those
    `policy` saves (see `didax.checkpoint_policies`). Like `jax.checkpoint` (`jax.remat`).

    `static_argnums`: positional arguments passed to `fun` as they are (not traced)."""
    static = set(api_util.ensure_index_tuple(static_argnums, "static_argnums"))

    @functools.wraps(fun)
    def fun_remat(*args: Any, **kwargs: Any) -> Any:
        nums = {i if i >= 0 else i + len(args) for i in static}
        dynamic = [a for i, a in enumerate(args) if i not in nums]

        def call(dyn: list, kw: dict) -> Any:
            it = iter(dyn)
            return fun(*(a if i in nums else next(it) for i, a in enumerate(args)), **kw)

        leaves, in_tree = tree_flatten((dynamic, kwargs))
        avals = [core.get_aval(x) for x in leaves]
        closed, consts, out_tree = trace_to_subjaxpr(call, in_tree, avals, refs=True)
        if ref_carries.closes_over_refs(consts):  # refs made outside: values in, new ones out
            again = functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy)
            bind = lambda fns, ops: again(fns[0])(*ops)  # noqa: E731
            return ref_carries.threaded(bind, [(closed, consts, out_tree)], ((dynamic, kwargs),))
        outs = remat_p.bind(
            *consts,
            *leaves,
            jaxpr=closed,
            prevent_cse=prevent_cse,
            differentiated=False,
            policy=policy,
        )
        return tree_unflatten(out_tree, outs)

    return fun_remat


remat = checkpoint


def _bind_like(params: dict, jaxpr: ClosedJaxpr, args: Sequence[Any], **changes: Any) -> list:
    closed, consts = hoist_consts(jaxpr)  # remat2's jaxpr has no consts: they lead the operands
    return remat_p.bind(*consts, *args, **{**params, **changes, "jaxpr": closed})


@core.impl_rules.register(remat_p)
def _remat_impl(*args, jaxpr, **params):
    return [core.to_numpy(x) for x in jaxpr_as_fun(jaxpr)(*args)]


@stepping.step_rules.register(remat_p)
def _remat_step(where, *args, jaxpr, differentiated, **params):  # step into the body
    part = "remat (recomputed)" if differentiated else "remat"
    return (yield from stepping.step_closed(jaxpr, args, f"{where} > {part}".strip()))


@core.abstract_eval_rules.register(remat_p)
def _remat_abstract_eval(*avals, jaxpr, **params):
    return list(jaxpr.out_avals)


@core.jvp_rules.register(remat_p)
def _remat_jvp(primals, tangents, *, jaxpr, **params):
    nonzeros = [not isinstance(t, Zero) for t in tangents]
    jvp_closed, nonzeros_out = jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    args = [*primals, *(t for t in tangents if not isinstance(t, Zero))]
    outs = _bind_like(params, jvp_closed, args)
    n = len(jaxpr.out_avals)
    tangents_out = iter(outs[n:])
    return outs[:n], [
        next(tangents_out) if nz else Zero(a)
        for nz, a in zip(nonzeros_out, jaxpr.out_avals, strict=True)
    ]


@core.transpose_rules.register(remat_p)
def _remat_transpose(cts, *args, jaxpr, **params):
    linear = [isinstance(x, UndefinedPrimal) for x in args]
    ct_nonzero = [not isinstance(ct, Zero) for ct in cts]
    transposed = transpose_jaxpr(jaxpr, linear, ct_nonzero)
    residuals = [x for x, lin in zip(args, linear, strict=True) if not lin]
    ins = [*residuals, *(ct for ct in cts if not isinstance(ct, Zero))]
    outs = iter(_bind_like(params, transposed, ins))
    return [next(outs) if lin else None for lin in linear]


@core.vmap_rules.register(remat_p)
def _remat_vmap(axis_size, vals, dims, *, jaxpr, **params):
    found = batched_out_dims(jaxpr, axis_size, dims)
    out_dims = [None if d is None or d is NOT_MAPPED else 0 for d in found]
    outs = _bind_like(params, vmap_jaxpr(jaxpr, axis_size, dims, out_dims), vals)
    return outs, [NOT_MAPPED if d is None else d for d in out_dims]


@core.lowering_rules.register(remat_p)
def _remat_lowering(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
    if differentiated and prevent_cse and args:
        args = list(ctx.hlo.OptimizationBarrierOp(list(args)).results)
    return ctx.lower_jaxpr(jaxpr, args)


# ----------------------------------------------------------------------------- partial eval


def split_remat(
    closed: ClosedJaxpr, unks_in: Sequence[bool], policy: Any
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int, list[bool]]:
    """Split a remat2 jaxpr for partial evaluation, recomputing what `policy` does not save.

    Returns the known jaxpr (known inputs -> known outputs, then the saved residuals), the
    staged jaxpr (residuals, then the inputs it reads -> unknown outputs), which outputs are
    unknown, the number of residuals, and which inputs the staged jaxpr reads."""
    policy = policy or nothing_saveable
    jaxpr = closed.jaxpr
    unknown: dict[Var, bool] = {v: False for v in jaxpr.constvars}
    unknown.update(zip(jaxpr.invars, unks_in, strict=True))
    saved: set[Var] = set()
    known_eqns: list[JaxprEqn] = []
    staged_eqns: list[JaxprEqn] = []
    for eqn in jaxpr.eqns:
        unks = [isinstance(x, Var) and unknown[x] for x in eqn.invars]
        if not any(unks):
            known_eqns.append(eqn)
            unknown.update((v, False) for v in eqn.outvars)
            in_avals = [x.aval for x in eqn.invars]
            if policy(eqn.primitive, *in_avals, **eqn.params):
                saved.update(eqn.outvars)
            else:
                staged_eqns.append(eqn)  # recomputed where the staged side needs it
        elif eqn.primitive in partial_eval.partial_eval_jaxpr_rules:
            rule = partial_eval.partial_eval_jaxpr_rules[eqn.primitive]
            eqn_known, eqn_unknown, _ = rule(unks, eqn)
            for known_eqn in partial_eval.as_eqns(eqn_known):  # (their residuals are saved)
                known_eqns.append(known_eqn)
                unknown.update((v, False) for v in known_eqn.outvars)
                saved.update(known_eqn.outvars)
            if eqn_unknown is not None:
                staged_eqns.append(eqn_unknown)
                unknown.update((v, True) for v in eqn_unknown.outvars)
        else:
            staged_eqns.append(eqn)
            unknown.update((v, True) for v in eqn.outvars)
    unks_out = [isinstance(x, Var) and unknown[x] for x in jaxpr.outvars]
    staged_outs = [x for x, u in zip(jaxpr.outvars, unks_out, strict=True) if u]
    staged_eqns = live_eqns(staged_eqns, staged_outs)
    defined = {v for e in staged_eqns for v in e.outvars}
    reads: dict[Var, None] = {}  # ordered set of what the staged side reads from outside
    for x in [*(x for e in staged_eqns for x in e.invars), *staged_outs]:
        if isinstance(x, Var) and x not in defined:
            reads[x] = None
    inputs = set(jaxpr.invars)
    residuals = [v for v in reads if v not in inputs and v not in jaxpr.constvars]
    assert all(v in saved for v in residuals), "remat: a residual that is not saveable"
    used_in = [v in reads for v in jaxpr.invars]
    known_ins = [v for v, u in zip(jaxpr.invars, unks_in, strict=True) if not u]
    known_outs = [x for x, u in zip(jaxpr.outvars, unks_out, strict=True) if not u]
    known_jaxpr, _ = dce_jaxpr(
        Jaxpr(jaxpr.constvars, known_ins, [*known_outs, *residuals], known_eqns),
        [True] * (len(known_outs) + len(residuals)),
        instantiate=True,
    )
    known_jaxpr = _insert_reduce_precision(known_jaxpr, len(residuals))
    const_of = dict(zip(jaxpr.constvars, closed.consts, strict=True))
    known = ClosedJaxpr(known_jaxpr, [const_of[v] for v in known_jaxpr.constvars])
    staged_ins = [*residuals, *(v for v, u in zip(jaxpr.invars, used_in, strict=True) if u)]
    staged = ClosedJaxpr(Jaxpr([], staged_ins, staged_outs, staged_eqns), [])
    return known, staged, unks_out, len(residuals), used_in


def _insert_reduce_precision(jaxpr: Jaxpr, n_res: int) -> Jaxpr:
    # As JAX (its PR 22244): each float residual an equation of the known side makes (and
    # that side reads again) is rounded to its dtype's precision, so that the forward and the
    # backward pass see the same value despite XLA's excess precision.
    used = {x for e in jaxpr.eqns for x in e.invars if isinstance(x, Var)}
    eqns = list(jaxpr.eqns)
    for v in jaxpr.outvars[len(jaxpr.outvars) - n_res :]:
        if not np.issubdtype(v.aval.dtype, np.inexact) or v not in used:
            continue
        i, eqn = next((i, e) for i, e in enumerate(eqns) if v in e.outvars)
        if eqn.primitive is reduce_precision_p:
            continue
        finfo = np.finfo(v.aval.dtype)
        fresh = Var(v.aval)
        eqns[i] = eqn._replace(outvars=[fresh if o is v else o for o in eqn.outvars])
        params = {"exponent_bits": finfo.nexp, "mantissa_bits": finfo.nmant}
        rounding = JaxprEqn(reduce_precision_p, [fresh], [v], params, eqn.source_info)
        eqns.insert(i + 1, rounding)
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns)


@partial_eval.partial_eval_trace_rules.register(remat_p)
def _remat_partial_eval_trace(trace, tracers, *, jaxpr, **params):
    # the known half runs here, equation by equation (inline in an enclosing staged program,
    # as JAX's); the unknown half is staged as one differentiated remat2
    unks_in = [not t.pval.is_known for t in tracers]
    known, staged, unks_out, n_res, used_in = split_remat(jaxpr, unks_in, params["policy"])
    known_in = [t.pval.const for t, u in zip(tracers, unks_in, strict=True) if not u]
    outs = jaxpr_as_fun(known)(*known_in)
    n_known = len(outs) - n_res
    known_outs, residuals = outs[:n_known], outs[n_known:]
    staged_outs: list[Any] = []
    if any(unks_out):
        ins = [trace.full_raise(r) for r in residuals]
        ins += [t for t, u in zip(tracers, used_in, strict=True) if u]
        new_params = {**params, "jaxpr": staged, "differentiated": True}
        staged_outs = trace.stage(remat_p, ins, new_params)
    known_it, staged_it = iter(known_outs), iter(staged_outs)
    return [next(staged_it) if u else next(known_it) for u in unks_out]


@partial_eval.partial_eval_jaxpr_rules.register(remat_p)
def _remat_partial_eval_jaxpr(unks_in, eqn):
    # inside a jaxpr being split (a remat2 in a jit under grad): the known half is a remat2 of
    # the known jaxpr, returning the residuals after its outputs
    params = eqn.params
    known, staged, unks_out, n_res, used_in = split_remat(
        params["jaxpr"], unks_in, params["policy"]
    )
    residuals = [Var(a) for a in known.out_avals[len(known.out_avals) - n_res :]]
    outs_known = [v for v, u in zip(eqn.outvars, unks_out, strict=True) if not u]
    outs_unknown = [v for v, u in zip(eqn.outvars, unks_out, strict=True) if u]
    ins_known = [x for x, u in zip(eqn.invars, unks_in, strict=True) if not u]
    eqn_known: Any = None
    eqn_unknown = None
    if outs_known or residuals:
        eqn_known = _inlined(known, ins_known, [*outs_known, *residuals])
        if eqn_known is None:
            eqn_known = JaxprEqn(
                remat_p, ins_known, [*outs_known, *residuals], {**params, "jaxpr": known}
            )
    if outs_unknown:
        ins = [*residuals, *(x for x, u in zip(eqn.invars, used_in, strict=True) if u)]
        new = {**params, "jaxpr": staged, "differentiated": True}
        eqn_unknown = JaxprEqn(remat_p, ins, outs_unknown, new)
    return eqn_known, eqn_unknown, unks_out


def _inlined(closed: ClosedJaxpr, ins: Sequence[Any], outs: Sequence[Var]) -> list | None:
    # `closed`'s equations, reading `ins` and writing `outs`, with fresh variables inside (a
    # jaxpr may be split more than once); None when an output is no equation's (an input, a
    # literal, or one value twice), which the list cannot express
    j = closed.jaxpr
    made = [v for e in j.eqns for v in e.outvars]
    if closed.consts or len(set(j.outvars)) < len(j.outvars) or not set(j.outvars) <= set(made):
        return None
    env: dict[Any, Any] = dict(zip(j.invars, ins, strict=True))
    env.update(zip(j.outvars, outs, strict=True))
    eqns = []
    for e in j.eqns:
        for v in e.outvars:
            env.setdefault(v, Var(v.aval))
        invars = [env.get(x, x) if isinstance(x, Var) else x for x in e.invars]
        eqns.append(e._replace(invars=invars, outvars=[env[v] for v in e.outvars]))
    return eqns
