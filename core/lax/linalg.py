"""`didax.lax.linalg`: the linear-algebra primitives' wrappers. Like `jax.lax.linalg`.

Layer 5 facade over `didax.primitives.linalg` and `didax.primitives.decompositions`
and `didax.primitives.eig` (layer 2), as `didax.lax` is over the other families: this module only re-exports.
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
    "lu",
    "lu_p",
    "qr",
    "qr_p",
    "svd",
    "svd_p",
    "symmetrize",
    "triangular_solve",
    "triangular_solve_p",
]
