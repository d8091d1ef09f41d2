"""`eig`: eigenvalues and left/right eigenvectors of general square matrices. Like
`jax.lax.linalg.eig`.

Layer 2, after `decompositions` (whose helpers it reuses). Results are complex. Lowering,
as JAX on CPU: LAPACK's `geev` through jaxlib's FFI handler (which returns the eigenvectors
unpacked as complex columns, each of unit norm with its largest entry real); NaNs where
LAPACK fails. Eagerly: SciPy's `linalg.eig`, the same LAPACK routine (loaded on the first
eager call, not at `import didax`).

The jvp is JAX's: the eigenvalues' is diag(V^-1 dA V); the eigenvectors' (only with
`enable_eigvec_derivs=True`, as JAX, since it assumes distinct eigenvalues) is
V (F * V^-1 dA V) plus the multiple of each v_j that keeps LAPACK's normalisation.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray
from didax.primitives import comparison, creation, rules, shape, vmap_helpers
from didax.primitives.convert import convert_element_type
from didax.primitives.decompositions import (
    adjoint,
    as_col,
    as_row,
    char_attr,
    check_operand,
    diagonal_of,
    nan_where_failed,
    per_matrix,
    scipy_linalg,
)
from didax.primitives.elementwise import add, conj, div, imag, mul, neg, real, sub
from didax.primitives.elementwise import complex as make_complex
from didax.primitives.linalg import eye, lapack_call, lu, matmul, permute_rows, triangular_solve
from didax.primitives.reductions import argmax

eig_p = core.Primitive("eig", multiple_results=True)


class EigImplementation(enum.Enum):
    """`eig`'s `implementation=` (CPU: LAPACK only). Like `jax.lax.linalg.EigImplementation`."""

    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"

    __repr__ = enum.Enum.__str__


def eig(
    x: Any,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation: Any = None,
    use_magma: Any = None,
) -> list[Any]:
    """`[w, vl, vr]`: eigenvalues, then the left and right eigenvectors asked for (columns;
    `vl[:, j]^H x = w[j] vl[:, j]^H`, `x vr[:, j] = w[j] vr[:, j]`). Like
    `jax.lax.linalg.eig`."""
    return eig_p.bind(
        x,
        compute_left_eigenvectors=bool(compute_left_eigenvectors),
        compute_right_eigenvectors=bool(compute_right_eigenvectors),
        enable_eigvec_derivs=bool(enable_eigvec_derivs),
        implementation=implementation,
    )


def _eig_impl(x, *, compute_left_eigenvectors, compute_right_eigenvectors, **params):
    x = np.asarray(x)
    n = x.shape[-1]
    cdtype = dtypes.complex_of(x.dtype)

    def fn(a):
        w, vl, vr = scipy_linalg().eig(a, left=True, right=True)
        return w, vl, vr

    # complex results, NaN in both parts where the matrix holds inf or NaN (as jit's geev gives)
    nan = complex(np.nan, np.nan)
    w, vl, vr = per_matrix(fn, x, [(n,), (n, n), (n, n)], np.asarray, cdtype, nan)
    outs = [w]
    if compute_left_eigenvectors:
        outs.append(vl)
    if compute_right_eigenvectors:
        outs.append(vr)
    return [np.asarray(o).astype(cdtype) for o in outs]


core.impl_rules.register(eig_p, rules.validated_impl(eig_p, _eig_impl))


