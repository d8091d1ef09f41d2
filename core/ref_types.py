"""The type of a mutable array: `AbstractRef`, printed `Ref{f32[3]}`. Like JAX's
`jax._src.state.types.AbstractRef`.

Layer 1, after array: `core.get_aval` gives it for a `Ref` (primitives/refs.py), staging
types the tracer of a ref with it, and `jit` keys its cache on it. It is not a `ShapedArray`,
so a ref never passes for an array where one is expected.
"""

from __future__ import annotations

from typing import Any

from didax.array import ShapedArray


class AbstractRef:
    """The type of a `Ref` holding arrays of type `inner_aval`."""

    __slots__ = ("inner_aval",)

    def __init__(self, inner_aval: ShapedArray) -> None:
        self.inner_aval = inner_aval

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)
    size = property(lambda self: self.inner_aval.size)
    weak_type = property(lambda self: self.inner_aval.weak_type)

    def str_short(self) -> str:  # in a jaxpr: Ref{f32[3]}
        return f"Ref{{{self.inner_aval.str_short()}}}"

    def strip_weak_type(self) -> AbstractRef:
        return self

    def __str__(self) -> str:  # JAX's `typeof(ref)`: the dtype's full name, no weak mark
        return f"Ref{{{self.dtype.name}[{','.join(map(str, self.shape))}]}}"

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return type(other) is AbstractRef and other.inner_aval == self.inner_aval

    def __hash__(self) -> int:
        return hash(("Ref", self.inner_aval))


def is_ref(x: Any) -> bool:
    """Whether `x` is a ref: a `Ref`, or a tracer standing for one."""
    return type(getattr(x, "aval", None)) is AbstractRef
