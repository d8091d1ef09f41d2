"""Loops over the leading axis of arrays: the `scan` primitive and `lax.scan`.

Layer 4, after cond.py (seed 004, "Scan"). `scan(f, init, xs)` stages `f(carry, x) ->
(carry, y)` once, at the carry's types and the types of one slice of `xs`, and binds
`scan[jaxpr length num_carry num_consts reverse unroll]` to the operands (consts, carry, xs).
It runs `length` iterations and stacks the `y`s. The trip count is static, so scan is
reverse-differentiable: `fori_loop` with Python-int bounds is a scan (while_loop.py).

As in JAX, a carry the body returns unchanged becomes a const, and a `y` that is just the
current `x` is not an output (the `xs` array is returned for it). The rules transform the
body as a jaxpr (`jvp_jaxpr`, `vmap_jaxpr`), finding which carries have nonzero tangents or
batch axes by iterating to a fixpoint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, sharded_aval
from didax.config import config
from didax.control_flow import python_loops, ref_carries
from didax.control_flow.common import (
    as_array,
    check_carry_type,
    check_leaves,
    forwarding,
    hoist_consts,
    instantiate_zeros,
    jaxpr_as_fun,
    promote_weak_init,
    prune_outputs,
    split,
    trace_jaxpr_fn,
    trace_to_subjaxpr,
    with_invars,
    with_outvars,
)
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal, Zero
from didax.interpreters import stepping
from didax.interpreters.jvp import jvp_jaxpr
from didax.interpreters.partial_eval import partial_eval_jaxpr, partial_eval_jaxpr_rules
from didax.interpreters.transpose import transpose_jaxpr
from didax.interpreters.vmap import batched_out_dims, vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, JaxprEqn, Var
from didax.primitives import creation, rules, shape
from didax.primitives.elementwise import add_any
from didax.tree_util import PyTreeDef, tree_flatten, tree_unflatten

scan_p = core.Primitive("scan", multiple_results=True)


def scan(
    f: Callable[[Any, Any], tuple[Any, Any]],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> Any:
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs`; returns the final carry
    and the stacked `y`s. Like `jax.lax.scan`.

    Raises:
        TypeError: `f` does not return a pair, or changes the carry's structure or types.
        ValueError: the leading axes of `xs` and `length` disagree, or neither is given.
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_flatten(init)
    xs_flat = tree_flatten(xs)[0]
    check_leaves([*init_flat, *xs_flat], "scan")
    length = _infer_length(xs_flat, length)
    if config.jax_disable_jit:
        return python_loops.scan(f, init, xs, length, reverse)
    init_avals = [core.get_aval(x) for x in init_flat]
    x_avals = [_slice_aval(core.get_aval(x)) for x in xs_flat]

    in_tree = tree_flatten(((init, xs), {}))[1]

    def create(carry_avals: list[ShapedArray]) -> tuple[ClosedJaxpr, list, PyTreeDef]:
        jaxpr, consts, out_tree = trace_to_subjaxpr(
            lambda args, kw: f(*args, **kw), in_tree, [*carry_avals, *x_avals], refs=True
        )
        if out_tree.node not in (tuple, list) or len(out_tree.children) != 2:
            raise TypeError(f"scan body output must be a pair, got {_tree_text(out_tree)}.")
        return jaxpr, consts, out_tree

    jaxpr, consts, out_tree = create(init_avals)
    if ref_carries.closes_over_refs(consts):  # refs made outside: their values are carried
        options = {"length": length, "reverse": reverse, "unroll": unroll}
        return ref_carries.scan(scan, jaxpr, consts, out_tree, init, xs, **options)
    carry_tree = out_tree.children[0]
    num_carry = carry_tree.num_leaves
    if num_carry != len(init_flat):
        check_carry_type(
            "scan body", f, init_tree, carry_tree, init_avals, jaxpr.out_avals[:num_carry]
        )
    init_flat, changed = promote_weak_init(init_flat, init_avals, jaxpr.out_avals[:num_carry])
    if changed:
        init_avals = [core.get_aval(x) for x in init_flat]
        jaxpr, consts, out_tree = create(init_avals)
        carry_tree = out_tree.children[0]
    check_carry_type("scan body", f, init_tree, carry_tree, init_avals, jaxpr.out_avals[:num_carry])
    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    unroll = int(core.concrete_or_error(unroll, "the `unroll` argument to `scan`"))
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    outs = _bind_forwarding(jaxpr, consts, init_flat, xs_flat, length, reverse, unroll)
    return tree_unflatten(out_tree, outs)


def _tree_text(tree: PyTreeDef) -> str:
    return str(tree)[len("PyTreeDef(") : -1]


def _infer_length(xs_flat: Sequence[Any], length: Any) -> int:
    lengths = []
    for x in xs_flat:
        shp = core.get_aval(x).shape
        if not shp:
            raise ValueError(f"scan got value with no leading axis to scan over: {x}.")
        lengths.append(shp[0])
    if length is not None:
        length = int(
            core.concrete_or_error(
                length,
                "the `length` argument to `scan` (it expects a concrete `int` value; for "
                "scan-like iteration with a dynamic length, use `while_loop` or `fori_loop`)",
            )
        )
        if any(n != length for n in lengths):
            raise ValueError(
                f"scan got `length` argument of {length} which disagrees with "
                f"leading axis sizes {lengths}."
            )
        return length
    if len(set(lengths)) > 1:
        raise ValueError(
            f"scan got values with different leading axis sizes: {', '.join(map(str, lengths))}."
        )
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


def _bind_forwarding(
    jaxpr: ClosedJaxpr, consts: list, init: list, xs: list, length: int, reverse: bool, unroll: int
) -> list[Any]:
    # As JAX does: a carry the body returns unchanged is read-only, so it becomes a const; a
    # `y` that is the current `x` is not computed, the `xs` array is returned for it.
    num_consts, num_carry = len(consts), len(init)
    fwd = forwarding(jaxpr.jaxpr)
    carry_fwd, ys_fwd = fwd[:num_carry], fwd[num_carry:]
    to_const = [f == num_consts + i for i, f in enumerate(carry_fwd)]
    j = jaxpr.jaxpr
    const_vars, carry_vars, x_vars = split(j.invars, [num_consts, num_carry])
    moved = [v for v, m in zip(carry_vars, to_const, strict=True) if m]
    kept_carry = [v for v, m in zip(carry_vars, to_const, strict=True) if not m]
    jaxpr = with_invars(jaxpr, [*moved, *const_vars, *kept_carry, *x_vars])
    new_consts = [x for x, m in zip(init, to_const, strict=True) if m]
    init_kept = [x for x, m in zip(init, to_const, strict=True) if not m]
    ys_from_xs = [
        f - num_consts - num_carry if f is not None and f >= num_consts + num_carry else None
        for f in ys_fwd
    ]
    jaxpr = prune_outputs(jaxpr, [not m for m in to_const] + [f is None for f in ys_from_xs])
    outs = scan_p.bind(
        *new_consts,
        *consts,
        *init_kept,
        *xs,
        reverse=reverse,
        length=length,
        jaxpr=jaxpr,
        num_consts=len(new_consts) + num_consts,
        num_carry=len(init_kept),
        unroll=unroll,
    )
    carry_out, ys_out = iter(outs[: len(init_kept)]), iter(outs[len(init_kept) :])
    carry = [as_array(x) if m else next(carry_out) for x, m in zip(init, to_const, strict=True)]
    ys = [next(ys_out) if f is None else xs[f] for f in ys_from_xs]
    return [*carry, *ys]


def _stacked(aval: ShapedArray, length: int) -> ShapedArray:
    return aval.update(shape=(length, *aval.shape))


@core.impl_rules.register(scan_p)
def _scan_impl(*args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    consts, carry, xs = split(args, [num_consts, num_carry])
    body = jaxpr_as_fun(jaxpr)
    y_avals = jaxpr.out_avals[num_carry:]
    ys = [np.empty((length, *a.shape), a.dtype) for a in y_avals]
    for i in reversed(range(length)) if reverse else range(length):
        outs = body(*consts, *carry, *(x[i] for x in xs))
        carry = [core.to_numpy(c) for c in outs[:num_carry]]
        for y, out in zip(ys, outs[num_carry:], strict=True):
            y[i] = core.to_numpy(out)
    return [*carry, *ys]


@stepping.step_rules.register(scan_p)
def _scan_step(where, *args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    consts, carry, xs = split(args, [num_consts, num_carry])  # step into each iteration
    ys = [np.empty((length, *a.shape), a.dtype) for a in jaxpr.out_avals[num_carry:]]
    order = reversed(range(length)) if reverse else range(length)
    for k, i in enumerate(order, 1):
        x_i = [core.to_numpy(x)[i] for x in xs]
        label = f"{where} > scan iteration {k} of {length}"
        outs = yield from stepping.step_closed(jaxpr, [*consts, *carry, *x_i], label)
        carry = outs[:num_carry]
        for y, out in zip(ys, outs[num_carry:], strict=True):
            y[i] = core.to_numpy(out)
    return [*carry, *ys]


def _slice_aval(x: ShapedArray) -> ShapedArray:  # one iteration's piece of a scanned `x`
    return sharded_aval.reshaped(x, x.shape[1:], 0, None)


@core.abstract_eval_rules.register(scan_p)
def _scan_abstract_eval(*avals, reverse, length, jaxpr, num_consts, num_carry, unroll):
    consts, carry, xs = split(avals, [num_consts, num_carry])
    x_avals = []
    for x in xs:
        if not x.shape or x.shape[0] != length:
            raise TypeError(
                f"scan: each scanned operand needs a leading axis of size {length}, "
                f"got {x.str_short()}"
            )
        x_avals.append(_slice_aval(x))
    ins = jaxpr.in_avals
    given = [*consts, *carry, *x_avals]
    if len(ins) != len(given) or not all(map(core.types_match, ins, given)):
        raise TypeError(
            f"scan: the body takes ({', '.join(a.str_short() for a in ins)}) but "
            f"the operands give ({', '.join(a.str_short() for a in given)})"
        )
    outs = jaxpr.out_avals
    if not all(map(core.types_match, outs[:num_carry], carry)):
        raise TypeError(
            "scan: the body's carry output types "
            f"({', '.join(a.str_short() for a in outs[:num_carry])}) differ from "
            f"its carry input types ({', '.join(a.str_short() for a in carry)})"
        )
    return [*outs[:num_carry], *(_stacked(a, length) for a in outs[num_carry:])]


@core.jvp_rules.register(scan_p)
def _scan_jvp(primals, tangents, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    nonzeros = [not isinstance(t, Zero) for t in tangents]
    const_nz, init_nz, xs_nz = split(nonzeros, [num_consts, num_carry])
    num_ys = len(jaxpr.out_avals) - num_carry
    carry_nz = init_nz
    for _ in range(num_carry + 1):  # each pass adds a nonzero carry, or it is the fixpoint
        body_nz = [*const_nz, *carry_nz, *xs_nz]
        jvp_body, nz_out = jvp_jaxpr(jaxpr, body_nz, [*carry_nz, *[False] * num_ys])
        if nz_out[:num_carry] == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, nz_out[:num_carry], strict=True)]
    ys_nz = nz_out[num_carry:]
    jvp_body, jvp_consts = hoist_consts(jvp_body)
    # jvp_jaxpr's signature is (jvp consts, primals, nonzero tangents) -> (primals, tangents);
    # scan's is (consts, carry, xs) -> (carry, ys): interleave.
    counts = [len(jvp_consts), num_consts, num_carry, len(xs_nz), sum(const_nz), sum(carry_nz)]
    h, c, cr, x, c_dot, cr_dot, x_dot = split(jvp_body.jaxpr.invars, counts)
    body = with_invars(jvp_body, [*h, *c, *c_dot, *cr, *cr_dot, *x, *x_dot])
    o_cr, o_y, o_cr_dot, o_y_dot = split(body.jaxpr.outvars, [num_carry, num_ys, sum(carry_nz)])
    body = with_outvars(body, [*o_cr, *o_cr_dot, *o_y, *o_y_dot])
    consts, init, xs = split(primals, [num_consts, num_carry])
    const_dots, init_dots, xs_dots = split(tangents, [num_consts, num_carry])
    const_dots = [t for t in const_dots if not isinstance(t, Zero)]
    init_dots = instantiate_zeros([t for t, nz in zip(init_dots, carry_nz, strict=True) if nz])
    xs_dots = [t for t in xs_dots if not isinstance(t, Zero)]
    outs = scan_p.bind(
        *jvp_consts,
        *consts,
        *const_dots,
        *init,
        *init_dots,
        *xs,
        *xs_dots,
        reverse=reverse,
        length=length,
        jaxpr=body,
        num_consts=len(jvp_consts) + num_consts + len(const_dots),
        num_carry=num_carry + len(init_dots),
        unroll=unroll,
    )
    carry, carry_dots, ys, ys_dots = split(outs, [num_carry, len(init_dots), num_ys])
    carry_dots, ys_dots = iter(carry_dots), iter(ys_dots)
    tangents_out = [
        next(carry_dots) if nz else Zero.like(p) for p, nz in zip(carry, carry_nz, strict=True)
    ]
    tangents_out += [next(ys_dots) if nz else Zero.like(p) for p, nz in zip(ys, ys_nz, strict=True)]
    return [*carry, *ys], tangents_out


@partial_eval_jaxpr_rules.register(scan_p)
def _scan_partial_eval(unks_in, eqn):
    # The known part of every iteration runs now, as a scan that also stacks the residuals
    # each iteration's unknown part needs; the unknown part becomes a scan over them. A
    # carry is unknown if its initial value is, or the body makes it so (a fixpoint).
    params = eqn.params
    jaxpr, num_consts, num_carry = params["jaxpr"], params["num_consts"], params["num_carry"]
    const_uk, carry_uk, xs_uk = split(unks_in, [num_consts, num_carry])
    num_ys = len(jaxpr.out_avals) - num_carry
    for _ in range(num_carry + 1):
        out_uks = partial_eval_jaxpr(
            jaxpr, [*const_uk, *carry_uk, *xs_uk], [*carry_uk, *[False] * num_ys]
        )[2]
        if out_uks[:num_carry] == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, out_uks[:num_carry], strict=True)]
    ins_uk = [*const_uk, *carry_uk, *xs_uk]
    known, unknown, out_uks, n_res = partial_eval_jaxpr(
        jaxpr, ins_uk, [*carry_uk, *[False] * num_ys]
    )
    consts, init, xs = split(eqn.invars, [num_consts, num_carry])
    # A residual that is a known const is the same in every iteration: pass it, not a stack.
    n_known_consts = num_consts - sum(const_uk)
    known_consts = [x for x, uk in zip(consts, const_uk, strict=True) if not uk]
    n_known_out = len(known.out_avals) - n_res
    res_fwd = [
        f if f is not None and f < n_known_consts else None
        for f in forwarding(known.jaxpr)[n_known_out:]
    ]
    known = prune_outputs(known, [True] * n_known_out + [f is None for f in res_fwd])
    res_vars = unknown.jaxpr.invars[:n_res]
    stacked = [
        Var(_stacked(v.aval, params["length"]))
        for v, f in zip(res_vars, res_fwd, strict=True)
        if f is None
    ]
    known_outs = [v for v, uk in zip(eqn.outvars, out_uks, strict=True) if not uk]
    n_known_carry = num_carry - sum(carry_uk)
    eqn_known = JaxprEqn(
        scan_p,
        [*known_consts, *_known(init, carry_uk), *_known(xs, xs_uk)],
        [*known_outs, *stacked],
        {**params, "jaxpr": known, "num_consts": n_known_consts, "num_carry": n_known_carry},
    )
    eqn_known = eqn_known if eqn_known.outvars else None
    if not any(out_uks):
        return eqn_known, None, out_uks
    const_res = [v for v, f in zip(res_vars, res_fwd, strict=True) if f is not None]
    stacked_res = [v for v, f in zip(res_vars, res_fwd, strict=True) if f is None]
    n_uk_consts, n_uk_carry = sum(const_uk), sum(carry_uk)
    u_consts, u_carry, u_xs = split(unknown.jaxpr.invars[n_res:], [n_uk_consts, n_uk_carry])
    unknown = with_invars(unknown, [*const_res, *u_consts, *u_carry, *u_xs, *stacked_res])
    unknown_ins = [
        *(known_consts[f] for f in res_fwd if f is not None),
        *(x for x, uk in zip(consts, const_uk, strict=True) if uk),
        *(x for x, uk in zip(init, carry_uk, strict=True) if uk),
        *(x for x, uk in zip(xs, xs_uk, strict=True) if uk),
        *stacked,
    ]
    unknown_outs = [v for v, uk in zip(eqn.outvars, out_uks, strict=True) if uk]
    eqn_unknown = JaxprEqn(
        scan_p,
        unknown_ins,
        unknown_outs,
        {
            **params,
            "jaxpr": unknown,
            "num_consts": len(const_res) + n_uk_consts,
            "num_carry": n_uk_carry,
        },
    )
    return eqn_known, eqn_unknown, out_uks


def _known(xs: Sequence[Any], uks: Sequence[bool]) -> list[Any]:
    return [x for x, uk in zip(xs, uks, strict=True) if not uk]


@core.transpose_rules.register(scan_p)
def _scan_transpose(cts, *args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    # The transpose runs the other way round: its carry is the carry's cotangent plus an
    # accumulator for each linear const's cotangent; its xs are the ys' cotangents and the
    # stacked residuals; it stacks the linear xs' cotangents. A carry is always taken as
    # linear: an initial value that is known is a zero tangent, whose cotangent is unused.
    consts, init, xs = split(args, [num_consts, num_carry])
    const_lin = [isinstance(x, UndefinedPrimal) for x in consts]
    xs_lin = [isinstance(x, UndefinedPrimal) for x in xs]
    ct_carry, ct_ys = split(cts, [num_carry])
    ct_carry = instantiate_zeros(ct_carry)
    ys_nz = [not isinstance(ct, Zero) for ct in ct_ys]
    ct_ys = [ct for ct in ct_ys if not isinstance(ct, Zero)]
    body_t = transpose_jaxpr(
        jaxpr, [*const_lin, *[True] * num_carry, *xs_lin], [*[True] * num_carry, *ys_nz]
    )
    res_consts = [x for x, lin in zip(consts, const_lin, strict=True) if not lin]
    res_xs = [x for x, lin in zip(xs, xs_lin, strict=True) if not lin]
    c_avals, carry_avals, x_avals = split(jaxpr.in_avals, [num_consts, num_carry])
    lin_const_avals = [a for a, lin in zip(c_avals, const_lin, strict=True) if lin]
    n_rc, n_lc = len(res_consts), len(lin_const_avals)

    def body(*args: Any) -> list[Any]:
        rc, acc, ct_c, ct_y, rx = split(args, [n_rc, n_lc, num_carry, len(ct_ys)])
        ct_lc, ct_c, ct_lx = split(jaxpr_as_fun(body_t)(*rc, *rx, *ct_c, *ct_y), [n_lc, num_carry])
        return [*map(add_any, acc, ct_lc), *ct_c, *ct_lx]

    y_avals = [a for a, nz in zip(jaxpr.out_avals[num_carry:], ys_nz, strict=True) if nz]
    in_avals = [
        *(a for a, lin in zip(c_avals, const_lin, strict=True) if not lin),
        *lin_const_avals,
        *(a.strip_weak_type() for a in carry_avals),
        *y_avals,
        *(a for a, lin in zip(x_avals, xs_lin, strict=True) if not lin),
    ]
    # carry cotangents are strong, as in JAX: the transposed body's `add_any` returns strong
    body_t, body_consts = trace_jaxpr_fn(body, in_avals)
    acc_init = [creation.full(a.shape, 0, a.dtype) for a in lin_const_avals]
    outs = scan_p.bind(
        *body_consts,
        *res_consts,
        *acc_init,
        *ct_carry,
        *ct_ys,
        *res_xs,
        reverse=not reverse,
        length=length,
        jaxpr=body_t,
        num_consts=len(body_consts) + n_rc,
        num_carry=n_lc + num_carry,
        unroll=unroll,
    )
    ct_consts, ct_init, ct_xs = split(outs, [n_lc, num_carry])
    ct_consts, ct_xs = iter(ct_consts), iter(ct_xs)
    return [
        *(next(ct_consts) if lin else None for lin in const_lin),
        *(
            ct if isinstance(x, UndefinedPrimal) else None
            for x, ct in zip(init, ct_init, strict=True)
        ),
        *(next(ct_xs) if lin else None for lin in xs_lin),
    ]


@core.vmap_rules.register(scan_p)
def _scan_vmap(axis_size, vals, dims, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    const_dims, init_dims, xs_dims = split(dims, [num_consts, num_carry])
    const_bat = [d is not NOT_MAPPED for d in const_dims]
    xs_bat = [d is not NOT_MAPPED for d in xs_dims]
    carry_bat = [d is not NOT_MAPPED for d in init_dims]
    for _ in range(num_carry + 1):
        in_dims = [0 if b else NOT_MAPPED for b in (*const_bat, *carry_bat, *xs_bat)]
        out_bat = [d is not NOT_MAPPED for d in batched_out_dims(jaxpr, axis_size, in_dims)]
        if all(b <= c for b, c in zip(out_bat[:num_carry], carry_bat, strict=True)):
            break
        carry_bat = [a or b for a, b in zip(carry_bat, out_bat[:num_carry], strict=True)]
    ys_bat = out_bat[num_carry:]
    out_dims = [0 if b else None for b in (*carry_bat, *ys_bat)]
    body, body_consts = hoist_consts(vmap_jaxpr(jaxpr, axis_size, in_dims, out_dims))
    consts, init, xs = split(vals, [num_consts, num_carry])
    consts = [
        x if d is NOT_MAPPED else shape.move_axis(x, d, 0, axis_size)
        for x, d in zip(consts, const_dims, strict=True)
    ]
    init = [
        shape.move_axis(x, d, 0, axis_size) if b else x
        for x, d, b in zip(init, init_dims, carry_bat, strict=True)
    ]
    xs = [
        x if d is NOT_MAPPED else shape.move_axis(x, d, 1, axis_size)
        for x, d in zip(xs, xs_dims, strict=True)
    ]
    outs = scan_p.bind(
        *body_consts,
        *consts,
        *init,
        *xs,
        reverse=reverse,
        length=length,
        jaxpr=body,
        num_consts=len(body_consts) + num_consts,
        num_carry=num_carry,
        unroll=unroll,
    )
    return outs, [0 if b else NOT_MAPPED for b in carry_bat] + [
        1 if b else NOT_MAPPED for b in ys_bat
    ]


@core.lowering_rules.register(scan_p)
def _scan_lowering(ctx, *args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    # A `stablehlo.while` over (i, carry, ys): iteration i reads slice i of each xs (length-1-i
    # in reverse) with dynamic_slice, runs the body, and writes y into slice i of the stacked
    # ys with dynamic_update_slice. Consts and xs are read from the enclosing block.
    hlo, ir = ctx.hlo, ctx.ir
    consts, init, xs = split(args, [num_consts, num_carry])
    _, carry_avals, xs_avals = split(ctx.avals_in, [num_consts, num_carry])
    ys_avals = ctx.avals_out[num_carry:]
    i32 = ShapedArray((), np.dtype(np.int32))
    types = [ctx.tensor_type(a) for a in (i32, *carry_avals, *ys_avals)]

    # (in a body manual over some axes only, each value the loop makes is constrained as an
    # equation's result is: GSPMD's partitioner needs them all manual)
    def typed(x: Any, aval: ShapedArray) -> Any:
        return x if ctx.module.manual_mesh is None else ctx.module.typed_annotation(x, aval)

    ys_init = [typed(_zeros(ctx, a), a) for a in ys_avals]
    if length == 0:  # no iteration: a slice of an empty xs would not even verify
        return [*init, *ys_init]
    loop = hlo.WhileOp(types, [typed(ctx.constant(0, np.int32), i32), *init, *ys_init])
    cond_block = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        i = cond_block.arguments[0]
        bound = typed(ctx.constant(length, np.int32), i32)
        hlo.return_([rules.compare(ctx, i, bound, "LT", i32.dtype)])
    body_block = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        i, *state = body_block.arguments
        carry, ys = split(state, [num_carry])
        last = typed(ctx.constant(length - 1, np.int32), i32)
        index = typed(hlo.subtract(last, i), i32) if reverse else i
        zero = typed(ctx.constant(0, np.int32), i32) if xs or ys else None
        x_slices = []
        for x, aval in zip(xs, xs_avals, strict=True):
            starts = [index, *[zero] * (aval.ndim - 1)]
            piece = hlo.dynamic_slice(x, starts, [1, *aval.shape[1:]])
            piece = typed(piece, aval.update(shape=(1, *aval.shape[1:])))
            one = _slice_aval(aval)
            x_slices.append(typed(hlo.reshape(ctx.tensor_type(one), piece), one))
        outs = ctx.lower_jaxpr(jaxpr, [*consts, *carry, *x_slices])
        new_carry, new_ys = split(outs, [num_carry])
        updated = []
        for acc, y, aval in zip(ys, new_ys, ys_avals, strict=True):
            y = hlo.reshape(ctx.tensor_type(aval.update(shape=(1, *aval.shape[1:]))), y)
            new = hlo.dynamic_update_slice(acc, y, [index, *[zero] * (aval.ndim - 1)])
            updated.append(typed(new, aval))
        next_i = typed(hlo.add(i, typed(ctx.constant(1, np.int32), i32)), i32)
        hlo.return_([next_i, *new_carry, *updated])
    return list(loop.results)[1:]


def _zeros(ctx: core.LoweringContext, aval: ShapedArray) -> Any:
    return rules.broadcast_constant(ctx, 0, aval)
