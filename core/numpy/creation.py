"""Array creation: the scalar types (`jnp.float32`, ...), `asarray`/`array`, `full`,
`zeros`, `ones`, `*_like`, `arange`, `linspace`, `eye`.

Layer 5, after `inner_jit`.
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np
from didax import core, dtypes, lax, typed_sharding
from didax.array import Array
from didax.array import asarray as _asarray_concrete
from didax.compile.sharding_constraint import reshard
from didax.config import config
from didax.numpy.axis_args import shape_tuple
from didax.numpy.inner_jit import inner_jit
from didax.numpy.promotion import broadcast_to, check_arraylike, promote
from didax.primitives import creation as _creation
from didax.primitives import shape as _shape
from didax.runtime import placement, transfer_guard
from didax.runtime.sharding import PartitionSpec


class _ScalarType:
    """`jnp.float32` and friends: a dtype (np.dtype(jnp.float32) works) and a constructor."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.__name__ = self.dtype.name if self.dtype != np.bool_ else "bool_"

    def __call__(self, x: Any) -> Any:
        return asarray(x, self.dtype)

    def __repr__(self) -> str:
        return f"didax.numpy.{self.__name__}"

    def __eq__(self, other: object) -> bool:
        try:
            return self.dtype == np.dtype(other)  # type: ignore[arg-type]
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.dtype)


float32 = _ScalarType(np.float32)


float64 = _ScalarType(np.float64)  # float32 values unless x64 is on, as in JAX
float16 = _ScalarType(np.float16)
int32 = _ScalarType(np.int32)
int64 = _ScalarType(np.int64)
complex64 = _ScalarType(np.complex64)
complex128 = _ScalarType(np.complex128)


