"""Loops with a data-dependent trip count: the `while` primitive, `while_loop` and
`fori_loop`.

Layer 4, after scan.py, which it imports: `fori_loop` with Python-int bounds is a `scan`
(so it is reverse-differentiable), with traced bounds a `while` (seed 004, "While").
`while_loop` stages `cond_fun` and `body_fun` at the carry's types and binds
`while[body_jaxpr body_nconsts cond_jaxpr cond_nconsts]` to (cond consts, body consts, carry).

As in JAX, the predicate may be batched: when `cond_jaxpr` returns a bool array (vmap of a
loop whose predicate depends on the batch), its shape is a prefix of every carry's shape; the
loop runs while any lane's predicate holds, and lanes whose predicate is false keep their
carry (a select_n in every iteration). The trip count is only known at run time, so the
loop has no transpose rule: reverse-mode differentiation raises JAX's ValueError.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.config import config
from didax.control_flow import python_loops, ref_carries
from didax.control_flow.common import (
    as_array,
    check_carry_type,
    check_leaves,
    dce_closed,
    forwarding,
    hoist_consts,
    instantiate_zeros,
    jaxpr_as_fun,
    long_str,
    promote_weak_init,
    prune_outputs,
    split,
    trace_to_subjaxpr,
    with_invars,
)
from didax.control_flow.scan import scan
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.interpreters import stepping
from didax.interpreters.jvp import jvp_jaxpr
from didax.interpreters.partial_eval import partial_eval_jaxpr, partial_eval_jaxpr_rules
from didax.interpreters.vmap import batched_out_dims, vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Var, dce_jaxpr
from didax.primitives import shape
from didax.primitives.comparison import lt
from didax.primitives.convert import convert_element_type
from didax.primitives.elementwise import add
from didax.primitives.reductions import reduce_max_p
from didax.tree_util import tree_flatten, tree_unflatten

while_p = core.Primitive("while", multiple_results=True)

_NO_REVERSE_MODE = (
    "Reverse-mode differentiation does not work for lax.while_loop or "
    "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
    "fori_loop with static start/stop."
)


def while_loop(
    cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any
) -> Any:
    """`val = init_val; while cond_fun(val): val = body_fun(val)`, staged as one `while`
    primitive. Like `jax.lax.while_loop`: differentiable in forward mode only.

    Raises:
        TypeError: `cond_fun` does not return a boolean scalar, or `body_fun` changes the
            carry's structure or types.
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if config.jax_disable_jit:
        out = python_loops.while_loop(cond_fun, body_fun, init_val)
        if out is not python_loops.NOT_RUN:
            return out
    init_flat, init_tree = tree_flatten(init_val)
    check_leaves(init_flat, "while_loop")
    in_tree = tree_flatten(((init_val,), {}))[1]

    def create(avals: list[ShapedArray]) -> tuple:
        cond_jaxpr, cond_consts, cond_tree = trace_to_subjaxpr(
            lambda args, kw: cond_fun(*args, **kw), in_tree, avals, refs=True
        )
        body_jaxpr, body_consts, body_tree = trace_to_subjaxpr(
            lambda args, kw: body_fun(*args, **kw), in_tree, avals, refs=True
        )
        if cond_tree.node is not None:
            raise TypeError(
                "cond_fun must return a boolean scalar, but got pytree "
                f"{str(cond_tree)[len('PyTreeDef(') : -1]}."
            )
        (pred,) = cond_jaxpr.out_avals
        if pred.shape != () or pred.dtype != dtypes.bool_:
            weak = ", weak_type=True" if pred.weak_type else ""
            raise TypeError(
                "cond_fun must return a boolean scalar, but got output type(s) "
                f"[ShapedArray({long_str(pred)}{weak})]."
            )
        return cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree

    init_avals = [core.get_aval(x) for x in init_flat]
    cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree = create(init_avals)
    if ref_carries.closes_over_refs(cond_consts, body_consts):  # refs made outside: carried
        cond, body = (cond_jaxpr, cond_consts), (body_jaxpr, body_consts)
        return ref_carries.while_loop(while_loop, cond, body, body_tree, init_val)
    body_out = body_jaxpr.out_avals
    if len(body_out) != len(init_flat):
        check_carry_type("while_loop body", body_fun, init_tree, body_tree, init_avals, body_out)
    init_flat, changed = promote_weak_init(init_flat, init_avals, body_out)
    if changed:
        init_avals = [core.get_aval(x) for x in init_flat]
        cond_jaxpr, cond_consts, body_jaxpr, body_consts, body_tree = create(init_avals)
    check_carry_type(
        "while_loop body", body_fun, init_tree, body_tree, init_avals, body_jaxpr.out_avals
    )
    outs = _bind_forwarding(cond_jaxpr, cond_consts, body_jaxpr, body_consts, init_flat)
    return tree_unflatten(body_tree, outs)


