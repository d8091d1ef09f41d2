"""NumPy indexing on didax arrays: `x[idx]` and `x.at[idx].set/add/.../get/apply`.

Layer 5, after the family modules (`methods` last). An index expression is parsed once
(ints, slices with any step, None, `...`, integer arrays, boolean masks), then lowered the
way JAX 0.10.2's `jax.numpy` lowers it, so the jaxprs read alike: static ints and slices
become `slice`, `rev`, `squeeze`, `broadcast_in_dim`; scalar array indices a
`dynamic_slice`; everything else one `gather` (NumPy's placement of advanced-index axes
included). `.at[...]` updates are one `scatter*`. Boolean masks need concrete values, as in
JAX (`NonConcreteBooleanIndexError` under `jit`). Out of bounds: `x[i]` clamps, `.at[].get`
clamps unless `mode="fill"`, updates drop out-of-bounds entries.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from didax import array, core, dtypes, lax
from didax.array import Array
from didax.interpreters import staging
from didax.numpy import axis_args, creation, inner_jit, manipulation, promotion, ufuncs
from didax.primitives import slicing
from didax.primitives.slicing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
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
    if rev_axes:
        out = lax.rev(out, rev_axes)
    if squeeze_axes:
        out = lax.squeeze(out, squeeze_axes)
    if new_axes:
        out = lax.expand_dims(out, new_axes)
    return out


# ----------------------------------------------------------------------------- gather


@dataclass(frozen=True)
class _GatherPlan:
    slice_shape: tuple[int, ...]  # the shape of x[idx]
    gather_slice_shape: tuple[int, ...]
    indices: Any
    dnums: GatherDimensionNumbers
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: tuple[int, ...]
    newaxis_dims: tuple[int, ...]
    scalar_bool_dims: tuple[int, ...]  # axes to add to x first (`x[True]` indexes a new axis)


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


# ----------------------------------------------------------------------------- take


def _take(
    a: Any,
    indices: Any,
    axis: int | None,
    mode: Any,
    unique_indices: bool,
    indices_are_sorted: bool,
    fill_value: Any,
) -> Any:
    if axis is None:
        a = manipulation.reshape(a, (-1,))
        axis = 0
    shape = core.get_aval(a).shape
    axis = axis_args.canonical_axis(axis, len(shape))
    n = shape[axis]
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        indices = ufuncs.where(ufuncs.less(indices, 0), ufuncs.add(indices, n), indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = ufuncs.remainder(
            indices, lax.convert_element_type(n, core.get_aval(indices).dtype)
        )
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    index_dims = core.get_aval(indices).ndim
    out_shape = shape[:axis] + core.get_aval(indices).shape + shape[axis + 1 :]
    if n == 0:
        if core.get_aval(indices).size:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return lax.full(out_shape, 0, core.get_aval(a).dtype)
    slice_sizes = list(shape)
    slice_sizes[axis] = 1
    dnums = GatherDimensionNumbers(
        offset_dims=(*range(axis), *range(axis + index_dims, len(shape) + index_dims - 1)),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
    )
    return slicing.gather(
        a,
        lax.expand_dims(indices, (index_dims,)),
        dnums,
        slice_sizes,
        mode=gather_mode,
        fill_value=fill_value,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
    )


_take_jit = inner_jit.inner_jit(_take, "_take", static_argnums=(2, 3, 4, 5, 6))


def take(
    a: Any,
    indices: Any,
    axis: int | None = None,
    out: None = None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> Any:
    """Elements of `a` at `indices` along `axis` (of the flattened `a` when None). Like
    `jax.numpy.take`: out-of-bounds indices fill with NaN (the dtype's minimum for
    integers) unless `mode="clip"` or `"wrap"`."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    promotion.check_arraylike("take", a, indices)
    a, indices = creation.asarray(a), creation.asarray(indices)
    if not dtypes.is_int(core.get_aval(indices).dtype):
        raise TypeError(f"take: indices must be integers, got {core.get_aval(indices).dtype}")
    return _take_jit(a, indices, axis, mode, unique_indices, indices_are_sorted, fill_value)


