"""`didax.extend.core`: the IR and primitive classes under JAX's public names. Like
`jax.extend.core`.

Layer 5, re-exports of `didax.core` and `didax.jaxpr` (layer 1), plus `jaxpr_as_fun` and
`check_jaxpr` over them, so that JAX's "Writing custom Jaxpr interpreters" runs with `jax`
replaced by `didax` (tests/extension/test_custom_interpreters_tutorial.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from didax.core import Primitive
from didax.jaxpr import (
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    JaxprTypeError,
    Literal,
    Var,
    eval_jaxpr,
    typecheck,
)

__all__ = [
    "ClosedJaxpr",
    "DropVar",
    "Jaxpr",
    "JaxprEqn",
    "JaxprTypeError",
    "Literal",
    "Primitive",
    "Var",
    "check_jaxpr",
    "jaxpr_as_fun",
    "new_jaxpr_eqn",
]


def jaxpr_as_fun(closed_jaxpr: ClosedJaxpr) -> Callable[..., list[Any]]:
    """A function evaluating `closed_jaxpr` on its arguments, returning the list of outputs.
    Like `jax.extend.core.jaxpr_as_fun`."""
    return functools.partial(eval_jaxpr, closed_jaxpr.jaxpr, closed_jaxpr.consts)


def check_jaxpr(jaxpr: Jaxpr) -> None:
    """Raise `JaxprTypeError` if `jaxpr` is ill-typed. Like `jax.extend.core.check_jaxpr`."""
    typecheck(jaxpr)


def new_jaxpr_eqn(
    invars: list[Any],
    outvars: list[Var],
    primitive: Primitive,
    params: dict[str, Any],
    effects: Any = None,
    source_info: Any = None,
) -> JaxprEqn:
    """An equation `outvars = primitive[params] invars`. Like `jax.extend.core.new_jaxpr_eqn`
    (didax tracks no effect sets: `effects` is ignored)."""
    return JaxprEqn(primitive, list(invars), list(outvars), dict(params), source_info)
