"""`custom_linear_solve`: a linear solve whose derivatives come from the linear operator, not
from differentiating the solver. Like `jax.lax.custom_linear_solve`. And `custom_root`, a
root-finder differentiated implicitly (a `custom_jvp` of the staged solver, as JAX's).

Layer 4, after cond (it uses common.py's tracing helpers). The caller gives `matvec` (x -> A x)
and `solve(matvec, b)` (and optionally `transpose_solve`); each is staged to a jaxpr at b's
types, its closed-over values (consts) becoming leading operands, and the primitive
`custom_linear_solve[const_lengths=... jaxprs=...]` binds the four groups of consts, then b.
`jaxprs` and `const_lengths` are `_LinearSolveTuple(matvec, vecmat, solve, transpose_solve)`,
printed as JAX prints them; `vecmat` (x -> A^T x) is the linear transpose of `matvec`.
With `has_aux=True`, `solve` and `transpose_solve` return `(x, aux)`: the aux leaves (solver
diagnostics, say) are the primitive's trailing outputs, returned as they are and never
differentiated (their tangents are zeros, their cotangents must be).

Rules, as JAX's: evaluating (or lowering) runs the `solve` jaxpr; the jvp of A x = b is
A dx = db - dA x, one more solve (dA x is the jvp of `matvec` in its consts); the transpose is
the same primitive with the roles swapped (vecmat <-> matvec, transpose_solve <-> solve); vmap
batches every jaxpr (b and x batched whenever anything is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from didax import core
from didax.control_flow.common import hoist_consts, jaxpr_as_fun, trace_to_subjaxpr
from didax.control_flow.custom_derivatives import custom_jvp
from didax.core import NOT_MAPPED, UndefinedPrimal, Zero
from didax.interpreters.jvp import jvp_flat
from didax.interpreters.transpose import linear_transpose_flat
from didax.interpreters.vmap import vmap_jaxpr
from didax.jaxpr import ClosedJaxpr, pp_params_rules
from didax.primitives import ad_helpers, shape
from didax.primitives.elementwise import add_tangents, neg
from didax.tree_util import tree_flatten, tree_unflatten


class _LinearSolveTuple(NamedTuple):
    # JAX's name: the jaxprs and const counts print as `_LinearSolveTuple(matvec=...)`
    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self) -> _LinearSolveTuple:
        return _LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)


linear_solve_p = core.Primitive("custom_linear_solve", multiple_results=True)


def custom_linear_solve(
    matvec: Callable[[Any], Any],
    b: Any,
    solve: Callable[[Callable[[Any], Any], Any], Any],
    transpose_solve: Callable[[Callable[[Any], Any], Any], Any] | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """`solve(matvec, b)`, differentiated as the solution x of `matvec(x) == b` (implicitly:
    the solver itself is never differentiated). With `has_aux`, `solve` and `transpose_solve`
    return `(x, aux)`, and so does this, its `aux` not differentiated. Like
    `jax.lax.custom_linear_solve`."""
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    return _custom_linear_solve(matvec, b, solve, transpose_solve, symmetric, None, has_aux)


def _custom_linear_solve(
    matvec: Callable[[Any], Any],
    b: Any,
    solve: Callable[..., Any],
    transpose_solve: Callable[..., Any] | None,
    symmetric: bool,
    vecmat: Callable[[Any], Any] | None,
    has_aux: bool = False,
) -> Any:
    # `vecmat`: x -> A^T x written out by the caller (jnp.linalg.solve gives JAX's form of
    # it); None derives it by transposing matvec
    leaves, tree = tree_flatten(b)
    avals = [core.get_aval(x) for x in leaves]
    _, args_tree = tree_flatten(((b,), {}))

    def staged(
        fn: Callable[[Any], Any], name: str, aux: bool = False
    ) -> tuple[ClosedJaxpr, list[Any], Any]:
        # fn's jaxpr, its consts, and its output tree: x's, or (x, aux)'s when `aux`
        x_tree: list[Any] = []

        def fn_x(args: Any, kwargs: Any) -> Any:
            out = fn(*args)
            x, _ = out if aux else (out, None)
            x_tree.append(tree_flatten(x)[1])
            return out

        closed, consts, out_tree = trace_to_subjaxpr(fn_x, args_tree, avals)
        _check(name, x_tree[0], tree, closed.out_avals[: len(avals)], avals)
        return closed, consts, out_tree

    matvec_jaxpr, matvec_consts, _ = staged(matvec, "matvec")
    solve_jaxpr, solve_consts, out_tree = staged(lambda x: solve(matvec, x), "solve", has_aux)
    if transpose_solve is None:
        vecmat_jaxpr, vecmat_consts, tr_jaxpr, tr_consts = None, [], None, []
    else:
        if symmetric:
            vecmat_jaxpr, vecmat_consts = matvec_jaxpr, matvec_consts
            vecmat_fn = matvec
        else:
            vecmat_fn = vecmat if vecmat is not None else _transposed(matvec, b, leaves, avals)
            vecmat_jaxpr, vecmat_consts, _ = staged(vecmat_fn, "vecmat")
        tr_jaxpr, tr_consts, _ = staged(
            lambda x: transpose_solve(vecmat_fn, x), "transpose_solve", has_aux
        )
    consts = [matvec_consts, vecmat_consts, solve_consts, tr_consts]
    const_lengths = _LinearSolveTuple(*map(len, consts))
    jaxprs = _LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_jaxpr)
    outs = linear_solve_p.bind(
        *(c for group in consts for c in group),
        *leaves,
        const_lengths=const_lengths,
        jaxprs=jaxprs,
    )
    return tree_unflatten(out_tree, outs)


def _transposed(matvec: Callable[[Any], Any], b: Any, leaves: list, avals: list) -> Callable:
    # x -> A^T x: the linear transpose of matvec at b's types
    _, tree = tree_flatten(b)

    def flat_matvec(*xs: Any) -> list[Any]:
        return tree_flatten(matvec(tree_unflatten(tree, list(xs))))[0]

    transpose = linear_transpose_flat(flat_matvec, avals)

    def vecmat(x: Any) -> Any:
        cts = transpose(tree_flatten(x)[0])
        return tree_unflatten(tree, [ad_helpers.instantiate(ct) for ct in cts])

    return vecmat


def _check(name: str, out_tree: Any, tree: Any, out_avals: Sequence, avals: Sequence) -> None:
    if out_tree != tree:
        raise TypeError(f"{name}() output pytree structure must match b, got {out_tree} and {tree}")
    if any(not core.types_match(o, a) for o, a in zip(out_avals, avals, strict=True)):
        shapes = [(a.shape, a.dtype.name) for a in out_avals]
        want = [(a.shape, a.dtype.name) for a in avals]
        raise ValueError(f"{name}() output shapes must match b, got {shapes} and {want}")


def _split(args: Sequence[Any], const_lengths: _LinearSolveTuple) -> tuple:
    groups, start = [], 0
    for n in const_lengths:
        groups.append(list(args[start : start + n]))
        start += n
    return _LinearSolveTuple(*groups), list(args[start:])


@core.impl_rules.register(linear_solve_p)
def _linear_solve_impl(*args, const_lengths, jaxprs):
    params, b = _split(args, const_lengths)
    return jaxpr_as_fun(jaxprs.solve)(*params.solve, *b)


@core.abstract_eval_rules.register(linear_solve_p)
def _linear_solve_abstract_eval(*avals, const_lengths, jaxprs):
    # x has b's types; the aux outputs, solve's trailing ones
    b = list(avals[sum(const_lengths) :])
    return b + list(jaxprs.solve.out_avals[len(b) :])


@core.jvp_rules.register(linear_solve_p)
def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    # A x = b, so dA x + A dx = db: dx solves A dx = db - dA x. The aux outputs (after x)
    # get zero tangents.
    outs = linear_solve_p.bind(*primals, const_lengths=const_lengths, jaxprs=jaxprs)
    params, _ = _split(primals, const_lengths)
    params_dot, b_dot = _split(tangents, const_lengths)
    x, aux = outs[: len(b_dot)], outs[len(b_dot) :]
    aux_dot = [Zero(core.get_aval(v)) for v in aux]
    if all(isinstance(t, Zero) for t in params_dot.matvec):
        rhs = b_dot
    else:
        zeros = [Zero(core.get_aval(v)) for v in x]
        _, matvec_dot = jvp_flat(
            jaxpr_as_fun(jaxprs.matvec),
            [*params.matvec, *x],
            [*params_dot.matvec, *zeros],
            instantiate=False,
        )
        rhs = [
            add_tangents(db, t if isinstance(t, Zero) else neg(t))
            for db, t in zip(b_dot, matvec_dot, strict=True)
        ]
    if all(isinstance(t, Zero) for t in rhs):
        return outs, [Zero(core.get_aval(v)) for v in outs]
    rhs = [ad_helpers.instantiate(t) for t in rhs]
    flat_params = [p for group in params for p in group]
    x_dot = linear_solve_p.bind(*flat_params, *rhs, const_lengths=const_lengths, jaxprs=jaxprs)
    return outs, x_dot[: len(b_dot)] + aux_dot


@core.transpose_rules.register(linear_solve_p)
def _linear_solve_transpose(cts, *args, const_lengths, jaxprs):
    if jaxprs.transpose_solve is None:
        raise TypeError(
            "transpose_solve required for backwards mode automatic differentiation of "
            "custom_linear_solve"
        )
    params, b = _split(args, const_lengths)
    if any(isinstance(p, UndefinedPrimal) for group in params for p in group):
        raise NotImplementedError("custom_linear_solve: the operator's consts are not linear")
    cts, aux_cts = cts[: len(b)], cts[len(b) :]
    if any(not isinstance(ct, Zero) for ct in aux_cts):
        raise NotImplementedError("custom_linear_solve: the aux outputs are not differentiable")
    cts = [ad_helpers.instantiate(ct) for ct in cts]
    flat_params = [p for group in params.transpose() for p in group]
    ct_b = linear_solve_p.bind(
        *flat_params,
        *cts,
        const_lengths=const_lengths.transpose(),
        jaxprs=jaxprs.transpose(),
    )
    return [None] * sum(const_lengths) + list(ct_b[: len(b)])


@core.vmap_rules.register(linear_solve_p)
def _linear_solve_vmap(axis_size, vals, dims, *, const_lengths, jaxprs):
    # Everything batched along axis 0: the consts that are, and b and x always
    params, b = _split(vals, const_lengths)
    params_dims, b_dims = _split(dims, const_lengths)
    b = [
        shape.move_axis(x, d, 0, axis_size)
        if d is not NOT_MAPPED
        else shape.broadcast_in_dim(
            x, (axis_size, *core.get_aval(x).shape), tuple(range(1, core.get_aval(x).ndim + 1))
        )
        for x, d in zip(b, b_dims, strict=True)
    ]
    new_jaxprs, new_consts = [], []
    for jaxpr, group, group_dims in zip(jaxprs, params, params_dims, strict=True):
        if jaxpr is None:
            new_jaxprs.append(None)
            new_consts.append([])
            continue
        group = [
            shape.move_axis(x, d, 0, axis_size) if d is not NOT_MAPPED else x
            for x, d in zip(group, group_dims, strict=True)
        ]
        in_dims = [NOT_MAPPED if d is NOT_MAPPED else 0 for d in group_dims] + [0] * len(b)
        batched, extra = hoist_consts(
            vmap_jaxpr(jaxpr, axis_size, in_dims, [0] * len(jaxpr.out_avals))
        )
        new_jaxprs.append(batched)
        new_consts.append([*extra, *group])
    outs = linear_solve_p.bind(
        *(c for group in new_consts for c in group),
        *b,
        const_lengths=_LinearSolveTuple(*map(len, new_consts)),
        jaxprs=_LinearSolveTuple(*new_jaxprs),
    )
    return outs, [0] * len(outs)


@core.lowering_rules.register(linear_solve_p)
def _linear_solve_lowering(ctx, *args, const_lengths, jaxprs):
    params, b = _split(args, const_lengths)
    return ctx.lower_jaxpr(jaxprs.solve, [*params.solve, *b])


@pp_params_rules.register(linear_solve_p)
def _linear_solve_pp(params):
    # JAX prints the named tuples themselves, each jaxpr by its own str() (names from `a`)
    return [("const_lengths", str(params["const_lengths"])), ("jaxprs", str(params["jaxprs"]))]


# ----------------------------------------------------------------------------- custom_root


def _flat_call(fn: Callable, tree: Any, n_in: int) -> Callable[..., list[Any]]:
    # fn of one pytree (`tree`'s structure, n_in leaves) as a function of flat leaves
    def flat(*leaves: Any) -> list[Any]:
        return tree_flatten(fn(tree_unflatten(tree, list(leaves[:n_in]))))[0]

    return flat


def custom_root(
    f: Callable, initial_guess: Any, solve: Callable, tangent_solve: Callable, has_aux: bool = False
) -> Any:
    """The root x of f(x) = 0 that `solve(f, initial_guess)` finds, differentiated
    implicitly: for f's parameters p, dx = -(df/dx)^-1 (df/dp dp), the inverse applied by
    `tangent_solve(g, y)` (x with g(x) = y, g linear). Like `jax.lax.custom_root`."""
    guess, tree = tree_flatten(initial_guess)
    avals = [core.get_aval(x) for x in guess]
    one_tree = tree_flatten((initial_guess,))[1]
    f_jaxpr, f_consts, f_tree = trace_to_subjaxpr(f, one_tree, avals)
    if f_tree != tree:
        raise TypeError(
            f"f() output pytree structure must match initial_guess, got {f_tree} and {tree}."
        )
    s_jaxpr, s_consts, s_tree = trace_to_subjaxpr(lambda x: solve(f, x), one_tree, avals)
    if not has_aux and s_tree != tree:
        raise TypeError(
            f"solve() output pytree structure must match initial_guess, got {s_tree} and {tree}."
        )
    n = len(guess)

    def linearize_and_solve(x: Any, b: Any) -> Any:
        xs = tree_flatten(x)[0]

        def f_jvp(t: Any) -> Any:
            flat_f = _flat_call(f, tree, n)
            _, out = jvp_flat(flat_f, xs, tree_flatten(t)[0])
            return tree_unflatten(tree, out)

        return tangent_solve(f_jvp, b)

    two_tree = tree_flatten((initial_guess, initial_guess))[1]
    l_jaxpr, l_consts, l_tree = trace_to_subjaxpr(linearize_and_solve, two_tree, avals + avals)
    if l_tree != tree:
        raise TypeError(
            f"tangent_solve() output pytree structure must match x, got {l_tree} and {tree}."
        )
    nf, ns = len(f_consts), len(s_consts)
    f_fun, s_fun, l_fun = (jaxpr_as_fun(j) for j in (f_jaxpr, s_jaxpr, l_jaxpr))

    def _custom_root(*args: Any) -> list[Any]:
        return list(s_fun(*args[nf : nf + ns], *args[-n:]))

    root = custom_jvp(_custom_root)

    @root.defjvp
    def _root_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list, list]:
        # F(p, x*(p)) = 0  =>  dx* = -(d_x F)^-1 (d_p F dp)
        solution_and_aux = root(*primals)
        solution, aux = solution_and_aux[:n], solution_and_aux[n:]
        f_params = list(primals[:nf])
        _, rhs = jvp_flat(lambda *p: f_fun(*p, *solution), f_params, list(tangents[:nf]))
        l_params = list(primals[nf + ns : len(primals) - n])
        dx = [neg(t) for t in l_fun(*l_params, *solution, *rhs)]
        return solution_and_aux, [*dx, *(ad_helpers.instantiate(Zero.like(a)) for a in aux)]

    out = root(*f_consts, *s_consts, *l_consts, *guess)
    return tree_unflatten(s_tree, out)
