"""Rule factories and helpers shared by the first-order primitive families.

Layer 2. Mechanical rules (elementwise impls, same-aval abstract evaluation, vectorized
batching) come from the named factories here; the math of each op is written out next to the
op in its family module. Tangent helpers treat `core.Zero` symbolically so that zero tangents
and cotangents are never materialized.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray
from didax.fast_path import eager_binary, eager_unary  # noqa: F401 - the families' eager rules

# ----------------------------------------------------------------------------- impl


def _ill_typed(args: tuple, floats_only: bool) -> bool:
    # Cheap tests that let well-typed eager operands skip abstract evaluation: one or two
    # operands, dtypes identical (builtin dtypes are singletons), array shapes equal. A
    # complex operand of a float op is checked too (some accept it, some not).
    x = args[0]
    dtype = x.dtype
    if dtypes.kind(dtype) != 2 and (floats_only or dtypes.kind(dtype) == 3):
        return True
    if len(args) == 1:
        return False
    if len(args) > 2:
        return True
    y = args[1]
    return y.dtype is not dtype or (y.shape != x.shape and bool(y.shape) and bool(x.shape))


def _check(aval_rule: core.AbstractEvalRule, args: tuple, params: dict) -> None:
    aval_rule(*(ShapedArray(np.shape(a), a.dtype) for a in args), **params)


def elementwise_impl(
    fn: Callable[..., Any],
    aval_rule: core.AbstractEvalRule | None = None,
    floats_only: bool = False,
) -> core.ImplRule:
    """Apply the NumPy function `fn`, keeping the operands' dtype. With `aval_rule`, operands
    that may be ill-typed (dtypes differ, array shapes differ, a non-float operand of a
    float-only op) go through it first, so that eager calls raise the TypeError that staged
    calls raise."""

    def impl(*args: Any, **params: Any) -> list:
        if aval_rule is not None and _ill_typed(args, floats_only):
            _check(aval_rule, args, params)
        out = fn(*args)
        dtype = args[0].dtype
        return [out if out.dtype is dtype else out.astype(dtype)]

    return impl


def predicate_impl(
    fn: Callable[..., Any],
    aval_rule: core.AbstractEvalRule | None = None,
    floats_only: bool = False,
) -> core.ImplRule:
    """Apply the NumPy predicate `fn` (a bool result); `aval_rule` as in `elementwise_impl`."""

    def impl(*args: Any, **params: Any) -> list:
        if aval_rule is not None and _ill_typed(args, floats_only):
            _check(aval_rule, args, params)
        return [np.asarray(fn(*args))]

    return impl


def validated_impl(prim: core.Primitive, impl: core.ImplRule) -> core.ImplRule:
    """`impl`, run after `prim`'s abstract evaluation rule has checked the operands, so that
    eager calls raise the TypeError staged ones raise (structural primitives, whose NumPy
    impls would raise other errors, or none)."""

    def rule(*args: Any, **params: Any) -> list:
        core.abstract_eval_rules[prim](*(ShapedArray(np.shape(a), a.dtype) for a in args), **params)
        return impl(*args, **params)

    return rule


def is_didax_value(x: Any) -> bool:
    """An Array or a Tracer: what a wrapper that has nothing to do may return as it is.
    NumPy values and Python scalars still become Arrays, as JAX's wrappers return Arrays."""
    return isinstance(x, core.Tracer) or isinstance(getattr(x, "aval", None), ShapedArray)


# ----------------------------------------------------------------------------- abstract eval


def same_aval(x: ShapedArray, **params: Any) -> list[ShapedArray]:
    return [x]


def float_aval(name: str, complex_ok: bool = False) -> core.AbstractEvalRule:
    """Abstract evaluation of a unary op on floating operands (complex ones too when
    `complex_ok`: `sin` takes them, `floor` does not), keeping the operand's type."""

    def rule(x: ShapedArray, **params: Any) -> list[ShapedArray]:
        if not (dtypes.is_float(x.dtype) if complex_ok else dtypes.is_real_float(x.dtype)):
            accepted = "inexact" if complex_ok else "floating"
            raise TypeError(
                f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                f"subtypes of {accepted}."
            )
        return [x]

    return rule


