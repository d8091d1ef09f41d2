"""More of `jax.numpy`: predicates (`isnan isinf isclose allclose all any`), `round`, the
real-number views (`real imag conj angle`), `var`/`std`, cumulative sums and products,
`argmin`, `sort`/`argsort`, `outer kron tril triu meshgrid einsum`, and `ravel`.

Layer 5, after the family modules (`creation.py`, `ufuncs.py`, ...), composing `lax` like
the rest of `didax.numpy`. The complex views (`real imag conj angle iscomplexobj`) bind
`lax.real` and friends on complex input and, as JAX's, return a real input itself (`imag`:
zeros). `cumsum` and `cumprod` bind their primitives (in an inner jit, as JAX's).
"""

from __future__ import annotations

import builtins
import math
import string
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy import axis_args, creation, inner_jit, manipulation, promotion, reductions, ufuncs

_i32 = dtypes.int32


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def _is_float(x: Any) -> bool:
    return dtypes.is_float(_aval(x).dtype)


def _falses(x: Any) -> Any:
    return lax.full(_aval(x).shape, False, dtypes.bool_)


def _broadcast_all(*args: Any) -> list[Any]:
    shape = np.broadcast_shapes(*(_aval(x).shape for x in args))
    return [promotion.broadcast_to(x, shape) if _aval(x).shape != shape else x for x in args]


def ravel(x: Any, order: str = "C") -> Any:
    """Like `jax.numpy.ravel`."""
    return manipulation.reshape(x, (-1,), order=order)


# ----------------------------------------------------------------------------- predicates


def isnan(x: Any) -> Any:
    """Like `jax.numpy.isnan`."""
    promotion.check_arraylike("isnan", x)
    x = creation.asarray(x)
    return lax.ne(x, x) if _is_float(x) else _falses(x)


