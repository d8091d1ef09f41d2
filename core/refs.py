"""Mutable arrays, the public names: `new_ref`, `empty_ref`, `freeze`, `free_ref` and `Ref`.
Like JAX 0.10.2's `jax.new_ref` and `jax.Ref`: `ref[...]` reads the whole array, `ref[idx]` a
part, `ref[idx] = v` writes (same shape and dtype, else JAX's ValueError), `ref[...] += v`
updates.

Layer 5. The primitives and the `Ref` object are in primitives/refs.py: eagerly a ref holds an
Array its writes replace; `make_jaxpr` and `jit` stage JAX's equations (`new_ref`, `c <- b[...]`,
`b[1] <- v`, `freeze`); `jit` takes refs as arguments and closes over outer ones, compiling the
discharged program (interpreters/discharge.py) and writing the refs' new values back. A ref made
inside `grad`, `jvp` or `vmap` is made in that transformation (as JAX's is, even from a constant:
it may later hold a differentiated or batched value): under `vmap` it is a ref of the batch, with
JAX's equations; under `grad`/`jvp` a box updated functionally, so those jaxprs show the values
flowing, not ref equations. Writing a
differentiated or batched value into a ref made outside raises JAX's errors. A loop's body,
a cond's branch or a checkpointed function using an outer ref carries its value through
(control_flow/ref_carries.py). Not built: JAX's `Ref` transforms (`bitcast`, `reshape`),
`memory_space`, calling an AOT-compiled program that takes refs.
"""

from __future__ import annotations

from typing import Any

from didax import core
from didax.primitives.refs import (
    Ref,
    empty_ref_p,
    free_ref_p,
    freeze_bind,
    new_ref_bind,
    ref_addupdate,
    ref_get,
    ref_set,
    ref_swap,
)
from didax.ref_types import is_ref

__all__ = [
    "Ref",
    "empty_ref",
    "free_ref",
    "freeze",
    "new_ref",
    "ref_addupdate",
    "ref_get",
    "ref_set",
    "ref_swap",
]


def new_ref(init_val: Any, *, memory_space: Any = None, kind: Any = None) -> Any:
    """A mutable array holding `init_val`. Like `jax.new_ref`."""
    return new_ref_bind(init_val, memory_space, kind)


def empty_ref(ty: Any, *, memory_space: Any = None) -> Any:
    """A mutable array of type `ty` (a `ShapeDtypeStruct`): write it before reading it (it
    holds zeros). Like `jax.empty_ref`."""
    aval = core.ShapedArray(ty.shape, ty.dtype)
    (ref,) = core.bind(empty_ref_p, [], {"ty": aval, "memory_space": memory_space})
    return ref


def freeze(ref: Any) -> Any:
    """The array a ref holds now. Like `jax.freeze`."""
    if not is_ref(ref):
        raise TypeError(f"freeze expects a Ref, got {type(ref).__name__}")
    return freeze_bind(ref)


def free_ref(ref: Any) -> tuple:
    """Release a ref. Like `jax.free_ref`."""
    core.bind(free_ref_p, [ref], {})
    return ()