int8 = _ScalarType(np.int8)
uint8 = _ScalarType(np.uint8)
bool_ = _ScalarType(np.bool_)
int16 = _ScalarType(np.int16)
uint16 = _ScalarType(np.uint16)
uint32 = _ScalarType(np.uint32)
uint64 = _ScalarType(np.uint64)  # uint32 values unless x64 is on, as in JAX
bfloat16 = _ScalarType(dtypes.bfloat16)
float4_e2m1fn = _ScalarType(ml_dtypes.float4_e2m1fn)
float6_e2m3fn = _ScalarType(ml_dtypes.float6_e2m3fn)
float6_e3m2fn = _ScalarType(ml_dtypes.float6_e3m2fn)
float8_e3m4 = _ScalarType(ml_dtypes.float8_e3m4)
float8_e4m3 = _ScalarType(ml_dtypes.float8_e4m3)
float8_e4m3b11fnuz = _ScalarType(ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fn = _ScalarType(ml_dtypes.float8_e4m3fn)
float8_e4m3fnuz = _ScalarType(ml_dtypes.float8_e4m3fnuz)
float8_e5m2 = _ScalarType(ml_dtypes.float8_e5m2)
float8_e5m2fnuz = _ScalarType(ml_dtypes.float8_e5m2fnuz)
float8_e8m0fnu = _ScalarType(ml_dtypes.float8_e8m0fnu)
int1 = _ScalarType(ml_dtypes.int1)
int2 = _ScalarType(ml_dtypes.int2)
int4 = _ScalarType(ml_dtypes.int4)
uint1 = _ScalarType(ml_dtypes.uint1)
uint2 = _ScalarType(ml_dtypes.uint2)
uint4 = _ScalarType(ml_dtypes.uint4)
# NumPy's aliases, as JAX spells them (the 64-bit ones hold 32-bit values without x64)
bool = bool_  # noqa: A001 - jax.numpy.bool
int_, uint, float_, complex_ = int64, uint64, float64, complex128
single, double, csingle, cdouble = float32, float64, complex64, complex128
ndarray = Array
inf, nan, pi, e = np.inf, np.nan, np.pi, np.e
newaxis = None


def to_dtype(d: Any) -> np.dtype:
    return dtypes.canonicalize(getattr(d, "dtype", d) if isinstance(d, _ScalarType) else d)


def asarray(x: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.asarray`."""
    if isinstance(x, core.Tracer):
        return x if dtype is None else lax.convert_element_type(x, to_dtype(dtype), False)
    if isinstance(x, (list, tuple)) and any(isinstance(leaf, core.Tracer) for leaf in _leaves(x)):
        return _stack_nested(x, dtype)
    if dtype is None and isinstance(x, Array):
        return x
    if dtype is not None and isinstance(x, Array):
        return lax.convert_element_type(x, to_dtype(dtype), False)
    if isinstance(x, (list, tuple)):
        x = [np.asarray(v) if isinstance(v, Array) else v for v in _leaves_tree(x)]
    _check_array_value(x)
    out = _asarray_concrete(x, None if dtype is None else to_dtype(dtype))
    # a host value to the device, implicitly (while tracing, a constant of the program)
    if config.guard_host_to_device is not None and core.trace_state() is core.EAGER_STATE:
        transfer_guard.host_to_device(out.aval, placement.default_device())
    return out


def _check_array_value(x: Any) -> None:
    # At once, with JAX's errors: None, strings, bytes and other objects would otherwise make
    # object or string arrays that fail later, under jit
    leaves = _leaves(x) if isinstance(x, (list, tuple)) else [x]
    if any(leaf is None for leaf in leaves):
        raise ValueError("None is not a valid value for jnp.array")
    for leaf in leaves:
        if dtypes.is_python_scalar(leaf):
            continue
        array_like = hasattr(leaf, "__array__") or isinstance(leaf, (str, bytes))
        value = np.asarray(leaf) if array_like else np.asarray(leaf, dtype=object)
        if value.dtype.kind in "OSU":
            name = value.dtype.name if value.dtype.kind == "O" else value.dtype.str
            raise TypeError(
                f"Value '{leaf}' with dtype {name} is not a valid JAX array type. "
                "Only arrays of numeric types are supported by JAX."
            )


def array(x: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.array`: a copy (a traced array is staged as `copy`)."""
    if isinstance(x, core.Tracer):
        x = _shape.copy(x)
        return x if dtype is None else lax.convert_element_type(x, to_dtype(dtype), False)
    return asarray(x, dtype)


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


def _leaves_tree(x: Any) -> Any:
    return [_leaves_tree(v) if isinstance(v, (list, tuple)) else v for v in x]


def _stack_nested(x: Any, dtype: Any) -> Any:
    items = [_stack_nested(v, dtype) if isinstance(v, (list, tuple)) else v for v in x]
    items = promote("array", *items)
    if dtype is not None:
        items = [lax.convert_element_type(v, to_dtype(dtype), False) for v in items]
    expanded = [_strong_row(v) for v in items]  # each converted, then expanded: JAX's order
    return lax.concatenate(expanded, 0)


def _strong_row(v: Any) -> Any:
    v = lax.convert_element_type(v, core.get_aval(v).dtype, False)
    aval = core.get_aval(v)
    return lax.broadcast_in_dim(v, (1, *aval.shape), tuple(range(1, aval.ndim + 1)))


def full(shape: Any, fill_value: Any, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Like `jax.numpy.full`."""
    shape = shape_tuple(shape)
    check_arraylike("full", fill_value)
    if core.get_aval(fill_value).shape:
        return _split(broadcast_to(asarray(fill_value, dtype), shape), out_sharding)
    out = lax.full(shape, fill_value, None if dtype is None else to_dtype(dtype))
    return _split(out, out_sharding)


def _split(x: Any, out_sharding: Any) -> Any:
    # `out_sharding=`: a NamedSharding, or a PartitionSpec over the context mesh (on whose
    # devices an eager result is replicated without one, as JAX's)
    if out_sharding is None and (typed_sharding.get_mesh() is None or isinstance(x, core.Tracer)):
        return x
    return reshard(x, PartitionSpec() if out_sharding is None else out_sharding)


def _float_or(dtype: Any) -> np.dtype:
    # the dtype asked for, else the default float (float32, float64 under x64)
    return dtypes.default_float() if dtype is None else to_dtype(dtype)


def zeros(shape: Any, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Like `jax.numpy.zeros`."""
    return _split(_creation.full(shape_tuple(shape), 0, _float_or(dtype)), out_sharding)


def ones(shape: Any, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """Like `jax.numpy.ones`."""
    return _split(_creation.full(shape_tuple(shape), 1, _float_or(dtype)), out_sharding)


def _full_like(name: str, x: Any, fill_value: int, dtype: Any) -> Any:
    check_arraylike(name, x)
    # (a weak input gives a weak result, a traced one its split and varying axes, as in JAX)
    return lax.full_like(x, fill_value, None if dtype is None else to_dtype(dtype))


def zeros_like(x: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.zeros_like`."""
    return _full_like("zeros_like", x, 0, dtype)


def ones_like(x: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.ones_like`."""
    return _full_like("ones_like", x, 1, dtype)


def arange(
    start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *, out_sharding: Any = None
) -> Any:
    """Like `jax.numpy.arange` (bounds must be concrete)."""
    return _split(_arange(start, stop, step, dtype), out_sharding)


def _arange(start: Any, stop: Any, step: Any, dtype: Any) -> Any:
    for v in (start, stop, step):
        if isinstance(v, core.Tracer):
            core.concrete_or_error(v, "arange with a traced bound")
    values = np.arange(start, stop, step) if stop is not None else np.arange(start)
    out_dtype = to_dtype(dtype) if dtype is not None else dtypes.canonicalize(values.dtype)
    if not dtypes.is_float(out_dtype) and not dtypes.is_int(out_dtype):
        return Array(values.astype(out_dtype))
    # As JAX: `start + step * iota`, staged (not a captured constant)
    out = lax.iota(out_dtype, len(values))
    if stop is None:
        return out
    if step is not None:
        out = lax.mul(_scalar_of(step, out_dtype), out)
    return lax.add(_scalar_of(start, out_dtype), out)


def _scalar_of(v: Any, dtype: np.dtype) -> Any:
    return lax.convert_element_type(
        np.asarray(core.concrete_or_error(v, "arange")).item(), dtype, False
    )


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None) -> Any:
    """Like `jax.numpy.linspace` (scalar bounds; an inner jit, as JAX's)."""
    check_arraylike("linspace", start, stop)
    num = core.concrete_or_error(num, "linspace's num")
    if int(num) < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    out_dtype = _float_or(dtype)
    if int(num) < 2:  # nothing to interpolate
        return (
            lax.full((int(num),), 0, out_dtype)
            if not num
            else lax.broadcast_in_dim(lax.convert_element_type(start, out_dtype, False), (1,), ())
        )
    if dtypes.is_float(out_dtype):
        return _linspace_jit(start, stop, int(num), builtins.bool(endpoint), out_dtype)
    # integers: computed in float32 and floored, as JAX does
    out = _linspace_jit(start, stop, int(num), builtins.bool(endpoint), dtypes.default_float())
    return lax.convert_element_type(lax.floor(out), out_dtype, False)


def _linspace(start: Any, stop: Any, num: int, endpoint: bool, dtype: np.dtype) -> Any:
    # JAX's formula: start * (1 - t) + stop * t for t = iota / div, then stop appended
    start = lax.convert_element_type(start, dtype, False)
    stop = lax.convert_element_type(stop, dtype, False)
    div = num - 1 if endpoint else num
    lax.div(lax.sub(stop, start), float(div))  # the step (JAX computes it for retstep)
    t = lax.div(lax.iota(dtype, div), float(div))
    out = lax.add(
        lax.mul(lax.reshape(start, (1,)), lax.sub(1.0, t)), lax.mul(lax.reshape(stop, (1,)), t)
    )
    if endpoint:
        out = lax.concatenate([out, lax.broadcast_in_dim(stop, (1,), ())], 0)
    return out


_linspace_jit = inner_jit(_linspace, "_linspace", static_argnums=(2, 3, 4))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
    """Like `jax.numpy.eye`."""
    M = N if M is None else M  # noqa: N806
    index = dtypes.default_int()  # int64 under x64, as JAX's (a traced int32 + k would not add)
    rows = lax.broadcasted_iota(index, (N, M), 0)
    cols = lax.broadcasted_iota(index, (N, M), 1)
    on = lax.eq(lax.add(rows, lax.full((), k, index)), cols)
    return lax.convert_element_type(on, _float_or(dtype), False)


__all__ = [
    "arange",
    "array",
    "asarray",
    "bfloat16",
    *dtypes.NARROW_FLOATS,
    *dtypes.NARROW_INTS,
    "bool",
    "bool_",
    "cdouble",
    "complex_",
    "csingle",
    "double",
    "float_",
    "int16",
    "int_",
    "single",
    "uint",
    "uint16",
    "uint32",
    "uint64",
    "complex128",
    "complex64",
    "e",
    "eye",
    "float16",
    "float32",
    "float64",
    "full",
    "inf",
    "int32",
    "int64",
    "int8",
    "linspace",
    "nan",
    "ndarray",
    "newaxis",
    "ones",
    "ones_like",
    "pi",
    "uint8",
    "zeros",
    "zeros_like",
]
