"""Matrix decompositions: `qr`, `eigh`, `svd`. Like `jax.lax.linalg`'s.

Layer 2, beside `linalg.py` (whose batched matrix helpers and LAPACK call it reuses). Every
operand may carry leading batch dimensions; the rules act on the last two axes.

Lowering: as JAX on CPU, jaxlib's LAPACK FFI handlers: `qr` is `geqrf` (R above the
diagonal, Householder reflectors below it and in `taus`) then `orgqr`/`ungqr` (Q from the
reflectors); `eigh` is `syevd`/`heevd`; `svd` is `gesdd`. Where LAPACK reports failure
(`info != 0`, e.g. a NaN operand) the results are NaNs, as JAX's. Eager impls are NumPy's
`linalg`, which calls the same LAPACK routines; svd's is SciPy's, whose LAPACK jaxlib's
kernels call (NumPy's bundled gesdd picks other signs for some singular vectors).

The jvps are JAX's: for Q R = A, with C = Q^H dA R^-1 and Omega its strictly lower part minus
that part's adjoint, dQ = Q (Omega - C) + dA R^-1, dR = (C - Omega) R (wide matrices split
A = [A1 A2]; tall full Q after arXiv:2409.13374); for eigh, dw = diag(V^H dA V) and
dV = V (F * V^H dA V) with F_ij = 1 / (w_j - w_i) off the diagonal; for svd, the
perturbation formulas of Giles' NA-08-01 (reduced matrices only, as JAX).
"""

from __future__ import annotations

import enum
import importlib
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, Zero
from didax.primitives import concatenation, creation, rules, shape, vmap_helpers
from didax.primitives.comparison import eq
from didax.primitives.convert import convert_element_type
from didax.primitives.elementwise import add, conj, div, mul, real, sub
from didax.primitives.linalg import (
    eye,
    lapack_call,
    lu,
    matmul,
    matrix_transpose,
    permute_rows,
    triangular_solve,
    tril,
)

# ----------------------------------------------------------------------------- helpers


def check_operand(name: str, x: ShapedArray, position: int = 0, rank: int = 2) -> None:
    if not dtypes.is_float(x.dtype):
        raise TypeError(
            f"{name} does not accept dtype {x.dtype.name} at position {position}. Accepted "
            f"dtypes at position {position} are subtypes of floating, complexfloating."
        )
    if x.ndim < rank:
        raise TypeError(
            f"Input {position} to {name} must have rank at least {rank}, but got shape={x.shape}"
        )


def adjoint(x: Any) -> Any:  # the adjoint of each matrix
    xt = matrix_transpose(x)
    return conj(xt) if dtypes.is_complex(core.get_aval(x).dtype) else xt


def _real(x: Any) -> Any:
    return real(x) if dtypes.is_complex(core.get_aval(x).dtype) else x


def _as(x: Any, dtype: np.dtype) -> Any:
    return x if core.get_aval(x).dtype == dtype else convert_element_type(x, dtype)


def _block(x: Any, rows: tuple[int, int], cols: tuple[int, int]) -> Any:  # x[..., r0:r1, c0:c1]
    s = core.get_aval(x).shape
    return concatenation.slice(
        x, (*[0] * (len(s) - 2), rows[0], cols[0]), (*s[:-2], rows[1], cols[1])
    )


def diagonal_of(x: Any) -> Any:  # (..., k, k) -> (..., k)
    aval = core.get_aval(x)
    return shape.reduce_sum(mul(x, eye(aval.shape, aval.dtype)), (aval.ndim - 1,))


def as_row(s: Any, k: int) -> Any:  # (..., k) -> (..., k, k) with s[..., None, :]
    aval = core.get_aval(s)
    nb = aval.ndim - 1
    return shape.broadcast_in_dim(s, (*aval.shape[:-1], k, k), (*range(nb), nb + 1))


def as_col(s: Any, k: int) -> Any:  # (..., k) -> (..., k, k) with s[..., :, None]
    aval = core.get_aval(s)
    nb = aval.ndim - 1
    return shape.broadcast_in_dim(s, (*aval.shape[:-1], k, k), (*range(nb), nb))