def _take_along_axis(arr: Any, indices: Any, axis: int | None, mode: Any, fill_value: Any) -> Any:
    if axis is None:
        if core.get_aval(indices).ndim != 1:
            raise ValueError(
                "take_along_axis indices must be 1D if axis=None, got shape "
                f"{core.get_aval(indices).shape}"
            )
        arr = manipulation.reshape(arr, (-1,))
        axis = 0
    a_shape, idx_shape = core.get_aval(arr).shape, core.get_aval(indices).shape
    rank = len(a_shape)
    if len(idx_shape) != rank:
        raise ValueError(
            f"indices and arr must have the same number of dimensions; {len(idx_shape)} vs. {rank}"
        )
    axis = axis_args.canonical_axis(axis, rank)
    arr_shape = a_shape[:axis] + (1,) + a_shape[axis + 1 :]
    out_shape = np.broadcast_shapes(idx_shape, arr_shape)
    if a_shape[axis] == 0:
        return lax.full(out_shape, 0, core.get_aval(arr).dtype)
    indices = lax.convert_element_type(indices, dtypes.int32)
    if mode != "promise_in_bounds":
        indices = _normalize(_Index("array", indices), a_shape[axis]).value
    index_dims = [i for i, n in enumerate(idx_shape) if i == axis or n != 1]
    indices = lax.reshape(indices, (*(out_shape[i] for i in index_dims), 1))
    slice_sizes, offset_dims, squeeze, batch_operand, batch_indices = [], [], [], [], []
    new_i = j = 0
    for i in range(rank):
        if i == axis:  # the indexed axis: collapsed, read at the index
            slice_sizes.append(1)
            index_axis = new_i
            new_i += 1
            j += 1
        elif idx_shape[i] == 1:  # the whole axis of `arr`
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:  # `arr` broadcasts along the indices: drop its axis
            squeeze.append(i)
            j += 1
        else:  # matched one to one: a batching dimension
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            batch_operand.append(new_i)
            batch_indices.append(j)
            new_i += 1
            j += 1
    if squeeze:
        arr = lax.squeeze(arr, squeeze)
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=(index_axis,),
        start_index_map=(index_axis,),
        operand_batching_dims=tuple(batch_operand),
        start_indices_batching_dims=tuple(batch_indices),
    )
    return slicing.gather(
        arr,
        indices,
        dnums,
        tuple(slice_sizes),
        mode="fill" if mode is None else mode,
        fill_value=fill_value,
    )


_take_along_axis_jit = inner_jit.inner_jit(
    _take_along_axis, "take_along_axis", static_argnums=(2, 3, 4)
)


def take_along_axis(
    arr: Any,
    indices: Any,
    axis: int | None = -1,
    mode: Any = None,
    fill_value: Any = None,
) -> Any:
    """`arr` read at `indices` along `axis`, the other axes matched one to one (as
    `argsort`'s output indexes its input). Like `jax.numpy.take_along_axis`."""
    promotion.check_arraylike("take_along_axis", arr, indices)
    arr, indices = creation.asarray(arr), creation.asarray(indices)
    if not dtypes.is_int(core.get_aval(indices).dtype):
        raise TypeError(
            f"take_along_axis: indices must be integers, got {core.get_aval(indices).dtype}"
        )
    return _take_along_axis_jit(arr, indices, axis, mode, fill_value)


# ----------------------------------------------------------------------------- scatter


