"""`conv_general_dilated`: N-d convolution (strictly, cross-correlation) with strides,
padding, input and kernel dilation, layouts and feature/batch groups. Like
`jax.lax.conv_general_dilated` and `jax.lax.conv`.

Layer 2. `dimension_numbers` is a `ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)`: each
spec lists the positions of (batch, feature, spatial...) in the input and output, and
(out-feature, in-feature, spatial...) in the kernel; the wrappers accept JAX's strings
(`('NHWC', 'HWIO', 'NHWC')`). The op is bilinear: its jvp is the sum of two convolutions, and
each transpose is again a convolution (of the cotangent with the flipped kernel for the
input; of the input with the cotangent for the kernel), with the roles of strides and input
dilation swapped. The eager impl views every window of the padded, dilated input at once
(`sliding_window_view`) and contracts with `einsum`; the lowering is one
`stablehlo.convolution`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from didax import core, dtypes
from didax.core import NOT_MAPPED, ShapedArray, UndefinedPrimal
from didax.primitives import concatenation, creation, rules, shape
from didax.primitives.dot import canonical_precision, precision_config
from didax.primitives.elementwise import partials_jvp
from didax.primitives.shape import rev


class ConvDimensionNumbers(NamedTuple):
    """Where batch/feature/spatial axes sit in input, kernel and output. Like
    `jax.lax.ConvDimensionNumbers`."""

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


conv_general_dilated_p = core.Primitive("conv_general_dilated")


def conv_dimension_numbers(lhs_ndim: int, rhs_ndim: int, dimension_numbers: Any) -> Any:
    """`dimension_numbers` (None, three strings, or a ConvDimensionNumbers) as a
    ConvDimensionNumbers. Like `jax.lax.conv_dimension_numbers`."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if dimension_numbers is None:
        default = tuple(range(lhs_ndim))
        return ConvDimensionNumbers(default, tuple(range(rhs_ndim)), default)
    lhs, rhs, out = dimension_numbers
    if len(lhs) != lhs_ndim or len(rhs) != rhs_ndim or len(out) != lhs_ndim:
        raise TypeError(
            f"conv_general_dilated: dimension_numbers {dimension_numbers} do not match "
            f"operands of rank {lhs_ndim} and {rhs_ndim}"
        )
    for spec, pair in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if spec.count(pair[0]) != 1 or spec.count(pair[1]) != 1 or len(set(spec)) != len(spec):
            raise TypeError(
                f"conv_general_dilated: dimension spec {spec!r} must have exactly one "
                f"{pair[0]!r} and one {pair[1]!r} and no repeated letters"
            )
    if not set(lhs) - set("NC") == set(rhs) - set("OI") == set(out) - set("NC"):
        raise TypeError(
            "convolution dimension_numbers elements must each have the same set of spatial "
            f"characters, got {tuple(dimension_numbers)}."
        )

    def spec_of(s: str, pair: str) -> tuple[int, ...]:
        spatial = sorted(
            (i for i, c in enumerate(s) if c not in pair), key=lambda i: rhs.index(s[i])
        )
        return (s.index(pair[0]), s.index(pair[1]), *spatial)

    return ConvDimensionNumbers(spec_of(lhs, "NC"), spec_of(rhs, "OI"), spec_of(out, "NC"))


def _dilate(size: int, d: int) -> int:
    return 0 if size == 0 else (size - 1) * d + 1


