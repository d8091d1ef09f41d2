"""Statistics: NaN-ignoring reductions (`nansum nanmean nanmax nanmin nanprod nanvar nanstd
nanargmax nanargmin nancumsum nancumprod`), `count_nonzero ptp average`, order statistics
(`quantile percentile median` and their `nan` forms), `cov corrcoef`, counting and binning
(`bincount histogram histogram_bin_edges searchsorted digitize`). Like `jax.numpy`'s.

Layer 5, after `rearrange`, composing `didax.numpy`. Quantiles sort along the axis and
interpolate between the two neighbouring order statistics, as JAX's do. `searchsorted`
counts the entries below each query (JAX's `method="compare_all"`; every method gives the
same indices). Output lengths that depend on values (`bincount` without `length=`) read the
values, so they need concrete inputs, as in JAX.
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax.numpy import (
    axis_args,
    complex_parts,
    creation,
    cumulative,
    diagonals,
    index_take,
    manipulation,
    predicates,
    promotion,
    rearrange,
    reductions,
    sorting,
    ufuncs,
)
from didax.numpy.axis_args import _aval
from didax.numpy.predicates import _is_float

__all__ = [
    "std",
    "var",
    "average",
    "bincount",
    "corrcoef",
    "count_nonzero",
    "cov",
    "digitize",
    "histogram",
    "histogram_bin_edges",
    "median",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "percentile",
    "ptp",
    "quantile",
    "searchsorted",
]


def _replace_nan(a: Any, value: Any) -> Any:
    # a with its NaNs replaced (integers have none)
    a = creation.asarray(a)
    if not dtypes.is_float(_aval(a).dtype):
        return a
    return ufuncs.where(predicates.isnan(a), lax.full((), value, _aval(a).dtype), a)


def nansum(
    a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False
) -> Any:
    """The sum, NaNs counted as zero. Like `jax.numpy.nansum`."""
    promotion.check_arraylike("nansum", a)
    return reductions.sum(_replace_nan(a, 0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(
    a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False
) -> Any:
    """The product, NaNs counted as one. Like `jax.numpy.nanprod`."""
    promotion.check_arraylike("nanprod", a)
    x = _replace_nan(a, 1)
    if dtype is not None:
        x = lax.convert_element_type(x, creation.to_dtype(dtype), False)
    return reductions.prod(x, axis=axis, keepdims=keepdims)


def _not_nan_count(a: Any, axis: Any, keepdims: bool, dtype: Any) -> Any:
    valid = ufuncs.logical_not(predicates.isnan(a)) if dtypes.is_float(_aval(a).dtype) else None
    if valid is None:
        axes = axis_args.canonical_axes("nanmean", a, axis)
        count = int(np.prod([_aval(a).shape[i] for i in axes], dtype=np.int64))
        return lax.full((), count, dtype)
    return reductions.sum(valid, axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(
    a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False
) -> Any:
    """The mean of the entries that are not NaN. Like `jax.numpy.nanmean`."""
    promotion.check_arraylike("nanmean", a)
    a = creation.asarray(a)
    if dtype is None:
        dtype = _aval(a).dtype if dtypes.is_float(_aval(a).dtype) else dtypes.default_float()
    dtype = creation.to_dtype(dtype)
    total = nansum(a, axis=axis, dtype=dtype, keepdims=keepdims)
    return lax.div(total, _not_nan_count(a, axis, keepdims, dtype))


def _nan_extremum(name: str, reduce: Any, fill: float) -> Any:
    def op(a: Any, axis: Any = None, out: None = None, keepdims: bool = False) -> Any:
        promotion.check_arraylike(name, a)
        a = creation.asarray(a)
        if not dtypes.is_float(_aval(a).dtype):
            return reduce(a, axis=axis, keepdims=keepdims)
        out = reduce(_replace_nan(a, fill), axis=axis, keepdims=keepdims)
        all_nan = predicates.all(predicates.isnan(a), axis=axis, keepdims=keepdims)
        return ufuncs.where(all_nan, lax.full((), np.nan, _aval(a).dtype), out)

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`: NaNs are ignored (NaN where all are NaN)."
    return op


nanmax = _nan_extremum("nanmax", reductions.max, -np.inf)
nanmin = _nan_extremum("nanmin", reductions.min, np.inf)


def _nan_arg(name: str, arg: Any, fill: float) -> Any:
    def op(a: Any, axis: int | None = None, out: None = None, keepdims: bool = False) -> Any:
        promotion.check_arraylike(name, a)
        a = creation.asarray(a)
        if not dtypes.is_float(_aval(a).dtype):
            return arg(a, axis=axis, keepdims=keepdims)
        nans = predicates.isnan(a)
        index = arg(_replace_nan(a, fill), axis=axis, keepdims=keepdims)
        all_nan = predicates.all(nans, axis=axis, keepdims=keepdims)
        return ufuncs.where(all_nan, lax.full((), -1, _aval(index).dtype), index)

    op.__name__ = name
    op.__doc__ = f"Like `jax.numpy.{name}`: NaNs are ignored (-1 where all are NaN)."
    return op


nanargmax = _nan_arg("nanargmax", reductions.argmax, -np.inf)
nanargmin = _nan_arg("nanargmin", sorting.argmin, np.inf)


def nanvar(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
) -> Any:
    """The variance of the entries that are not NaN. Like `jax.numpy.nanvar`."""
    promotion.check_arraylike("nanvar", a)
    a = creation.asarray(a)
    compute = (
        creation.to_dtype(dtype)
        if dtype is not None
        else (_aval(a).dtype if dtypes.is_float(_aval(a).dtype) else dtypes.default_float())
    )
    a = lax.convert_element_type(a, compute, False)
    centered = lax.sub(a, nanmean(a, axis=axis, keepdims=True))
    total = nansum(lax.mul(centered, centered), axis=axis, keepdims=keepdims)
    count = lax.sub(_not_nan_count(a, axis, keepdims, compute), lax.full((), ddof, compute))
    empty = lax.le(count, lax.full((), 0, compute))  # no entries left: NaN, as JAX
    total = ufuncs.where(empty, lax.full((), np.nan, compute), total)
    return lax.div(total, ufuncs.where(empty, lax.full((), 1, compute), count))


def nanstd(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: None = None,
    ddof: int = 0,
    keepdims: bool = False,
) -> Any:
    """Like `jax.numpy.nanstd`."""
    return lax.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims))


def nancumsum(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """The running sum, NaNs counted as zero. Like `jax.numpy.nancumsum`."""
    return cumulative.cumsum(_replace_nan(a, 0), axis=axis, dtype=dtype)


def nancumprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None) -> Any:
    """The running product, NaNs counted as one. Like `jax.numpy.nancumprod`."""
    return cumulative.cumprod(_replace_nan(a, 1), axis=axis, dtype=dtype)


def count_nonzero(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """The number of nonzero entries. Like `jax.numpy.count_nonzero`."""
    promotion.check_arraylike("count_nonzero", a)
    a = creation.asarray(a)
    nonzero = lax.ne(a, lax.full((), 0, _aval(a).dtype))
    return reductions.sum(nonzero, axis=axis, dtype=dtypes.default_int(), keepdims=keepdims)


def ptp(a: Any, axis: Any = None, out: None = None, keepdims: bool = False) -> Any:
    """The range, max - min. Like `jax.numpy.ptp`."""
    promotion.check_arraylike("ptp", a)
    top = reductions.max(a, axis=axis, keepdims=keepdims)
    return lax.sub(top, reductions.min(a, axis=axis, keepdims=keepdims))


def average(
    a: Any,
    axis: Any = None,
    weights: Any = None,
    returned: bool = False,
    keepdims: bool = False,
) -> Any:
    """The (weighted) mean; with `returned`, also the sum of the weights. Like
    `jax.numpy.average`."""
    promotion.check_arraylike("average", a)
    a = creation.asarray(a)
    if weights is None:
        avg = reductions.mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        axes = axis_args.canonical_axes("average", a, axis)
        count = int(np.prod([_aval(a).shape[i] for i in axes], dtype=np.int64))
        return avg, lax.full(_aval(avg).shape, count, _aval(avg).dtype)
    a, w = promotion.promote(
        "average", promotion.to_inexact("average", a), creation.asarray(weights)
    )
    if _aval(w).shape != _aval(a).shape:
        if axis is None:
            raise ValueError("Axis must be specified when shapes of a and weights differ.")
        if _aval(w).ndim != 1:
            raise ValueError("1D weights expected when shapes of a and weights differ.")
        (ax,) = axis_args.canonical_axes("average", a, axis)
        if _aval(w).shape[0] != _aval(a).shape[ax]:
            raise ValueError("Length of weights not compatible with specified axis.")
        w = lax.broadcast_in_dim(w, _aval(a).shape, (ax,))
    scale = reductions.sum(w, axis=axis, keepdims=keepdims)
    avg = lax.div(reductions.sum(lax.mul(a, w), axis=axis, keepdims=keepdims), scale)
    if returned:
        return avg, promotion.broadcast_to(scale, _aval(avg).shape)
    return avg


# ----------------------------------------------------------------------------- quantiles


def _quantile(
    name: str, a: Any, q: Any, axis: Any, method: str, keepdims: bool, ignore_nan: bool
) -> Any:
    promotion.check_arraylike(name, a, q)
    a, q = promotion.promote(
        name, promotion.to_inexact(name, creation.asarray(a)), creation.asarray(q)
    )
    a, q = promotion.to_inexact(name, a), promotion.to_inexact(name, q)
    if _aval(q).ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {_aval(q).shape}")
    if method not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError(f"{name}: method {method!r} is not supported")
    shape = _aval(a).shape
    if axis is None:
        a, axis, kept = manipulation.ravel(a), 0, tuple(1 for _ in shape)
    else:
        axis = axis_args.canonical_axis(axis, len(shape))
        kept = tuple(1 if d == axis else n for d, n in enumerate(shape))
    a = manipulation.moveaxis(a, axis, -1)  # quantiles of the last axis
    n = _aval(a).shape[-1]
    dtype = _aval(a).dtype
    ordered = sorting.sort(a, axis=-1)  # NaNs sort last
    if ignore_nan:
        count = reductions.sum(ufuncs.logical_not(predicates.isnan(a)), axis=-1, keepdims=True)
        last = lax.sub(lax.convert_element_type(count, dtype, False), lax.full((), 1, dtype))
    else:
        last = lax.full((), n - 1, dtype)
    qs = lax.reshape(q, (_aval(q).size, *(1,) * _aval(a).ndim))  # q axis first
    position = ufuncs.multiply(qs, last)
    low = lax.floor(position)
    high = lax.neg(lax.floor(lax.neg(position)))  # ceil
    top = lax.full((), n - 1, dtype)
    low = ufuncs.clip(low, 0, top)
    high = ufuncs.clip(high, 0, top)
    batch = (_aval(q).size, *_aval(a).shape[:-1], 1)
    pick = lambda i: _take_last(ordered, lax.convert_element_type(i, dtypes.int32, False), batch)  # noqa: E731
    low_value, high_value = pick(low), pick(high)
    high_weight = ufuncs.subtract(position, low)
    if method == "linear":
        low_weight = lax.sub(lax.full((), 1, dtype), high_weight)
        out = ufuncs.add(
            ufuncs.multiply(low_value, low_weight), ufuncs.multiply(high_value, high_weight)
        )
    elif method == "lower":
        out = low_value
    elif method == "higher":
        out = high_value
    elif method == "midpoint":
        out = lax.mul(lax.add(low_value, high_value), lax.full((), 0.5, dtype))
    else:  # nearest: a tie goes to the lower one, as JAX's
        nearer_low = lax.le(high_weight, lax.full((), 0.5, dtype))
        out = ufuncs.where(nearer_low, low_value, high_value)
    if ignore_nan:  # a slice of NaNs only has NaN quantiles
        empty = lax.eq(count, lax.full((), 0, _aval(count).dtype))
        out = ufuncs.where(empty, lax.full((), np.nan, dtype), out)
    out = lax.squeeze(out, (_aval(out).ndim - 1,))  # (q, *rest)
    if keepdims:
        out = lax.reshape(out, (_aval(q).size, *kept))
    return lax.reshape(out, _aval(out).shape[1:]) if _aval(q).ndim == 0 else out


def _take_last(x: Any, index: Any, batch: tuple[int, ...]) -> Any:
    # x[..., index] along the last axis, for an index with one entry per (q, *rest) position
    wide = (batch[0], *_aval(x).shape)
    full = lax.broadcast_in_dim(x, wide, tuple(range(1, _aval(x).ndim + 1)))
    return index_take.take_along_axis(full, promotion.broadcast_to(index, batch), axis=-1)


def _quantile_function(name: str, percent: bool, ignore_nan: bool, doc: str) -> Any:
    # quantile, nanquantile, percentile and nanpercentile share JAX's signature
    def fn(
        a: Any,
        q: Any,
        axis: Any = None,
        out: None = None,
        overwrite_input: bool = False,
        method: str = "linear",
        keepdims: bool = False,
    ) -> Any:
        if percent:
            q = ufuncs.divide(creation.asarray(q), 100.0)
        return _quantile(name, a, q, axis, method, keepdims, ignore_nan=ignore_nan)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


quantile = _quantile_function(
    "quantile",
    False,
    False,
    "The `q`-th quantiles (q in [0, 1]) along `axis`. Like `jax.numpy.quantile`.",
)
nanquantile = _quantile_function(
    "nanquantile", False, True, "Like `jax.numpy.nanquantile`: NaNs are ignored."
)
percentile = _quantile_function(
    "percentile",
    True,
    False,
    "The `q`-th percentiles (q in [0, 100]). Like `jax.numpy.percentile`.",
)
nanpercentile = _quantile_function(
    "nanpercentile", True, True, "Like `jax.numpy.nanpercentile`: NaNs are ignored."
)


def median(
    a: Any,
    axis: Any = None,
    out: None = None,
    overwrite_input: bool = False,
    keepdims: bool = False,
) -> Any:
    """The median (the midpoint of the middle two for an even count). Like
    `jax.numpy.median`."""
    return _quantile("median", a, 0.5, axis, "midpoint", keepdims, ignore_nan=False)


def nanmedian(
    a: Any,
    axis: Any = None,
    out: None = None,
    overwrite_input: bool = False,
    keepdims: bool = False,
) -> Any:
    """Like `jax.numpy.nanmedian`: NaNs are ignored."""
    return _quantile("nanmedian", a, 0.5, axis, "midpoint", keepdims, ignore_nan=True)


# ----------------------------------------------------------------------------- cov, corrcoef


def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: Any = None,
    aweights: Any = None,
) -> Any:
    """The covariance matrix of the variables (rows, or columns if not `rowvar`). Like
    `jax.numpy.cov` (without `fweights`/`aweights`)."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights/aweights are not supported by didax yet")
    promotion.check_arraylike("cov", m)
    m = creation.asarray(m)
    if _aval(m).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    x = rearrange.atleast_2d(m)
    if not rowvar and _aval(x).shape[0] != 1:
        x = lax.transpose(x, (1, 0))
    if _aval(x).shape[0] == 0:
        return creation.zeros((0, 0), dtypes.default_float())
    if y is not None:
        y = rearrange.atleast_2d(creation.asarray(y))
        if not rowvar and _aval(y).shape[0] != 1:
            y = lax.transpose(y, (1, 0))
        x = manipulation.concatenate(promotion.promote("cov", x, y), axis=0)
    x = promotion.to_inexact("cov", x)
    if ddof is None:
        ddof = 0 if bias else 1
    n = _aval(x).shape[1]
    centered = lax.sub(x, reductions.mean(x, axis=1, keepdims=True))
    dtype = _aval(centered).dtype
    prod = lax.dot_general(
        centered,
        complex_parts.conj(centered),
        (((1,), (1,)), ((), ())),
        preferred_element_type=dtype,
    )
    out = lax.div(prod, lax.full((), n - ddof, dtype))
    return lax.squeeze(out, (0, 1)) if _aval(out).shape == (1, 1) else out


