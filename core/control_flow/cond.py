"""Conditionals: the `cond` primitive, `cond` and `switch`.

Layer 4, after common.py (the helpers cond, scan and while_loop share) (autodidax part 4, "Control flow: cond"; seed 004, "Conditionals").
`cond` and `switch` stage each branch to a jaxpr at the operands' types before binding
`cond[branches=(...)]` to an int32 index and the operands. Values the branches close over
become leading operands ("consts"), shared by all branches as in JAX: each branch takes every
branch's consts and ignores the others'. Branches are ordered (false, true) for `cond`;
`switch` clamps its index. Outputs that every branch forwards from the same input are not
outputs of the primitive (JAX prunes them too).

The rules transform the branches as jaxprs: jvp with `jvp_jaxpr`, vmap with `vmap_jaxpr`
(a batched index turns the cond into a `select_n` over every branch's outputs).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, vma
from didax.control_flow import python_loops, ref_carries
from didax.control_flow.common import (
    as_array,
    bullets,
    check_leaves,
    forwarding,
    fun_sourceinfo,
    hoist_consts,
    jaxpr_as_fun,
    join_consts,
    leaf_path_names,
    long_str,
    mismatch_extra,
    pcast_hint,
    prune_outputs,
    trace_to_subjaxpr,
    tree_differences,
    with_invars,
)
from didax.control_flow.python_loops import NOT_RUN
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal, Zero
from didax.interpreters import staging, stepping
from didax.interpreters.jvp import jvp_jaxpr
from didax.interpreters.partial_eval import partial_eval_jaxpr, partial_eval_jaxpr_rules
from didax.interpreters.transpose import transpose_jaxpr
from didax.interpreters.vmap import batched_out_dims, vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, JaxprEqn, Var
from didax.primitives import creation, shape
from didax.primitives.comparison import eq, ne, select_n
from didax.primitives.convert import convert_element_type, stop_gradient
from didax.primitives.elementwise import clamp
from didax.tree_util import PyTreeDef, tree_flatten, tree_unflatten

# ============================================================================ cond

cond_p = core.Primitive("cond", multiple_results=True)


def cond(
    pred: Any,
    true_fun: Callable[..., Any],
    false_fun: Callable[..., Any],
    *operands: Any,
    operand: Any = inspect.Parameter.empty,
) -> Any:
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, staged as one `cond`
    primitive (both branches are traced). Like `jax.lax.cond`."""
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _operand_keyword(operands, operand)
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or np.ndim(pred) != 0:
        what = f"type {type(pred)}" if isinstance(pred, Sequence) else f"shape {np.shape(pred)}."
        raise TypeError(f"Pred must be a scalar, got {pred} of {what}")
    if not core.is_arraylike(pred):
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.")
    pred_dtype = core.get_aval(pred).dtype
    if pred_dtype != dtypes.bool_:  # a number is true when nonzero
        zero = np.zeros((), pred_dtype)
        pred = ne(pred, zero) if isinstance(pred, core.Tracer) else core.to_numpy(pred) != zero
    index = convert_element_type(pred, dtypes.int32)
    if (out := python_loops.branch(index, (false_fun, true_fun), operands)) is not NOT_RUN:
        return out
    return _cond_bind(
        index, (false_fun, true_fun), ("false_fun", "true_fun"), operands, "cond", checks=[(1, 0)]
    )


def switch(
    index: Any,
    branches: Sequence[Callable[..., Any]],
    *operands: Any,
    operand: Any = inspect.Parameter.empty,
) -> Any:
    """`branches[index](*operands)`, the index clamped into range, staged as one `cond`
    primitive. Like `jax.lax.switch`."""
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _operand_keyword(operands, operand)
    if np.ndim(index) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {np.shape(index)}.")
    if not core.is_arraylike(index):
        raise TypeError(f"Index type must be an integer, got {index}.")
    index_dtype = core.get_aval(index).dtype
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = convert_element_type(index, dtypes.int32)
    index = clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))
    if (out := python_loops.branch(index, branches, operands)) is not NOT_RUN:
        return out
    names = tuple(f"branch {i}" if i == 0 else f"branch{i}" for i in range(len(branches)))
    return _cond_bind(
        index, branches, names, operands, "switch", checks=[(0, i) for i in range(1, len(branches))]
    )


def _operand_keyword(operands: tuple, operand: Any) -> tuple:
    if operand is inspect.Parameter.empty:
        return operands
    if operands:
        raise TypeError(
            "if 'operand' keyword is passed then no positional operands can be "
            f"passed, got operand={operand!r} and positional operands {operands}"
        )
    return (operand,)