def isinf(x: Any) -> Any:
    """Like `jax.numpy.isinf`."""
    promotion.check_arraylike("isinf", x)
    x = creation.asarray(x)
    if not _is_float(x):
        return _falses(x)
    if dtypes.is_complex(_aval(x).dtype):  # either part infinite
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return lax.eq(lax.abs(x), lax.full((), np.inf, _aval(x).dtype))


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Like `jax.numpy.isclose`."""
    a, b = promotion.promote("isclose", a, b)
    a, b = _broadcast_all(creation.asarray(a), creation.asarray(b))
    dtype = _aval(a).dtype
    if not dtypes.is_float(dtype):
        return lax.eq(a, b)
    part = dtypes.real_of(dtype)  # tolerances compare with |a - b|: real for complex a, b
    tol = lax.add(lax.full((), atol, part), lax.mul(lax.full((), rtol, part), lax.abs(b)))
    out = lax.le(lax.abs(lax.sub(a, b)), tol)
    a_inf, b_inf = isinf(a), isinf(b)
    out = lax.bitwise_and(out, lax.bitwise_not(lax.bitwise_or(a_inf, b_inf)))
    out = lax.bitwise_or(out, lax.bitwise_and(lax.bitwise_and(a_inf, b_inf), lax.eq(a, b)))
    a_nan, b_nan = isnan(a), isnan(b)
    out = lax.bitwise_and(out, lax.bitwise_not(lax.bitwise_or(a_nan, b_nan)))
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(a_nan, b_nan))
    return out


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """Like `jax.numpy.all` (a `reduce_min` of booleans; JAX's jaxpr shows `reduce_and`)."""
    return _bool_reduce("all", lax.reduce_min, x, axis, keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """Like `jax.numpy.any` (a `reduce_max` of booleans; JAX's jaxpr shows `reduce_or`)."""
    return _bool_reduce("any", lax.reduce_max, x, axis, keepdims)


def _bool_reduce(name: str, fn: Any, x: Any, axis: Any, keepdims: bool) -> Any:
    promotion.check_arraylike(name, x)
    x = creation.asarray(x)
    if _aval(x).dtype != dtypes.bool_:
        x = lax.ne(x, lax.full((), 0, _aval(x).dtype))
    axes = axis_args.canonical_axes(name, x, axis)
    out = fn(x, axes)
    return axis_args.expand_reduced(out, x, axes) if keepdims else out


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Like `jax.numpy.allclose`."""
    return all(isclose(a, b, rtol, atol, equal_nan))


# ----------------------------------------------------------------------------- rounding, parts


def round(a: Any, decimals: int = 0, out: None = None) -> Any:  # noqa: A001
    """Round half to even, to `decimals` places. Like `jax.numpy.round`."""
    promotion.check_arraylike("round", a)
    a = creation.asarray(a)
    if not _is_float(a):
        if decimals < 0:
            raise NotImplementedError("round: integer input with decimals < 0")
        return a
    if dtypes.is_complex(_aval(a).dtype):  # each part rounded, as JAX
        return lax.complex(round(lax.real(a), decimals), round(lax.imag(a), decimals))
    if decimals == 0:
        return lax.round(a, 1)
    dtype = _aval(a).dtype
    factor = lax.full((), 10.0**decimals, dtype)
    return lax.div(lax.round(lax.mul(a, factor), 1), factor)


around = round


def iscomplexobj(x: Any) -> bool:
    """Whether `x` has a complex dtype. Like `jax.numpy.iscomplexobj`."""
    if x is None:
        return False
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = core.get_aval(x).dtype if core.is_arraylike(x) else np.asarray(x).dtype
    return dtypes.is_complex(np.dtype(dtype))


def isrealobj(x: Any) -> bool:
    """Like `jax.numpy.isrealobj`."""
    return not iscomplexobj(x)


def real(x: Any) -> Any:
    """The real part. Like `jax.numpy.real` (a real `x` is returned as it is)."""
    promotion.check_arraylike("real", x)
    x = creation.asarray(x)
    return lax.real(x) if iscomplexobj(x) else x


def conj(x: Any) -> Any:
    """The complex conjugate. Like `jax.numpy.conj` (a real `x` is returned as it is)."""
    promotion.check_arraylike("conj", x)
    x = creation.asarray(x)
    return lax.conj(x) if iscomplexobj(x) else x


conjugate = conj


def imag(x: Any) -> Any:
    """The imaginary part. Like `jax.numpy.imag` (of a real `x`: zeros)."""
    promotion.check_arraylike("imag", x)
    x = creation.asarray(x)
    if iscomplexobj(x):
        return lax.imag(x)
    return lax.full(_aval(x).shape, 0, _aval(x).dtype)


def iscomplex(x: Any) -> Any:
    """Elementwise: a nonzero imaginary part. Like `jax.numpy.iscomplex`."""
    i = imag(x)
    return lax.ne(i, lax.full((), 0, _aval(i).dtype))


def isreal(x: Any) -> Any:
    """Elementwise: a zero imaginary part. Like `jax.numpy.isreal`."""
    i = imag(x)
    return lax.eq(i, lax.full((), 0, _aval(i).dtype))


def angle(z: Any, deg: bool = False) -> Any:
    """The argument of complex `z` (`atan2(imag, real)`, in a `jit` named `angle` as JAX's
    jaxpr shows); of real `z`: pi where z < 0 (or z is -0.0), else 0. Like `jax.numpy.angle`."""
    if iscomplexobj(z):
        return _angle_jit(creation.asarray(z), bool(deg))
    z = promotion.to_inexact("angle", creation.asarray(z))
    dtype = _aval(z).dtype
    zero = lax.full((), 0.0, dtype)
    negative = lax.bitwise_or(  # z < 0, or z is -0.0 (1/-0.0 is -inf)
        lax.lt(z, zero),
        lax.bitwise_and(lax.eq(z, zero), lax.lt(lax.div(lax.full((), 1.0, dtype), z), zero)),
    )
    pi = np.float32(180.0 if deg else np.pi)
    out = lax.select_n(
        negative, lax.full(_aval(z).shape, 0.0, dtype), lax.full(_aval(z).shape, pi, dtype)
    )
    return lax.select_n(isnan(z), out, z)


def _angle_complex(z: Any, deg: bool) -> Any:
    re, im = lax.real(z), lax.imag(z)
    out = lax.atan2(im, re)
    return lax.mul(out, lax.full((), 180.0 / np.pi, _aval(out).dtype)) if deg else out


_angle_jit = inner_jit.inner_jit(_angle_complex, "angle", static_argnums=(1,))


# ----------------------------------------------------------------------------- var, std


def var(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    correction: int | None = None,
) -> Any:
    """Like `jax.numpy.var`."""
    promotion.check_arraylike("var", a)
    a = creation.asarray(a)
    correction = ddof if correction is None else correction
    axes = axis_args.canonical_axes("var", a, axis)
    compute = (
        creation.to_dtype(dtype)
        if dtype is not None
        else (_aval(a).dtype if _is_float(a) else dtypes.float32)
    )
    a = lax.convert_element_type(a, compute, False)
    centered = lax.sub(a, reductions.mean(a, axis=axes, keepdims=True))
    if dtypes.is_complex(compute):  # |c|^2 = Re(c conj(c)): the variance is real, as JAX's
        squares = lax.real(lax.mul(centered, lax.conj(centered)))
        compute = dtypes.real_of(compute)
    else:
        squares = lax.mul(centered, centered)
    total = reductions.sum(squares, axis=axes, keepdims=keepdims)
    count = math.prod(_aval(a).shape[i] for i in axes)
    return lax.div(total, lax.full((), float(count - correction), compute))


def std(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    correction: int | None = None,
) -> Any:
    """Like `jax.numpy.std`."""
    return lax.sqrt(var(a, axis, dtype, out, ddof, keepdims, correction=correction))


# ----------------------------------------------------------------------------- cumulative


def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """Like `jax.numpy.cumsum`: the `cumsum` primitive, in an inner jit as JAX's."""
    promotion.check_arraylike("cumsum", a)
    a = creation.asarray(a)
    axis = None if axis is None else axis_args.canonical_axis(axis, _aval(a).ndim)
    return _cumsum_jit(a, axis, None if dtype is None else creation.to_dtype(dtype))


def _cumsum(x: Any, axis: int | None, dtype: Any) -> Any:
    if axis is None:
        x, axis = ravel(x), 0
    x = _scan_dtype(x, dtype)
    return lax.cumsum(x, axis)


_cumsum_jit = inner_jit.inner_jit(_cumsum, "cumsum", static_argnums=(1, 2))


def _scan_dtype(x: Any, dtype: Any) -> Any:
    # an explicit dtype, else booleans accumulate in int32, as JAX's
    if dtype is not None:
        return lax.convert_element_type(x, dtype, False)
    if _aval(x).dtype == dtypes.bool_:
        return lax.convert_element_type(x, _i32, False)
    if _aval(x).weak_type:  # the sum of a weak scalar is strongly typed
        return lax.convert_element_type(x, _aval(x).dtype, False)
    return x


def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """Like `jax.numpy.cumprod`: the `cumprod` primitive, in an inner jit as JAX's."""
    promotion.check_arraylike("cumprod", a)
    a = creation.asarray(a)
    axis = None if axis is None else axis_args.canonical_axis(axis, _aval(a).ndim)
    return _cumprod_jit(a, axis, None if dtype is None else creation.to_dtype(dtype))


def _cumprod(x: Any, axis: int | None, dtype: Any) -> Any:
    if axis is None:
        x, axis = ravel(x), 0
    return lax.cumprod(_scan_dtype(x, dtype), axis)


_cumprod_jit = inner_jit.inner_jit(_cumprod, "cumprod", static_argnums=(1, 2))


# ----------------------------------------------------------------------------- argmin, sort


def argmin(a: Any, axis: int | None = None, out: None = None, keepdims: bool = False) -> Any:
    """Like `jax.numpy.argmin`: the first minimum (the first NaN, if any)."""
    promotion.check_arraylike("argmin", a)
    a = creation.asarray(a)
    if _is_float(a):
        flipped = lax.neg(a)
    else:  # ~x reverses the order of integers without overflow; `not` that of booleans
        flipped = lax.bitwise_not(a)
    return reductions.argmax(flipped, axis=axis, keepdims=keepdims)


def sort(
    a: Any,
    axis: int | None = -1,
    *,
    kind: Any = None,
    order: Any = None,
    stable: bool = True,
    descending: bool = False,
) -> Any:
    """Like `jax.numpy.sort` (NaNs last; with `descending`, first)."""
    promotion.check_arraylike("sort", a)
    _no_order("sort", order)
    a = creation.asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = axis_args.canonical_axis(axis, _aval(a).ndim)
    return _sort_jit(a, axis, bool(stable), bool(descending))


def _sort(a: Any, axis: int, stable: bool, descending: bool) -> Any:
    out = lax.sort(a, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


_sort_jit = inner_jit.inner_jit(_sort, "sort", static_argnums=(1, 2, 3))


def argsort(
    a: Any,
    axis: int | None = -1,
    *,
    kind: Any = None,
    order: Any = None,
    stable: bool = True,
    descending: bool = False,
) -> Any:
    """Like `jax.numpy.argsort` (ties keep their order, descending too, as in JAX)."""
    promotion.check_arraylike("argsort", a)
    _no_order("argsort", order)
    a = creation.asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = axis_args.canonical_axis(axis, _aval(a).ndim)
    return _argsort_jit(a, axis, bool(stable), bool(descending))


def _argsort(a: Any, axis: int, stable: bool, descending: bool) -> Any:
    iota = lax.broadcasted_iota(_i32, _aval(a).shape, axis)
    if descending:  # reversed, sorted, reversed back: stable ties in descending order
        a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
    out = lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)[1]
    return lax.rev(out, (axis,)) if descending else out


_argsort_jit = inner_jit.inner_jit(_argsort, "argsort", static_argnums=(1, 2, 3))


def _no_order(name: str, order: Any) -> None:
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")


# ----------------------------------------------------------------------------- products


def outer(a: Any, b: Any, out: None = None) -> Any:
    """Like `jax.numpy.outer`."""
    a, b = promotion.promote("outer", a, b)
    return ufuncs.multiply(ravel(a)[:, None], ravel(b)[None, :])


def kron(a: Any, b: Any) -> Any:
    """Like `jax.numpy.kron`."""
    a, b = (creation.asarray(v) for v in promotion.promote("kron", a, b))
    nd = builtins.max(_aval(a).ndim, _aval(b).ndim)
    a = manipulation.reshape(a, (1,) * (nd - _aval(a).ndim) + _aval(a).shape)
    b = manipulation.reshape(b, (1,) * (nd - _aval(b).ndim) + _aval(b).shape)
    a_spread = manipulation.reshape(a, tuple(d for s in _aval(a).shape for d in (s, 1)))
    b_spread = manipulation.reshape(b, tuple(d for s in _aval(b).shape for d in (1, s)))
    prod = ufuncs.multiply(a_spread, b_spread)
    return manipulation.reshape(
        prod, tuple(p * q for p, q in zip(_aval(a).shape, _aval(b).shape, strict=True))
    )


def _tri_mask(x: Any, k: int, upper: bool) -> Any:
    shape = _aval(x).shape
    if len(shape) < 2:
        raise ValueError(f"{'triu' if upper else 'tril'}: array must be at least 2-d")
    n, m = shape[-2:]
    rows = lax.broadcasted_iota(_i32, (n, m), 0)
    cols = lax.broadcasted_iota(_i32, (n, m), 1)
    shifted = lax.add(rows, lax.full((), k, _i32))
    mask = lax.ge(cols, shifted) if upper else lax.le(cols, shifted)
    return lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))