def per_matrix(
    fn: Any,
    x: np.ndarray,
    nan_shapes: list[tuple[int, ...]],
    read: Any = None,
    dtype: Any = None,
    fill: Any = np.nan,
    batched: bool = True,
) -> list[np.ndarray]:
    # NumPy's `fn` on the batch; where LAPACK fails on a matrix (NumPy raises), NaNs for it,
    # as JAX's `info != 0` check gives. The iterative routines (svd, eigh,
    # eig) get `read`, the part of a matrix they read: they are not called on one holding inf or
    # NaN there -- LAPACK may iterate for minutes -- and give NaNs for it, as JAX's do.
    # `dtype`, `fill`: the results' dtype and what a failed matrix gives, if not x's and NaN;
    # `batched=False`: `fn` takes one matrix at a time (SciPy's routines)
    if batched and (read is None or np.isfinite(read(x)).all()):
        try:
            return list(fn(x))
        except np.linalg.LinAlgError:
            pass
    batch = x.shape[:-2]
    flat = x.reshape(-1, *x.shape[-2:])
    dtype = np.result_type(x.dtype if dtype is None else dtype)
    outs = [np.full((len(flat), *s), fill, dtype) for s in nan_shapes]
    for i, a in enumerate(flat):
        if read is not None and not np.isfinite(read(a)).all():
            continue
        try:
            for out, value in zip(outs, fn(a), strict=True):
                out[i] = value
        except np.linalg.LinAlgError:
            pass
    return [o.reshape(*batch, *o.shape[1:]) for o in outs]


def _ok_mask(ctx, info: Any, info_aval: ShapedArray, x_aval: ShapedArray) -> Any:
    ok = rules.compare(ctx, info, rules.broadcast_constant(ctx, 0, info_aval), "EQ", dtypes.int32)
    out = ctx.tensor_type(x_aval.update(dtype=dtypes.bool_))
    return ctx.hlo.broadcast_in_dim(out, ok, list(range(info_aval.ndim)))


def _nan(ctx, aval: ShapedArray) -> Any:
    value = complex(np.nan, np.nan) if dtypes.is_complex(aval.dtype) else np.nan
    return rules.broadcast_constant(ctx, value, aval)


def nan_where_failed(ctx, info: Any, batch: tuple[int, ...], outs: list, avals: list) -> list:
    info_aval = ShapedArray(batch, dtypes.int32)
    return [
        ctx.hlo.select(_ok_mask(ctx, info, info_aval, a), x, _nan(ctx, a))
        for x, a in zip(outs, avals, strict=True)
    ]


def char_attr(ctx, c: str) -> Any:
    return ctx.ir.IntegerAttr.get(ctx.ir.IntegerType.get_unsigned(8), ord(c))


class SvdAlgorithm(enum.Enum):
    """`svd`'s `algorithm=`: on CPU, DEFAULT and DIVIDE_AND_CONQUER are LAPACK's gesdd, QR
    its gesvd. Like `jax.lax.linalg.SvdAlgorithm`."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"

    __repr__ = enum.Enum.__str__  # `SvdAlgorithm.QR`, as JAX's jaxprs print it


class EighImplementation(enum.Enum):
    """`eigh`'s `implementation=` (CPU: QR only). Like `jax.lax.linalg.EighImplementation`."""

    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"

    __repr__ = enum.Enum.__str__


# ----------------------------------------------------------------------------- qr

qr_p = core.Primitive("qr", multiple_results=True)


def qr(
    x: Any, *, pivoting: bool = False, full_matrices: bool = True, use_magma: Any = None
) -> tuple:
    """QR decomposition `(q, r)` of each matrix: q unitary (m x m with `full_matrices`, else
    m x min(m, n)), r upper triangular; with `pivoting`, `(q, r, p)` with x[..., p] = q r
    (LAPACK's column-pivoted geqp3). Like `jax.lax.linalg.qr`."""
    out = qr_p.bind(
        x, pivoting=bool(pivoting), full_matrices=bool(full_matrices), use_magma=use_magma
    )
    return tuple(out)


