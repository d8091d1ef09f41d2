"""NumPy's API on top of `didax.lax`: broadcasting, dtype promotion, `axis`/`keepdims`.

Layer 5. Declares no primitives: every function composes lax wrappers, so the jaxpr of a
program written with `didax.numpy` has the equations JAX's has for the same program. Binary
functions first promote dtypes (JAX's lattice, Python scalars weak) and broadcast shapes
(scalars are left for the primitive to broadcast, as JAX 0.10 does).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.array import Array
from didax.array import asarray as _asarray_concrete
from didax.array import eager_result as _eager_result
from didax.control_flow.jit import jit as _jit
from didax.primitives import elementwise as _ew
from didax.primitives import shape as _shape

# ----------------------------------------------------------------------------- dtypes


class _ScalarType:
    """`jnp.float32` and friends: a dtype (np.dtype(jnp.float32) works) and a constructor."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.__name__ = self.dtype.name if self.dtype != np.bool_ else "bool_"

    def __call__(self, x: Any) -> Any:
        return asarray(x, self.dtype)

    def __repr__(self) -> str:
        return f"didax.numpy.{self.__name__}"

    def __eq__(self, other: object) -> bool:
        try:
            return self.dtype == np.dtype(other)  # type: ignore[arg-type]
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.dtype)


float32 = _ScalarType(np.float32)
float64 = _ScalarType(np.float64)  # float32 values unless x64 is on, as in JAX
float16 = _ScalarType(np.float16)
int32 = _ScalarType(np.int32)
int64 = _ScalarType(np.int64)
complex64 = _ScalarType(np.complex64)
complex128 = _ScalarType(np.complex128)
int8 = _ScalarType(np.int8)
uint8 = _ScalarType(np.uint8)
bool_ = _ScalarType(np.bool_)
ndarray = Array
inf, nan, pi, e = np.inf, np.nan, np.pi, np.e
newaxis = None


def _dtype(d: Any) -> np.dtype:
    return dtypes.canonicalize(getattr(d, "dtype", d) if isinstance(d, _ScalarType) else d)


# ----------------------------------------------------------------------------- promotion


def _check_arraylike(name: str, *args: Any) -> None:
    for i, x in enumerate(args):
        if not core.is_arraylike(x):
            raise TypeError(
                f"{name} requires ndarray or scalar arguments, got "
                f"{type(x).__name__} at position {i}."
            )


def _promote(name: str, *args: Any) -> list[Any]:
    """Convert `args` to their common dtype; Python scalars become literals of that dtype."""
    _check_arraylike(name, *args)
    avals = [core.get_aval(x) for x in args]
    dtype, weak = dtypes.result_type(*((a.dtype, a.weak_type) for a in avals))
    return [
        lax.convert_element_type(x, dtype, weak)
        if (a.dtype, a.weak_type) != (dtype, weak) or dtypes.is_python_scalar(x)
        else x
        for x, a in zip(args, avals, strict=True)
    ]


def _broadcast(name: str, *args: Any) -> list[Any]:
    """NumPy broadcasting as JAX's numpy does it: operands of different ranks get leading
    size-1 axes (`f32[3]` -> `f32[1,3]`); the primitive broadcasts size-1 axes and scalars."""
    shapes = [core.get_aval(x).shape for x in args]
    try:
        rank = len(np.broadcast_shapes(*shapes))
    except ValueError:
        if len({len(s) for s in shapes if s}) < 2:  # the primitive's error, raised eagerly too
            raise TypeError(
                f"{name} got incompatible shapes for broadcasting: "
                + ", ".join(str(s) for s in shapes if s)
                + "."
            ) from None
        raise ValueError(
            f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
        ) from None
    if len({len(s) for s in shapes if s}) < 2:
        return list(args)
    return [
        x
        if len(s) == rank
        else lax.broadcast_in_dim(x, (1,) * (rank - len(s)) + s, tuple(range(rank - len(s), rank)))
        for x, s in zip(args, shapes, strict=True)
    ]


def _broadcast_arrays(name: str, *args: Any) -> list[Any]:
    """Operands broadcast to one shape, scalars left as they are (for `where`: `select_n`
    does not broadcast)."""
    shapes = [core.get_aval(x).shape for x in args]
    try:
        out = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
        ) from None
    result = []
    for x, s in zip(args, shapes, strict=True):
        if s == out or not s:
            result.append(x)
        else:
            dims = tuple(range(len(out) - len(s), len(out)))
            result.append(lax.broadcast_in_dim(x, out, dims))
    return result


def _promote_pair(name: str, x: Any, y: Any) -> list[Any]:
    # Fast path (the eager hot loop): two arrays of one type and shape, or an array and a
    # Python scalar that is already of the array's kind, need no conversion or broadcast.
    ax, ay = getattr(x, "aval", None), getattr(y, "aval", None)
    if ax is not None:
        if ay is not None:
            if ax.dtype == ay.dtype and ax.weak_type == ay.weak_type and ax.shape == ay.shape:
                return [x, y]
        elif _scalar_fits(y, ax):
            return [x, _fitted_scalar(y, ax)]
    elif ay is not None and _scalar_fits(x, ay):
        return [_fitted_scalar(x, ay), y]
    return _broadcast(name, *_promote(name, x, y))


