"""`didax.Array`: what didax operations return, eager or jitted.

Layer 1. An Array holds either a NumPy value (eager results) or a device buffer (results of a
compiled call, which stay on the device until read). Reading `np.asarray(x)` copies a device
buffer to the host once and keeps the copy. Operators forward to `core.operator_table`, which
`didax.numpy` fills, so this module needs nothing above layer 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes


@core.install_operators
class Array:
    """An immutable n-dimensional array. Like `jax.Array`."""

    # An eager Array keeps its NumPy value and weak flag and builds its `aval` on first use:
    # most eager results feed the next operation without anyone asking for their aval.
    __slots__ = ("_value", "_buffer", "_weak", "_aval", "__weakref__")
    __array_priority__ = 100

    def __init__(
        self,
        value: Any,
        weak_type: bool = False,
        *,
        buffer: Any = None,
        aval: core.ShapedArray | None = None,
    ) -> None:
        if buffer is not None:
            self._value = None
            self._buffer = buffer
            self._aval = aval
            self._weak = aval.weak_type
            return
        value = core.to_numpy(value)
        # A 0-d value is kept as a NumPy scalar, as NumPy's own 0-d results are: NumPy
        # computes on scalars faster than on 0-d arrays.
        self._value = value[()] if type(value) is np.ndarray and not value.ndim else value
        self._buffer = None
        self._weak = weak_type
        self._aval = None

    @property
    def aval(self) -> core.ShapedArray:
        aval = self._aval
        if aval is None:
            value = self._value
            aval = self._aval = core.ShapedArray.make(value.shape, value.dtype, self._weak)
        return aval

    # ----- reading
    def _host(self) -> np.ndarray:
        if self._value is None:
            self._value = np.asarray(self._buffer)
        return self._value

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        value = np.asarray(self._host())
        return value if dtype is None else value.astype(dtype)

    def block_until_ready(self) -> Array:
        if self._buffer is not None:
            self._buffer.block_until_ready()
        return self

    def devices(self) -> set[Any]:
        """The devices holding this array (didax's one device). Like `jax.Array.devices`."""
        return {sharding_of().device}

    @property
    def sharding(self) -> Any:
        """Where the array lives: a `SingleDeviceSharding`. Like `jax.Array.sharding`."""
        return sharding_of()

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
    T = property(lambda self: core.operator_table["transpose"](self))

    # ----- Python protocol
    def __bool__(self) -> bool:
        return bool(self._host())

    def __int__(self) -> int:
        return int(self._host())

    def __float__(self) -> float:
        return float(self._host())

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
        return f"Array({body}, dtype={self.dtype.name}{weak})"

    def __str__(self) -> str:
        return str(np.asarray(self._host()))

    def __format__(self, spec: str) -> str:
        return format(np.asarray(self._host()) if self.ndim else self.item(), spec)

    def __reduce__(self):
        return (Array, (np.asarray(self._host()), self.weak_type))


def eager_result(value: Any, weak: bool) -> Array:
    """An Array holding an impl rule's NumPy result (the eager hot path: skips __init__'s
    canonicalization, since impl rules give canonical values)."""
    out = Array.__new__(Array)
    out._value = value
    out._buffer = None
    out._weak = weak
    out._aval = None
    return out


core.wrap_eager = eager_result


def from_buffer(buffer: Any, aval: core.ShapedArray) -> Array:
    """An Array backed by a device buffer (a compiled call's output): it stays on the device
    until read. The hot path of `jit`: no checks, `aval` must describe `buffer`."""
    out = Array.__new__(Array)
    out._value = None
    out._buffer = buffer
    out._weak = aval.weak_type
    out._aval = aval
    return out


def asarray(x: Any, dtype: Any = None) -> Array:
    """`x` as an Array with a canonical dtype (float64 -> float32)."""
    if isinstance(x, Array) and dtype is None:
        return x
    if dtypes.is_python_scalar(x) and dtype is None:
        return Array(x, type(x) is not bool)
    value = np.asarray(x, dtype=None if dtype is None else dtypes.canonicalize(dtype))
    return Array(value.astype(dtypes.canonicalize(value.dtype), copy=False))


# Set by `backend` (layer 1, after this module): the sharding of every Array, on the one device.
sharding_of: Any = None


class ShapeDtypeStruct:
    """A shape, a dtype and a weak-type flag standing for an array: what `eval_shape` returns
    and what `jit(f).trace`/`.lower` accept in place of arrays. Like `jax.ShapeDtypeStruct`."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape: Any, dtype: Any, *, weak_type: bool = False, **_: Any) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtypes.canonicalize(np.dtype(dtype))
        self.weak_type = weak_type

    @classmethod
    def from_aval(cls, aval: core.ShapedArray) -> ShapeDtypeStruct:
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type)

    aval = property(lambda self: core.ShapedArray(self.shape, self.dtype, self.weak_type))
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