def _scatter(
    x: Any,
    index: Any,
    y: Any,
    op: Callable[..., Any],
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: Any,
) -> Any:
    x = creation.asarray(x)
    x_aval = core.get_aval(x)
    if (
        isinstance(y, int)
        and not isinstance(y, bool)
        and x_aval.dtype.kind in "iu"
        and np.iinfo(x_aval.dtype).min <= y <= np.iinfo(x_aval.dtype).max
    ):
        y = creation.asarray(y, x_aval.dtype)
    else:
        y = creation.asarray(y)
    entries = parse(index, x_aval.shape)
    _check_bool_shapes(entries, x_aval.shape)
    plan = _gather_plan(_expand_bool(entries), x_aval.shape)
    if 0 in plan.slice_shape:
        return x
    x, y = promotion.promote("scatter", x, y)
    y = promotion.broadcast_to(y, plan.slice_shape)
    if plan.newaxis_dims:
        y = lax.squeeze(y, plan.newaxis_dims)
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    if plan.scalar_bool_dims:
        x = lax.expand_dims(x, plan.scalar_bool_dims)
    dnums = ScatterDimensionNumbers(
        update_window_dims=plan.dnums.offset_dims,
        inserted_window_dims=plan.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=plan.dnums.start_index_map,
    )
    out = op(
        x,
        plan.indices,
        y,
        dnums,
        indices_are_sorted=plan.indices_are_sorted or indices_are_sorted,
        unique_indices=plan.unique_indices or unique_indices,
        mode=mode,
    )
    if plan.scalar_bool_dims:
        out = lax.squeeze(out, plan.scalar_bool_dims)
    return lax.convert_element_type(out, x_aval.dtype, x_aval.weak_type)


class _IndexUpdateRef:
    """`x.at[idx]`: the functional updates of `x` at `idx`. Like JAX's `_IndexUpdateRef`."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
        fill_value: Any = None,
        out_sharding: Any = None,
    ) -> Any:
        """`x[idx]`; out-of-bounds indices clamp unless `mode="fill"`."""
        if fill_value is not None and np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        if isinstance(fill_value, np.ndarray):
            fill_value = fill_value.item()
        return rewriting_take(
            self.array,
            self.index,
            mode=mode,
            fill_value=fill_value,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )

    def _update(self, op: Callable[..., Any], values: Any, kwargs: dict) -> Any:
        return _scatter(
            self.array,
            self.index,
            values,
            op,
            kwargs.get("indices_are_sorted", False),
            kwargs.get("unique_indices", False),
            kwargs.get("mode"),
        )

    def set(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] = values`, functionally."""
        return self._update(slicing.scatter, values, kwargs)

    def add(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] += values` (repeated indices accumulate)."""
        return self._update(slicing.scatter_add, values, kwargs)

    def subtract(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] -= values`."""
        return self._update(slicing.scatter_sub, values, kwargs)

    def multiply(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] *= values`."""
        return self._update(slicing.scatter_mul, values, kwargs)

    mul = multiply

    def divide(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] /= values`."""
        x = self.array
        ones = creation.ones_like(x)
        return ufuncs.divide(x, _IndexUpdateRef(ones, self.index).multiply(values, **kwargs))

    def power(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] **= values`."""
        x = self.array
        ones = creation.ones_like(x)
        return ufuncs.power(x, _IndexUpdateRef(ones, self.index).multiply(values, **kwargs))

    def min(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] = minimum(x[idx], values)`."""
        return self._update(slicing.scatter_min, values, kwargs)

    def max(self, values: Any, **kwargs: Any) -> Any:
        """`x[idx] = maximum(x[idx], values)`."""
        return self._update(slicing.scatter_max, values, kwargs)

    def apply(self, func: Callable[[Any], Any], **kwargs: Any) -> Any:
        """`x[idx] = func(x[idx])`, `func` applied once per occurrence of an index: one
        `scatter` carrying `func`'s jaxpr, as JAX's. Not differentiable (as in JAX)."""
        dtype = core.get_aval(creation.asarray(self.array)).dtype
        scalar = core.ShapedArray((), dtype)
        closed = staging.trace_to_jaxpr(lambda v, _: [func(v)], [scalar, scalar])
        if closed.consts:
            raise NotImplementedError(
                "didax: .at[].apply of a function closing over arrays is not supported"
            )

        def op(x: Any, indices: Any, y: Any, dnums: Any, **options: Any) -> Any:
            update_shape = core.get_aval(y).shape
            return slicing.scatter_apply(
                x, indices, closed.jaxpr, dnums, update_shape=update_shape, **options
            )

        zero = lax.convert_element_type(0, dtype)
        return self._update(op, zero, kwargs)


class _IndexUpdateHelper:
    """`x.at`: index it (`x.at[idx]`) to update `x` at `idx`. Like JAX's `x.at`."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


OPERATORS = {"getitem": getitem, "at": _IndexUpdateHelper, "take": take}

__all__ = ["take", "take_along_axis"]