def _cond_bind(
    index: Any,
    branches: Sequence[Callable[..., Any]],
    names: Sequence[str],
    operands: tuple,
    api: str,
    checks: Sequence[tuple[int, int]],
) -> Any:
    leaves, in_tree = tree_flatten((operands, {}))
    check_leaves(leaves, api)
    in_avals = [core.get_aval(x) for x in leaves]

    def call(fn: Callable[..., Any]) -> Callable[..., Any]:
        return lambda args, kwargs: fn(*args, **kwargs)

    traced = [trace_to_subjaxpr(call(fn), in_tree, in_avals, refs=True) for fn in branches]
    if ref_carries.closes_over_refs(*(t[1] for t in traced)):  # refs made outside: threaded
        bind = lambda fns, ops: _cond_bind(index, fns, names, ops, api, checks)  # noqa: E731
        return ref_carries.threaded(bind, traced, operands)
    jaxprs, consts = join_consts([t[0] for t in traced], [t[1] for t in traced])
    out_trees = [t[2] for t in traced]
    for i, j in checks:  # in JAX's order: true_fun against false_fun, branch 0 against others
        _check_branch_outputs(
            api,
            names[i],
            names[j],
            branches[i],
            branches[j],
            out_trees[i],
            out_trees[j],
            jaxprs[i].out_avals,
            jaxprs[j].out_avals,
        )
    # Outputs every branch forwards from the same input are that input (JAX prunes them).
    fwds = [forwarding(j.jaxpr) for j in jaxprs]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)]
    keep = [f is None for f in in_fwd]
    jaxprs = [prune_outputs(j, keep) for j in jaxprs]
    outs = iter(cond_p.bind(index, *consts, *leaves, branches=tuple(jaxprs)))
    all_inputs = [*consts, *leaves]
    flat = [next(outs) if f is None else as_array(all_inputs[f]) for f in in_fwd]
    return tree_unflatten(out_trees[0], flat)


def _check_branch_outputs(
    api: str,
    name1: str,
    name2: str,
    f1: Callable[..., Any],
    f2: Callable[..., Any],
    tree1: PyTreeDef,
    tree2: PyTreeDef,
    avals1: Sequence[ShapedArray],
    avals2: Sequence[ShapedArray],
) -> None:
    where = f"{name1} is {fun_sourceinfo(f1)}\n{name2} is {fun_sourceinfo(f2)}\n\n"
    if tree1 != tree2:
        diffs = [
            f"{name1} output{' at path ' + p if p else ''} is a {a} but {name2} "
            f"output{' at path ' + p if p else ''} is a {b}, so {why}"
            for p, a, b, why in tree_differences(tree1, tree2)
        ]
        differences = bullets(diffs, capitalize=False) if diffs else ""
        raise TypeError(
            f"{api} branch outputs must have the same pytree structure, but they "
            f"differ:\n\n{where}{differences}\nRevise {name1} and/or {name2} so "
            "that they have the same pytree structure."
        )
    paths = leaf_path_names(tree1)
    diffs = [
        f"the output of {name1}{' at path ' + p if p else ''} has type {long_str(a)} "
        f"but the corresponding output of {name2} has type {long_str(b)}"
        f"{mismatch_extra(a, b)}"
        for p, a, b in zip(paths, avals1, avals2, strict=True)
        if not vma.same_type(a, b)
    ]
    # in a check_vma shard_map's body (JAX's hint, which names the axes the first
    # branch's output lacks)
    casts = [
        vma.pcast_advice(a.vma - b.vma, f" to the output of {n}{' at path ' + p if p else ''}")
        for p, x, y in zip(paths, avals1, avals2, strict=True)
        for n, a, b in ((name1, y, x), (name2, x, y))
        if not vma.same_type(x, y) and a.vma != b.vma and b.vma - a.vma
    ]
    hint = pcast_hint(casts)
    if diffs:
        raise TypeError(
            f"{api} branches must have equal output types but they differ.\n\n"
            f"{where}{bullets(diffs)}\n{hint}Revise {name1} and/or {name2} so that all "
            "output types match."
        )


@core.impl_rules.register(cond_p)
def _cond_impl(index, *args, branches):
    branch = branches[int(np.clip(index, 0, len(branches) - 1))]
    return [core.to_numpy(x) for x in jaxpr_as_fun(branch)(*args)]


@stepping.step_rules.register(cond_p)
def _cond_step(where, index, *args, branches):  # step into the branch taken
    i = int(np.clip(index, 0, len(branches) - 1))
    return (yield from stepping.step_closed(branches[i], args, f"{where} > cond branch {i}"))


