"""`didax.lax.linalg`: the linear-algebra primitives' wrappers. Like `jax.lax.linalg`.

Layer 5 facade over `didax.primitives.linalg`, `decompositions`, `eig` and `schur` (layer 2),
as `didax.lax` is over the other families: this module only re-exports.
"""

from didax.primitives.decompositions import (
    EighImplementation,
    SvdAlgorithm,
    eigh,
    eigh_p,
    qr,
    qr_p,
    svd,
    svd_p,
    symmetrize,
)
from didax.primitives.eig import EigImplementation, eig, eig_p
from didax.primitives.linalg import (
    cholesky,
    cholesky_p,
    lu,
    lu_p,
    triangular_solve,
    triangular_solve_p,
)
from didax.primitives.schur import (
    hessenberg,
    hessenberg_p,
    householder_product,
    householder_product_p,
    schur,
    schur_p,
)

__all__ = [
    "EigImplementation",
    "EighImplementation",
    "SvdAlgorithm",
    "cholesky",
    "cholesky_p",
    "eig",
    "eig_p",
    "eigh",
    "eigh_p",
    "hessenberg",
    "hessenberg_p",
    "householder_product",
    "householder_product_p",
    "lu",
    "lu_p",
    "qr",
    "qr_p",
    "schur",
    "schur_p",
    "svd",
    "svd_p",
    "symmetrize",
    "triangular_solve",
    "triangular_solve_p",
]
