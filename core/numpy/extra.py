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
import itertools
import math
import string
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
    """Like `jax.numpy.einsum`, for explicit or implicit subscripts, with `...` broadcasting
    (a size-1 axis against a longer one is squeezed, as JAX does). The steps are JAX's: each
    contraction sums the indices used once, takes the diagonal of repeated ones (a Kronecker
    delta mask), then one `dot_general`; the pairs are contracted in the order of opt_einsum's
    "optimal" path for up to four operands (JAX's default; the jaxprs agree), left to right
    for more."""
    arrays = [creation.asarray(x) for x in promotion.promote("einsum", *operands)]
    ins, out = _parse_einsum(subscripts, [_aval(x).shape for x in arrays])
    pending = list(zip(arrays, ins, strict=True))
    for first, second in _einsum_path(ins, out, [_aval(x).shape for x in arrays]):
        # contract a pair (the later one is the lhs), append the result, as opt_einsum's path
        (lhs, lhs_s), (rhs, rhs_s) = pending.pop(second), pending.pop(first)
        later = "".join(s for _, s in pending) + out
        kept = [c for c in dict.fromkeys(lhs_s + rhs_s) if c in later]
        # an intermediate result keeps its indices in input order (opt_einsum's choice)
        result = "".join(kept) if pending else out
        removed = set(lhs_s + rhs_s) - set(kept)
        x, xs = _einsum_two(lhs, lhs_s, rhs, rhs_s, removed, result)
        pending.append((_permuted(x, xs, result), result))
    x, xs = pending[0]
    if len(arrays) == 1:
        x, xs = _einsum_one(x, xs, set(xs) - set(out), out)
    return _permuted(x, xs, out)


