"""Dtype questions, as `jax.numpy` answers them: `dtype`, `iinfo`, `finfo`, `issubdtype`,
`isdtype`, `promote_types`, `result_type`, `can_cast`, and NumPy's abstract scalar types
(`number`, `floating`, `integer`, ...) that `issubdtype` takes.

Layer 5, after `promotion`. `result_type` and `promote_types` follow JAX's type lattice
(`dtypes.result_type`: `int32` with `float16` is `float16`, a Python scalar is weak);
`result_type` gives the canonical dtype (float32 unless x64 is on), `promote_types` does not.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from didax import core, dtypes
from didax.numpy import creation

__all__ = [
    "can_cast",
    "character",
    "complexfloating",
    "dtype",
    "finfo",
    "flexible",
    "floating",
    "generic",
    "iinfo",
    "inexact",
    "integer",
    "isdtype",
    "issubdtype",
    "number",
    "object_",
    "promote_types",
    "result_type",
    "signedinteger",
    "unsignedinteger",
]

dtype = np.dtype  # jax.numpy.dtype is NumPy's
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger
complexfloating, character, flexible, object_ = (
    np.complexfloating,
    np.character,
    np.flexible,
    np.object_,
)


def _np_dtype(x: Any) -> np.dtype:
    if isinstance(x, creation._ScalarType):
        return x.dtype
    if isinstance(x, (np.dtype, type, str)):
        return np.dtype(x)
    return np.dtype(core.get_aval(x).dtype)


def iinfo(int_type: Any) -> Any:
    """Like `jax.numpy.iinfo`."""
    return np.iinfo(_np_dtype(int_type))


def finfo(dtype: Any) -> Any:
    """Like `jax.numpy.finfo` (bfloat16 too)."""
    return ml_dtypes.finfo(_np_dtype(dtype))


def issubdtype(arg1: Any, arg2: Any) -> bool:
    """Like `jax.numpy.issubdtype`."""
    a = _np_dtype(arg1) if not (isinstance(arg1, type) and issubclass(arg1, np.generic)) else arg1
    if (
        isinstance(arg2, type)
        and issubclass(arg2, np.generic)
        and arg2
        in (
            generic,
            number,
            inexact,
            floating,
            integer,
            signedinteger,
            unsignedinteger,
            complexfloating,
            character,
            flexible,
        )
    ):
        a = np.dtype(a)
        if a == dtypes.bfloat16:  # an extension float: floating, inexact, number
            return arg2 in (floating, inexact, number, generic)
        return np.issubdtype(a, arg2)
    return np.issubdtype(a, _np_dtype(arg2))


_KINDS = {
    "bool": lambda d: d == np.bool_,
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.kind in "iu",
    "real floating": lambda d: d.kind == "f" or d == dtypes.bfloat16,
    "complex floating": lambda d: d.kind == "c",
    "numeric": lambda d: d.kind in "iufc" or d == dtypes.bfloat16,
}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Like `jax.numpy.isdtype` (the array API's kinds, dtypes, or tuples of them)."""
    d = _np_dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KINDS:
                raise ValueError(f"Unrecognized {kind=!r}")
            if _KINDS[k](d):
                return True
        elif d == _np_dtype(k):
            return True
    return False


def promote_types(a: Any, b: Any) -> np.dtype:
    """The type both promote to, on JAX's lattice (not canonicalized). Like
    `jax.numpy.promote_types`."""
    da, db = _np_dtype(a), _np_dtype(b)
    if da == db:
        return da
    ka, kb = dtypes.kind(da), dtypes.kind(db)
    if ka != kb:
        return da if ka > kb else db
    if {da, db} == {np.dtype(np.float16), np.dtype(dtypes.bfloat16)}:
        return np.dtype(np.float32)
    return np.promote_types(da, db)


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """The dtype of an operation on `args` (Python scalars weak), canonical. Like
    `jax.numpy.result_type`."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    pairs = []
    for x in args:
        if x is None:
            pairs.append((dtypes.default_float(), True))
        elif dtypes.is_python_scalar(x):
            pairs.append((dtypes.python_scalar_dtype(x), True))
        elif isinstance(x, (np.dtype, type, str, creation._ScalarType)):
            pairs.append((dtypes.canonicalize(_np_dtype(x)), False))
        else:
            aval = core.get_aval(x)
            pairs.append((aval.dtype, aval.weak_type))
    out, weak = dtypes.result_type(*pairs)
    out = dtypes.canonicalize(out)
    return (out, weak) if return_weak_type_flag else out


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """Like `jax.numpy.can_cast` (NumPy's rules)."""
    return np.can_cast(_np_dtype(from_), _np_dtype(to), casting)
