"""Cases: products and factorizations (`dot`, `matmul`, `lax.dot_general`, `cholesky`,
`triangular_solve`, `lu`), and `jnp.tril`/`triu`.
"""

from __future__ import annotations

import numpy as np

from op_cases.spec import Arr, B, F, I, M, S, Table, V

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases

# --- linear algebra
DOT_PAIRS = [
    (V, V),
    (M, V),
    (M, (3, 4)),
    (V, (3, 4)),
    (S, V),
    ((2, 2, 3), (3, 4)),
    ((2, 2, 3), (3,)),
]
MATMUL_PAIRS = [
    (V, V),
    (M, V),
    (M, (3, 4)),
    (V, (3, 4)),
    ((2, 2, 3), (3, 4)),
    ((2, 2, 3), (2, 3, 4)),
    (V, (2, 3, 4)),
    ((2, 3, 4), (4,)),
    ((3, 4), (2, 4, 5)),
    ((1, 3, 4), (2, 4, 5)),
]
for name, pairs in (("dot", DOT_PAIRS), ("matmul", MATMUL_PAIRS)):
    for sx, sy in pairs:
        add("numpy", name, Arr(sx), Arr(sy))
    add("numpy", name, Arr(M, I), Arr((3, 2), I), differentiable=False)
    add("numpy", name, Arr(M, I), Arr(V))
    add("numpy", name, Arr(M, B), Arr(V, B), differentiable=False)


# --- didax.lax
add("lax", "dot_general", Arr(M), Arr((3, 4)), (((1,), (0,)), ((), ())))
add("lax", "dot_general", Arr((2, 3, 4)), Arr((2, 4, 5)), (((2,), (1,)), ((0,), (0,))))
add("lax", "dot_general", Arr((3, 2)), Arr((3, 4)), (((0,), (0,)), ((), ())))
add("lax", "dot_general", Arr((3, 2, 4)), Arr((4, 3)), (((0, 2), (1, 0)), ((), ())))
add("lax", "dot_general", Arr(M, I), Arr((3, 2), I), (((1,), (0,)), ((), ())), differentiable=False)
add(
    "lax",
    "dot_general",
    Arr(M),
    Arr((3, 4)),
    (((1,), (0,)), ((), ())),
    preferred_element_type=np.float32,
)

# --- factorizations and triangular solves (`lax.linalg`)
SPD = Arr((3, 3), F, "spd")
add("linalg", "cholesky", SPD)
add("linalg", "cholesky", Arr((2, 3, 3), F, "spd"))
add("linalg", "triangular_solve", SPD, Arr((3, 2)), left_side=True, lower=True)
add("linalg", "triangular_solve", SPD, Arr((2, 3)), lower=False, transpose_a=True)
add("linalg", "lu", SPD)
add("linalg", "eigh", SPD)
add("linalg", "qr", Arr((3, 2)))
add("linalg", "svd", Arr((3, 2)), full_matrices=False)
add("linalg", "eig", SPD, compute_left_eigenvectors=False, differentiable=False)

# --- triangles (an inner jit each, as JAX's)
add("numpy", "tril", Arr(M), linear=True)
add("numpy", "tril", Arr((2, 3, 4)), k=1, linear=True)
add("numpy", "triu", Arr((3, 4)), k=-1, linear=True)
add("numpy", "triu", Arr((2, 3, 3)), linear=True)
add("numpy", "tril", Arr((3,)), raises=ValueError)