def _einsum_path(ins: list[str], out: str, shapes: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    # The pairs to contract, as positions in the list of operands left (each result goes to
    # its end): opt_einsum's "optimal" search (JAX's default for up to four operands), the
    # first pairing of least cost in its order, cost = the product of the pair's index sizes
    # (twice that when an index is summed away); left to right for more operands
    n = len(ins)
    if n < 3 or n > 4:
        return [(0, 1)] * (n - 1)
    sizes: dict[str, int] = {}
    for subs, shape in zip(ins, shapes, strict=True):
        for c, d in zip(subs, shape, strict=True):
            sizes[c] = d if sizes.get(c, 1) == 1 else sizes[c]
    output = frozenset(out)
    best: list[Any] = [math.inf, ()]

    def search(path: tuple, sets: tuple, remaining: frozenset, flops: int) -> None:
        if len(remaining) == 1:
            best[:] = [flops, path]
            return
        for i, j in itertools.combinations(sorted(remaining), 2):
            either = sets[i] | sets[j]
            keep = output.union(*(sets[r] for r in remaining if r not in (i, j)))
            summed = (sets[i] & sets[j]) - keep
            cost = math.prod(sizes[c] for c in either) * (2 if summed else 1)
            if flops + cost >= best[0]:
                continue
            search(
                path + ((i, j),),
                (*sets, either & keep),
                (remaining - {i, j}) | {len(sets)},
                flops + cost,
            )

    search((), tuple(map(frozenset, ins)), frozenset(range(n)), 0)
    ids, linear = list(range(n)), []
    for step, pair in enumerate(best[1]):  # single-assignment ids -> positions in the list
        first, second = sorted(ids.index(k) for k in pair)
        ids.pop(second)
        ids.pop(first)
        ids.append(n + step)
        linear.append((first, second))
    return linear


def _permuted(x: Any, xs: str, target: str) -> Any:
    return x if xs == target else lax.transpose(x, tuple(xs.index(c) for c in target))


def _parse_einsum(subscripts: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    # the subscripts of each operand and of the result, `...` written out as fresh letters
    # (the last ones of a run of unused letters, right-aligned, as opt_einsum's parser)
    subscripts = subscripts.replace(" ", "")
    lhs, arrow, out = subscripts.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: {len(ins)} subscripts for {len(shapes)} operands")
    ellipsis = ""
    if "." in subscripts:
        used = set(subscripts.replace(".", "").replace(",", "").replace("->", ""))
        width = builtins.max((len(s) for s in shapes), default=0)
        fresh = "".join(c for c in string.ascii_lowercase + string.ascii_uppercase if c not in used)
        fresh = fresh[:width]
        for k, (sub, shape) in enumerate(zip(ins, shapes, strict=True)):
            if "." not in sub:
                continue
            if sub.count(".") != 3 or "..." not in sub:
                raise ValueError("Invalid Ellipses.")
            count = len(shape) - (len(sub) - 3)
            if count < 0:
                raise ValueError("Ellipses lengths do not match.")
            ins[k] = sub.replace("...", fresh[len(fresh) - count :] if count else "")
            if count > len(ellipsis):
                ellipsis = fresh[len(fresh) - count :]
    for subs, shape in zip(ins, shapes, strict=True):
        if len(subs) != len(shape):
            raise ValueError(
                f"einsum: operand with subscripts '{subs}' has {len(shape)} dimensions"
            )
    if arrow:
        out = out.replace("...", ellipsis)
    else:
        joined = "".join(ins)
        once = [c for c in dict.fromkeys(joined) if joined.count(c) == 1 and c not in ellipsis]
        out = ellipsis + "".join(sorted(once))
    return ins, out


def _sum_uniques(x: Any, xs: str, uniques: list[str]) -> tuple[Any, str]:
    if not uniques:
        return x, xs
    x = lax.reduce_sum(x, tuple(xs.index(c) for c in uniques))
    return x, "".join(c for c in xs if c not in uniques)


def _sum_repeats(x: Any, xs: str, keep: str) -> tuple[Any, str]:
    # a repeated index: zeros off the diagonal (a Kronecker delta), then a sum over its axes
    # (all but the last one if the index is kept)
    for c in dict.fromkeys(xs):
        axes = [i for i, d in enumerate(xs) if d == c]
        if len(axes) < 2:
            continue
        eye = _delta(_aval(x).shape, axes)
        x = lax.select_n(eye, lax.full(_aval(x).shape, 0, _aval(x).dtype), x)
        if c in keep:
            x = lax.reduce_sum(x, tuple(axes[:-1]))
            xs = "".join(d for i, d in enumerate(xs) if i not in axes[:-1])
        else:
            x = lax.reduce_sum(x, tuple(axes))
            xs = xs.replace(c, "")
    return x, xs


def _delta(shape: tuple[int, ...], axes: list[int]) -> Any:
    # True where the indices along `axes` are all equal, as JAX's `lax._delta`
    base = tuple(shape[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, base, i) for i in range(len(base))]
    eye = None
    for a, b in zip(iotas[:-1], iotas[1:], strict=True):
        same = lax.eq(a, b)
        eye = same if eye is None else lax.bitwise_and(eye, same)
    return lax.broadcast_in_dim(eye, shape, tuple(axes))


def _einsum_one(x: Any, xs: str, removed: set[str], out: str) -> tuple[Any, str]:
    uniques = [c for c in sorted(removed) if xs.count(c) == 1]
    x, xs = _sum_uniques(x, xs, uniques)
    return _sum_repeats(x, xs, out)


def _squeeze_singletons(x: Any, xs: str, other: Any, other_s: str) -> tuple[Any, str]:
    # an axis of size 1 against a longer one in the other operand broadcasts: squeeze it
    shape, other_shape = _aval(x).shape, _aval(other).shape
    drop = [
        i
        for i, c in enumerate(xs)
        if shape[i] == 1 and c in other_s and other_shape[other_s.index(c)] != 1
    ]
    if not drop:
        return x, xs
    return lax.squeeze(x, tuple(drop)), "".join(c for i, c in enumerate(xs) if i not in drop)


def _einsum_two(
    lhs: Any, lhs_s: str, rhs: Any, rhs_s: str, removed: set[str], result: str
) -> tuple[Any, str]:
    lhs, lhs_s = _squeeze_singletons(lhs, lhs_s, rhs, rhs_s)
    rhs, rhs_s = _squeeze_singletons(rhs, rhs_s, lhs, lhs_s)
    contracted = sorted(removed)
    lhs, lhs_s = _sum_uniques(
        lhs, lhs_s, [c for c in contracted if lhs_s.count(c) == 1 and c not in rhs_s]
    )
    rhs, rhs_s = _sum_uniques(
        rhs, rhs_s, [c for c in contracted if rhs_s.count(c) == 1 and c not in lhs_s]
    )
    lhs, lhs_s = _sum_repeats(lhs, lhs_s, result + rhs_s)
    rhs, rhs_s = _sum_repeats(rhs, rhs_s, result + lhs_s)
    contracted = [c for c in contracted if c in lhs_s or c in rhs_s]
    batch = "".join(c for c in result if c in lhs_s and c in rhs_s)
    lhs_batch = tuple(lhs_s.index(c) for c in batch)
    rhs_batch = tuple(rhs_s.index(c) for c in batch)
    lhs_cont = tuple(lhs_s.index(c) for c in contracted)
    rhs_cont = tuple(rhs_s.index(c) for c in contracted)
    gone = batch + "".join(contracted)
    lhs_rest = "".join(c for c in lhs_s if c not in gone)
    rhs_rest = "".join(c for c in rhs_s if c not in gone)
    dtype = _aval(lhs).dtype
    if batch + rhs_rest + lhs_rest == result:  # (rhs, lhs) needs no transpose: JAX's first try
        dims = ((rhs_cont, lhs_cont), (rhs_batch, lhs_batch))
        return lax.dot_general(rhs, lhs, dims, preferred_element_type=dtype), result
    dims = ((lhs_cont, rhs_cont), (lhs_batch, rhs_batch))
    out = lax.dot_general(lhs, rhs, dims, preferred_element_type=dtype)
    return out, batch + lhs_rest + rhs_rest


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
    "swapaxes": swapaxes,
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
