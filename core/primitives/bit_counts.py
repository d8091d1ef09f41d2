"""Integer bit counting and the high half of a product: `population_count`, `clz` (count
leading zeros) and `mulhi`. Like `jax.lax.population_count` ...

Layer 2, after `bits`. Integer operands only (bool too is refused, as JAX refuses it);
results keep the operand's dtype; tangents are symbolic zeros (not differentiable, as in
JAX). Eager values by NumPy's bit arithmetic, compiled ones by StableHLO's `popcnt` and
`count_leading_zeros` and CHLO's `mulhi`, as JAX lowers them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray
from didax.primitives import rules, vmap_helpers
from didax.primitives.bits import _int_binary_aval
from didax.runtime import client


def _int_aval(name: str) -> core.AbstractEvalRule:
    def rule(x: ShapedArray, **params: Any) -> list[ShapedArray]:
        if not dtypes.is_int(x.dtype):
            raise TypeError(
                f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes "
                "of integer."
            )
        return [x]

    return rule


def _unsigned(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).view(f"u{np.asarray(x).dtype.itemsize}")


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(_unsigned(x)).astype(np.asarray(x).dtype)


def _clz(x: np.ndarray) -> np.ndarray:
    u = _unsigned(x).astype(np.uint64)
    bits = np.asarray(x).dtype.itemsize * 8
    width = np.zeros(u.shape, np.int64)  # the bit length: 64 - clz of the uint64 value
    for shift in (32, 16, 8, 4, 2, 1):
        big = (u >> np.uint64(shift)) != 0
        width += np.where(big, shift, 0)
        u = np.where(big, u >> np.uint64(shift), u)
    width += (u != 0).astype(np.int64)
    return (bits - width).astype(np.asarray(x).dtype)


def _mulhi(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    bits = x.dtype.itemsize * 8
    wide = np.frompyfunc(lambda a, b: (int(a) * int(b)) >> bits, 2, 1)(x, y)
    mask = (1 << bits) - 1
    low = np.frompyfunc(lambda v: int(v) & mask, 1, 1)(wide).astype(np.uint64)
    return low.astype(f"u{x.dtype.itemsize}").view(x.dtype)


def _unary_int(name: str, fn: Any, hlo_op: str) -> core.Primitive:
    prim = core.Primitive(name)
    core.impl_rules.register(prim, rules.validated_impl(prim, lambda x: [np.asarray(fn(x))[()]]))
    core.abstract_eval_rules.register(prim, _int_aval(name))
    core.jvp_rules.register(prim, rules.zero_jvp(prim))
    core.vmap_rules.register(prim, rules.vectorized_vmap(prim.bind))
    core.lowering_rules.register(prim, rules.direct_lowering(hlo_op))
    return prim


population_count_p = _unary_int("population_count", _popcount, "popcnt")
clz_p = _unary_int("clz", _clz, "count_leading_zeros")


def population_count(x: Any) -> Any:
    """The number of set bits of each element. Like `jax.lax.population_count`."""
    return population_count_p.bind(x)


def clz(x: Any) -> Any:
    """The number of leading zero bits of each element. Like `jax.lax.clz`."""
    return clz_p.bind(x)


mulhi_p = core.Primitive("mulhi")


def mulhi(x: Any, y: Any) -> Any:
    """The high half of the double-width product `x * y`. Like `jax.lax.mulhi`."""
    return mulhi_p.bind(x, y)


def _mulhi_aval(x: ShapedArray, y: ShapedArray) -> list[ShapedArray]:
    if dtypes.is_int(x.dtype) and x.dtype == y.dtype:
        return _int_binary_aval("mulhi")(x, y)
    raise TypeError(
        f"mulhi does not accept dtypes {x.dtype.name}, {y.dtype.name}: both must be one "
        "integer dtype"
    )


core.impl_rules.register(
    mulhi_p, rules.validated_impl(mulhi_p, lambda x, y: [np.asarray(_mulhi(x, y))[()]])
)
core.abstract_eval_rules.register(mulhi_p, _mulhi_aval)
core.jvp_rules.register(mulhi_p, rules.zero_jvp(mulhi_p))
core.vmap_rules.register(mulhi_p, vmap_helpers.broadcasting_vmap(mulhi_p.bind))


@core.lowering_rules.register(mulhi_p)
def _mulhi_lowering(ctx, x, y):
    x, y = rules.broadcast_operands(ctx, (x, y))
    return [client.runtime().chlo.mulhi(x, y)]
