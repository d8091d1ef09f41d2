"""Mutable arrays: the `Ref` object and the primitives that make, read and write it, with
JAX 0.10.2's names and jaxpr text: `new_ref`, `empty_ref`, `get` (`c:f32[3] <- b[...]`),
`swap` (`b[1] <- v`, or `d:f32[], b[0] <- b[0], v` when the old value is read), `addupdate`
(`b[1,:] += v`), `freeze` and `free_ref`.

Layer 2 (`didax.primitives`). A `Ref` made eagerly holds an Array that its primitives' impl
rules replace (`core.stateful`: they take the Ref itself); staged, a ref is a variable of
type `Ref{f32[3]}` (`ref_types.py`) and its reads and writes are equations. `new_ref` is
bound by the innermost interpreter (`core.allocating`, JAX's ambient trace). Under `vmap`
a ref made inside the function, even from a constant, is a ref of the whole batch (on axis
0), read and written through a leading `:` (`b[:,0] <- v`, as JAX's); a batched index reads
it at the batch's own position. Under `jvp` it is a *box*: a `Ref` whose value may be a
tracer, which reads and writes update functionally (`x[idx]`, `x.at[idx].set(v)`), and the
box of its tangent lives in the tangent's place (so no ref reaches a linear program).
Compiled programs see no refs: `interpreters/discharge.py` turns the reads and writes into
those same functional updates. Writing a differentiated or batched value into a ref made
outside the transformation raises JAX's errors. An index is static slices and integer
operands (`RefIndexer`); JAX's other transforms (bitcast, reshape) are not built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from didax import array, core, dtypes
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.jaxpr import Literal, literal_text, pp_eqn_rules
from didax.pretty import concat, text
from didax.primitives.ad_helpers import instantiate
from didax.primitives.convert import convert_element_type
from didax.primitives.creation import broadcasted_iota
from didax.primitives.shape import broadcast_in_dim, move_axis
from didax.ref_types import AbstractRef, is_ref

# --------------------------------------------------------------------------- indices


@dataclass(frozen=True)
class RefSlice:
    """A static slice of one dimension: `size` elements from `start`, `stride` apart."""

    start: int
    size: int
    stride: int

    def python(self) -> slice:
        stop = self.start + (self.size - 1) * self.stride + 1 if self.size else self.start
        return slice(self.start, stop, self.stride)

    def text(self, dim: int) -> str:  # as JAX prints it (the stride is not shown)
        end = self.start + self.size
        return f"{self.start or ''}:{'' if end == dim else end}"


@dataclass(frozen=True)
class RefIndexer:
    """A ref's index, one entry per dimension: a `RefSlice`, or None for an integer index
    (a scalar or an array, all of shape `int_shape`) passed as an operand. Like JAX's
    `NDIndexer`."""

    entries: tuple[RefSlice | None, ...]
    shape: tuple[int, ...]  # the ref's
    int_shape: tuple[int, ...]

    def int_positions(self) -> list[int]:
        return [i for i, e in enumerate(self.entries) if e is None]

    def ints_apart(self) -> bool:
        """Whether the integer indices are not side by side (NumPy then puts their axes
        first in the result; side by side, where they are)."""
        at = self.int_positions()
        return bool(at) and at != list(range(at[0], at[0] + len(at)))

    def result_shape(self) -> tuple[int, ...]:
        at = self.int_positions()
        sizes = tuple(e.size for e in self.entries if e is not None)
        if not at:
            return sizes
        if self.ints_apart():
            return self.int_shape + sizes
        return sizes[: at[0]] + self.int_shape + sizes[at[0] :]

    def python(self, operands: Any) -> tuple:
        it = iter(operands)
        return tuple(next(it) if e is None else e.python() for e in self.entries)

    def __str__(self) -> str:
        return f"NDIndexer({', '.join('int' if e is None else str(e) for e in self.entries)})"


def parse_index(idx: Any, shape: tuple[int, ...]) -> tuple[RefIndexer | None, list[Any]]:
    """`ref[idx]`'s index as a `RefIndexer` (None for the whole ref: `ref[...]`, `ref[()]`)
    and its integer operands."""
    if idx is None or idx is Ellipsis or (type(idx) is tuple and not idx):
        return None, []
    idx = idx if isinstance(idx, tuple) else (idx,)
    if sum(i is Ellipsis for i in idx) > 1:
        raise ValueError("Only one ellipsis is supported.")
    if any(i is Ellipsis for i in idx):
        at = next(k for k, i in enumerate(idx) if i is Ellipsis)
        idx = (*idx[:at], *[slice(None)] * (len(shape) - len(idx) + 1), *idx[at + 1 :])
    if len(idx) > len(shape):
        raise ValueError(f"`indices` must not be longer than `shape`: indices={idx}, {shape=}")
    idx = (*idx, *[slice(None)] * (len(shape) - len(idx)))
    entries: list[RefSlice | None] = []
    operands: list[Any] = []
    for i, dim in zip(idx, shape, strict=True):
        if isinstance(i, slice):
            start, stop, step = i.indices(dim)
            if step < 0:
                raise NotImplementedError(f"a ref's slice with a negative step: {i}")
            entries.append(RefSlice(start, len(range(start, stop, step)), step))
            continue
        aval = core.get_aval(i) if core.is_arraylike(i) else None
        if aval is None or not dtypes.is_int(aval.dtype):
            raise TypeError(f"a ref's index must be a slice or integers, got {i!r}")
        entries.append(None)
        operands.append(i)
    shapes = {core.get_aval(o).shape for o in operands}
    if len(shapes) > 1:
        raise NotImplementedError(f"a ref's integer indices of different shapes: {shapes}")
    return RefIndexer(tuple(entries), tuple(shape), shapes.pop() if shapes else ()), operands


def _batched_indexer(indexer: RefIndexer | None, axis_size: int, shape: tuple) -> RefIndexer:
    # the index into a box holding a batch on axis 0: the whole batch, then the index
    entries = indexer.entries if indexer is not None else tuple(RefSlice(0, d, 1) for d in shape)
    int_shape = indexer.int_shape if indexer is not None else ()
    return RefIndexer((RefSlice(0, axis_size, 1), *entries), (axis_size, *shape), int_shape)


def _batch_dim_after(indexer: RefIndexer) -> int:
    # where the batch axis (a leading full slice) lands in a read through `indexer`
    return len(indexer.int_shape) if indexer.ints_apart() else 0


# --------------------------------------------------------------------------- the Ref object


class Ref:
    """A mutable array (made by `new_ref`). Like `jax.Ref`: `ref[...]` reads it, `ref[idx]`
    reads a part, `ref[idx] = v` writes (same shape and dtype, else JAX's ValueError),
    `ref[idx] += v` updates."""

    __slots__ = ("aval", "_buf", "_box")

    def __init__(self, aval: AbstractRef, buf: Any, box: bool = False) -> None:
        self.aval = aval
        self._buf = buf  # an Array; a box's may be a tracer
        self._box = box  # updated functionally, inside a transformation

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, idx: Any) -> Any:
        return ref_get(self, idx)

    def __setitem__(self, idx: Any, value: Any) -> None:
        ref_swap(self, idx, value)

    def get(self, idx: Any = ()) -> Any:
        return ref_get(self, idx)

    def set(self, value: Any, idx: Any = ()) -> None:
        ref_swap(self, idx, value)

    def swap(self, value: Any, idx: Any = ()) -> Any:
        return ref_swap(self, idx, value)

    def addupdate(self, value: Any, idx: Any = ()) -> None:
        """`ref[idx] += value` in one operation. Like `jax.Ref.addupdate`."""
        ref_addupdate(self, idx, value)

    @property
    def at(self) -> Any:
        raise NotImplementedError("Ref.at is not implemented (as in JAX 0.10.2)")

    def __repr__(self) -> str:
        if self._box:
            return f"Ref({self._buf!r})"
        return "Ref(" + repr(self._buf).removeprefix("Array(")  # (JAX keeps the indentation)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise TypeError(
            "A Ref is not an array: read its value with `ref[...]` (or `freeze(ref)`) first"
        )


def box(value: Any) -> Ref:
    """A ref made inside `jvp` or a discharged program: a box its reads and writes update
    functionally."""
    return Ref(AbstractRef(core.get_aval(value)), value, box=True)


def _is_box(ref: Any) -> bool:
    return type(ref) is Ref and ref._box


# --------------------------------------------------------------------------- new_ref

new_ref_p = core.Primitive("new_ref")
empty_ref_p = core.Primitive("empty_ref")
get_p = core.Primitive("get")
swap_p = core.Primitive("swap")
addupdate_p = core.Primitive("addupdate", multiple_results=True)
freeze_p = core.Primitive("freeze")
free_ref_p = core.Primitive("free_ref", multiple_results=True)
REF_PRIMITIVES = (new_ref_p, empty_ref_p, get_p, swap_p, addupdate_p, freeze_p, free_ref_p)
core.stateful.update(REF_PRIMITIVES)
core.effectful.update(REF_PRIMITIVES)  # dead-code elimination keeps them
core.allocating.add(new_ref_p)  # (`empty_ref`, with no operand, is bound where staging is)


def new_ref_bind(init_val: Any, memory_space: Any = None, kind: Any = None) -> Any:
    return new_ref_p.bind(init_val, memory_space=memory_space, kind=kind)


def _to_array(x: Any, weak_type: bool) -> Any:
    return array.eager_result(np.array(core.to_numpy(x)), weak_type)


@core.impl_rules.register(new_ref_p)
def _new_ref_impl(x, *, memory_space, kind):
    if memory_space is not None:
        raise NotImplementedError("array ref with memory space only works inside of a `jit`.")
    aval = core.get_aval(x)
    return [Ref(AbstractRef(aval), _to_array(x, aval.weak_type))]


@core.abstract_eval_rules.register(new_ref_p)
def _new_ref_abstract_eval(aval, *, memory_space, kind):
    if not isinstance(aval, ShapedArray):
        raise TypeError(f"new_ref: expected an array, got {aval}")
    return [AbstractRef(aval)]


@core.jvp_rules.register(new_ref_p)
def _new_ref_jvp(primals, tangents, *, memory_space, kind):
    # made inside the differentiated function: the primal and the tangent are boxes
    (x,), (x_dot,) = primals, tangents
    return [box(x)], [box(instantiate(x_dot))]


@core.vmap_rules.register(new_ref_p)
def _new_ref_vmap(axis_size, vals, dims, *, memory_space, kind):
    # a ref of the batch (on axis 0), even when its value is not batched (a batched value
    # may be written later), as in JAX; made where its value lives (`bind` would give it to
    # the innermost interpreter, this one)
    (x,), (d,) = vals, dims
    if d is NOT_MAPPED:
        shape = core.get_aval(x).shape
        x = broadcast_in_dim(x, (axis_size, *shape), tuple(range(1, len(shape) + 1)))
    else:
        x = move_axis(x, d, 0, axis_size)
    trace = core.find_top_trace([x])
    params = {"memory_space": memory_space, "kind": kind}
    (ref,) = trace.process_primitive(new_ref_p, [trace.full_raise(x)], params)
    return [core.full_lower(ref)], [0]


@core.impl_rules.register(empty_ref_p)
def _empty_ref_impl(*, ty, memory_space):  # as in JAX: it only stages (a jit's holds zeros)
    raise NotImplementedError("Evaluation rule for 'empty_ref' not implemented")


@core.abstract_eval_rules.register(empty_ref_p)
def _empty_ref_abstract_eval(*, ty, memory_space):
    return [AbstractRef(ty)]


# --------------------------------------------------------------------------- get


def ref_get(ref: Any, idx: Any = ()) -> Any:
    """`ref[idx]`. Like `jax.ref.get`."""
    _check_ref(ref, "ref_get")
    indexer, operands = parse_index(idx, ref.shape)
    return get_bind(ref, operands, indexer)


def get_bind(ref: Any, operands: Any, indexer: RefIndexer | None) -> Any:
    if _is_box(ref):
        return _read(ref._buf, operands, indexer)
    return get_p.bind(ref, *operands, indexer=indexer)


def _read(value: Any, operands: Any, indexer: RefIndexer | None) -> Any:
    return value if indexer is None else value[indexer.python(operands)]


def _check_ref(ref: Any, name: str) -> None:
    if not is_ref(ref):
        raise ValueError(f"Can only call `{name}` on a `Ref`: {ref}.")


def _indexed_aval(ref_aval: AbstractRef, indexer: RefIndexer | None) -> ShapedArray:
    inner = ref_aval.inner_aval
    return inner if indexer is None else inner.update(shape=indexer.result_shape())


@core.impl_rules.register(get_p)
def _get_impl(ref, *operands, indexer):
    if indexer is None:
        return [ref._buf]
    index = indexer.python([core.to_numpy(o) for o in operands])
    return [array.eager_result(np.array(core.to_numpy(ref._buf)[index]), ref.aval.weak_type)]


@core.abstract_eval_rules.register(get_p)
def _get_abstract_eval(ref_aval, *operand_avals, indexer):
    if type(ref_aval) is not AbstractRef:
        raise ValueError(f"`get` must be called on `Ref` types: {ref_aval}.")
    return [_indexed_aval(ref_aval, indexer)]


@core.jvp_rules.register(get_p)
def _get_jvp(primals, tangents, *, indexer):
    (ref, *operands), ref_dot = primals, tangents[0]
    out = get_bind(ref, operands, indexer)
    if isinstance(ref_dot, Zero):
        return [out], [Zero(core.get_aval(out))]
    return [out], [get_bind(ref_dot, operands, indexer)]


@core.vmap_rules.register(get_p)
def _get_vmap(axis_size, vals, dims, *, indexer):
    (ref, *operands), (ref_dim, *operand_dims) = vals, dims
    if any(d is not NOT_MAPPED for d in operand_dims):
        ints, batched, out_dim = _batched_index(axis_size, ref_dim, operands, operand_dims, indexer)
        return [_read(get_bind(ref, [], None), ints, batched)], [out_dim]
    if ref_dim is NOT_MAPPED:
        return [get_bind(ref, operands, indexer)], [NOT_MAPPED]
    batched = _batched_indexer(indexer, axis_size, ref.shape[1:])
    return [get_bind(ref, operands, batched)], [_batch_dim_after(batched)]


def _batched_index(axis_size, ref_dim, operands, dims, indexer):
    # batched integer indices (the batch leading their shape), the index they make into the
    # ref's value (a batched ref, a box with the batch on axis 0, indexed along axis 0 by
    # the batch's own position) and where the batch lands in what it reads
    shape = (axis_size, *indexer.int_shape)
    ints = [
        broadcast_in_dim(o, shape, tuple(range(1, len(shape))))
        if d is NOT_MAPPED
        else move_axis(o, d, 0, axis_size)
        for o, d in zip(operands, dims, strict=True)
    ]
    entries, ref_shape = indexer.entries, indexer.shape
    if ref_dim is not NOT_MAPPED:
        ints.insert(0, broadcasted_iota(np.int32, shape, 0))
        entries, ref_shape = (None, *entries), (axis_size, *ref_shape)
    batched = RefIndexer(entries, ref_shape, shape)
    return ints, batched, 0 if batched.ints_apart() else batched.int_positions()[0]


# --------------------------------------------------------------------------- swap


def ref_swap(ref: Any, idx: Any, value: Any, _function_name: str = "ref_swap") -> Any:
    """Write `value` at `ref[idx]`, returning what was there. Like `jax.ref.swap`."""
    _check_ref(ref, _function_name)
    indexer, operands = parse_index(idx, ref.shape)
    return swap_bind(ref, _implicit_cast(ref.dtype, value), operands, indexer)


def ref_set(ref: Any, idx: Any, value: Any) -> None:
    """`ref[idx] = value`. Like `jax.ref.set`."""
    ref_swap(ref, idx, value, "ref_set")


def _implicit_cast(dtype: np.dtype, value: Any) -> Any:
    # JAX's: a weak float into a float ref, any integer into an integer ref, take its dtype
    if not core.is_arraylike(value):
        return value
    aval = core.get_aval(value)
    floats = dtypes.is_float(dtype) and dtypes.is_float(aval.dtype)
    ints = dtypes.is_int(dtype) and dtypes.is_int(aval.dtype)
    if (aval.weak_type and floats) or ints:
        return convert_element_type(value, dtype)
    return value


def swap_bind(ref: Any, value: Any, operands: Any, indexer: RefIndexer | None) -> Any:
    if _is_box(ref):
        old = _read(ref._buf, operands, indexer)
        _check_write("swap", ref.aval, core.get_aval(value), indexer)
        ref._buf = _write(ref._buf, value, operands, indexer, ref.aval.inner_aval)
        return old
    return swap_p.bind(ref, value, *operands, indexer=indexer)


def _write(buf: Any, value: Any, operands: Any, indexer: RefIndexer | None, inner: Any) -> Any:
    if indexer is None:
        if core.get_aval(value).weak_type != inner.weak_type:  # the ref keeps its type
            return convert_element_type(value, inner.dtype, weak_type=inner.weak_type)
        return value
    return buf.at[indexer.python(operands)].set(value)


def _check_write(name: str, ref_aval: Any, aval: Any, indexer: RefIndexer | None) -> None:
    if type(ref_aval) is not AbstractRef:
        raise ValueError(f"`{name}` must be called on `Ref` types: {ref_aval}.")
    if type(aval) is AbstractRef:
        raise ValueError(
            "Cannot store a Ref into another Ref. Did you forget to load from it using `[...]`?"
        )
    expected = _indexed_aval(ref_aval, indexer)
    if expected.shape != aval.shape:
        transforms = "()" if indexer is None else f"({indexer},)"
        raise ValueError(
            f"Invalid shape for `{name}`. Ref shape: {ref_aval.shape}. Expected shape: "
            f"{expected.shape}. Value shape: {aval.shape}. Transforms: {transforms}. "
        )
    if expected.dtype != aval.dtype:
        raise ValueError(
            f"Invalid dtype for `{name}`. Ref dtype: {expected.dtype}. "
            f"Value {'dtype' if name == 'swap' else 'shape'}: {aval.dtype}. "
        )


@core.impl_rules.register(swap_p)
def _swap_impl(ref, value, *operands, indexer):
    _check_write("swap", ref.aval, core.get_aval(value), indexer)
    (old,) = _get_impl(ref, *operands, indexer=indexer)
    weak = ref.aval.weak_type
    if indexer is None:
        ref._buf = _to_array(value, weak)
    else:
        buf = np.array(core.to_numpy(ref._buf))
        buf[indexer.python([core.to_numpy(o) for o in operands])] = core.to_numpy(value)
        ref._buf = array.eager_result(buf, weak)
    return [old]


@core.abstract_eval_rules.register(swap_p)
def _swap_abstract_eval(ref_aval, aval, *operand_avals, indexer):
    _check_write("swap", ref_aval, aval, indexer)
    return [_indexed_aval(ref_aval, indexer)]


def _outer_ref_error(ref: Any) -> Exception:
    return Exception(
        "performing a set/swap operation with a differentiated value on a non-differentiated "
        f"array reference of type {core.get_aval(ref)}. Move the array reference to be an "
        "argument of the differentiated function?"
    )


@core.jvp_rules.register(swap_p)
def _swap_jvp(primals, tangents, *, indexer):
    (ref, x, *operands), (ref_dot, x_dot, *_) = primals, tangents
    out = swap_bind(ref, x, operands, indexer)
    if isinstance(ref_dot, Zero) and isinstance(x_dot, Zero):
        return [out], [Zero(core.get_aval(out))]
    if isinstance(ref_dot, Zero):
        raise _outer_ref_error(ref)
    return [out], [swap_bind(ref_dot, instantiate(x_dot), operands, indexer)]


def _unbatched_ref_error(ref: Any) -> Exception:
    return Exception(
        "performing a set/swap operation with vmapped value on an unbatched array reference "
        f"of type {core.get_aval(ref)}. Move the array reference to be an argument to the "
        "vmapped function?"
    )


def _batched_value(x: Any, d: Any, axis_size: int, indexer: RefIndexer, at: int) -> Any:
    # `x` laid out as a read through the batched `indexer` gives it (the batch at `at`)
    shape = indexer.result_shape()
    if d is NOT_MAPPED:
        rest = tuple(i for i in range(len(shape)) if i != at)
        return broadcast_in_dim(x, shape, rest)
    return move_axis(x, d, at, axis_size)


def write_vmap(name: str, write: Any) -> core.VmapRule:
    """The vmap rule of a write (`swap`, `addupdate`): `write(ref, x, operands, indexer,
    out_dim)` writes `x` laid out as the (batched) ref's `indexer` reads it."""

    def rule(axis_size, vals, dims, *, indexer):
        (ref, x, *operands), (ref_dim, x_dim, *operand_dims) = vals, dims
        if ref_dim is NOT_MAPPED:
            if x_dim is not NOT_MAPPED or any(d is not NOT_MAPPED for d in operand_dims):
                raise _unbatched_ref_error(ref)
            return write(ref, x, operands, indexer, NOT_MAPPED)
        if any(d is not NOT_MAPPED for d in operand_dims):
            operands, batched, at = _batched_index(
                axis_size, ref_dim, operands, operand_dims, indexer
            )
        else:
            batched = _batched_indexer(indexer, axis_size, ref.shape[1:])
            at = _batch_dim_after(batched)
        x = _batched_value(x, x_dim, axis_size, batched, at)
        return write(ref, x, operands, batched, at)

    return rule


def _swap_write(ref, x, operands, indexer, out_dim):
    return [swap_bind(ref, x, operands, indexer)], [out_dim]


core.vmap_rules.register(swap_p, write_vmap("swap", _swap_write))


# --------------------------------------------------------------------------- addupdate


def ref_addupdate(ref: Any, idx: Any, x: Any) -> None:
    """`ref[idx] += x` in one operation. Like `jax.ref.addupdate`."""
    _check_ref(ref, "ref_addupdate")
    indexer, operands = parse_index(idx, ref.shape)
    addupdate_bind(ref, x, operands, indexer)


def addupdate_bind(ref: Any, x: Any, operands: Any, indexer: RefIndexer | None) -> None:
    if _is_box(ref):
        _check_write("addupdate", ref.aval, core.get_aval(x), indexer)
        if indexer is None:
            ref._buf = _write(ref._buf, ref._buf + x, operands, None, ref.aval.inner_aval)
        else:
            ref._buf = ref._buf.at[indexer.python(operands)].add(x)
        return
    addupdate_p.bind(ref, x, *operands, indexer=indexer)


@core.impl_rules.register(addupdate_p)
def _addupdate_impl(ref, x, *operands, indexer):
    _check_write("addupdate", ref.aval, core.get_aval(x), indexer)
    buf = np.array(core.to_numpy(ref._buf))
    index = ... if indexer is None else indexer.python([core.to_numpy(o) for o in operands])
    np.add.at(buf, index, core.to_numpy(x))  # repeated indices add up, as a scatter-add does
    ref._buf = array.eager_result(buf, ref.aval.weak_type)
    return []


@core.abstract_eval_rules.register(addupdate_p)
def _addupdate_abstract_eval(ref_aval, aval, *operand_avals, indexer):
    _check_write("addupdate", ref_aval, aval, indexer)
    return []


@core.jvp_rules.register(addupdate_p)
def _addupdate_jvp(primals, tangents, *, indexer):
    (ref, x, *operands), (ref_dot, x_dot, *_) = primals, tangents
    if isinstance(ref_dot, Zero) and not isinstance(x_dot, Zero):
        raise _outer_ref_error(ref)
    addupdate_bind(ref, x, operands, indexer)
    if not isinstance(ref_dot, Zero):
        addupdate_bind(ref_dot, instantiate(x_dot), operands, indexer)
    return [], []


def _addupdate_write(ref, x, operands, indexer, out_dim):
    addupdate_bind(ref, x, operands, indexer)
    return [], []


core.vmap_rules.register(addupdate_p, write_vmap("addupdate", _addupdate_write))


# --------------------------------------------------------------------------- freeze


def freeze_bind(ref: Any) -> Any:
    if _is_box(ref):
        return ref._buf
    return freeze_p.bind(ref)


@core.impl_rules.register(freeze_p)
def _freeze_impl(ref):
    return [ref._buf]


@core.abstract_eval_rules.register(freeze_p)
def _freeze_abstract_eval(ref_aval):
    if type(ref_aval) is not AbstractRef:
        raise TypeError(f"freeze expects a Ref, got {ref_aval}")
    return [ref_aval.inner_aval]


@core.jvp_rules.register(freeze_p)
def _freeze_jvp(primals, tangents):
    (ref,), (ref_dot,) = primals, tangents
    out = freeze_bind(ref)
    return [out], [Zero(core.get_aval(out)) if isinstance(ref_dot, Zero) else freeze_bind(ref_dot)]


@core.vmap_rules.register(freeze_p)
def _freeze_vmap(axis_size, vals, dims):
    return [freeze_bind(vals[0])], [dims[0]]


core.impl_rules.register(free_ref_p, lambda ref: [])
core.abstract_eval_rules.register(free_ref_p, lambda ref_aval: [])

# no transpose rules: a linear program never holds a ref (a ref's tangent is a box, whose
# reads and writes are the functional updates of its value); no lowering rules: a compiled
# program is discharged first (interpreters/discharge.py)


# --------------------------------------------------------------------------- printing


def _ref_text(printer: Any, ref: Any, operands: Any, indexer: RefIndexer | None) -> Any:
    if indexer is None:
        index = "[...]"
    else:
        it = iter(operands)
        parts = [
            _index_text(printer, next(it)) if e is None else e.text(dim)
            for e, dim in zip(indexer.entries, indexer.shape, strict=True)
        ]
        index = "[" + ",".join(parts) + "]"
    return concat(printer.atom(ref), text(index))


def _index_text(printer: Any, atom: Any) -> str:  # a literal index without its type
    return literal_text(atom.val) if isinstance(atom, Literal) else printer.names[atom]


@pp_eqn_rules.register(get_p)
def _get_pp(printer, eqn, unused):  # `c:f32[3] <- b[1]`
    ref, *operands = eqn.invars
    rhs = _ref_text(printer, ref, operands, eqn.params["indexer"])
    return concat(printer.lhs(eqn, unused), text(" <- "), printer.notes(eqn), rhs)


@pp_eqn_rules.register(swap_p)
def _swap_pp(printer, eqn, unused):  # `b[1] <- v`, or `d:f32[], b[1] <- b[1], v`
    ref, value, *operands = eqn.invars
    place = _ref_text(printer, ref, operands, eqn.params["indexer"])
    arrow = concat(text(" <- "), printer.notes(eqn))
    if eqn.outvars[0] in unused:
        return concat(place, arrow, printer.atom(value))
    lhs = printer.lhs(eqn, unused)
    return concat(lhs, text(", "), place, arrow, place, text(", "), printer.atom(value))


@pp_eqn_rules.register(addupdate_p)
def _addupdate_pp(printer, eqn, unused):  # `b[1,:] += v`
    ref, value, *operands = eqn.invars
    place = _ref_text(printer, ref, operands, eqn.params["indexer"])
    return concat(place, text(" += "), printer.atom(value))
