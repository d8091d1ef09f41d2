"""Cases: cumulative reductions (`cumsum`, `cumprod`, `cummax`, `cummin`, `cumlogsumexp`) and
sorting (`sort`, `argsort`): the primitives that scan or order along one axis."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from op_cases.spec import Arr, B, I, M, Table, V

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases


def _sort_many(library: Any, fn: Callable[..., Any], *xs: Any, **kwargs: Any) -> Any:
    return fn(tuple(xs), **kwargs)


# --- cumulative reductions
for name in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
    add("lax", name, Arr(M), axis=1)
    add("lax", name, Arr((2, 3, 4)), axis=0, reverse=True)
    if name != "cumlogsumexp":
        add("lax", name, Arr(V, I), differentiable=False)
for name in ("cumsum", "cumprod"):
    add("numpy", name, Arr(M), axis=0)
    add("numpy", name, Arr(M))
    add("numpy", name, Arr(V, I), differentiable=False)
    # dtypes (from tests/lax/test_cumsum.py's table): ints, an accumulation dtype, bools
    # (summed as ints), int8 (kept), a weak Python scalar
    add("numpy", name, Arr(M, I), axis=1, differentiable=False)
    add("numpy", name, Arr(M, I), dtype=np.float32, differentiable=False)
    add("numpy", name, Arr(M, B), differentiable=False)
    add("numpy", name, Arr(M, "int8"), axis=-1, differentiable=False)
    add("numpy", name, 2.0, differentiable=False)
add("lax", "cumsum", Arr(M), axis=0, linear=True)

# --- sorting
add("lax", "sort", Arr(M))
add("lax", "sort", Arr(M), dimension=0)
add("lax", "sort", Arr(V, I), differentiable=False)
add("lax", "sort", Arr(V), Arr(V, I), num_keys=1, call=_sort_many)
add("numpy", "sort", Arr((2, 3, 4)), axis=1)
add("numpy", "argsort", Arr(M), differentiable=False)
add("numpy", "argsort", Arr(V, I), differentiable=False)
