"""The primitives that move between real and complex: real, imag, conj, complex; and abs,
whose result is real for a complex operand and whose complex derivative is written with
`conj` and `real`.

Layer 2 (`didax.primitives.elementwise`, after `arithmetic`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, UndefinedPrimal
from didax.primitives import ad_helpers, rules, vmap_helpers
from didax.primitives.comparison import eq, ge, select_n
from didax.primitives.convert import _scalar_constant, convert_element_type
from didax.primitives.elementwise.arithmetic import _const, _full, div, mul, neg

# ----------------------------------------------------------------------------- complex parts
# `real`, `imag`, `conj` and `complex` are linear over the reals. Their transposes are the
# plain (not conjugated) ones, as JAX's: `real`'s is `complex(ct, 0)`, `imag`'s
# `complex(0, -ct)`, so that `grad` of a real function of complex `z` is JAX's answer.

real_p = core.Primitive("real")
imag_p = core.Primitive("imag")
conj_p = core.Primitive("conj")
complex_p = core.Primitive("complex")


def real(x: Any) -> Any:
    """The real part of complex `x`. Like `jax.lax.real`."""
    return real_p.bind(x)


def imag(x: Any) -> Any:
    """The imaginary part of complex `x`. Like `jax.lax.imag`."""
    return imag_p.bind(x)


def conj(x: Any) -> Any:
    """The complex conjugate (of a real `x`: `x` as complex). Like `jax.lax.conj`."""
    return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)


def complex(x: Any, y: Any) -> Any:  # noqa: A001 - JAX's name
    """`x + i y` from two real arrays of one dtype. Like `jax.lax.complex`."""
    return complex_p.bind(x, y)


def _part_abstract_eval(name: str) -> core.AbstractEvalRule:
    def rule(x: ShapedArray) -> list[ShapedArray]:
        if not dtypes.is_complex(x.dtype):
            raise TypeError(
                f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes "
                "of complexfloating."
            )
        return [x.update(dtype=dtypes.real_of(x.dtype))]

    return rule


def _conj_abstract_eval(x: ShapedArray, *, input_dtype: np.dtype) -> list[ShapedArray]:
    if not dtypes.is_float(x.dtype):
        raise TypeError(
            f"conj does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes of "
            "floating, complexfloating."
        )
    return [x.update(dtype=dtypes.complex_of(x.dtype))]


def _complex_abstract_eval(x: ShapedArray, y: ShapedArray) -> list[ShapedArray]:
    for a in (x, y):
        if a.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(
                f"complex does not accept dtype {a.dtype.name}. Accepted dtypes are float32, "
                "float64."
            )
    (out,) = rules.naryop_aval("complex")(x, y)
    return [out.update(dtype=dtypes.complex_of(out.dtype))]


def _complex_impl(x: Any, y: Any) -> list:
    x, y = np.asarray(x), np.asarray(y)
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), dtypes.complex_of(x.dtype))
    out.real, out.imag = x, y  # not x + 1j * y, which turns (inf, 0) into (inf, nan)
    return [out]


core.impl_rules.register(real_p, rules.validated_impl(real_p, lambda x: [np.real(x)]))
core.impl_rules.register(imag_p, rules.validated_impl(imag_p, lambda x: [np.imag(x)]))


def _conj_impl(x, *, input_dtype):
    # a real operand's conjugate is itself as complex, imaginary parts +0 as XLA gives (NumPy's
    # conj of the complex copy would negate them to -0)
    x = np.asarray(x)
    if dtypes.is_complex(x.dtype):
        return [np.conj(x)]
    return [np.asarray(x, dtypes.complex_of(x.dtype))]


core.impl_rules.register(conj_p, rules.validated_impl(conj_p, _conj_impl))
core.impl_rules.register(complex_p, rules.validated_impl(complex_p, _complex_impl))
core.abstract_eval_rules.register(real_p, _part_abstract_eval("real"))
core.abstract_eval_rules.register(imag_p, _part_abstract_eval("imag"))
core.abstract_eval_rules.register(conj_p, _conj_abstract_eval)
core.abstract_eval_rules.register(complex_p, _complex_abstract_eval)

core.jvp_rules.register(real_p, rules.linear_unary_jvp(real_p.bind))
core.jvp_rules.register(imag_p, rules.linear_unary_jvp(imag_p.bind))
core.jvp_rules.register(conj_p, rules.linear_unary_jvp(conj_p.bind))


@core.jvp_rules.register(complex_p)
def _complex_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = complex(x, y)
    return [out], [complex(ad_helpers.instantiate(x_dot), ad_helpers.instantiate(y_dot))]


def _zero_scalar(like: Any) -> Any:
    return _scalar_constant(np.zeros((), core.get_aval(like).dtype), False)


@core.transpose_rules.register(real_p)
def _real_transpose(cts, x):
    (ct,) = cts
    return [complex(ct, _zero_scalar(ct))]


@core.transpose_rules.register(imag_p)
def _imag_transpose(cts, x):
    (ct,) = cts
    return [complex(_zero_scalar(ct), neg(ct))]


@core.transpose_rules.register(conj_p)
def _conj_transpose(cts, x, *, input_dtype):
    (ct,) = cts
    return [conj(ct) if dtypes.is_complex(input_dtype) else real(ct)]


@core.transpose_rules.register(complex_p)
def _complex_transpose(cts, x, y):
    (ct,) = cts
    ct_x = ad_helpers.unbroadcast(real(ct), x.aval) if isinstance(x, UndefinedPrimal) else None
    ct_y = ad_helpers.unbroadcast(imag(neg(ct)), y.aval) if isinstance(y, UndefinedPrimal) else None
    return [ct_x, ct_y]


core.vmap_rules.register(real_p, rules.vectorized_vmap(real_p.bind))
core.vmap_rules.register(imag_p, rules.vectorized_vmap(imag_p.bind))
core.vmap_rules.register(conj_p, rules.vectorized_vmap(conj_p.bind))
core.vmap_rules.register(complex_p, vmap_helpers.broadcasting_vmap(complex_p.bind))
core.lowering_rules.register(real_p, rules.direct_lowering("real"))
core.lowering_rules.register(imag_p, rules.direct_lowering("imag"))
core.lowering_rules.register(complex_p, rules.direct_lowering("complex"))


@core.lowering_rules.register(conj_p)
def _conj_lowering(ctx, x, *, input_dtype):
    if not dtypes.is_complex(input_dtype):  # a real x: x + 0i
        zero = rules.broadcast_constant(ctx, 0, ctx.avals_in[0])
        return [ctx.hlo.complex(x, zero)]
    return [ctx.hlo.complex(ctx.hlo.real(x), ctx.hlo.negate(ctx.hlo.imag(x)))]


# ----------------------------------------------------------------------------- abs

abs_p = core.Primitive("abs")  # |x|: of complex x, a real (float32 of complex64)


def _abs_abstract_eval(x: ShapedArray) -> list[ShapedArray]:
    return [x.update(dtype=dtypes.real_of(x.dtype))]


def _abs_impl(x: Any) -> list:
    out = np.abs(x)  # NumPy's abs of complex64 is float32 already
    return [out if out.dtype == dtypes.real_of(x.dtype) else out.astype(dtypes.real_of(x.dtype))]


core.impl_rules.register(abs_p, _abs_impl)
core.abstract_eval_rules.register(abs_p, _abs_abstract_eval)
core.vmap_rules.register(abs_p, rules.vectorized_vmap(abs_p.bind))
core.eager_rules.register(abs_p, rules.eager_unary(np.abs, floats_only=False))


def abs(x: Any) -> Any:  # noqa: A001 - JAX's name
    """Like `jax.lax.abs`."""
    return abs_p.bind(x)


@core.jvp_rules.register(abs_p)
def _abs_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    out = abs(x)
    if not dtypes.is_complex(core.get_aval(x).dtype):
        # d|x| = dx for x >= 0 (at 0 too, as JAX's), -dx below
        return [out], [select_n(ge(x, _const(0.0, x)), neg(x_dot), x_dot)]
    # complex x: d|x| = Re(conj(x) dx) / |x|, with |x| taken as 1 where x == 0 (as JAX)
    x_conj = conj(x)
    out_c = convert_element_type(out, core.get_aval(x).dtype, core.get_aval(out).weak_type)
    zero = _full(_const(0.0, out_c), core.get_aval(out_c).shape)
    one = _full(_const(1.0, out_c), core.get_aval(out_c).shape)
    safe = select_n(eq(out_c, zero), out_c, one)
    return [out], [real(mul(x_dot, div(x_conj, safe)))]


@core.lowering_rules.register(abs_p)
def _abs_lowering(ctx, x):
    dtype = ctx.avals_in[0].dtype
    return [x] if dtype == dtypes.bool_ or dtype.kind == "u" else [ctx.hlo.abs(x)]
