"""Bit-level primitives: shifts, `xor`, `bitcast_convert_type`, and the counter-based hash
`threefry2x32` with `iota_2x32_shape`, on which `didax.random` is built.

Layer 2. Integer ops only: their tangents are symbolic zeros (nothing here is differentiable,
as in JAX). `threefry2x32` is Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random
numbers: as easy as 1, 2, 3", SC 2011), as JAX computes it: its NumPy impl works in uint32
arithmetic (wrapping adds, rotations by shifts and `or`), its lowering emits the same rounds
as StableHLO `add`/`xor`/`shift_left`/`shift_right_logical`/`or` ops, so eager, jitted and
JAX's results are the same bits. `iota_2x32_shape` is the 64-bit counter of every element of
an array, split in two uint32 halves (JAX's name and meaning).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.array import eager_result
from didax.core import NOT_MAPPED, ShapedArray, Zero
from didax.primitives import rules, shape, vmap_helpers

uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")


def _zero_jvp(prim: core.Primitive) -> core.JvpRule:
    # integer-valued results: the tangent out is a symbolic zero
    def rule(primals, tangents, **params):
        outs = prim.bind(*primals, **params)
        outs = outs if prim.multiple_results else [outs]
        return list(outs), [Zero.like(o) for o in outs]

    return rule


def _int_binary_aval(name: str) -> core.AbstractEvalRule:
    base = rules.naryop_aval(name, "int_or_bool")

    def rule(x: ShapedArray, y: ShapedArray) -> list[ShapedArray]:
        if not dtypes.is_int(x.dtype) and name != "xor":
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}")
        return base(x, y)

    return rule


# ----------------------------------------------------------------------------- shifts, xor


def _shift_impl(fn: Callable[..., Any], arithmetic: bool) -> core.ImplRule:
    # XLA's shifts by an amount >= the bit width give 0 (logical) or the sign fill
    # (arithmetic); NumPy's are undefined there, so those lanes are patched.
    def impl(x: Any, y: Any) -> list:
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype != y.dtype:
            _int_binary_aval("shift")(ShapedArray(x.shape, x.dtype), ShapedArray(y.shape, y.dtype))
        nbits = x.dtype.itemsize * 8
        unsigned = y.astype(f"u{x.dtype.itemsize}")
        big = unsigned >= nbits
        out = fn(x, np.where(big, 0, y).astype(x.dtype))
        fill = np.where(x < 0, -1, 0).astype(x.dtype) if arithmetic else np.zeros((), x.dtype)
        return [np.asarray(np.where(big, fill, out), x.dtype)]

    return impl


def _binary_int(name: str, impl: core.ImplRule, hlo_op: str) -> core.Primitive:
    prim = core.Primitive(name)
    core.impl_rules.register(prim, impl)
    core.abstract_eval_rules.register(prim, _int_binary_aval(name))
    core.jvp_rules.register(prim, _zero_jvp(prim))
    core.vmap_rules.register(prim, vmap_helpers.broadcasting_vmap(prim.bind))
    core.lowering_rules.register(prim, rules.direct_lowering(hlo_op))
    return prim


shift_left_p = _binary_int("shift_left", _shift_impl(np.left_shift, False), "shift_left")
shift_right_logical_p = _binary_int(
    "shift_right_logical",
    # both sides unsigned: NumPy promotes uint32 >> int32 to int64, which cannot view back
    _shift_impl(
        lambda x, y: (x.view(f"u{x.dtype.itemsize}") >> y.view(f"u{x.dtype.itemsize}")).view(
            x.dtype
        ),
        False,
    ),
    "shift_right_logical",
)
shift_right_arithmetic_p = _binary_int(
    "shift_right_arithmetic",
    _shift_impl(
        lambda x, y: (x.view(f"i{x.dtype.itemsize}") >> y.view(f"i{x.dtype.itemsize}")).view(
            x.dtype
        ),
        True,
    ),
    "shift_right_arithmetic",
)
xor_p = _binary_int("xor", rules.elementwise_impl(np.bitwise_xor, _int_binary_aval("xor")), "xor")


def shift_left(x: Any, y: Any) -> Any:
    """Like `jax.lax.shift_left`."""
    return shift_left_p.bind(x, y)


def shift_right_logical(x: Any, y: Any) -> Any:
    """Like `jax.lax.shift_right_logical`."""
    return shift_right_logical_p.bind(x, y)


def shift_right_arithmetic(x: Any, y: Any) -> Any:
    """Like `jax.lax.shift_right_arithmetic`."""
    return shift_right_arithmetic_p.bind(x, y)


def bitwise_xor(x: Any, y: Any) -> Any:
    """Like `jax.lax.bitwise_xor` (the primitive `xor`)."""
    return xor_p.bind(x, y)


# ----------------------------------------------------------------------------- bitcast

bitcast_convert_type_p = core.Primitive("bitcast_convert_type")


def bitcast_convert_type(x: Any, new_dtype: Any) -> Any:
    """Reinterpret the bits of `x` as `new_dtype`. Like `jax.lax.bitcast_convert_type`: a
    narrower `new_dtype` adds a trailing axis, a wider one consumes it."""
    return bitcast_convert_type_p.bind(x, new_dtype=dtypes.canonicalize(new_dtype))


def _bitcast_shape(x: ShapedArray, new_dtype: np.dtype) -> tuple[int, ...]:
    old, new = x.dtype.itemsize, np.dtype(new_dtype).itemsize
    if old == new:
        return x.shape
    if old > new:
        return (*x.shape, old // new)
    if not x.shape or x.shape[-1] != new // old:
        raise ValueError(  # JAX's type
            f"bitcast_convert_type: {x.str_short()} to {np.dtype(new_dtype).name} needs a "
            f"last axis of size {new // old}"
        )
    return x.shape[:-1]


def _bitcast_impl(x: Any, *, new_dtype: np.dtype) -> list:
    x = np.asarray(x, order="C")  # (ascontiguousarray would make 0-d 1-d)
    out_shape = _bitcast_shape(ShapedArray(x.shape, x.dtype), new_dtype)
    return [x.reshape(-1).view(new_dtype).reshape(out_shape)]


core.impl_rules.register(bitcast_convert_type_p, _bitcast_impl)


@core.abstract_eval_rules.register(bitcast_convert_type_p)
def _bitcast_abstract_eval(x: ShapedArray, *, new_dtype: np.dtype) -> list:
    if x.dtype == dtypes.bool_ or np.dtype(new_dtype) == dtypes.bool_:
        raise TypeError("bitcast_convert_type does not accept bool")
    return [ShapedArray(_bitcast_shape(x, new_dtype), new_dtype)]


core.jvp_rules.register(bitcast_convert_type_p, _zero_jvp(bitcast_convert_type_p))
# no transpose rule: its tangent is zero (ZERO_DERIVATIVE in tests/lax/test_rule_coverage.py)


@core.vmap_rules.register(bitcast_convert_type_p)
def _bitcast_vmap(axis_size, vals, dims, *, new_dtype):
    (x,), (d,) = vals, dims
    x = shape.move_axis(x, d, 0, axis_size)  # the trailing axis may change: batch in front
    return [bitcast_convert_type(x, new_dtype)], [0]


@core.lowering_rules.register(bitcast_convert_type_p)
def _bitcast_lowering(ctx, x, *, new_dtype):
    return [ctx.hlo.bitcast_convert(ctx.tensor_type(ctx.avals_out[0]), x)]


# ----------------------------------------------------------------------------- threefry2x32

threefry2x32_p = core.Primitive("threefry2x32", multiple_results=True)

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule parity constant


def threefry2x32(k1: Any, k2: Any, x1: Any, x2: Any) -> list[Any]:
    """Threefry-2x32 of the counters `(x1, x2)` under the key `(k1, k2)`, all uint32 and
    broadcast together; returns the two uint32 halves of the hash."""
    return threefry2x32_p.bind(k1, k2, x1, x2)


def _threefry_rounds(
    k1: Any,
    k2: Any,
    x1: Any,
    x2: Any,
    add: Callable,
    xor: Callable,
    rotl: Callable,
    const: Callable,
) -> list[Any]:
    # the 20 rounds, written once over the ops of the impl and of the lowering
    ks = [k1, k2, xor(xor(k1, k2), const(_PARITY))]
    x = [add(x1, ks[0]), add(x2, ks[1])]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x[0] = add(x[0], x[1])
            x[1] = xor(x[0], rotl(x[1], r))
        x[0] = add(x[0], ks[(i + 1) % 3])
        x[1] = add(add(x[1], ks[(i + 2) % 3]), const(i + 1))
    return x


def _threefry2x32_impl(k1, k2, x1, x2):
    out_shape = np.broadcast_shapes(*(np.shape(a) for a in (k1, k2, x1, x2)))
    args = [np.broadcast_to(a, out_shape) for a in (k1, k2, x1, x2)]
    with np.errstate(over="ignore"):
        x = _threefry_rounds(
            *args,
            add=np.add,
            xor=np.bitwise_xor,
            rotl=lambda v, r: (v << np.uint32(r)) | (v >> np.uint32(32 - r)),
            const=np.uint32,
        )
    return [np.asarray(v, uint32) for v in x]


# checked first by the abstract evaluation rule: eager calls raise the staged TypeError
core.impl_rules.register(threefry2x32_p, rules.validated_impl(threefry2x32_p, _threefry2x32_impl))


@core.abstract_eval_rules.register(threefry2x32_p)
def _threefry2x32_abstract_eval(k1, k2, x1, x2):
    args = (k1, k2, x1, x2)
    if any(a.dtype != uint32 for a in args):
        raise TypeError(
            "Arguments to threefry2x32 must have uint32 type, got "
            + ", ".join(a.str_short() for a in args)
        )
    out = ShapedArray(rules.broadcast_shapes("threefry2x32", *args), uint32)
    return [out, out]


core.jvp_rules.register(threefry2x32_p, _zero_jvp(threefry2x32_p))
# no transpose rule: a hash of integers is not differentiable


@core.vmap_rules.register(threefry2x32_p)
def _threefry2x32_vmap(axis_size, vals, dims):
    # as a broadcasting elementwise op: batch dims to the front, size-1 axes elsewhere
    ndim = max(
        core.get_aval(x).ndim - (d is not NOT_MAPPED) for x, d in zip(vals, dims, strict=True)
    )
    moved = []
    for x, d in zip(vals, dims, strict=True):
        aval = core.get_aval(x)
        if d is NOT_MAPPED:
            x = shape.broadcast_in_dim(
                x,
                (1,) * (ndim + 1 - aval.ndim) + aval.shape,
                tuple(range(ndim + 1 - aval.ndim, ndim + 1)),
            )
        else:
            x = shape.move_axis(x, d, 0, axis_size)
            rest = aval.shape[:d] + aval.shape[d + 1 :]
            pad = ndim - len(rest)
            x = shape.broadcast_in_dim(
                x, (axis_size,) + (1,) * pad + rest, (0, *range(pad + 1, ndim + 1))
            )
        moved.append(x)
    return threefry2x32(*moved), [0, 0]


@core.lowering_rules.register(threefry2x32_p)
def _threefry2x32_lowering(ctx, k1, k2, x1, x2):
    hlo = ctx.hlo
    aval = ctx.avals_out[0]
    args = rules.broadcast_operands(ctx, (k1, k2, x1, x2))

    def const(v: int) -> Any:
        return rules.broadcast_constant(ctx, np.uint32(v), aval)

    def rotl(v: Any, r: int) -> Any:
        return hlo.or_(hlo.shift_left(v, const(r)), hlo.shift_right_logical(v, const(32 - r)))

    return _threefry_rounds(*args, add=hlo.add, xor=hlo.xor, rotl=rotl, const=const)


# ----------------------------------------------------------------------------- iota_2x32_shape

iota_2x32_shape_p = core.Primitive("iota_2x32_shape", multiple_results=True)


def iota_2x32_shape(shape: Sequence[int]) -> list[Any]:
    """The flat index of each element of an array of `shape`, as a 64-bit count split into
    uint32 `(high, low)` halves. Like JAX's internal `prng.iota_2x32_shape`."""
    shape = tuple(int(d) for d in shape)
    if not shape:
        zero = np.zeros((), uint32)
        return [eager_result(zero, False), eager_result(zero, False)]
    return iota_2x32_shape_p.bind(shape=shape)


