"""Windowed reductions: `reduce_window_sum`, `reduce_window_max`, `reduce_window_min`, and
the two primitives their derivatives need, `select_and_gather_add` and
`select_and_scatter_add`. Like `jax._src.lax.windowed_reductions`.

Layer 2. A window slides over the operand, base-dilated (`base_dilation - 1` identities
between entries), padded (`padding`, low and high per axis, with the reduction's identity)
and strided; the window itself may be dilated. Pooling layers are these (`stax.MaxPool` is
`reduce_window_max`).

Rules, as JAX's: the sum is linear; its transpose pads the cotangent (interior padding
`stride - 1`) and sums it over the same windows. Max and min choose: their jvp is
`select_and_gather_add(t, x)`, the tangent at each window's chosen entry (ge for max, le for
min); that is linear in t and transposes to `select_and_scatter_add(ct, x)`, which adds each
cotangent where its window's entry was chosen (and transposes back). Batching adds a
size-1 window axis for the batch. Eager impls view every window at once
(`sliding_window_view`); lowerings are `stablehlo.reduce_window` (two operands for
select_and_gather_add) and `stablehlo.select_and_scatter`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes
from didax.core import ShapedArray, UndefinedPrimal
from didax.primitives import ad_helpers, comparison, concatenation, reductions, rules, shape
from didax.primitives.elementwise import partials_jvp

# ----------------------------------------------------------------------------- shapes


def dilate_shape(shp: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    return tuple(0 if d == 0 else (d - 1) * r + 1 for d, r in zip(shp, dilation, strict=True))


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The shape of a windowed reduction's result. Like `jax.lax.reduce_window_shape_tuple`."""
    if base_dilation is not None:
        operand_shape = dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = dilate_shape(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(operand_shape, padding, strict=True)]
    return tuple(
        0 if p < w else (p - w) // s + 1
        for p, w, s in zip(padded, window_dimensions, window_strides, strict=True)
    )


def _check_window(name: str, x: ShapedArray, params: dict) -> None:
    wd = params["window_dimensions"]
    for what in ("window_dimensions", "window_strides"):
        if any(int(d) <= 0 for d in params[what]):
            raise TypeError(f"{name}: {what} must be positive, got {params[what]}")
    if x.ndim != len(wd):
        raise TypeError(
            "reduce_window got the wrong number of window_dimensions for operand: got "
            f"operand shape {x.shape} with window_dimensions {wd}."
        )
    for what in ("window_strides", "base_dilation", "window_dilation", "padding"):
        if what in params and len(params[what]) != len(wd):
            raise TypeError(
                f"reduce_window got inconsistent {what} and window_dimensions: got {what} "
                f"{params[what]} and window_dimensions {wd}."
            )


def window_aval(name: str, x: ShapedArray, **params: Any) -> ShapedArray:
    _check_window(name, x, params)
    out = reduce_window_shape_tuple(
        x.shape,
        params["window_dimensions"],
        params["window_strides"],
        params["padding"],
        params.get("base_dilation"),
        params.get("window_dilation"),
    )
    return ShapedArray(out, x.dtype)


def _identity(op: str, dtype: np.dtype) -> Any:
    return rules.reduction_identity(op, dtype)


# ----------------------------------------------------------------------------- eager windows


def _windows(x: np.ndarray, fill: Any, params: dict) -> np.ndarray:
    # (out..., window...) view of every window of the dilated, padded operand
    base = params.get("base_dilation") or (1,) * x.ndim
    wdil = params.get("window_dilation") or (1,) * x.ndim
    if any(b > 1 for b in base):
        big = np.full(dilate_shape(x.shape, base), fill, x.dtype)
        big[tuple(slice(None, None, b) for b in base)] = x
        x = big
    pads = [(max(lo, 0), max(hi, 0)) for lo, hi in params["padding"]]
    x = np.pad(x, pads, constant_values=fill)
    crop = tuple(
        slice(-lo if lo < 0 else 0, n + hi if hi < 0 else None)
        for n, (lo, hi) in zip(x.shape, params["padding"], strict=True)
    )
    x = x[crop]
    span = dilate_shape(params["window_dimensions"], wdil)
    if any(n < s for n, s in zip(x.shape, span, strict=True)):
        out = [0] * x.ndim
        return np.empty((*out, *params["window_dimensions"]), x.dtype)
    w = np.lib.stride_tricks.sliding_window_view(x, span)
    nd = x.ndim
    w = w[tuple(slice(None, None, s) for s in params["window_strides"])]
    return w[(slice(None),) * nd + tuple(slice(None, None, d) for d in wdil)]


