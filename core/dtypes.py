"""Dtypes as JAX has them with x64 off: canonical dtypes, weak types and promotion.

Layer 1. Every value that enters didax is canonicalized here: float64 becomes float32 and
int64 becomes int32, as in JAX without `jax_enable_x64`. Python scalars are *weakly typed*:
they take the dtype of whatever they are combined with (`f32_array * 2.0` stays float32).
`result_type` implements the promotion lattice (bool < int < float, weak below strong of the
same kind).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # ml_dtypes ships with jaxlib; bfloat16 is optional for the eager path.
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover - jaxlib always brings ml_dtypes
    bfloat16 = None

float32 = np.dtype("float32")
float16 = np.dtype("float16")
int32 = np.dtype("int32")
bool_ = np.dtype("bool")

_CANONICAL = {
    np.dtype("float64"): float32,
    np.dtype("int64"): int32,
    np.dtype("uint64"): np.dtype("uint32"),
    np.dtype("complex128"): np.dtype("complex64"),
}

# JAX's dtype of the tangents of integer and bool values: zero bytes per element.
float0 = np.dtype([("float0", np.void, 0)])

# The dtype a Python scalar takes when nothing else decides it.
_WEAK_DEFAULT = {bool: bool_, int: int32, float: float32}


def canonicalize(dtype: Any) -> np.dtype:
    """The dtype didax computes in for `dtype` (float64 -> float32, int64 -> int32)."""
    dtype = np.dtype(dtype)
    return _CANONICAL.get(dtype, dtype)


def is_python_scalar(x: Any) -> bool:
    return type(x) in _WEAK_DEFAULT


def python_scalar_dtype(x: Any) -> np.dtype:
    return _WEAK_DEFAULT[type(x)]


def _compute_kind(dtype: np.dtype) -> int:
    return 0 if dtype == bool_ else 1 if np.issubdtype(dtype, np.integer) else 2


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


def kind(dtype: np.dtype) -> int:
    """0 bool, 1 integer, 2 floating (the promotion lattice's kinds)."""
    k = _KINDS.get(dtype)
    return _compute_kind(np.dtype(dtype)) if k is None else k


def is_float(dtype: np.dtype) -> bool:
    return kind(dtype) == 2


def is_int(dtype: np.dtype) -> bool:
    return kind(dtype) == 1


def _strong_join(a: np.dtype, b: np.dtype) -> np.dtype:
    if a == b:
        return a
    ka, kb = kind(a), kind(b)
    if ka != kb:  # a higher kind wins whole: int32 + float16 -> float16, as JAX does
        return a if ka > kb else b
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
        return (float32 if top_weak == 2 else int32), True
    return out, False


def short_name(dtype: np.dtype) -> str:
    """JAX's short dtype names, as jaxprs print them (f32, i32, bool, ...)."""
    dtype = np.dtype(dtype)
    if dtype == bool_:
        return "bool"
    if bfloat16 is not None and dtype == bfloat16:
        return "bf16"
    return {"f": "f", "i": "i", "u": "u", "c": "c"}[dtype.kind] + str(dtype.itemsize * 8)
