"""Mutable arrays: `new_ref`, `empty_ref`, `freeze` and the `Ref` they make. Like JAX 0.10.2's
`jax.new_ref` and `jax.Ref`: `ref[...]` reads the whole array, `ref[idx]` a part,
`ref[idx] = v` writes (same shape and dtype, else JAX's ValueError), `ref[...] += v` updates.

Layer 5, after numpy (reads and writes are `x[idx]` and `x.at[idx].set(v)`). A difference
from JAX, by design of this first version: a `Ref` is a box the Python program mutates while
it runs, so under `jit`, `grad` and `vmap` a ref made inside the function works (each read
sees the last write) but the jaxpr shows the values flowing, not JAX's `new_ref`, `ref[...]
<- v` and `freeze` equations; and a `Ref` is not an argument `jit` or other operations
accept (TypeError), where JAX threads one through a jitted call.
"""

from __future__ import annotations

from typing import Any

from didax import core
from didax.array import ShapedArray
from didax.numpy import asarray, zeros
from didax.primitives.convert import convert_element_type


class RefType:
    """A Ref's type: `Ref{float32[3]}`. What `typeof(ref)` gives, as in JAX."""

    def __init__(self, inner: ShapedArray) -> None:
        self.inner = inner

    shape = property(lambda self: self.inner.shape)
    dtype = property(lambda self: self.inner.dtype)

    def str_short(self) -> str:
        return f"Ref{{{self.inner.str_short()}}}"

    def __repr__(self) -> str:  # JAX's: the dtype's full name, no weak-type mark
        return f"Ref{{{self.dtype.name}[{','.join(map(str, self.shape))}]}}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RefType) and other.inner == self.inner

    def __hash__(self) -> int:
        return hash(("Ref", self.inner))


class Ref:
    """A mutable array (made by `new_ref`). Like `jax.Ref`."""

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        self._value = value

    # (not `aval`, which would make it pass for an array where one is expected)
    ref_type = property(lambda self: RefType(core.get_aval(self._value)))
    shape = property(lambda self: core.get_aval(self._value).shape)
    dtype = property(lambda self: core.get_aval(self._value).dtype)
    ndim = property(lambda self: len(self.shape))

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, idx: Any) -> Any:
        return self._value if idx is Ellipsis or idx == () else self._value[idx]

    def __setitem__(self, idx: Any, value: Any) -> None:
        target = core.get_aval(self[idx])
        value = asarray(value) if not isinstance(value, core.Tracer) else value
        given = core.get_aval(value)
        if given.shape != target.shape:
            raise ValueError(
                f"Invalid shape for `swap`. Ref shape: {self.shape}. Expected shape: "
                f"{target.shape}. Value shape: {given.shape}. Transforms: (). "
            )
        if given.dtype != target.dtype:
            raise ValueError(
                f"Invalid dtype for `swap`. Ref dtype: {self.dtype}. Value dtype: {given.dtype}. "
            )
        if given.weak_type != target.weak_type:  # the ref keeps its own type
            value = convert_element_type(value, target.dtype, weak_type=target.weak_type)
        whole = idx is Ellipsis or idx == ()
        self._value = value if whole else self._value.at[idx].set(value)

    def addupdate(self, idx: Any, value: Any) -> None:
        """`ref[idx] += value`."""
        self[idx] = self[idx] + value

    def __repr__(self) -> str:
        text = repr(self._value)
        if isinstance(self._value, core.Tracer):
            return f"Ref({text})"
        return "Ref(" + text.removeprefix("Array(")  # (JAX keeps the Array's indentation)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise TypeError(
            "A Ref is not an array: read its value with `ref[...]` (or `freeze(ref)`) first"
        )


def new_ref(init_val: Any, *, memory_space: Any = None, kind: Any = None) -> Ref:
    """A mutable array holding `init_val`. Like `jax.new_ref`."""
    return Ref(asarray(init_val))


def empty_ref(ty: Any, *, memory_space: Any = None) -> Ref:
    """A mutable array of type `ty` (a `ShapeDtypeStruct`) holding zeros: write it before
    reading it. Like `jax.empty_ref` (which only stages, under jit)."""
    return Ref(zeros(ty.shape, ty.dtype))


def freeze(ref: Ref) -> Any:
    """The array a ref holds now. Like `jax.freeze`."""
    if not isinstance(ref, Ref):
        raise TypeError(f"freeze expects a Ref, got {type(ref).__name__}")
    return ref[...]


def free_ref(ref: Ref) -> None:
    """Release a ref (nothing to do: its array is freed with it). Like `jax.free_ref`."""
