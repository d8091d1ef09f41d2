"""`didax.numpy.linalg.decompositions`: `qr`, `svd`, `svdvals`, `eig`, `eigvals`, `eigh`,
`eigvalsh`, `pinv`,
`lstsq`, `matrix_rank`. Like `jax.numpy.linalg`'s.

Layer 5, over the decomposition primitives (`primitives/decompositions.py`). Each function is
JAX's composition, in an inner `jit` named as JAX's jaxprs name it: `svd(hermitian=True)`
reads the singular values off `eigh`, `pinv` divides V^H's columns by the singular values
above `rtol` times the largest (with JAX's custom jvp, Golub and Pereyra's derivative of the
pseudo-inverse), `lstsq` solves through the reduced SVD, `matrix_rank` counts singular values
above the tolerance.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from didax import dtypes, lax
from didax.control_flow.custom_derivatives import custom_jvp
from didax.numpy import (
    complex_parts,
    creation,
    index_take,
    inner_jit,
    manipulation,
    predicates,
    products,
    promotion,
    reductions,
    ufuncs,
)
from didax.numpy.axis_args import _aval
from didax.primitives import decompositions
from didax.primitives.eig import eig as _lax_eig

__all__ = [
    "EigResult",
    "eig",
    "eigvals",
    "EighResult",
    "QRResult",
    "SVDResult",
    "eigh",
    "eigvalsh",
    "lstsq",
    "matrix_rank",
    "pinv",
    "qr",
    "svd",
    "svdvals",
]


class QRResult(NamedTuple):
    """`qr`'s result. Like `jax.numpy.linalg.QRResult`."""

    Q: Any
    R: Any


class SVDResult(NamedTuple):
    """`svd`'s result. Like `jax.numpy.linalg.SVDResult`."""

    U: Any
    S: Any
    Vh: Any


class EigResult(NamedTuple):
    """`eig`'s result. Like `jax.numpy.linalg.EigResult`."""

    eigenvalues: Any
    eigenvectors: Any


class EighResult(NamedTuple):
    """`eigh`'s result. Like `jax.numpy.linalg.EighResult`."""

    eigenvalues: Any
    eigenvectors: Any


def _inexact(name: str, a: Any) -> Any:
    promotion.check_arraylike(name, a)
    return promotion.to_inexact(name, creation.asarray(a))


def _H(x: Any) -> Any:
    return complex_parts.conj(manipulation.swapaxes(x, -1, -2))


# ----------------------------------------------------------------------------- qr


def _qr(a: Any, mode: str) -> Any:
    if mode == "raw":  # LAPACK's geqrf, its matrix transposed (NumPy's Fortran order)
        raw, taus = decompositions.geqrf(a)
        return QRResult(manipulation.swapaxes(raw, -1, -2), taus)
    if mode in ("reduced", "r", "full"):
        full_matrices = False
    elif mode == "complete":
        full_matrices = True
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = decompositions.qr(a, pivoting=False, full_matrices=full_matrices)
    return r if mode == "r" else QRResult(q, r)


_qr_inner = inner_jit.inner_jit(_qr, "qr", static_argnums=(1,))


def qr(a: Any, mode: str = "reduced") -> Any:
    """QR decomposition: `QRResult(Q, R)`, R alone for `mode="r"`, LAPACK's raw result
    for `mode="raw"`. Like `jax.numpy.linalg.qr`."""
    return _qr_inner(_inexact("jnp.linalg.qr", a), mode)


# ----------------------------------------------------------------------------- svd


