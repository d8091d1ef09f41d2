"""Cases: windowed reductions (`lax.reduce_window` with a monoid: reduce_window_sum, _max,
_min; their derivatives stage select_and_gather_add / select_and_scatter_add), `top_k`,
`argmin`, the bitwise reductions and `conv_transpose`.

`reduce_window`'s computation is the library's own `lax.add` / `max` / `min`, passed by
`call` (the case's arguments are arrays and literals only).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from op_cases.spec import Arr, B, I, Table

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases


def _pool(op: str, init: float):
    def call(root: Any, reduce_window: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        return reduce_window(x, init, getattr(root.lax, op), *args, **kwargs)

    call.case_label = f"{op}"
    return call


X = Arr((2, 5, 6, 3))
for op, init in (("add", 0.0), ("max", -np.inf), ("min", np.inf)):
    pool = _pool(op, init)
    add("lax", "reduce_window", X, (1, 2, 2, 1), (1, 1, 1, 1), "SAME", call=pool)
    add("lax", "reduce_window", X, (1, 3, 2, 1), (1, 2, 2, 1), "VALID", call=pool)
    add(
        "lax", "reduce_window", X, (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 0), (0, 0), (0, 0)),
        (1, 2, 1, 1), call=pool,
    )  # fmt: skip
add("lax", "reduce_window", Arr((3, 4), I), (2, 2), (1, 2), "SAME", call=_pool("add", 0))

add("lax", "top_k", Arr((3, 5)), 2)
add("lax", "top_k", Arr((3, 5), I), 5, differentiable=False)
add("lax", "argmin", Arr((3, 5)), 1, np.int32, differentiable=False)
add("lax", "reduce_and", Arr((3, 4), B), (0,), differentiable=False)
add("lax", "reduce_or", Arr((3, 4), I), (1,), differentiable=False)
add("lax", "reduce_xor", Arr((3, 4), I), (0, 1), differentiable=False)
add("lax", "reduce_and", Arr((3, 4)), (0,), raises=TypeError)
add("lax", "conv_transpose", Arr((1, 5, 5, 2)), Arr((3, 3, 2, 4)), (2, 2), "SAME")
add("lax", "conv_transpose", Arr((1, 5, 6, 2)), Arr((2, 3, 2, 4)), (1, 2), "VALID")


# --- no monoid: the generic `reduce` and `reduce_window` primitives (a computation of the
# library's own: a product)
def _generic(init: float):
    def call(root: Any, reduce_fn: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        return reduce_fn(x, init, lambda a, b: a * b, *args, **kwargs)

    call.case_label = "product"
    return call


add("lax", "reduce", Arr((3, 4, 5)), (1,), call=_generic(1.0))
add("lax", "reduce", Arr((3, 4, 5)), (0, 2), call=_generic(1.0))
add("lax", "reduce_window", Arr((3, 4, 5)), (2, 2, 1), (1, 1, 1), "SAME", call=_generic(1.0))
