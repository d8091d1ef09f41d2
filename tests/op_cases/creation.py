"""Cases: array creation (`array`, `zeros`, `full`, `arange`, `eye`, dtype casts, `lax.iota`,
`lax.full`): the `iota`, `broadcast_in_dim` and `convert_element_type` primitives.
"""

from __future__ import annotations

import numpy as np

from op_cases.spec import Arr, B, F, I, M, S, Table, V

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases

# --- creation
for args, kw in [
    (([1, 2, 3],), {}),
    (([1.0, 2],), {}),
    (([[1, 2], [3, 4]],), {}),
    ((2.0,), {}),
    ((3,), {}),
    ((True,), {}),
    (([1, 2],), {"dtype": np.float32}),
    ((Arr(V, "float64"),), {}),
    ((Arr(V, "int64"),), {}),
    ((Arr(M),), {}),
    ((Arr(V, I),), {"dtype": np.float32}),
]:
    for name in ("array", "asarray"):
        differentiable = any(isinstance(a, Arr) and a.dtype == F for a in args)
        add("numpy", name, *args, differentiable=differentiable, linear=differentiable, **kw)
for name in ("zeros", "ones"):
    for args, kw in [
        (((2, 3),), {}),
        ((3,), {}),
        (((),), {}),
        (((2,),), {"dtype": np.int32}),
        (((2,),), {"dtype": np.bool_}),
    ]:
        add("numpy", name, *args, differentiable=False, **kw)
for name in ("zeros_like", "ones_like"):
    for args, kw in [
        ((Arr(M),), {}),
        ((Arr(V, I),), {}),
        ((Arr(S),), {}),
        ((Arr(V),), {"dtype": np.int32}),
        ((2.0,), {}),
    ]:
        add("numpy", name, *args, **kw)
for args, kw in [
    (((2, 3), 2.0), {}),
    (((2,), 3), {}),
    (((2,), 1.5), {"dtype": np.int32}),
    ((3, True), {}),
    (((2, 3), Arr(V)), {}),
    (((2,), Arr(S, I)), {}),
]:
    add(
        "numpy",
        "full",
        *args,
        differentiable=any(isinstance(a, Arr) and a.dtype == F for a in args),
        **kw,
    )
for args, kw in [
    ((5,), {}),
    ((1, 7, 2), {}),
    ((0.0, 1.0, 0.25), {}),
    ((5,), {"dtype": np.float32}),
    ((-3, 3), {}),
    ((2.5,), {}),
]:
    add("numpy", "arange", *args, differentiable=False, **kw)
for args, kw in [
    ((0, 1, 5), {}),
    ((0.0, 1.0, 4), {"endpoint": False}),
    ((-1, 1), {}),
    ((0, 10, 6), {"dtype": np.int32}),
]:
    add("numpy", "linspace", *args, differentiable=False, **kw)
for args, kw in [
    ((3,), {}),
    ((2, 3), {}),
    ((3,), {"k": 1}),
    ((3,), {"dtype": np.int32}),
    ((3, 4), {"k": -1}),
]:
    add("numpy", "eye", *args, differentiable=False, **kw)
for name, arg_list in [
    ("float32", [Arr(V, I), Arr(M), Arr(V, "float64"), 2, 2.5, Arr(V, B)]),
    ("int32", [Arr(V), Arr(V, I), 3, Arr(V, "int64"), Arr(V, B)]),
    ("bool_", [Arr(V), Arr(V, I), 0, Arr(V, B)]),
]:
    for a in arg_list:
        add(
            "numpy",
            name,
            a,
            differentiable=name == "float32" and isinstance(a, Arr) and a.dtype == F,
            linear=name == "float32",
        )


# --- didax.lax
add("lax", "iota", np.int32, 5, differentiable=False)
add("lax", "iota", np.float32, 4, differentiable=False)
add("lax", "broadcasted_iota", np.int32, (2, 3), 1, differentiable=False)
add("lax", "full", (2, 3), 1.5, differentiable=False)
add("lax", "full", (2,), 3, np.float32, differentiable=False)
add("lax", "full", (2, 3), Arr(S))
