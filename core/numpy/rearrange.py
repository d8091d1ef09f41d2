"""Rearranging arrays: flips and rolls (`flip fliplr flipud roll rot90`), repetition (`tile
repeat`), stacking and splitting (`atleast_1d/2d/3d hstack vstack dstack column_stack concat
split array_split hsplit vsplit dsplit unstack append`), diagonals and triangles (`diag
diagonal diagflat trace tri tril_indices triu_indices diag_indices ...`), index grids
(`indices`), `matrix_transpose`/`permute_dims`, and `identity empty empty_like full_like copy`.
Like `jax.numpy`'s.

Layer 5, after `setops`, composing `didax.numpy` and `lax` (`rev`, `slice`, `concatenate`,
`broadcast_in_dim`, `reshape`, gathers by integer indexing). Index arrays whose length depends
on the data (`repeat` with an array of counts) need concrete values, as in JAX without
`total_repeat_length`.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, lax
from didax.numpy import (
    axis_args,
    creation,
    index_take,
    manipulation,
    promotion,
)
from didax.numpy.axis_args import _aval

__all__ = [
    "delete",
    "pad",
    "resize",
    "append",
    "rollaxis",
    "array_split",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "column_stack",
    "concat",
    "dsplit",
    "dstack",
    "flip",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "matrix_transpose",
    "permute_dims",
    "repeat",
    "roll",
    "rot90",
    "split",
    "tile",
    "unstack",
    "vsplit",
    "vstack",
]


def slice_axis(x: Any, start: int, stop: int, axis: int) -> Any:
    """`x[start:stop]` along `axis`, as the `slice` (strides=None) JAX's jnp functions stage."""
    shape = _aval(x).shape
    lo = tuple(start if d == axis else 0 for d in range(len(shape)))
    hi = tuple(stop if d == axis else n for d, n in enumerate(shape))
    return lax.slice(x, lo, hi)


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return tuple(axis_args.canonical_axis(a, ndim) for a in axes)


# ----------------------------------------------------------------------------- flips, rolls


def flip(m: Any, axis: Any = None) -> Any:
    """Reverse the order of entries along `axis` (all axes if None): one `rev`. Like
    `jax.numpy.flip`."""
    promotion.check_arraylike("flip", m)
    m = creation.asarray(m)
    axes = _axes(axis, _aval(m).ndim)
    return lax.rev(m, axes) if axes else m


def fliplr(m: Any) -> Any:
    """Like `jax.numpy.fliplr`."""
    m = creation.asarray(m)
    if _aval(m).ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m: Any) -> Any:
    """Like `jax.numpy.flipud`."""
    m = creation.asarray(m)
    if _aval(m).ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def _roll_one(a: Any, shift: int, axis: int) -> Any:
    n = _aval(a).shape[axis]
    if n == 0 or shift % n == 0:
        return a
    k = n - shift % n  # the result starts at entry k
    shape = _aval(a).shape
    head = lax.slice(a, tuple(k if d == axis else 0 for d in range(len(shape))), shape)
    tail = lax.slice(
        a, (0,) * len(shape), tuple(k if d == axis else s for d, s in enumerate(shape))
    )
    return lax.concatenate([head, tail], axis)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """Shift entries along `axis` (the flattened array if None), wrapping around. Like
    `jax.numpy.roll` (static shifts)."""
    promotion.check_arraylike("roll", a)
    a = creation.asarray(a)
    if axis is None:
        return manipulation.reshape(roll(manipulation.ravel(a), shift, 0), _aval(a).shape)
    shifts = (shift,) if np.ndim(shift) == 0 else tuple(shift)
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    shifts, axes = np.broadcast_arrays(np.asarray(shifts), np.asarray(axes))
    for s, ax in zip(shifts.ravel(), axes.ravel(), strict=True):
        a = _roll_one(a, int(s), axis_args.canonical_axis(int(ax), _aval(a).ndim))
    return a


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """Rotate by 90 degrees `k` times in the plane of `axes`. Like `jax.numpy.rot90`."""
    m = creation.asarray(m)
    ndim = _aval(m).ndim
    if np.shape(axes) != (2,):
        raise ValueError("len(axes) must be 2.")
    a0, a1 = (axis_args.canonical_axis(a, ndim) for a in axes)
    if a0 == a1:
        raise ValueError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return lax.transpose(flip(m, a1), tuple(perm))
    return flip(lax.transpose(m, tuple(perm)), a1)


