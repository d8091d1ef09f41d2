"""Differences, running sums, interpolation, polynomials and vector products: `diff ediff1d
cumulative_sum cumulative_prod trapezoid interp polyval polyadd polysub polymul polyder vander
cross inner vdot vecdot matvec vecmat tensordot`. Like `jax.numpy`'s.

Layer 5, after `statistics`, composing `didax.numpy`: differences are two slices and a
`sub`, `interp` finds each point's interval with `searchsorted`, `polyval` is Horner's rule
(JAX writes it as a `scan`; the values agree), and the products are `dot_general`s.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from didax import dtypes, lax
from didax.numpy import (
    axis_args,
    complex_parts,
    creation,
    cumulative,
    manipulation,
    products,
    promotion,
    rearrange,
    reductions,
    signal,
    statistics,
    ufuncs,
)
from didax.numpy.axis_args import _aval

__all__ = [
    "poly",
    "polyint",
    "cross",
    "cumulative_prod",
    "cumulative_sum",
    "diff",
    "ediff1d",
    "inner",
    "interp",
    "matvec",
    "polyadd",
    "polyder",
    "polymul",
    "polysub",
    "polyval",
    "tensordot",
    "trapezoid",
    "vander",
    "vdot",
    "vecdot",
    "vecmat",
]


def _edge(x: Any, arr: Any, axis: int) -> Any:
    # a prepend/append value: a scalar grows to one slice of arr's shape
    x = creation.asarray(x)
    if _aval(x).ndim == 0:
        shape = tuple(1 if d == axis else n for d, n in enumerate(_aval(arr).shape))
        return promotion.broadcast_to(x, shape)
    return x


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """The `n`-th difference along `axis`. Like `jax.numpy.diff` (booleans: `!=`)."""
    promotion.check_arraylike("diff", a)
    arr = creation.asarray(a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if n == 0:
        return arr
    nd = _aval(arr).ndim
    if nd == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = axis_args.canonical_axis(axis, nd)
    parts = [arr]
    if prepend is not None:
        parts.insert(0, _edge(prepend, arr, axis))
    if append is not None:
        parts.append(_edge(append, arr, axis))
    if len(parts) > 1:
        arr = manipulation.concatenate(parts, axis)
    for _ in range(n):
        m = _aval(arr).shape[axis]
        hi, lo = rearrange.slice_axis(arr, 1, m, axis), rearrange.slice_axis(arr, 0, m - 1, axis)
        arr = lax.ne(hi, lo) if _aval(arr).dtype == dtypes.bool_ else ufuncs.subtract(hi, lo)
    return arr


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """Differences of the flattened array, with optional entries before and after. Like
    `jax.numpy.ediff1d`."""
    promotion.check_arraylike("ediff1d", ary)
    flat = manipulation.ravel(creation.asarray(ary))
    out = diff(flat) if _aval(flat).shape[0] else flat
    dtype = _aval(out).dtype
    parts = [out]
    if to_begin is not None:
        parts.insert(
            0,
            manipulation.ravel(lax.convert_element_type(creation.asarray(to_begin), dtype, False)),
        )
    if to_end is not None:
        parts.append(
            manipulation.ravel(lax.convert_element_type(creation.asarray(to_end), dtype, False))
        )
    return manipulation.concatenate(parts, 0) if len(parts) > 1 else out


def _cumulative(name: str, scan: Any, identity: int) -> Any:
    def op(
        x: Any, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
    ) -> Any:
        promotion.check_arraylike(name, x)
        x = creation.asarray(x)
        if _aval(x).ndim == 0:
            raise ValueError(f"The input must be non-scalar to take a cumulative {name[11:]}.")
        if axis is None:
            if _aval(x).ndim > 1:
                raise ValueError(
                    f"The input array has rank {_aval(x).ndim}, however axis was not set to an "
                    "explicit value. The axis argument is only optional for one-dimensional arrays."
                )
            axis = 0
        axis = axis_args.canonical_axis(axis, _aval(x).ndim)
        out = scan(x, axis=axis, dtype=dtype)
        if not include_initial:
            return out
        shape = tuple(1 if d == axis else n for d, n in enumerate(_aval(out).shape))
        start = lax.full(shape, identity, _aval(out).dtype)
        return manipulation.concatenate([start, out], axis)

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}` (the array API's running {name[11:]})."
    return op


cumulative_sum = _cumulative("cumulative_sum", cumulative.cumsum, 0)
cumulative_prod = _cumulative("cumulative_prod", cumulative.cumprod, 1)


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """The integral of y by the trapezoidal rule. Like `jax.numpy.trapezoid`."""
    promotion.check_arraylike("trapezoid", y)
    y = promotion.to_inexact("trapezoid", creation.asarray(y))
    axis = axis_args.canonical_axis(axis, _aval(y).ndim)
    n = _aval(y).shape[axis]
    if x is None:
        widths = dx
    else:
        x = creation.asarray(x)
        if _aval(x).ndim == 1:
            widths = diff(x)
            shape = tuple(n - 1 if d == axis else 1 for d in range(_aval(y).ndim))
            widths = manipulation.reshape(widths, shape)
        else:
            widths = diff(x, axis=axis)
    mids = ufuncs.add(rearrange.slice_axis(y, 1, n, axis), rearrange.slice_axis(y, 0, n - 1, axis))
    return ufuncs.multiply(0.5, reductions.sum(ufuncs.multiply(widths, mids), axis=axis))


def interp(
    x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None
) -> Any:
    """Piecewise-linear interpolation of the points (xp, fp) at x. Like `jax.numpy.interp`
    (no `period`)."""
    if period is not None:
        raise NotImplementedError("interp: period= is not supported by didax yet")
    promotion.check_arraylike("interp", x, xp, fp)
    x, xp, fp = (promotion.to_inexact("interp", creation.asarray(v)) for v in (x, xp, fp))
    x, xp, fp = promotion.promote("interp", x, xp, fp)
    if _aval(xp).ndim != 1 or _aval(fp).ndim != 1:
        raise ValueError("xp and fp must be one-dimensional")
    n = _aval(xp).shape[0]
    if _aval(fp).shape[0] != n:
        raise ValueError("xp and fp must be the same length")
    i = ufuncs.clip(statistics.searchsorted(xp, x, side="right"), 1, n - 1)
    before = lax.sub(i, lax.full((), 1, _aval(i).dtype))
    df = ufuncs.subtract(fp[i], fp[before])
    dx = ufuncs.subtract(xp[i], xp[before])
    delta = ufuncs.subtract(x, xp[before])
    eps = float(np.spacing(np.finfo(_aval(xp).dtype).eps))
    tiny = lax.le(lax.abs(dx), lax.full((), eps, _aval(dx).dtype))  # no NaN gradients
    safe = ufuncs.where(tiny, lax.full((), 1, _aval(dx).dtype), dx)
    f = ufuncs.where(
        tiny, fp[before], ufuncs.add(fp[before], ufuncs.multiply(ufuncs.divide(delta, safe), df))
    )
    f = ufuncs.where(ufuncs.less(x, xp[0]), fp[0] if left is None else left, f)
    return ufuncs.where(ufuncs.greater(x, xp[-1]), fp[-1] if right is None else right, f)


# ----------------------------------------------------------------------------- polynomials


def polyval(p: Any, x: Any, *, unroll: int = 16) -> Any:
    """The polynomial with coefficients p (highest power first) at x, by Horner's rule.
    Like `jax.numpy.polyval`."""
    promotion.check_arraylike("polyval", p, x)
    p, x = promotion.promote(
        "polyval", promotion.to_inexact("polyval", creation.asarray(p)), creation.asarray(x)
    )
    p, x = promotion.to_inexact("polyval", p), promotion.to_inexact("polyval", x)
    shape = np.broadcast_shapes(_aval(p).shape[1:], _aval(x).shape)
    y = lax.full(shape, 0, _aval(x).dtype)
    for k in range(_aval(p).shape[0]):
        y = ufuncs.add(ufuncs.multiply(y, x), p[k])
    return y


def _trim_pair(a1: Any, a2: Any) -> tuple[Any, Any]:
    a1, a2 = promotion.promote("polyadd", creation.asarray(a1), creation.asarray(a2))
    n1, n2 = _aval(a1).shape[0], _aval(a2).shape[0]
    if n1 < n2:
        a1 = lax.pad(a1, lax.full((), 0, _aval(a1).dtype), [(n2 - n1, 0, 0)])
    elif n2 < n1:
        a2 = lax.pad(a2, lax.full((), 0, _aval(a2).dtype), [(n1 - n2, 0, 0)])
    return a1, a2


def polyadd(a1: Any, a2: Any) -> Any:
    """Like `jax.numpy.polyadd`."""
    promotion.check_arraylike("polyadd", a1, a2)
    return ufuncs.add(*_trim_pair(a1, a2))


def polysub(a1: Any, a2: Any) -> Any:
    """Like `jax.numpy.polysub`."""
    promotion.check_arraylike("polysub", a1, a2)
    return ufuncs.subtract(*_trim_pair(a1, a2))


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
    """The product's coefficients (a full convolution). Like `jax.numpy.polymul`."""
    promotion.check_arraylike("polymul", a1, a2)
    a1, a2 = promotion.promote("polymul", creation.asarray(a1), creation.asarray(a2))
    a1, a2 = rearrange.atleast_1d(a1), rearrange.atleast_1d(a2)
    if _aval(a1).shape[0] == 0:
        a1 = creation.zeros((1,), _aval(a1).dtype)
    if _aval(a2).shape[0] == 0:
        a2 = creation.zeros((1,), _aval(a2).dtype)
    return signal.convolve(a1, a2, mode="full")


