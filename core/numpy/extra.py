"""More of `jax.numpy`: predicates (`isnan isinf isclose allclose all any`), `round`, the
real-number views (`real imag conj angle`), `var`/`std`, cumulative sums and products,
`argmin`, `sort`/`argsort`, `outer kron tril triu meshgrid einsum convolve`, and `ravel`.

Layer 5, after the family modules (`creation.py`, `ufuncs.py`, ...), composing `lax` like
the rest of `didax.numpy`. didax has no complex dtypes, so `real`/`conj` return their (real)
input, `imag` zeros. Cumulative sums and products are a log-depth (Hillis-Steele) scan of
pads and adds, so jvp, transpose, vmap and lowering come from those primitives (JAX's jaxprs
show a `cumsum` primitive instead).
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
    return lax.eq(lax.abs(x), lax.full((), np.inf, _aval(x).dtype))


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Like `jax.numpy.isclose`."""
    a, b = promotion.promote("isclose", a, b)
    a, b = _broadcast_all(creation.asarray(a), creation.asarray(b))
    dtype = _aval(a).dtype
    if not dtypes.is_float(dtype):
        return lax.eq(a, b)
    tol = lax.add(lax.full((), atol, dtype), lax.mul(lax.full((), rtol, dtype), lax.abs(b)))
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
    if decimals == 0:
        return lax.round(a, 1)
    dtype = _aval(a).dtype
    factor = lax.full((), 10.0**decimals, dtype)
    return lax.div(lax.round(lax.mul(a, factor), 1), factor)


around = round


def real(x: Any) -> Any:
    """Like `jax.numpy.real` (didax's arrays are real: `x` itself)."""
    promotion.check_arraylike("real", x)
    return creation.asarray(x)


def conj(x: Any) -> Any:
    """Like `jax.numpy.conj` (didax's arrays are real: `x` itself)."""
    promotion.check_arraylike("conj", x)
    return creation.asarray(x)


conjugate = conj


def imag(x: Any) -> Any:
    """Like `jax.numpy.imag` (didax's arrays are real: zeros)."""
    promotion.check_arraylike("imag", x)
    x = creation.asarray(x)
    return lax.full(_aval(x).shape, 0, _aval(x).dtype)


def angle(z: Any, deg: bool = False) -> Any:
    """Like `jax.numpy.angle` for real input: pi where z < 0 (or z is -0.0), else 0."""
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
    total = reductions.sum(lax.mul(centered, centered), axis=axes, keepdims=keepdims)
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


def _scan(name: str, op: Any, identity: Any, x: Any, axis: Any, dtype: Any) -> Any:
    promotion.check_arraylike(name, x)
    x = creation.asarray(x)
    if axis is None:
        x, axis = ravel(x), 0
    axis = axis_args.canonical_axis(axis, _aval(x).ndim)
    if dtype is not None:
        x = lax.convert_element_type(x, creation.to_dtype(dtype), False)
    elif _aval(x).dtype == dtypes.bool_ or (
        dtypes.is_int(_aval(x).dtype) and _aval(x).dtype.itemsize < 4
    ):
        x = lax.convert_element_type(x, _i32, False)
    elif _aval(x).weak_type:
        x = lax.convert_element_type(x, _aval(x).dtype, False)
    n, step = _aval(x).shape[axis], 1
    pad_value = lax.full((), identity, _aval(x).dtype)
    while step < n:  # x[i] op= x[i - step]: log2(n) rounds (Hillis-Steele)
        shape = _aval(x).shape
        limit = tuple(n - step if d == axis else s for d, s in enumerate(shape))
        head = lax.slice(x, (0,) * len(shape), limit)
        config = tuple((step, 0, 0) if d == axis else (0, 0, 0) for d in range(len(shape)))
        x = op(x, lax.pad(head, pad_value, config))
        step *= 2
    return x


def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """Like `jax.numpy.cumsum`."""
    return _scan("cumsum", lax.add, 0, a, axis, dtype)


def cumprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """Like `jax.numpy.cumprod`."""
    return _scan("cumprod", lax.mul, 1, a, axis, dtype)


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
    """Like `jax.numpy.einsum`, for explicit or implicit subscripts without `...` and without
    an index repeated within one operand: contracted pairwise, left to right, with
    `dot_general`."""
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
    for subs in ins:
        if len(set(subs)) != len(subs):
            raise NotImplementedError(f"einsum: repeated index in '{subs}' (a diagonal)")
    return ins, out


def _sum_unused(x: Any, xs: str, others: Sequence[str]) -> tuple[Any, str]:
    used = set("".join(others))
    axes = tuple(i for i, c in enumerate(xs) if c not in used)
    if not axes:
        return x, xs
    return lax.reduce_sum(x, axes), "".join(c for c in xs if c not in used)


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


# ----------------------------------------------------------------------------- convolve


def convolve(
    a: Any, v: Any, mode: str = "full", *, precision: Any = None, preferred_element_type: Any = None
) -> Any:
    """Like `jax.numpy.convolve` (1-D): a sum of shifted copies of `a`, one per tap of `v`."""
    a, v = (creation.asarray(x) for x in promotion.promote("convolve", a, v))
    if _aval(a).ndim != 1 or _aval(v).ndim != 1:
        raise ValueError("convolve() only support 1-dimensional inputs.")
    n, m = _aval(a).shape[0], _aval(v).shape[0]
    if n == 0 or m == 0:
        raise ValueError("convolve: inputs cannot be empty")
    if m > n:
        a, v, n, m = v, a, m, n
    if not _is_float(a):
        a, v = (lax.convert_element_type(x, _aval(x).dtype, False) for x in (a, v))
    zero = lax.full((), 0, _aval(a).dtype)
    full = None
    for j in range(m):  # out[k] = sum_j v[j] a[k - j]
        tap = lax.squeeze(lax.slice(v, (j,), (j + 1,)), (0,))
        term = lax.mul(lax.pad(a, zero, ((j, m - 1 - j, 0),)), tap)
        full = term if full is None else lax.add(full, term)
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return lax.slice(full, (start,), (start + n,))
    if mode == "valid":
        return lax.slice(full, (m - 1,), (n,))
    raise ValueError(f"mode must be one of ['full', 'same', 'valid'], got {mode!r}")


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
    "convolve",
    "cumprod",
    "cumsum",
    "einsum",
    "imag",
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