def _svd(a: Any, full_matrices: bool, compute_uv: bool, hermitian: bool, subset: Any) -> Any:
    if hermitian:  # singular values |w| of the eigenvalues, sorted descending
        w, v = decompositions.eigh(a, subset_by_index=subset)
        s = lax.abs(v)
        if not compute_uv:
            return lax.rev(lax.sort(s, dimension=-1), dimensions=[_aval(s).ndim - 1])
        sign = lax.sign(v)
        nd = _aval(s).ndim
        idx_dtype = dtypes.canonicalize(np.uint8 if _aval(s).shape[-1] < 256 else np.uint32)
        idxs = lax.broadcasted_iota(idx_dtype, _aval(s).shape, nd - 1)
        s, idxs, sign = lax.sort((s, idxs, sign), dimension=-1, num_keys=1)
        s, idxs, sign = (lax.rev(t, dimensions=[nd - 1]) for t in (s, idxs, sign))
        u = index_take.take_along_axis(w, lax.expand_dims(idxs, (nd - 1,)), axis=-1)
        sign = lax.convert_element_type(lax.expand_dims(sign, (nd - 1,)), _aval(u).dtype)
        return SVDResult(u, s, _H(ufuncs.multiply(u, sign)))
    out = decompositions.svd(
        a, full_matrices=full_matrices, compute_uv=compute_uv, subset_by_index=subset
    )
    return SVDResult(*out) if compute_uv else out


_svd_inner = inner_jit.inner_jit(_svd, "svd", static_argnums=(1, 2, 3, 4))


def svd(
    a: Any,
    full_matrices: bool = True,
    compute_uv: bool = True,
    hermitian: bool = False,
    subset_by_index: tuple[int, int] | None = None,
) -> Any:
    """Singular value decomposition `SVDResult(U, S, Vh)` (S alone without `compute_uv`).
    Like `jax.numpy.linalg.svd`."""
    a = _inexact("jnp.linalg.svd", a)
    subset = None if subset_by_index is None else tuple(subset_by_index)
    return _svd_inner(a, bool(full_matrices), bool(compute_uv), bool(hermitian), subset)


def svdvals(x: Any, /) -> Any:
    """The singular values, descending. Like `jax.numpy.linalg.svdvals`."""
    promotion.check_arraylike("jnp.linalg.svdvals", x)
    return svd(x, compute_uv=False, hermitian=False)


# ----------------------------------------------------------------------------- eigh


def _lower(uplo: Any) -> bool:
    if uplo is None or uplo == "L":
        return True
    if uplo == "U":
        return False
    raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {uplo}")


def _eigh(a: Any, uplo: Any, symmetrize_input: bool) -> EighResult:
    v, w = decompositions.eigh(a, lower=_lower(uplo), symmetrize_input=symmetrize_input)
    return EighResult(w, v)


_eigh_inner = inner_jit.inner_jit(_eigh, "eigh", static_argnums=(1, 2))