def _scalar_fits(v: Any, aval: core.ShapedArray) -> bool:
    t = type(v)
    return (t is float and aval.dtype == dtypes.default_float()) or (
        t is int and aval.dtype == dtypes.default_int()
    )


def _fitted_scalar(v: Any, aval: core.ShapedArray) -> Any:
    # A Python scalar of the array's dtype is left as it is where that changes nothing: beside
    # a weak array (JAX keeps it as written: `mul a 1.67:f32[]`), or eagerly (NumPy computes
    # with it as a weak scalar). Staged beside a strong array JAX converts it, and its literal
    # prints rounded to the dtype (`1.6699999570846558:f32[]`).
    if aval.weak_type or core.trace_state() is core.EAGER_STATE:
        return v
    return _eager_result(np.array(v, aval.dtype)[()], False)  # a strong scalar constant


def _to_inexact(name: str, x: Any) -> Any:
    aval = getattr(x, "aval", None)
    if aval is not None and dtypes.kind(aval.dtype) >= 2:
        return x
    _check_arraylike(name, x)
    aval = core.get_aval(x)
    if dtypes.is_float(aval.dtype) and not dtypes.is_python_scalar(x):
        return x
    if dtypes.is_float(aval.dtype):
        return lax.convert_element_type(x, aval.dtype, aval.weak_type)
    return lax.convert_element_type(x, dtypes.default_float(), aval.weak_type)


def _inner_jit(fn: Any, name: str, static_argnums: tuple[int, ...] = ()) -> Any:
    """`fn` as JAX's numpy runs it: an inner `jit(fn, inline=True)`, so that a jaxpr shows one
    `jit[name=...]` equation for it as JAX's does (`name` is the one JAX's jaxprs show). With
    nothing being traced it just runs, eagerly with NumPy like the rest of didax.numpy (an
    inline jit is part of its caller)."""
    fn.__name__ = name
    jitted = _jit(fn, static_argnums=static_argnums, inline=True)

    def call(*args: Any) -> Any:
        return fn(*args) if core.trace_state() is core.EAGER_STATE else jitted(*args)

    return functools.update_wrapper(call, fn)


# ----------------------------------------------------------------------------- creation