def _iota_2x32_shape_impl(*, shape):
    counts = np.arange(math.prod(shape), dtype=uint64).reshape(shape)
    return [(counts >> np.uint64(32)).astype(uint32), counts.astype(uint32)]


core.impl_rules.register(iota_2x32_shape_p, _iota_2x32_shape_impl)
core.abstract_eval_rules.register(
    iota_2x32_shape_p, lambda *, shape: [ShapedArray(shape, uint32)] * 2
)
# no jvp rule needed: no operands, so its tangents are always symbolic zeros
# no transpose rule: no operands


@core.vmap_rules.register(iota_2x32_shape_p)
def _iota_2x32_shape_vmap(axis_size, vals, dims, **params):  # never called: no operands
    return iota_2x32_shape_p.bind(**params), [NOT_MAPPED, NOT_MAPPED]


@core.lowering_rules.register(iota_2x32_shape_p)
def _iota_2x32_shape_lowering(ctx, *, shape):
    # as JAX lowers it: a uint64 iota per axis, times the axis stride, summed, then halved
    hlo = ctx.hlo
    aval64 = ShapedArray(shape, uint64)
    type64 = ctx.tensor_type(aval64)
    strides = [math.prod(shape[i + 1 :]) for i in range(len(shape))]

    def const64(v: int) -> Any:  # (`ctx.constant` would canonicalize uint64 to uint32)
        element = ctx.module.element_type(uint64)
        attr = ctx.ir.DenseElementsAttr.get_splat(type64, ctx.ir.IntegerAttr.get(element, v))
        return hlo.constant(attr)

    counts = None
    for dim, stride in enumerate(strides):
        term = hlo.multiply(const64(stride), hlo.iota(type64, dim))
        counts = term if counts is None else hlo.add(counts, term)
    high = hlo.shift_right_logical(counts, const64(32))
    out_type = ctx.tensor_type(ctx.avals_out[0])
    return [hlo.convert(out_type, high), hlo.convert(out_type, counts)]