def _bind_forwarding(
    cond_jaxpr: ClosedJaxpr,
    cond_consts: list,
    body_jaxpr: ClosedJaxpr,
    body_consts: list,
    init: list,
) -> list[Any]:
    # As JAX does: a carry the body returns unchanged and the predicate never reads is a
    # constant of the loop, so it becomes a body const (batching it then costs nothing).
    n_cc, n_bc = len(cond_consts), len(body_consts)
    fwd = forwarding(body_jaxpr.jaxpr)
    used = dce_jaxpr(cond_jaxpr.jaxpr, [True] * len(cond_jaxpr.jaxpr.outvars))[1][n_cc:]
    to_const = [f == n_bc + i and not u for i, (f, u) in enumerate(zip(fwd, used, strict=True))]
    if any(to_const):
        c = cond_jaxpr.jaxpr
        c_consts, c_carry = split(c.invars, [n_cc])
        cond_jaxpr = with_invars(
            cond_jaxpr, [*c_consts, *(v for v, m in zip(c_carry, to_const, strict=True) if not m)]
        )
        b_consts, b_carry = split(body_jaxpr.jaxpr.invars, [n_bc])
        moved = [v for v, m in zip(b_carry, to_const, strict=True) if m]
        kept = [v for v, m in zip(b_carry, to_const, strict=True) if not m]
        body_jaxpr = prune_outputs(
            with_invars(body_jaxpr, [*moved, *b_consts, *kept]), [not m for m in to_const]
        )
        body_consts = [*(x for x, m in zip(init, to_const, strict=True) if m), *body_consts]
    kept_init = [x for x, m in zip(init, to_const, strict=True) if not m]
    outs = iter(
        while_p.bind(
            *cond_consts,
            *body_consts,
            *kept_init,
            cond_nconsts=n_cc,
            cond_jaxpr=cond_jaxpr,
            body_nconsts=len(body_consts),
            body_jaxpr=body_jaxpr,
        )
    )
    return [as_array(x) if m else next(outs) for x, m in zip(init, to_const, strict=True)]


