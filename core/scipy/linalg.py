"""`didax.scipy.linalg`: triangular solves, Cholesky factors and solves, `block_diag`, `det`,
`inv`, `solve` over `didax.numpy.linalg`, thin wrappers of `lax.linalg`'s decompositions
(`qr`, `svd`, `eigh`, `lu`, `schur`, `hessenberg`), and the matrix exponential `expm`. Like
`jax.scipy.linalg`.

Layer 5, over `didax.lax.linalg`. SciPy's `overwrite_*`,
`check_finite` and `debug` options are accepted and ignored, as in JAX.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax import numpy as jnp
from didax.lax import linalg as lax_linalg
from didax.numpy.inner_jit import inner_jit
from didax.scipy.special import promote_args_inexact

__all__ = [
    "block_diag",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "det",
    "eigh",
    "expm",
    "hessenberg",
    "inv",
    "lu",
    "qr",
    "schur",
    "svd",
    "solve",
    "solve_triangular",
]

_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False)}
_TRANS |= {2: (True, True), "C": (True, True)}


def _solve_left(a: Any, b: Any, **params: Any) -> Any:
    # a vector b (one dimension fewer than a) is solved as a one-column matrix
    vector = core.get_aval(a).ndim == core.get_aval(b).ndim + 1
    if vector:
        b = jnp.expand_dims(b, -1)
    out = lax_linalg.triangular_solve(a, b, left_side=True, **params)
    return jnp.squeeze(out, -1) if vector else out


def solve_triangular(
    a: Any,
    b: Any,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug: Any = None,
    check_finite: bool = True,
) -> Any:
    """x with op(a) x = b for triangular `a` (op by `trans`: 0/"N", 1/"T", 2/"C"). Like
    `jax.scipy.linalg.solve_triangular`."""
    if trans not in _TRANS:
        raise ValueError(f"Invalid 'trans' value {trans}")
    transpose_a, conjugate_a = _TRANS[trans]
    a, b = promote_args_inexact("solve_triangular", a, b)
    return _solve_left(
        a,
        b,
        lower=lower,
        transpose_a=transpose_a,
        conjugate_a=conjugate_a,
        unit_diagonal=unit_diagonal,
    )


def cholesky(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """The Cholesky factor of `a`: upper (`a = U^H U`) unless `lower`. Like
    `jax.scipy.linalg.cholesky`."""
    (a,) = promote_args_inexact("cholesky", a)
    factor = lax_linalg.cholesky(a)
    return factor if lower else jnp.conj(jnp.swapaxes(factor, -1, -2))


def cho_factor(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Any, bool]:
    """`(cholesky(a, lower), lower)`, for `cho_solve`. Like `jax.scipy.linalg.cho_factor`."""
    return cholesky(a, lower=lower), lower


def cho_solve(
    c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False, check_finite: bool = True
) -> Any:
    """x with a x = b, given `cho_factor(a)`. Like `jax.scipy.linalg.cho_solve`."""
    c, lower = c_and_lower
    c, b = promote_args_inexact("cho_solve", c, b)
    # a = L L^H: solve L y = b, then L^H x = y (for an upper factor U = L^H, the other way)
    first = _solve_left(c, b, lower=lower, transpose_a=not lower, conjugate_a=not lower)
    return _solve_left(c, first, lower=lower, transpose_a=lower, conjugate_a=lower)


def block_diag(*arrs: Any) -> Any:
    """The block-diagonal matrix of `arrs` (scalars and vectors count as one row). Like
    `jax.scipy.linalg.block_diag`."""
    if not arrs:
        return jnp.zeros((1, 0))
    blocks = [jnp.atleast_2d(a) for a in promote_args_inexact("block_diag", *arrs)]
    if any(core.get_aval(b).ndim != 2 for b in blocks):
        raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions")
    widths = [core.get_aval(b).shape[1] for b in blocks]
    total, rows, start = sum(widths), [], 0
    for b, width in zip(blocks, widths, strict=True):
        rows.append(jnp.pad(b, ((0, 0), (start, total - start - width))))
        start += width
    return jnp.concatenate(rows, axis=0)


def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The determinant. Like `jax.scipy.linalg.det`."""
    return jnp.linalg.det(a)


def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The inverse. Like `jax.scipy.linalg.inv`."""
    return jnp.linalg.inv(a)


def solve(
    a: Any,
    b: Any,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
) -> Any:
    """x with a x = b (a general solve for every `assume_a`). Like `jax.scipy.linalg.solve`."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(
            f"Expected assume_a to be one of {{'gen', 'sym', 'her', 'pos'}}; got {assume_a!r}"
        )
    return jnp.linalg.solve(a, b)


# ----------------------------------------------------------------------------- decompositions
# JAX's thin wrappers of `lax.linalg`'s decompositions, each in an inner `jit` named as JAX's.


