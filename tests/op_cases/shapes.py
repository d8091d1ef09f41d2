"""Cases: shape operations (`transpose`, `reshape`, `expand_dims`, `squeeze`, `broadcast_to`,
`concatenate`, `stack`, `lax.pad`, `lax.rev`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from op_cases.spec import Arr, I, M, S, Table, V, as_list

TABLE = Table()
add = TABLE.add
CASES = TABLE.cases


def _lax_concatenate(library: Any, fn: Callable[..., Any], *xs: Any, dimension: int) -> Any:
    return fn(list(xs), dimension)


# --- shapes
for args, kw in [
    ((Arr(M),), {}),
    ((Arr((2, 3, 4)), (1, 0, 2)), {}),
    ((Arr((2, 3, 4)),), {"axes": (-1, 0, 1)}),
    ((Arr(V),), {}),
    ((Arr(S),), {}),
    ((Arr(M, I),), {}),
]:
    add("numpy", "transpose", *args, linear=True, **kw)
for x, shape in [
    (Arr(M), (3, 2)),
    (Arr(M), (6,)),
    (Arr(M), (-1,)),
    (Arr(M), (1, -1)),
    (Arr(M), 6),
    (Arr((2, 3, 4)), (4, -1, 2)),
    (Arr(S), (1, 1)),
    (Arr(V, I), (3, 1)),
    (Arr((1,)), ()),
]:
    add("numpy", "reshape", x, shape, linear=True)
for x, axis in [
    (Arr(V), 0),
    (Arr(V), -1),
    (Arr(M), 1),
    (Arr(M), (0, 2)),
    (Arr(S), 0),
    (Arr(M), (-1, 0)),
    (Arr(V, I), 1),
]:
    add("numpy", "expand_dims", x, axis, linear=True)
for x, kw in [
    (Arr((1, 3, 1)), {}),
    (Arr((1, 3, 1)), {"axis": 0}),
    (Arr((1, 3, 1)), {"axis": (0, 2)}),
    (Arr((1, 3, 1)), {"axis": -1}),
    (Arr(V), {}),
    (Arr((1, 1)), {}),
    (Arr((1, 2), I), {}),
]:
    add("numpy", "squeeze", x, linear=True, **kw)
for x, shape in [
    (Arr(V), (2, 3)),
    (Arr(S), (2,)),
    (Arr((2, 1)), (2, 3)),
    (Arr(M), (4, 2, 3)),
    (Arr(V, I), (2, 3)),
    (Arr(V), (3,)),
]:
    add("numpy", "broadcast_to", x, shape, linear=True)
add("numpy", "broadcast_to", 2.0, (2,), differentiable=False)
for name in ("concatenate", "stack"):
    axes = (0, 1, -1) if name == "concatenate" else (0, 1, 2, -1)
    for axis in axes:
        add("numpy", name, Arr(M), Arr(M), Arr(M), axis=axis, linear=True, call=as_list)
    add("numpy", name, Arr(V), Arr(V, I), call=as_list)
    add("numpy", name, Arr(V, I), Arr(V, I), call=as_list, differentiable=False)
    add("numpy", name, Arr(V), call=as_list, linear=True)
    add("numpy", name, Arr(V, "bfloat16"), Arr(V), call=as_list, differentiable=False)
add("numpy", "concatenate", Arr(M), Arr((1, 3)), call=as_list, linear=True)
add("numpy", "concatenate", Arr(M), Arr((2, 1)), axis=1, call=as_list, linear=True)
add("numpy", "stack", Arr(S), Arr(S), call=as_list, linear=True)
add("numpy", "stack", Arr(S), 2.0, call=as_list)


# --- didax.lax
add("lax", "broadcast_in_dim", Arr(V), (2, 3), (1,), linear=True)
add("lax", "broadcast_in_dim", Arr(S), (2, 3), (), linear=True)
add("lax", "broadcast_in_dim", Arr((2, 1)), (2, 4, 3), (0, 1), linear=True)
add("lax", "broadcast_in_dim", Arr(V, I), (3, 2), (0,), differentiable=False)
add("lax", "reshape", Arr(M), (3, 2), linear=True)
add("lax", "reshape", Arr(M), (6,), linear=True)
add("lax", "reshape", Arr(M), (3, 2), (1, 0), linear=True)
add("lax", "reshape", Arr(V, I), (1, 3), differentiable=False)
add("lax", "transpose", Arr(M), (1, 0), linear=True)
add("lax", "transpose", Arr((2, 3, 4)), (2, 0, 1), linear=True)
add("lax", "squeeze", Arr((1, 3, 1)), (0, 2), linear=True)
add("lax", "squeeze", Arr((1, 3)), (0,), linear=True)
add("lax", "expand_dims", Arr(M), (0, 3), linear=True)
add("lax", "pad", Arr(M), 0.0, ((1, 2, 0), (0, 1, 1)), linear=True)
add("lax", "pad", Arr(M), Arr(S), ((0, 0, 0), (-1, 2, 0)))
add("lax", "concatenate", Arr(M), Arr(M), dimension=0, call=_lax_concatenate, linear=True)
add(
    "lax",
    "concatenate",
    Arr(M),
    Arr((2, 1)),
    Arr(M),
    dimension=1,
    call=_lax_concatenate,
    linear=True,
)
add("lax", "rev", Arr(M), (0,), linear=True)
add("lax", "rev", Arr((2, 3, 4)), (0, 2), linear=True)
add("lax", "rev", Arr(V, I), (0,), differentiable=False)
add("lax", "tile", Arr(M), (2, 1), linear=True)
add("lax", "unstack", Arr(M), axis=1, linear=True)
