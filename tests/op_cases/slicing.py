"""Cases: slicing, gathering and scattering (`lax.slice`, `dynamic_slice`,
`dynamic_update_slice`, `gather`, `scatter*`, `numpy.take`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from op_cases.spec import Arr, I, M, S, Table

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases

# --- didax.lax
add("lax", "slice", Arr((4, 5)), (1, 0), (3, 4), linear=True)
add("lax", "slice", Arr((4, 5)), (0, 1), (4, 5), (2, 3), linear=True)
add("lax", "slice", Arr((4,), I), (1,), (3,), differentiable=False)


def _dynamic_slice(library: Any, fn: Callable[..., Any], x: Any, *starts_and_sizes: Any) -> Any:
    *starts, sizes = starts_and_sizes
    return fn(x, tuple(starts), sizes)


def _dynamic_update_slice(library: Any, fn: Callable[..., Any], x: Any, y: Any, *starts: Any):
    return fn(x, y, tuple(starts))


def _gather_rows(library: Any, fn: Callable[..., Any], x: Any, idx: Any) -> Any:
    """`lax.gather` of whole rows of a matrix: `x[idx[:, 0]]`."""
    dnums = library.lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    return fn(x, idx, dnums, (1, x.shape[1]))


def _scatter_rows(
    library: Any, fn: Callable[..., Any], x: Any, idx: Any, y: Any, **kwargs: Any
) -> Any:
    """`lax.scatter*` of whole rows into a matrix: rows `idx[:, 0]` of `x` meet `y`'s rows."""
    dnums = library.lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    return fn(x, idx, y, dnums, **kwargs)


add("lax", "dynamic_slice", Arr((4, 5)), 1, 2, (2, 2), call=_dynamic_slice, linear=True)
add(
    "lax",
    "dynamic_slice",
    Arr((4, 5)),
    Arr(S, I, "index"),
    Arr(S, I, "index"),
    (3, 2),
    call=_dynamic_slice,
    linear=True,
)
add("lax", "dynamic_slice", Arr((4,), I), 3, (2,), call=_dynamic_slice, differentiable=False)
add("lax", "dynamic_update_slice", Arr((4, 5)), Arr((2, 2)), 1, 3, call=_dynamic_update_slice)
add(
    "lax",
    "dynamic_update_slice",
    Arr((4, 5)),
    Arr((2, 5)),
    Arr(S, I, "index"),
    0,
    call=_dynamic_update_slice,
)
ROWS = np.array([[2], [0]], np.int32)  # distinct rows: an overwriting scatter is then defined
add("lax", "gather", Arr((4, 3)), ROWS, call=_gather_rows, linear=True)
add("lax", "gather", Arr((4, 3)), Arr((2, 1), I, "index"), call=_gather_rows, linear=True)
add("lax", "gather", Arr((4, 3), I), ROWS, call=_gather_rows, differentiable=False)
for name in ("scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max"):
    # JAX differentiates scatter_mul only with unique_indices=True (ROWS are distinct)
    unique = {"unique_indices": True} if name == "scatter_mul" else {}
    add("lax", name, Arr((4, 3)), ROWS, Arr((2, 3)), call=_scatter_rows, **unique)
    add("lax", name, Arr((4, 3), I), ROWS, Arr((2, 3), I), call=_scatter_rows, differentiable=False)
add("lax", "scatter_add", Arr((4, 3)), Arr((3, 1), I, "index"), Arr((3, 3)), call=_scatter_rows)
add("numpy", "take", Arr(M), np.array([2, 0, 2]), axis=1)
add("numpy", "take", Arr(M), Arr((2,), I, "index"), axis=1)
add("numpy", "take_along_axis", Arr(M), Arr(M, I, "index"), axis=1, differentiable=False)
