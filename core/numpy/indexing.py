"""NumPy indexing on didax arrays: `x[idx]`.

Layer 5, after the family modules (`methods` last). An index expression is parsed once
(ints, slices with any step, None, `...`, integer arrays, boolean masks), then lowered the
way JAX 0.10.2's `jax.numpy` lowers it, so the jaxprs read alike: static ints and slices
become `slice`, `rev`, `squeeze`, `broadcast_in_dim`; scalar array indices a
`dynamic_slice`; everything else one `gather` (NumPy's placement of advanced-index axes
included). `take` and `.at[...]` updates (one `scatter*`) are in `index_take.py` and
`index_update.py`, built on the parsing and gather plan here. Boolean masks need concrete values, as in
JAX (`NonConcreteBooleanIndexError` under `jit`). Out of bounds: `x[i]` clamps, `.at[].get`
clamps unless `mode="fill"`, updates drop out-of-bounds entries.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from didax import array, core, dtypes, lax
from didax.array import Array
from didax.numpy import creation, promotion, ufuncs
from didax.primitives import slicing
from didax.primitives.slicing import (
    GatherDimensionNumbers,
    GatherScatterMode,
)


class NonConcreteBooleanIndexError(IndexError):
    """A boolean mask index whose value is not known while tracing. Like
    `jax.errors.NonConcreteBooleanIndexError`."""


# ----------------------------------------------------------------------------- parsing


class _Index(NamedTuple):
    kind: str  # "int", "array", "bool", "slice", "none", "ellipsis"; "scalar_bool" (gather)
    value: Any
    axes: tuple[int, ...] = ()  # the axes of the indexed array it consumes


def _basic(index: Any, shape: tuple[int, ...]) -> list[_Index] | None:
    """The fast path of `parse` for what eager code indexes with most: Python ints and
    slices of Python ints (no None, `...` or arrays); None for anything else."""
    entries = []
    for axis, i in enumerate(index if type(index) is tuple else (index,)):
        t = type(i)
        if t is int:
            entries.append(_Index("int", i, (axis,)))
        elif t is builtins.slice and all(
            type(v) is int or v is None for v in (i.start, i.stop, i.step)
        ):
            if i.step == 0:
                return None
            entries.append(_Index("slice", i, (axis,)))
        else:
            return None
    return entries if len(entries) <= len(shape) else None


def _is_array(i: Any) -> bool:
    return isinstance(i, (core.Tracer, Array, np.ndarray))


def _static_int(v: Any, what: Any, position: int) -> int | None:
    if v is None:
        return None
    if isinstance(v, core.Tracer) and v.to_concrete_value() is None:
        raise IndexError(
            f"Slice entries must be static integers. Got {what} at position {position}"
        )
    try:
        return operator.index(v)
    except TypeError:
        raise IndexError(
            f"Slice entries must be static integers. Got {what} at position {position}"
        ) from None


def _classify(i: Any, position: int) -> _Index:
    if i is None:
        return _Index("none", None)
    if i is Ellipsis:
        return _Index("ellipsis", None)
    if isinstance(i, builtins.slice):
        start, stop, step = (_static_int(v, i, position) for v in (i.start, i.stop, i.step))
        if step == 0:
            raise ValueError("slice step cannot be zero")
        return _Index("slice", builtins.slice(start, stop, step))
    if isinstance(i, (bool, np.bool_)):
        return _Index("bool", np.asarray(i))
    if isinstance(i, (int, np.integer)):
        return _Index("int", i)
    if isinstance(i, str):
        raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
    if isinstance(i, (list, tuple)):
        i = creation.asarray(i)  # as JAX: a didax array (traced comparisons, not NumPy's)
    if _is_array(i):
        dtype = i.dtype
        if dtype == np.bool_:
            return _Index("bool", i)
        if dtypes.is_int(dtypes.canonicalize(dtype)):
            return _Index("array", i)
    dtype = i.dtype if hasattr(i, "dtype") else np.asarray(i).dtype
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype}")


def _as_tuple(index: Any) -> tuple[Any, ...]:
    if isinstance(index, tuple):
        return index
    if isinstance(index, list):
        unpack = any(
            (_is_array(i) and np.ndim(i))
            or isinstance(i, (Sequence, builtins.slice))
            or i is Ellipsis
            or i is None
            for i in index
        )
        raise TypeError(
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            + ("`arr[tuple(seq)]`" if unpack else "`arr[array(seq)]`")
            + " instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more "
            "information."
        )
    return (index,)


def parse(index: Any, shape: tuple[int, ...]) -> list[_Index]:
    """The index as a list of entries, each knowing which axes of `shape` it consumes."""
    entries = [_classify(i, p) for p, i in enumerate(_as_tuple(index))]
    consumed = [
        np.ndim(e.value) if e.kind == "bool" else (e.kind not in ("none", "ellipsis"))
        for e in entries
    ]
    n_ellipsis = builtins.sum(e.kind == "ellipsis" for e in entries)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = builtins.sum(consumed)
    if total > len(shape):
        raise IndexError(
            f"Too many indices: array is {len(shape)}-dimensional, but {total} were indexed"
        )
    out, axis = [], 0
    for e, n in zip(entries, consumed, strict=True):
        if e.kind == "ellipsis":
            n = len(shape) - total
        out.append(_Index(e.kind, e.value, tuple(range(axis, axis + n))))
        axis += n
    return out


def _expand_ellipsis(entries: list[_Index], ndim: int) -> list[_Index]:
    if len(entries) == ndim and all(len(e.axes) == 1 and e.kind != "ellipsis" for e in entries):
        return entries  # one entry per axis already
    out = []
    for e in entries:
        if e.kind == "ellipsis":
            out.extend(_Index("slice", builtins.slice(None), (a,)) for a in e.axes)
        else:
            out.append(e)
    used = builtins.sum(len(e.axes) for e in entries)
    out.extend(_Index("slice", builtins.slice(None), (a,)) for a in range(used, ndim))
    return out


# ----------------------------------------------------------------------------- static slicing


_STATIC_KINDS = frozenset(("int", "slice", "none", "ellipsis"))


def _split_partially(x: Any, entries: list[_Index]) -> bool:
    """Whether `x` is an Array on several devices indexed in part (an int, or a slice that
    is not the whole axis in steps of 1): JAX 0.10.2 then indexes by `gather`, not by
    `slice`/`dynamic_slice` (which would keep the operand's sharding on a smaller result)."""
    if type(x) is not Array or not array.on_devices(x):
        return False
    shape = x.shape
    for e in entries:
        if e.kind == "int":
            return True
        if e.kind == "slice":
            n = shape[e.axes[0]]
            start, stop, step = e.value.indices(n)
            if builtins.abs(step) != 1 or builtins.abs(stop - start) != n:
                return True
    return False


def _static_slice(x: Any, entries: list[_Index], mode: GatherScatterMode) -> Any:
    """`x[idx]` by `slice`/`rev`/`squeeze`/`broadcast_in_dim`, or None when `idx` is not
    made of static ints (in bounds unless clipping) and slices."""
    shape = core.get_aval(x).shape
    clip = mode is GatherScatterMode.CLIP
    starts, limits, strides, rev_axes, squeeze_axes, new_axes = [], [], [], [], [], []
    for e in _expand_ellipsis(entries, len(shape)):
        kind = e.kind
        if kind not in _STATIC_KINDS:
            return None
        if kind == "none":
            new_axes.append(len(starts) - len(squeeze_axes) + len(new_axes))
            continue
        axis = e.axes[0]
        n = shape[axis]
        if kind == "int":
            i = int(e.value)
            i = i + n if i < 0 else i
            if not 0 <= i < n:
                if not clip:
                    return None  # JAX then takes the dynamic_slice path, which clamps
                if n == 0:
                    raise IndexError(f"index is out of bounds for axis {axis} with size 0")
                i = builtins.min(builtins.max(i, 0), n - 1)
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeeze_axes.append(axis)
            continue
        start, stop, step = e.value.indices(n)
        if step < 0:
            new_start = builtins.min(n, stop + 1 + builtins.abs(start - stop - 1) % -step)
            starts.append(new_start)
            limits.append(builtins.max(new_start, start + 1))
            strides.append(-step)
            rev_axes.append(axis)
        else:
            starts.append(start)
            limits.append(builtins.max(start, stop))
            strides.append(step)
    out = x
    unit = strides.count(1) == len(strides)
    sliced = not unit or starts.count(0) != len(starts) or tuple(limits) != shape
    # (an eager Array with a host value is on NumPy's path: not tested further)
    if (sliced or squeeze_axes) and type(x) is Array and x._value is None:
        if _split_partially(x, entries):
            return None
    if sliced:
        out = lax.slice(out, starts, limits, None if unit else strides)
    return _reshape_view(out, rev_axes, squeeze_axes, new_axes)


def _reshape_view(out: Any, rev_axes: list, squeeze_axes: list, new_axes: list) -> Any:
    # what a basic index does after its slice: flip the negative-step axes, drop the integer
    # ones, insert the None ones
    if rev_axes:
        out = lax.rev(out, rev_axes)
    if squeeze_axes:
        out = lax.squeeze(out, squeeze_axes)
    if new_axes:
        out = lax.expand_dims(out, new_axes)
    return out


# ----------------------------------------------------------------------------- dynamic slicing


def _dynamic_slice(x: Any, entries: list[_Index]) -> Any:
    """`x[idx]` by one `dynamic_slice` when `idx` has scalar array indices and unit-step
    slices only, or None."""
    shape = core.get_aval(x).shape
    if _split_partially(x, entries):
        return None
    for e in entries:
        if e.kind in ("bool",) or (e.kind == "array" and np.ndim(e.value)):
            return None
        if e.kind == "slice" and e.value.step not in (None, 1, -1):
            return None
    starts: list[Any] = []
    sizes, rev_axes, squeeze_axes, new_axes = [], [], [], []
    trivial = True
    for e in _expand_ellipsis(entries, len(shape)):
        if e.kind == "none":
            new_axes.append(len(starts) - len(squeeze_axes) + len(new_axes))
            continue
        (axis,) = e.axes
        n = shape[axis]
        if e.kind in ("int", "array"):
            if n == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            trivial = False
            starts.append(creation.asarray(e.value))
            sizes.append(1)
            squeeze_axes.append(axis)
            continue
        if e.value != builtins.slice(None):
            trivial = False
        start, stop, step = e.value.indices(n)
        if step < 0:
            new_start = stop + 1 + builtins.abs(start - stop - 1) % -step
            starts.append(new_start)
            sizes.append(builtins.max(0, start + 1 - new_start))
            rev_axes.append(axis)
        else:
            starts.append(start)
            sizes.append(builtins.max(0, stop - start))
    if len(starts) > 1:
        starts = [lax.convert_element_type(i, dtypes.int32) for i in starts]
    out = x if trivial else slicing.dynamic_slice(x, starts, sizes)
    return _reshape_view(out, rev_axes, squeeze_axes, new_axes)


# ----------------------------------------------------------------------------- gather


class _GatherPlan:
    # a plain class: a frozen dataclass cost ~0.6 ms of `import didax`
    __slots__ = (
        "slice_shape",
        "gather_slice_shape",
        "indices",
        "dnums",
        "unique_indices",
        "indices_are_sorted",
        "reversed_y_dims",
        "newaxis_dims",
        "scalar_bool_dims",
    )

    def __init__(
        self,
        *,
        slice_shape: tuple[int, ...],  # the shape of x[idx]
        gather_slice_shape: tuple[int, ...],
        indices: Any,
        dnums: GatherDimensionNumbers,
        unique_indices: bool,
        indices_are_sorted: bool,
        reversed_y_dims: tuple[int, ...],
        newaxis_dims: tuple[int, ...],
        scalar_bool_dims: tuple[int, ...],  # axes to add to x first (`x[True]`: a new axis)
    ) -> None:
        self.slice_shape, self.gather_slice_shape = slice_shape, gather_slice_shape
        self.indices, self.dnums = indices, dnums
        self.unique_indices, self.indices_are_sorted = unique_indices, indices_are_sorted
        self.reversed_y_dims, self.newaxis_dims = reversed_y_dims, newaxis_dims
        self.scalar_bool_dims = scalar_bool_dims


def _expand_scalar_bools(
    entries: list[_Index], shape: tuple[int, ...]
) -> tuple[list[_Index], tuple[int, ...], tuple[int, ...]]:
    """Each scalar boolean becomes an index array (`[0]` or `[]`) into a new size-1 axis,
    inserted at the boolean's position in the index, as JAX does."""
    dims = tuple(n for n, e in enumerate(entries) if e.kind == "scalar_bool")
    if not dims:
        return entries, shape, dims
    new_shape, out, axis = list(shape), [], 0
    for n, e in enumerate(entries):
        if e.kind == "scalar_bool":
            new_shape.insert(n, 1)
            out.append(_Index("array", np.arange(int(e.value), dtype=np.int32), (axis,)))
            axis += 1
        else:
            out.append(e._replace(axes=tuple(range(axis, axis + len(e.axes)))))
            axis += len(e.axes)
    return out, tuple(new_shape), dims


def _expand_bool(entries: list[_Index]) -> list[_Index]:
    out = []
    for e in entries:
        if e.kind != "bool":
            out.append(e)
            continue
        value = e.value
        if isinstance(value, core.Tracer):
            value = value.to_concrete_value()
            if value is None:
                raise NonConcreteBooleanIndexError(
                    f"Array boolean indices must be concrete; got {e.value.aval.str_short()}"
                )
        value = np.asarray(value)
        if value.ndim == 0:  # kept for `_gather_plan`, which gives it a new axis
            out.append(_Index("scalar_bool", bool(value), ()))
            continue
        out.extend(
            _Index("array", nz.astype(np.int32), (a,))
            for nz, a in zip(np.nonzero(value), e.axes, strict=True)
        )
    return out


def _check_bool_shapes(entries: list[_Index], shape: tuple[int, ...]) -> None:
    for position, e in enumerate(entries):
        if e.kind == "bool" and np.ndim(e.value):
            expected = [shape[a] for a in e.axes]
            got = np.shape(e.value)
            if not all(s1 in (0, s2) for s1, s2 in zip(got, expected, strict=True)):
                raise IndexError(
                    "boolean index did not match shape of indexed array in index "
                    f"{position}: got {got}, expected {expected}"
                )


def _normalize(e: _Index, n: int) -> _Index:
    """Negative indices counted from the end, as JAX stages it (NumPy index arrays are
    compared in NumPy, traced ones with `lt`)."""
    if e.kind == "int":
        i = e.value
        return e if isinstance(i, np.unsignedinteger) or i >= 0 else _Index("int", i + n, e.axes)
    dtype = dtypes.canonicalize(e.value.dtype)
    if dtype.kind == "u":
        return e
    weak = core.get_aval(e.value).weak_type  # the size takes the index's weak type, as in JAX
    size = n if weak and dtype == dtypes.int32 else lax.convert_element_type(n, dtype)
    if isinstance(e.value, np.ndarray):
        negative = np.asarray(e.value < 0)
        value = e.value.astype(dtype)
    else:
        negative = ufuncs.less(e.value, 0)
        value = e.value
    return _Index("array", lax.select_n(negative, value, lax.add(value, size)), e.axes)


def _gather_plan(entries: list[_Index], shape: tuple[int, ...]) -> _GatherPlan:
    is_adv = [i for i, e in enumerate(entries) if e.kind in ("array", "int")]
    contiguous = all(b - a == 1 for a, b in zip(is_adv, is_adv[1:]))
    entries = _expand_ellipsis(entries, len(shape))
    entries, shape, scalar_bool_dims = _expand_scalar_bools(entries, shape)
    entries = [
        e if e.kind not in ("int", "array") else _normalize(e, shape[e.axes[0]]) for e in entries
    ]
    advanced = any(e.kind == "array" and np.ndim(e.value) for e in entries)
    adv_positions, adv_arrays, adv_axes = [], [], []
    if advanced:
        for p, e in enumerate(entries):
            if e.kind in ("array", "int"):
                adv_positions.append(p)
                adv_arrays.append(e.value)
                adv_axes.append(e.axes[0])
    offset_dims, collapsed, start_index_map = [], [], []
    gather_indices: list[tuple[Any, int]] = []
    gather_indices_shape: list[int] = []
    slice_shape, newaxis_dims, reversed_y_dims, gather_slice_shape = [], [], [], []
    y_axis = collapsed_y_axis = 0
    for p, e in enumerate(entries):
        if advanced and p == (adv_positions[0] if contiguous else 0):
            arrays = [creation.asarray(a) for a in adv_arrays]
            bshape = np.broadcast_shapes(*(core.get_aval(a).shape for a in arrays))
            arrays = [
                a if core.get_aval(a).shape == bshape else promotion.broadcast_to(a, bshape)
                for a in arrays
            ]
            start = len(gather_indices_shape)
            gather_indices.extend(
                (lax.convert_element_type(a, dtypes.int32), start) for a in arrays
            )
            gather_indices_shape += bshape
            start_index_map.extend(adv_axes)
            collapsed.extend(adv_axes)
            slice_shape.extend(bshape)
            y_axis += len(bshape)
            collapsed_y_axis += len(bshape)
        if p in adv_positions:
            gather_slice_shape.append(1)
            continue
        if e.kind in ("int", "array"):  # a scalar index among basic ones
            (axis,) = e.axes
            if shape[axis] == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            gather_indices.append(
                (lax.convert_element_type(e.value, dtypes.int32), len(gather_indices_shape))
            )
            collapsed.append(axis)
            gather_slice_shape.append(1)
            start_index_map.append(axis)
        elif e.kind == "none":
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        else:
            (axis,) = e.axes
            start, stop, step = e.value.indices(shape[axis])
            size = len(range(start, stop, step))
            slice_shape.append(size)
            if step == 1:
                if size != shape[axis]:
                    gather_indices.append(
                        (lax.convert_element_type(start, dtypes.int32), len(gather_indices_shape))
                    )
                    start_index_map.append(axis)
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                iota = lax.iota(dtypes.int32, size)
                indices = ufuncs.add(
                    creation.array(start, dtypes.int32),
                    ufuncs.multiply(creation.array(step, dtypes.int32), iota),
                )
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    indices = lax.rev(indices, (0,))
                gather_slice_shape.append(1)
                gather_indices.append((indices, len(gather_indices_shape)))
                start_index_map.append(axis)
                gather_indices_shape.append(size)
                collapsed.append(axis)
            collapsed_y_axis += 1
            y_axis += 1
    if not gather_indices:
        indices: Any = np.zeros((0,), np.int32)
    elif len(gather_indices) == 1:
        g = gather_indices[0][0]
        indices = lax.expand_dims(g, (core.get_aval(g).ndim,))
    else:
        last = len(gather_indices_shape)
        full_shape = (*gather_indices_shape, 1)
        indices = lax.concatenate(
            [
                lax.broadcast_in_dim(g, full_shape, tuple(range(i, i + core.get_aval(g).ndim)))
                for g, i in gather_indices
            ],
            last,
        )
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(sorted(collapsed)),
        start_index_map=tuple(start_index_map),
    )
    return _GatherPlan(
        slice_shape=tuple(slice_shape),
        gather_slice_shape=tuple(gather_slice_shape),
        indices=indices,
        dnums=dnums,
        unique_indices=not advanced,
        indices_are_sorted=not advanced,
        reversed_y_dims=tuple(reversed_y_dims),
        newaxis_dims=tuple(newaxis_dims),
        scalar_bool_dims=scalar_bool_dims,
    )


