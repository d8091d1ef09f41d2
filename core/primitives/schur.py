"""`schur`, `hessenberg` and `householder_product`: the Schur form, the Hessenberg reduction,
and the product of Householder reflectors that turns the reduction's reflectors into Q. Like
`jax.lax.linalg`'s (CPU only, as JAX's).

Layer 2, after `decompositions` (whose helpers it reuses). Lowering, as JAX on CPU: jaxlib's
LAPACK FFI handlers `gees` (T, and the Schur vectors Q with A = Q T Q^H; NaNs where LAPACK
fails), `gehrd` (H on and above the first subdiagonal, the reflectors below it and in
`taus`) and `orgqr`/`ungqr`. Eagerly: the same LAPACK routines through SciPy's wrappers
(loaded on the first eager call), with the optimal workspace each asks for, as jaxlib's
kernels use (a blocked routine rounds differently with less).

No jvp for any of them, as in JAX ("Differentiation rule for 'schur' not implemented").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray
from didax.primitives import rules, vmap_helpers
from didax.primitives.decompositions import (
    char_attr,
    check_operand,
    nan_where_failed,
    per_matrix,
    scipy_linalg,
)
from didax.primitives.linalg import lapack_call


def _lapack(name: str, a: np.ndarray) -> Any:  # SciPy's wrapper of LAPACK `name` for a's dtype
    (fn,) = scipy_linalg().lapack.get_lapack_funcs((name,), (a,))
    return fn


def _empty(x: np.ndarray, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    return [np.zeros((*x.shape[:-2], *s), x.dtype) for s in shapes]


# ----------------------------------------------------------------------------- schur

schur_p = core.Primitive("schur", multiple_results=True)


def schur(
    x: Any,
    *,
    compute_schur_vectors: bool = True,
    sort_eig_vals: bool = False,
    select_callable: Any = None,
) -> list[Any]:
    """`[t, q]`: the Schur form t (upper triangular; real matrices: quasi-triangular, with
    2 x 2 blocks for complex pairs) and the unitary q with x = q t q^H; `[t]` without
    `compute_schur_vectors`. Like `jax.lax.linalg.schur` (`sort_eig_vals=True` is not
    implemented, as in JAX; `select_callable` is unused)."""
    return schur_p.bind(
        x,
        compute_schur_vectors=bool(compute_schur_vectors),
        sort_eig_vals=bool(sort_eig_vals),
        select_callable=select_callable,
    )


def _check_unsorted(sort_eig_vals: bool) -> None:
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")


def _schur_impl(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _check_unsorted(sort_eig_vals)
    x = np.asarray(x)
    n = x.shape[-1]

    def fn(a):
        gees = _lapack("gees", a)
        lwork = int(gees(lambda *_: None, a, lwork=-1)[-2][0].real)
        t, *_, vs, _, info = gees(lambda *_: None, a, compute_v=compute_schur_vectors, lwork=lwork)
        if info != 0:
            raise np.linalg.LinAlgError(f"gees: info={info}")
        return t, vs

    if n == 0:
        t, q = _empty(x, [(0, 0), (0, 0)])
    else:  # inf and NaN go to LAPACK too (its QR iteration is bounded), as under jit
        t, q = per_matrix(fn, x, [(n, n), (n, n)], batched=False)
    return [t, q] if compute_schur_vectors else [t]


core.impl_rules.register(schur_p, rules.validated_impl(schur_p, _schur_impl))


@core.abstract_eval_rules.register(schur_p)
def _schur_abstract_eval(x, *, compute_schur_vectors, **params):
    check_operand("schur", x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input to schur must be a square matrix. Got shape {x.shape[-2:]}.")
    return [ShapedArray(x.shape, x.dtype)] * (2 if compute_schur_vectors else 1)


# no jvp rule (JAX has none: "Differentiation rule for 'schur' not implemented")
# no transpose rule: schur is not linear


core.vmap_rules.register(schur_p, vmap_helpers.leading_batch_vmap(schur_p))


@core.lowering_rules.register(schur_p)
def _schur_lowering(ctx, x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _check_unsorted(sort_eig_vals)
    (x_aval,) = ctx.avals_in
    batch = x_aval.shape[:-2]
    info_aval = ShapedArray(batch, dtypes.int32)
    w_aval = ShapedArray(x_aval.shape[:-1], x_aval.dtype)
    # real matrices: the eigenvalues' real and imaginary parts; then sdim (unused) and info
    ws = [w_aval] if dtypes.is_complex(x_aval.dtype) else [w_aval, w_aval]
    avals = [x_aval, x_aval, *ws, info_aval, info_aval]
    config = {
        "mode": char_attr(ctx, "V" if compute_schur_vectors else "N"),
        "sort": char_attr(ctx, "N"),
    }
    t, vs, *_, info = lapack_call(ctx, "gees", [x], avals, config, {0: 0}).results
    outs = [t, vs] if compute_schur_vectors else [t]
    return nan_where_failed(ctx, info, batch, outs, list(ctx.avals_out))


# ----------------------------------------------------------------------------- hessenberg

hessenberg_p = core.Primitive("hessenberg", multiple_results=True)


def hessenberg(a: Any) -> list[Any]:
    """`[a, taus]`: the upper Hessenberg form H of each matrix on and above its first
    subdiagonal, the Householder reflectors below it, their scalar factors in `taus`
    (A = Q H Q^H, Q the product of the reflectors). Like `jax.lax.linalg.hessenberg`."""
    return hessenberg_p.bind(a)


def _hessenberg_impl(a):
    a = np.asarray(a)
    n = a.shape[-1]

    def fn(m):
        gehrd = _lapack("gehrd", m)
        (gehrd_lwork,) = scipy_linalg().lapack.get_lapack_funcs(("gehrd_lwork",), (m,))
        lwork = int(gehrd_lwork(n)[0].real)
        h, tau, _ = gehrd(m, lwork=lwork)
        return h, tau[: n - 1]

    if n == 0:
        return _empty(a, [(0, 0), (0,)])
    return per_matrix(fn, a, [(n, n), (n - 1,)], batched=False)


core.impl_rules.register(hessenberg_p, rules.validated_impl(hessenberg_p, _hessenberg_impl))


@core.abstract_eval_rules.register(hessenberg_p)
def _hessenberg_abstract_eval(a):
    check_operand("hessenberg", a)
    *batch, m, n = a.shape
    if m != n:
        raise ValueError(
            f"Argument to Hessenberg reduction must have shape [..., n, n], got shape {(m, n)}"
        )
    # n = 0: no reflectors (JAX's rule says -1 of them, which fails to compile)
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, max(n - 1, 0)), a.dtype)]


# no jvp rule (JAX has none: "Differentiation rule for 'hessenberg' not implemented")
# no transpose rule: hessenberg is not linear


core.vmap_rules.register(hessenberg_p, vmap_helpers.leading_batch_vmap(hessenberg_p))


@core.lowering_rules.register(hessenberg_p)
def _hessenberg_lowering(ctx, a):
    (a_aval,) = ctx.avals_in
    batch, n = a_aval.shape[:-2], a_aval.shape[-1]
    if n == 0:
        return [rules.broadcast_constant(ctx, 0, aval) for aval in ctx.avals_out]
    i32 = ctx.ir.IntegerType.get_signless(32)
    config = {"low": ctx.ir.IntegerAttr.get(i32, 1), "high": ctx.ir.IntegerAttr.get(i32, n)}
    avals = [*ctx.avals_out, ShapedArray(batch, dtypes.int32)]
    h, taus, info = lapack_call(ctx, "gehrd", [a], avals, config, {0: 0}).results
    return nan_where_failed(ctx, info, batch, [h, taus], list(ctx.avals_out))


# ----------------------------------------------------------------------------- householder_product

householder_product_p = core.Primitive("householder_product")


def householder_product(a: Any, taus: Any) -> Any:
    """The first columns of the product of the Householder reflectors stored below the
    diagonal of `a` (m x n, m >= n), with scalar factors `taus` (LAPACK's orgqr/ungqr). Like
    `jax.lax.linalg.householder_product`."""
    return householder_product_p.bind(a, taus)


def _householder_product_impl(a, taus):
    a, taus = np.asarray(a), np.asarray(taus)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    if a.size == 0 or taus.shape[-1] == 0:  # no reflectors: the identity's first n columns
        return [np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()]
    orgqr = _lapack("ungqr" if dtypes.is_complex(a.dtype) else "orgqr", a)
    flat_a, flat_t = a.reshape(-1, m, n), taus.reshape(-1, taus.shape[-1])
    outs = []
    for x, t in zip(flat_a, flat_t, strict=True):
        lwork = int(orgqr(x, t, lwork=-1)[1][0].real)
        outs.append(orgqr(x, t, lwork=lwork)[0])
    return [np.stack(outs).reshape(*batch, m, n)]


core.impl_rules.register(
    householder_product_p, rules.validated_impl(householder_product_p, _householder_product_impl)
)


@core.abstract_eval_rules.register(householder_product_p)
def _householder_product_abstract_eval(a, taus):
    check_operand("householder_product", a)
    check_operand("householder_product", taus, position=1, rank=1)
    if a.dtype != taus.dtype:
        raise TypeError(
            "lax.householder_product requires arguments to have the same dtypes, got "
            f"{a.dtype.name}, {taus.dtype.name}."
        )
    if a.ndim - 2 != taus.ndim - 1:
        raise TypeError(
            "All inputs to householder_product must have the same number of batch dimensions, "
            f"but got {[a.ndim - 2, taus.ndim - 1]} batch dimensions for the inputs."
        )
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError(
            "The first argument to householder_product must have at least as many rows as "
            f"columns, got shape {(m, n)}"
        )
    if taus.shape[-1] > min(m, n):
        raise ValueError(
            "The second argument to householder_product must not have more rows than the "
            "minimum of the first argument's rows and columns."
        )
    return [ShapedArray(a.shape, a.dtype)]


# no jvp rule (JAX has none: "Differentiation rule for 'householder_product' not implemented")
# no transpose rule: householder_product is not linear


core.vmap_rules.register(
    householder_product_p, vmap_helpers.leading_batch_vmap(householder_product_p)
)


@core.lowering_rules.register(householder_product_p)
def _householder_product_lowering(ctx, a, taus):
    (a_aval,) = ctx.avals_out
    routine = "ungqr" if dtypes.is_complex(a_aval.dtype) else "orgqr"
    return list(lapack_call(ctx, routine, [a, taus], [a_aval], {}, {0: 0}).results)
