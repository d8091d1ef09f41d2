"""`didax.lax.linalg`: the linear-algebra primitives' wrappers. Like `jax.lax.linalg`.

Layer 5 facade over `didax.primitives.linalg` (layer 2), as `didax.lax` is over the other
families: this module only re-exports.
"""

from didax.primitives.linalg import cholesky, lu, triangular_solve

__all__ = ["cholesky", "lu", "triangular_solve"]