def asarray(x: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.asarray`."""
    if isinstance(x, core.Tracer):
        return x if dtype is None else lax.convert_element_type(x, _dtype(dtype), False)
    if isinstance(x, (list, tuple)) and any(isinstance(leaf, core.Tracer) for leaf in _leaves(x)):
        return _stack_nested(x, dtype)
    if dtype is None and isinstance(x, Array):
        return x
    if dtype is not None and isinstance(x, Array):
        return lax.convert_element_type(x, _dtype(dtype), False)
    if isinstance(x, (list, tuple)):
        x = [np.asarray(v) if isinstance(v, Array) else v for v in _leaves_tree(x)]
    _check_array_value(x)
    return _asarray_concrete(x, None if dtype is None else _dtype(dtype))


def _check_array_value(x: Any) -> None:
    # At once, with JAX's errors: None, strings, bytes and other objects would otherwise make
    # object or string arrays that fail later, under jit
    leaves = _leaves(x) if isinstance(x, (list, tuple)) else [x]
    if any(leaf is None for leaf in leaves):
        raise ValueError("None is not a valid value for jnp.array")
    for leaf in leaves:
        if dtypes.is_python_scalar(leaf):
            continue
        array_like = hasattr(leaf, "__array__") or isinstance(leaf, (str, bytes))
        value = np.asarray(leaf) if array_like else np.asarray(leaf, dtype=object)
        if value.dtype.kind in "OSU":
            name = value.dtype.name if value.dtype.kind == "O" else value.dtype.str
            raise TypeError(
                f"Value '{leaf}' with dtype {name} is not a valid JAX array type. "
                "Only arrays of numeric types are supported by JAX."
            )


def array(x: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.array`: a copy (a traced array is staged as `copy`)."""
    if isinstance(x, core.Tracer):
        x = _shape.copy(x)
        return x if dtype is None else lax.convert_element_type(x, _dtype(dtype), False)
    return asarray(x, dtype)


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


def _leaves_tree(x: Any) -> Any:
    return [_leaves_tree(v) if isinstance(v, (list, tuple)) else v for v in x]


def _stack_nested(x: Any, dtype: Any) -> Any:
    items = [_stack_nested(v, dtype) if isinstance(v, (list, tuple)) else v for v in x]
    items = _promote("array", *items)
    if dtype is not None:
        items = [lax.convert_element_type(v, _dtype(dtype), False) for v in items]
    expanded = [_strong_row(v) for v in items]  # each converted, then expanded: JAX's order
    return lax.concatenate(expanded, 0)


def _strong_row(v: Any) -> Any:
    v = lax.convert_element_type(v, core.get_aval(v).dtype, False)
    aval = core.get_aval(v)
    return lax.broadcast_in_dim(v, (1, *aval.shape), tuple(range(1, aval.ndim + 1)))


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    return (
        (operator.index(shape),)
        if np.ndim(shape) == 0 and not isinstance(shape, (tuple, list))
        else tuple(operator.index(s) for s in shape)
    )


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.full`."""
    shape = _shape_tuple(shape)
    _check_arraylike("full", fill_value)
    if core.get_aval(fill_value).shape:
        return broadcast_to(asarray(fill_value, dtype), shape)
    return lax.full(shape, fill_value, None if dtype is None else _dtype(dtype))


def _float_or(dtype: Any) -> np.dtype:
    # the dtype asked for, else the default float (float32, float64 under x64)
    return dtypes.default_float() if dtype is None else _dtype(dtype)


def zeros(shape: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.zeros`."""
    return _shape.full(_shape_tuple(shape), 0, _float_or(dtype))


def ones(shape: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.ones`."""
    return _shape.full(_shape_tuple(shape), 1, _float_or(dtype))


def _full_like(name: str, x: Any, fill_value: int, dtype: Any) -> Any:
    _check_arraylike(name, x)
    aval = core.get_aval(x)
    if dtype is None and aval.weak_type:  # a weak input gives a weak result, as in JAX
        return lax.full(
            aval.shape, float(fill_value) if dtypes.is_float(aval.dtype) else fill_value
        )
    return lax.full(aval.shape, fill_value, aval.dtype if dtype is None else _dtype(dtype))


def zeros_like(x: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.zeros_like`."""
    return _full_like("zeros_like", x, 0, dtype)


def ones_like(x: Any, dtype: Any = None) -> Any:
    """Like `jax.numpy.ones_like`."""
    return _full_like("ones_like", x, 1, dtype)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """Like `jax.numpy.arange` (bounds must be concrete)."""
    for v in (start, stop, step):
        if isinstance(v, core.Tracer):
            core.concrete_or_error(v, "arange with a traced bound")
    values = np.arange(start, stop, step) if stop is not None else np.arange(start)
    out_dtype = _dtype(dtype) if dtype is not None else dtypes.canonicalize(values.dtype)
    if not dtypes.is_float(out_dtype) and not dtypes.is_int(out_dtype):
        return Array(values.astype(out_dtype))
    # As JAX: `start + step * iota`, staged (not a captured constant)
    out = lax.iota(out_dtype, len(values))
    if stop is None:
        return out
    if step is not None:
        out = lax.mul(_scalar_of(step, out_dtype), out)
    return lax.add(_scalar_of(start, out_dtype), out)


def _scalar_of(v: Any, dtype: np.dtype) -> Any:
    return lax.convert_element_type(
        np.asarray(core.concrete_or_error(v, "arange")).item(), dtype, False
    )


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None) -> Any:
    """Like `jax.numpy.linspace` (scalar bounds; an inner jit, as JAX's)."""
    _check_arraylike("linspace", start, stop)
    num = core.concrete_or_error(num, "linspace's num")
    if int(num) < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    out_dtype = _float_or(dtype)
    if int(num) < 2:  # nothing to interpolate
        return (
            lax.full((int(num),), 0, out_dtype)
            if not num
            else lax.broadcast_in_dim(lax.convert_element_type(start, out_dtype, False), (1,), ())
        )
    if dtypes.is_float(out_dtype):
        return _linspace_jit(start, stop, int(num), bool(endpoint), out_dtype)
    # integers: computed in float32 and floored, as JAX does
    out = _linspace_jit(start, stop, int(num), bool(endpoint), dtypes.default_float())
    return lax.convert_element_type(lax.floor(out), out_dtype, False)


def _linspace(start: Any, stop: Any, num: int, endpoint: bool, dtype: np.dtype) -> Any:
    # JAX's formula: start * (1 - t) + stop * t for t = iota / div, then stop appended
    start = lax.convert_element_type(start, dtype, False)
    stop = lax.convert_element_type(stop, dtype, False)
    div = num - 1 if endpoint else num
    lax.div(lax.sub(stop, start), float(div))  # the step (JAX computes it for retstep)
    t = lax.div(lax.iota(dtype, div), float(div))
    out = lax.add(
        lax.mul(lax.reshape(start, (1,)), lax.sub(1.0, t)), lax.mul(lax.reshape(stop, (1,)), t)
    )
    if endpoint:
        out = lax.concatenate([out, lax.broadcast_in_dim(stop, (1,), ())], 0)
    return out


_linspace_jit = _inner_jit(_linspace, "_linspace", static_argnums=(2, 3, 4))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
    """Like `jax.numpy.eye`."""
    M = N if M is None else M  # noqa: N806
    rows = lax.broadcasted_iota(dtypes.int32, (N, M), 0)
    cols = lax.broadcasted_iota(dtypes.int32, (N, M), 1)
    return lax.convert_element_type(lax.eq(lax.add(rows, k), cols), _float_or(dtype), False)


# ----------------------------------------------------------------------------- elementwise


def _elementwise(name: str, fn: Any, prim: core.Primitive) -> Any:
    """A binary elementwise function: promote, broadcast, apply the lax op `fn`. Eager
    Arrays of one dtype (or an Array and a Python scalar of its dtype) need neither: the
    primitive's eager shortcut computes them in one NumPy call."""
    eager = core.eager_rules[prim]  # `bind`'s eager hook, called here without the wrappers
    on_bools = {"add": lax.bitwise_or, "multiply": lax.bitwise_and}.get(name)

    def op(x: Any, y: Any) -> Any:
        if core.trace_state() is core.EAGER_STATE:
            out = eager(x, y)
            if out is not NotImplemented:
                return out
        x, y = _promote_pair(name, x, y)
        if (
            on_bools is not None
            and getattr(getattr(x, "aval", None), "dtype", None) == dtypes.bool_
        ):
            return on_bools(x, y)  # JAX adds bools with `or`, multiplies them with `and`
        return fn(x, y)

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


add = _elementwise("add", lax.add, _ew.add_p)
subtract = _elementwise("subtract", lax.sub, _ew.sub_p)
multiply = _elementwise("multiply", lax.mul, _ew.mul_p)


def divide(x: Any, y: Any) -> Any:
    """True division: integers are converted to float first. Like `jax.numpy.divide`."""
    x, y = _promote("div", x, y)
    if not dtypes.is_float(core.get_aval(x).dtype):
        x, y = (_to_inexact("div", v) for v in (x, y))
    return lax.div(*_broadcast("div", x, y))


true_divide = divide


def floor_divide(x: Any, y: Any) -> Any:
    """Like `jax.numpy.floor_divide` (an inner jit)."""
    _check_arraylike("floor_divide", x, y)
    return _floor_divide_jit(x, y)


def _floor_divide(x: Any, y: Any) -> Any:
    x, y = _promote_pair("floor_divide", x, y)
    dtype, weak = core.get_aval(x).dtype, core.get_aval(x).weak_type
    if dtypes.is_float(dtype):  # as JAX: Python's float divmod, then round
        # constants as weak as the operands
        zero = lax.convert_element_type(0, dtype, weak)
        one = lax.convert_element_type(1, dtype, weak)
        mod = lax.rem(x, y)
        div = lax.div(_where_jit(lax.eq(y, zero), x, lax.sub(x, mod)), y)
        fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(y), lax.sign(mod)))
        lax.select_n(fix, mod, lax.add(mod, y))  # divmod's remainder (unused here)
        return lax.round(lax.select_n(fix, div, lax.sub(div, one)), 0)
    q = lax.div(x, y)
    if np.issubdtype(dtype, np.unsignedinteger):  # as JAX: no negative quotients to fix
        return q
    zero = lax.convert_element_type(0, dtype, weak)  # of the operands' dtype (int8, ...)
    one = lax.convert_element_type(1, dtype, weak)
    fix = lax.bitwise_and(lax.ne(lax.sign(x), lax.sign(y)), lax.ne(lax.rem(x, y), zero))
    return _where_jit(fix, lax.sub(q, one), q)


