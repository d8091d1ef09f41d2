"""Dtype conversion: `convert_element_type`, and `stop_gradient`'s identity primitive.

Layer 2. `convert_element_type` changes dtype and/or weak type; it is linear on floats.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
from didax import array, core, dtypes, tree_util
from didax.core import ShapedArray, Zero
from didax.primitives import rules

convert_element_type_p = core.Primitive("convert_element_type")


def convert_element_type(x: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """Convert `x` to `new_dtype`. Like `jax.lax.convert_element_type`."""
    new_dtype = dtypes.canonicalize(new_dtype)
    aval = core.get_aval(x)
    if aval.dtype == new_dtype and aval.weak_type == weak_type and rules.is_didax_value(x):
        return x
    if weak_type and aval.dtype == new_dtype and dtypes.is_python_scalar(x):
        return x  # a Python scalar of its own weak type stays as written (and prints so)
    if not isinstance(x, core.Tracer) and aval.shape == ():
        # converting a scalar constant needs no equation (JAX folds it while staging too)
        value = convert_values(np.asarray(core.to_numpy(x)), new_dtype)
        if not dtypes.is_python_scalar(x):  # an Array stays an Array
            return array.eager_result(value[()], weak_type)
        return _scalar_constant(value, weak_type)
    return convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)


def _scalar_constant(value: np.ndarray, weak_type: bool) -> Any:
    # A Python scalar of the right dtype stays a Python scalar (a weak literal); anything else
    # becomes an eager Array, which make_jaxpr inlines as a literal.
    if weak_type and value.dtype == dtypes.default_int():
        return value.item()
    if weak_type and value.dtype == dtypes.default_float():
        return float(value)
    if weak_type and value.dtype == dtypes.default_complex():
        return builtins.complex(value)
    return array.eager_result(value[()] if value.ndim == 0 else value, weak_type)


def convert_values(x: np.ndarray, new_dtype: np.dtype) -> np.ndarray:
    """`x.astype(new_dtype)` as XLA converts: a float becomes an integer by truncation,
    saturating at the integer type's extremes, NaN giving 0 (NumPy's cast of NaN, inf and
    out-of-range values is undefined: INT_MIN on x86)."""
    if dtypes.is_complex(x.dtype) and not dtypes.is_complex(new_dtype):
        x = np.real(x)  # complex to real keeps the real part, as XLA (and without a warning)
    if not (dtypes.is_float(x.dtype) and np.issubdtype(new_dtype, np.integer)):
        return x.astype(new_dtype)
    bits = np.iinfo(new_dtype).bits
    signed = np.issubdtype(new_dtype, np.signedinteger)
    t = np.trunc(x.astype(np.float64))  # powers of two below are exact in float64
    high = t >= 2.0 ** (bits - 1 if signed else bits)
    low = t < (-(2.0 ** (bits - 1)) if signed else 0.0)
    info = np.iinfo(new_dtype)
    safe = np.where(high | low | np.isnan(t), 0.0, t).astype(new_dtype)
    return np.where(high, info.max, np.where(low, info.min, safe)).astype(new_dtype)


def _convert_impl(x: np.ndarray, *, new_dtype: np.dtype, weak_type: bool) -> list:
    return [convert_values(np.asarray(x), new_dtype)]


core.impl_rules.register(convert_element_type_p, _convert_impl)


@core.abstract_eval_rules.register(convert_element_type_p)
def _convert_abstract_eval(x: ShapedArray, *, new_dtype: np.dtype, weak_type: bool) -> list:
    return [ShapedArray(x.shape, new_dtype, weak_type)]


@core.jvp_rules.register(convert_element_type_p)
def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
    (x,), (x_dot,) = primals, tangents
    out = convert_element_type(x, new_dtype, weak_type)
    if not dtypes.is_float(new_dtype):  # (x_dot is no symbolic zero: the jvp tracer skips those)
        return [out], [Zero.like(out)]
    return [out], [convert_element_type(x_dot, new_dtype, weak_type)]


@core.transpose_rules.register(convert_element_type_p)
def _convert_transpose(cts, x, *, new_dtype, weak_type):
    (ct,) = cts
    if core.get_aval(ct).dtype == x.aval.dtype:  # a weak-type-only change needs no undoing
        return [ct]
    return [convert_element_type(ct, x.aval.dtype, x.aval.weak_type)]


core.vmap_rules.register(convert_element_type_p, rules.vectorized_vmap(convert_element_type_p.bind))


@core.lowering_rules.register(convert_element_type_p)
def _convert_lowering(ctx, x, *, new_dtype, weak_type):
    aval = ctx.avals_in[0]
    if aval.dtype == new_dtype:  # only the weak type changes
        return [x]
    if new_dtype == dtypes.bool_:  # nonzero is true (StableHLO's convert would truncate)
        zero = rules.broadcast_constant(ctx, 0, aval)
        return [rules.compare(ctx, x, zero, "NE", aval.dtype)]
    if dtypes.is_complex(aval.dtype) and not dtypes.is_complex(new_dtype):
        x = ctx.hlo.real(x)  # complex to real: the real part, then converted
        if dtypes.real_of(aval.dtype) == new_dtype:
            return [x]
    return [ctx.hlo.convert(ctx.tensor_type(ctx.avals_out[0]), x)]


# ----------------------------------------------------------------------------- stop_gradient

stop_gradient_p = core.Primitive("stop_gradient")


def stop_gradient(x: Any) -> Any:
    """The identity whose derivative is zero, on every leaf of the pytree `x`. Like
    `jax.lax.stop_gradient`."""
    leaves, tree = tree_util.tree_flatten(x)
    if tree.node is None:  # one array: the common case
        return stop_gradient_p.bind(x)
    return tree_util.tree_unflatten(tree, [stop_gradient_p.bind(leaf) for leaf in leaves])


core.impl_rules.register(stop_gradient_p, lambda x: [x])
core.abstract_eval_rules.register(stop_gradient_p, rules.same_aval)


core.jvp_rules.register(stop_gradient_p, rules.zero_jvp(stop_gradient_p))


# no transpose rule: stop_gradient is not linear (its jvp is zero)
core.vmap_rules.register(stop_gradient_p, rules.vectorized_vmap(stop_gradient))
core.lowering_rules.register(stop_gradient_p, lambda ctx, x: [x])


def dtype(x: Any) -> np.dtype:
    """The canonical dtype of a value, a dtype, or a scalar type. Like `jax.lax.dtype`."""
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type):  # float, np.float64, ...
        return dtypes.canonicalize(np.dtype(x))
    if type(x) in (bool, int, float, complex):
        return dtypes.python_scalar_dtype(x)
    if hasattr(x, "aval"):
        return core.get_aval(x).dtype
    if hasattr(x, "dtype"):
        return dtypes.canonicalize(np.dtype(x.dtype))
    return dtypes.canonicalize(np.dtype(x))
