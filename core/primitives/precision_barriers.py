"""Primitives that change no value's meaning: `optimization_barrier` (identity that the
compiler may not move computation across), `reduce_precision` (round to fewer exponent and
mantissa bits, keeping the dtype) and `empty` (an array of a shape and dtype whose contents
do not matter; zeros on CPU, as JAX lowers it). Like `jax.lax.optimization_barrier` ...

Layer 2, after `dot`. `reduce_precision`'s eager impl is XLA's bit arithmetic (round to
nearest even on the dropped mantissa bits, then exponents beyond the new range become
infinities or signed zeros), so eager and compiled values agree.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
from didax import core, dtypes, tree_util
from didax.core import ShapedArray
from didax.primitives import ad_helpers, rules

# ----------------------------------------------------------------------------- optimization_barrier

optimization_barrier_p = core.Primitive("optimization_barrier", multiple_results=True)


def optimization_barrier(operand: Any) -> Any:
    """`operand` (a pytree) unchanged; XLA may not move work across it. Like
    `jax.lax.optimization_barrier`."""
    leaves, tree = tree_util.tree_flatten(operand)
    return tree_util.tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


core.impl_rules.register(optimization_barrier_p, lambda *xs: [np.asarray(x) for x in xs])
core.abstract_eval_rules.register(optimization_barrier_p, lambda *avals: list(avals))


@core.jvp_rules.register(optimization_barrier_p)
def _optimization_barrier_jvp(primals, tangents):
    tangents = [ad_helpers.instantiate(t) for t in tangents]
    return optimization_barrier_p.bind(*primals), optimization_barrier_p.bind(*tangents)


@core.transpose_rules.register(optimization_barrier_p)
def _optimization_barrier_transpose(cts, *xs):
    return optimization_barrier_p.bind(*(ad_helpers.instantiate(ct) for ct in cts))


@core.vmap_rules.register(optimization_barrier_p)
def _optimization_barrier_vmap(axis_size, vals, dims):
    return optimization_barrier_p.bind(*vals), list(dims)


@core.lowering_rules.register(optimization_barrier_p)
def _optimization_barrier_lowering(ctx, *xs):
    return list(ctx.hlo.OptimizationBarrierOp(list(xs)).results)


# ----------------------------------------------------------------------------- reduce_precision

reduce_precision_p = core.Primitive("reduce_precision")


def reduce_precision(x: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """`x` rounded to a float format of `exponent_bits` and `mantissa_bits`, in `x`'s dtype.
    Like `jax.lax.reduce_precision`."""
    return reduce_precision_p.bind(
        x, exponent_bits=operator.index(exponent_bits), mantissa_bits=operator.index(mantissa_bits)
    )


def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
    x = np.asarray(x)
    info = ml_dtypes.finfo(x.dtype)
    src_mant, src_exp, nbits = info.nmant, info.nexp, info.bits
    uint = np.dtype(f"u{nbits // 8}")
    bits = x.view(uint).astype(np.uint64)
    if mantissa_bits < src_mant:  # round to nearest even on the dropped bits
        drop = src_mant - mantissa_bits
        last = np.uint64(1 << drop)
        bias = (bits & last) >> np.uint64(drop)
        bias = bias + np.uint64((1 << (drop - 1)) - 1)
        bits = (bits + bias) & ~np.uint64((1 << drop) - 1) & np.uint64((1 << nbits) - 1)
    if exponent_bits < src_exp:
        sign = bits & np.uint64(1 << (nbits - 1))
        exp_mask = np.uint64(((1 << src_exp) - 1) << src_mant)
        bias, new_bias = (1 << (src_exp - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        over = exponent > np.uint64((bias + new_bias) << src_mant)
        under = exponent <= np.uint64((bias - new_bias) << src_mant)
        bits = np.where(over, sign | exp_mask, np.where(under, sign, bits))
    out = bits.astype(uint).view(x.dtype).reshape(x.shape)
    if mantissa_bits < src_mant:  # NaNs stay NaNs (the rounding could carry them to inf)
        out = np.where(np.isnan(x), x, out)
    return [np.asarray(out, x.dtype)]


def _reduce_precision_abstract_eval(x, *, exponent_bits, mantissa_bits):
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(
            f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}"
        )
    return rules.float_aval("reduce_precision")(x)


core.impl_rules.register(
    reduce_precision_p, rules.validated_impl(reduce_precision_p, _reduce_precision_impl)
)
core.abstract_eval_rules.register(reduce_precision_p, _reduce_precision_abstract_eval)
core.jvp_rules.register(reduce_precision_p, ad_helpers.linear_jvp(reduce_precision_p))


@core.transpose_rules.register(reduce_precision_p)
def _reduce_precision_transpose(cts, x, **params):
    (ct,) = cts
    return [reduce_precision_p.bind(ad_helpers.instantiate(ct), **params)]


core.vmap_rules.register(reduce_precision_p, rules.vectorized_vmap(reduce_precision_p.bind))


@core.lowering_rules.register(reduce_precision_p)
def _reduce_precision_lowering(ctx, x, *, exponent_bits, mantissa_bits):
    i32 = ctx.ir.IntegerType.get_signless(32)
    return [
        ctx.hlo.reduce_precision(
            x,
            ctx.ir.IntegerAttr.get(i32, exponent_bits),
            ctx.ir.IntegerAttr.get(i32, mantissa_bits),
        )
    ]


# ----------------------------------------------------------------------------- empty

empty_p = core.Primitive("empty")


def empty(shape: Sequence[int], dtype: Any) -> Any:
    """An array whose contents are unspecified (zeros, on CPU). Like `jax.lax.empty`."""
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
    # the dtype is kept as given (`float32` or `np.float32`), as JAX's equation prints it
    return empty_p.bind(shape=shape, dtype=dtype, out_sharding=None)


core.impl_rules.register(
    empty_p, lambda *, shape, dtype, out_sharding: [np.zeros(shape, dtypes.canonicalize(dtype))]
)
core.abstract_eval_rules.register(
    empty_p,
    lambda *, shape, dtype, out_sharding: [ShapedArray(shape, dtypes.canonicalize(dtype))],
)


@core.vmap_rules.register(empty_p)
def _empty_vmap(axis_size, vals, dims, *, shape, dtype, out_sharding):
    return [empty_p.bind(shape=(axis_size, *shape), dtype=dtype, out_sharding=out_sharding)], [0]


@core.lowering_rules.register(empty_p)
def _empty_lowering(ctx, *, shape, dtype, out_sharding):
    return [rules.broadcast_constant(ctx, 0, ctx.avals_out[0])]