_floor_divide_jit = _inner_jit(_floor_divide, "floor_divide")


def remainder(x: Any, y: Any) -> Any:
    """Remainder with the sign of `y`. Like `jax.numpy.remainder` (an inner jit)."""
    _check_arraylike("remainder", x, y)
    return _remainder_jit(x, y)


def _remainder(x: Any, y: Any) -> Any:
    x, y = _promote_pair("remainder", x, y)
    aval = core.get_aval(y)
    zero = lax.convert_element_type(0, aval.dtype, False)
    if not dtypes.is_float(aval.dtype):  # x % 0 is not a trap: divide by 1 instead, as JAX
        zero_divisor = lax.eq(y, zero)
        one = lax.full(aval.shape, 1, None if aval.weak_type else aval.dtype)  # full_like
        y = _where_jit(zero_divisor, one, y)
    r = lax.rem(x, y)
    nonzero = lax.ne(r, zero)
    fix = lax.bitwise_and(lax.ne(lax.lt(r, zero), lax.lt(y, zero)), nonzero)
    return lax.select_n(fix, r, lax.add(r, y))


_remainder_jit = _inner_jit(_remainder, "remainder")


mod = remainder


def negative(x: Any) -> Any:
    """Like `jax.numpy.negative`."""
    _check_arraylike("negative", x)
    return lax.neg(x)


def positive(x: Any) -> Any:
    _check_arraylike("positive", x)
    return asarray(x)


def _unary_float(name: str, fn: Any, prim: core.Primitive) -> Any:
    eager = core.eager_rules[prim]  # `bind`'s eager hook, called here without the wrappers

    def op(x: Any) -> Any:
        if core.trace_state() is core.EAGER_STATE:
            out = eager(x)  # an eager float Array: one NumPy call
            if out is not NotImplemented:
                return out
        return fn(_to_inexact(name, x))

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