def eigh(a: Any, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:  # noqa: N803
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices. Like
    `jax.numpy.linalg.eigh`."""
    promotion.check_arraylike("jnp.linalg.eigh", a)
    _lower(UPLO)
    return _eigh_inner(_inexact("jnp.linalg.eigh", a), UPLO, bool(symmetrize_input))


def _eigvalsh(a: Any, uplo: Any, symmetrize_input: bool) -> Any:
    return eigh(a, uplo, symmetrize_input=symmetrize_input).eigenvalues


_eigvalsh_inner = inner_jit.inner_jit(_eigvalsh, "eigvalsh", static_argnums=(1, 2))


def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Any:  # noqa: N803
    """The eigenvalues of Hermitian matrices, ascending. Like `jax.numpy.linalg.eigvalsh`."""
    return _eigvalsh_inner(_inexact("jnp.linalg.eigvalsh", a), UPLO, bool(symmetrize_input))


# ----------------------------------------------------------------------------- eig


def eig(a: Any) -> EigResult:
    """Eigenvalues and right eigenvectors of general square matrices (complex). Like
    `jax.numpy.linalg.eig`."""
    w, v = _lax_eig(_inexact("jnp.linalg.eig", a), compute_left_eigenvectors=False)
    return EigResult(w, v)


def _eigvals(a: Any) -> Any:
    return _lax_eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


_eigvals_inner = inner_jit.inner_jit(_eigvals, "eigvals")


def eigvals(a: Any) -> Any:
    """The eigenvalues of general square matrices (complex). Like
    `jax.numpy.linalg.eigvals`."""
    return _eigvals_inner(_inexact("jnp.linalg.eigvals", a))


# ----------------------------------------------------------------------------- pinv


def _eps(dtype: Any) -> float:
    return float(np.finfo(dtypes.real_of(dtype)).eps)


def _pinv_body(a: Any, rtol: Any, hermitian: bool) -> Any:
    a = _inexact("jnp.linalg.pinv", a)
    aval = _aval(a)
    m, n = aval.shape[-2:]
    if m == 0 or n == 0:
        return lax.full((*aval.shape[:-2], n, m), 0, aval.dtype)
    a = complex_parts.conj(a)
    real = dtypes.real_of(aval.dtype)
    if rtol is None:  # in JAX's order: 10 max(m, n) (a weak float) times eps
        rtol = ufuncs.multiply(10.0 * max(m, n), creation.asarray(_eps(aval.dtype), real))
    rtol = creation.asarray(rtol)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    nd = _aval(s).ndim
    rtol = lax.expand_dims(rtol[..., None], tuple(range(nd - _aval(rtol).ndim - 1)))
    cutoff = ufuncs.multiply(rtol, s[..., 0:1])
    s = ufuncs.where(ufuncs.greater(s, cutoff), s, np.inf)
    s = lax.convert_element_type(s, _aval(u).dtype)
    vh_t = manipulation.swapaxes(vh, -1, -2)
    scaled = ufuncs.divide(manipulation.swapaxes(u, -1, -2), lax.expand_dims(s, (nd,)))
    res = products.matmul(vh_t, scaled, precision="highest")
    return lax.convert_element_type(res, aval.dtype)


_pinv_inner = inner_jit.inner_jit(_pinv_body, "_pinv", static_argnums=(2,))


def _pinv(a: Any, rtol: Any, hermitian: bool) -> Any:
    return _pinv_inner(a, rtol, hermitian)


_pinv = custom_jvp(_pinv, nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
    # Golub & Pereyra (1973): the derivative of the pseudo-inverse P of A
    (a,), (a_dot,) = primals, tangents
    p = pinv(a, rtol=rtol, hermitian=hermitian)
    if hermitian:
        a, a_dot = decompositions.symmetrize(a), decompositions.symmetrize(a_dot)
    mm = products.matmul
    m, n = _aval(a).shape[-2:]
    if m >= n:
        s = mm(mm(p, _H(p)), _H(a_dot))
        t = mm(mm(_H(a_dot), _H(p)), p)
        p_dot = -mm(mm(p, a_dot), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
    else:
        s = mm(p, mm(_H(p), _H(a_dot)))
        t = mm(_H(a_dot), mm(_H(p), p))
        p_dot = -mm(p, mm(a_dot, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t))
    return p, p_dot


def pinv(a: Any, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> Any:
    """The Moore-Penrose pseudo-inverse, through the SVD. Like `jax.numpy.linalg.pinv`."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv(a, rtol, bool(hermitian))


# ----------------------------------------------------------------------------- rank, lstsq


def _matrix_rank(m: Any, rtol: Any, hermitian: bool) -> Any:
    aval = _aval(m)
    if aval.ndim < 2:
        return lax.convert_element_type(predicates.any(ufuncs.not_equal(m, 0)), np.int32)
    s = svd(m, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        largest = ufuncs.multiply(reductions.max(s, axis=-1), max(aval.shape[-2:]))
        rtol = ufuncs.multiply(largest, np.finfo(_aval(s).dtype).eps)  # in JAX's order
    rtol = creation.asarray(rtol)
    rtol = lax.expand_dims(rtol, (_aval(rtol).ndim,))
    return reductions.sum(ufuncs.greater(s, rtol), axis=-1)


_matrix_rank_inner = inner_jit.inner_jit(_matrix_rank, "matrix_rank", static_argnums=(2,))


def matrix_rank(M: Any, rtol: Any = None, *, hermitian: bool = False, tol: Any = None) -> Any:  # noqa: N803
    """The number of singular values above `rtol` (by default, the largest times max(m, n)
    times the dtype's eps). Like `jax.numpy.linalg.matrix_rank`."""
    promotion.check_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    return _matrix_rank_inner(_inexact("jnp.linalg.matrix_rank", M), rtol, bool(hermitian))


def _lstsq(a: Any, b: Any, rcond: Any, numpy_resid: bool) -> tuple[Any, Any, Any, Any]:
    a, b = promotion.promote("lstsq", _inexact("lstsq", a), _inexact("lstsq", b))
    if _aval(a).shape[0] != _aval(b).shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_orig_ndim = _aval(b).ndim
    if b_orig_ndim == 1:
        b = lax.expand_dims(b, (1,))
    if _aval(a).ndim != 2:
        raise TypeError(f"{_aval(a).ndim}-dimensional array given. Array must be two-dimensional")
    if _aval(b).ndim != 2:
        raise TypeError(
            f"{_aval(b).ndim}-dimensional array given. Array must be one or two-dimensional"
        )
    (m, n), dtype = _aval(a).shape, _aval(a).dtype
    if m * n == 0:
        s = lax.full((0,), 0, dtype)
        rank = creation.asarray(0)
        x = lax.full((n, *_aval(b).shape[1:]), 0, dtype)
    else:
        if rcond is None:
            rcond = _eps(dtype) * max(n, m)
        else:
            rcond = ufuncs.where(ufuncs.less(rcond, 0), _eps(dtype), rcond)
        u, s, vt = svd(a, full_matrices=False)
        s_dtype = _aval(s).dtype
        first = lax.slice_in_dim(s, 0, 1)
        big = ufuncs.greater_equal(s, ufuncs.multiply(creation.asarray(rcond, s_dtype), first))
        mask = ufuncs.logical_and(ufuncs.greater(s, 0), big)
        rank = reductions.sum(mask)
        safe_s = lax.convert_element_type(ufuncs.where(mask, s, 1), dtype)
        s_inv = lax.expand_dims(ufuncs.where(mask, ufuncs.divide(1, safe_s), 0), (1,))
        utb = products.matmul(_H(u), b, precision="highest")
        x = products.matmul(_H(vt), ufuncs.multiply(s_inv, utb), precision="highest")
    if numpy_resid and (int(rank) < n or m <= n):
        resid = creation.asarray([])
    else:
        b_est = products.matmul(a, x, precision="highest")
        diff = ufuncs.subtract(b, b_est)
        squares = complex_parts.real(ufuncs.multiply(diff, complex_parts.conj(diff)))
        resid = lax.integer_pow(ufuncs.sqrt(reductions.sum(squares, axis=0)), 2)  # JAX's norm**2
    if b_orig_ndim == 1:
        x = manipulation.ravel(x)
    return x, resid, rank, s


_lstsq_inner = inner_jit.inner_jit(
    lambda a, b, rcond: _lstsq(a, b, rcond, False), "_lstsq", static_argnums=()
)


def lstsq(
    a: Any, b: Any, rcond: float | None = None, *, numpy_resid: bool = False
) -> tuple[Any, Any, Any, Any]:
    """Least-squares solution `(x, resid, rank, s)` of a @ x = b, through the SVD. Like
    `jax.numpy.linalg.lstsq`."""
    promotion.check_arraylike("jnp.linalg.lstsq", a, b)
    if numpy_resid:
        return _lstsq(a, b, rcond, True)
    return _lstsq_inner(a, b, rcond)
