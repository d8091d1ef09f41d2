"""`didax.numpy.linalg`: linear algebra. Like `jax.numpy.linalg`.

Layer 5, after the rest of `didax.numpy`. This `__init__` only re-exports its modules:
`solves` (solve, inv, det, slogdet, cholesky), `decompositions` (qr, svd, eigh and what is
read off them: pinv, lstsq, matrix_rank), `norms` (norm, vector_norm, matrix_norm, cond)
and `products` (matmul, vecdot, tensordot, outer, cross, diagonal, trace, matrix_power,
multi_dot, tensorinv, tensorsolve).
"""

from didax.numpy.linalg.decompositions import *  # noqa: F403 - the package's public face
from didax.numpy.linalg.norms import *  # noqa: F403
from didax.numpy.linalg.products import *  # noqa: F403
from didax.numpy.linalg.solves import *  # noqa: F403
