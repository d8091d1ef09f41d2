"""The `jax.numpy` names added from the missing-names list (`numpy/rearrange.py`,
`statistics.py`, `calculus.py`, `manipulation.moveaxis`) against JAX 0.10.2: values, dtypes,
shapes and weak types eagerly and under jit (`helpers.oracle.assert_matches`), and gradients
where the function is differentiable."""

from __future__ import annotations

from functools import partial

import didax
import didax.numpy as dnp
import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
from helpers.grouped import Grouped
from helpers.oracle import JaxOracle, assert_matches  # noqa: E402

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(3)
V = RNG.normal(size=6).astype(np.float32)
M = RNG.normal(size=(3, 4)).astype(np.float32)
S = RNG.normal(size=(4, 4)).astype(np.float32)
T = RNG.normal(size=(2, 3, 4)).astype(np.float32)
NANS = np.array(
    [[1.0, np.nan, 3.0, -2.0], [np.nan, np.nan, np.nan, np.nan], [0.5, 2.0, np.nan, 7.0]],
    np.float32,
)
I = np.array([[3, -1, 7, 0], [0, 2, -5, 4]], np.int32)
HALVES = np.array(
    [1.5, -2.5, 0.5, -0.4, 2.7, -0.0, np.inf, np.nan], np.float32
)  # ties, signed zero, inf, nan: rounding's edge values
COUNTS = np.array([0, 3, 1, 3, 3, 7, 0], np.int32)
GRID = np.array([0.0, 1.0, 2.5, 4.0, 5.0], np.float32)
P = np.array([2.0, -1.0, 0.5, 3.0], np.float32)
V3 = RNG.normal(size=(4, 3)).astype(np.float32)
V3B = RNG.normal(size=(4, 3)).astype(np.float32)

