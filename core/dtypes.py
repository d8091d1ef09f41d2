"""Dtypes as JAX has them: canonical dtypes, weak types and promotion.

Layer 1, after config.py. Every value that enters didax is canonicalized here: with
`jax_enable_x64` off (the default) float64 becomes float32, int64 int32 and complex128
complex64, as in JAX; with it on, 64-bit types stay. Python scalars are *weakly typed*: they
take the dtype of whatever they are combined with (`f32_array * 2.0` stays float32), and
alone they default to int32/float32/complex64 (64-bit types under x64). `result_type`
implements the promotion lattice (bool < int < float < complex, weak below strong of the
same kind).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax.config import config

try:  # ml_dtypes ships with jaxlib; bfloat16 is optional for the eager path.
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover - jaxlib always brings ml_dtypes
    bfloat16 = None

float32 = np.dtype("float32")
float64 = np.dtype("float64")
float16 = np.dtype("float16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")
bool_ = np.dtype("bool")

_CANONICAL = {
    np.dtype("float64"): float32,
    np.dtype("int64"): int32,
    np.dtype("uint64"): np.dtype("uint32"),
    np.dtype("complex128"): np.dtype("complex64"),
}

# JAX's dtype of the tangents of integer and bool values: zero bytes per element.
float0 = np.dtype([("float0", np.void, 0)])

# The dtype a Python scalar takes when nothing else decides it, with x64 off and on.
_WEAK_DEFAULT = {bool: bool_, int: int32, float: float32, complex: complex64}
_WEAK_DEFAULT_X64 = {bool: bool_, int: int64, float: float64, complex: complex128}


def x64_enabled() -> bool:
    """Whether `jax_enable_x64` is on (read at every use: `config.update` may flip it)."""
    return config.enable_x64


def canonicalize(dtype: Any) -> np.dtype:
    """The dtype didax computes in for `dtype`: with x64 off, float64 -> float32, int64 ->
    int32, complex128 -> complex64; with x64 on, `dtype` itself."""
    dtype = np.dtype(dtype)
    return dtype if config.enable_x64 else _CANONICAL.get(dtype, dtype)


def default_float() -> np.dtype:
    """float32, or float64 under x64: what `jnp.ones(3)` and `1.0` are."""
    return float64 if config.enable_x64 else float32


def default_int() -> np.dtype:
    """int32, or int64 under x64."""
    return int64 if config.enable_x64 else int32


def default_complex() -> np.dtype:
    """complex64, or complex128 under x64."""
    return complex128 if config.enable_x64 else complex64


def is_python_scalar(x: Any) -> bool:
    return type(x) in _WEAK_DEFAULT


def python_scalar_dtype(x: Any) -> np.dtype:
    return (_WEAK_DEFAULT_X64 if config.enable_x64 else _WEAK_DEFAULT)[type(x)]


def _compute_kind(dtype: np.dtype) -> int:
    if dtype == bool_:
        return 0
    if np.issubdtype(dtype, np.integer):
        return 1
    return 3 if np.issubdtype(dtype, np.complexfloating) else 2


# Precomputed for the dtypes didax meets, so the eager hot path is one dict lookup.
_KINDS = {
    np.dtype(d): _compute_kind(np.dtype(d))
    for d in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
}
if bfloat16 is not None:
    _KINDS[np.dtype(bfloat16)] = 2

# ml_dtypes' narrow types, as `jax.numpy` names them; NumPy sees them as kind 'V'
NARROW_FLOATS = (
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
)
NARROW_INTS = ("int1", "int2", "int4", "uint1", "uint2", "uint4")
if bfloat16 is not None:
    import ml_dtypes

    _KINDS.update({np.dtype(getattr(ml_dtypes, n)): 2 for n in NARROW_FLOATS})
    _KINDS.update({np.dtype(getattr(ml_dtypes, n)): 1 for n in NARROW_INTS})


def no_buffer_protocol(dtype: np.dtype) -> bool:
    """bfloat16 and the narrow types: jaxlib's buffers of them cannot be read as NumPy views."""
    return dtype == bfloat16 or dtype.name in NARROW_FLOATS or dtype.name in NARROW_INTS


def kind(dtype: np.dtype) -> int:
    """0 bool, 1 integer, 2 real floating, 3 complex (the promotion lattice's kinds)."""
    k = _KINDS.get(dtype)
    return _compute_kind(np.dtype(dtype)) if k is None else k