@core.abstract_eval_rules.register(cond_p)
def _cond_abstract_eval(index, *avals, branches):
    if index.shape != () or index.dtype != dtypes.int32:
        raise TypeError(f"cond: the branch index must be an int32 scalar, got {index.str_short()}")
    for i, branch in enumerate(branches):
        ins = branch.in_avals
        if len(ins) != len(avals) or not all(map(core.types_match, ins, avals)):
            raise TypeError(
                f"cond: branch {i} takes ({', '.join(a.str_short() for a in ins)}) "
                f"but the operands are ({', '.join(a.str_short() for a in avals)})"
            )
        outs = branch.out_avals
        first = branches[0].out_avals
        if len(outs) != len(first) or not all(map(core.types_match, outs, first)):
            raise TypeError(
                f"cond: branch {i} returns "
                f"({', '.join(a.str_short() for a in outs)}) but branch 0 returns "
                f"({', '.join(a.str_short() for a in first)})"
            )
    return list(branches[0].out_avals)


@core.jvp_rules.register(cond_p)
def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    _, *op_dots = tangents
    nonzeros = [not isinstance(t, Zero) for t in op_dots]
    out_nz = [any(nzs) for nzs in zip(*(jvp_jaxpr(b, nonzeros, False)[1] for b in branches))]
    traced = [hoist_consts(jvp_jaxpr(b, nonzeros, out_nz)[0]) for b in branches]
    new_branches, consts = join_consts([t[0] for t in traced], [t[1] for t in traced])
    dots = [t for t in op_dots if not isinstance(t, Zero)]
    outs = cond_p.bind(index, *consts, *ops, *dots, branches=tuple(new_branches))
    n = len(out_nz)
    primals_out, nz_dots = outs[:n], iter(outs[n:])
    tangents_out = [
        next(nz_dots) if nz else Zero.like(p) for p, nz in zip(primals_out, out_nz, strict=True)
    ]
    return primals_out, tangents_out


@partial_eval_jaxpr_rules.register(cond_p)
def _cond_partial_eval(unks_in, eqn):
    # Known operands run a cond of the branches' known halves now, which also returns the
    # residuals the unknown halves need; the unknown halves become a cond of their own. The
    # branches' residuals share slots of equal type (a slot a branch leaves is zeros).
    index_uk, *ops_uk = unks_in
    branches = eqn.params["branches"]
    n_out = len(eqn.outvars)
    if index_uk:
        return None, eqn, [True] * n_out
    out_uks = [any(uks) for uks in zip(*(partial_eval_jaxpr(b, ops_uk)[2] for b in branches))]
    splits = [partial_eval_jaxpr(b, ops_uk, out_uks) for b in branches]
    n_known = n_out - sum(out_uks)
    slots, assigns = _residual_slots([known.out_avals[n_known:] for known, *_ in splits])
    res_vars = [Var(a) for a in slots]
    ops = eqn.invars[1:]
    known_ops = [x for x, uk in zip(ops, ops_uk, strict=True) if not uk]
    unknown_ops = [x for x, uk in zip(ops, ops_uk, strict=True) if uk]
    known_outs = [v for v, uk in zip(eqn.outvars, out_uks, strict=True) if not uk]
    known_branches = tuple(
        _fill_residuals(known, n_known, slots, assign)
        for (known, *_), assign in zip(splits, assigns, strict=True)
    )
    eqn_known = JaxprEqn(
        cond_p, [eqn.invars[0], *known_ops], [*known_outs, *res_vars], {"branches": known_branches}
    )
    if not any(out_uks):
        return eqn_known, None, out_uks
    unknown_branches = []
    for (_, unknown, _, n_res), assign in zip(splits, assigns, strict=True):
        own = dict(zip(assign, unknown.jaxpr.invars[:n_res], strict=True))
        slot_vars = [own[i] if i in own else Var(a) for i, a in enumerate(slots)]
        unknown_branches.append(with_invars(unknown, [*slot_vars, *unknown.jaxpr.invars[n_res:]]))
    unknown_outs = [v for v, uk in zip(eqn.outvars, out_uks, strict=True) if uk]
    eqn_unknown = JaxprEqn(
        cond_p,
        [eqn.invars[0], *res_vars, *unknown_ops],
        unknown_outs,
        {"branches": tuple(unknown_branches)},
    )
    return (eqn_known if known_outs or res_vars else None), eqn_unknown, out_uks


def _residual_slots(
    res_avals: Sequence[Sequence[ShapedArray]],
) -> tuple[list[ShapedArray], list[list[int]]]:
    # Slot of each branch's residuals: as many slots of a type as the branch needing most.
    slots: list[ShapedArray] = []
    assigns = []
    for avals in res_avals:
        taken: list[int] = []
        for aval in avals:
            free = [i for i, s in enumerate(slots) if i not in taken and core.types_match(s, aval)]
            if not free:
                slots.append(aval.strip_weak_type())
                free = [len(slots) - 1]
            taken.append(free[0])
        assigns.append(taken)
    return slots, assigns