def scipy_linalg() -> Any:
    """`scipy.linalg` (its LAPACK wrappers: geqp3, geev), loaded on the first eager call that
    needs it, not at `import didax`."""
    return importlib.import_module("scipy.linalg")


def _pivoted_qr(a: np.ndarray, full_matrices: bool) -> tuple:
    mode = "full" if full_matrices else "economic"
    # check_finite=False: inf and NaN go to LAPACK, as under jit (SciPy would raise)
    q, r, p = scipy_linalg().qr(a, pivoting=True, mode=mode, check_finite=False)
    return q, r, p.astype(np.int32)


def _qr_impl(x, *, pivoting, full_matrices, use_magma):
    x = np.asarray(x)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    if pivoting:  # SciPy's qr takes one matrix at a time
        flat = x.reshape(-1, m, n)
        parts = [_pivoted_qr(a, full_matrices) for a in flat]
        shapes = [(m, k), (k, n), (n,)]
        outs = [
            np.stack([p[i] for p in parts]).reshape(*x.shape[:-2], *shp) if len(flat) else
            np.empty((*x.shape[:-2], *shp))
            for i, shp in enumerate(shapes)
        ]  # fmt: skip
        return [outs[0].astype(x.dtype), outs[1].astype(x.dtype), outs[2].astype(np.int32)]
    mode = "complete" if full_matrices else "reduced"
    q, r = per_matrix(lambda a: np.linalg.qr(a, mode=mode), x, [(m, k), (k, n)])
    return [q.astype(x.dtype), r.astype(x.dtype)]


core.impl_rules.register(qr_p, rules.validated_impl(qr_p, _qr_impl))


@core.abstract_eval_rules.register(qr_p)
def _qr_abstract_eval(x, *, pivoting, full_matrices, use_magma):
    check_operand("qr", x)
    *batch, m, n = x.shape
    k = m if full_matrices else min(m, n)
    out = [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]
    return [*out, ShapedArray((*batch, n), dtypes.int32)] if pivoting else out


def _thin_qr_jvp(q: Any, r: Any, dx: Any) -> tuple[Any, Any]:
    # m >= n: C = Q^H dA R^-1, Omega = tril(C, -1) - tril(C, -1)^H (+ C's imaginary diagonal)
    dx_rinv = triangular_solve(r, dx)  # dA R^-1 (a right-side solve)
    c = matmul(adjoint(q), dx_rinv)
    low = tril(c, -1)
    omega = sub(low, adjoint(low))
    aval = core.get_aval(c)
    if dtypes.is_complex(aval.dtype):
        imag_diag = sub(c, convert_element_type(real(c), aval.dtype))
        omega = add(omega, mul(eye(aval.shape, aval.dtype), imag_diag))
    dq = add(matmul(q, sub(omega, c)), dx_rinv)
    dr = matmul(sub(c, omega), r)
    return dq, dr


def solve_adjoint(a: Any, b: Any) -> Any:  # X with A^H X = B, through A^H's LU factors
    lu_factors, _, permutation = lu(adjoint(a))
    y = triangular_solve(
        lu_factors, permute_rows(permutation, b), left_side=True, lower=True, unit_diagonal=True
    )
    return triangular_solve(lu_factors, y, left_side=True, lower=False)