def fori_loop(
    lower: Any,
    upper: Any,
    body_fun: Callable[[Any, Any], Any],
    init_val: Any,
    *,
    unroll: int | bool | None = None,
) -> Any:
    """`val = init_val; for i in range(lower, upper): val = body_fun(i, val)`. Like
    `jax.lax.fori_loop`: with concrete bounds a `scan` (reverse-differentiable), with traced
    bounds a `while`."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    lower_aval, upper_aval = core.get_aval(lower), core.get_aval(upper)
    dtype = lower_aval.dtype
    if lower_aval.dtype != upper_aval.dtype:
        # Python ints (weak) take the other bound's integer type.
        both_int = dtypes.is_int(lower_aval.dtype) and dtypes.is_int(upper_aval.dtype)
        if both_int and lower_aval.weak_type and not upper_aval.weak_type:
            dtype = upper_aval.dtype
        elif both_int and upper_aval.weak_type and not lower_aval.weak_type:
            dtype = lower_aval.dtype
        else:
            raise TypeError(
                "lower and upper arguments to fori_loop must have equal types, "
                f"got {lower_aval.dtype.name} and {upper_aval.dtype.name}"
            )
    lo, hi = core.concrete_value(lower), core.concrete_value(upper)
    if lo is not None and hi is not None:
        lo, hi = int(lo), int(hi)
        if config.jax_disable_jit and hi <= lo:  # (a Python scan needs one step)
            return init_val

        def scan_body(loop_carry: tuple, _: Any) -> tuple:  # JAX's name, in carry errors
            i, x = loop_carry
            return (i + 1, body_fun(i, x)), None

        (_, result), _ = scan(
            scan_body,
            (lo, init_val),
            None,
            length=max(hi - lo, 0),
            unroll=1 if unroll is None else unroll,
        )
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError(
            "Can only use `unroll` in `fori_loop` if the loop bounds are statically known."
        )
    lower = convert_element_type(lower, dtype) if lower_aval.dtype != dtype else lower
    upper = convert_element_type(upper, dtype) if upper_aval.dtype != dtype else upper

    def while_body(loop_carry: tuple) -> tuple:
        i, stop, x = loop_carry
        one = convert_element_type(1, core.get_aval(i).dtype, core.get_aval(i).weak_type)
        return add(i, one), stop, body_fun(i, x)

    _, _, result = while_loop(_fori_cond, while_body, (lower, upper, init_val))
    return result


def _fori_cond(carry: tuple) -> Any:
    i, stop, _ = carry
    return lt(i, stop)


# ============================================================================ rules


def _pred_select(pred: Any, new: Any, old: Any) -> Any:
    # A batched predicate (shape a prefix of the carry's) keeps finished lanes unchanged.
    pred = np.reshape(pred, pred.shape + (1,) * (np.ndim(old) - pred.ndim))
    return np.where(pred, new, old)


@core.impl_rules.register(while_p)
def _while_impl(*args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    cconsts, bconsts, carry = split(args, [cond_nconsts, body_nconsts])
    cond_fn, body_fn = jaxpr_as_fun(cond_jaxpr), jaxpr_as_fun(body_jaxpr)

    def pred_of(carry: list) -> np.ndarray:
        return np.asarray(core.to_numpy(cond_fn(*cconsts, *carry)[0]))

    pred = pred_of(carry)
    while pred.any():
        new = [core.to_numpy(x) for x in body_fn(*bconsts, *carry)]
        carry = (
            new
            if pred.ndim == 0
            else [_pred_select(pred, n, c) for n, c in zip(new, carry, strict=True)]
        )
        pred = pred_of(carry)
    return [np.asarray(c) for c in carry]


@stepping.step_rules.register(while_p)
def _while_step(where, *args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    cconsts, bconsts, carry = split(args, [cond_nconsts, body_nconsts])
    cond_fn = jaxpr_as_fun(cond_jaxpr)  # the test is evaluated whole; the body is stepped
    iteration = 0
    while (pred := np.asarray(core.to_numpy(cond_fn(*cconsts, *carry)[0]))).any():
        iteration += 1
        label = f"{where} > while iteration {iteration}"
        new = yield from stepping.step_closed(body_jaxpr, [*bconsts, *carry], label)
        carry = (
            new if pred.ndim == 0 else list(map(functools.partial(_pred_select, pred), new, carry))
        )
    return carry


@core.abstract_eval_rules.register(while_p)
def _while_abstract_eval(*avals, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    cconsts, bconsts, carry = split(avals, [cond_nconsts, body_nconsts])
    for name, jaxpr, given in (
        ("cond_jaxpr", cond_jaxpr, [*cconsts, *carry]),
        ("body_jaxpr", body_jaxpr, [*bconsts, *carry]),
    ):
        ins = jaxpr.in_avals
        if len(ins) != len(given) or not all(map(core.types_match, ins, given)):
            raise TypeError(
                f"while: {name} takes ({', '.join(a.str_short() for a in ins)}) "
                f"but the operands give ({', '.join(a.str_short() for a in given)})"
            )
    outs = body_jaxpr.out_avals
    if len(outs) != len(carry) or not all(map(core.types_match, outs, carry)):
        raise TypeError(
            f"while: body_jaxpr returns ({', '.join(a.str_short() for a in outs)}) "
            f"but the carry is ({', '.join(a.str_short() for a in carry)})"
        )
    (pred,) = cond_jaxpr.out_avals
    if pred.dtype != dtypes.bool_ or any(c.shape[: pred.ndim] != pred.shape for c in carry):
        raise TypeError(
            f"while: cond_jaxpr must return a bool scalar, or a bool array whose "
            f"shape prefixes every carry's; got {pred.str_short()}"
        )
    return list(outs)


@core.jvp_rules.register(while_p)
def _while_jvp(primals, tangents, *, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    nonzeros = [not isinstance(t, Zero) for t in tangents]
    _, bconst_nz, init_nz = split(nonzeros, [cond_nconsts, body_nconsts])
    num_carry = len(init_nz)
    carry_nz = init_nz
    for _ in range(num_carry + 1):  # each pass adds a nonzero carry, or it is the fixpoint
        body_jvp, nz_out = jvp_jaxpr(body_jaxpr, [*bconst_nz, *carry_nz], carry_nz)
        if nz_out == carry_nz:
            break
        carry_nz = list(map(operator.or_, carry_nz, nz_out))
    body_jvp, jvp_consts = hoist_consts(body_jvp)
    # jvp_jaxpr gives (jvp consts, bconsts, carry, bconst dots, carry dots); the loop needs
    # (consts..., carry, carry dots): the bconst dots join the consts.
    h, bc, cr, bc_dot, cr_dot = split(
        body_jvp.jaxpr.invars, [len(jvp_consts), body_nconsts, num_carry, sum(bconst_nz)]
    )
    body = with_invars(body_jvp, [*h, *bc, *bc_dot, *cr, *cr_dot])
    cconsts, bconsts, init = split(primals, [cond_nconsts, body_nconsts])
    _, bconst_dots, init_dots = split(tangents, [cond_nconsts, body_nconsts])
    bconst_dots = [t for t in bconst_dots if not isinstance(t, Zero)]
    init_dots = instantiate_zeros([t for t, nz in zip(init_dots, carry_nz, strict=True) if nz])
    c = cond_jaxpr.jaxpr
    cond_aug = ClosedJaxpr(
        Jaxpr(
            c.constvars,
            [*c.invars, *(Var(core.get_aval(t).strip_weak_type()) for t in init_dots)],
            c.outvars,
            c.eqns,
        ),
        cond_jaxpr.consts,
    )
    outs = while_p.bind(
        *cconsts,
        *jvp_consts,
        *bconsts,
        *bconst_dots,
        *init,
        *init_dots,
        cond_nconsts=cond_nconsts,
        cond_jaxpr=cond_aug,
        body_nconsts=len(jvp_consts) + body_nconsts + len(bconst_dots),
        body_jaxpr=body,
    )
    carry, dots = outs[:num_carry], iter(outs[num_carry:])
    return carry, [
        next(dots) if nz else Zero.like(p) for p, nz in zip(carry, carry_nz, strict=True)
    ]


@partial_eval_jaxpr_rules.register(while_p)
def _while_partial_eval(unks_in, eqn):
    # When the predicate reads only known carries, a loop of the body's known half computes
    # the known carries now. The unknown carries need the whole loop, which is staged as it
    # is (recomputing the known carries), as JAX does; its transpose then raises.
    params = eqn.params
    n_cc, n_bc = params["cond_nconsts"], params["body_nconsts"]
    cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
    cc_uk, bc_uk, carry_uk = split(unks_in, [n_cc, n_bc])
    for _ in range(len(carry_uk) + 1):
        out_uks = partial_eval_jaxpr(body_jaxpr, [*bc_uk, *carry_uk], carry_uk)[2]
        if out_uks == carry_uk:
            break
        carry_uk = list(map(operator.or_, carry_uk, out_uks))
    all_unknown = None, eqn, [True] * len(carry_uk)
    if any(cc_uk) or partial_eval_jaxpr(cond_jaxpr, [*cc_uk, *carry_uk])[2][0]:
        return all_unknown
    cond_known = dce_closed(partial_eval_jaxpr(cond_jaxpr, [*cc_uk, *carry_uk])[0], [True])
    body_known, _, _, n_res = partial_eval_jaxpr(body_jaxpr, [*bc_uk, *carry_uk], carry_uk)
    n_known = len(carry_uk) - sum(carry_uk)
    body_known = dce_closed(body_known, [True] * n_known + [False] * n_res)
    cconsts, bconsts, init = split(eqn.invars, [n_cc, n_bc])
    bconsts_known = [x for x, uk in zip(bconsts, bc_uk, strict=True) if not uk]
    eqn_known = JaxprEqn(
        while_p,
        [*cconsts, *bconsts_known, *(x for x, uk in zip(init, carry_uk, strict=True) if not uk)],
        [v for v, uk in zip(eqn.outvars, carry_uk, strict=True) if not uk],
        {
            **params,
            "cond_jaxpr": cond_known,
            "body_jaxpr": body_known,
            "body_nconsts": len(bconsts_known),
        },
    )
    outvars = [v if uk else DropVar(v.aval) for v, uk in zip(eqn.outvars, carry_uk, strict=True)]
    eqn_unknown = JaxprEqn(while_p, eqn.invars, outvars, params)
    return (eqn_known if n_known else None), eqn_unknown, carry_uk


@core.transpose_rules.register(while_p)
def _while_transpose(cts, *args, **params):
    raise ValueError(_NO_REVERSE_MODE)


@core.vmap_rules.register(while_p)
def _while_vmap(axis_size, vals, dims, *, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    cconst_dims, bconst_dims, init_dims = split(dims, [cond_nconsts, body_nconsts])
    carry_bat = [d is not NOT_MAPPED for d in init_dims]
    for _ in range(len(carry_bat) + 1):
        carry_in = [0 if b else NOT_MAPPED for b in carry_bat]
        out_bat = [
            d is not NOT_MAPPED
            for d in batched_out_dims(body_jaxpr, axis_size, [*bconst_dims, *carry_in])
        ]
        if all(o <= b for o, b in zip(out_bat, carry_bat, strict=True)):
            break
        carry_bat = list(map(operator.or_, carry_bat, out_bat))
    (pred_dim,) = batched_out_dims(cond_jaxpr, axis_size, [*cconst_dims, *carry_in])
    if pred_dim is not NOT_MAPPED:
        # A batched predicate: every carry is batched, at 0, where the predicate's lanes are.
        carry_dims = [0] * len(carry_bat)
        body = vmap_jaxpr(body_jaxpr, axis_size, [*bconst_dims, *carry_dims], carry_dims)
        cond = vmap_jaxpr(cond_jaxpr, axis_size, [*cconst_dims, *carry_dims], [0])
    else:
        # The predicate's own rank (a loop batched before) stays a prefix of the carries.
        rank = cond_jaxpr.out_avals[0].ndim
        carry_dims = [rank if b else NOT_MAPPED for b in carry_bat]
        outs = [rank if b else None for b in carry_bat]
        body = vmap_jaxpr(body_jaxpr, axis_size, [*bconst_dims, *carry_dims], outs)
        cond = vmap_jaxpr(cond_jaxpr, axis_size, [*cconst_dims, *carry_dims], [None])
    body, body_consts = hoist_consts(body)
    cond, cond_consts = hoist_consts(cond)
    cconsts, bconsts, init = split(vals, [cond_nconsts, body_nconsts])
    init = [
        x if new is NOT_MAPPED else shape.move_axis(x, old, new, axis_size)
        for x, old, new in zip(init, init_dims, carry_dims, strict=True)
    ]
    outs = while_p.bind(
        *cond_consts,
        *cconsts,
        *body_consts,
        *bconsts,
        *init,
        cond_nconsts=len(cond_consts) + cond_nconsts,
        cond_jaxpr=cond,
        body_nconsts=len(body_consts) + body_nconsts,
        body_jaxpr=body,
    )
    return outs, carry_dims


@core.lowering_rules.register(while_p)
def _while_lowering(ctx, *args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    # `stablehlo.while` carries the loop state; its regions read the consts from the
    # enclosing block. A batched predicate loops while any lane's holds (an `or` reduction)
    # and keeps the finished lanes' carries with a select.
    hlo, ir = ctx.hlo, ctx.ir
    cconsts, bconsts, init = split(args, [cond_nconsts, body_nconsts])
    carry_avals = ctx.avals_in[cond_nconsts + body_nconsts :]
    types = [ctx.tensor_type(a) for a in carry_avals]
    (pred_aval,) = cond_jaxpr.out_avals
    loop = hlo.WhileOp(types, init)
    cond_block = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        (pred,) = ctx.lower_jaxpr(cond_jaxpr, [*cconsts, *cond_block.arguments])
        if pred_aval.shape:
            pred = _any(ctx, pred, pred_aval)
        hlo.return_([pred])
    body_block = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        carry = list(body_block.arguments)
        new = ctx.lower_jaxpr(body_jaxpr, [*bconsts, *carry])
        if pred_aval.shape:
            (pred,) = ctx.lower_jaxpr(cond_jaxpr, [*cconsts, *carry])
            new = [
                _select_lanes(ctx, pred, pred_aval, n, c, a)
                for n, c, a in zip(new, carry, carry_avals, strict=True)
            ]
        hlo.return_(new)
    return list(loop.results)


def _any(ctx: core.LoweringContext, pred: Any, aval: ShapedArray) -> Any:
    scalar = ShapedArray((), dtypes.bool_)
    rule = core.lowering_rules[reduce_max_p]  # a max of bools is their `or`
    (out,) = rule(
        ctx.replace(avals_in=(aval,), avals_out=(scalar,)), pred, axes=tuple(range(aval.ndim))
    )
    return out


def _select_lanes(
    ctx: core.LoweringContext,
    pred: Any,
    pred_aval: ShapedArray,
    new: Any,
    old: Any,
    aval: ShapedArray,
) -> Any:
    if aval.shape != pred_aval.shape:
        pred = ctx.hlo.broadcast_in_dim(
            ctx.tensor_type(aval.update(dtype=dtypes.bool_)), pred, tuple(range(pred_aval.ndim))
        )
    return ctx.hlo.select(pred, new, old)