# ----------------------------------------------------------------------------- tile, repeat


def tile(A: Any, reps: Any) -> Any:  # noqa: N803 - NumPy's name
    """Repeat the whole array `reps` times along each axis. Like `jax.numpy.tile`."""
    promotion.check_arraylike("tile", A)
    A = creation.asarray(A)  # noqa: N806
    reps = (operator.index(reps),) if np.ndim(reps) == 0 else tuple(map(operator.index, reps))
    ndim = _aval(A).ndim
    reps = (1,) * (ndim - len(reps)) + reps
    if len(reps) > ndim:  # new leading axes of size 1, as JAX's `expand_dims`
        A = lax.expand_dims(A, tuple(range(len(reps) - ndim)))  # noqa: N806
    return lax.tile(A, reps)  # JAX's `tile` primitive


def repeat(
    a: Any, repeats: Any, axis: int | None = None, *, total_repeat_length: int | None = None
) -> Any:
    """Repeat each entry `repeats` times along `axis` (the flattened array if None). Like
    `jax.numpy.repeat`."""
    promotion.check_arraylike("repeat", a)
    a = creation.asarray(a)
    if axis is None:
        a, axis = manipulation.ravel(a), 0
    axis = axis_args.canonical_axis(axis, _aval(a).ndim)
    shape = _aval(a).shape
    if np.ndim(repeats) == 0 and not isinstance(repeats, core.Tracer):
        r = operator.index(repeats)
        wide = (*shape[: axis + 1], r, *shape[axis + 1 :])
        dims = tuple(d if d <= axis else d + 1 for d in range(len(shape)))
        out = lax.broadcast_in_dim(a, wide, dims)
        out = manipulation.reshape(out, (*shape[:axis], shape[axis] * r, *shape[axis + 1 :]))
        if total_repeat_length is not None:
            return _fit_length(out, axis, total_repeat_length)
        return out
    counts = np.asarray(core.concrete_or_error(repeats, "jnp.repeat: repeats must be concrete"))
    counts = np.broadcast_to(counts, (shape[axis],))
    index = np.repeat(np.arange(shape[axis], dtype=np.int32), counts)
    if total_repeat_length is not None:
        index = np.resize(index, total_repeat_length) if index.size else index
    return index_take.take(a, creation.asarray(index), axis=axis)


def _fit_length(x: Any, axis: int, length: int) -> Any:
    n = _aval(x).shape[axis]
    if length <= n:
        return slice_axis(x, 0, length, axis)
    pad = lax.full((), 0, _aval(x).dtype)
    config = [(0, length - n if d == axis else 0, 0) for d in range(_aval(x).ndim)]
    return lax.pad(x, pad, config)


# ----------------------------------------------------------------------------- stacking


def atleast_1d(*arys: Any) -> Any:
    """Like `jax.numpy.atleast_1d`."""
    out = [creation.asarray(a) for a in arys]
    out = [manipulation.reshape(a, (1,)) if _aval(a).ndim == 0 else a for a in out]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys: Any) -> Any:
    """Like `jax.numpy.atleast_2d`."""
    out = []
    for a in map(creation.asarray, arys):
        nd = _aval(a).ndim
        out.append(manipulation.reshape(a, (1,) * (2 - nd) + _aval(a).shape) if nd < 2 else a)
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys: Any) -> Any:
    """Like `jax.numpy.atleast_3d`: a vector becomes (1, n, 1), a matrix (m, n, 1)."""
    out = []
    for a in map(creation.asarray, arys):
        shape = _aval(a).shape
        if len(shape) == 0:
            a = manipulation.reshape(a, (1, 1, 1))
        elif len(shape) == 1:
            a = manipulation.reshape(a, (1, shape[0], 1))
        elif len(shape) == 2:
            a = manipulation.reshape(a, (*shape, 1))
        out.append(a)
    return out[0] if len(out) == 1 else out


def _listed(name: str, tup: Any) -> list[Any]:
    if isinstance(tup, (core.Tracer, np.ndarray)) or hasattr(tup, "aval"):
        return [tup[i] for i in range(_aval(tup).shape[0])]
    return list(tup)


def hstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    """Like `jax.numpy.hstack`."""
    arrs = atleast_1d(*_listed("hstack", tup))
    arrs = arrs if isinstance(arrs, list) else [arrs]
    out = manipulation.concatenate(arrs, axis=0 if _aval(arrs[0]).ndim == 1 else 1)
    return out if dtype is None else lax.convert_element_type(out, creation.to_dtype(dtype), False)


def vstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    """Like `jax.numpy.vstack`."""
    arrs = atleast_2d(*_listed("vstack", tup))
    arrs = arrs if isinstance(arrs, list) else [arrs]
    out = manipulation.concatenate(arrs, axis=0)
    return out if dtype is None else lax.convert_element_type(out, creation.to_dtype(dtype), False)


def dstack(tup: Sequence[Any], dtype: Any = None) -> Any:
    """Like `jax.numpy.dstack`."""
    arrs = atleast_3d(*_listed("dstack", tup))
    arrs = arrs if isinstance(arrs, list) else [arrs]
    out = manipulation.concatenate(arrs, axis=2)
    return out if dtype is None else lax.convert_element_type(out, creation.to_dtype(dtype), False)


def column_stack(tup: Sequence[Any]) -> Any:
    """Like `jax.numpy.column_stack`: vectors become columns."""
    arrs = [creation.asarray(a) for a in _listed("column_stack", tup)]
    arrs = [manipulation.reshape(a, (_aval(a).size, 1)) if _aval(a).ndim < 2 else a for a in arrs]
    return manipulation.concatenate(arrs, axis=1)


def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> Any:
    """Like `jax.numpy.concat` (the array API's `concatenate`)."""
    if axis is None:
        return manipulation.concatenate([manipulation.ravel(a) for a in arrays], axis=0)
    return manipulation.concatenate(arrays, axis=axis)


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """Like `jax.numpy.append`."""
    if axis is None:
        return manipulation.concatenate([manipulation.ravel(arr), manipulation.ravel(values)], 0)
    return manipulation.concatenate([arr, values], axis=axis)


def _split(name: str, ary: Any, sections: Any, axis: int, even: bool) -> list[Any]:
    ary = creation.asarray(ary)
    axis = axis_args.canonical_axis(axis, _aval(ary).ndim)
    n = _aval(ary).shape[axis]
    if np.ndim(sections) == 0:
        parts = operator.index(sections)
        if parts <= 0:
            raise ValueError("number sections must be larger than 0.")
        if even and n % parts:
            raise ValueError("array split does not result in an equal division")
        size, extra_n = divmod(n, parts)
        bounds = np.cumsum([0] + [size + 1] * extra_n + [size] * (parts - extra_n))
    else:
        cuts = [
            builtins.min(builtins.max(operator.index(i) % n if i < 0 else i, 0), n)
            for i in np.asarray(sections).tolist()
        ]
        bounds = np.array([0, *cuts, n])
    if np.all(np.diff(bounds) >= 0):  # JAX's `split` primitive, sizes as np.int64s
        return list(lax.split(ary, [np.int64(d) for d in np.diff(bounds)], axis))
    shape = _aval(ary).shape
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        hi = builtins.max(int(lo), int(hi))
        start = tuple(int(lo) if d == axis else 0 for d in range(len(shape)))
        limit = tuple(hi if d == axis else s for d, s in enumerate(shape))
        out.append(lax.slice(ary, start, limit))
    return out


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """Like `jax.numpy.split`."""
    return _split("split", ary, indices_or_sections, axis, even=True)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """Like `jax.numpy.array_split` (the first parts one longer when uneven)."""
    return _split("array_split", ary, indices_or_sections, axis, even=False)


def hsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """Like `jax.numpy.hsplit`."""
    ary = creation.asarray(ary)
    return split(ary, indices_or_sections, axis=0 if _aval(ary).ndim == 1 else 1)


def vsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """Like `jax.numpy.vsplit`."""
    return split(ary, indices_or_sections, axis=0)  # a vector too, as JAX's


def dsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    """Like `jax.numpy.dsplit`."""
    return split(ary, indices_or_sections, axis=2)  # fewer axes: an AxisError (an IndexError)