# (id, function of the numpy module, args, differentiable in args[0])
CASES = [
    # rearranging
    ("moveaxis", lambda m, x: m.moveaxis(x, 0, -1), (T,), True),
    ("moveaxis_many", lambda m, x: m.moveaxis(x, (0, 1), (2, 0)), (T,), True),
    ("flip", lambda m, x: m.flip(x), (T,), True),
    ("flip_axis", lambda m, x: m.flip(x, (0, 2)), (T,), True),
    ("fliplr", lambda m, x: m.fliplr(x), (M,), True),
    ("flipud", lambda m, x: m.flipud(x), (M,), True),
    ("roll", lambda m, x: m.roll(x, 2), (M,), True),
    ("roll_axis", lambda m, x: m.roll(x, -1, axis=1), (M,), True),
    ("roll_many", lambda m, x: m.roll(x, (1, 5), axis=(0, 2)), (T,), True),
    ("rot90", lambda m, x: m.rot90(x), (M,), True),
    ("rot90_k", lambda m, x: m.rot90(x, k=3, axes=(1, 2)), (T,), True),
    ("rot90_2", lambda m, x: m.rot90(x, 2), (M,), True),
    ("tile", lambda m, x: m.tile(x, 2), (V,), True),
    ("tile_2d", lambda m, x: m.tile(x, (2, 1, 3)), (M,), True),
    ("repeat", lambda m, x: m.repeat(x, 2), (M,), True),
    ("repeat_axis", lambda m, x: m.repeat(x, 3, axis=1), (M,), True),
    ("repeat_counts", lambda m, x: m.repeat(x, np.array([1, 0, 2]), axis=0), (M,), True),
    ("atleast_1d", lambda m, x: m.atleast_1d(x), (np.float32(2.0),), False),
    ("atleast_2d", lambda m, x: m.atleast_2d(x), (V,), True),
    ("atleast_3d", lambda m, x: m.atleast_3d(x), (M,), True),
    ("atleast_3d_vec", lambda m, x: m.atleast_3d(x), (V,), True),
    ("hstack", lambda m, x: m.hstack([x, x]), (M,), True),
    ("hstack_vec", lambda m, x: m.hstack((x, x[:2])), (V,), True),
    ("vstack", lambda m, x: m.vstack([x, x[::-1]]), (V,), True),
    ("dstack", lambda m, x: m.dstack([x, x]), (M,), True),
    ("column_stack", lambda m, x: m.column_stack([x, x]), (V,), True),
    ("concat", lambda m, x: m.concat([x, x], axis=1), (M,), True),
    ("concat_none", lambda m, x: m.concat([x, x], axis=None), (M,), True),
    ("append", lambda m, x: m.append(x, x), (M,), True),
    ("append_axis", lambda m, x: m.append(x, x, axis=0), (M,), True),
    ("split", lambda m, x: m.split(x, 2, axis=1), (M,), True),
    ("split_at", lambda m, x: m.split(x, [1, 4]), (V,), True),
    ("array_split", lambda m, x: m.array_split(x, 4), (V,), True),
    ("hsplit", lambda m, x: m.hsplit(x, 2), (M,), True),
    ("vsplit", lambda m, x: m.vsplit(x, [1]), (M,), True),
    ("vsplit_vec", lambda m, x: m.vsplit(x, 3), (V,), True),
    ("dsplit", lambda m, x: m.dsplit(x, 2), (T,), True),
    ("unstack", lambda m, x: m.unstack(x, axis=1), (M,), True),
    ("matrix_transpose", lambda m, x: m.matrix_transpose(x), (T,), True),
    ("permute_dims", lambda m, x: m.permute_dims(x, (2, 0, 1)), (T,), True),
    ("diagonal", lambda m, x: m.diagonal(x), (M,), True),
    ("diagonal_offset", lambda m, x: m.diagonal(x, 1), (M,), True),
    ("diagonal_neg", lambda m, x: m.diagonal(x, -1, 1, 2), (T,), True),
    ("trace", lambda m, x: m.trace(x), (S,), True),
    ("trace_offset", lambda m, x: m.trace(x, offset=1, axis1=1, axis2=2), (T,), True),
    ("trace_int", lambda m, x: m.trace(x), (I,), False),
    ("diag_vec", lambda m, x: m.diag(x), (V,), True),
    ("diag_vec_k", lambda m, x: m.diag(x, 2), (V,), True),
    ("diag_vec_negk", lambda m, x: m.diag(x, -1), (V,), True),
    ("diag_mat", lambda m, x: m.diag(x, -1), (M,), True),
    ("diagflat", lambda m, x: m.diagflat(x), (M[:2, :2],), True),
    ("tri", lambda m: m.tri(3, 4, 1), (), False),
    ("tri_int", lambda m: m.tri(3, dtype=np.int32), (), False),
    ("tril_indices", lambda m: m.tril_indices(4, -1), (), False),
    ("triu_indices", lambda m: m.triu_indices(3, 1, 5), (), False),
    ("tril_indices_from", lambda m, x: m.tril_indices_from(x), (M,), False),
    ("triu_indices_from", lambda m, x: m.triu_indices_from(x, 1), (S,), False),
    ("diag_indices", lambda m: m.diag_indices(3, 3), (), False),
    ("diag_indices_from", lambda m, x: m.diag_indices_from(x), (S,), False),
    ("indices", lambda m: m.indices((2, 3)), (), False),
    ("indices_sparse", lambda m: m.indices((2, 3), sparse=True), (), False),
    ("identity", lambda m: m.identity(3), (), False),
    ("empty", lambda m: m.empty((2, 3)), (), False),
    ("empty_like", lambda m, x: m.empty_like(x), (I,), False),
    ("full_like", lambda m, x: m.full_like(x, 2.5), (M,), False),
    ("full_like_int", lambda m, x: m.full_like(x, 7, dtype=np.float32, shape=(2,)), (I,), False),
    ("copy", lambda m, x: m.copy(x), (M,), True),
    # statistics
    ("nansum", lambda m, x: m.nansum(x), (NANS,), False),
    ("nansum_axis", lambda m, x: m.nansum(x, axis=1, keepdims=True), (NANS,), False),
    ("nansum_int", lambda m, x: m.nansum(x, axis=0), (I,), False),
    ("nanmean", lambda m, x: m.nanmean(x, axis=1), (NANS,), False),
    ("nanmean_all", lambda m, x: m.nanmean(x), (NANS,), False),
    ("nanmean_int", lambda m, x: m.nanmean(x), (I,), False),
    ("nanmax", lambda m, x: m.nanmax(x, axis=1), (NANS,), False),
    ("nanmin", lambda m, x: m.nanmin(x, axis=0), (NANS,), False),
    ("nanprod", lambda m, x: m.nanprod(x, axis=1), (NANS,), False),
    ("nanvar", lambda m, x: m.nanvar(x, axis=1), (NANS,), False),
    ("nanstd", lambda m, x: m.nanstd(x, axis=1, ddof=1), (NANS,), False),
    ("nanargmax", lambda m, x: m.nanargmax(x, axis=1), (NANS,), False),
    ("nanargmin", lambda m, x: m.nanargmin(x, axis=1), (NANS,), False),
    ("nancumsum", lambda m, x: m.nancumsum(x, axis=1), (NANS,), False),
    ("nancumprod", lambda m, x: m.nancumprod(x), (NANS,), False),
    ("nan_grad_sum", lambda m, x: m.nansum(x, axis=0), (M,), True),
    ("nan_grad_mean", lambda m, x: m.nanmean(x, axis=1), (M,), True),
    ("nan_grad_max", lambda m, x: m.nanmax(x), (M,), True),
    ("count_nonzero", lambda m, x: m.count_nonzero(x), (I,), False),
    ("count_nonzero_axis", lambda m, x: m.count_nonzero(x, axis=1, keepdims=True), (I,), False),
    ("ptp", lambda m, x: m.ptp(x, axis=1), (M,), True),
    ("ptp_int", lambda m, x: m.ptp(x), (I,), False),
    ("average", lambda m, x: m.average(x), (M,), True),
    ("average_axis", lambda m, x: m.average(x, axis=0), (M,), True),
    ("average_w", lambda m, x: m.average(x, axis=1, weights=np.arange(1.0, 5.0)), (M,), True),
    ("average_w_full", lambda m, x: m.average(x, weights=m.abs(x) + 1), (M,), True),
    ("average_returned", lambda m, x: m.average(x, axis=0, returned=True), (M,), True),
    ("average_int", lambda m, x: m.average(x), (I,), False),
    ("median", lambda m, x: m.median(x), (M,), True),
    ("median_axis", lambda m, x: m.median(x, axis=1), (M,), True),
    ("median_odd", lambda m, x: m.median(x, axis=0, keepdims=True), (M,), True),
    ("median_int", lambda m, x: m.median(x, axis=1), (I,), False),
    ("quantile", lambda m, x: m.quantile(x, 0.3), (M,), True),
    ("quantile_many", lambda m, x: m.quantile(x, np.array([0.1, 0.5, 0.9]), axis=1), (M,), True),
    ("quantile_keep", lambda m, x: m.quantile(x, 0.25, axis=0, keepdims=True), (M,), True),
    ("quantile_lower", lambda m, x: m.quantile(x, 0.3, method="lower"), (V,), False),
    ("quantile_higher", lambda m, x: m.quantile(x, 0.3, method="higher"), (V,), False),
    (
        "quantile_nearest",
        lambda m, x: m.quantile(x, np.array([0.3, 0.5]), method="nearest"),
        (V,),
        False,
    ),
    ("quantile_midpoint", lambda m, x: m.quantile(x, 0.3, method="midpoint"), (V,), False),
    ("percentile", lambda m, x: m.percentile(x, 75.0, axis=1), (M,), True),
    ("percentile_many", lambda m, x: m.percentile(x, np.array([5.0, 50.0])), (V,), True),
    ("nanmedian", lambda m, x: m.nanmedian(x, axis=1), (NANS,), False),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.4, axis=1), (NANS,), False),
    (
        "nanpercentile",
        lambda m, x: m.nanpercentile(x, np.array([10.0, 90.0]), axis=0),
        (NANS,),
        False,
    ),
    ("cov", lambda m, x: m.cov(x), (M,), True),
    ("cov_cols", lambda m, x: m.cov(x, rowvar=False), (M,), True),
    ("cov_y", lambda m, x: m.cov(x, x[::-1] * 2), (V,), True),
    ("cov_bias", lambda m, x: m.cov(x, bias=True), (M,), True),
    ("cov_ddof", lambda m, x: m.cov(x, ddof=0), (M,), True),
    ("cov_int", lambda m, x: m.cov(x), (I,), False),
    ("corrcoef", lambda m, x: m.corrcoef(x), (M,), True),
    ("corrcoef_y", lambda m, x: m.corrcoef(x, x**2), (V,), True),
    ("searchsorted", lambda m, x: m.searchsorted(GRID, x), (V,), False),
    ("searchsorted_right", lambda m, x: m.searchsorted(GRID, x, side="right"), (GRID,), False),
    ("searchsorted_2d", lambda m, x: m.searchsorted(GRID, x * 3), (M,), False),
    ("searchsorted_sorter", lambda m, x: m.searchsorted(x, 0.1, sorter=np.argsort(V)), (V,), False),
    ("digitize", lambda m, x: m.digitize(x * 3, GRID), (V,), False),
    ("digitize_right", lambda m, x: m.digitize(x, GRID, right=True), (GRID,), False),
    ("digitize_decreasing", lambda m, x: m.digitize(x * 3, GRID[::-1]), (V,), False),
    ("bincount", lambda m, x: m.bincount(x), (COUNTS,), False),
    ("bincount_min", lambda m, x: m.bincount(x, minlength=10), (COUNTS,), False),
    ("bincount_length", lambda m, x: m.bincount(x, length=4), (COUNTS,), False),
    (
        "bincount_weights",
        lambda m, x: m.bincount(x, weights=np.arange(7.0, dtype=np.float32)),
        (COUNTS,),
        False,
    ),
    ("histogram", lambda m, x: m.histogram(x), (V,), False),
    ("histogram_bins", lambda m, x: m.histogram(x, bins=4, range=(-2, 2)), (M,), False),
    ("histogram_edges", lambda m, x: m.histogram(x, bins=GRID - 1), (V,), False),
    ("histogram_density", lambda m, x: m.histogram(x, bins=3, density=True), (V,), False),
    ("histogram_weights", lambda m, x: m.histogram(x, bins=3, weights=m.abs(x)), (V,), False),
    ("histogram_bin_edges", lambda m, x: m.histogram_bin_edges(x, bins=5), (M,), False),
    # calculus, polynomials, products
    ("diff", lambda m, x: m.diff(x), (M,), True),
    ("diff_n", lambda m, x: m.diff(x, n=2, axis=0), (T,), True),
    ("diff_pre", lambda m, x: m.diff(x, prepend=0.0, append=x[-1:]), (V,), True),
    ("diff_int", lambda m, x: m.diff(x), (I,), False),
    ("diff_bool", lambda m, x: m.diff(x > 0), (V,), False),
    ("ediff1d", lambda m, x: m.ediff1d(x), (M,), True),
    (
        "ediff1d_ends",
        lambda m, x: m.ediff1d(x, to_end=np.array([9.0, 8.0]), to_begin=-1),
        (V,),
        True,
    ),
    ("cumulative_sum", lambda m, x: m.cumulative_sum(x), (V,), True),
    (
        "cumulative_sum_axis",
        lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True),
        (M,),
        True,
    ),
    ("cumulative_sum_int", lambda m, x: m.cumulative_sum(x, axis=0), (I,), False),
    (
        "cumulative_prod",
        lambda m, x: m.cumulative_prod(x, axis=0, include_initial=True),
        (M,),
        True,
    ),
    ("trapezoid", lambda m, x: m.trapezoid(x), (M,), True),
    ("trapezoid_x", lambda m, x: m.trapezoid(x, GRID[:4], axis=1), (M,), True),
    ("trapezoid_dx", lambda m, x: m.trapezoid(x, dx=0.5, axis=0), (M,), True),
    ("interp", lambda m, x: m.interp(x * 3, GRID, GRID**2), (V,), True),
    ("interp_lr", lambda m, x: m.interp(x * 3, GRID, GRID**2, left=-1.0, right=99.0), (V,), True),
    ("interp_fp", lambda m, x: m.interp(np.array([0.5, 3.0], np.float32), GRID, x[:5]), (V,), True),
    ("polyval", lambda m, x: m.polyval(P, x), (M,), True),
    ("polyval_p", lambda m, x: m.polyval(x, 1.5), (P,), True),
    ("polyadd", lambda m, x: m.polyadd(x, P), (V,), True),
    ("polysub", lambda m, x: m.polysub(x[:2], P), (V,), True),
    ("polymul", lambda m, x: m.polymul(x, P), (V,), True),
    ("polyder", lambda m, x: m.polyder(x), (P,), True),
    ("polyder_2", lambda m, x: m.polyder(x, 2), (P,), True),
    ("vander", lambda m, x: m.vander(x), (V,), True),
    ("vander_n", lambda m, x: m.vander(x, 3, increasing=True), (V,), True),
    ("vander_int", lambda m, x: m.vander(x, 3), (COUNTS,), False),
    ("cross", lambda m, x: m.cross(x, V3B), (V3,), True),
    ("cross_2d", lambda m, x: m.cross(x[:, :2], V3B[:, :2]), (V3,), True),
    ("cross_axis", lambda m, x: m.cross(x.T, V3B.T, axis=0), (V3,), True),
    ("cross_mixed", lambda m, x: m.cross(x[:, :2], V3B), (V3,), True),
    ("inner", lambda m, x: m.inner(x, M), (M,), True),
    ("inner_vec", lambda m, x: m.inner(x, x), (V,), True),
    ("vdot", lambda m, x: m.vdot(x, S[:3]), (M,), True),
    ("vecdot", lambda m, x: m.vecdot(x, M), (M,), True),
    ("vecdot_axis", lambda m, x: m.vecdot(x, T, axis=0), (T,), True),
    ("matvec", lambda m, x: m.matvec(x, M[0]), (T,), True),
    ("vecmat", lambda m, x: m.vecmat(x, M), (V3,), True),
    ("tensordot", lambda m, x: m.tensordot(x, T, axes=1), (S[:2, :2],), True),
    ("tensordot_2", lambda m, x: m.tensordot(x, M, axes=2), (M,), True),
    ("tensordot_lists", lambda m, x: m.tensordot(x, T, axes=([0, 1], [1, 2])), (M,), True),
    # elementwise, bitwise
    ("deg2rad", lambda m, x: m.deg2rad(x), (V,), True),
    ("rad2deg_int", lambda m, x: m.rad2deg(x), (I,), False),
    ("radians", lambda m, x: m.radians(x * 90), (V,), True),
    ("degrees", lambda m, x: m.degrees(x), (M,), True),
    ("log2", lambda m, x: m.log2(m.abs(x) + 0.5), (V,), True),
    ("log10", lambda m, x: m.log10(m.abs(x) + 0.5), (M,), True),
    ("log2_int", lambda m, x: m.log2(x), (np.array([1, 2, 8, 1024], np.int32),), False),
    ("hypot", lambda m, x: m.hypot(x, 2.0 * x[::-1]), (V,), True),
    (
        "hypot_special",
        lambda m, x: m.hypot(x, 0.0),
        (np.array([0.0, np.inf, -3.0, np.nan], np.float32),),
        False,
    ),
    ("reciprocal", lambda m, x: m.reciprocal(x), (V,), True),
    ("fabs", lambda m, x: m.fabs(x), (M,), True),
    ("fmax", lambda m, x: m.fmax(x, NANS[0]), (NANS,), False),
    ("fmin", lambda m, x: m.fmin(x, 0.0), (NANS,), False),
    ("fmax_grad", lambda m, x: m.fmax(x, x[::-1] * 0.5), (V,), True),
    (
        "signbit",
        lambda m, x: m.signbit(x),
        (np.array([1.0, -0.0, 0.0, -2.0, -np.inf, np.nan], np.float32),),
        False,
    ),
    ("signbit_int", lambda m, x: m.signbit(x), (I,), False),
    (
        "isposinf",
        lambda m, x: m.isposinf(x),
        (np.array([np.inf, -np.inf, 1.0, np.nan], np.float32),),
        False,
    ),
    (
        "isneginf",
        lambda m, x: m.isneginf(x),
        (np.array([np.inf, -np.inf, 1.0, np.nan], np.float32),),
        False,
    ),
    (
        "nan_to_num",
        lambda m, x: m.nan_to_num(x),
        (np.array([np.inf, -np.inf, 1.0, np.nan], np.float32),),
        False,
    ),
    (
        "nan_to_num_values",
        lambda m, x: m.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0),
        (np.array([np.inf, -np.inf, 1.0, np.nan], np.float32),),
        False,
    ),
    (
        "heaviside",
        lambda m, x: m.heaviside(x, 0.5),
        (np.array([-1.0, 0.0, 2.0, np.nan], np.float32),),
        False,
    ),
    ("heaviside_scalar", lambda m, x: m.heaviside(0.0, x), (V,), False),
    ("nextafter", lambda m, x: m.nextafter(x, np.float32(10.0)), (V,), False),
    ("bitwise_and", lambda m, x: m.bitwise_and(x, 6), (I,), False),
    ("bitwise_or", lambda m, x: m.bitwise_or(x, x[::-1]), (I,), False),
    ("bitwise_xor", lambda m, x: m.bitwise_xor(x > 0, x < 3), (I,), False),
    ("bitwise_not", lambda m, x: m.bitwise_not(x), (I,), False),
    ("invert_bool", lambda m, x: m.invert(x > 0), (I,), False),
    ("left_shift", lambda m, x: m.left_shift(x, 2), (I,), False),
    ("right_shift", lambda m, x: m.right_shift(x, 1), (I,), False),
    (
        "right_shift_unsigned",
        lambda m, x: m.right_shift(x, np.uint32(1)),
        (np.array([1, 7, 2**31], np.uint32),),
        False,
    ),
    ("logical_not", lambda m, x: m.logical_not(x), (I,), False),
    ("logical_xor", lambda m, x: m.logical_xor(x, x > 1), (I,), False),
    # sets, comparisons
    ("isin", lambda m, x: m.isin(x, np.array([0, 7, 4])), (I,), False),
    ("isin_invert", lambda m, x: m.isin(x, np.array([0, 7, 4]), invert=True), (I,), False),
    ("union1d", lambda m, x: m.union1d(x, np.array([9, 0, -1])), (I,), False),
    (
        "union1d_size",
        lambda m, x: m.union1d(x, np.array([9, 0]), size=10, fill_value=-7),
        (I,),
        False,
    ),
    ("intersect1d", lambda m, x: m.intersect1d(x, np.array([9, 0, -5, 4])), (I,), False),
    (
        "intersect1d_size",
        lambda m, x: m.intersect1d(x, np.array([9, 0, -5, 4]), size=4, fill_value=-1),
        (I,),
        False,
    ),
    ("setdiff1d", lambda m, x: m.setdiff1d(x, np.array([0, 3, 4])), (I,), False),
    ("setdiff1d_size", lambda m, x: m.setdiff1d(x, np.array([0, 3, 4]), size=7), (I,), False),
    (
        "intersect1d_default_fill",
        lambda m, x: m.intersect1d(x, np.array([7, 2]), size=4),
        (I,),
        False,
    ),
    ("intersect1d_empty_fill", lambda m, x: m.intersect1d(x, np.array([100]), size=2), (I,), False),
    ("lexsort", lambda m, x: m.lexsort((x, x % 3)), (COUNTS,), False),
    ("lexsort_axis", lambda m, x: m.lexsort([x, -x], axis=0), (I,), False),
    ("array_equal", lambda m, x: m.array_equal(x, x), (M,), False),
    ("array_equal_shape", lambda m, x: m.array_equal(x, x[:1]), (M,), False),
    ("array_equal_nan", lambda m, x: m.array_equal(x, x, equal_nan=True), (NANS,), False),
    ("array_equiv", lambda m, x: m.array_equiv(x, x[:1]), (np.ones((3, 4), np.float32),), False),
    # index helpers
    ("broadcast_arrays", lambda m, x: m.broadcast_arrays(x, x[:1], 2.0), (M,), True),
    ("rollaxis", lambda m, x: m.rollaxis(x, 2), (T,), True),
    ("rollaxis_start", lambda m, x: m.rollaxis(x, 0, 3), (T,), True),
    ("ix_", lambda m: m.ix_(np.array([0, 2]), np.array([1, 3, 0])), (), False),
    (
        "unravel_index",
        lambda m, x: m.unravel_index(x, (2, 4)),
        (np.array([0, 5, 7, -1], np.int32),),
        False,
    ),
    (
        "ravel_multi_index",
        lambda m, x: m.ravel_multi_index((x, x[::-1]), (5, 5), mode="clip"),
        (np.array([0, 2, 7], np.int32),),
        False,
    ),
    ("select", lambda m, x: m.select([x < -0.5, x > 0.5], [x, -x], 9.0), (M,), True),
    # rounding and more elementwise
    (
        "floor",
        lambda m, x: m.floor(x),
        (HALVES,),
        False,
    ),
    (
        "ceil",
        lambda m, x: m.ceil(x),
        (HALVES,),
        False,
    ),
    (
        "trunc",
        lambda m, x: m.trunc(x),
        (HALVES,),
        False,
    ),
    (
        "rint",
        lambda m, x: m.rint(x),
        (HALVES,),
        False,
    ),
    ("floor_int", lambda m, x: m.floor(x), (I,), False),
    ("ceil_int", lambda m, x: m.ceil(x), (I,), False),
    ("trunc_int", lambda m, x: m.trunc(x), (I,), False),
    ("rint_int", lambda m, x: m.rint(x), (I,), False),
    ("floor_scalar", lambda m: m.floor(2.5), (), False),
    ("cbrt", lambda m, x: m.cbrt(x), (V,), True),
    ("cbrt_int", lambda m, x: m.cbrt(x), (I,), False),
    ("exp2", lambda m, x: m.exp2(x), (V,), True),
    ("exp2_int", lambda m, x: m.exp2(x), (I,), False),
    ("arctan2", lambda m, x: m.arctan2(x, 1.0), (V,), True),
    ("atan2", lambda m, x: m.atan2(x, x[::-1]), (V,), True),
    ("arctan2_int", lambda m, x: m.arctan2(x, 2), (I,), False),
    ("pow", lambda m, x: m.pow(x, 3), (V,), True),
    ("float_power", lambda m, x: m.float_power(m.abs(x), 1.5), (V,), True),
    ("float_power_int", lambda m, x: m.float_power(x, 2), (I,), False),
    ("fmod", lambda m, x: m.fmod(x, 0.7), (V,), True),
    ("fmod_int", lambda m, x: m.fmod(x, 3), (I,), False),
    ("divmod", lambda m, x: m.divmod(x, 0.7), (V,), False),
    ("divmod_int", lambda m, x: m.divmod(x, 3), (I,), False),
    ("copysign", lambda m, x: m.copysign(x, -1.0), (V,), True),
    ("copysign_arr", lambda m, x: m.copysign(x, x[::-1]), (V,), True),
    ("copysign_int", lambda m, x: m.copysign(x, -1), (I,), False),
    ("hamming", lambda m: m.hamming(7), (), False),
    ("hanning", lambda m: m.hanning(6), (), False),
    ("blackman", lambda m: m.blackman(5), (), False),
    ("bartlett", lambda m: m.bartlett(8), (), False),
    ("window_1", lambda m: m.hamming(1), (), False),
    ("logspace", lambda m: m.logspace(0.0, 2.0, 5), (), False),
    ("logspace_base", lambda m: m.logspace(0.0, 3.0, 4, base=2.0, endpoint=False), (), False),
    ("geomspace", lambda m: m.geomspace(1.0, 1000.0, 4), (), False),
    ("geomspace_neg", lambda m: m.geomspace(-1.0, -16.0, 5), (), False),
    ("pad", lambda m, x: m.pad(x, 2), (V,), True),
    ("pad_widths", lambda m, x: m.pad(x, ((1, 0), (0, 2)), constant_values=7.0), (M,), True),
    ("pad_edge", lambda m, x: m.pad(x, ((1, 2), (2, 1)), mode="edge"), (M,), True),
    ("pad_wrap", lambda m, x: m.pad(x, 3, mode="wrap"), (V,), True),
    ("pad_int", lambda m, x: m.pad(x, 1), (I,), False),
    ("delete", lambda m, x: m.delete(x, 1), (V,), True),
    ("delete_axis", lambda m, x: m.delete(x, np.array([0, 2]), axis=1), (M,), True),
    ("delete_slice", lambda m, x: m.delete(x, slice(1, None, 2)), (M,), True),
    ("resize", lambda m, x: m.resize(x, (4, 4)), (V,), True),
    ("resize_small", lambda m, x: m.resize(x, 5), (M,), True),
    ("polyint", lambda m, x: m.polyint(x), (P,), True),
    ("polyint_k", lambda m, x: m.polyint(x, 2, k=np.array([1.0, 2.0])), (P,), True),
    ("poly", lambda m, x: m.poly(x), (P,), True),
    ("setxor1d", lambda m, x: m.setxor1d(x, np.array([0, 9, 2])), (I,), False),
]