@core.jvp_rules.register(qr_p)
def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    (x,), (dx,) = primals, tangents
    q, r, *p = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    aval = core.get_aval(x)
    *batch, m, n = aval.shape
    last = aval.ndim - 1
    if pivoting:  # X P = Q R: dX's columns permuted alike (dX[..., p]); as JAX's rule, the
        # wide case's X2 below is read from X unpermuted
        dx = matrix_transpose(permute_rows(p[0], matrix_transpose(dx)))
    extra = [p[0]] if pivoting else []
    extra_dots = [Zero.like(p[0])] if pivoting else []
    if m < n:  # A = Q [R1 R2]: R1 from the square block's rule, R2 = Q^H A2
        dq, dr1 = _thin_qr_jvp(q, _block(r, (0, m), (0, m)), _block(dx, (0, m), (0, m)))
        x2, dx2 = _block(x, (0, m), (m, n)), _block(dx, (0, m), (m, n))
        dr2 = add(matmul(adjoint(dq), x2), matmul(adjoint(q), dx2))
        return [q, r, *extra], [dq, concatenation.concatenate([dr1, dr2], last), *extra_dots]
    q_mn = _block(q, (0, m), (0, n)) if full_matrices else q
    r_nn = _block(r, (0, n), (0, n)) if full_matrices else r
    dq, dr = _thin_qr_jvp(q_mn, r_nn, dx)
    if full_matrices and m > n:  # the completion Q_mp of Q's columns (arXiv:2409.13374)
        q_nn, q_pn = _block(q_mn, (0, n), (0, n)), _block(q_mn, (n, m), (0, n))
        q_mp = _block(q, (0, m), (n, m))
        dq_nn, dq_pn = _block(dq, (0, n), (0, n)), _block(dq, (n, m), (0, n))
        z_pn_h = solve_adjoint(sub(q_nn, eye(core.get_aval(q_nn).shape, aval.dtype)), adjoint(q_pn))
        z_pn = adjoint(z_pn_h)
        dq_mp = sub(
            matmul(dq, z_pn_h),
            matmul(add(q_mn, matmul(q_mp, z_pn)), adjoint(sub(dq_pn, matmul(z_pn, dq_nn)))),
        )
        dq = concatenation.concatenate([dq, dq_mp], last)
        zeros = creation.full((*batch, m - n, n), 0, aval.dtype)
        dr = concatenation.concatenate([dr, zeros], last - 1)
    return [q, r, *extra], [dq, dr, *extra_dots]


# no transpose rule: qr is not linear


core.vmap_rules.register(qr_p, vmap_helpers.leading_batch_vmap(qr_p))


@core.lowering_rules.register(qr_p)
def _qr_lowering(ctx, x, *, pivoting, full_matrices, use_magma):
    # geqrf, then orgqr/ungqr on the reflectors (padded to m x m for a tall full Q, the
    # leading m x m block for a wide matrix), then R's upper triangle, as JAX's
    hlo = ctx.hlo
    (x_aval,) = ctx.avals_in
    q_aval, r_aval = ctx.avals_out[:2]
    *batch, m, n = x_aval.shape
    nb = len(batch)
    if m == 0 or n == 0:
        empty = [_eye_lowering(ctx, q_aval), rules.broadcast_constant(ctx, 0, r_aval)]
        return [*empty, *(rules.broadcast_constant(ctx, 0, a) for a in ctx.avals_out[2:])]
    taus_aval = ShapedArray((*batch, min(m, n)), x_aval.dtype)
    perm = []
    if pivoting:  # geqp3 from zero pivots (all columns free); its 1-based pivots made 0-based
        p_aval = ctx.avals_out[2]
        jpvt = rules.broadcast_constant(ctx, 0, p_aval)
        avals = [x_aval, p_aval, taus_aval]
        call = lapack_call(ctx, "geqp3", [x, jpvt], avals, {}, {0: 0, 1: 1}, [x_aval, p_aval])
        a, jpvt, taus = call.results
        perm = [hlo.subtract(jpvt, rules.broadcast_constant(ctx, 1, p_aval))]
    else:
        a, taus = lapack_call(ctx, "geqrf", [x], [x_aval, taus_aval], {}, {0: 0}).results
    r, r_full_aval = a, x_aval
    if m < n:
        a = hlo.slice(a, [0] * (nb + 2), [*batch, m, m], [1] * (nb + 2))
        a_aval = x_aval.update(shape=(*batch, m, m))
    elif full_matrices and m > n:
        zero = ctx.constant(0, x_aval.dtype)
        a = hlo.pad(a, zero, [0] * (nb + 2), [0] * (nb + 1) + [m - n], [0] * (nb + 2))
        a_aval = x_aval.update(shape=(*batch, m, m))
    else:
        a_aval = x_aval
    routine = "ungqr" if dtypes.is_complex(x_aval.dtype) else "orgqr"
    (q,) = lapack_call(ctx, routine, [a, taus], [a_aval], {}, {0: 0}, [a_aval, taus_aval]).results
    if not full_matrices and m > n:
        r = hlo.slice(r, [0] * (nb + 2), [*batch, n, n], [1] * (nb + 2))
        r_full_aval = r_aval
    return [q, _triu_lowering(ctx, r, r_full_aval), *perm]


