"""Shape manipulation: `reshape`, `transpose`, `moveaxis`, `expand_dims`, `squeeze`,
`concatenate`, `stack`, `shape`, `ndim`.

Layer 5, after `creation`.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, lax
from didax.numpy.axis_args import canonical_axes, canonical_axis, shape_tuple
from didax.numpy.creation import asarray
from didax.numpy.promotion import broadcast_to, check_arraylike, promote


def reshape(x: Any, shape: Any, order: str = "C", *, out_sharding: Any = None) -> Any:
    """Like `jax.numpy.reshape` (C order; one -1 allowed)."""
    check_arraylike("reshape", x)
    if order != "C":
        raise NotImplementedError("reshape: only order='C' is supported")
    shape = list(shape_tuple(shape))
    size = core.get_aval(x).size
    if shape.count(-1) > 1:
        raise TypeError(
            f"can only specify one unknown axis size with a `-1` value, got {tuple(shape)}"
        )
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise TypeError(
                f"cannot reshape array of shape {core.get_aval(x).shape} into "
                f"shape {tuple(shape)} because the product of specified axis sizes "
                f"({known}) does not evenly divide {size}"
            )
        shape[shape.index(-1)] = size // known
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise TypeError(
            f"cannot reshape array of shape {core.get_aval(x).shape} (size {size}) "
            f"into shape {tuple(shape)} (size {int(np.prod(shape))})"
        )
    return lax.reshape(x, tuple(shape), out_sharding=out_sharding)


def transpose(x: Any, axes: Sequence[int] | None = None) -> Any:
    """Like `jax.numpy.transpose`."""
    check_arraylike("transpose", x)
    ndim = core.get_aval(x).ndim
    perm = (
        tuple(reversed(range(ndim)))
        if axes is None
        else tuple(canonical_axis(a, ndim) for a in axes)
    )
    return lax.transpose(x, perm)


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    """Like `jax.numpy.moveaxis`: one `transpose` (none when nothing moves)."""
    check_arraylike("moveaxis", a)
    a = asarray(a)
    ndim = core.get_aval(a).ndim
    src = [source] if np.ndim(source) == 0 else list(source)
    dst = [destination] if np.ndim(destination) == 0 else list(destination)
    if len(src) != len(dst):
        raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    src = [canonical_axis(s, ndim) for s in src]
    dst = [canonical_axis(d, ndim) for d in dst]
    perm = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        perm.insert(d, s)
    return a if perm == list(range(ndim)) else lax.transpose(a, tuple(perm))


def expand_dims(x: Any, axis: Any) -> Any:
    """Like `jax.numpy.expand_dims`."""
    check_arraylike("expand_dims", x)
    axes = (axis,) if np.ndim(axis) == 0 and not isinstance(axis, tuple) else tuple(axis)
    ndim = core.get_aval(x).ndim + len(axes)
    axes = tuple(canonical_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"expand_dims: repeated axis in {axis}")
    return lax.expand_dims(x, axes)


def squeeze(x: Any, axis: Any = None) -> Any:
    """Like `jax.numpy.squeeze`."""
    shape = core.get_aval(x).shape
    if axis is None:
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    else:
        axes = canonical_axes("squeeze", x, axis)
        for a in axes:
            if shape[a] != 1:
                raise ValueError(
                    f"cannot select an axis to squeeze out which has size not "
                    f"equal to one, got shape={shape} and dimensions={axes}"
                )
    return lax.squeeze(x, axes)


def concatenate(arrays: Sequence[Any], axis: int = 0) -> Any:
    """Like `jax.numpy.concatenate`."""
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    arrays = promote("concatenate", *arrays)
    ndim = core.get_aval(arrays[0]).ndim
    if ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    if len(arrays) == 1:
        return asarray(arrays[0])
    return lax.concatenate(arrays, canonical_axis(axis, ndim))


def stack(arrays: Sequence[Any], axis: int = 0) -> Any:
    """Like `jax.numpy.stack`."""
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    arrays = promote("stack", *arrays)
    shapes = {core.get_aval(a).shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("All input arrays must have the same shape.")
    ndim = core.get_aval(arrays[0]).ndim
    return lax.stack(arrays, canonical_axis(axis, ndim + 1))


def shape(x: Any) -> tuple[int, ...]:
    return core.get_aval(x).shape


def ndim(x: Any) -> int:
    return core.get_aval(x).ndim


def ravel(x: Any, order: str = "C") -> Any:
    """Like `jax.numpy.ravel`."""
    return reshape(x, (-1,), order=order)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """Like `jax.numpy.swapaxes`."""
    a = asarray(a)
    nd = core.get_aval(a).ndim
    perm = list(range(nd))
    i, j = canonical_axis(axis1, nd), canonical_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, tuple(perm))


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """Like `jax.numpy.broadcast_shapes`."""
    return tuple(np.broadcast_shapes(*(shape_tuple(s) for s in shapes)))


def broadcast_arrays(*args: Any) -> list[Any]:
    """Like `jax.numpy.broadcast_arrays`."""
    arrays = [asarray(a) for a in args]
    shape = broadcast_shapes(*(core.get_aval(a).shape for a in arrays))
    return [a if core.get_aval(a).shape == shape else broadcast_to(a, shape) for a in arrays]


def isscalar(element: Any) -> bool:
    """True for Python and NumPy scalars and 0-d arrays. Like `jax.numpy.isscalar`."""
    if isinstance(element, (np.generic, int, float, complex, builtins.bool)):
        return True
    if isinstance(element, (np.ndarray, core.Tracer)) or hasattr(element, "aval"):
        return (
            np.ndim(element) == 0
            if isinstance(element, np.ndarray)
            else core.get_aval(element).ndim == 0
        )
    return False


def iterable(y: Any) -> bool:
    """Like `jax.numpy.iterable`."""
    try:
        iter(y)
    except TypeError:
        return False
    return True


def size(a: Any, axis: int | None = None) -> int:
    """Like `jax.numpy.size`."""
    shape = core.get_aval(asarray(a)).shape
    return int(np.prod(shape, dtype=np.int64)) if axis is None else shape[axis]


__all__ = [
    "broadcast_arrays",
    "broadcast_shapes",
    "isscalar",
    "iterable",
    "size",
    "concatenate",
    "expand_dims",
    "moveaxis",
    "ndim",
    "ravel",
    "reshape",
    "shape",
    "squeeze",
    "stack",
    "swapaxes",
    "transpose",
]
