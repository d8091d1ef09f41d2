"""Tangent and cotangent helpers for jvp and transpose rules: a symbolic zero made
concrete (`instantiate`), and the tangent or cotangent of an operand that an elementwise op
broadcast (`fit_shape`, `unbroadcast`).

Layer 2, after `creation`.
"""

from __future__ import annotations

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
