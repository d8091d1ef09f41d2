"""Integer functions of `jax.numpy`: `gcd`, `lcm` (Euclid's algorithm in a `while_loop`, as
JAX runs it), `bitwise_count` (`population_count`), `packbits` and `unpackbits`.

Layer 5, after `float_parts`. No primitive of its own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.control_flow.while_loop import while_loop
from didax.numpy import (
    creation,
    manipulation,
    mathfuncs,
    predicates,
    promotion,
    rearrange,
    reductions,
    ufuncs,
)
from didax.numpy.axis_args import canonical_axis
from didax.numpy.inner_jit import inner_jit
from didax.primitives.elementwise.arithmetic import _const

__all__ = ["bitwise_count", "gcd", "lcm", "packbits", "unpackbits"]


def _dtype(x: Any) -> np.dtype:
    return core.get_aval(x).dtype


def _integers(name: str, x1: Any, x2: Any) -> list[Any]:
    promotion.check_arraylike(name, x1, x2)
    x1, x2 = promotion.promote(name, creation.asarray(x1), creation.asarray(x2))
    if not dtypes.is_int(_dtype(x1)):
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
    return [x1, x2]


def _gcd_cond(xs: tuple[Any, Any]) -> Any:
    return predicates.any(ufuncs.not_equal(xs[1], 0))


def _gcd_body(xs: tuple[Any, Any]) -> tuple[Any, Any]:
    x1, x2 = xs
    nonzero = ufuncs.not_equal(x2, 0)
    zero = _const(0, x2)
    x1, x2 = ufuncs.where(nonzero, x2, x1), ufuncs.where(nonzero, lax.rem(x1, x2), zero)
    smaller = ufuncs.less(x1, x2)
    return ufuncs.where(smaller, x2, x1), ufuncs.where(smaller, x1, x2)


def _gcd(x1: Any, x2: Any) -> Any:
    # broadcast_arrays does not check jax_numpy_rank_promotion, as in JAX
    x1, x2 = manipulation.broadcast_arrays(*_integers("gcd", x1, x2))
    out, _ = while_loop(_gcd_cond, _gcd_body, (ufuncs.abs(x1), ufuncs.abs(x2)))
    return out


_gcd_jit = inner_jit(_gcd, "gcd")


def gcd(x1: Any, x2: Any) -> Any:
    """The greatest common divisor, elementwise. Like `jax.numpy.gcd`."""
    return _gcd_jit(x1, x2)


def _lcm(x1: Any, x2: Any) -> Any:
    # JAX's body: under jax_numpy_rank_promotion, `floor_divide` and `multiply` check
    x1, x2 = _integers("lcm", x1, x2)
    x1, x2 = ufuncs.abs(x1), ufuncs.abs(x2)
    d = _gcd(x1, x2)
    zero = _const(0, d)
    return ufuncs.where(ufuncs.equal(d, 0), zero, ufuncs.multiply(x1, ufuncs.floor_divide(x2, d)))


_lcm_jit = inner_jit(_lcm, "lcm")


def lcm(x1: Any, x2: Any) -> Any:
    """The least common multiple, elementwise. Like `jax.numpy.lcm`."""
    promotion.check_arraylike("lcm", x1, x2)
    return _lcm_jit(x1, x2)


def _bitwise_count(x: Any) -> Any:
    x = creation.asarray(x)
    if _dtype(x) == np.bool_:
        x = lax.convert_element_type(x, np.int32)
    return lax.convert_element_type(lax.population_count(ufuncs.abs(x)), np.uint8)


_bitwise_count_jit = inner_jit(_bitwise_count, "bitwise_count")


def bitwise_count(x: Any, /) -> Any:
    """The number of set bits of `abs(x)`, as uint8. Like `jax.numpy.bitwise_count`."""
    promotion.check_arraylike("bitwise_count", x)
    return _bitwise_count_jit(x)


def _bit_weights(bitorder: str) -> Any:
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = np.arange(8, dtype=np.uint8)
    return bits[::-1].copy() if bitorder == "big" else bits


def _packbits(a: Any, axis: int | None, bitorder: str) -> Any:
    a = creation.asarray(a)
    if not (dtypes.is_int(_dtype(a)) or _dtype(a) == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    bits = _bit_weights(bitorder)
    arr = lax.convert_element_type(lax.ne(a, lax.full((), 0, _dtype(a))), np.uint8)
    if axis is None:
        arr, axis = manipulation.ravel(arr), 0
    arr = manipulation.swapaxes(arr, axis, -1)
    remainder = arr.shape[-1] % 8
    if remainder:
        pads = [(0, 0, 0)] * (arr.ndim - 1) + [(0, 8 - remainder, 0)]
        arr = lax.pad(arr, np.uint8(0), pads)
    arr = manipulation.reshape(arr, arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    shifted = mathfuncs.left_shift(arr, creation.asarray(bits))
    packed = lax.convert_element_type(reductions.sum(shifted, axis=-1), np.uint8)
    return manipulation.swapaxes(packed, axis, -1)


def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    """Pack the truth of each element into the bits of uint8s. Like `jax.numpy.packbits`."""
    promotion.check_arraylike("packbits", a)
    return _packbits_jit(a, axis, bitorder)


_packbits_jit = inner_jit(_packbits, "packbits", static_argnums=(1, 2))


def _unpackbits(a: Any, axis: int | None, count: int | None, bitorder: str) -> Any:
    a = creation.asarray(a)
    if _dtype(a) != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    bits = np.left_shift(np.uint8(1), _bit_weights(bitorder)).astype(np.uint8)
    if axis is None:
        a, axis = manipulation.ravel(a), 0
    a = manipulation.swapaxes(a, axis, -1)
    weights = creation.asarray(bits).reshape((1,) * a.ndim + (8,))
    hit = ufuncs.greater(mathfuncs.bitwise_and(manipulation.expand_dims(a, -1), weights), 0)
    out = lax.convert_element_type(hit, np.uint8)
    out = manipulation.reshape(out, out.shape[:-2] + (-1,))
    if count is not None:
        if count > out.shape[-1]:
            out = rearrange.pad(out, [(0, 0)] * (out.ndim - 1) + [(0, count - out.shape[-1])])
        else:
            out = out[..., :count]
    return manipulation.swapaxes(out, axis, -1)


_unpackbits_jit = inner_jit(_unpackbits, "unpackbits", static_argnums=(1, 2, 3))


def unpackbits(
    a: Any, axis: int | None = None, count: int | None = None, bitorder: str = "big"
) -> Any:
    """The bits of uint8s as an array of 0s and 1s. Like `jax.numpy.unpackbits`."""
    promotion.check_arraylike("unpackbits", a)
    if axis is not None:
        canonical_axis(axis, np.ndim(a) if not hasattr(a, "ndim") else a.ndim)
    return _unpackbits_jit(a, axis, count, bitorder)