def _fill_residuals(
    known: ClosedJaxpr, n_known: int, slots: Sequence[ShapedArray], assign: Sequence[int]
) -> ClosedJaxpr:
    def fn(*args: Any) -> list[Any]:
        outs = jaxpr_as_fun(known)(*args)
        filled = dict(zip(assign, outs[n_known:], strict=True))
        return [
            *outs[:n_known],
            *(
                filled[i] if i in filled else creation.full(a.shape, 0, a.dtype)
                for i, a in enumerate(slots)
            ),
        ]

    return staging.trace_to_jaxpr(fn, known.in_avals)


@core.transpose_rules.register(cond_p)
def _cond_transpose(cts, index, *ops, branches):
    assert not isinstance(index, UndefinedPrimal), "cond: the branch index is never linear"
    linear = [isinstance(x, UndefinedPrimal) for x in ops]
    ct_nonzero = [not isinstance(ct, Zero) for ct in cts]
    if not any(ct_nonzero):
        return [None, *(Zero(x.aval) if lin else None for x, lin in zip(ops, linear, strict=True))]
    traced = [hoist_consts(transpose_jaxpr(b, linear, ct_nonzero)) for b in branches]
    new_branches, consts = join_consts([t[0] for t in traced], [t[1] for t in traced])
    res = [x for x, lin in zip(ops, linear, strict=True) if not lin]
    outs = iter(
        cond_p.bind(
            index,
            *consts,
            *res,
            *(ct for ct in cts if not isinstance(ct, Zero)),
            branches=tuple(new_branches),
        )
    )
    return [None, *(next(outs) if lin else None for lin in linear)]


@core.vmap_rules.register(cond_p)
def _cond_vmap(axis_size, vals, dims, *, branches):
    index, *ops = vals
    index_dim, *op_dims = dims
    if index_dim is not NOT_MAPPED:
        return _cond_vmap_select(axis_size, vals, dims, branches)
    ops = [
        shape.move_axis(x, d, 0, axis_size) if d is not NOT_MAPPED else x
        for x, d in zip(ops, op_dims, strict=True)
    ]
    in_dims = [NOT_MAPPED if d is NOT_MAPPED else 0 for d in op_dims]
    out_bat = [
        any(d is not NOT_MAPPED for d in ds)
        for ds in zip(*(batched_out_dims(b, axis_size, in_dims) for b in branches))
    ]
    out_dims = [0 if b else None for b in out_bat]
    traced = [hoist_consts(vmap_jaxpr(b, axis_size, in_dims, out_dims)) for b in branches]
    new_branches, consts = join_consts([t[0] for t in traced], [t[1] for t in traced])
    outs = cond_p.bind(index, *consts, *ops, branches=tuple(new_branches))
    return outs, [0 if b else NOT_MAPPED for b in out_bat]


def _cond_vmap_select(axis_size, vals, dims, branches):
    # A batched index picks a different branch per lane: run every branch on every lane and
    # select. Each branch sees its operands through stop_gradient in the lanes it does not
    # own, so that a NaN derivative of an unselected branch cannot leak (JAX issue #1052).
    index, *ops = [_bdim_at_front(x, d, axis_size) for x, d in zip(vals, dims, strict=True)]
    n_out = len(branches[0].out_avals)
    branch_outs = []
    for i, branch in enumerate(branches):
        batched = vmap_jaxpr(branch, axis_size, [0] * len(ops), [0] * n_out)
        lane = eq(index, np.array(i, np.int32))
        ops_i = [_bcast_select_n(lane, stop_gradient(x), x) for x in ops]
        branch_outs.append(jaxpr_as_fun(batched)(*ops_i))
    outs = [_bcast_select_n(index, *cases) for cases in zip(*branch_outs)]
    return outs, [0] * n_out


def _bdim_at_front(x: Any, d: Any, axis_size: int) -> Any:
    return shape.move_axis(x, d, 0, axis_size)


def _bcast_select_n(which: Any, *cases: Any) -> Any:
    which_shape = core.get_aval(which).shape
    case_shape = core.get_aval(cases[0]).shape
    if len(which_shape) != len(case_shape):
        which = shape.broadcast_in_dim(which, case_shape, tuple(range(len(which_shape))))
    return select_n(which, *cases)


@core.lowering_rules.register(cond_p)
def _cond_lowering(ctx, index, *args, branches):
    # `stablehlo.case` runs region `index` (out of range: the last); regions read the
    # operands from the enclosing block.
    case = ctx.hlo.CaseOp([ctx.tensor_type(a) for a in ctx.avals_out], index, len(branches))
    for region, branch in zip(case.regions, branches, strict=True):
        with ctx.ir.InsertionPoint(region.blocks.append()):
            ctx.hlo.return_(ctx.lower_jaxpr(branch, args))
    return list(case.results)