@core.abstract_eval_rules.register(eig_p)
def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors, **params):
    check_operand("eig", x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input to eig must be a square matrix. Got shape {x.shape[-2:]}.")
    cdtype = dtypes.complex_of(x.dtype)
    count = compute_left_eigenvectors + compute_right_eigenvectors
    return [ShapedArray(x.shape[:-1], cdtype)] + [ShapedArray(x.shape, cdtype)] * count


def _solve(a: Any, b: Any) -> Any:  # A^-1 B through A's LU factors
    lu_factors, _, permutation = lu(a)
    y = triangular_solve(
        lu_factors, permute_rows(permutation, b), left_side=True, lower=True, unit_diagonal=True
    )
    return triangular_solve(lu_factors, y, left_side=True, lower=False)


def _eigvec_jvp(w: Any, v: Any, da: Any) -> tuple[Any, Any]:
    aval = core.get_aval(v)
    n = aval.shape[-1]
    ones = eye(aval.shape, aval.dtype)
    f = sub(div(creation.full((), 1, aval.dtype), add(ones, sub(as_row(w, n), as_col(w, n)))), ones)
    p = matmul(_solve(v, da), v)
    dw = diagonal_of(p)
    u = matmul(v, mul(f, p))
    # dv_j = u_j + c_j v_j, c_j fixed by LAPACK's normalisation (unit norm, largest entry real)
    rows = aval.ndim - 2
    k = argmax(real(mul(v, conj(v))), rows, dtypes.int32)
    iota = creation.broadcasted_iota(dtypes.int32, aval.shape, rows)
    at_k = shape.broadcast_in_dim(k, aval.shape, (*range(rows), rows + 1))
    mask = convert_element_type(comparison.eq(iota, at_k), aval.dtype)
    re = neg(shape.reduce_sum(real(mul(conj(v), u)), (rows,)))
    im = neg(
        div(
            imag(shape.reduce_sum(mul(mask, u), (rows,))),
            real(shape.reduce_sum(mul(mask, v), (rows,))),
        )
    )
    c = make_complex(re, im)
    return dw, add(u, mul(v, as_row(c, n)))


@core.jvp_rules.register(eig_p)
def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors, **params):
    (a,), (da,) = primals, tangents
    if (compute_left_eigenvectors or compute_right_eigenvectors) and not params[
        "enable_eigvec_derivs"
    ]:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on "
            "the input that JAX cannot check (see the enable_eigvec_derivs argument to "
            "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to "
            "opt in. See https://github.com/jax-ml/jax/issues/2748 for discussion."
        )
    outs = eig_p.bind(
        a,
        compute_left_eigenvectors=compute_left_eigenvectors,
        compute_right_eigenvectors=True,
        **params,
    )
    w, vr = outs[0], outs[-1]
    cdtype = core.get_aval(vr).dtype
    da = convert_element_type(da, cdtype)
    if not (compute_left_eigenvectors or compute_right_eigenvectors):
        rows = core.get_aval(vr).ndim - 2
        prod = mul(_solve(vr, da), shape.transpose(vr, (*range(rows), rows + 1, rows)))
        return [w], [shape.reduce_sum(prod, (rows + 1,))]
    dw, dvr = _eigvec_jvp(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if compute_left_eigenvectors:
        _, dvl = _eigvec_jvp(conj(w), outs[1], adjoint(da))
        primal_out.append(outs[1])
        tangent_out.append(dvl)
    if compute_right_eigenvectors:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return primal_out, tangent_out


# no transpose rule: eig is not linear


core.vmap_rules.register(eig_p, vmap_helpers.leading_batch_vmap(eig_p))


@core.lowering_rules.register(eig_p)
def _eig_lowering(
    ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors, implementation, **params
):
    (x_aval,) = ctx.avals_in
    batch = x_aval.shape[:-2]
    if implementation is not None and implementation is not EigImplementation.LAPACK:
        raise ValueError("Only the lapack implementation is supported on CPU.")
    cdtype = dtypes.complex_of(x_aval.dtype)
    real_in = not dtypes.is_complex(x_aval.dtype)
    w_aval = ShapedArray(x_aval.shape[:-1], x_aval.dtype)
    v_aval = ShapedArray(x_aval.shape, cdtype)
    info_aval = ShapedArray(batch, dtypes.int32)
    avals = [w_aval, v_aval, v_aval, info_aval]
    if real_in:
        avals = [w_aval, *avals]
    mode = lambda on: char_attr(ctx, "V" if on else "N")  # noqa: E731
    config = {
        "compute_left": mode(compute_left_eigenvectors),
        "compute_right": mode(compute_right_eigenvectors),
    }
    *ws, vl, vr, info = lapack_call(ctx, "geev", [x], avals, config, {}).results
    w = ctx.hlo.complex(ws[0], ws[1]) if real_in else ws[0]
    outs = [w]
    if compute_left_eigenvectors:
        outs.append(vl)
    if compute_right_eigenvectors:
        outs.append(vr)
    return nan_where_failed(ctx, info, batch, outs, list(ctx.avals_out))
