"""Cases: reductions (`sum`, `mean`, `max`, `min`, `prod`, `argmax`, `lax.reduce_*`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from op_cases.spec import Arr, B, I, M, S, Table, V

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases

# --- reductions
for name in ("sum", "mean", "max", "min", "prod"):
    linear = name in ("sum", "mean")
    for kw in [
        {},
        {"axis": 0},
        {"axis": 1},
        {"axis": -1},
        {"axis": (0, 1)},
        {"keepdims": True},
        {"axis": 1, "keepdims": True},
    ]:
        add("numpy", name, Arr(M), linear=linear, **kw)
    add("numpy", name, Arr((2, 3, 4)), axis=(0, 2), linear=linear)
    add("numpy", name, Arr(S), linear=linear)
    add("numpy", name, Arr(M, I), differentiable=False)
    add("numpy", name, Arr(M, I), axis=0, differentiable=False)
    add("numpy", name, Arr(M, B), axis=1, differentiable=False)
    add("numpy", name, 2.5, differentiable=False)
    add("numpy", name, Arr(V, "bfloat16"), differentiable=False)
for name in ("sum", "mean"):
    add("numpy", name, Arr(M, I), dtype=np.float32, differentiable=False)
    add("numpy", name, Arr(M), dtype=np.int32, axis=0, differentiable=False)
for kw in [
    {},
    {"axis": 0},
    {"axis": 1},
    {"axis": -1},
    {"keepdims": True},
    {"axis": 1, "keepdims": True},
]:
    add("numpy", "argmax", Arr(M), differentiable=False, **kw)
    add("numpy", "argmax", Arr(M, I), differentiable=False, **kw)
add("numpy", "argmax", Arr(V, B), differentiable=False)
add("numpy", "argmax", Arr(S), differentiable=False)


# --- didax.lax
for name in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod"):
    for axes in [(0,), (1,), (0, 1), ()]:
        add("lax", name, Arr(M), axes, linear=name == "reduce_sum")
    add("lax", name, Arr(M, I), (1,), differentiable=False)
add("lax", "argmax", Arr(M), 1, np.int32, differentiable=False)
add("lax", "argmax", Arr(M, I), 0, np.int32, differentiable=False)

# --- more reductions (argmin, bitwise), windows and a user's computation
add("lax", "argmin", Arr(M), 1, np.int32, differentiable=False)
add("lax", "argmin", Arr(M, I), 0, np.int32, differentiable=False)
for name in ("reduce_and", "reduce_or", "reduce_xor"):
    add("lax", name, Arr(M, B), (1,), differentiable=False)
    add("lax", name, Arr(M, I), (0,), differentiable=False)


def _reduce_window(
    library: Any, fn: Callable[..., Any], x: Any, op: str, init: Any, *window: Any
) -> Any:
    """`lax.reduce_window` with the library's `lax.<op>` (add, max, min: the monoids JAX gives
    their own primitives) or, for "max_times_one", a computation no primitive names."""
    if op == "max_times_one":
        return fn(x, init, lambda a, b: library.lax.max(a, b) * 1.0, *window)
    return fn(x, init, getattr(library.lax, op), *window)


def _reduce_custom(library: Any, fn: Callable[..., Any], x: Any, init: Any, dims: Any) -> Any:
    # associative and commutative (the order of a reduction is XLA's), yet no monoid JAX
    # recognises: the generic `reduce` primitive
    return fn(x, init, lambda a, b: library.lax.max(a, b) * 1.0, dims)


for op, init in (("add", 0.0), ("max", -np.inf), ("min", np.inf)):
    add("lax", "reduce_window", Arr((4, 5)), op, init, (2, 2), (1, 1), "VALID", call=_reduce_window)
    add("lax", "reduce_window", Arr((4, 5)), op, init, (3, 2), (2, 1), "SAME", call=_reduce_window)
add(
    "lax",
    "reduce_window",
    Arr((4, 5)),
    "max_times_one",
    -np.inf,
    (2, 2),
    (1, 1),
    "VALID",
    call=_reduce_window,
    differentiable=False,
)
add("lax", "reduce", Arr(M), -np.inf, (1,), call=_reduce_custom, differentiable=False)
add("lax", "top_k", Arr(M), 2, differentiable=False)