def _gather(
    x: Any,
    entries: list[_Index],
    mode: Any,
    fill_value: Any,
    indices_are_sorted: bool,
    unique_indices: bool,
) -> Any:
    shape = core.get_aval(x).shape
    _check_bool_shapes(entries, shape)
    plan = _gather_plan(_expand_bool(entries), shape)
    y = lax.expand_dims(x, plan.scalar_bool_dims) if plan.scalar_bool_dims else x
    if 0 in plan.slice_shape:
        return lax.full(plan.slice_shape, 0, core.get_aval(x).dtype)
    if 0 not in core.get_aval(plan.indices).shape:
        y = slicing.gather(
            y,
            plan.indices,
            plan.dnums,
            plan.gather_slice_shape,
            unique_indices=unique_indices or plan.unique_indices,
            indices_are_sorted=indices_are_sorted or plan.indices_are_sorted,
            mode=mode,
            fill_value=fill_value,
        )
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    return lax.expand_dims(y, plan.newaxis_dims) if plan.newaxis_dims else y


def rewriting_take(
    x: Any,
    index: Any,
    *,
    mode: Any = None,
    fill_value: Any = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """`x[index]` with JAX's options (what `x.at[index].get(...)` computes)."""
    x = creation.asarray(x)
    shape = core.get_aval(x).shape
    entries = _basic(index, shape) if mode is None else None
    if entries is None:
        entries = parse(index, shape)
    parsed = (
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    )
    if parsed in (GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        out = _static_slice(x, entries, parsed)
        if out is None:
            out = _dynamic_slice(x, entries)
        if out is not None:
            return out
    return _gather(x, entries, mode, fill_value, indices_are_sorted, unique_indices)


def getitem(x: Any, index: Any) -> Any:
    """`x[index]`: NumPy's basic and advanced indexing. Like `jax.Array.__getitem__`."""
    entries = _basic(index, core.get_aval(x).shape)
    if entries is not None:  # the common eager case, straight to the static path
        out = _static_slice(x, entries, GatherScatterMode.PROMISE_IN_BOUNDS)
        if out is not None:
            return out
    return rewriting_take(x, index)
