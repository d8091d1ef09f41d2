"""Validation of the index options of the API (`static_argnums`, `argnums`), as JAX's
`api_util` does it: one place, used by `jit`, `make_jaxpr`, `grad` and the Jacobians.

Layer 1 (pure Python, after tree_util). Out-of-range or negative indices once wrapped around
(`static_argnums=3` on two arguments made `y` static) or were ignored; now they raise JAX's
ValueError / TypeError, at definition where the signature decides and at the call where the
number of arguments does.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Sequence
from typing import Any


def ensure_index_tuple(x: Any, name: str) -> tuple[int, ...]:
    """`x` (an int or a sequence of ints) as a tuple of ints; TypeError otherwise."""
    try:
        return (operator.index(x),)
    except TypeError:
        pass
    try:
        return tuple(map(operator.index, x))
    except TypeError:
        raise TypeError(f"{name} must be an int or a sequence of ints, got {x!r}") from None


def validate_argnums(fn: Callable[..., Any], argnums: tuple[int, ...], name: str) -> None:
    """At definition: every index must name a positional parameter of `fn` (any positive
    index is fine when `fn` takes `*args`). Like JAX's check in `jit`."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: checked at the call
        return
    n = 0
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
        elif p.kind is p.VAR_POSITIONAL:
            return
    if argnums and (-min(argnums) > n or max(argnums) >= n):
        raise ValueError(
            f"Jitted function has {name}={argnums}, but only accepts {n} positional arguments."
        )


def ensure_inbounds(argnums: Sequence[int], nargs: int, *, allow_invalid: bool) -> tuple:
    """At the call: indices resolved against `nargs` arguments (negative ones from the end).
    With `allow_invalid`, indices past the end are dropped (static_argnums of `f(*args)`)."""
    out = []
    for i in argnums:
        if i >= nargs and allow_invalid:
            continue
        if not -nargs <= i < nargs:
            raise ValueError(
                "Positional argument indices, e.g. for `static_argnums`, must have value "
                "greater than or equal to -len(args) and less than len(args), but got value "
                f"{i} for len(args) == {nargs}."
            )
        out.append(i % nargs)
    return tuple(out)