def broadcast_shapes(name: str, *avals: ShapedArray) -> tuple[int, ...]:
    """Operands of an n-ary elementwise primitive are scalars or arrays of one rank whose
    sizes agree or are 1 (as in JAX 0.10's lax: `f32[2,1] + f32[1,3]` is `f32[2,3]`)."""
    shapes = [a.shape for a in avals if a.shape]
    if not shapes:
        return ()
    if any(len(s) != len(shapes[0]) for s in shapes):
        raise TypeError(
            f"{name}: arrays must have same number of dimensions, got "
            + ", ".join(str(s) for s in shapes)
            + "."
        )
    out = []
    for sizes in zip(*shapes):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise TypeError(
                f"{name} got incompatible shapes for broadcasting: "
                + ", ".join(str(s) for s in shapes)
                + "."
            )
        out.append(big.pop() if big else 1)
    return tuple(out)


def naryop_aval(name: str, allowed: str = "any") -> core.AbstractEvalRule:
    def rule(*avals: ShapedArray, **params: Any) -> list[ShapedArray]:
        if len(avals) == 2 and allowed == "any":  # the common case, decided without loops
            x, y = avals
            if x.dtype == y.dtype and (x.shape == y.shape or not y.shape):
                return [x if x.weak_type <= y.weak_type else x.strip_weak_type()]
            if x.dtype == y.dtype and not x.shape:
                return [ShapedArray.make(y.shape, y.dtype, x.weak_type and y.weak_type)]
        dtype = avals[0].dtype
        if any(a.dtype != dtype for a in avals):
            raise TypeError(
                f"{name} requires arguments to have the same dtypes, got "
                + ", ".join(a.dtype.name for a in avals)
                + "."
            )
        if allowed == "float" and not dtypes.is_real_float(dtype):
            raise TypeError(f"{name} does not accept dtype {dtype.name}")
        if allowed == "real" and dtypes.is_complex(dtype):  # rem, lt: no order on complex
            raise TypeError(
                f"{name} does not accept dtype {dtype.name}. Accepted dtypes are subtypes "
                "of integer, floating, bool."
            )
        if allowed == "int_or_bool" and dtypes.is_float(dtype):
            raise TypeError(f"{name} does not accept dtype {dtype.name}")
        shape = broadcast_shapes(name, *avals)
        weak = all(a.weak_type for a in avals)
        return [ShapedArray(shape, dtype, weak)]

    return rule


def compare_aval(name: str, complex_ok: bool = True) -> core.AbstractEvalRule:
    """Abstract evaluation of a comparison; an order (`lt`) is not defined on complex."""

    def rule(x: ShapedArray, y: ShapedArray) -> list[ShapedArray]:
        if not complex_ok and dtypes.is_complex(x.dtype):
            raise TypeError(
                f"{name} does not accept dtype {x.dtype.name} at position 0. Accepted dtypes "
                "at position 0 are subtypes of integer, floating, bool."
            )
        if x.dtype != y.dtype:
            raise TypeError(
                f"{name} requires arguments to have the same dtypes, got "
                f"{x.dtype.name}, {y.dtype.name}."
            )
        # weak when both operands are: JAX's `1.0 < 2.0` is a weak bool
        return [
            ShapedArray(broadcast_shapes(name, x, y), dtypes.bool_, x.weak_type and y.weak_type)
        ]

    return rule


# ----------------------------------------------------------------------------- jvp


