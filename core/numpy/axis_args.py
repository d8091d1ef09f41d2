"""Shape and axis arguments as `didax.numpy` reads them: a shape as a tuple of ints, an
`axis` (negative, tuple or None) as a tuple of non-negative axes, and a reduced result given back
its reduced axes (`keepdims=True`).

Layer 5, first of `didax.numpy`: the helpers every family below shares.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from didax import core, lax


def shape_tuple(shape: Any) -> tuple[int, ...]:
    # an int or a sequence of ints (NumPy ints, 0-d integer arrays); anything else, a
    # traced value included, is JAX's TypeError, not a float silently truncated
    try:
        if not isinstance(shape, (tuple, list)) and np.ndim(shape) == 0:
            return (operator.index(shape),)
        return tuple(operator.index(s) for s in shape)
    except TypeError:
        dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {dims}."
        ) from None


def canonical_axis(axis: Any, ndim: int) -> int:
    # Out of bounds is NumPy's AxisError, both a ValueError and an IndexError: JAX raises
    # the one or the other, depending on the function.
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def canonical_axes(name: str, x: Any, axis: Any) -> tuple[int, ...]:
    ndim = core.get_aval(x).ndim
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 and not isinstance(axis, tuple) else tuple(axis)
    out = tuple(canonical_axis(a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: duplicate value in 'axis': {axis}")
    return out


def expand_reduced(out: Any, x: Any, axes: tuple[int, ...]) -> Any:
    shape = tuple(1 if i in axes else n for i, n in enumerate(core.get_aval(x).shape))
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return lax.broadcast_in_dim(out, shape, kept)