def tril(m: Any, k: int = 0) -> Any:
    """Like `jax.numpy.tril`."""
    m = creation.asarray(m)
    zeros = lax.full(_aval(m).shape, 0, _aval(m).dtype)
    return lax.select_n(_tri_mask(m, k, upper=False), zeros, m)


def triu(m: Any, k: int = 0) -> Any:
    """Like `jax.numpy.triu`."""
    m = creation.asarray(m)
    zeros = lax.full(_aval(m).shape, 0, _aval(m).dtype)
    return lax.select_n(_tri_mask(m, k, upper=True), zeros, m)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    """Like `jax.numpy.meshgrid`."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    arrays = [ravel(creation.asarray(x)) for x in xi]
    dims = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) >= 2:  # x varies along columns: dims 0 and 1 swap
        dims[0], dims[1] = 1, 0
    shape = [0] * len(arrays)
    for a, d in zip(arrays, dims, strict=True):
        shape[d] = _aval(a).shape[0]
    out = []
    for a, d in zip(arrays, dims, strict=True):
        target = tuple(s if j == d else 1 for j, s in enumerate(shape)) if sparse else tuple(shape)
        out.append(lax.broadcast_in_dim(a, target, (d,)))
    return out


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """Like `jax.numpy.swapaxes`."""
    a = creation.asarray(a)
    nd = _aval(a).ndim
    perm = list(range(nd))
    i, j = axis_args.canonical_axis(axis1, nd), axis_args.canonical_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, tuple(perm))


# ----------------------------------------------------------------------------- einsum


def einsum(
    subscripts: str,
    *operands: Any,
    optimize: Any = "auto",
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """Like `jax.numpy.einsum`, for explicit or implicit subscripts without `...`: indices
    repeated in one operand take its diagonal, indices used once are summed first, then the
    operands are contracted pairwise, left to right (JAX picks its order with opt_einsum;
    the jaxprs agree for one or two operands), with `dot_general`."""
    ins, out = _parse_einsum(subscripts, len(operands))
    arrays = [creation.asarray(x) for x in promotion.promote("einsum", *operands)]
    for subs, x in zip(ins, arrays, strict=True):
        if len(subs) != _aval(x).ndim:
            raise ValueError(
                f"einsum: operand with subscripts '{subs}' has {_aval(x).ndim} dimensions"
            )
    x, xs = arrays[0], ins[0]
    x, xs = _sum_unused(x, xs, [*ins[1:], out])
    for k in range(1, len(arrays)):
        y, ys = _sum_unused(arrays[k], ins[k], [xs, *ins[k + 1 :], out])
        keep = set("".join([*ins[k + 1 :], out]))
        x, xs = _contract(x, xs, y, ys, keep)
    perm = tuple(xs.index(c) for c in out)
    return lax.transpose(x, perm) if perm != tuple(range(len(perm))) else x


def _parse_einsum(subscripts: str, n: int) -> tuple[list[str], str]:
    subscripts = subscripts.replace(" ", "")
    if "." in subscripts:
        raise NotImplementedError("einsum: '...' in subscripts is not supported by didax yet")
    lhs, arrow, out = subscripts.partition("->")
    ins = lhs.split(",")
    if len(ins) != n:
        raise ValueError(f"einsum: {len(ins)} subscripts for {n} operands")
    if not arrow:
        counts = {c: lhs.count(c) for c in lhs if c in string.ascii_letters}
        out = "".join(sorted(c for c, k in counts.items() if k == 1))
    return ins, out


def _sum_unused(x: Any, xs: str, others: Sequence[str]) -> tuple[Any, str]:
    # a repeated index takes the diagonal (zeros off it, then a sum over all but its last
    # axis), and an index no other operand or the output uses is summed, in one reduce_sum
    used = set("".join(others))
    repeated = [i for i, c in enumerate(xs) if xs.count(c) > 1]
    if repeated:
        x = _diagonal_mask(x, xs)
    axes = tuple(
        i for i, c in enumerate(xs) if c not in used or (i in repeated and c in xs[i + 1 :])
    )
    if not axes:
        return x, xs
    return lax.reduce_sum(x, axes), "".join(c for i, c in enumerate(xs) if i not in axes)


def _diagonal_mask(x: Any, xs: str) -> Any:
    shape = _aval(x).shape
    keep = None
    for c in dict.fromkeys(c for c in xs if xs.count(c) > 1):
        first, *rest = [i for i, d in enumerate(xs) if d == c]
        for other in rest:
            same = lax.eq(
                lax.broadcasted_iota(np.uint32, shape, first),
                lax.broadcasted_iota(np.uint32, shape, other),
            )
            keep = same if keep is None else lax.bitwise_and(keep, same)
    return lax.select_n(keep, lax.full(shape, 0, _aval(x).dtype), x)


def _contract(x: Any, xs: str, y: Any, ys: str, keep: set[str]) -> tuple[Any, str]:
    batch = [c for c in xs if c in ys and c in keep]
    contract = [c for c in xs if c in ys and c not in keep]
    dims = (
        (tuple(xs.index(c) for c in contract), tuple(ys.index(c) for c in contract)),
        (tuple(xs.index(c) for c in batch), tuple(ys.index(c) for c in batch)),
    )
    out = lax.dot_general(x, y, dims, preferred_element_type=_aval(x).dtype)
    free_x = [c for c in xs if c not in ys]
    free_y = [c for c in ys if c not in xs]
    return out, "".join(batch + free_x + free_y)


# ----------------------------------------------------------------------------- exports

# Array and Tracer methods (and the `.real`/`.imag` properties) these functions back
METHODS = {
    "std": std,
    "var": var,
    "round": round,
    "conj": conj,
    "conjugate": conj,
    "cumsum": cumsum,
    "cumprod": cumprod,
    "argmin": argmin,
    "argsort": argsort,
    "sort": sort,
    "all": all,
    "any": any,
    "ravel": ravel,
    "flatten": ravel,
    "clip": ufuncs.clip,
    "real": real,
    "imag": imag,
}

__all__ = [
    "all",
    "allclose",
    "angle",
    "any",
    "argmin",
    "argsort",
    "around",
    "conj",
    "conjugate",
    "cumprod",
    "cumsum",
    "einsum",
    "imag",
    "iscomplex",
    "iscomplexobj",
    "isreal",
    "isrealobj",
    "isclose",
    "isinf",
    "isnan",
    "kron",
    "meshgrid",
    "outer",
    "ravel",
    "real",
    "round",
    "sort",
    "std",
    "swapaxes",
    "tril",
    "triu",
    "var",
]
