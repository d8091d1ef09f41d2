"""Differences and histograms of `jax.numpy` built on `diff`, `searchsorted` and `bincount`:
`gradient` (central differences, one-sided at the edges), `unwrap` (phase unwrapping),
`histogramdd`, `histogram2d`, and `polydiv` (polynomial long division).

Layer 5, after `host_io`. No primitive of its own; each is JAX's composition, step for step
(so that values agree to the last place where XLA and NumPy agree).
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
    index_grids,
    manipulation,
    promotion,
    statistics,
    ufuncs,
)
from didax.numpy.axis_args import canonical_axis
from didax.numpy.inner_jit import inner_jit
from didax.numpy.mathfuncs import _inexact

__all__ = ["gradient", "histogram2d", "histogramdd", "polydiv", "unwrap"]


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
