"""Differences and histograms of `jax.numpy` built on `diff`, `searchsorted` and `bincount`:
`gradient` (central differences, one-sided at the edges), `unwrap` (phase unwrapping),
`histogramdd`, `histogram2d`, and the polynomial functions `polydiv` (long division),
`polyfit` (least squares, `linalg.lstsq`) and `roots` (the companion matrix's eigenvalues).

Layer 5, after `host_io` and `linalg` (lstsq, eigvals). No primitive of its own; each is
JAX's composition, step for step (so that values agree to the last place where XLA and NumPy
agree).
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy import (
    calculus,
    creation,
    cumulative,
    diagonals,
    index_grids,
    manipulation,
    predicates,
    promotion,
    rearrange,
    sorting,
    statistics,
    tensor_products,
    ufuncs,
)
from didax.numpy import linalg as _linalg
from didax.numpy.axis_args import canonical_axis
from didax.numpy.inner_jit import inner_jit
from didax.numpy.mathfuncs import _inexact

__all__ = ["gradient", "histogram2d", "histogramdd", "polydiv", "polyfit", "roots", "unwrap"]


def _aval(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


def _gradient_along(a: Any, h: Any, axis: int) -> Any:
    def sliced(v: Any, start: int | None, stop: int | None) -> Any:
        n = _aval(v).shape[axis]
        begin = 0 if start is None else start % n
        end = n if stop is None else stop % n
        return lax.slice_in_dim(v, begin, end, axis=axis)

    upper = ufuncs.subtract(sliced(a, 1, 2), sliced(a, 0, 1))
    lower = ufuncs.subtract(sliced(a, -1, None), sliced(a, -2, -1))
    if np.ndim(h) == 0:
        inner = ufuncs.divide(
            ufuncs.multiply(ufuncs.subtract(sliced(a, 2, None), sliced(a, None, -2)), 0.5), h
        )
        lower, upper = ufuncs.divide(lower, h), ufuncs.divide(upper, h)
    elif np.ndim(h) == 1:
        if _aval(h).shape[0] != _aval(a).shape[axis]:
            raise ValueError(
                "Spacing arrays must have the same length as the dimension along which the "
                "gradient is calculated."
            )
        h_shape = [1] * _aval(a).ndim
        h_shape[axis] = _aval(h).shape[0]
        h = manipulation.reshape(h, tuple(h_shape))
        upper = ufuncs.divide(upper, ufuncs.subtract(sliced(h, 1, 2), sliced(h, 0, 1)))
        lower = ufuncs.divide(lower, ufuncs.subtract(sliced(h, -1, None), sliced(h, -2, -1)))
        dx1 = ufuncs.subtract(sliced(h, 1, -1), sliced(h, 0, -2))
        dx2 = ufuncs.subtract(sliced(h, 2, None), sliced(h, 1, -1))
        total = ufuncs.add(dx1, dx2)
        wa = ufuncs.divide(ufuncs.negative(dx2), ufuncs.multiply(dx1, total))
        wb = ufuncs.divide(ufuncs.subtract(dx2, dx1), ufuncs.multiply(dx1, dx2))
        wc = ufuncs.divide(dx1, ufuncs.multiply(dx2, total))
        inner = ufuncs.add(
            ufuncs.add(
                ufuncs.multiply(wa, sliced(a, 0, -2)), ufuncs.multiply(wb, sliced(a, 1, -1))
            ),
            ufuncs.multiply(wc, sliced(a, 2, None)),
        )
    else:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return manipulation.concatenate((upper, inner, lower), axis=axis)


def _gradient(f: Any, *varargs: Any, axis: Any, edge_order: Any) -> Any:
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    a, *spacing = _inexact("gradient", f, *varargs)
    ndim = _aval(a).ndim
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(canonical_axis(i, ndim) for i in np.atleast_1d(axis).tolist())
    if not axes:
        return []
    if builtins.min(s for i, s in enumerate(_aval(a).shape) if i in axes) < 2:
        raise ValueError(
            "Shape of array too small to calculate a numerical gradient, at least 2 elements "
            "are required."
        )
    if not spacing:
        dx: list[Any] = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = list(spacing) * len(axes)
    elif len(spacing) == len(axes):
        dx = list(spacing)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
    grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, dx, strict=True)]
    return grads[0] if len(axes) == 1 else grads


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: Any = None) -> Any:
    """Central differences inside, one-sided at the edges, along each axis. Like
    `jax.numpy.gradient`."""
    promotion.check_arraylike("gradient", f, *varargs)
    return _gradient(f, *varargs, axis=axis, edge_order=edge_order)


def _unwrap(p: Any, discont: Any, axis: int, period: Any) -> Any:
    p, period = promotion.promote("unwrap", creation.asarray(p), creation.asarray(period))
    dtype = _aval(p).dtype
    if dtypes.is_complex(dtype):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if _aval(p).shape[axis] == 0:
        return p
    if discont is None:
        discont = ufuncs.divide(period, 2)
    interval = ufuncs.floor_divide(period, 2) if dtypes.is_int(dtype) else ufuncs.divide(period, 2)
    dd = calculus.diff(p, axis=axis)
    ddmod = ufuncs.subtract(ufuncs.remainder(ufuncs.add(dd, interval), period), interval)
    at_edge = ufuncs.logical_and(
        ufuncs.equal(ddmod, ufuncs.negative(interval)), ufuncs.greater(dd, 0)
    )
    ddmod = ufuncs.where(at_edge, interval, ddmod)
    correct = ufuncs.where(ufuncs.less(ufuncs.abs(dd), discont), 0, ufuncs.subtract(ddmod, dd))
    n = _aval(p).shape[axis]
    head = lax.slice_in_dim(p, 0, 1, axis=axis)
    tail = ufuncs.add(lax.slice_in_dim(p, 1, n, axis=axis), cumulative.cumsum(correct, axis=axis))
    return manipulation.concatenate((head, tail), axis=axis)


_unwrap_jit = inner_jit(_unwrap, "unwrap", static_argnums=(2,))


def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Any:
    """`p` with jumps larger than `discont` taken modulo `period`. Like
    `jax.numpy.unwrap`."""
    promotion.check_arraylike("unwrap", p)
    axis = canonical_axis(axis, np.ndim(p))
    return _unwrap_jit(p, discont, axis, period)


def histogramdd(
    sample: Any,
    bins: Any = 10,
    range: Any = None,
    weights: Any = None,
    density: Any = None,  # noqa: A002
) -> tuple[Any, list[Any]]:
    """The D-dimensional histogram of N points (`sample` of shape (N, D)). Like
    `jax.numpy.histogramdd`."""
    if weights is None:
        promotion.check_arraylike("histogramdd", sample)
        (sample,) = _inexact("histogramdd", sample)
    else:
        promotion.check_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = _inexact("histogramdd", sample, weights)
    n, d = _aval(sample).shape
    if range is not None and (
        len(range) != d or builtins.any(r is not None and np.shape(r)[0] != 2 for r in range)
    ):
        raise ValueError(
            f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or Nones; "
            f"got range={range}"
        )
    try:
        bins_per_dim = list(bins)
    except TypeError:
        bins_per_dim = d * [bins]
    else:
        if len(bins_per_dim) != d:
            raise ValueError("should be a bin for each dimension.")
    idx_by_dim, edges_by_dim = [], []
    for i in builtins.range(d):
        column = sample[:, i]
        edges = statistics.histogram_bin_edges(
            column, bins_per_dim[i], None if range is None else range[i], weights
        )
        idx = statistics.searchsorted(edges, column, side="right")
        idx = ufuncs.where(ufuncs.equal(column, edges[-1]), ufuncs.subtract(idx, 1), idx)
        idx_by_dim.append(idx)
        edges_by_dim.append(edges)
    nbins = tuple(_aval(e).shape[0] + 1 for e in edges_by_dim)
    xy = index_grids.ravel_multi_index(tuple(idx_by_dim), nbins, mode="clip")
    hist = statistics.bincount(xy, weights, length=math.prod(nbins))
    hist = manipulation.reshape(hist, nbins)[d * (slice(1, -1),)]
    if density:
        hist = lax.convert_element_type(hist, _aval(sample).dtype)
        hist = ufuncs.divide(hist, hist.sum())
        for norm in index_grids.ix_(*(calculus.diff(e) for e in edges_by_dim)):
            hist = ufuncs.divide(hist, norm)
    return hist, edges_by_dim


def histogram2d(
    x: Any,
    y: Any,
    bins: Any = 10,
    range: Any = None,
    weights: Any = None,
    density: Any = None,  # noqa: A002
) -> tuple[Any, Any, Any]:
    """The 2-d histogram of the points (x, y). Like `jax.numpy.histogram2d`."""
    promotion.check_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        edges = creation.asarray(bins)
        bins = [edges, edges]
    x, y = promotion.promote("histogram2d", creation.asarray(x), creation.asarray(y))
    sample = manipulation.transpose(manipulation.stack([x, y]))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def polydiv(u: Any, v: Any, *, trim_leading_zeros: bool = False) -> tuple[Any, Any]:
    """The quotient and remainder of polynomial division. Like `jax.numpy.polydiv`
    (`trim_leading_zeros=True` trims exact zeros only)."""
    promotion.check_arraylike("polydiv", u, v)
    u, v = _inexact("polydiv", u, v)
    m, n = _aval(u).shape[0] - 1, _aval(v).shape[0] - 1
    scale = ufuncs.divide(1.0, v[0])
    q = creation.zeros(builtins.max(m - n + 1, 1), _aval(u).dtype)
    for k in builtins.range(0, m - n + 1):
        d = ufuncs.multiply(scale, u[k])
        q = q.at[k].set(d)
        u = u.at[k : k + n + 1].add(ufuncs.multiply(ufuncs.negative(d), v))
    if trim_leading_zeros:
        nonzero = np.flatnonzero(np.asarray(u))
        u = u[nonzero[0] :] if nonzero.size else u[:0]
    return q, u


# ----------------------------------------------------------------------------- polyfit, roots


def _polyfit(x: Any, y: Any, deg: int, rcond: Any, full: bool, w: Any, cov: Any) -> Any:
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if _aval(x).ndim != 1:
        raise TypeError("expected 1D vector for x")
    if _aval(x).size == 0:
        raise TypeError("expected non-empty vector for x")
    if _aval(y).ndim < 1 or _aval(y).ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if _aval(x).shape[0] != _aval(y).shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = _aval(x).shape[0] * float(np.finfo(dtypes.canonicalize(_aval(x).dtype)).eps)
    lhs, rhs = calculus.vander(x, order), y
    if w is not None:
        (w,) = _inexact("polyfit", w)
        if _aval(w).ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if _aval(w).shape[0] != _aval(y).shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = ufuncs.multiply(lhs, w[:, None])
        rhs = ufuncs.multiply(rhs, w[:, None] if _aval(rhs).ndim == 2 else w)
    scale = ufuncs.sqrt(ufuncs.multiply(lhs, lhs).sum(axis=0))
    lhs = ufuncs.divide(lhs, scale[None, :])
    c, resids, rank, s = _linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale[None, :]).T if _aval(c).ndim > 1 else ufuncs.divide(c, scale)
    if full:
        return c, resids, rank, s, creation.asarray(rcond)
    if not cov:
        return c
    vbase = ufuncs.divide(_linalg.inv(lhs.T @ lhs), tensor_products.outer(scale, scale))
    if cov == "unscaled":
        fac = creation.array(1.0)
    else:
        if _aval(x).shape[0] <= order:
            raise ValueError(
                "the number of data points must exceed order to scale the covariance matrix"
            )
        fac = ufuncs.divide(resids, _aval(x).shape[0] - order)
    fac = rearrange.atleast_1d(fac)
    if _aval(y).ndim == 1:
        return c, ufuncs.multiply(vbase, fac[None])
    return c, ufuncs.multiply(vbase[:, :, None], fac[None, None, :])


_polyfit_jit = inner_jit(_polyfit, "polyfit", static_argnums=(2, 3, 4, 6))


def polyfit(
    x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None, cov: Any = False
) -> Any:
    """The least-squares polynomial of degree `deg` through (x, y). Like
    `jax.numpy.polyfit`."""
    args = (x, y) if w is None else (x, y, w)
    promotion.check_arraylike("polyfit", *args)
    x, y = creation.asarray(x), creation.asarray(y)
    return _polyfit_jit(x, y, int(deg), rcond, full, w, cov)


def _roots_no_zeros(p: Any) -> Any:
    n = _aval(p).shape[0]
    if n < 2:
        return creation.zeros((0,), dtypes.complex_of(_aval(p).dtype))
    a = diagonals.diag(creation.ones((n - 2,), _aval(p).dtype), -1)
    a = a.at[0, :].set(ufuncs.divide(ufuncs.negative(p[1:]), p[0]))
    return _linalg.eigvals(a)


_roots_no_zeros_jit = inner_jit(_roots_no_zeros, "_roots_no_zeros")


def _roots_with_zeros(p: Any, num_leading_zeros: Any) -> Any:
    n = _aval(p).shape[0]
    p = ufuncs.where(ufuncs.equal(n, num_leading_zeros), 1.0, p)  # an all-zero p: no LAPACK error
    # roll the leading zeros to the end (a traced shift: an index, where JAX rolls)
    rolled = p[ufuncs.remainder(ufuncs.add(creation.arange(n), num_leading_zeros), n)]
    roots = _roots_no_zeros_jit(rolled)
    roots = lax.sort_key_val(ufuncs.equal(roots, 0), roots)[1]  # zero roots to the end
    m = _aval(roots).shape[0]
    keep = ufuncs.less(creation.arange(m), ufuncs.subtract(m, num_leading_zeros))
    return ufuncs.where(keep, roots, lax.complex(np.float32(np.nan), np.float32(np.nan)))


_roots_with_zeros_jit = inner_jit(_roots_with_zeros, "_roots_with_zeros")


def roots(p: Any, *, strip_zeros: bool = True) -> Any:
    """The roots of the polynomial with coefficients `p` (the companion matrix's
    eigenvalues). Like `jax.numpy.roots`."""
    promotion.check_arraylike("roots", p)
    (p,) = _inexact("roots", p)
    p = rearrange.atleast_1d(p)
    if _aval(p).ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if _aval(p).size < 2:
        return creation.zeros((0,), dtypes.complex_of(_aval(p).dtype))
    is_zero = ufuncs.equal(p, 0)
    leading = ufuncs.where(predicates.all(is_zero), _aval(p).shape[0], sorting.argmin(is_zero))
    if strip_zeros:
        if isinstance(leading, core.Tracer):
            raise core.ConcretizationTypeError(
                "The error occurred in the jnp.roots() function. To use this within a "
                "JIT-compiled context, pass strip_zeros=False, but be aware that leading zeros "
                "will result in some returned roots being set to NaN."
            )
        return _roots_no_zeros_jit(p[int(leading) :])
    return _roots_with_zeros_jit(p, leading)