def padtype_to_pads(
    in_shape: Sequence[int], window: Sequence[int], strides: Sequence[int], padding: str
) -> list[tuple[int, int]]:
    """'SAME' / 'SAME_LOWER' / 'VALID' as (low, high) pairs per spatial axis. Like
    `jax.lax.padtype_to_pads`."""
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise RuntimeError(  # JAX's type for this error
            f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}."
        )
    pads = []
    for n, k, s in zip(in_shape, window, strides, strict=True):
        out = -(-n // s)  # ceil: SAME keeps ceil(n / stride) outputs
        total = max((out - 1) * s + k - n, 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if kind == "SAME" else (big, small))
    return pads


def conv_general_dilated(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """Like `jax.lax.conv_general_dilated`."""
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    dn = conv_dimension_numbers(lhs_aval.ndim, rhs_aval.ndim, dimension_numbers)
    n = lhs_aval.ndim - 2
    lhs_dilation = tuple(lhs_dilation) if lhs_dilation is not None else (1,) * n
    rhs_dilation = tuple(rhs_dilation) if rhs_dilation is not None else (1,) * n
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ValueError(
                "String padding is not implemented for transposed convolution using this op. "
                "Please either exactly specify the required padding or use conv_transpose."
            )
        in_shape = [lhs_aval.shape[d] for d in dn.lhs_spec[2:]]
        kernel = [_dilate(rhs_aval.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads(in_shape, kernel, window_strides, padding)
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs,
        rhs,
        window_strides=tuple(int(s) for s in window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
        lhs_dilation=tuple(int(d) for d in lhs_dilation),
        rhs_dilation=tuple(int(d) for d in rhs_dilation),
        dimension_numbers=dn,
        feature_group_count=int(feature_group_count),
        batch_group_count=int(batch_group_count),
        precision=canonical_precision(precision),
        preferred_element_type=preferred_element_type,
        out_sharding=None,
    )


def conv(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """A convolution in NCHW / OIHW layout. Like `jax.lax.conv`."""
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, precision=precision,
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


# ----------------------------------------------------------------------------- impl


def _dilate_and_pad(x: np.ndarray, dilation: Sequence[int], padding: Sequence[tuple[int, int]]):
    # x is (N, C, *spatial): zeros between entries, then (possibly negative) edge padding
    for i, d in enumerate(dilation):
        if d > 1 and x.shape[2 + i] > 0:
            shp = list(x.shape)
            shp[2 + i] = _dilate(x.shape[2 + i], d)
            out = np.zeros(shp, x.dtype)
            index = [slice(None)] * x.ndim
            index[2 + i] = slice(None, None, d)
            out[tuple(index)] = x
            x = out
    pads = [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    x = np.pad(x, pads)
    index = [slice(None), slice(None)] + [
        slice(-lo if lo < 0 else 0, x.shape[2 + i] + hi if hi < 0 else None)
        for i, (lo, hi) in enumerate(padding)
    ]
    return x[tuple(index)]


def _conv_general_dilated_impl(lhs, rhs, **params):
    dn = params["dimension_numbers"]
    out_aval = _conv_abstract_eval_avals(core.get_aval(lhs), core.get_aval(rhs), **params)
    dtype = out_aval.dtype
    x = np.transpose(np.asarray(lhs), dn.lhs_spec)  # (N, C, *spatial)
    w = np.transpose(np.asarray(rhs), dn.rhs_spec)  # (O, I, *window)
    n = x.ndim - 2
    x = _dilate_and_pad(x, params["lhs_dilation"], params["padding"])
    w = _dilate_and_pad(w, params["rhs_dilation"], [(0, 0)] * n)
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[2:], axis=tuple(range(2, 2 + n)))
    windows = windows[
        (slice(None), slice(None), *(slice(None, None, s) for s in params["window_strides"]))
    ]
    out_spatial = tuple(out_aval.shape[d] for d in dn.out_spec[2:])
    windows = windows[(slice(None), slice(None), *(slice(0, k) for k in out_spatial))]
    g, b = params["feature_group_count"], params["batch_group_count"]
    N, C = windows.shape[:2]
    O = w.shape[0]  # noqa: E741
    sp, kk = "xyzuvw"[:n], "klmpqr"[:n]
    # windows (b, n, g, c, *sp, *kk) with kernel (b, g, o, c, *kk) -> out (n, b, g, o, *sp)
    win = windows.reshape(b, N // b, g, C // g, *windows.shape[2:])
    ker = w.reshape(b, g, O // (b * g), C // g, *w.shape[2:])
    acc = np.float64 if dtypes.is_float(dtype) else np.int64
    out = np.einsum(
        f"BNGc{sp}{kk},BGoc{kk}->NBGo{sp}", win.astype(acc), ker.astype(acc), optimize=True
    )
    out = out.reshape(N // b, O, *out_spatial).astype(dtype)
    return [np.transpose(out, np.argsort(dn.out_spec))]


core.impl_rules.register(
    conv_general_dilated_p,
    rules.validated_impl(conv_general_dilated_p, _conv_general_dilated_impl),
)


def _conv_abstract_eval_avals(lhs, rhs, **params) -> ShapedArray:
    dn = params["dimension_numbers"]
    g, b = params["feature_group_count"], params["batch_group_count"]
    name = "conv_general_dilated"
    if lhs.dtype != rhs.dtype:
        raise TypeError(
            f"{name} requires operands of the same dtype, got {lhs.dtype.name} and {rhs.dtype.name}"
        )
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise TypeError(
            f"{name}: operands must have one rank >= 2, got {lhs.str_short()} and {rhs.str_short()}"
        )
    N, C = lhs.shape[dn.lhs_spec[0]], lhs.shape[dn.lhs_spec[1]]
    O, I = rhs.shape[dn.rhs_spec[0]], rhs.shape[dn.rhs_spec[1]]  # noqa: E741
    if g < 1 or b < 1 or (g > 1 and b > 1):
        raise ValueError(f"{name}: feature_group_count={g}, batch_group_count={b}")
    if C != I * g or O % g:
        raise ValueError(
            f"{name} lhs feature dimension size divided by feature_group_count must equal "
            f"the rhs input feature dimension size, but {C} // {g} != {I}."
        )
    if N % b or O % b:
        raise ValueError(
            f"{name}: batch_group_count={b} must divide the lhs batch size {N} and the rhs "
            f"output feature size {O}"
        )
    spatial = []
    for i in range(lhs.ndim - 2):
        size = _dilate(lhs.shape[dn.lhs_spec[2 + i]], params["lhs_dilation"][i])
        lo, hi = params["padding"][i]
        kernel = _dilate(rhs.shape[dn.rhs_spec[2 + i]], params["rhs_dilation"][i])
        span = size + lo + hi - kernel
        spatial.append(max(span // params["window_strides"][i] + 1, 0) if span >= 0 else 0)
    shape_out = [0] * lhs.ndim
    shape_out[dn.out_spec[0]], shape_out[dn.out_spec[1]] = N // b, O
    for i, size in enumerate(spatial):
        shape_out[dn.out_spec[2 + i]] = size
    return ShapedArray(tuple(shape_out), params["preferred_element_type"] or lhs.dtype)


@core.abstract_eval_rules.register(conv_general_dilated_p)
def _conv_general_dilated_abstract_eval(lhs, rhs, **params):
    return [_conv_abstract_eval_avals(lhs, rhs, **params)]


core.jvp_rules.register(  # bilinear: d(x * w) = dx * w + x * dw
    conv_general_dilated_p,
    partials_jvp(
        conv_general_dilated_p,
        lambda t, x, w, out, **params: conv_general_dilated_p.bind(t, w, **params),
        lambda t, x, w, out, **params: conv_general_dilated_p.bind(x, t, **params),
    ),
)


# ----------------------------------------------------------------------------- transpose


def _swap01(spec: tuple[int, ...]) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


def _split_axis(x: Any, axis: int, parts: int) -> Any:  # axis of size p*q -> (p, q) at axis
    s = core.get_aval(x).shape
    return shape.reshape(x, (*s[:axis], parts, s[axis] // parts, *s[axis + 1 :]))


def _merge_axis(x: Any, src: int, dst: int) -> Any:
    # axis `src` merged into axis `dst` as its major part (positions before the merge)
    s = core.get_aval(x).shape
    perm = [i for i in range(len(s)) if i != src]
    at = perm.index(dst)
    perm.insert(at, src)
    y = shape.transpose(x, tuple(perm))
    t = core.get_aval(y).shape
    return shape.reshape(y, (*t[:at], t[at] * t[at + 1], *t[at + 2 :]))


def _spatial(x_aval: ShapedArray, w_aval: ShapedArray, ct: Any, params: dict) -> list[tuple]:
    """Per spatial dimension of a conv: the input, kernel and output sizes, the stride, the
    low padding and the input and kernel dilations (what its transposes are sized by)."""
    dn = params["dimension_numbers"]

    def sizes(aval: ShapedArray, spec: tuple[int, ...]) -> list[int]:
        return [aval.shape[d] for d in spec[2:]]

    return list(
        zip(
            sizes(x_aval, dn.lhs_spec), sizes(w_aval, dn.rhs_spec),
            sizes(core.get_aval(ct), dn.out_spec), params["window_strides"],
            [lo for lo, _ in params["padding"]], params["lhs_dilation"], params["rhs_dilation"],
            strict=True,
        )
    )  # fmt: skip


def _transpose_lhs(ct, x_aval, w, params):
    dn = params["dimension_numbers"]
    g, b = params["feature_group_count"], params["batch_group_count"]
    w_aval = core.get_aval(w)
    groups = max(g, b)  # at most one of them is > 1
    if groups > 1:  # the kernel's out-feature groups become in-feature groups
        o_axis, i_axis = dn.rhs_spec[0], dn.rhs_spec[1]
        w = _split_axis(w, o_axis, groups)
        w = _merge_axis(w, o_axis, i_axis + (1 if i_axis > o_axis else 0))
    pads = []
    for n, k, o, s, lo, ld, rd in _spatial(x_aval, w_aval, ct, params):
        kernel = _dilate(k, rd)
        before = kernel - lo - 1
        pads.append((before, _dilate(n, ld) + kernel - 1 - _dilate(o, s) - before))
    out = conv_general_dilated_p.bind(
        ct,
        rev(w, dn.rhs_spec[2:]),
        **{
            **params,
            "window_strides": params["lhs_dilation"],
            "padding": tuple(pads),
            "lhs_dilation": params["window_strides"],
            "dimension_numbers": ConvDimensionNumbers(
                dn.out_spec, _swap01(dn.rhs_spec), dn.lhs_spec
            ),
            "feature_group_count": groups,
            "batch_group_count": 1,
            "preferred_element_type": None,
        },
    )
    if b > 1:  # the batch groups came out as feature blocks: back into the batch axis
        n_axis, c_axis = dn.lhs_spec[0], dn.lhs_spec[1]
        out = _split_axis(out, c_axis, b)
        out = _merge_axis(out, c_axis, n_axis + (1 if n_axis > c_axis else 0))
    return _fit(out, x_aval)


def _transpose_rhs(ct, x, w_aval, params):
    dn = params["dimension_numbers"]
    g, b = params["feature_group_count"], params["batch_group_count"]
    x_aval = core.get_aval(x)
    pads = []
    for n, k, o, s, lo, ld, rd in _spatial(x_aval, w_aval, ct, params):
        hi = _dilate(o, s) - _dilate(n, ld) + _dilate(k, rd) - lo - 1
        pads.append((lo, hi))
    out = conv_general_dilated_p.bind(
        x,
        ct,
        **{
            **params,
            "window_strides": params["rhs_dilation"],
            "padding": tuple(pads),
            "rhs_dilation": params["window_strides"],
            "dimension_numbers": ConvDimensionNumbers(
                _swap01(dn.lhs_spec), _swap01(dn.out_spec), _swap01(dn.rhs_spec)
            ),
            "feature_group_count": b,  # feature groups become batch groups, and back
            "batch_group_count": g,
            "preferred_element_type": None,
        },
    )
    return _fit(out, w_aval)


def _fit(out: Any, aval: ShapedArray) -> Any:
    # with strides, the last rows of the input may reach no output: the transposed conv
    # then comes out shorter, and those rows' cotangents are zeros
    have = core.get_aval(out).shape
    if have == aval.shape:
        return out
    zero = creation.full((), 0, core.get_aval(out).dtype)
    return concatenation.pad(
        out, zero, [(0, want - got, 0) for got, want in zip(have, aval.shape, strict=True)]
    )


@core.transpose_rules.register(conv_general_dilated_p)
def _conv_general_dilated_transpose(cts, x, w, **params):
    (ct,) = cts
    if isinstance(x, UndefinedPrimal) and isinstance(w, UndefinedPrimal):
        raise ValueError("conv_general_dilated: cannot transpose a product of two linear operands")
    if isinstance(x, UndefinedPrimal):
        return [_transpose_lhs(ct, x.aval, w, params), None]
    return [None, _transpose_rhs(ct, x, w.aval, params)]


# ----------------------------------------------------------------------------- vmap


@core.vmap_rules.register(conv_general_dilated_p)
def _conv_general_dilated_vmap(axis_size, vals, dims, **params):
    (x, w), (dx, dw) = vals, dims
    dn = params["dimension_numbers"]
    g, b = params["feature_group_count"], params["batch_group_count"]
    if b > 1:
        return _vmap_batch_groups(axis_size, x, dx, w, dw, params)
    if dw is NOT_MAPPED:  # the vmapped axis joins the batch axis (as its major part)
        x = shape.move_axis(x, dx, 0, axis_size)
        x = _merge_axis(x, 0, dn.lhs_spec[0] + 1)
        out = conv_general_dilated_p.bind(x, w, **params)
        return [_split_axis(out, dn.out_spec[0], axis_size)], [dn.out_spec[0]]
    # the vmapped axis becomes feature groups: input features and kernel out-features
    x = shape.move_axis(x, dx, 0, axis_size)
    w = shape.move_axis(w, dw, 0, axis_size)
    x = _merge_axis(x, 0, dn.lhs_spec[1] + 1)
    w = _merge_axis(w, 0, dn.rhs_spec[0] + 1)
    out = conv_general_dilated_p.bind(x, w, **{**params, "feature_group_count": axis_size * g})
    return [_split_axis(out, dn.out_spec[1], axis_size)], [dn.out_spec[1]]


def _vmap_batch_groups(size, x, dx, w, dw, params):
    # batch groups split the input batch and the kernel out-features into b blocks (block-
    # major); the vmapped axis must go inside each block, or become more groups
    dn, b = params["dimension_numbers"], params["batch_group_count"]
    n_axis, o_axis, out_n, out_f = dn.lhs_spec[0], dn.rhs_spec[0], dn.out_spec[0], dn.out_spec[1]
    if dw is NOT_MAPPED:  # input batch (b, size, n/b): output batch (size, n/b)
        x = shape.move_axis(x, dx, 0, size)
        x = _split_axis(x, n_axis + 1, b)  # size, ..., b, n/b, ...
        x = _merge_axis(x, 0, n_axis + 2)  # ..., b, size*n/b, ...
        x = _merge_axis(x, n_axis, n_axis + 1)
        out = conv_general_dilated_p.bind(x, w, **params)
        return [_split_axis(out, out_n, size)], [out_n]
    if dx is NOT_MAPPED:  # out-features (b, size, o/b): output features (size, o)
        w = shape.move_axis(w, dw, 0, size)
        w = _split_axis(w, o_axis + 1, b)  # size, ..., b, o/b, ...
        w = _merge_axis(w, 0, o_axis + 2)
        w = _merge_axis(w, o_axis, o_axis + 1)
        out = conv_general_dilated_p.bind(x, w, **params)
        out = _split_axis(_split_axis(out, out_f, b), out_f + 1, size)  # b, size, o/b
        perm = list(range(core.get_aval(out).ndim))
        perm[out_f], perm[out_f + 1] = perm[out_f + 1], perm[out_f]  # size, b, o/b
        out = shape.transpose(out, tuple(perm))
        return [_merge_axis(out, out_f + 1, out_f + 2)], [out_f]
    # both: each (vmapped index, block) pair is a batch group of its own
    x = _merge_axis(shape.move_axis(x, dx, 0, size), 0, n_axis + 1)
    w = _merge_axis(shape.move_axis(w, dw, 0, size), 0, o_axis + 1)
    out = conv_general_dilated_p.bind(x, w, **{**params, "batch_group_count": size * b})
    return [_split_axis(out, out_f, size)], [out_f]


# ----------------------------------------------------------------------------- lowering


@core.lowering_rules.register(conv_general_dilated_p)
def _conv_general_dilated_lowering(ctx, x, w, **params):
    hlo, ir = ctx.hlo, ctx.ir
    dn = params["dimension_numbers"]
    numbers = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=dn.lhs_spec[0],
        input_feature_dimension=dn.lhs_spec[1],
        input_spatial_dimensions=list(dn.lhs_spec[2:]),
        kernel_output_feature_dimension=dn.rhs_spec[0],
        kernel_input_feature_dimension=dn.rhs_spec[1],
        kernel_spatial_dimensions=list(dn.rhs_spec[2:]),
        output_batch_dimension=dn.out_spec[0],
        output_feature_dimension=dn.out_spec[1],
        output_spatial_dimensions=list(dn.out_spec[2:]),
    )
    n = len(params["window_strides"])
    i64 = ir.IntegerType.get_signless(64)
    pads = np.array(params["padding"], np.int64).reshape(n, 2)
    return [
        hlo.convolution(
            ctx.tensor_type(ctx.avals_out[0]),
            x,
            w,
            numbers,
            ir.IntegerAttr.get(i64, params["feature_group_count"]),
            ir.IntegerAttr.get(i64, params["batch_group_count"]),
            window_strides=list(params["window_strides"]),
            padding=ir.DenseIntElementsAttr.get(pads, type=i64) if n else None,
            lhs_dilation=list(params["lhs_dilation"]),
            rhs_dilation=list(params["rhs_dilation"]),
            precision_config=precision_config(ctx, params["precision"]),
        )
    ]


# ----------------------------------------------------------------------------- shapes, transpose


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: Any,
    batch_group_count: int = 1,
) -> tuple[int, ...]:
    """The output shape of an NC.../OI... convolution. Like `jax.lax.conv_shape_tuple`."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(
            "Wrong number of explicit pads for convolution: expected "
            f"{len(lhs_shape) - 2}, got {len(pads)}."
        )
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_shape[2:], pads, strict=True)]
    if any(p < 0 for p in padded):
        raise ValueError(
            "Negative padding is larger than the size of the corresponding dimension: got "
            f"padding={pads} for lhs_shape[2:]={tuple(lhs_shape[2:])}"
        )
    space = tuple(
        0 if p < k else (p - k) // s + 1
        for p, k, s in zip(padded, rhs_shape[2:], strides, strict=True)
    )
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *space)


def _in_spec_order(
    lhs_shape, rhs_shape, dimension_numbers
) -> tuple[ConvDimensionNumbers, list, list]:
    """The dimension numbers, and the two shapes in their specs' order (N, C, spatial...)."""
    dn = conv_dimension_numbers(len(lhs_shape), len(rhs_shape), dimension_numbers)
    return dn, [lhs_shape[i] for i in dn.lhs_spec], [rhs_shape[i] for i in dn.rhs_spec]


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    dimension_numbers: Any,
) -> tuple[int, ...]:
    """The output shape of `conv_general_dilated` (no dilation). Like
    `jax.lax.conv_general_shape_tuple`."""
    dn, lhs, rhs = _in_spec_order(lhs_shape, rhs_shape, dimension_numbers)
    out = conv_shape_tuple(lhs, rhs, window_strides, padding)
    return tuple(int(out[i]) for i in np.argsort(dn.out_spec))


def _conv_transpose_padding(k: int, s: int, padding: Any) -> tuple[int, int]:
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    dimension_numbers: Any,
) -> tuple[int, ...]:
    """The output shape of `conv_transpose`. Like `jax.lax.conv_transpose_shape_tuple`."""
    dn, lhs, rhs = _in_spec_order(lhs_shape, rhs_shape, dimension_numbers)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rhs[2:], window_strides)]
    totals = [sum(p) for p in padding]
    space = [
        (i - 1) * s - k + 2 + p
        for i, k, s, p in zip(lhs[2:], rhs[2:], window_strides, totals, strict=True)
    ]
    out = (lhs[0], rhs[0], *space)
    return tuple(int(out[i]) for i in np.argsort(dn.out_spec))


_TRANSPOSE_DEFAULTS = {
    2: ("NC", "IO", "NC"),
    3: ("NHC", "HIO", "NHC"),
    4: ("NHWC", "HWIO", "NHWC"),
    5: ("NHWDC", "HWDIO", "NHWDC"),
}


def conv_transpose(
    lhs: Any,
    rhs: Any,
    strides: Sequence[int],
    padding: Any,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    transpose_kernel: bool = False,
    precision: Any = None,
    preferred_element_type: Any = None,
    use_consistent_padding: bool = False,
) -> Any:
    """A transposed ("deconvolution") convolution: the input dilated by the strides, then
    convolved. Like `jax.lax.conv_transpose`."""
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    ndims = lhs_aval.ndim
    if dimension_numbers is None:
        if ndims not in _TRANSPOSE_DEFAULTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULTS[ndims]
    dn = conv_dimension_numbers(ndims, rhs_aval.ndim, dimension_numbers)
    k_sdims = [rhs_aval.shape[i] for i in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndims - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
        sizes = [_dilate(k, r) for k, r in zip(k_sdims, rhs_dilation, strict=True)]
        per_axis = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(k, s, p) for k, s, p in zip(sizes, strides, per_axis))
    else:
        pads = padding
    if transpose_kernel:  # flip the spatial axes, swap the in/out feature axes
        rhs = rev(rhs, dn.rhs_spec[2:])
        perm = list(range(rhs_aval.ndim))
        o, i = dn.rhs_spec[0], dn.rhs_spec[1]
        perm[o], perm[i] = perm[i], perm[o]
        rhs = shape.transpose(rhs, perm)
    one = (1,) * (ndims - 2)
    return conv_general_dilated(
        lhs, rhs, one, pads, strides, rhs_dilation, dn, precision=precision,
        preferred_element_type=preferred_element_type,
    )  # fmt: skip