def _triu_lowering(ctx, x: Any, aval: ShapedArray) -> Any:  # zeros below the diagonal
    hlo = ctx.hlo
    i64 = ctx.ir.IntegerType.get_signless(64)
    int_aval = aval.update(dtype=dtypes.int32)
    rows = hlo.iota(ctx.tensor_type(int_aval), ctx.ir.IntegerAttr.get(i64, aval.ndim - 2))
    cols = hlo.iota(ctx.tensor_type(int_aval), ctx.ir.IntegerAttr.get(i64, aval.ndim - 1))
    below = rules.compare(ctx, rows, cols, "GT", dtypes.int32)
    return hlo.select(below, rules.broadcast_constant(ctx, 0, aval), x)


def _eye_lowering(ctx, aval: ShapedArray) -> Any:
    hlo = ctx.hlo
    i64 = ctx.ir.IntegerType.get_signless(64)
    int_aval = aval.update(dtype=dtypes.int32)
    rows = hlo.iota(ctx.tensor_type(int_aval), ctx.ir.IntegerAttr.get(i64, aval.ndim - 2))
    cols = hlo.iota(ctx.tensor_type(int_aval), ctx.ir.IntegerAttr.get(i64, aval.ndim - 1))
    on = rules.compare(ctx, rows, cols, "EQ", dtypes.int32)
    one, zero = (rules.broadcast_constant(ctx, v, aval) for v in (1, 0))
    return hlo.select(on, one, zero)


# ----------------------------------------------------------------------------- geqrf
# LAPACK's raw QR (`jnp.linalg.qr(mode="raw")`): R on and above the diagonal, the Householder
# reflectors below it and in `taus`. No derivative, as in JAX.

geqrf_p = core.Primitive("geqrf", multiple_results=True)


def geqrf(x: Any) -> tuple[Any, Any]:
    """`(a, taus)`: LAPACK's geqrf of each matrix."""
    a, taus = geqrf_p.bind(x)
    return a, taus


def _geqrf_impl(x):
    x = np.asarray(x)
    m, n = x.shape[-2:]

    def fn(a):
        h, tau = np.linalg.qr(a, mode="raw")  # h is the Fortran-ordered result, transposed
        return np.swapaxes(h, -1, -2), tau

    a, taus = per_matrix(fn, x, [(m, n), (min(m, n),)])
    return [a.astype(x.dtype), taus.astype(x.dtype)]


core.impl_rules.register(geqrf_p, rules.validated_impl(geqrf_p, _geqrf_impl))


@core.abstract_eval_rules.register(geqrf_p)
def _geqrf_abstract_eval(x):
    check_operand("geqrf", x)
    *batch, m, n = x.shape
    return [ShapedArray(x.shape, x.dtype), ShapedArray((*batch, min(m, n)), x.dtype)]


# no jvp rule (JAX has none: "Differentiation rule for 'geqrf' not implemented")


core.vmap_rules.register(geqrf_p, vmap_helpers.leading_batch_vmap(geqrf_p))


@core.lowering_rules.register(geqrf_p)
def _geqrf_lowering(ctx, x):
    return list(lapack_call(ctx, "geqrf", [x], list(ctx.avals_out), {}, {0: 0}).results)


# ----------------------------------------------------------------------------- eigh

