"""`didax.ref`: the mutable-array functions under JAX's `jax.ref` names (`get`, `set`, `swap`,
`addupdate`, ...). Like `jax.ref`.

Layer 5, a facade: re-exports from refs.py and ref_types.py only.
"""

from __future__ import annotations

from didax.ref_types import AbstractRef
from didax.refs import (
    Ref,
    empty_ref,
    free_ref,
    freeze,
    new_ref,
)
from didax.refs import ref_addupdate as addupdate
from didax.refs import ref_get as get
from didax.refs import ref_set as set  # noqa: A004 - JAX's name
from didax.refs import ref_swap as swap

__all__ = [
    "AbstractRef",
    "Ref",
    "addupdate",
    "empty_ref",
    "free_ref",
    "freeze",
    "get",
    "new_ref",
    "set",
    "swap",
]