def zero_jvp(prim: core.Primitive) -> core.JvpRule:
    """The jvp of a primitive whose outputs do not vary with its operands (comparisons,
    rounding, integer results): symbolic zero tangents."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple:
        outs = prim.bind(*primals, **params)
        outs = outs if prim.multiple_results else [outs]
        return list(outs), [core.Zero.like(o) for o in outs]

    return rule


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
        return [fn(ct, **params)]

    return rule


def vectorized_vmap(fn: Callable[..., Any]) -> core.VmapRule:
    """Batching of a unary elementwise primitive: apply it as it is."""

    def rule(axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple:
        (x,), (d,) = vals, dims
        return [fn(x, **params)], [d]

    return rule


# ----------------------------------------------------------------------------- lowering
# Rules receive a `core.LoweringContext`: `ctx.hlo` holds jaxlib's StableHLO op builders,
# loaded on the first compile, so this module never imports jaxlib.


def broadcast_operands(ctx: core.LoweringContext, args: Sequence[Any]) -> list[Any]:
    """Operands of an elementwise op broadcast to the result's shape: lax accepts rank-0
    operands (`mul b 3.0:f32[]`) and size-1 axes, StableHLO wants equal shapes."""
    shape = ctx.avals_out[0].shape
    out = []
    for x, aval in zip(args, ctx.avals_in, strict=True):
        if aval.shape != shape:  # rank 0: dims (); same rank: size-1 axes stretch
            out_type = ctx.tensor_type(aval.update(shape=shape))
            x = ctx.hlo.broadcast_in_dim(out_type, x, tuple(range(aval.ndim)))
            x = ctx.module.typed_annotation(x, ctx.avals_out[0])  # split as the result
        out.append(x)
    return out


def broadcast_constant(ctx: core.LoweringContext, value: Any, aval: ShapedArray) -> Any:
    """`value` filled into an array of type `aval` (one scalar constant, broadcast)."""
    scalar = ctx.constant(value, aval.dtype)
    if not aval.shape:
        return scalar
    return ctx.hlo.broadcast_in_dim(ctx.tensor_type(aval), scalar, ())


def direct_lowering(op: str, *, bool_op: str | None = None) -> core.LoweringRule:
    """Lowering to the StableHLO op named `op` (`direct_lowering("sine")` is
    `stablehlo.sine`), on operands broadcast to the result's shape; `bool_op` replaces `op`
    for bool operands (a sum of bools is their `or`)."""

    def rule(ctx: core.LoweringContext, *args: Any, **params: Any) -> list:
        name = bool_op if bool_op and ctx.avals_in[0].dtype == dtypes.bool_ else op
        return [getattr(ctx.hlo, name)(*broadcast_operands(ctx, args))]

    return rule


def compare_type(dtype: np.dtype) -> str:
    """How StableHLO compares values of `dtype`."""
    if dtypes.is_float(dtype):
        return "FLOAT"
    return "SIGNED" if dtype.kind == "i" else "UNSIGNED"  # unsigned integers and bool


def compare(ctx: core.LoweringContext, x: Any, y: Any, direction: str, dtype: np.dtype) -> Any:
    """`stablehlo.compare` of two equal-shaped values of `dtype` ("GT", "EQ", ...)."""
    hlo = ctx.hlo
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(compare_type(dtype)),
    )


def compare_lowering(direction: str) -> core.LoweringRule:
    """Lowering of a comparison primitive (`direction` is "GT", "LT", "EQ", ...)."""

    def rule(ctx: core.LoweringContext, x: Any, y: Any) -> list:
        x, y = broadcast_operands(ctx, (x, y))
        return [compare(ctx, x, y, direction, ctx.avals_in[0].dtype)]

    return rule


# the StableHLO op that reduces booleans for each reduction op
BOOL_REDUCERS = {"add": "or_", "maximum": "or_", "multiply": "and_", "minimum": "and_"}


def reduction_identity(op: str, dtype: np.dtype) -> Any:
    """The start value of a reduction by the StableHLO op `op` over `dtype`."""
    if op == "add":
        return 0
    if op == "multiply":
        return 1
    if dtype == dtypes.bool_:
        return op == "minimum"
    if dtypes.is_float(dtype):
        return -np.inf if op == "maximum" else np.inf
    info = np.iinfo(dtype)
    return info.min if op == "maximum" else info.max


def reduce_lowering(op: str) -> core.LoweringRule:
    """Lowering of a reduction over `axes` by the binary StableHLO op `op` ("add",
    "maximum", ...): a `stablehlo.reduce` whose body applies `op`, from its identity."""

    def rule(ctx: core.LoweringContext, x: Any, *, axes: tuple[int, ...], **params: Any) -> list:
        if not axes:
            return [x]
        dtype = ctx.avals_in[0].dtype
        name = BOOL_REDUCERS[op] if dtype == dtypes.bool_ else op
        init = ctx.constant(reduction_identity(op, dtype), dtype)
        reduce = ctx.hlo.ReduceOp([ctx.tensor_type(ctx.avals_out[0])], [x], [init], axes)
        scalar = ctx.tensor_type(ShapedArray((), dtype))
        body = reduce.regions[0].blocks.append(scalar, scalar)
        with ctx.ir.InsertionPoint(body):
            ctx.hlo.return_([getattr(ctx.hlo, name)(*body.arguments)])
        return [reduce.results[0]]

    return rule
