"""`didax.Array`: what didax operations return, eager or jitted; its abstract value
`ShapedArray`; and the operator table through which Array and Tracer operators dispatch.

Layer 1, below core.py. An Array is made from its parts by `build` only (through
`eager_result` and `from_buffer`), or inlined in `fast_path.py`'s hot paths; `Array(value)`
canonicalizes a user's value. Core's eval interpreter builds its results with `eager_result`
directly, and core.py re-exports `ShapedArray`, `to_numpy` and the operator table (the
extension API's `ShapedArray`). An Array holds either a NumPy value (eager results) or a
device buffer (results of a compiled call, which stay on the device until read), possibly
split over several devices (then `_sharding` says how: a `sharding.NamedSharding`). Reading
`np.asarray(x)` copies a device buffer to the host once and keeps the copy (a split one is
gathered first). Operators forward to `operator_table`, which `didax.numpy` fills; what an
Array asks the devices (its sharding, devices, blocks, a split value) goes through the one
`Runtime` protocol declared in array_runtime.py, which the runtime floor installs at import
(`install_runtime`): this module needs nothing above it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
from didax import array_runtime, dtypes
from didax.config import config

# The first array fixes the CPU device count, as JAX's first array starts its backend: a
# later `config.update("jax_num_cpu_devices", n)` raises RuntimeError (it was accepted after
# eager computations, which never start the client). Set once; read per array made.
_device_count_fixed = False


def _fix_device_count() -> None:
    global _device_count_fixed
    config.lock("jax_num_cpu_devices")
    _device_count_fixed = True


# Operators of Array and Tracer (`x + y`, `x[0]`, `x.sum()`) dispatch through this table,
# which `didax.numpy` fills at import: the array classes sit below the numpy layer.
operator_table: dict[str, Callable[..., Any]] = {}

# --------------------------------------------------------------------------- abstract values


class ShapedArray:
    """The abstract value of an array: shape, dtype and whether the dtype is weak."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash")
    array_abstraction_level = 1

    def __init__(self, shape: tuple[int, ...], dtype: Any, weak_type: bool = False) -> None:
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    @classmethod
    def make(cls, shape: tuple[int, ...], dtype: np.dtype, weak_type: bool) -> ShapedArray:
        """Construct from an already canonical tuple and np.dtype (the eager hot path)."""
        aval = object.__new__(cls)
        aval.shape, aval.dtype, aval.weak_type = shape, dtype, weak_type
        return aval

    # The mesh axes a value inside a `shard_map(check_vma=True)` body varies along (JAX's
    # varying manual axes) are a class-level default here, empty: every aval outside such a
    # body is this class, with no field, hash or comparison more than before (eager ops,
    # tracing and jit's dispatch keys are the hot paths). A varying value's aval is a
    # `VaryingArray` (below), made only while a check_vma body is traced.
    vma: frozenset = frozenset()
    mesh_axes: tuple = ()  # the mesh's axis names, in order: how `vma` prints

    def update(self, **changes: Any) -> ShapedArray:
        fields = {"shape": self.shape, "dtype": self.dtype, "weak_type": self.weak_type}
        return ShapedArray(**{**fields, **changes})

    def strip_weak_type(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype) if self.weak_type else self

    def str_short(self) -> str:
        return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
        )

    def __hash__(self) -> int:
        try:  # avals are immutable, and jit's cache hashes them on every dispatch
            return self._hash
        except AttributeError:
            self._hash = hash((self.shape, self.dtype, self.weak_type))
            return self._hash

    def __str__(self) -> str:  # JAX spells the dtype out here: float32[3], ~float32[] if weak
        weak = "~" if self.weak_type else ""
        return f"{weak}{self.dtype.name}[{','.join(map(str, self.shape))}]"

    def __repr__(self) -> str:
        shape = ",".join(map(str, self.shape))
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({dtypes.long_name(self.dtype)}[{shape}]{weak})"


class VaryingArray(ShapedArray):
    """The aval of a value inside a `shard_map(check_vma=True)` body that varies along some
    of the mesh's axes (`vma`, a frozenset of axis names; JAX's `{V:x}` types). `mesh_axes`
    orders them for printing, as JAX orders them by the mesh. Two avals differing only in
    `vma` are different types."""

    __slots__ = ("vma", "mesh_axes")

    def update(self, **changes: Any) -> ShapedArray:  # keeps `vma` unless given
        vma = changes.pop("vma", self.vma)
        return with_vma(ShapedArray.update(self, **changes), vma, self.mesh_axes)

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def _suffix(self) -> str:
        return vma_suffix(self.vma, self.mesh_axes)

    def str_short(self) -> str:
        return super().str_short() + self._suffix()

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is VaryingArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
            and self.vma == other.vma
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type, self.vma))

    def __str__(self) -> str:
        return super().__str__() + self._suffix()

    def __repr__(self) -> str:  # ShapedArray(float32[2]{V:x}), as JAX's
        shape = ",".join(map(str, self.shape))
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({dtypes.long_name(self.dtype)}[{shape}]{self._suffix()}{weak})"


