"""Case rows (tests/op_cases.py's `OpCase`) for what the "lax" helper added: the
decompositions' `jnp.linalg` functions, the new `lax` functions that take only arrays and
literals, and `precision=`. Kept apart for the lead to merge into the op_cases package;
tests/lax/test_op_case_rows.py runs them (eval, jit, grad against JAX).

`jnp.linalg` functions are reached through `call` (the target is `numpy.linalg`'s module
attribute `linalg`); functions whose values are defined only up to sign (eigenvectors,
singular vectors) are listed through their invariants (`svdvals`, `eigvalsh`, `pinv`).
"""

from __future__ import annotations

from typing import Any

from op_cases import Arr, OpCase

F, I, B = "float32", "int32", "bool"


def _linalg(name: str):
    def call(linalg: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(linalg, name)(*args, **kwargs)

    return call


CASES: list[OpCase] = []


def _add(module, name, *args, differentiable=True, linear=False, call=None, raises=None, **kw):
    CASES.append(OpCase(module, name, args, kw, differentiable, linear, call, raises))


# --- jnp.linalg on the decompositions
SQ, TALL, WIDE, BATCH = (4, 4), (5, 3), (3, 5), (2, 3, 3)
for shp in (SQ, TALL, WIDE, BATCH):
    _add("numpy", "linalg", Arr(shp), call=_linalg("svdvals"))
    _add("numpy", "linalg", Arr(shp), call=_linalg("pinv"))
    _add("numpy", "linalg", Arr(shp), call=_linalg("matrix_rank"), differentiable=False)
    _add("numpy", "linalg", Arr(shp), call=_linalg("matrix_norm"), ord="nuc")
    _add("numpy", "linalg", Arr(shp), call=_linalg("norm"), ord=2, axis=(-2, -1))
    _add("numpy", "linalg", Arr(shp), call=_linalg("cond"))
    _add("numpy", "linalg", Arr(shp), call=_linalg("qr"), mode="r")
for shp in (SQ, BATCH):
    _add("numpy", "linalg", Arr(shp), call=_linalg("eigvalsh"))
    _add("numpy", "linalg", Arr(shp), call=_linalg("matrix_power"), n=3)
    _add("numpy", "linalg", Arr(shp), call=_linalg("trace"), linear=True)
    _add("numpy", "linalg", Arr(shp), call=_linalg("diagonal"), linear=True)
_add("numpy", "linalg", Arr(TALL), Arr((5,)), call=_linalg("lstsq"))
_add("numpy", "linalg", Arr(V := (3,)), Arr(V), call=_linalg("outer"))
_add("numpy", "linalg", Arr((2, 3)), Arr((2, 3)), call=_linalg("cross"))
_add("numpy", "linalg", Arr((2, 3)), Arr((2, 3)), call=_linalg("vecdot"))
_add("numpy", "linalg", Arr((4, 4)), call=_linalg("tensorinv"), ind=1)
_add("numpy", "linalg", Arr((2, 3)), call=_linalg("vector_norm"), ord=3)
_add("numpy", "linalg", Arr((2, 2)), Arr((2, 2)), raises=ValueError, call=_linalg("cross"))

# --- lax
_add("lax", "top_k", Arr((3, 5)), 2)
_add("lax", "top_k", Arr((3, 5), I), 5, differentiable=False)
_add("lax", "argmin", Arr((3, 5)), 1, "int32", differentiable=False)
_add("lax", "reduce_and", Arr((3, 4), B), (0,), differentiable=False)
_add("lax", "reduce_or", Arr((3, 4), I), (1,), differentiable=False)
_add("lax", "reduce_xor", Arr((3, 4), I), (0, 1), differentiable=False)
_add("lax", "reduce_and", Arr((3, 4)), (0,), raises=TypeError)
_add("lax", "conv_transpose", Arr((1, 5, 5, 2)), Arr((3, 3, 2, 4)), (2, 2), "SAME")
_add("lax", "conv_transpose", Arr((1, 5, 6, 2)), Arr((2, 3, 2, 4)), (1, 2), "VALID")

# --- precision=
for p in ("highest", "float32", ("high", "default")):
    _add("lax", "dot", Arr((2, 3)), Arr((3, 4)), precision=p, linear=False)
    _add("numpy", "dot", Arr((2, 3)), Arr((3, 4)), precision=p)
    _add("numpy", "matmul", Arr((2, 2, 3)), Arr((3, 4)), precision=p)
    _add("numpy", "tensordot", Arr((2, 3)), Arr((3, 4)), axes=1, precision=p)
_add("lax", "dot", Arr((2, 3)), Arr((3, 4)), precision="bogus", raises=ValueError)
