"""Control flow under `jax_disable_jit` (config.py): `cond`, `switch`, `scan`, `while_loop`
and `fori_loop` of concrete values run as Python, calling the user's functions directly, so
a `print` in a loop body prints each iteration. Like JAX's `disable_jit` paths.

Layer 4 (control_flow/), before cond.py, scan.py and while_loop.py, which call these first
when the option is on; a traced predicate or bound falls through to the staged primitive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax import core
from didax.config import config
from didax.primitives import concatenation, shape
from didax.tree_util import tree_flatten, tree_map, tree_unflatten

NOT_RUN: Any = object()  # returned when the loop must be staged after all


def branch(index: Any, branches: Sequence[Callable[..., Any]], operands: tuple) -> Any:
    """`branches[index](*operands)` when jit is disabled and `index` is concrete."""
    if not config.jax_disable_jit:
        return NOT_RUN
    value = core.concrete_value(index)
    if value is None:
        return NOT_RUN
    return branches[min(max(int(value), 0), len(branches) - 1)](*operands)


def scan(f: Callable[..., Any], init: Any, xs: Any, length: int, reverse: bool) -> Any:
    """`lax.scan` as a Python loop, its `ys` stacked at the end."""
    if length == 0:
        raise ValueError(
            "zero-length scan is not supported in disable_jit() mode because the output type "
            "is unknown."
        )
    xs_flat, xs_tree = tree_flatten(xs)
    carry, ys = init, []
    steps = range(length)
    for i in reversed(steps) if reverse else steps:
        x = [_index(leaf, i) for leaf in xs_flat]
        carry, y = f(carry, tree_unflatten(xs_tree, x))
        ys.append(y)
    ys = ys[::-1] if reverse else ys
    return carry, tree_map(lambda *y: concatenation.stack(y, 0), *ys)


def _index(x: Any, i: int) -> Any:
    ndim = core.get_aval(x).ndim
    row = concatenation.slice(x, (i,) + (0,) * (ndim - 1), (i + 1, *core.get_aval(x).shape[1:]))
    return shape.squeeze(row, (0,))


def while_loop(cond_fun: Callable[..., Any], body_fun: Callable[..., Any], init: Any) -> Any:
    """`while cond_fun(val): val = body_fun(val)` in Python; NOT_RUN if a predicate is
    traced (then JAX stages the loop too)."""
    val = init
    try:
        while cond_fun(val):
            val = body_fun(val)
    except core.ConcretizationTypeError:
        return NOT_RUN
    return val
