"""Tangent and cotangent helpers for jvp and transpose rules: a symbolic zero made
concrete (`instantiate`), the tangent or cotangent of an operand that an elementwise op
broadcast (`fit_shape`, `unbroadcast`), and `linear_jvp`, the jvp rule of a primitive linear
in some operands (JAX's `deflinear`). Its companions: `rules.zero_jvp` (outputs that do not
vary) and `elementwise.partials_jvp` (a sum of partial derivatives, JAX's `defjvp`).

Layer 2, after `creation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import array, core
from didax.core import ShapedArray, Zero
from didax.primitives.shape import broadcast_in_dim, reduce_sum, reshape


def instantiate(t: Any) -> Any:
    """A symbolic zero as an array of zeros; other tangents unchanged."""
    if not isinstance(t, Zero):
        return t
    zero = array.eager_result(np.zeros((), t.aval.dtype)[()], t.aval.weak_type)  # weak stays weak
    return broadcast_in_dim(zero, t.aval.shape, ())


def fit_shape(t: Any, aval: ShapedArray) -> Any:
    """A tangent of an operand that an elementwise op broadcast (a scalar, or size-1 axes),
    broadcast to the output's shape: its size-1 axes dropped, then broadcast (as JAX does)."""
    if isinstance(t, Zero):
        return Zero(aval)
    t_shape = core.get_aval(t).shape
    if t_shape == aval.shape:
        return t
    if not t_shape:
        return broadcast_in_dim(t, aval.shape, ())
    kept = tuple(i for i, (a, b) in enumerate(zip(t_shape, aval.shape, strict=True)) if a == b)
    return broadcast_in_dim(reshape(t, tuple(t_shape[i] for i in kept)), aval.shape, kept)


def unbroadcast(ct: Any, aval: ShapedArray) -> Any:
    """The cotangent of an operand that an elementwise op broadcast (a scalar, or size-1
    axes): summed over the broadcast axes, then reshaped to the operand's shape."""
    if isinstance(ct, Zero):
        return Zero(aval)
    ct_shape = core.get_aval(ct).shape
    if ct_shape == aval.shape:
        return ct
    if not aval.shape:
        return reduce_sum(ct, tuple(range(len(ct_shape))))
    axes = tuple(i for i, (a, b) in enumerate(zip(ct_shape, aval.shape, strict=True)) if a != b)
    return reshape(reduce_sum(ct, axes), aval.shape)


def linear_jvp(prim: core.Primitive, linear: Sequence[int] | slice = slice(None)) -> core.JvpRule:
    """The jvp rule of `prim`, linear in the operands at positions `linear` (all by default)
    together: the output tangents are `prim` applied to their tangents (symbolic zeros made
    concrete) and to the other operands (indices, a selector) as they are. Symbolic zeros
    when every linear operand's tangent is one. For one or several results (`split`)."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple:
        outs = _results(prim, prim.bind(*primals, **params))
        positions = range(len(primals))
        lin = set(positions[linear] if isinstance(linear, slice) else linear)
        if all(isinstance(tangents[i], Zero) for i in lin):
            return outs, [Zero.like(out) for out in outs]
        args = [
            instantiate(t) if i in lin else x
            for i, (x, t) in enumerate(zip(primals, tangents, strict=True))
        ]
        return outs, _results(prim, prim.bind(*args, **params))

    return rule


def _results(prim: core.Primitive, out: Any) -> list[Any]:
    return list(out) if prim.multiple_results else [out]
