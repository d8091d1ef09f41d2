"""Cases: the decompositions (`lax.linalg.qr`, `svd`, `eigh`, `eig`, `schur`, `hessenberg`,
`householder_product`) and the `jnp.linalg`
functions on them, and `precision=` on the products. Singular and eigen vectors are defined
up to sign, but both libraries call the same LAPACK routines (NumPy's or SciPy's eagerly,
jaxlib's handlers under jit), so their values compare directly.

`jnp.linalg` functions are reached through `call` (the case's target is `numpy.linalg`).
"""

from __future__ import annotations

from typing import Any

from op_cases.spec import Arr, I, Table

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases

SQ, TALL, WIDE, BATCH = (4, 4), (5, 3), (3, 5), (2, 3, 3)


def _linalg(name: str, as_tuple: bool = False):
    # as_tuple: a named tuple of results as a plain tuple (each library has its own class)
    def call(root: Any, linalg: Any, *args: Any, **kwargs: Any) -> Any:
        out = getattr(linalg, name)(*args, **kwargs)
        return tuple(out) if as_tuple else out

    call.case_label = name  # the case id shows the function
    return call


# --- lax.linalg
for shp in (SQ, TALL, WIDE, BATCH):
    add("linalg", "qr", Arr(shp), full_matrices=False)
    add("linalg", "svd", Arr(shp), compute_uv=False)
    add("linalg", "svd", Arr(shp), full_matrices=False, differentiable=shp != WIDE)
add("linalg", "qr", Arr(TALL))
add("linalg", "qr", Arr(SQ), pivoting=True, differentiable=False)
add("linalg", "eigh", Arr(SQ))
add("linalg", "eigh", Arr(BATCH), lower=False)
add("linalg", "eig", Arr(SQ), differentiable=False)
add("linalg", "eig", Arr(SQ), compute_left_eigenvectors=False, compute_right_eigenvectors=False)
# no derivatives in JAX for these three
add("linalg", "schur", Arr(SQ), differentiable=False)
add("linalg", "schur", Arr(BATCH), compute_schur_vectors=False, differentiable=False)
add("linalg", "hessenberg", Arr(BATCH), differentiable=False)
add("linalg", "householder_product", Arr(TALL), Arr((2,)), differentiable=False)

# --- jnp.linalg
for shp in (SQ, TALL, WIDE, BATCH):
    add("numpy", "linalg", Arr(shp), call=_linalg("svdvals"))
    add("numpy", "linalg", Arr(shp), call=_linalg("pinv"))
    add("numpy", "linalg", Arr(shp), call=_linalg("matrix_rank"), differentiable=False)
    add("numpy", "linalg", Arr(shp), call=_linalg("matrix_norm"), ord="nuc")
    add("numpy", "linalg", Arr(shp), call=_linalg("norm"), ord=2, axis=(-2, -1))
    add("numpy", "linalg", Arr(shp), call=_linalg("cond"))
    add("numpy", "linalg", Arr(shp), call=_linalg("qr"), mode="r")
for shp in (SQ, BATCH):
    add("numpy", "linalg", Arr(shp), call=_linalg("eigvalsh"))
    add("numpy", "linalg", Arr(shp), call=_linalg("matrix_power"), n=3)
    add("numpy", "linalg", Arr(shp), call=_linalg("trace"), linear=True)
    add("numpy", "linalg", Arr(shp), call=_linalg("diagonal"), linear=True)
    add("numpy", "linalg", Arr(shp), call=_linalg("eigvals"), differentiable=False)
add("numpy", "linalg", Arr(TALL), mode="raw", call=_linalg("qr", True), differentiable=False)
add("numpy", "linalg", Arr(TALL), Arr((5,)), call=_linalg("lstsq"))
add("numpy", "linalg", Arr((3,)), Arr((3,)), call=_linalg("outer"))
add("numpy", "linalg", Arr((2, 3)), Arr((2, 3)), call=_linalg("cross"))
add("numpy", "linalg", Arr((2, 3)), Arr((2, 3)), call=_linalg("vecdot"))
add("numpy", "linalg", Arr((4, 4)), call=_linalg("tensorinv"), ind=1)
add("numpy", "linalg", Arr((2, 3)), call=_linalg("vector_norm"), ord=3)
add("numpy", "linalg", Arr((2, 2)), Arr((2, 2)), raises=ValueError, call=_linalg("cross"))

# --- precision=
for p in ("highest", "float32", ("high", "default")):
    add("lax", "dot", Arr((2, 3)), Arr((3, 4)), precision=p)
    add("numpy", "dot", Arr((2, 3)), Arr((3, 4)), precision=p)
    add("numpy", "matmul", Arr((2, 2, 3)), Arr((3, 4)), precision=p)
    add("numpy", "tensordot", Arr((2, 3)), Arr((3, 4)), axes=1, precision=p)
add("lax", "dot", Arr((2, 3)), Arr((3, 4)), precision="bogus", raises=ValueError)
add("lax", "dot", Arr((2, 3), I), Arr((3, 4), I), differentiable=False)