sin = _unary_float("sin", lax.sin, _ew.sin_p)
cos = _unary_float("cos", lax.cos, _ew.cos_p)
tan = _unary_float("tan", lax.tan, _ew.tan_p)
tanh = _unary_float("tanh", lax.tanh, _ew.tanh_p)
exp = _unary_float("exp", lax.exp, _ew.exp_p)
log = _unary_float("log", lax.log, _ew.log_p)
log1p = _unary_float("log1p", lax.log1p, _ew.log1p_p)
expm1 = _unary_float("expm1", lax.expm1, _ew.expm1_p)
sqrt = _unary_float("sqrt", lax.sqrt, _ew.sqrt_p)


def abs(x: Any) -> Any:  # noqa: A001
    """Like `jax.numpy.abs`."""
    _check_arraylike("abs", x)
    return asarray(x) if core.get_aval(x).dtype == dtypes.bool_ else lax.abs(x)


absolute = abs


def sign(x: Any) -> Any:
    """Like `jax.numpy.sign`."""
    _check_arraylike("sign", x)
    return lax.sign(x)


def power(x: Any, y: Any) -> Any:
    """`x ** y`: a static integer exponent is `integer_pow`. Like `jax.numpy.power`."""
    _check_arraylike("power", x, y)
    if type(y) is int or (isinstance(y, (np.integer,)) and not isinstance(y, core.Tracer)):
        (x,) = _promote("power", x)
        return lax.integer_pow(x, int(y))
    xp, yp = _promote_pair("power", x, y)
    if not dtypes.is_float(core.get_aval(xp).dtype):
        raise NotImplementedError("power: integer base with a traced integer exponent")
    y_aval = core.get_aval(y)
    if dtypes.is_int(y_aval.dtype) and y_aval.shape == core.get_aval(yp).shape:
        return lax.pow(xp, y)  # as JAX: an integer exponent array is passed as it is
    return lax.pow(xp, yp)


maximum = _elementwise("maximum", lax.max, _ew.max_p)


minimum = _elementwise("minimum", lax.min, _ew.min_p)


def where(condition: Any, x: Any, y: Any) -> Any:
    """Like `jax.numpy.where` (the three-argument form)."""
    _check_arraylike("where", condition, x, y)
    return _where_jit(condition, x, y)


def _where(condition: Any, x: Any, y: Any) -> Any:
    if core.get_aval(condition).dtype != dtypes.bool_:
        condition = lax.ne(condition, lax.convert_element_type(0, core.get_aval(condition).dtype))
    x, y = _promote("where", x, y)  # weak only when both are, as in JAX
    condition, x, y = _broadcast_arrays("where", condition, x, y)
    out_shape = np.broadcast_shapes(*(core.get_aval(v).shape for v in (condition, x, y)))
    x, y = (
        lax.broadcast_in_dim(v, out_shape, ()) if not core.get_aval(v).shape and out_shape else v
        for v in (x, y)
    )
    return lax.select_n(condition, y, x)


_where_jit = _inner_jit(_where, "_where")


