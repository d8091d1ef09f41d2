"""`dot_general`: contractions with batch dimensions (matmul, dot, einsum-like products).

Layer 2. `dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`; the
output's axes are the batch axes, then lhs's free axes, then rhs's free axes. It is bilinear:
its jvp is the sum of the two one-sided products and it transposes in either operand.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.config import config
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal
from didax.jaxpr import pp_params_rules
from didax.primitives import rules, shape
from didax.primitives.convert import convert_element_type
from didax.primitives.elementwise import partials_jvp

dot_general_p = core.Primitive("dot_general")


class Precision(enum.Enum):
    """The arithmetic precision a `dot_general` asks of the backend (on CPU every level
    computes in the operands' dtype); `Precision("highest")` names a level by one of JAX's
    strings. Like `jax.lax.Precision`."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: Any) -> Precision | None:
        name = _PRECISION_NAMES.get(value) if isinstance(value, str) else None
        return None if name is None else cls[name]

    def __repr__(self) -> str:  # as JAX prints it in a jaxpr: `Precision.HIGHEST`
        return f"Precision.{self.name}"

    __str__ = __repr__


_PRECISION_NAMES = {"default": "DEFAULT", "bfloat16": "DEFAULT", "fastest": "DEFAULT"}
_PRECISION_NAMES.update(high="HIGH", bfloat16_3x="HIGH", tensorfloat32="HIGH")
_PRECISION_NAMES.update(highest="HIGHEST", float32="HIGHEST")


def canonical_precision(precision: Any) -> tuple[Precision, Precision] | None:
    """None, or the (lhs, rhs) levels of a `precision=` argument: one level (a `Precision`
    or one of its strings) for both operands, or a pair. Raises ValueError as JAX does.
    None takes `jax_default_matmul_precision`'s, as JAX's jaxprs show it."""
    if precision is None:
        precision = config.jax_default_matmul_precision
        if precision is None:
            return None
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        lhs, rhs = precision
        if lhs is None and rhs is None:
            return None
        return (_one_precision(lhs, precision), _one_precision(rhs, precision))
    level = _one_precision(precision, precision)
    return (level, level)


def _one_precision(p: Any, whole: Any) -> Precision:
    if isinstance(p, Precision):
        return p
    if isinstance(p, str) and p in _PRECISION_NAMES:
        return Precision[_PRECISION_NAMES[p]]
    raise ValueError(
        "Precision argument must be one of:\n- None,\n- a string in "
        f"{[*_PRECISION_NAMES, None]},\n- a lax.Precision value,\n- a tuple of two "
        f"lax.Precision values or strings;\nbut got {whole}."
    )


def dot_general(
    x: Any,
    y: Any,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """Like `jax.lax.dot_general`."""
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((tuple(map(int, lc)), tuple(map(int, rc))), (tuple(map(int, lb)), tuple(map(int, rb))))
    if preferred_element_type is not None:  # None (the operands' dtype) prints as JAX's does
        preferred_element_type = dtypes.canonicalize(preferred_element_type)
    return dot_general_p.bind(
        x,
        y,
        dimension_numbers=dims,
        precision=canonical_precision(precision),
        preferred_element_type=preferred_element_type,
    )


def dot(
    lhs: Any,
    rhs: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Vector-vector, matrix-vector or matrix-matrix product. Like `jax.lax.dot`."""
    ls, rs = core.get_aval(lhs).shape, core.get_aval(rhs).shape
    if 1 <= len(ls) <= 2 and 1 <= len(rs) <= 2 and ls[-1] == rs[0]:
        dims = (((len(ls) - 1,), (0,)), ((), ()))
        return dot_general(lhs, rhs, dims, precision, preferred_element_type)
    raise ValueError(
        "jax.lax.dot: dimension_numbers must be specified when not performing simple "
        "un-batched matrix-matrix, matrix-vector, or vector-vector products; got "
        f"lhs_shape={ls} rhs_shape={rs}"
    )


def _free(ndim: int, *used: Sequence[int]) -> list[int]:
    taken = {d for dims in used for d in dims}
    return [d for d in range(ndim) if d not in taken]


def _dot_general_impl(x, y, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    x, y = np.asarray(x), np.asarray(y)
    lf, rf = _free(x.ndim, lc, lb), _free(y.ndim, rc, rb)
    batch = [x.shape[d] for d in lb]
    size = lambda a, ds: math.prod([a.shape[d] for d in ds])  # noqa: E731
    xm = np.transpose(x, (*lb, *lf, *lc)).reshape(*batch, size(x, lf), size(x, lc))
    ym = np.transpose(y, (*rb, *rc, *rf)).reshape(*batch, size(y, rc), size(y, rf))
    out = np.matmul(xm, ym).reshape((*batch, *(x.shape[d] for d in lf), *(y.shape[d] for d in rf)))
    return [np.asarray(out).astype(preferred_element_type or x.dtype)]


core.impl_rules.register(dot_general_p, rules.validated_impl(dot_general_p, _dot_general_impl))


@core.abstract_eval_rules.register(dot_general_p)
def _dot_general_abstract_eval(x, y, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    if x.dtype != y.dtype:
        raise TypeError(
            f"dot_general requires operands of the same dtype, got "
            f"{x.dtype.name} and {y.dtype.name}"
        )
    if (
        len(lc) != len(rc)
        or len(lb) != len(rb)
        or any(x.shape[a] != y.shape[b] for a, b in zip((*lc, *lb), (*rc, *rb)))
    ):
        raise TypeError(
            f"dot_general: incompatible shapes {x.str_short()} and "
            f"{y.str_short()} for dimension_numbers {dimension_numbers}"
        )
    shape_out = (
        *(x.shape[d] for d in lb),
        *(x.shape[d] for d in _free(x.ndim, lc, lb)),
        *(y.shape[d] for d in _free(y.ndim, rc, rb)),
    )
    return [ShapedArray(shape_out, preferred_element_type or x.dtype)]


core.jvp_rules.register(  # bilinear: d(x . y) = dx . y + x . dy
    dot_general_p,
    partials_jvp(
        dot_general_p,
        lambda t, x, y, out, **params: dot_general_p.bind(t, y, **params),
        lambda t, x, y, out, **params: dot_general_p.bind(x, t, **params),
    ),
)


def _transpose_lhs(
    ct, x_aval, y, dimension_numbers, precision, preferred_element_type, swap_out=False
):
    (xc, yc), (xb, yb) = dimension_numbers
    y_ndim = core.get_aval(y).ndim
    x_free, y_free = _free(x_aval.ndim, xc, xb), _free(y_ndim, yc, yb)
    nb = len(xb)
    # positions of the batch, x-free and y-free axes in the cotangent
    if swap_out:  # ct's layout is (batch, y_free, x_free)
        ct_y = tuple(range(nb, nb + len(y_free)))
    else:  # ct's layout is (batch, x_free, y_free)
        ct_y = tuple(range(nb + len(x_free), nb + len(x_free) + len(y_free)))
    dims = ((ct_y, tuple(y_free)), (tuple(range(nb)), tuple(yb)))
    # (batch, x_free, y's contracted)
    prod = dot_general(ct, y, dims, precision, preferred_element_type)
    xc_in_y_order = [xc[i] for i in np.argsort(yc)]
    perm = np.argsort([*xb, *x_free, *xc_in_y_order])
    out = shape.transpose(prod, tuple(int(p) for p in perm))
    return convert_element_type(out, x_aval.dtype)


@core.transpose_rules.register(dot_general_p)
def _dot_general_transpose(cts, x, y, *, dimension_numbers, precision, preferred_element_type):
    (ct,) = cts
    if isinstance(x, UndefinedPrimal) and isinstance(y, UndefinedPrimal):
        raise ValueError("dot_general: cannot transpose a product of two linear operands")
    if isinstance(x, UndefinedPrimal):
        # preferred_element_type passes through, as JAX's (None: the operands' dtype)
        return [
            _transpose_lhs(ct, x.aval, y, dimension_numbers, precision, preferred_element_type),
            None,
        ]
    (xc, yc), (xb, yb) = dimension_numbers
    swapped = ((yc, xc), (yb, xb))
    ct_y = _transpose_lhs(ct, y.aval, x, swapped, precision, preferred_element_type, swap_out=True)
    return [None, ct_y]


@core.vmap_rules.register(dot_general_p)
def _dot_general_vmap(
    axis_size, vals, dims, *, dimension_numbers, precision, preferred_element_type
):
    (x, y), (dx, dy) = vals, dims
    (lc, rc), (lb, rb) = dimension_numbers
    shift = lambda ds: tuple(d + 1 for d in ds)  # noqa: E731
    if dx is not NOT_MAPPED and dy is not NOT_MAPPED:
        x, y = shape.move_axis(x, dx, 0, axis_size), shape.move_axis(y, dy, 0, axis_size)
        new = ((shift(lc), shift(rc)), ((0, *shift(lb)), (0, *shift(rb))))
        return [dot_general(x, y, new, precision, preferred_element_type)], [0]
    if dx is not NOT_MAPPED:
        x = shape.move_axis(x, dx, 0, axis_size)
        new = ((shift(lc), rc), (shift(lb), rb))
        return [dot_general(x, y, new, precision, preferred_element_type)], [len(lb)]
    y = shape.move_axis(y, dy, 0, axis_size)
    new = ((lc, shift(rc)), (lb, shift(rb)))
    x_free = len(_free(core.get_aval(x).ndim, lc, lb))
    return [dot_general(x, y, new, precision, preferred_element_type)], [len(lb) + x_free]


@pp_params_rules.register(dot_general_p)
def _dot_general_pp(params):  # JAX prints the axis tuples as lists and hides precision=None
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    dims = f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))"
    pairs = [("dimension_numbers", dims)]
    if params["precision"] is not None:
        pairs.append(("precision", params["precision"]))
    if params["preferred_element_type"] is not None:
        pairs.append(("preferred_element_type", params["preferred_element_type"]))
    return pairs


def precision_config(ctx: core.LoweringContext, precision: Any) -> Any:
    """StableHLO's `precision_config` of a (lhs, rhs) `precision` param (None: both
    DEFAULT, which JAX writes out too)."""
    if precision is None:
        precision = (Precision.DEFAULT, Precision.DEFAULT)
    return ctx.ir.ArrayAttr.get([ctx.hlo.PrecisionAttr.get(p.name) for p in precision])


@core.lowering_rules.register(dot_general_p)
def _dot_general_lowering(ctx, x, y, *, dimension_numbers, precision, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    hlo, out = ctx.hlo, ctx.avals_out[0]
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb),
        rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc),
        rhs_contracting_dimensions=list(rc),
    )
    x_aval, y_aval = ctx.avals_in
    config = precision_config(ctx, precision)
    if x_aval.dtype != dtypes.bool_:
        return [hlo.dot_general(ctx.tensor_type(out), x, y, dims, precision_config=config)]
    # XLA has no boolean dot: count the true products in int32, then test for nonzero
    x = hlo.convert(ctx.tensor_type(x_aval.update(dtype=dtypes.int32)), x)
    y = hlo.convert(ctx.tensor_type(y_aval.update(dtype=dtypes.int32)), y)
    counts_aval = out.update(dtype=dtypes.int32)
    counts = hlo.dot_general(ctx.tensor_type(counts_aval), x, y, dims, precision_config=config)
    if out.dtype == dtypes.bool_:
        zero = ctx.hlo.broadcast_in_dim(
            ctx.tensor_type(counts_aval), ctx.constant(0, dtypes.int32), ()
        )
        return [
            hlo.compare(
                counts,
                zero,
                hlo.ComparisonDirectionAttr.get("NE"),
                compare_type=hlo.ComparisonTypeAttr.get("SIGNED"),
            )
        ]
    return [hlo.convert(ctx.tensor_type(out), counts)]


def batch_matmul(x: Any, y: Any, precision: Any = None) -> Any:
    """Matrix products over the leading batch axes. Like `jax.lax.batch_matmul`."""
    nx, ny = core.get_aval(x).ndim, core.get_aval(y).ndim
    if min(nx, ny) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {nx}, {ny}")
    if nx != ny:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {nx}, {ny}")
    batch = tuple(range(nx - 2))
    return dot_general(x, y, (((nx - 1,), (ny - 2,)), (batch, batch)), precision=precision)