def polyder(p: Any, m: int = 1) -> Any:
    """The coefficients of the `m`-th derivative. Like `jax.numpy.polyder`."""
    promotion.check_arraylike("polyder", p)
    p = creation.asarray(p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    for _ in range(m):
        n = _aval(p).shape[0]
        if n <= 1:
            return creation.zeros((0,), _aval(p).dtype)
        powers = creation.asarray(np.arange(n - 1, 0, -1), dtype=_aval(p).dtype)
        p = ufuncs.multiply(p[: n - 1], powers)
    return p


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:  # noqa: N803
    """The Vandermonde matrix: columns are powers of x. Like `jax.numpy.vander`."""
    promotion.check_arraylike("vander", x)
    x = creation.asarray(x)
    if _aval(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = _aval(x).shape[0] if N is None else operator.index(N)  # noqa: N806
    if N < 0:
        raise ValueError("N must be nonnegative")
    dtype = _aval(x).dtype
    if not dtypes.is_float(dtype):  # integer powers: a running product of columns
        n = _aval(x).shape[0]
        columns = [lax.full((n,), 1, dtype)] + [x] * builtins.max(N - 1, 0)
        out = cumulative.cumprod(manipulation.stack(columns[:N], axis=1), axis=1)
        return out if increasing else rearrange.flip(out, 1)
    powers = lax.iota(dtype, N)
    if not increasing:
        powers = lax.sub(lax.full((), N - 1, dtype), powers)
    return ufuncs.power(lax.expand_dims(x, (1,)), lax.expand_dims(powers, (0,)))


# ----------------------------------------------------------------------------- products


def cross(
    a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None
) -> Any:
    """The cross product of 3-vectors (or 2-vectors: the z component). Like
    `jax.numpy.cross`."""
    promotion.check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promotion.promote("cross", creation.asarray(a), creation.asarray(b))
    a = manipulation.moveaxis(a, axisa, -1)
    b = manipulation.moveaxis(b, axisb, -1)
    na, nb = _aval(a).shape[-1], _aval(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    comp = lambda v, i: v[..., i]  # noqa: E731
    if na == 2 and nb == 2:
        return ufuncs.subtract(
            ufuncs.multiply(comp(a, 0), comp(b, 1)), ufuncs.multiply(comp(a, 1), comp(b, 0))
        )
    a0, a1 = comp(a, 0), comp(a, 1)
    b0, b1 = comp(b, 0), comp(b, 1)
    a2 = comp(a, 2) if na == 3 else lax.full((), 0, _aval(a).dtype)
    b2 = comp(b, 2) if nb == 3 else lax.full((), 0, _aval(b).dtype)
    mul, sub = ufuncs.multiply, ufuncs.subtract
    c = [
        sub(mul(a1, b2), mul(a2, b1)),
        sub(mul(a2, b0), mul(a0, b2)),
        sub(mul(a0, b1), mul(a1, b0)),
    ]
    c = promotion.promote("cross", *c)
    shape = np.broadcast_shapes(*(_aval(v).shape for v in c))
    out = manipulation.stack([promotion.broadcast_to(v, shape) for v in c], axis=-1)
    return manipulation.moveaxis(out, -1, axisc)


def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """The sum product over the last axes. Like `jax.numpy.inner`."""
    promotion.check_arraylike("inner", a, b)
    a, b = promotion.promote("inner", creation.asarray(a), creation.asarray(b))
    if _aval(a).ndim == 0 or _aval(b).ndim == 0:
        return ufuncs.multiply(a, b)
    dims = (((_aval(a).ndim - 1,), (_aval(b).ndim - 1,)), ((), ()))
    preferred = _aval(a).dtype if preferred_element_type is None else preferred_element_type
    return lax.dot_general(a, b, dims, precision, preferred)


def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """The dot product of the flattened arrays, conjugating the first. Like
    `jax.numpy.vdot`."""
    promotion.check_arraylike("vdot", a, b)
    a = creation.asarray(a)
    if dtypes.is_complex(_aval(a).dtype):
        a = complex_parts.conj(a)
    flat_a = manipulation.ravel(a)
    flat_b = manipulation.ravel(creation.asarray(b))
    return products.dot(
        flat_a, flat_b, precision=precision,
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


def vecdot(
    x1: Any,
    x2: Any,
    /,
    *,
    axis: int = -1,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """The dot product of vectors along `axis`, conjugating the first. Like
    `jax.numpy.vecdot`."""
    promotion.check_arraylike("vecdot", x1, x2)
    x1, x2 = promotion.promote("vecdot", creation.asarray(x1), creation.asarray(x2))
    if _aval(x1).shape[axis] != _aval(x2).shape[axis]:
        raise ValueError("x1 and x2 must have the same size along the specified axis.")
    x1, x2 = promotion.broadcast("vecdot", x1, x2)
    x1, x2 = manipulation.moveaxis(x1, axis, -1), manipulation.moveaxis(x2, axis, -1)
    if dtypes.is_complex(_aval(x1).dtype):
        x1 = lax.conj(x1)
    nd = _aval(x1).ndim
    batch = tuple(range(nd - 1))  # one dot_general over the broadcast leading axes
    preferred = _aval(x1).dtype if preferred_element_type is None else preferred_element_type
    return lax.dot_general(x1, x2, (((nd - 1,), (nd - 1,)), (batch, batch)), precision, preferred)


def matvec(x1: Any, x2: Any, /) -> Any:
    """Matrix-vector products, batched. Like `jax.numpy.matvec`."""
    promotion.check_arraylike("matvec", x1, x2)
    out = products.matmul(
        x1, lax.expand_dims(creation.asarray(x2), (_aval(creation.asarray(x2)).ndim,))
    )
    return lax.squeeze(out, (_aval(out).ndim - 1,))


def vecmat(x1: Any, x2: Any, /) -> Any:
    """Vector-matrix products (the vector conjugated), batched. Like `jax.numpy.vecmat`."""
    promotion.check_arraylike("vecmat", x1, x2)
    x1 = complex_parts.conj(creation.asarray(x1))
    out = products.matmul(lax.expand_dims(x1, (_aval(x1).ndim - 1,)), x2)
    return lax.squeeze(out, (_aval(out).ndim - 2,))


def tensordot(
    a: Any,
    b: Any,
    axes: Any = 2,
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> Any:
    """The sum product over the last `axes` axes of a and the first of b (or the listed
    axes). Like `jax.numpy.tensordot`."""
    promotion.check_arraylike("tensordot", a, b)
    a, b = promotion.promote("tensordot", creation.asarray(a), creation.asarray(b))
    na, nb = _aval(a).ndim, _aval(b).ndim
    if isinstance(axes, (int, np.integer)):
        k = operator.index(axes)
        if k > builtins.min(na, nb):
            raise TypeError(
                f"Number of tensordot axes (axes {k}) exceeds input ranks ({na} and {nb})"
            )
        ca, cb = tuple(range(na - k, na)), tuple(range(k))
    else:
        ax_a, ax_b = axes
        ax_a = (ax_a,) if np.ndim(ax_a) == 0 else tuple(ax_a)
        ax_b = (ax_b,) if np.ndim(ax_b) == 0 else tuple(ax_b)
        if len(ax_a) != len(ax_b):
            raise TypeError("tensordot requires axes lists to have equal length")
        ca = tuple(axis_args.canonical_axis(i, na) for i in ax_a)
        cb = tuple(axis_args.canonical_axis(i, nb) for i in ax_b)
    preferred = _aval(a).dtype if preferred_element_type is None else preferred_element_type
    dims = ((ca, cb), ((), ()))
    return lax.dot_general(a, b, dims, precision, preferred, out_sharding=out_sharding)


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """The coefficients of the `m`-th antiderivative (integration constants `k`, zero by
    default). Like `jax.numpy.polyint`."""
    promotion.check_arraylike("polyint", p, *(() if k is None else (k,)))
    m = operator.index(m)
    if m < 0:
        raise ValueError(f"Order of integral must be positive (see polyder) got {m=}")
    p = promotion.to_inexact("polyint", creation.asarray(p))
    if m == 0:
        return p
    consts = np.zeros(m) if k is None else np.broadcast_to(np.asarray(k, np.float64), (m,))
    for i in range(m):
        n = _aval(p).shape[0]
        divisors = creation.asarray(np.arange(n, 0, -1), dtype=_aval(p).dtype)
        tail = lax.full((1,), consts[i], _aval(p).dtype)
        p = manipulation.concatenate([ufuncs.divide(p, divisors), tail], 0)
    return p


def poly(seq_of_zeros: Any) -> Any:
    """The monic polynomial with these roots (or, for a square matrix, its characteristic
    polynomial's roots are not computed: a matrix raises). Like `jax.numpy.poly` for roots."""
    promotion.check_arraylike("poly", seq_of_zeros)
    zeros = promotion.to_inexact("poly", creation.asarray(seq_of_zeros))
    if _aval(zeros).ndim != 1:
        raise NotImplementedError("poly: matrix input (eigenvalues) is not supported by didax")
    out = creation.ones((1,), _aval(zeros).dtype)
    for i in range(_aval(zeros).shape[0]):
        factor = manipulation.stack([lax.full((), 1, _aval(zeros).dtype), lax.neg(zeros[i])])
        out = signal.convolve(out, factor, mode="full")
    return out