def _leaves(tree: object) -> list:
    return jax.tree_util.tree_leaves(tree)


def _matches(got: object, want: object) -> None:
    got_leaves, want_leaves = didax.tree_util.tree_leaves(got), _leaves(want)
    assert len(got_leaves) == len(want_leaves), (got, want)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert_matches(g, w)


def _loss(case, m, leaves):
    _, fn, args, _ = case

    def f(x):
        out = leaves(fn(m, x, *args[1:]))
        return sum((m.sin(leaf) * (i + 1)).sum() for i, leaf in enumerate(out))

    return f


@pytest.fixture(scope="module")
def oracle() -> JaxOracle:
    """JAX's values and gradients, compiled in chunks (`helpers.oracle`): eagerly, each of
    JAX's operations would be a compile of its own."""
    members = [(("value", c[0]), partial(c[1], jnp), list(c[2])) for c in CASES]
    members += [
        (("grad", c[0]), jax.grad(_loss(c, jnp, _leaves)), [c[2][0]]) for c in CASES if c[3]
    ]
    return JaxOracle.in_chunks(members, 16)


# didax's `jit`s of the cases, 16 to a program (helpers/grouped.py). Checked when grouped
# (2026-11-26): every result has the bits of its own `jit`.
JITTED = Grouped(didax.jit, lambda: [(partial(c[1], dnp), c[2]) for c in CASES], chunk=16)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0] for c in CASES])
def test_value_eager_and_jit(index, oracle):
    case = CASES[index]
    _, fn, args, _ = case
    try:  # under jit as JAX: the same values, or a ConcretizationTypeError where JAX raises one
        want = oracle.get(("value", case[0]))
    except jax.errors.ConcretizationTypeError:
        want = fn(jnp, *args)  # eager JAX, as a user calls it
        _matches(fn(dnp, *args), want)
        with pytest.raises(didax.errors.ConcretizationTypeError):
            JITTED.result(index)
        return
    _matches(fn(dnp, *args), want)
    _matches(JITTED.result(index), want)