def vma_suffix(vma: frozenset, mesh_axes: tuple) -> str:
    """How a type varying along `vma` ends: `{V:x}`, `{V:(x,y)}` (the mesh's order, as JAX),
    nothing when it varies along none."""
    if not vma:
        return ""
    names = [str(a) for a in mesh_axes if a in vma]
    return f"{{V:{names[0] if len(names) == 1 else '(' + ','.join(names) + ')'}}}"


def with_vma(aval: ShapedArray, vma: frozenset, mesh_axes: tuple) -> ShapedArray:
    """`aval` varying along the mesh axes `vma` (a plain ShapedArray when none; a split
    aval, `sharded_aval.ShardedArray`, keeps its split)."""
    if getattr(aval, "spec", None) is not None:  # (its class, a subclass, sets the fields)
        return aval.update(vma=frozenset(vma), mesh_axes=tuple(mesh_axes))
    if not vma:
        return aval if type(aval) is ShapedArray else ShapedArray.update(aval)
    out = object.__new__(VaryingArray)
    out.shape, out.dtype, out.weak_type = aval.shape, aval.dtype, aval.weak_type
    out.vma, out.mesh_axes = frozenset(vma), tuple(mesh_axes)
    return out


# One ShapedArray object per type, for the keys and results of jit's fast path
# (`fast_path.py`): a dict compares a key's items by identity before calling
# `__eq__`, which costs ~0.1 µs of a cached call, as when `x = step(x)` passes a result back
# or an Array put on the device (`client.buffer_of` interns its aval) is passed again.
# Holds one small object per type a jitted function was called with (bounded by the program's
# types); module-level because an aval is a value, shared by every jitted function.
_interned: dict[ShapedArray, ShapedArray] = {}


def interned(aval: ShapedArray) -> ShapedArray:
    """The one object of `aval`'s type among those interned (`aval` itself if first)."""
    return _interned.setdefault(aval, aval)


class OnDevices(Exception):
    """Raised by `to_numpy(x, gather=False)` for an Array that lives on several devices, or
    is committed to another device (see `Array`): the eval interpreter then runs the
    primitive there (core.py's `eval_primitive`)."""


def on_devices(x: Array) -> bool:
    """Whether the Array `x` spans several devices (split over a mesh, or replicated)."""
    sharding = getattr(x, "_sharding", None)
    return sharding is not None and sharding.num_devices > 1


def runs_there(x: Array) -> bool:
    """Whether eager operations on the Array `x` run on its devices rather than on the host:
    it spans several, or is committed to a device other than the first (such an Array never
    holds a `_value`; runtime/placement.py)."""
    if (sharding := getattr(x, "_sharding", None)) is None:
        return False
    return sharding.num_devices > 1 or (x._value is None and getattr(sharding, "_committed", False))


def to_numpy(x: Any, gather: bool = True) -> np.ndarray | np.generic:
    """A concrete operand as a canonical NumPy value (Array, NumPy value or Python scalar).
    An Array on several devices is read from them, or with `gather=False` raises `OnDevices`
    unless it holds a host value (see `Array`)."""
    value = getattr(x, "_value", None)  # didax.Array keeps its host value here
    if value is not None:
        return value
    if not gather and type(x) is Array and x._buffer is not None and runs_there(x):
        raise OnDevices  # (a deleted Array goes on, to raise that it was deleted)
    if isinstance(x, (np.ndarray, np.generic)):
        dtype = dtypes.canonicalize(x.dtype)
        return x if dtype == x.dtype else x.astype(dtype)
    if dtypes.is_python_scalar(x):
        return np.array(x, dtypes.python_scalar_dtype(x))
    if hasattr(x, "__array__"):
        return to_numpy(np.asarray(x))
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid didax type")


# --------------------------------------------------------------------------- operators


