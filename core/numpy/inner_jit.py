"""`inner_jit`: how a composite `didax.numpy` function shows in a jaxpr, as one inner
`jit[name=...]` equation, as JAX's numpy functions do.

Layer 5, after `promotion`.
"""

from __future__ import annotations

import functools
from typing import Any

from didax import core
from didax.compile.jit import jit as _jit


def inner_jit(fn: Any, name: str, static_argnums: tuple[int, ...] = ()) -> Any:
    """`fn` as JAX's numpy runs it: an inner `jit(fn, inline=True)`, so that a jaxpr shows one
    `jit[name=...]` equation for it as JAX's does (`name` is the one JAX's jaxprs show). With
    nothing being traced it just runs, eagerly with NumPy like the rest of didax.numpy (an
    inline jit is part of its caller)."""
    fn.__name__ = name
    jitted = _jit(fn, static_argnums=static_argnums, inline=True)

    def call(*args: Any) -> Any:
        return fn(*args) if core.trace_state() is core.EAGER_STATE else jitted(*args)

    return functools.update_wrapper(call, fn)