def corrcoef(x: Any, y: Any = None, rowvar: bool = True) -> Any:
    """Pearson correlation coefficients, in [-1, 1]. Like `jax.numpy.corrcoef`."""
    c = cov(x, y, rowvar)
    if _aval(c).ndim == 0:
        return lax.div(c, c)
    d = diagonals.diagonal(c)
    stddev = lax.sqrt(d)
    c = lax.div(
        lax.div(c, lax.broadcast_in_dim(stddev, _aval(c).shape, (0,))),
        lax.broadcast_in_dim(stddev, _aval(c).shape, (1,)),
    )
    return ufuncs.clip(c, -1, 1)


# ----------------------------------------------------------------------------- counting, bins


def searchsorted(
    a: Any, v: Any, side: str = "left", sorter: Any = None, *, method: str = "scan"
) -> Any:
    """Where each of `v` would go in the sorted vector `a` (before equal entries, or after
    them with side="right"). Like `jax.numpy.searchsorted`."""
    promotion.check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(
            f"{side!r} is an invalid value for keyword 'side'. Expected one of ['left', 'right']."
        )
    a, v = promotion.promote("searchsorted", creation.asarray(a), creation.asarray(v))
    if _aval(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        a = a[creation.asarray(sorter)]
    n = _aval(a).shape[0]
    vshape = _aval(v).shape
    wide = (*vshape, n)
    aa = lax.broadcast_in_dim(a, wide, (len(vshape),))
    vv = lax.broadcast_in_dim(v, wide, tuple(range(len(vshape))))
    below = lax.lt(aa, vv) if side == "left" else lax.le(aa, vv)
    return reductions.sum(below, axis=-1, dtype=dtypes.int32)


def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """The index of the bin of each entry. Like `jax.numpy.digitize`."""
    promotion.check_arraylike("digitize", x, bins)
    bins = creation.asarray(bins)
    if _aval(bins).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got {bins}")
    n = _aval(bins).shape[0]
    if n == 0:
        return creation.zeros(_aval(creation.asarray(x)).shape, dtypes.int32)
    side = "left" if right else "right"
    rising = lax.ge(bins[-1], bins[0])
    up = searchsorted(bins, x, side=side)
    down = lax.sub(lax.full((), n, dtypes.int32), searchsorted(rearrange.flip(bins), x, side=side))
    return ufuncs.where(rising, up, down)


def bincount(x: Any, weights: Any = None, minlength: int = 0, *, length: int | None = None) -> Any:
    """How often each of 0..length-1 occurs in x (negative values count as 0, values past the
    end are dropped), or the sum of their weights. Like `jax.numpy.bincount`."""
    promotion.check_arraylike("bincount", x)
    x = creation.asarray(x)
    if _aval(x).dtype == dtypes.bool_:
        x = lax.convert_element_type(x, dtypes.int32, False)
    if not dtypes.is_int(_aval(x).dtype):
        raise TypeError(f"x argument to bincount must have an integer type; got {_aval(x).dtype}")
    if _aval(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        values = np.asarray(
            core.concrete_or_error(
                x,
                "The error occurred because of argument 'x' of jnp.bincount. "
                "To avoid this error, pass a static `length` argument.",
            )
        )
        length = builtins.max(minlength, values.size and int(builtins.max(0, values.max())) + 1)
    else:
        length = operator.index(length)
    if weights is None:
        weights, dtype = 1, dtypes.default_int()
    else:
        weights = creation.asarray(weights)
        if _aval(weights).shape != _aval(x).shape:
            raise ValueError("shape of weights must match shape of x.")
        dtype = _aval(weights).dtype
    zeros = lax.full((length,), 0, dtype)
    return zeros.at[ufuncs.clip(x, 0)].add(weights, mode="drop")


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:  # noqa: A002
    """The edges of `bins` equal bins over `range` (the data's, by default). Like
    `jax.numpy.histogram_bin_edges`."""
    promotion.check_arraylike("histogram_bin_edges", a)
    arr = promotion.to_inexact("histogram_bin_edges", creation.asarray(a))
    dtype = _aval(arr).dtype
    if np.ndim(bins) == 1:
        return creation.asarray(bins, dtype=dtype)
    bins = operator.index(bins)
    if range is None:
        low, high = reductions.min(arr), reductions.max(arr)
    else:
        if np.shape(range) != (2,):
            raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
        r = creation.asarray(range, dtype=dtype)
        low, high = r[0], r[1]
    same = lax.eq(low, high)
    half = lax.full((), 0.5, dtype)
    low = ufuncs.where(same, lax.sub(low, half), low)
    high = ufuncs.where(same, lax.add(high, half), high)
    return creation.linspace(low, high, bins + 1, dtype=dtype)


def histogram(
    a: Any,
    bins: Any = 10,
    range: Any = None,  # noqa: A002
    weights: Any = None,
    density: bool | None = None,
) -> tuple[Any, Any]:
    """Counts (or summed weights) of the data in each bin, and the bin edges. Like
    `jax.numpy.histogram`."""
    promotion.check_arraylike("histogram", a)
    a = creation.asarray(a)
    if weights is None:
        weights = creation.ones_like(a)
    weights = creation.asarray(weights)
    if _aval(weights).shape != _aval(a).shape:
        raise ValueError("weights should have the same shape as a.")
    a, weights = manipulation.ravel(a), manipulation.ravel(weights)
    edges = histogram_bin_edges(a, bins, range, weights)
    nedges = _aval(edges).shape[0]
    index = searchsorted(edges, a, side="right")
    index = ufuncs.where(lax.eq(a, edges[-1]), lax.full((), nedges - 1, dtypes.int32), index)
    counts = lax.full((nedges,), 0, _aval(weights).dtype).at[index].add(weights)[1:]
    if density:
        widths = lax.sub(edges[1:], edges[:-1])
        counts = lax.div(lax.div(counts, widths), reductions.sum(counts))
    return counts, edges


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


# The `Array` methods of this module's functions (`x.ptp()` is `ptp(x)`); `didax/numpy/__init__.py`
# puts them in `core.operator_table`.
METHODS = {"ptp": ptp, "searchsorted": searchsorted, "std": std, "var": var}