def is_float(dtype: np.dtype) -> bool:
    """Floating point, real or complex (NumPy's `inexact`): the dtypes with tangents."""
    return kind(dtype) >= 2


def is_real_float(dtype: np.dtype) -> bool:
    """Real floating point only (NumPy's `floating`): what `floor` or `lt` accept."""
    return kind(dtype) == 2


def is_complex(dtype: np.dtype) -> bool:
    return kind(dtype) == 3


def is_int(dtype: np.dtype) -> bool:
    return kind(dtype) == 1


def complex_of(dtype: np.dtype) -> np.dtype:
    """The complex dtype with `dtype`'s real precision (float64 -> complex128, else
    complex64): what `lax.complex` of two `dtype` arrays makes."""
    return complex128 if np.dtype(dtype) in (float64, complex128) else complex64


def real_of(dtype: np.dtype) -> np.dtype:
    """The real dtype of a complex `dtype`'s parts (complex64 -> float32); `dtype` itself
    when it is real."""
    dtype = np.dtype(dtype)
    return {complex64: float32, complex128: float64}.get(dtype, dtype)


def _strong_join(a: np.dtype, b: np.dtype) -> np.dtype:
    if a == b:
        return a
    ka, kb = kind(a), kind(b)
    if ka != kb:  # a higher kind wins whole: int32 + float16 -> float16, as JAX does
        high, low = (a, b) if ka > kb else (b, a)
        if kind(high) == 3 and low in (float64,) and high == complex64:
            return canonicalize(complex128)  # complex64 + float64 keeps float64's precision
        return high
    if (a == bfloat16 and b == float16) or (a == float16 and b == bfloat16):
        return float32
    return canonicalize(np.promote_types(a, b))


def result_type(*types: tuple[np.dtype, bool]) -> tuple[np.dtype, bool]:
    """Join (dtype, weak) pairs; returns the result dtype and whether it is weak.

    Strong types join among themselves; a weak type only matters when its kind is above
    every strong type's kind (`int32 + 2.0` is a weak float32).
    """
    strong = [d for d, w in types if not w]
    weak = [d for d, w in types if w]
    if not strong:
        out = weak[0]
        for d in weak[1:]:
            out = _strong_join(out, d)
        return out, out != bool_
    out = strong[0]
    for d in strong[1:]:
        out = _strong_join(out, d)
    top_weak = max((kind(d) for d in weak), default=-1)
    if top_weak > kind(out):
        if top_weak == 3 and kind(out) == 2:  # float32 + 1j: complex of the float's width,
            return complex_of(out), False  # strong (JAX's lattice: f* below c*, f32 -> c64)
        weak_default = {1: default_int, 2: default_float, 3: default_complex}[top_weak]
        return weak_default(), True
    return out, False


def long_name(dtype: np.dtype) -> str:
    """A dtype's name as JAX's types print it (`float32`; `float0`, which NumPy names `void`)."""
    return "float0" if dtype == float0 else dtype.name


def short_name(dtype: np.dtype) -> str:
    """JAX's short dtype names, as jaxprs print them (f32, i32, bool, ...).

    Cached per dtype (a module-level dict, bounded by the few dozen dtypes there are): a jaxpr
    prints one per binder, and comparing a NumPy dtype with ml_dtypes' (`dtype == bfloat16`)
    goes through NumPy's `issubdtype`, ~10x the dict lookup."""
    try:
        return _SHORT_NAMES[dtype]
    except KeyError:
        name = _SHORT_NAMES[dtype] = _short_name(dtype)
        return name


_SHORT_NAMES: dict[Any, str] = {}


def _short_name(dtype: np.dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype == bool_:
        return "bool"
    if dtype == float0:  # the type of an integer's tangent, as JAX prints it
        return "float0"
    if bfloat16 is not None and dtype == bfloat16:
        return "bf16"
    if dtype.name in NARROW_FLOATS:  # float8_e4m3fn -> f8_e4m3fn
        return "f" + dtype.name.removeprefix("float")
    if dtype.name in NARROW_INTS:  # int4 -> i4, uint2 -> u2
        return dtype.name[0] + dtype.name.lstrip("uint")
    return {"f": "f", "i": "i", "u": "u", "c": "c"}[dtype.kind] + str(dtype.itemsize * 8)