@pytest.mark.parametrize("case", [c for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]])
def test_grad(case, oracle):
    want = oracle.get(("grad", case[0]))
    got = didax.grad(_loss(case, dnp, didax.tree_util.tree_leaves))(case[2][0])
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.diff(np.float32(1.0)),
        lambda m: m.split(np.arange(5.0), 2),
        lambda m: m.cumulative_sum(np.ones((2, 2))),
        lambda m: m.bincount(np.ones(3, np.float32)),
        lambda m: m.searchsorted(GRID, 1.0, side="middle"),
        lambda m: m.cross(np.ones(4), np.ones(4)),
        lambda m: m.rot90(M, axes=(0, 0)),
        lambda m: m.dsplit(M, 2),
        lambda m: m.delete(V, [0, 2]),
        lambda m: m.polyint(P, 1, k=[1.0]),
    ],
    ids=[
        "diff0d",
        "split_uneven",
        "cumulative_no_axis",
        "bincount_float",
        "side",
        "cross4",
        "rot90_axes",
        "dsplit_2d",
        "delete_list",
        "polyint_list",
    ],
)
def test_errors_as_jax(call):
    with pytest.raises((ValueError, TypeError, IndexError)) as want:
        call(jnp)
    with pytest.raises(want.type):
        call(dnp)