def _qr_body(a: Any, mode: str, pivoting: bool) -> tuple:
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    return ((r,) if mode == "r" else (q, r)) + tuple(p)


_qr_inner = inner_jit(_qr_body, "_qr", static_argnums=(1, 2))


def qr(
    a: Any,
    overwrite_a: bool = False,
    lwork: Any = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> tuple:
    """QR decomposition: `(q, r)`, or `(r,)` for `mode="r"`, the column permutation `p`
    last with `pivoting`. Like `jax.scipy.linalg.qr`."""
    (a,) = promote_args_inexact("qr", a)
    return _qr_inner(a, mode, bool(pivoting))


def _svd_body(a: Any, full_matrices: bool, compute_uv: bool) -> Any:
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


_svd_inner = inner_jit(_svd_body, "_svd", static_argnums=(1, 2))


def svd(
    a: Any,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Any:
    """Singular value decomposition `(u, s, vh)`, or `s`. Like `jax.scipy.linalg.svd`."""
    (a,) = promote_args_inexact("svd", a)
    return _svd_inner(a, bool(full_matrices), bool(compute_uv))


def _eigh_body(a: Any, lower: bool, eigvals_only: bool) -> Any:
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


_eigh_inner = inner_jit(_eigh_body, "_eigh", static_argnums=(1, 2))


def eigh(
    a: Any,
    b: Any = None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals: Any = None,
    type: int = 1,  # noqa: A002 - SciPy's name
    check_finite: bool = True,
) -> Any:
    """Eigenvalues `w` (ascending) and eigenvectors `v` of a Hermitian matrix. Like
    `jax.scipy.linalg.eigh` (b=None, type=1, eigvals=None only, as JAX)."""
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = promote_args_inexact("eigh", a)
    return _eigh_inner(a, bool(lower), bool(eigvals_only))


def _lu_body(a: Any, permute_l: bool) -> tuple:
    factors, _, permutation = lax_linalg.lu(a)
    dtype = core.get_aval(a).dtype
    m, n = core.get_aval(a).shape
    rows = jnp.arange(m, dtype=core.get_aval(permutation).dtype)
    p = jnp.real(jnp.array(permutation[None, :] == rows[:, None], dtype=dtype))
    k = min(m, n)
    lower = jnp.tril(factors, -1)[:, :k] + jnp.eye(m, k, dtype=dtype)
    upper = jnp.triu(factors)[:k, :]
    if permute_l:
        return jnp.matmul(p, lower, precision="highest"), upper
    return p, lower, upper


_lu_inner = inner_jit(_lu_body, "_lu", static_argnums=(1,))
_lu_outer = inner_jit(lambda a, permute_l: _lu_inner(a, permute_l), "lu", static_argnums=(1,))


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """LU decomposition with partial pivoting: `(p, l, u)` with a = p l u, or `(p l, u)`
    with `permute_l`. Like `jax.scipy.linalg.lu`."""
    (a,) = promote_args_inexact("lu", a)
    return _lu_outer(a, bool(permute_l))


def _schur_body(a: Any, output: str) -> Any:
    if output == "complex":
        a = jnp.astype(a, dtypes.complex_of(core.get_aval(a).dtype))
    return lax_linalg.schur(a)


_schur_inner = inner_jit(_schur_body, "_schur", static_argnums=(1,))


def schur(a: Any, output: str = "real") -> Any:
    """The Schur form `t` and unitary `z` with a = z t z^H: `t` quasi-triangular (2 x 2 blocks
    for complex pairs) for `output="real"`, triangular for `"complex"`. Like
    `jax.scipy.linalg.schur` (CPU only, as JAX's)."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    return _schur_inner(a, output)


def _hessenberg_body(a: Any, calc_q: bool) -> Any:
    batch, n = core.get_aval(a).shape[:-2], core.get_aval(a).shape[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    a_out, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(a_out, -1)
    if not calc_q:
        return h
    # Q = 1 (+) the product of the reflectors stored below the subdiagonal, as JAX builds it
    q = lax_linalg.householder_product(a_out[..., 1:, :-1], taus)
    dtype = core.get_aval(a_out).dtype
    top = [jnp.ones((*batch, 1, 1), dtype), jnp.zeros((*batch, 1, n - 1), dtype)]
    return h, jnp.block([top, [jnp.zeros((*batch, n - 1, 1), dtype), q]])


_hessenberg_inner = inner_jit(_hessenberg_body, "hessenberg", static_argnums=(1,))


def hessenberg(
    a: Any, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """The upper Hessenberg form `h` of `a` (zeros below the first subdiagonal), and with
    `calc_q` the unitary `q` with a = q h q^H. Like `jax.scipy.linalg.hessenberg`."""
    return _hessenberg_inner(a, bool(calc_q))


# --------------------------------------------------------------------------- expm

# The Padé approximant of degree m of exp(A) is Q(A)^-1 P(A), with P = V + U and Q = V - U:
# U holds the odd powers of A, V the even ones, with the coefficients b_k of A^k below
# (Higham, "The scaling and squaring method for the matrix exponential revisited", 2005).
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (
        17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0,
        2162160.0, 110880.0, 3960.0, 90.0, 1.0,
    ),
    13: (
        64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
        129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0,
        1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0,
    ),
}  # fmt: skip
# For each precision, (m, theta_m): degree m is accurate while the 1-norm of A is below
# theta_m; above the last theta, A is first scaled by 2^-s down to it, and the result
# squared s times. As JAX, float32 stops at degree 7 (its rounding error dominates beyond).
_DEGREES = {
    np.dtype("float32"): ((3, 0.4258730016922831), (5, 1.880152677804762), (7, 3.92572478313866)),
    np.dtype("float64"): (
        (3, 0.01495585217958292),
        (5, 0.253939833006323),
        (7, 0.9504178996162932),
        (9, 2.097847961257068),
        (13, 5.371920351148152),
    ),
}


def _pade_terms(a: Any, m: int) -> tuple[Any, Any]:
    """(U, V) of the degree-`m` approximant, highest powers summed first."""
    b = _PADE[m]
    dot = functools.partial(jnp.dot, precision=lax.Precision.HIGHEST)
    eye = jnp.eye(*a.shape, dtype=a.dtype)
    evens = [eye, dot(a, a)]  # I, A^2, A^4, ...: up to A^(m-1), or A^6 for degree 13
    while len(evens) < (4 if m == 13 else (m - 1) // 2 + 1):
        evens.append(dot(evens[-1], evens[1]))

    def poly(ks: range) -> Any:
        # sum of b[k] A^(k - k % 2), for k in ks (from the highest)
        total = b[ks[0]] * evens[ks[0] // 2]
        for k in ks[1:]:
            total = total + b[k] * evens[k // 2]
        return total

    if m < 13:
        return dot(a, poly(range(m, 0, -2))), poly(range(m - 1, -1, -2))
    # degree 13 from A^2, A^4, A^6 only: A^8, A^10, A^12 as A^6 times a lower polynomial
    a6 = evens[3]
    high_u = b[13] * a6 + b[11] * evens[2] + b[9] * evens[1]
    high_v = b[12] * a6 + b[10] * evens[2] + b[8] * evens[1]
    u = dot(a, dot(a6, high_u) + poly(range(7, 0, -2)))
    return u, dot(a6, high_v) + poly(range(6, -1, -2))


def _expm_2d(a: Any, upper_triangular: bool, max_squarings: int) -> Any:
    table = _DEGREES.get(np.dtype(dtypes.real_of(a.dtype)))
    if table is None:
        raise TypeError(f"A.dtype={a.dtype} is not supported.")
    degrees, thetas = zip(*table, strict=True)
    norm = jnp.linalg.norm(a, 1)
    squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm / thetas[-1])))
    a = a / 2 ** squarings.astype(a.dtype)
    which = jnp.digitize(norm, jnp.array(thetas[:-1], dtype=norm.dtype))
    u, v = lax.switch(which, [functools.partial(_pade_terms, m=m) for m in degrees], a)
    p, q = u + v, v - u

    def approximate(p: Any, q: Any) -> Any:
        r = solve_triangular(q, p) if upper_triangular else jnp.linalg.solve(q, p)

        def square(r: Any, i: Any) -> tuple[Any, None]:
            # a scan of fixed length, so that reverse mode goes through it
            step = lambda r: jnp.dot(r, r, precision=lax.Precision.HIGHEST)  # noqa: E731
            return lax.cond(i < squarings, step, lambda r: r, r), None

        return lax.scan(square, r, jnp.arange(max_squarings, dtype=squarings.dtype))[0]

    too_large = lambda p, q: jnp.full_like(p, jnp.nan)  # noqa: E731 - beyond max_squarings
    return lax.cond(squarings > max_squarings, too_large, approximate, p, q)


def expm(a: Any, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:
    """The matrix exponential of `a` (a square matrix, or a batch of them), by scaling and
    squaring a Padé approximant; NaN where `a` needs more than `max_squarings` squarings.
    `upper_triangular`: `a` is upper triangular (a triangular solve). Like
    `jax.scipy.linalg.expm`."""
    (a,) = promote_args_inexact("expm", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={a.shape!r}.")
    one = functools.partial(
        _expm_2d, upper_triangular=bool(upper_triangular), max_squarings=int(max_squarings)
    )
    return one(a) if a.ndim == 2 else jnp.vectorize(one, signature="(n,n)->(n,n)")(a)
