"""`didax.lax.linalg`: the linear-algebra primitives' wrappers. Like `jax.lax.linalg`.

Layer 5 facade over `didax.primitives.linalg` and `didax.primitives.decompositions`
and `didax.primitives.eig` (layer 2), as `didax.lax` is over the other families: this module only re-exports.
"""

from didax.primitives.decompositions import eigh, qr, svd, symmetrize
from didax.primitives.eig import eig
from didax.primitives.linalg import cholesky, lu, triangular_solve

__all__ = ["cholesky", "eig", "eigh", "lu", "qr", "svd", "symmetrize", "triangular_solve"]