def clip(x: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    """Like `jax.numpy.clip`."""
    _check_arraylike("clip", x)
    bounds = [v for v in (x, min, max) if v is not None]
    if any(dtypes.is_complex(core.get_aval(v).dtype) for v in bounds if core.is_arraylike(v)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Please convert to a real "
            "value or array by taking the real or imaginary components via "
            "jax.numpy.real/imag respectively."
        )
    return _clip_jit(x, min, max)


def _clip(x: Any, min: Any, max: Any) -> Any:  # noqa: A002
    x = asarray(x)
    if min is not None:  # NumPy's promotion: clip(int32, 0.5, 1.5) is float32
        x = maximum(min, x)
    if max is not None:
        x = minimum(max, x)
    return x


_clip_jit = _inner_jit(_clip, "clip")


def _comparison_function(name: str, fn: Any) -> Any:
    def op(x: Any, y: Any) -> Any:
        x, y = _promote_pair(name, x, y)
        if fn in (lax.eq, lax.ne) or not dtypes.is_complex(core.get_aval(x).dtype):
            return fn(x, y)
        # complex numbers order lexicographically on (real, imag), as in NumPy and JAX
        rx, ry = lax.real(x), lax.real(y)
        return lax.select_n(lax.eq(rx, ry), fn(rx, ry), fn(lax.imag(x), lax.imag(y)))

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


greater = _comparison_function("greater", lax.gt)
less = _comparison_function("less", lax.lt)
equal = _comparison_function("equal", lax.eq)
greater_equal = _comparison_function("greater_equal", lax.ge)
less_equal = _comparison_function("less_equal", lax.le)
not_equal = _comparison_function("not_equal", lax.ne)


def logical_and(x: Any, y: Any) -> Any:
    return lax.bitwise_and(*_promote_pair("logical_and", x, y))


def logical_or(x: Any, y: Any) -> Any:
    return lax.bitwise_or(*_promote_pair("logical_or", x, y))


def isfinite(x: Any) -> Any:
    """Like `jax.numpy.isfinite` (complex: both parts finite)."""
    x = _to_inexact("isfinite", x)
    if dtypes.is_complex(core.get_aval(x).dtype):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


def square(x: Any) -> Any:
    """Like `jax.numpy.square` (written as `integer_pow[y=2]`)."""
    return lax.integer_pow(x, 2)


# ----------------------------------------------------------------------------- reductions


def _axis(axis: Any, ndim: int) -> int:
    # Out of bounds is NumPy's AxisError, both a ValueError and an IndexError: JAX raises
    # the one or the other, depending on the function.
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _axes(name: str, x: Any, axis: Any) -> tuple[int, ...]:
    ndim = core.get_aval(x).ndim
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 and not isinstance(axis, tuple) else tuple(axis)
    out = tuple(_axis(a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: duplicate value in 'axis': {axis}")
    return out


def _keepdims(out: Any, x: Any, axes: tuple[int, ...]) -> Any:
    shape = tuple(1 if i in axes else n for i, n in enumerate(core.get_aval(x).shape))
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return lax.broadcast_in_dim(out, shape, kept)


_LOW_PRECISION = (dtypes.float16, np.dtype(dtypes.bfloat16))  # reduced in float32, as JAX


def sum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """Like `jax.numpy.sum`."""
    _check_arraylike("sum", x)
    axes = _axes("sum", x, axis)
    aval = core.get_aval(x)
    if dtype is not None:
        x = lax.convert_element_type(x, _dtype(dtype), False)
    elif aval.dtype == dtypes.bool_ or (
        dtypes.is_int(aval.dtype) and aval.dtype.itemsize < dtypes.default_int().itemsize
    ):  # summed in the default int (int64 under x64), as JAX does
        default = dtypes.default_int()
        x = lax.convert_element_type(
            x, default if aval.dtype.kind != "u" else np.dtype(f"u{default.itemsize}"), False
        )
    elif aval.dtype in _LOW_PRECISION:  # summed in float32, as JAX does
        out = sum(lax.convert_element_type(x, dtypes.float32, False), axes, keepdims=keepdims)
        return lax.convert_element_type(out, aval.dtype, False)
    elif aval.weak_type:
        x = lax.convert_element_type(x, aval.dtype, False)
    out = lax.reduce_sum(x, axes)
    return _keepdims(out, x, axes) if keepdims else out


def mean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """Like `jax.numpy.mean`."""
    _check_arraylike("mean", x)
    axes = _axes("mean", x, axis)
    aval = core.get_aval(x)
    count = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    out_dtype = (
        _dtype(dtype)
        if dtype is not None
        else (aval.dtype if dtypes.is_float(aval.dtype) else dtypes.default_float())
    )
    # As JAX: bools count as int32; float16/bfloat16 are averaged in float32
    compute = dtypes.float32 if out_dtype in _LOW_PRECISION else out_dtype
    if aval.dtype == dtypes.bool_:
        x = lax.convert_element_type(x, dtypes.int32, False)
    total = sum(lax.convert_element_type(x, compute, False), axis=axes, keepdims=keepdims)
    out = lax.div(total, lax.convert_element_type(float(count), compute, False))
    return out if compute == out_dtype else lax.convert_element_type(out, out_dtype, False)


def _reduction_function(name: str, fn: Any) -> Any:
    def op(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        _check_arraylike(name, x)
        axes = _axes(name, x, axis)
        aval = core.get_aval(x)
        if any(aval.shape[a] == 0 for a in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
        if aval.weak_type or dtypes.is_python_scalar(x):  # reductions give strong types
            x = lax.convert_element_type(x, aval.dtype, False)
        out = fn(x, axes)
        return _keepdims(out, x, axes) if keepdims else out

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`."
    return op


max = _reduction_function("max", lax.reduce_max)  # noqa: A001
min = _reduction_function("min", lax.reduce_min)  # noqa: A001
amax, amin = max, min


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Like `jax.numpy.prod`."""
    _check_arraylike("prod", x)
    axes = _axes("prod", x, axis)
    aval = core.get_aval(x)
    if aval.dtype == dtypes.bool_ or (
        dtypes.is_int(aval.dtype) and aval.dtype.itemsize < dtypes.default_int().itemsize
    ):
        x = lax.convert_element_type(x, dtypes.default_int(), False)
    elif aval.dtype in _LOW_PRECISION:  # multiplied in float32, as JAX does
        out = prod(lax.convert_element_type(x, dtypes.float32, False), axes, keepdims)
        return lax.convert_element_type(out, aval.dtype, False)
    elif aval.weak_type or dtypes.is_python_scalar(x):  # reductions give strong types
        x = lax.convert_element_type(x, aval.dtype, False)
    out = lax.reduce_prod(x, axes)
    return _keepdims(out, x, axes) if keepdims else out


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> Any:
    """Like `jax.numpy.argmax`."""
    _check_arraylike("argmax", x)
    if axis is None:
        flat = reshape(x, (-1,))
        out = lax.argmax(flat, 0, dtypes.default_int())
        axes = tuple(range(core.get_aval(x).ndim))
    else:
        (a,) = _axes("argmax", x, axis)
        if core.get_aval(x).shape[a] == 0:
            raise ValueError("attempt to get argmax of an empty sequence")
        out = lax.argmax(x, a, dtypes.default_int())
        axes = (a,)
    return _keepdims(out, x, axes) if keepdims else out


# ----------------------------------------------------------------------------- linear algebra


def _dot(a: Any, b: Any, dims: Any) -> Any:
    # jax.numpy asks for the result dtype explicitly (`preferred_element_type=float32`)
    return lax.dot_general(a, b, dims, preferred_element_type=core.get_aval(a).dtype)


def dot(a: Any, b: Any) -> Any:
    """Like `jax.numpy.dot`."""
    a, b = _promote("dot", a, b)
    na, nb = core.get_aval(a).ndim, core.get_aval(b).ndim
    if na == 0 or nb == 0:
        return multiply(a, b)
    contract_b = 0 if nb == 1 else nb - 2
    return _dot(a, b, (((na - 1,), (contract_b,)), ((), ())))


def matmul(a: Any, b: Any) -> Any:
    """Like `jax.numpy.matmul`."""
    a, b = _promote("matmul", a, b)
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    if not sa or not sb:
        raise ValueError(
            f"matmul: inputs must have at least one dimension, got shapes {sa} and {sb}"
        )
    if len(sa) <= 2 and len(sb) <= 2:
        if sa[-1] != sb[0 if len(sb) == 1 else -2]:
            raise TypeError(
                f"dot_general requires contracting dimensions to have the same "
                f"shape, got {sa} and {sb}."
            )
        return dot(a, b)
    # batched: broadcast the leading (batch) dimensions
    a_batch, b_batch = sa[:-2] if len(sa) > 1 else (), sb[:-2] if len(sb) > 1 else ()
    batch = np.broadcast_shapes(a_batch, b_batch)
    nbat = len(batch)
    if len(sa) >= 2 and a_batch != batch and a_batch:
        a = lax.broadcast_in_dim(a, (*batch, *sa[-2:]), tuple(range(nbat - len(a_batch), nbat + 2)))
    if len(sb) >= 2 and b_batch != batch and b_batch:
        b = lax.broadcast_in_dim(b, (*batch, *sb[-2:]), tuple(range(nbat - len(b_batch), nbat + 2)))
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    if len(sa) == 1:
        return _dot(a, b, (((0,), (len(sb) - 2,)), ((), ())))
    if len(sb) == 1:
        return _dot(a, b, (((len(sa) - 1,), (0,)), ((), ())))
    if len(sa) - 2 == 0:  # matrix @ batch: contract, then move the batch axes to the front
        out = _dot(a, b, (((1,), (len(sb) - 2,)), ((), ())))
        nb_ = len(sb) - 2
        return lax.transpose(out, (*range(1, nb_ + 1), 0, nb_ + 1))
    if len(sb) - 2 == 0:
        return _dot(a, b, (((len(sa) - 1,), (0,)), ((), ())))
    bdims = tuple(range(nbat))
    return _dot(a, b, (((len(sa) - 1,), (len(sb) - 2,)), (bdims, bdims)))


# ----------------------------------------------------------------------------- shapes


def reshape(x: Any, shape: Any, order: str = "C") -> Any:
    """Like `jax.numpy.reshape` (C order; one -1 allowed)."""
    _check_arraylike("reshape", x)
    if order != "C":
        raise NotImplementedError("reshape: only order='C' is supported")
    shape = list(_shape_tuple(shape))
    size = core.get_aval(x).size
    if shape.count(-1) > 1:
        raise TypeError(
            f"can only specify one unknown axis size with a `-1` value, got {tuple(shape)}"
        )
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise TypeError(
                f"cannot reshape array of shape {core.get_aval(x).shape} into "
                f"shape {tuple(shape)} because the product of specified axis sizes "
                f"({known}) does not evenly divide {size}"
            )
        shape[shape.index(-1)] = size // known
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise TypeError(
            f"cannot reshape array of shape {core.get_aval(x).shape} (size {size}) "
            f"into shape {tuple(shape)} (size {int(np.prod(shape))})"
        )
    return lax.reshape(x, tuple(shape))


def transpose(x: Any, axes: Sequence[int] | None = None) -> Any:
    """Like `jax.numpy.transpose`."""
    _check_arraylike("transpose", x)
    ndim = core.get_aval(x).ndim
    perm = tuple(reversed(range(ndim))) if axes is None else tuple(_axis(a, ndim) for a in axes)
    return lax.transpose(x, perm)


def expand_dims(x: Any, axis: Any) -> Any:
    """Like `jax.numpy.expand_dims`."""
    _check_arraylike("expand_dims", x)
    axes = (axis,) if np.ndim(axis) == 0 and not isinstance(axis, tuple) else tuple(axis)
    ndim = core.get_aval(x).ndim + len(axes)
    axes = tuple(_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"expand_dims: repeated axis in {axis}")
    return lax.expand_dims(x, axes)


def squeeze(x: Any, axis: Any = None) -> Any:
    """Like `jax.numpy.squeeze`."""
    shape = core.get_aval(x).shape
    if axis is None:
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    else:
        axes = _axes("squeeze", x, axis)
        for a in axes:
            if shape[a] != 1:
                raise ValueError(
                    f"cannot select an axis to squeeze out which has size not "
                    f"equal to one, got shape={shape} and dimensions={axes}"
                )
    return lax.squeeze(x, axes)


def broadcast_to(x: Any, shape: Any) -> Any:
    """Like `jax.numpy.broadcast_to`."""
    shape = _shape_tuple(shape)
    s = core.get_aval(x).shape
    if np.broadcast_shapes(s, shape) != shape:
        raise ValueError(f"Incompatible shapes for broadcasting: {s} and requested shape {shape}")
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(s), len(shape))))


def concatenate(arrays: Sequence[Any], axis: int = 0) -> Any:
    """Like `jax.numpy.concatenate`."""
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    arrays = _promote("concatenate", *arrays)
    arrays = [
        lax.convert_element_type(a, core.get_aval(a).dtype, False)
        if dtypes.is_python_scalar(a)
        else a
        for a in arrays
    ]
    ndim = core.get_aval(arrays[0]).ndim
    if ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    if len(arrays) == 1:
        return asarray(arrays[0])
    return lax.concatenate(arrays, _axis(axis, ndim))


def stack(arrays: Sequence[Any], axis: int = 0) -> Any:
    """Like `jax.numpy.stack`."""
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    arrays = _promote("stack", *arrays)
    shapes = {core.get_aval(a).shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("All input arrays must have the same shape.")
    ndim = core.get_aval(arrays[0]).ndim
    arrays = [
        lax.convert_element_type(a, core.get_aval(a).dtype, False)
        if dtypes.is_python_scalar(a)
        else a
        for a in arrays
    ]
    return lax.stack(arrays, _axis(axis, ndim + 1))


def shape(x: Any) -> tuple[int, ...]:
    return core.get_aval(x).shape


def ndim(x: Any) -> int:
    return core.get_aval(x).ndim


# ----------------------------------------------------------------------------- methods


def astype(x: Any, dtype: Any) -> Any:
    return lax.convert_element_type(x, _dtype(dtype), False)


def _reshape_method(x: Any, *shape: Any, order: str = "C") -> Any:
    return reshape(x, shape[0] if len(shape) == 1 else shape, order)


def _transpose_method(x: Any, *axes: Any) -> Any:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return transpose(x, axes or None)


OPERATORS = {
    "add": add,
    "subtract": subtract,
    "multiply": multiply,
    "divide": divide,
    "floor_divide": floor_divide,
    "remainder": remainder,
    "power": power,
    "matmul": matmul,
    "less": less,
    "less_equal": less_equal,
    "greater": greater,
    "greater_equal": greater_equal,
    "equal": equal,
    "not_equal": not_equal,
    "logical_and": logical_and,
    "logical_or": logical_or,
    "negative": negative,
    "positive": positive,
    "abs": abs,
    "reshape_method": _reshape_method,
    "astype": astype,
    "sum": sum,
    "mean": mean,
    "max": max,
    "min": min,
    "prod": prod,
    "argmax": argmax,
    "transpose_method": _transpose_method,
    "transpose": transpose,
    "squeeze": squeeze,
    "dot": dot,
}

__all__ = [
    "abs",
    "absolute",
    "add",
    "amax",
    "amin",
    "arange",
    "argmax",
    "array",
    "asarray",
    "astype",
    "bool_",
    "broadcast_to",
    "clip",
    "concatenate",
    "cos",
    "divide",
    "dot",
    "e",
    "equal",
    "exp",
    "expand_dims",
    "expm1",
    "eye",
    "float16",
    "float32",
    "floor_divide",
    "full",
    "greater",
    "greater_equal",
    "inf",
    "int32",
    "int8",
    "isfinite",
    "less",
    "less_equal",
    "linspace",
    "log",
    "log1p",
    "logical_and",
    "logical_or",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mod",
    "multiply",
    "nan",
    "ndarray",
    "ndim",
    "negative",
    "newaxis",
    "not_equal",
    "ones",
    "ones_like",
    "pi",
    "positive",
    "power",
    "prod",
    "remainder",
    "reshape",
    "shape",
    "sign",
    "sin",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "subtract",
    "sum",
    "tan",
    "tanh",
    "transpose",
    "true_divide",
    "uint8",
    "where",
    "zeros",
    "zeros_like",
]