def test_bincount_and_repeat_need_static_lengths_under_jit():
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jnp.bincount)(COUNTS)
    with pytest.raises(didax.errors.ConcretizationTypeError):
        didax.jit(dnp.bincount)(COUNTS)
    got = didax.jit(lambda x: dnp.bincount(x, length=8))(COUNTS)
    assert_matches(got, jax.jit(lambda x: jnp.bincount(x, length=8))(COUNTS))


def test_vmap_of_statistics():
    for fn in (
        lambda m: lambda x: m.median(x),
        lambda m: lambda x: m.quantile(x, 0.7),
        lambda m: lambda x: m.interp(x, GRID, GRID**2),
        lambda m: lambda x: m.diff(x),
        lambda m: lambda x: m.roll(x, 1),
    ):
        np.testing.assert_allclose(
            np.asarray(didax.vmap(fn(dnp))(M * 2)), jax.vmap(fn(jnp))(M * 2), rtol=1e-5, atol=1e-6
        )


def test_dtype_questions_as_jax():
    for a, b in [
        (np.int32, np.float16),
        (np.float64, np.float32),
        (np.uint8, np.int8),
        ("bfloat16", np.float16),
    ]:
        assert dnp.promote_types(a, b) == jnp.promote_types(a, b)
    for args in [
        (1.0,),
        (np.int8, 2),
        (np.int32, np.float16),
        (dnp.ones(2, dnp.bfloat16), 1.0),
        (np.float64,),
    ]:
        jargs = [jnp.ones(2, jnp.bfloat16) if isinstance(x, didax.Array) else x for x in args]
        assert dnp.result_type(*args) == jnp.result_type(*jargs)
    assert dnp.can_cast(np.int32, np.float32) == jnp.can_cast(np.int32, np.float32)
    assert dnp.finfo(dnp.float32).eps == jnp.finfo(jnp.float32).eps
    assert dnp.finfo(dnp.bfloat16).max == jnp.finfo(jnp.bfloat16).max
    assert dnp.iinfo(dnp.int16).min == jnp.iinfo(jnp.int16).min
    assert dnp.issubdtype(dnp.float32, dnp.floating) and not dnp.issubdtype(dnp.int32, dnp.inexact)
    assert dnp.issubdtype(dnp.bfloat16, dnp.floating) == jnp.issubdtype(jnp.bfloat16, jnp.floating)
    for d, kind in [
        (np.float32, "real floating"),
        (np.int8, "integral"),
        (np.uint8, "signed integer"),
        (np.complex64, ("bool", "complex floating")),
    ]:
        assert dnp.isdtype(d, kind) == jnp.isdtype(d, kind)
    assert dnp.dtype("float32") == jnp.dtype("float32")
    for name in [
        "uint32",
        "uint16",
        "int16",
        "bfloat16",
        "float_",
        "int_",
        "uint",
        "double",
        "single",
        "bool",
    ]:
        got, want = getattr(dnp, name)(3), getattr(jnp, name)(3)
        assert got.dtype == want.dtype and np.asarray(got) == np.asarray(want), name


def test_scalar_questions_as_jax():
    for x in [1.0, np.float32(1), np.ones(()), [1], np.ones(3), 3]:
        assert dnp.isscalar(x) == jnp.isscalar(x), x
    assert dnp.isscalar(dnp.ones(())) and not dnp.isscalar(dnp.ones(2))
    assert dnp.iterable([1]) == jnp.iterable([1]) and dnp.iterable(2.0) == jnp.iterable(2.0)
    assert dnp.size(M) == jnp.size(M) and dnp.size(M, 1) == jnp.size(M, 1)
