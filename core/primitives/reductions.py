"""Reductions other than reduce_sum (which sits with broadcast_in_dim in shape.py):
reduce_max, reduce_min, reduce_prod, argmax, argmin, reduce_and, reduce_or, reduce_xor.

Layer 2. The jvp of max/min spreads the tangent evenly over the positions that attain the
extremum, as JAX does; argmax has an integer output and no derivative.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray
from didax.primitives import concatenation, creation, rules, shape
from didax.primitives.comparison import eq
from didax.primitives.convert import convert_element_type
from didax.primitives.elementwise import div, mul


def _reduction_primitive(name: str, fn: Any) -> core.Primitive:
    prim = core.Primitive(name)

    def impl(x, *, axes, **params):
        x = np.asarray(x)
        return [np.asarray(fn(x, axis=axes)).astype(x.dtype)]

    core.impl_rules.register(prim, impl)
    core.abstract_eval_rules.register(prim, shape.reduction_aval(name))
    core.vmap_rules.register(prim, shape.reduction_vmap(prim.bind))
    return prim


def xla_max(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    # XLA orders -0.0 below +0.0: a zero maximum is +0.0 if the slice holds one
    # an empty slice reduces to the identity (-inf, the least integer, False), as in XLA
    out = np.max(x, axis=axis, initial=rules.reduction_identity("maximum", x.dtype))
    if dtypes.kind(x.dtype) == 2 and x.size:
        positive_zero = np.any((x == 0) & ~np.signbit(x), axis=axis)
        out = np.where(out == 0, np.where(positive_zero, 0.0, -0.0), out).astype(x.dtype)
    return out


def xla_min(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    # a zero minimum is -0.0 if the slice holds one; an empty slice's is the identity
    out = np.min(x, axis=axis, initial=rules.reduction_identity("minimum", x.dtype))
    if dtypes.kind(x.dtype) == 2 and x.size:
        negative_zero = np.any((x == 0) & np.signbit(x), axis=axis)
        out = np.where(out == 0, np.where(negative_zero, -0.0, 0.0), out).astype(x.dtype)
    return out


reduce_max_p = _reduction_primitive("reduce_max", xla_max)
reduce_min_p = _reduction_primitive("reduce_min", xla_min)
reduce_prod_p = _reduction_primitive("reduce_prod", np.prod)


def reduce_max(x: Any, axes: tuple[int, ...]) -> Any:
    """Like `jax.lax.reduce_max`."""
    return reduce_max_p.bind(x, axes=tuple(sorted(axes)))


def reduce_min(x: Any, axes: tuple[int, ...]) -> Any:
    """Like `jax.lax.reduce_min`."""
    return reduce_min_p.bind(x, axes=tuple(sorted(axes)))


def reduce_prod(x: Any, axes: tuple[int, ...]) -> Any:
    """Like `jax.lax.reduce_prod`."""
    return reduce_prod_p.bind(x, axes=tuple(sorted(axes)))


def _kept_dims(x: Any, axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(i for i in range(core.get_aval(x).ndim) if i not in axes)


def _extremum_jvp(prim: core.Primitive) -> core.JvpRule:
    def rule(primals, tangents, *, axes):
        (x,), (x_dot,) = primals, tangents
        out = prim.bind(x, axes=axes)
        x_shape = core.get_aval(x).shape
        location = eq(x, shape.broadcast_in_dim(out, x_shape, _kept_dims(x, axes)))
        location = convert_element_type(location, core.get_aval(x).dtype)
        counts = shape.reduce_sum(location, axes)
        return [out], [div(shape.reduce_sum(mul(x_dot, location), axes), counts)]

    return rule


core.jvp_rules.register(reduce_max_p, _extremum_jvp(reduce_max_p))
core.jvp_rules.register(reduce_min_p, _extremum_jvp(reduce_min_p))
core.lowering_rules.register(reduce_max_p, rules.reduce_lowering("maximum"))
core.lowering_rules.register(reduce_min_p, rules.reduce_lowering("minimum"))


@core.jvp_rules.register(reduce_prod_p)
def _reduce_prod_jvp(primals, tangents, *, axes):
    (x,), (x_dot,) = primals, tangents
    out = reduce_prod(x, axes)  # d prod(x) = sum(prod(x) / x_i dx_i); x_i == 0 handled below
    others = _prod_of_others(x, axes)  # without dividing by x: exact where x == 0
    return [out], [shape.reduce_sum(mul(x_dot, others), axes)]


def _prod_of_others(x: Any, axes: tuple[int, ...]) -> Any:
    # for each position, the product of the other entries along `axes`: exclusive cumulative
    # products from the left and from the right, taken over the flattened reduced axes.
    aval = core.get_aval(x)
    kept = _kept_dims(x, axes)
    perm = (*kept, *axes)
    moved = shape.transpose(x, perm)
    kept_shape = tuple(aval.shape[i] for i in kept)
    n = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    flat = shape.reshape(moved, (*kept_shape, n))
    ones = creation.full((*kept_shape, 1), 1, aval.dtype)
    left, right = [ones], [ones]
    for i in range(1, n):
        prev = _column(flat, i - 1, kept_shape)
        left.append(mul(left[-1], prev))
        nxt = _column(flat, n - i, kept_shape)
        right.append(mul(right[-1], nxt))
    pieces = [mul(left[i], right[n - 1 - i]) for i in range(n)]
    others = concatenation.concatenate(pieces, len(kept_shape)) if n else flat
    others = shape.reshape(others, tuple(aval.shape[i] for i in perm))
    return shape.transpose(others, tuple(int(i) for i in np.argsort(perm)))


def _column(flat: Any, i: int, kept_shape: tuple[int, ...]) -> Any:
    nd = len(kept_shape)
    return concatenation.slice(flat, (0,) * nd + (i,), (*kept_shape, i + 1))


core.lowering_rules.register(reduce_prod_p, rules.reduce_lowering("multiply"))


def _index_reduction_lowering(direction: str, identity_op: str) -> core.LoweringRule:
    # One reduce over (value, index) pairs keeping the better value (`direction`), a NaN
    # before any number (as NumPy), and the smaller index among equals: the first extremum.
    def rule(ctx, x, *, axes, index_dtype):
        hlo, aval, out = ctx.hlo, ctx.avals_in[0], ctx.avals_out[0]
        indices = hlo.iota(ctx.tensor_type(ShapedArray(aval.shape, index_dtype)), axes[0])
        inits = [
            ctx.constant(rules.reduction_identity(identity_op, aval.dtype), aval.dtype),
            ctx.constant(0, index_dtype),
        ]
        reduce = hlo.ReduceOp(
            [ctx.tensor_type(out.update(dtype=aval.dtype)), ctx.tensor_type(out)],
            [x, indices],
            inits,
            axes,
        )
        value_t = ctx.tensor_type(ShapedArray((), aval.dtype))
        index_t = ctx.tensor_type(ShapedArray((), index_dtype))
        body = reduce.regions[0].blocks.append(value_t, index_t, value_t, index_t)
        with ctx.ir.InsertionPoint(body):
            acc, acc_i, val, val_i = body.arguments
            better = rules.compare(ctx, val, acc, direction, aval.dtype)
            same = rules.compare(ctx, val, acc, "EQ", aval.dtype)
            if dtypes.is_float(aval.dtype):
                val_nan = rules.compare(ctx, val, val, "NE", aval.dtype)
                acc_nan = rules.compare(ctx, acc, acc, "NE", aval.dtype)
                better = hlo.or_(better, hlo.and_(val_nan, hlo.not_(acc_nan)))
                same = hlo.or_(same, hlo.and_(val_nan, acc_nan))
            earlier = rules.compare(ctx, val_i, acc_i, "LT", index_dtype)
            take = hlo.or_(better, hlo.and_(same, earlier))
            hlo.return_([hlo.select(take, val, acc), hlo.select(take, val_i, acc_i)])
        return [reduce.results[1]]

    return rule


def _index_reduction(name: str, np_fn: Any, direction: str, identity_op: str) -> core.Primitive:
    # argmax / argmin: the index of the first extremum along one axis (a NaN first, as NumPy)
    prim = core.Primitive(name)

    def impl(x, *, axes, index_dtype):
        return [np.asarray(np_fn(x, axis=axes[0])).astype(index_dtype)]

    core.impl_rules.register(prim, rules.validated_impl(prim, impl))

    @core.abstract_eval_rules.register(prim)
    def _abstract_eval(x, *, axes, index_dtype):
        (axis,) = axes
        if dtypes.is_complex(x.dtype):  # no order on complex numbers (JAX's `gt` refuses them)
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}: complex has no order")
        if not (0 <= axis < x.ndim) or x.shape[axis] == 0:
            raise TypeError(f"{name}: axis {axis} is out of bounds or empty for {x.str_short()}")
        return [ShapedArray(tuple(s for i, s in enumerate(x.shape) if i != axis), index_dtype)]

    core.jvp_rules.register(prim, rules.zero_jvp(prim))
    core.vmap_rules.register(prim, shape.reduction_vmap(prim.bind))
    core.lowering_rules.register(prim, _index_reduction_lowering(direction, identity_op))
    return prim


argmax_p = _index_reduction("argmax", np.argmax, "GT", "maximum")
argmin_p = _index_reduction("argmin", np.argmin, "LT", "minimum")


def argmax(x: Any, axis: int, index_dtype: Any = dtypes.int32) -> Any:
    """Index of the first maximum along `axis`. Like `jax.lax.argmax`."""
    return argmax_p.bind(x, axes=(int(axis),), index_dtype=dtypes.canonicalize(index_dtype))


def argmin(x: Any, axis: int, index_dtype: Any = dtypes.int32) -> Any:
    """Index of the first minimum along `axis`. Like `jax.lax.argmin`."""
    return argmin_p.bind(x, axes=(int(axis),), index_dtype=dtypes.canonicalize(index_dtype))


# ----------------------------------------------------------------------------- and, or, xor
# Reductions of booleans or integers by the bitwise ops: integer results, no derivative.


def _bitwise_reduction(name: str, np_fn: Any, hlo_op: str) -> core.Primitive:
    prim = core.Primitive(name)

    def impl(x, *, axes):
        x = np.asarray(x)
        return [np.asarray(np_fn.reduce(x, axis=axes)).astype(x.dtype)]

    core.impl_rules.register(prim, rules.validated_impl(prim, impl))

    @core.abstract_eval_rules.register(prim)
    def _abstract_eval(x, *, axes):
        if dtypes.is_float(x.dtype):
            raise TypeError(
                f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes "
                "of bool, integer."
            )
        return [ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype)]

    core.jvp_rules.register(prim, rules.zero_jvp(prim))
    core.vmap_rules.register(prim, shape.reduction_vmap(prim.bind))

    @core.lowering_rules.register(prim)
    def _lowering(ctx, x, *, axes):
        dtype = ctx.avals_in[0].dtype
        start = {"and_": -1, "or_": 0, "xor": 0}[hlo_op]
        start = bool(start) if dtype == dtypes.bool_ else start
        init = ctx.constant(np.array(start).astype(dtype), dtype)
        reduce = ctx.hlo.ReduceOp([ctx.tensor_type(ctx.avals_out[0])], [x], [init], axes)
        scalar = ctx.tensor_type(ShapedArray((), dtype))
        body = reduce.regions[0].blocks.append(scalar, scalar)
        with ctx.ir.InsertionPoint(body):
            ctx.hlo.return_([getattr(ctx.hlo, hlo_op)(*body.arguments)])
        return [reduce.results[0]]

    return prim


reduce_and_p = _bitwise_reduction("reduce_and", np.bitwise_and, "and_")
reduce_or_p = _bitwise_reduction("reduce_or", np.bitwise_or, "or_")
reduce_xor_p = _bitwise_reduction("reduce_xor", np.bitwise_xor, "xor")


def reduce_and(x: Any, axes: Any) -> Any:
    """Bitwise (logical for booleans) and over `axes`. Like `jax.lax.reduce_and`."""
    return reduce_and_p.bind(x, axes=tuple(int(a) for a in axes))


def reduce_or(x: Any, axes: Any) -> Any:
    """Bitwise (logical for booleans) or over `axes`. Like `jax.lax.reduce_or`."""
    return reduce_or_p.bind(x, axes=tuple(int(a) for a in axes))


def reduce_xor(x: Any, axes: Any) -> Any:
    """Bitwise (logical for booleans) xor over `axes`. Like `jax.lax.reduce_xor`."""
    return reduce_xor_p.bind(x, axes=tuple(int(a) for a in axes))