def flat_windows(x: np.ndarray, fill: Any, params: dict) -> np.ndarray:
    w = _windows(x, fill, params)
    nd = x.ndim
    return w.reshape(*w.shape[:nd], -1)


# ----------------------------------------------------------------------------- sum, max, min


def window_params(
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None,
    window_dilation: Sequence[int] | None,
) -> dict:
    ones = (1,) * len(window_dimensions)
    return dict(
        window_dimensions=tuple(int(d) for d in window_dimensions),
        window_strides=tuple(int(s) for s in window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
        base_dilation=ones if base_dilation is None else tuple(int(d) for d in base_dilation),
        window_dilation=ones if window_dilation is None else tuple(int(d) for d in window_dilation),
    )


def _make_reducer(name: str, op: str, np_reduce: Any) -> core.Primitive:
    prim = core.Primitive(name)

    def impl(x, **params):
        x = np.asarray(x)
        fill = _identity(op, x.dtype)
        w = flat_windows(x, fill, params)
        if w.shape[-1] == 0:
            return [np.full(w.shape[:-1], fill, x.dtype)]
        return [np_reduce(w, axis=-1).astype(x.dtype)]

    core.impl_rules.register(prim, rules.validated_impl(prim, impl))
    core.abstract_eval_rules.register(prim, lambda x, **p: [window_aval(name, x, **p)])

    @core.vmap_rules.register(prim)
    def _vmap(axis_size, vals, dims, **params):
        (x,), (d,) = vals, dims
        return [prim.bind(x, **with_batch_window(params, d))], [d]

    @core.lowering_rules.register(prim)
    def _lowering(ctx, x, **params):
        dtype = ctx.avals_in[0].dtype
        hlo_op = rules.BOOL_REDUCERS[op] if dtype == dtypes.bool_ else op
        init = ctx.constant(_identity(op, dtype), dtype)
        return reduce_window_hlo(
            ctx, [x], [init], [dtype], lambda a, b: [getattr(ctx.hlo, hlo_op)(a[0], b[0])], params
        )

    return prim


def with_batch_window(params: dict, d: int) -> dict:
    # a size-1, unstrided, unpadded window along the batch axis d
    out = dict(params)
    for key, one in (
        ("window_dimensions", 1),
        ("window_strides", 1),
        ("padding", (0, 0)),
        ("base_dilation", 1),
        ("window_dilation", 1),
    ):
        if key in params:
            v = params[key]
            out[key] = (*v[:d], one, *v[d:])
    return out


reduce_window_sum_p = _make_reducer("reduce_window_sum", "add", np.sum)
# XLA's order of zeros (-0.0 below +0.0), as the whole-axis reductions follow it
reduce_window_max_p = _make_reducer("reduce_window_max", "maximum", reductions.xla_max)
reduce_window_min_p = _make_reducer("reduce_window_min", "minimum", reductions.xla_min)


def reduce_window_sum(x: Any, window_dimensions, window_strides, padding, base_dilation=None,
                      window_dilation=None) -> Any:  # fmt: skip
    """Sums over windows (padding with zeros)."""
    params = window_params(
        window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    return reduce_window_sum_p.bind(x, **params)


def reduce_window_max(x: Any, window_dimensions, window_strides, padding, base_dilation=None,
                      window_dilation=None) -> Any:  # fmt: skip
    """Maxima over windows (padding with -inf, or the dtype's least value)."""
    params = window_params(
        window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    return reduce_window_max_p.bind(x, **params)


def reduce_window_min(x: Any, window_dimensions, window_strides, padding, base_dilation=None,
                      window_dilation=None) -> Any:  # fmt: skip
    """Minima over windows (padding with inf, or the dtype's greatest value)."""
    params = window_params(
        window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    return reduce_window_min_p.bind(x, **params)


core.jvp_rules.register(reduce_window_sum_p, ad_helpers.linear_jvp(reduce_window_sum_p))


def _vjp_lhs_padding(in_shape, window, strides, out_shape, padding, base, wdil):
    # the padding that turns a windowed sum's cotangent back into its operand's shape
    lhs = dilate_shape(in_shape, base)
    rhs = dilate_shape(window, wdil)
    out = dilate_shape(out_shape, strides)
    before = [r - lo - 1 for r, (lo, _) in zip(rhs, padding, strict=True)]
    after = [a + r - 1 - o - b for a, r, o, b in zip(lhs, rhs, out, before, strict=True)]
    return list(zip(before, after, strict=True))


@core.transpose_rules.register(reduce_window_sum_p)
def _reduce_window_sum_transpose(cts, x, **params):
    (ct,) = cts
    in_shape = x.aval.shape
    pads = _vjp_lhs_padding(
        in_shape, params["window_dimensions"], params["window_strides"],
        core.get_aval(ct).shape, params["padding"], params["base_dilation"],
        params["window_dilation"],
    )  # fmt: skip
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, params["window_strides"], strict=True)]
    zero = np.zeros((), core.get_aval(ct).dtype)
    padded = concatenation.pad(ct, zero, config)
    ones = (1,) * len(in_shape)
    out = reduce_window_sum(
        padded, params["window_dimensions"], params["base_dilation"], [(0, 0)] * len(in_shape),
        base_dilation=ones, window_dilation=params["window_dilation"],
    )  # fmt: skip
    return [out]


def _chooser_jvp(select_prim: core.Primitive, prim: core.Primitive):
    # the tangent at the entry each window chose
    return partials_jvp(
        prim, lambda t, x, out, **params: select_and_gather_add(t, x, select_prim, **params)
    )


core.jvp_rules.register(reduce_window_max_p, _chooser_jvp(comparison.ge_p, reduce_window_max_p))
core.jvp_rules.register(reduce_window_min_p, _chooser_jvp(comparison.le_p, reduce_window_min_p))
# no transpose rules: max and min are not linear


# ----------------------------------------------------------------------------- select_and_gather_add

select_and_gather_add_p = core.Primitive("select_and_gather_add")


def select_and_gather_add(t: Any, x: Any, select_prim: core.Primitive, **params: Any) -> Any:
    """For each window of x, t at the entry `select_prim` (ge: the first maximum, le: the
    first minimum) chooses."""
    return select_and_gather_add_p.bind(t, x, select_prim=select_prim, **params)


def _chosen(select_prim: core.Primitive, w: np.ndarray) -> np.ndarray:
    # the index of the first chosen entry along the last axis (NaN wins, as XLA's compare)
    pick = np.argmax if select_prim is comparison.ge_p else np.argmin
    nan = np.isnan(w) if dtypes.is_float(w.dtype) else np.zeros(w.shape, bool)
    return np.where(nan.any(-1), np.argmax(nan, -1), pick(np.where(nan, 0, w), -1))


def _select_op(select_prim: core.Primitive) -> str:
    return "maximum" if select_prim is comparison.ge_p else "minimum"


def _select_and_gather_add_impl(t, x, *, select_prim, **params):
    t, x = np.asarray(t), np.asarray(x)
    wx = flat_windows(x, _identity(_select_op(select_prim), x.dtype), params)
    wt = flat_windows(t, 0, params)
    if wx.shape[-1] == 0:
        return [np.zeros(wx.shape[:-1], t.dtype)]
    idx = _chosen(select_prim, wx)
    return [np.take_along_axis(wt, idx[..., None], -1)[..., 0].astype(t.dtype)]


core.impl_rules.register(
    select_and_gather_add_p,
    rules.validated_impl(select_and_gather_add_p, _select_and_gather_add_impl),
)


@core.abstract_eval_rules.register(select_and_gather_add_p)
def _select_and_gather_add_abstract_eval(t, x, *, select_prim, **params):
    if t.shape != x.shape:
        raise TypeError(
            "select_and_gather_add tangents and operand shapes must match, "
            f"got {t.shape} and {x.shape}."
        )
    return [window_aval("select_and_gather_add", x, **params).update(dtype=t.dtype)]


core.jvp_rules.register(
    select_and_gather_add_p, ad_helpers.linear_jvp(select_and_gather_add_p, [0])
)


@core.transpose_rules.register(select_and_gather_add_p)
def _select_and_gather_add_transpose(cts, t, x, *, select_prim, **params):
    (ct,) = cts
    if isinstance(x, UndefinedPrimal):
        raise ValueError("select_and_gather_add: cannot transpose with respect to the operand")
    if any(d != 1 for d in params["window_dilation"]):
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
            f"window_dilation={params['window_dilation']}."
        )
    base = params["base_dilation"]
    if any(d != 1 for d in base):  # the holes hold identities, never chosen
        fill = np.array(_identity(_select_op(select_prim), core.get_aval(x).dtype))
        x = concatenation.pad(x, fill.astype(core.get_aval(x).dtype), [(0, 0, d - 1) for d in base])
    out = select_and_scatter_add(
        ct, x, select_prim, params["window_dimensions"], params["window_strides"],
        params["padding"],
    )  # fmt: skip
    if any(d != 1 for d in base):
        aval = core.get_aval(out)
        out = concatenation.slice(out, (0,) * aval.ndim, aval.shape, base)
    return [out, None]


@core.vmap_rules.register(select_and_gather_add_p)
def _select_and_gather_add_vmap(axis_size, vals, dims, **params):
    t, x = (shape.move_axis(v, d, 0, axis_size) for v, d in zip(vals, dims, strict=True))
    return [select_and_gather_add_p.bind(t, x, **with_batch_window(params, 0))], [0]


@core.lowering_rules.register(select_and_gather_add_p)
def _select_and_gather_add_lowering(ctx, t, x, *, select_prim, **params):
    # one reduce_window over (x, t) pairs: keep the pair whose x `select_prim` chooses
    t_dtype, x_dtype = ctx.avals_in[0].dtype, ctx.avals_in[1].dtype
    direction = "GE" if select_prim is comparison.ge_p else "LE"
    init_x = ctx.constant(_identity(_select_op(select_prim), x_dtype), x_dtype)
    init_t = ctx.constant(0, t_dtype)

    def body(a, b):
        which = rules.compare(ctx, a[0], b[0], direction, x_dtype)
        return [ctx.hlo.select(which, a[0], b[0]), ctx.hlo.select(which, a[1], b[1])]

    out_x_aval = ctx.avals_out[0].update(dtype=x_dtype)
    _, out = reduce_window_hlo(
        ctx, [x, t], [init_x, init_t], [x_dtype, t_dtype], body, params,
        [out_x_aval, ctx.avals_out[0]],
    )  # fmt: skip
    return [out]


# ----------------------------------------------------------------------------- select_and_scatter_add

select_and_scatter_add_p = core.Primitive("select_and_scatter_add")


def select_and_scatter_add(source, x, select_prim, window_dimensions, window_strides, padding):
    """Adds each `source` value at the entry of its window of x that `select_prim` chooses;
    zeros elsewhere (the transpose of `select_and_gather_add`)."""
    return select_and_scatter_add_p.bind(
        source,
        x,
        select_prim=select_prim,
        window_dimensions=tuple(window_dimensions),
        window_strides=tuple(window_strides),
        padding=tuple(tuple(p) for p in padding),
    )


def _select_and_scatter_add_impl(source, x, *, select_prim, **params):
    source, x = np.asarray(source), np.asarray(x)
    fill = _identity(_select_op(select_prim), x.dtype)
    positions = np.arange(x.size).reshape(x.shape)
    wx = flat_windows(x, fill, params)
    wpos = flat_windows(positions, -1, params)
    out = np.zeros(x.size, source.dtype)
    if wx.shape[-1]:
        idx = _chosen(select_prim, wx)
        chosen = np.take_along_axis(wpos, idx[..., None], -1)[..., 0]
        keep = chosen >= 0  # a padding entry chosen: its value is dropped
        np.add.at(out, chosen[keep], source[keep])
    return [out.reshape(x.shape)]


core.impl_rules.register(
    select_and_scatter_add_p,
    rules.validated_impl(select_and_scatter_add_p, _select_and_scatter_add_impl),
)


@core.abstract_eval_rules.register(select_and_scatter_add_p)
def _select_and_scatter_add_abstract_eval(source, x, *, select_prim, **params):
    out = window_aval("select_and_scatter_add", x, **params)
    if out.shape != source.shape:
        raise TypeError(
            f"select_and_scatter_add: source shape {source.shape} does not match the windows' "
            f"shape {out.shape}"
        )
    return [ShapedArray(x.shape, source.dtype)]


core.jvp_rules.register(
    select_and_scatter_add_p, ad_helpers.linear_jvp(select_and_scatter_add_p, [0])
)


@core.transpose_rules.register(select_and_scatter_add_p)
def _select_and_scatter_add_transpose(cts, s, x, *, select_prim, **params):
    (ct,) = cts
    if isinstance(x, UndefinedPrimal):
        raise ValueError("select_and_scatter_add: cannot transpose with respect to the operand")
    ones = (1,) * len(params["window_dimensions"])
    out = select_and_gather_add(
        ct, x, select_prim, base_dilation=ones, window_dilation=ones, **params
    )
    return [out, None]


@core.vmap_rules.register(select_and_scatter_add_p)
def _select_and_scatter_add_vmap(axis_size, vals, dims, **params):
    s, x = (shape.move_axis(v, d, 0, axis_size) for v, d in zip(vals, dims, strict=True))
    return [select_and_scatter_add_p.bind(s, x, **with_batch_window(params, 0))], [0]


@core.lowering_rules.register(select_and_scatter_add_p)
def _select_and_scatter_add_lowering(ctx, source, x, *, select_prim, **params):
    # as JAX: pad x with the identity, select_and_scatter without padding, slice the padding off
    hlo, ir = ctx.hlo, ctx.ir
    s_aval, x_aval = ctx.avals_in
    pads = params["padding"]
    fill = ctx.constant(_identity(_select_op(select_prim), x_aval.dtype), x_aval.dtype)
    padded_shape = tuple(d + lo + hi for d, (lo, hi) in zip(x_aval.shape, pads, strict=True))
    x = hlo.pad(x, fill, [lo for lo, _ in pads], [hi for _, hi in pads], [0] * x_aval.ndim)
    out_aval = ShapedArray(padded_shape, s_aval.dtype)
    i64 = ir.IntegerType.get_signless(64)
    zeros = np.zeros((x_aval.ndim, 2), np.int64)
    op = hlo.SelectAndScatterOp(
        ctx.tensor_type(out_aval),
        x,
        source,
        ctx.constant(0, s_aval.dtype),
        window_dimensions=list(params["window_dimensions"]),
        window_strides=list(params["window_strides"]),
        padding=ir.DenseIntElementsAttr.get(zeros, type=i64),
    )
    scalar_x = ctx.tensor_type(ShapedArray((), x_aval.dtype))
    scalar_s = ctx.tensor_type(ShapedArray((), s_aval.dtype))
    select = op.select.blocks.append(scalar_x, scalar_x)
    direction = "GE" if select_prim is comparison.ge_p else "LE"
    with ir.InsertionPoint(select):
        hlo.return_([rules.compare(ctx, *select.arguments, direction, x_aval.dtype)])
    scatter = op.scatter.blocks.append(scalar_s, scalar_s)
    with ir.InsertionPoint(scatter):
        hlo.return_([hlo.add(*scatter.arguments)])
    start = [lo for lo, _ in pads]
    limit = [lo + d for d, (lo, _) in zip(x_aval.shape, pads, strict=True)]
    return [hlo.slice(op.result, start, limit, [1] * x_aval.ndim)]


# ----------------------------------------------------------------------------- lowering


def reduce_window_hlo(ctx, operands, inits, dtypes_, body, params, out_avals=None) -> list:
    # stablehlo.reduce_window of `operands` from `inits`; `body(a, b)` combines two lists of
    # scalars (one per operand) into one
    hlo, ir = ctx.hlo, ctx.ir
    out_avals = list(ctx.avals_out) if out_avals is None else out_avals
    nd = len(params["window_dimensions"])
    i64 = ir.IntegerType.get_signless(64)
    pads = np.array(params["padding"], np.int64).reshape(nd, 2)
    op = hlo.ReduceWindowOp(
        [ctx.tensor_type(a) for a in out_avals],
        list(operands),
        list(inits),
        list(params["window_dimensions"]),
        window_strides=list(params["window_strides"]),
        base_dilations=list(params["base_dilation"]),
        window_dilations=list(params["window_dilation"]),
        padding=ir.DenseIntElementsAttr.get(pads, type=i64),
    )
    scalars = [ctx.tensor_type(ShapedArray((), d)) for d in dtypes_]
    block = op.regions[0].blocks.append(*scalars, *scalars)
    k = len(operands)
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        hlo.return_(body(args[:k], args[k:]))
    return list(op.results)
