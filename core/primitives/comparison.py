"""Comparisons, predicates, boolean logic and `select_n`.

Layer 2. Comparisons return bool arrays and have zero derivatives (their outputs are not
differentiable); `select_n` picks among cases by an integer or bool predicate and is linear in
the cases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal
from didax.primitives import ad_helpers, creation, rules, shape, vmap_helpers


def _comparison_primitive(name: str, fn: Callable[..., Any]) -> core.Primitive:
    prim = core.Primitive(name)
    aval = rules.compare_aval(name, complex_ok=name in ("eq", "ne"))
    core.impl_rules.register(prim, rules.predicate_impl(fn, aval))
    core.abstract_eval_rules.register(prim, aval)
    # jvp: handled by the all-zero-tangent path: comparisons never get a nonzero tangent out
    core.jvp_rules.register(prim, rules.zero_jvp(prim))
    core.vmap_rules.register(prim, vmap_helpers.broadcasting_vmap(prim.bind))
    core.lowering_rules.register(prim, rules.compare_lowering(name.upper()))  # "GT", ...
    core.unconstrained_results.add(prim)  # (JAX's compare lowering adds no constraint)
    return prim


gt_p = _comparison_primitive("gt", np.greater)
lt_p = _comparison_primitive("lt", np.less)
ge_p = _comparison_primitive("ge", np.greater_equal)
le_p = _comparison_primitive("le", np.less_equal)
eq_p = _comparison_primitive("eq", np.equal)
ne_p = _comparison_primitive("ne", np.not_equal)


def gt(x: Any, y: Any) -> Any:
    """Like `jax.lax.gt`."""
    return gt_p.bind(x, y)


def lt(x: Any, y: Any) -> Any:
    """Like `jax.lax.lt`."""
    return lt_p.bind(x, y)


def ge(x: Any, y: Any) -> Any:
    """Like `jax.lax.ge`."""
    return ge_p.bind(x, y)


def le(x: Any, y: Any) -> Any:
    """Like `jax.lax.le`."""
    return le_p.bind(x, y)


def eq(x: Any, y: Any) -> Any:
    """Like `jax.lax.eq`."""
    return eq_p.bind(x, y)


def ne(x: Any, y: Any) -> Any:
    """Like `jax.lax.ne`."""
    return ne_p.bind(x, y)


# ----------------------------------------------------------------------------- is_finite

is_finite_p = core.Primitive("is_finite")


def is_finite(x: Any) -> Any:
    """Like `jax.lax.is_finite`."""
    return is_finite_p.bind(x)


@core.abstract_eval_rules.register(is_finite_p)
def _is_finite_abstract_eval(x):
    if not dtypes.is_real_float(x.dtype):
        raise TypeError(
            f"is_finite does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes of "
            "floating."
        )
    return [ShapedArray(x.shape, dtypes.bool_, x.weak_type)]


core.impl_rules.register(
    is_finite_p, rules.predicate_impl(np.isfinite, _is_finite_abstract_eval, True)
)


core.jvp_rules.register(is_finite_p, rules.zero_jvp(is_finite_p))
core.vmap_rules.register(is_finite_p, rules.vectorized_vmap(is_finite))
core.lowering_rules.register(is_finite_p, rules.direct_lowering("is_finite"))

# ----------------------------------------------------------------------------- and, or, not


def _logical(name: str, fn: Callable[..., Any], arity: int) -> core.Primitive:
    prim = core.Primitive(name)
    aval = rules.naryop_aval(name, "int_or_bool")
    core.impl_rules.register(prim, rules.elementwise_impl(fn, aval))
    core.abstract_eval_rules.register(prim, aval)
    core.jvp_rules.register(prim, rules.zero_jvp(prim))
    vmap = (
        vmap_helpers.broadcasting_vmap(prim.bind)
        if arity == 2
        else rules.vectorized_vmap(prim.bind)
    )
    core.vmap_rules.register(prim, vmap)
    core.lowering_rules.register(prim, rules.direct_lowering(name + "_"))  # hlo.and_, ...
    return prim


and_p = _logical("and", np.bitwise_and, 2)
or_p = _logical("or", np.bitwise_or, 2)
not_p = _logical("not", np.invert, 1)


def bitwise_and(x: Any, y: Any) -> Any:
    """Like `jax.lax.bitwise_and`."""
    return and_p.bind(x, y)


def bitwise_or(x: Any, y: Any) -> Any:
    """Like `jax.lax.bitwise_or`."""
    return or_p.bind(x, y)


def bitwise_not(x: Any) -> Any:
    """Like `jax.lax.bitwise_not`."""
    return not_p.bind(x)


# ----------------------------------------------------------------------------- select_n

select_n_p = core.Primitive("select_n")


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """`on_true` where `pred`, else `on_false` (`select_n` with the cases swapped). Like
    `jax.lax.select`."""
    return select_n_p.bind(pred, on_false, on_true)


def select_n(which: Any, *cases: Any) -> Any:
    """`cases[which]` elementwise; `which` is bool (two cases) or int32. Like
    `jax.lax.select_n`."""
    return select_n_p.bind(which, *cases)


def _select_n_impl(which, *cases):
    which = np.asarray(which)
    first = cases[0] if cases else which
    if (
        len(cases) != 2
        or which.dtype != np.bool_
        or (which.shape and which.shape != first.shape)
        or any(c.shape != first.shape or c.dtype != first.dtype for c in cases)
    ):
        # eager calls raise what staged ones raise
        _select_n_abstract_eval(*(ShapedArray(np.shape(v), v.dtype) for v in (which, *cases)))
    if which.dtype == np.bool_:
        which = which.astype(np.int32)
    out = (
        np.choose(
            which,
            [np.broadcast_to(c, np.broadcast_shapes(*(np.shape(c) for c in cases))) for c in cases],
        )
        if which.ndim
        else cases[int(which)]
    )
    return [np.asarray(out)]


core.impl_rules.register(select_n_p, _select_n_impl)


@core.abstract_eval_rules.register(select_n_p)
def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise TypeError("select_n requires at least one case")
    if which.dtype != dtypes.bool_ and which.dtype != dtypes.int32:
        raise TypeError(f"select_n: the predicate must be bool or int32, got {which.dtype.name}")
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise TypeError("select_n: a bool predicate selects between at most two cases")
    first = cases[0]
    if any(c.shape != first.shape or c.dtype != first.dtype for c in cases):
        raise TypeError(
            "select_n: cases must have the same shapes and dtypes, got "
            + ", ".join(c.str_short() for c in cases)
        )
    if which.shape and which.shape != first.shape:
        raise TypeError(
            f"select_n: the predicate's shape {which.shape} must be scalar or "
            f"equal to the cases' shape {first.shape}"
        )
    return [ShapedArray(first.shape, first.dtype, all(c.weak_type for c in cases))]


core.jvp_rules.register(  # linear in the cases
    select_n_p, ad_helpers.linear_jvp(select_n_p, slice(1, None))
)


@core.transpose_rules.register(select_n_p)
def _select_n_transpose(cts, which, *cases):
    (ct,) = cts
    if isinstance(which, UndefinedPrimal):
        raise ValueError("select_n: cannot transpose with respect to the predicate")
    out: list[Any] = [None]
    for i, c in enumerate(cases):
        if not isinstance(c, UndefinedPrimal):
            out.append(None)
        else:
            zeros = creation.full(c.aval.shape, 0, c.aval.dtype)
            picks = [ct if j == i else zeros for j in range(len(cases))]
            out.append(select_n(which, *picks))
    return out


@core.vmap_rules.register(select_n_p)
def _select_n_vmap(axis_size, vals, dims):
    which, *cases = vals
    which_dim, *case_dims = dims
    case_shape = next(
        core.get_aval(c).shape
        if d is NOT_MAPPED
        else core.get_aval(c).shape[:d] + core.get_aval(c).shape[d + 1 :]
        for c, d in zip(cases, case_dims, strict=True)
    )
    cases = [shape.move_axis(c, d, 0, axis_size) for c, d in zip(cases, case_dims, strict=True)]
    if which_dim is NOT_MAPPED and not core.get_aval(which).shape:
        return [select_n(which, *cases)], [0]
    which = vmap_helpers.batch_to_front(which, which_dim, case_shape, axis_size)
    if not core.get_aval(which).shape:
        which = shape.broadcast_in_dim(which, (axis_size, *case_shape), ())
    return [select_n(which, *cases)], [0]


@core.lowering_rules.register(select_n_p)
def _select_n_lowering(ctx, which, *cases):
    which_aval = ctx.avals_in[0]
    if which_aval.dtype == dtypes.bool_:  # select(pred, on_true, on_false): case 1 if true
        return [ctx.hlo.select(which, cases[1], cases[0])] if len(cases) == 2 else [cases[0]]

    def pick(lo: int, hi: int) -> Any:  # cases[lo:hi] by bisection on `which < mid`
        if hi - lo == 1:
            return cases[lo]
        mid = (lo + hi) // 2
        below = rules.compare(
            ctx, which, rules.broadcast_constant(ctx, mid, which_aval), "LT", which_aval.dtype
        )
        return ctx.hlo.select(below, pick(lo, mid), pick(mid, hi))

    return [pick(0, len(cases))]
