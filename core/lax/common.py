"""Rule factories and helpers shared by the first-order primitive families.

Layer 2. Mechanical rules (elementwise impls, same-aval abstract evaluation, vectorized
batching) come from the named factories here; the math of each op is written out next to the
op in its family module. Tangent helpers treat `core.Zero` symbolically so that zero tangents
and cotangents are never materialized.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from didax import core, dtypes
from didax.core import ShapedArray, Zero

# ----------------------------------------------------------------------------- impl


def elementwise_impl(fn: Callable[..., Any]) -> core.ImplRule:
    def impl(*args: Any, **params: Any) -> list:
        out = fn(*args)
        dtype = args[0].dtype
        return [out if out.dtype == dtype else out.astype(dtype)]

    return impl


def predicate_impl(fn: Callable[..., Any]) -> core.ImplRule:
    def impl(*args: Any) -> list:
        return [np.asarray(fn(*args))]

    return impl


# ----------------------------------------------------------------------------- abstract eval


def same_aval(x: ShapedArray, **params: Any) -> list[ShapedArray]:
    return [x]


def float_aval(name: str) -> core.AbstractEvalRule:
    def rule(x: ShapedArray, **params: Any) -> list[ShapedArray]:
        if not dtypes.is_float(x.dtype):
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}: it needs a "
                            "floating-point operand")
        return [x]

    return rule


def broadcast_shapes(name: str, *avals: ShapedArray) -> tuple[int, ...]:
    """Operands of an n-ary elementwise primitive have equal shapes, or are scalars."""
    shapes = [a.shape for a in avals if a.shape]
    if any(s != shapes[0] for s in shapes):
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        + ", ".join(str(a.shape) for a in avals) + ".")
    return shapes[0] if shapes else ()


def naryop_aval(name: str, allowed: str = "any") -> core.AbstractEvalRule:
    def rule(*avals: ShapedArray, **params: Any) -> list[ShapedArray]:
        dtype = avals[0].dtype
        if any(a.dtype != dtype for a in avals):
            raise TypeError(f"{name} requires arguments to have the same dtypes, got "
                            + ", ".join(a.dtype.name for a in avals) + ".")
        if allowed == "float" and not dtypes.is_float(dtype):
            raise TypeError(f"{name} does not accept dtype {dtype.name}")
        if allowed == "int_or_bool" and dtypes.is_float(dtype):
            raise TypeError(f"{name} does not accept dtype {dtype.name}")
        shape = broadcast_shapes(name, *avals)
        weak = all(a.weak_type for a in avals)
        return [ShapedArray(shape, dtype, weak)]

    return rule


def compare_aval(name: str) -> core.AbstractEvalRule:
    def rule(x: ShapedArray, y: ShapedArray) -> list[ShapedArray]:
        if x.dtype != y.dtype:
            raise TypeError(f"{name} requires arguments to have the same dtypes, got "
                            f"{x.dtype.name}, {y.dtype.name}.")
        return [ShapedArray(broadcast_shapes(name, x, y), dtypes.bool_)]

    return rule


# ----------------------------------------------------------------------------- jvp


def linear_unary_jvp(fn: Callable[..., Any]) -> core.JvpRule:
    """The jvp of a primitive linear in its single operand: apply it to the tangent."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple:
        (x,), (x_dot,) = primals, tangents
        return [fn(x, **params)], [fn(x_dot, **params)]

    return rule


def linear_unary_transpose(fn: Callable[..., Any]) -> core.TransposeRule:
    """Transpose of a unary primitive that is its own transpose up to params."""

    def rule(cts: Sequence[Any], x: Any, **params: Any) -> list:
        (ct,) = cts
        return [Zero(x.aval) if isinstance(ct, Zero) else fn(ct, **params)]

    return rule


def vectorized_vmap(fn: Callable[..., Any]) -> core.VmapRule:
    """Batching of a unary elementwise primitive: apply it as it is."""

    def rule(axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple:
        (x,), (d,) = vals, dims
        return [fn(x, **params)], [d]

    return rule
