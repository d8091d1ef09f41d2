"""Cases: reductions (`sum`, `mean`, `max`, `min`, `prod`, `argmax`, `lax.reduce_*`)."""

from __future__ import annotations

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