def _method(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # engine frame: IPython leaves it out of tracebacks
        return operator_table[name](self, *args, **kwargs)

    method.__name__ = name
    return method


def _binary_operator(name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:  # no *args: `x * y` is the eager hot loop
        __tracebackhide__ = True
        return operator_table[name](self, other)

    method.__name__ = name
    return method


def _reflected_operator(name: str) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:
        __tracebackhide__ = True
        return operator_table[name](other, self)

    method.__name__ = f"r{name}"
    return method


# Operator names shared by Tracer and Array; the array module reuses this list.
BINARY_OPERATORS = {
    "__add__": "add",
    "__sub__": "subtract",
    "__mul__": "multiply",
    "__truediv__": "divide",
    "__floordiv__": "floor_divide",
    "__mod__": "remainder",
    "__pow__": "power",
    "__matmul__": "matmul",
    "__lt__": "less",
    "__le__": "less_equal",
    "__gt__": "greater",
    "__ge__": "greater_equal",
    "__eq__": "equal",
    "__ne__": "not_equal",
    "__and__": "logical_and",
    "__or__": "logical_or",
    "__xor__": "bitwise_xor",
    "__lshift__": "left_shift",
    "__rshift__": "right_shift",
}
REFLECTED_OPERATORS = {
    "__radd__": "add",
    "__rsub__": "subtract",
    "__rmul__": "multiply",
    "__rtruediv__": "divide",
    "__rfloordiv__": "floor_divide",
    "__rmod__": "remainder",
    "__rpow__": "power",
    "__rmatmul__": "matmul",
    "__rand__": "logical_and",
    "__ror__": "logical_or",
    "__rxor__": "bitwise_xor",
    "__rlshift__": "left_shift",
    "__rrshift__": "right_shift",
}
UNARY_METHODS = {
    "__neg__": "negative",
    "__invert__": "invert",
    "__pos__": "positive",
    "__abs__": "abs",
    "__getitem__": "getitem",
    "reshape": "reshape_method",
    "astype": "astype",
    "sum": "sum",
    "mean": "mean",
    "max": "max",
    "min": "min",
    "prod": "prod",
    "argmax": "argmax",
    "transpose": "transpose_method",
    "squeeze": "squeeze",
    "dot": "dot",
    "std": "std",
    "var": "var",
    "round": "round",
    "conj": "conj",
    "conjugate": "conjugate",
    "cumsum": "cumsum",
    "cumprod": "cumprod",
    "argmin": "argmin",
    "argsort": "argsort",
    "sort": "sort",
    "all": "all",
    "any": "any",
    "ravel": "ravel",
    "flatten": "flatten",
    "clip": "clip",
    "swapaxes": "swapaxes",
    "take": "take",
    "copy": "copy",
    "diagonal": "diagonal",
    "trace": "trace",
    "repeat": "repeat",
    "nonzero": "nonzero",
    "ptp": "ptp",
    "searchsorted": "searchsorted",
}
PROPERTIES = {"real": "real", "imag": "imag", "mT": "matrix_transpose"}


def _property(name: str) -> property:
    return property(lambda self: operator_table[name](self))


def install_operators(cls: type) -> type:
    """Give an array class its operators, each forwarding to `operator_table`.

    A class decorator run once at class creation (not methods bolted on later): the table's
    entries are filled by `didax.numpy` at import.
    """
    for dunder, name in BINARY_OPERATORS.items():
        if dunder not in cls.__dict__:
            setattr(cls, dunder, _binary_operator(name))
    for dunder, name in UNARY_METHODS.items():
        if dunder not in cls.__dict__:
            setattr(cls, dunder, _method(name))
    for dunder, name in REFLECTED_OPERATORS.items():
        if dunder not in cls.__dict__:
            setattr(cls, dunder, _reflected_operator(name))
    for attr, name in PROPERTIES.items():
        if attr not in cls.__dict__:
            setattr(cls, attr, _property(name))
    return cls


# --------------------------------------------------------------------------- Array


@install_operators
class Array:
    """An immutable n-dimensional array. Like `jax.Array`."""

    # An eager Array keeps its NumPy value and weak flag and builds its `aval` on first use:
    # most eager results feed the next operation without anyone asking for their aval.
    # `_sharding` is set only on an Array placed by a sharding (`device_put(x, sharding)`, a
    # sharded jit's result) or off the first device (`device_put(x, device)`, made under
    # another default device: runtime/placement.py): most Arrays never carry it (read with
    # getattr and a default). Eager operations take NumPy's path on Arrays holding a
    # `_value`; on the others that span several devices, or are committed to another device,
    # they run there, as JAX's do. So such an Array never holds a `_value`: its host value,
    # once read (or kept by `device_put`), is `_gathered`.
    __slots__ = ("_value", "_buffer", "_weak", "_aval", "_sharding", "_gathered", "__weakref__")
    __array_priority__ = 100

    def __init__(self, value: Any, weak_type: bool = False) -> None:
        if not _device_count_fixed:
            _fix_device_count()
        value = to_numpy(value)
        # A 0-d value is kept as a NumPy scalar, as NumPy's own 0-d results are: NumPy
        # computes on scalars faster than on 0-d arrays.
        self._value = value[()] if type(value) is np.ndarray and not value.ndim else value
        self._buffer = None
        self._weak = weak_type
        self._aval = None
        if config.default_device is not None:  # made under another default device: there
            sharding = array_runtime.installed().eager_sharding()
            if sharding is not None:
                self._sharding = sharding

    @property
    def aval(self) -> ShapedArray:
        aval = self._aval
        if aval is None:
            value = self._value
            aval = self._aval = ShapedArray.make(value.shape, value.dtype, self._weak)
        return aval

    # ----- reading
    def _host(self) -> np.ndarray:
        if self._value is None:
            if self._buffer is None:  # deleted, or donated to a jitted call
                raise RuntimeError(f"Array has been deleted with shape={_short(self.aval)}.")
            if not runs_there(self):
                self._value = np.asarray(self._buffer)
            else:
                value = getattr(self, "_gathered", None)
                if value is None:  # read from the devices, kept aside (see __slots__)
                    value = self._gathered = (
                        array_runtime.installed().read_sharded(self)
                        if on_devices(self)
                        else np.asarray(self._buffer)
                    )
                return value
        return self._value

    def delete(self) -> None:
        """Free the array's memory: using it afterwards raises RuntimeError. Like
        `jax.Array.delete`; `jit` deletes the arrays it was donated."""
        self.aval  # noqa: B018 - built from the value before it goes: a deleted array keeps its type
        if self._buffer is not None and not self._buffer.is_deleted():
            self._buffer.delete()
        self._value = self._buffer = self._gathered = None

    def is_deleted(self) -> bool:
        """Whether `delete` (or a donation) freed this array. Like `jax.Array.is_deleted`."""
        return self._value is None and self._buffer is None

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        value = np.asarray(self._host())
        return value if dtype is None else value.astype(dtype)

    def block_until_ready(self) -> Array:
        if self._buffer is not None:
            self._buffer.block_until_ready()
        return self

    def devices(self) -> set[Any]:
        """The devices holding this array. Like `jax.Array.devices`."""
        return array_runtime.installed().devices(self)

    @property
    def sharding(self) -> Any:
        """Where the array lives: a `NamedSharding` over a mesh, or a `SingleDeviceSharding`.
        Like `jax.Array.sharding`."""
        return getattr(self, "_sharding", None) or array_runtime.installed().sharding(self)

    @property
    def committed(self) -> bool:
        """Whether the array was put on its device(s) on purpose (`device_put(x, device)`,
        a sharding, or computed from such an array), rather than on the default device.
        Like `jax.Array.committed`."""
        sharding = getattr(self, "_sharding", None)  # (a NamedSharding is always committed)
        return sharding is not None and getattr(sharding, "_committed", True)

    @property
    def is_fully_replicated(self) -> bool:
        """Whether every device holds all of the array. Like `jax.Array.is_fully_replicated`."""
        return self.sharding.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        """Whether this process holds every block. Like `jax.Array.is_fully_addressable`."""
        return self.sharding.is_fully_addressable

    @property
    def addressable_shards(self) -> list[Any]:
        """Each of this process's devices' block of the array (`.device`, `.index`, `.data`).
        Like `jax.Array.addressable_shards`."""
        return array_runtime.installed().addressable_shards(self)

    def item(self) -> Any:
        return np.asarray(self._host()).item()

    def tolist(self) -> Any:
        return np.asarray(self._host()).tolist()

    # ----- abstract properties
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self._weak)
    T = property(lambda self: operator_table["transpose"](self))
    at = property(lambda self: operator_table["at"](self))  # `x.at[idx].set(v)`

    # ----- Python protocol
    def __bool__(self) -> bool:
        return bool(self._host())

    def __int__(self) -> int:
        return int(self._host())

    def __float__(self) -> float:
        return float(self._host())

    def __complex__(self) -> complex:
        return complex(self._host())

    def __index__(self) -> int:
        return int(np.asarray(self._host()).__index__())

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'Array'")

    def __repr__(self) -> str:
        body = np.array2string(np.asarray(self._host()), separator=", ", prefix="Array(")
        weak = ", weak_type=True" if self.weak_type else ""
        if self.size == 0:  # as JAX: `[]` alone would hide the shape
            return f"Array([], shape={self.shape}, dtype={self.dtype.name}{weak})"
        return f"Array({body}, dtype={self.dtype.name}{weak})"

    def __str__(self) -> str:
        return str(np.asarray(self._host()))

    def __format__(self, spec: str) -> str:
        return format(np.asarray(self._host()) if self.ndim else self.item(), spec)

    def __reduce__(self):
        return (Array, (np.asarray(self._host()), self.weak_type))


def _short(aval: ShapedArray) -> str:  # float32[3], as JAX names a deleted array
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


# An array larger than this machine's physical memory cannot be allocated: making one fails
# at once, with JAX's "RESOURCE_EXHAUSTED: Out of memory allocating N bytes", instead of
# leaving a broadcast view of a terabyte that a reduction then walks for minutes, or that
# jaxlib aborts the process on. None where the OS does not say (then nothing is refused).
def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


MAX_ARRAY_BYTES: int | None = _physical_memory()


def exceeds_memory(aval: ShapedArray) -> bool:
    return MAX_ARRAY_BYTES is not None and aval.size * aval.dtype.itemsize > MAX_ARRAY_BYTES


def check_allocatable(aval: ShapedArray) -> None:
    """Raise JAX's out-of-memory error if an array of `aval` is larger than the memory."""
    if exceeds_memory(aval):
        nbytes = aval.size * aval.dtype.itemsize
        raise array_runtime.allocation_error()(
            f"RESOURCE_EXHAUSTED: Out of memory allocating {nbytes} bytes ({_short(aval)}), "
            f"more than this machine's {MAX_ARRAY_BYTES} bytes of memory."
        )


def build(
    value: Any, buffer: Any, weak: bool, aval: ShapedArray | None, sharding: Any = None
) -> Array:
    """The one constructor of an Array from its parts, unchecked: a host `value` (canonical,
    as an impl rule gives it) or None, a device `buffer` or None, the weak flag, the `aval`
    (None: built from the value on first use) and where a placed Array lives (`sharding`).
    `Array(value)` canonicalizes a user's value; `fast_path.py` inlines this in its loops."""
    out = _new(Array)
    out._value = value
    out._buffer = buffer
    out._weak = weak
    out._aval = aval
    if sharding is not None:
        out._sharding = sharding
    return out


_new = object.__new__


def eager_result(value: Any, weak: bool) -> Array:
    """An Array holding an impl rule's NumPy result (skips `Array`'s canonicalization, since
    impl rules give canonical values). A result larger than the memory (a broadcast view
    allocates nothing) is refused."""
    if MAX_ARRAY_BYTES is not None and getattr(value, "nbytes", 0) > MAX_ARRAY_BYTES:
        check_allocatable(ShapedArray(value.shape, value.dtype))
    if not _device_count_fixed:
        _fix_device_count()
    if config.default_device is not None:  # made under another default device: there
        return build(value, None, weak, None, array_runtime.installed().eager_sharding())
    return build(value, None, weak, None)


def from_buffer(buffer: Any, aval: ShapedArray, sharding: Any = None) -> Array:
    """An Array backed by a device buffer (a compiled call's output, a placed value): it
    stays on the device until read. No checks: `aval` must describe `buffer`; `sharding`
    for one placed by a sharding or on another device (see `Array`)."""
    return build(None, buffer, aval.weak_type, aval, sharding)


def asarray(x: Any, dtype: Any = None) -> Array:
    """`x` as an Array with a canonical dtype (float64 -> float32)."""
    if isinstance(x, Array) and dtype is None:
        return x
    if dtypes.is_python_scalar(x) and dtype is None:
        return Array(x, type(x) is not bool)
    value = np.asarray(x, dtype=None if dtype is None else dtypes.canonicalize(dtype))
    return Array(value.astype(dtypes.canonicalize(value.dtype), copy=False))


class ShapeDtypeStruct:
    """A shape, a dtype and a weak-type flag standing for an array: what `eval_shape` returns
    and what `jit(f).trace`/`.lower` accept in place of arrays. Like `jax.ShapeDtypeStruct`."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape: Any, dtype: Any, *, weak_type: bool = False, **_: Any) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtypes.canonicalize(np.dtype(dtype))
        self.weak_type = weak_type

    @classmethod
    def from_aval(cls, aval: ShapedArray) -> ShapeDtypeStruct:
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type)

    aval = property(lambda self: ShapedArray(self.shape, self.dtype, self.weak_type))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (
            (self.shape, self.dtype, self.weak_type) == (other.shape, other.dtype, other.weak_type)
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))