eigh_p = core.Primitive("eigh", multiple_results=True)


def symmetrize(x: Any) -> Any:
    """(x + x^H) / 2 for each matrix (a true division: integers give floats, as JAX's)."""
    if not dtypes.is_float(core.get_aval(x).dtype):
        x = convert_element_type(x, dtypes.default_float())
    return div(add(x, adjoint(x)), creation.full((), 2, core.get_aval(x).dtype))


def eigh(
    x: Any,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    implementation: Any = None,
) -> tuple[Any, Any]:
    """Eigenvectors and eigenvalues `(v, w)` of Hermitian matrices, w ascending and
    `v[..., :, i]` w[i]'s eigenvector. Like `jax.lax.linalg.eigh`."""
    if symmetrize_input:
        x = symmetrize(x)
    v, w = eigh_p.bind(
        x,
        lower=bool(lower),
        sort_eigenvalues=bool(sort_eigenvalues),
        subset_by_index=None if subset_by_index is None else tuple(subset_by_index),
        algorithm=implementation,
    )
    return v, w


def _eigh_impl(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    x = np.asarray(x)
    n = x.shape[-1]
    _check_full_subset("eigh", subset_by_index, n)
    _check_cpu_algorithm(algorithm)

    def fn(a):
        w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
        return v, w

    v, w = per_matrix(fn, x, [(n, n), (n,)], np.tril if lower else np.triu)
    return [v.astype(x.dtype), w.astype(dtypes.real_of(x.dtype))]


def _check_cpu_algorithm(algorithm: Any) -> None:  # eigh's and svd's, as JAX on CPU
    if algorithm is EighImplementation.QDWH:
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    if algorithm is EighImplementation.JACOBI:
        raise NotImplementedError("Jacobi implementation is not supported on CPU")
    if algorithm in (SvdAlgorithm.JACOBI, SvdAlgorithm.POLAR):
        raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on CPU.")


def _check_full_subset(name: str, subset_by_index: Any, k: int) -> None:
    if not (subset_by_index is None or tuple(subset_by_index) == (0, k)):
        raise NotImplementedError(f"{name}: subset_by_index not supported on CPU")


core.impl_rules.register(eigh_p, rules.validated_impl(eigh_p, _eigh_impl))


@core.abstract_eval_rules.register(eigh_p)
def _eigh_abstract_eval(x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    check_operand("eigh", x)
    *batch, m, n = x.shape
    if m != n:
        raise ValueError(
            "Argument to symmetric eigendecomposition must have shape [..., n, n], "
            f"got shape {x.shape}"
        )
    d = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
    return [
        ShapedArray((*batch, n, d), x.dtype),
        ShapedArray((*batch, d), dtypes.real_of(x.dtype)),
    ]


@core.jvp_rules.register(eigh_p)
def _eigh_jvp(primals, tangents, **params):
    (a,), (a_dot,) = primals, tangents
    aval = core.get_aval(a)
    n = aval.shape[-1]
    if not (params["subset_by_index"] is None or params["subset_by_index"] == (0, n)):
        raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
    v, w_real = eigh_p.bind(symmetrize(a), **params)
    # distinct eigenvalues: F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it
    w = _as(w_real, aval.dtype)
    ones = eye(aval.shape, aval.dtype)
    f = sub(div(creation.full((), 1, aval.dtype), add(ones, sub(as_row(w, n), as_col(w, n)))), ones)
    vdag_adot_v = matmul(matmul(adjoint(v), a_dot), v)
    dv = matmul(v, mul(f, vdag_adot_v))
    dw = diagonal_of(_real(vdag_adot_v))
    return [v, w_real], [dv, dw]


# no transpose rule: eigh is not linear


core.vmap_rules.register(eigh_p, vmap_helpers.leading_batch_vmap(eigh_p))


@core.lowering_rules.register(eigh_p)
def _eigh_lowering(ctx, x, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    (x_aval,) = ctx.avals_in
    v_aval, w_aval = ctx.avals_out
    batch, n = x_aval.shape[:-2], x_aval.shape[-1]
    _check_full_subset("eigh", subset_by_index, n)
    _check_cpu_algorithm(algorithm)
    if n == 0:
        return [rules.broadcast_constant(ctx, 0, a) for a in (v_aval, w_aval)]
    routine = "heevd" if dtypes.is_complex(x_aval.dtype) else "syevd"
    info_aval = ShapedArray(batch, dtypes.int32)
    config = {"mode": char_attr(ctx, "V"), "uplo": char_attr(ctx, "L" if lower else "U")}
    call = lapack_call(ctx, routine, [x], [v_aval, w_aval, info_aval], config, {0: 0})
    v, w, info = call.results
    return nan_where_failed(ctx, info, batch, [v, w], [v_aval, w_aval])


# ----------------------------------------------------------------------------- svd

svd_p = core.Primitive("svd", multiple_results=True)


def svd(
    x: Any,
    *,
    full_matrices: bool = True,
    compute_uv: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    algorithm: Any = None,
) -> Any:
    """Singular value decomposition: `(u, s, vh)` with x = u diag(s) vh and s descending, or
    `s` alone without `compute_uv`. Like `jax.lax.linalg.svd`."""
    out = svd_p.bind(
        x,
        full_matrices=bool(full_matrices),
        compute_uv=bool(compute_uv),
        subset_by_index=None if subset_by_index is None else tuple(subset_by_index),
        algorithm=algorithm,
    )
    if compute_uv:
        s, u, vh = out
        return u, s, vh
    (s,) = out
    return s


def _svd_shapes(shp: tuple[int, ...], full_matrices: bool) -> list[tuple[int, ...]]:
    *batch, m, n = shp
    k = min(m, n)
    u = (*batch, m, m if full_matrices else k)
    vh = (*batch, n if full_matrices else k, n)
    return [(*batch, k), u, vh]


def _svd_impl(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    x = np.asarray(x)
    m, n = x.shape[-2:]
    _check_full_subset("svd", subset_by_index, min(m, n))
    _check_cpu_algorithm(algorithm)

    # SciPy's gesdd/gesvd, the LAPACK jaxlib's kernels call under jit: NumPy's own gesdd picks
    # other signs for some singular vectors.
    driver = "gesvd" if algorithm is SvdAlgorithm.QR else "gesdd"

    def fn(a):
        u, s, vh = scipy_linalg().svd(a, full_matrices=full_matrices, lapack_driver=driver)
        return s, u, vh

    shapes = [s[x.ndim - 2 :] for s in _svd_shapes(x.shape, full_matrices)]
    s, u, vh = per_matrix(fn, x, [shapes[0][-1:], *shapes[1:]], np.asarray, batched=False)
    s = s.astype(dtypes.real_of(x.dtype))
    return [s, u.astype(x.dtype), vh.astype(x.dtype)] if compute_uv else [s]


core.impl_rules.register(svd_p, rules.validated_impl(svd_p, _svd_impl))


@core.abstract_eval_rules.register(svd_p)
def _svd_abstract_eval(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    check_operand("svd", x)
    k = min(x.shape[-2:])
    if subset_by_index is not None:
        if full_matrices and tuple(subset_by_index) != (0, k):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
    s, u, vh = _svd_shapes(x.shape, full_matrices)
    s_aval = ShapedArray(s, dtypes.real_of(x.dtype))
    if not compute_uv:
        return [s_aval]
    return [s_aval, ShapedArray(u, x.dtype), ShapedArray(vh, x.dtype)]


@core.jvp_rules.register(svd_p)
def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    (a,), (da,) = primals, tangents
    aval = core.get_aval(a)
    dtype = aval.dtype
    s, u, vt = svd_p.bind(
        a,
        full_matrices=False,
        compute_uv=True,
        subset_by_index=subset_by_index,
        algorithm=algorithm,
    )
    m, n = aval.shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices"
        )
    ut, v = adjoint(u), adjoint(vt)
    k = core.get_aval(s).shape[-1]
    ds_mat = matmul(matmul(ut, da), v)
    ds = diagonal_of(_real(ds_mat))
    if not compute_uv:
        return [s], [ds]
    s_row, s_col = as_row(s, k), as_col(s, k)
    ones = eye(core.get_aval(s_row).shape, core.get_aval(s).dtype)
    # F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it
    s_diffs = mul(add(s_row, s_col), sub(s_row, s_col))
    f = _as(sub(div(1.0, add(s_diffs, ones)), ones), dtype)
    dss = mul(_as(s_row, dtype), ds_mat)  # dS diag(s)
    sds = mul(_as(s_col, dtype), ds_mat)  # diag(s) dS
    s_zeros = convert_element_type(
        eq(s, creation.full((), 0, core.get_aval(s).dtype)), core.get_aval(s).dtype
    )
    s_inv = sub(div(1.0, add(s, s_zeros)), s_zeros)
    s_inv_mat = mul(as_col(s_inv, k), ones)
    dudv_diag = mul(
        mul(sub(ds_mat, adjoint(ds_mat)), creation.full((), 0.5, dtype)), _as(s_inv_mat, dtype)
    )
    du = matmul(u, add(mul(f, add(dss, adjoint(dss))), dudv_diag))
    dv = matmul(v, mul(f, add(sds, adjoint(sds))))
    if m > n:
        dav = matmul(da, v)
        du = add(du, div(sub(dav, matmul(u, matmul(ut, dav))), _as(s_row_of(s, m), dtype)))
    if n > m:
        dahu = matmul(adjoint(da), u)
        dv = add(dv, div(sub(dahu, matmul(v, matmul(vt, dahu))), _as(s_row_of(s, n), dtype)))
    return [s, u, vt], [ds, du, adjoint(dv)]


def s_row_of(s: Any, rows: int) -> Any:  # (..., k) -> (..., rows, k) with s[..., None, :]
    aval = core.get_aval(s)
    nb = aval.ndim - 1
    return shape.broadcast_in_dim(s, (*aval.shape[:-1], rows, aval.shape[-1]), (*range(nb), nb + 1))


# no transpose rule: svd is not linear


core.vmap_rules.register(svd_p, vmap_helpers.leading_batch_vmap(svd_p))


@core.lowering_rules.register(svd_p)
def _svd_lowering(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    (x_aval,) = ctx.avals_in
    *batch, m, n = x_aval.shape
    _check_full_subset("svd", subset_by_index, min(m, n))
    _check_cpu_algorithm(algorithm)
    if m == 0 or n == 0:
        return [_empty_svd_part(ctx, a) for a in ctx.avals_out]
    routine = "gesvd" if algorithm is SvdAlgorithm.QR else "gesdd"
    s_shape, u_shape, vh_shape = _svd_shapes(x_aval.shape, full_matrices)
    s_aval = ShapedArray(s_shape, dtypes.real_of(x_aval.dtype))
    u_aval, vh_aval = ShapedArray(u_shape, x_aval.dtype), ShapedArray(vh_shape, x_aval.dtype)
    info_aval = ShapedArray(tuple(batch), dtypes.int32)
    mode = "A" if full_matrices else "S"
    mode = mode if compute_uv else "N"
    avals = [x_aval, s_aval, u_aval, vh_aval, info_aval]
    call = lapack_call(ctx, routine, [x], avals, {"mode": char_attr(ctx, mode)}, {0: 0})
    _, s, u, vh, info = call.results
    outs = [s, u, vh] if compute_uv else [s]
    return nan_where_failed(ctx, info, tuple(batch), outs, list(ctx.avals_out))


def _empty_svd_part(ctx, aval: ShapedArray) -> Any:
    # an empty matrix: no singular values; square factors are identities, others empty
    if aval.ndim >= 2 and aval.shape[-1] == aval.shape[-2]:
        return _eye_lowering(ctx, aval)
    return rules.broadcast_constant(ctx, 0, aval)