def unstack(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
    """The slices along `axis`, as a tuple. Like `jax.numpy.unstack`."""
    x = creation.asarray(x)
    if _aval(x).ndim == 0:
        raise ValueError(
            "Unstack requires arrays with rank > 0, however a scalar array was passed."
        )
    axis = axis_args.canonical_axis(axis, _aval(x).ndim)
    return lax.unstack(x, axis)  # JAX's `unstack` primitive


def matrix_transpose(x: Any, /) -> Any:
    """Swap the last two axes. Like `jax.numpy.matrix_transpose`."""
    x = creation.asarray(x)
    nd = _aval(x).ndim
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def permute_dims(a: Any, /, axes: tuple[int, ...]) -> Any:
    """Like `jax.numpy.permute_dims`."""
    return manipulation.transpose(a, axes)


# ----------------------------------------------------------------------------- rollaxis


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """Like `jax.numpy.rollaxis`."""
    a = creation.asarray(a)
    n = _aval(a).ndim
    axis = axis_args.canonical_axis(axis, n)
    if not -n <= start <= n:
        raise ValueError(f"{start=} must satisfy {-n}<=start<={n}")
    start = start + n if start < 0 else start
    if start > axis:
        start -= 1
    return manipulation.moveaxis(a, axis, start)


# ----------------------------------------------------------------------------- pad, delete, resize


def _pad_widths(pad_width: Any, ndim: int) -> list[tuple[int, int]]:
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (ndim, 2))
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    return [(int(lo), int(hi)) for lo, hi in widths]


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """Pad each axis: with constants (`lax.pad`), the edge values, or a wrap-around. Like
    `jax.numpy.pad` (modes "constant", "edge", "wrap")."""
    promotion.check_arraylike("pad", array)
    x = creation.asarray(array)
    widths = _pad_widths(pad_width, _aval(x).ndim)
    if mode == "constant":
        value = kwargs.get("constant_values", 0)
        if np.ndim(value) != 0:
            raise NotImplementedError("pad: per-axis constant_values are not supported by didax")
        fill = lax.convert_element_type(creation.asarray(value), _aval(x).dtype, False)
        return lax.pad(x, fill, [(lo, hi, 0) for lo, hi in widths])
    if mode not in ("edge", "wrap"):
        raise NotImplementedError(f"pad: mode={mode!r} is not supported by didax yet")
    for axis, (lo, hi) in enumerate(widths):
        n = _aval(x).shape[axis]
        if lo == hi == 0:
            continue
        if mode == "edge":
            index = np.clip(np.arange(-lo, n + hi), 0, n - 1)
        else:
            index = np.arange(-lo, n + hi) % n
        x = index_take.take(x, creation.asarray(index.astype(np.int32)), axis=axis)
    return x


def delete(
    arr: Any, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False
) -> Any:
    """The array without the entries `obj` (ints, a slice, or a boolean mask) along `axis`.
    Like `jax.numpy.delete` (static `obj`)."""
    promotion.check_arraylike("delete", arr)
    a = creation.asarray(arr)
    if axis is None:
        a, axis = manipulation.ravel(a), 0
    axis = axis_args.canonical_axis(axis, _aval(a).ndim)
    n = _aval(a).shape[axis]
    keep = np.ones(n, bool)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        promotion.check_arraylike("delete", arr, obj)
        where = np.asarray(core.concrete_or_error(obj, "jnp.delete: obj must be static"))
        if where.dtype == np.bool_:
            if where.shape != (n,):
                raise ValueError(
                    "boolean array argument obj to delete must be one dimensional and match the axis length"
                )
            keep = ~where
        else:
            if ((where < -n) | (where >= n)).any():
                raise IndexError(f"index out of bounds for axis {axis} with size {n}")
            keep[where] = False
    return index_take.take(a, creation.asarray(np.flatnonzero(keep).astype(np.int32)), axis=axis)


def resize(a: Any, new_shape: Any) -> Any:
    """The array's entries, repeated as needed, in `new_shape`. Like `jax.numpy.resize`."""
    promotion.check_arraylike("resize", a)
    new_shape = axis_args.shape_tuple(new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    flat = manipulation.ravel(creation.asarray(a))
    total = int(np.prod(new_shape, dtype=np.int64))
    size_in = _aval(flat).shape[0]
    if size_in == 0 or total == 0:
        return creation.zeros(new_shape, _aval(flat).dtype)
    reps = -(-total // size_in)
    flat = tile(flat, reps) if reps > 1 else flat
    return manipulation.reshape(slice_axis(flat, 0, total, 0), new_shape)


# The `Array` methods of this module's functions (`x.ptp()` is `ptp(x)`); `didax/numpy/__init__.py`
# puts them in `core.operator_table`.
METHODS = {
    "repeat": repeat,
    "matrix_transpose": matrix_transpose,
}
