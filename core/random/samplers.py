"""The samplers: `uniform normal truncated_normal bernoulli exponential gumbel categorical
randint permutation choice gamma loggamma dirichlet beta`. Like `jax.random`'s.

Layer 5 (`didax.random`, after `prng`). Each turns `prng`'s hashed bits into its
distribution with bit operations, as JAX 0.10.2 does. The samplers are jitted functions with
JAX's names (`_uniform`, `_normal`, `_randint`, ...): jaxprs show JAX's `jit[name=_uniform]`
equations, and an eager call runs the compiled program, as JAX's does, so float draws are
XLA's arithmetic (its `log`, its fused multiply-adds) and equal JAX's bit for bit. Under
`jax_enable_x64`, 64-bit draws take both hash words side by side, as JAX's. Not here:
`poisson`, `binomial`, `multinomial`, `orthogonal` (the other samplers are in
`distributions`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
from didax import core, dtypes, lax
from didax import numpy as jnp
from didax.api import vmap as didax_vmap
from didax.control_flow.scan import scan as control_flow_scan
from didax.numpy import stable
from didax.numpy.axis_args import shape_tuple
from didax.primitives import bit_counts as _bit_counts
from didax.primitives import bits as _bits
from didax.primitives import sorting as _sort
from didax.primitives import special as _special
from didax.random.prng import (
    _UINT,
    _key_data_of,
    _named_jit,
    _random_bits,
    split,
)


def _float_dtype(name: str, dtype: Any) -> np.dtype:
    dtype = dtypes.default_float() if dtype is None else dtypes.canonicalize(dtype)
    if not dtypes.is_float(dtype):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def _broadcast_to_rank(x: Any, rank: int) -> Any:
    ndim = core.get_aval(x).ndim
    return (
        x
        if ndim == rank
        else lax.broadcast_in_dim(
            x, (1,) * (rank - ndim) + core.get_aval(x).shape, tuple(range(rank - ndim, rank))
        )
    )


def _uniform_body(data: Any, minval: Any, maxval: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval = _broadcast_to_rank(minval, len(shape))
    maxval = _broadcast_to_rank(maxval, len(shape))
    finfo = ml_dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
    uint = _UINT[nbits]
    r = _random_bits(data, rng_bits, shape)
    if rng_bits != nbits:
        r = lax.convert_element_type(r, uint)
    # random mantissa bits under the exponent of 1.0 give a float in [1, 2); minus one
    float_bits = _bits.shift_right_logical(r, np.array(rng_bits - nmant, uint))
    float_bits = lax.bitwise_or(float_bits, np.array(1.0, dtype).view(uint))
    floats = lax.sub(_bits.bitcast_convert_type(float_bits, dtype), np.array(1.0, dtype))
    return lax.max(minval, lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval))


_uniform = _named_jit(_uniform_body, "_uniform", (3, 4))


def uniform(
    key: Any, shape: Sequence[int] = (), dtype: Any = None, minval: Any = 0.0, maxval: Any = 1.0
) -> Any:
    """Uniform floats in [minval, maxval). Like `jax.random.uniform`."""
    data, _ = _key_data_of("uniform", key)
    return _uniform(data, minval, maxval, shape_tuple(shape), _float_dtype("uniform", dtype))


# ----------------------------------------------------------------------------- distributions


def _normal_real_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(data, lo, np.array(1.0, dtype), shape, dtype)
    return lax.mul(np.array(np.sqrt(2), dtype), _special.erf_inv(u))


_normal_real = _named_jit(_normal_real_body, "_normal_real", (1, 2))
_normal = _named_jit(lambda data, shape, dtype: _normal_real(data, shape, dtype), "_normal", (1, 2))


def normal(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard normal floats. Like `jax.random.normal` (real dtypes)."""
    data, _ = _key_data_of("normal", key)
    return _normal(data, shape_tuple(shape), _float_dtype("normal", dtype))


def _truncated_normal_body(
    data: Any, lower: Any, upper: Any, shape: tuple[int, ...] | None, dtype: Any
) -> Any:
    if shape is None:
        shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = _special.erf(lax.div(lower, sqrt2))
    b = _special.erf(lax.div(upper, sqrt2))
    out = lax.mul(sqrt2, _special.erf_inv(_uniform(data, a, b, tuple(shape), dtype)))
    # clamp into the open interval (lower, upper): rounding may reach its ends
    low = _special.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype))
    high = _special.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype))
    return jnp.clip(out, low, high)


_truncated_normal = _named_jit(_truncated_normal_body, "_truncated_normal", (3, 4))


def truncated_normal(
    key: Any, lower: Any, upper: Any, shape: Sequence[int] | None = None, dtype: Any = None
) -> Any:
    """Normal floats truncated to (lower, upper). Like `jax.random.truncated_normal`."""
    data, _ = _key_data_of("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    shape = None if shape is None else shape_tuple(shape)
    return _truncated_normal(data, lower, upper, shape, dtype)


def _bernoulli_body(data: Any, p: Any, shape: tuple[int, ...] | None, mode: str = "low") -> Any:
    dtype = core.get_aval(p).dtype
    shape = core.get_aval(p).shape if shape is None else shape
    if mode == "high":  # a second uniform below the first's resolution, as JAX's
        u1, u2 = _uniform(data, 0.0, 1.0, (2, *shape), dtype)
        u2 = jnp.multiply(u2, 2.0 ** -ml_dtypes.finfo(dtype).nmant)
        return jnp.less(u2, jnp.subtract(p, u1))
    return lax.lt(_uniform(data, 0.0, 1.0, shape, dtype), p)


_bernoulli = _named_jit(_bernoulli_body, "_bernoulli", (2, 3))


def bernoulli(key: Any, p: Any = 0.5, shape: Sequence[int] | None = None, mode: str = "low") -> Any:
    """Random booleans, true with probability `p`. Like `jax.random.bernoulli` (mode "high"
    resolves probabilities below 2**-23, as JAX's)."""
    data, _ = _key_data_of("bernoulli", key)
    dtype = core.get_aval(p).dtype
    if not dtypes.is_float(dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}; expected 'high' or 'low'")
    p = lax.convert_element_type(p, dtype)
    return _bernoulli(data, p, None if shape is None else shape_tuple(shape), mode)


def _exponential_body(data: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    u = _uniform(data, 0.0, 1.0, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))  # -log(1 - u): log's argument in (0, 1]


_exponential = _named_jit(_exponential_body, "_exponential", (1, 2))


def exponential(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard exponential floats. Like `jax.random.exponential`."""
    data, _ = _key_data_of("exponential", key)
    return _exponential(data, shape_tuple(shape), _float_dtype("exponential", dtype))


def _safe_int_to_float(bits: Any) -> Any:
    # two uint32 words as one float32 in (0, 1): leading zeros set the exponent (JAX's
    # `_safe_int_to_float`, for gumbel's mode="highest")
    u32 = np.dtype(np.uint32)
    c = lambda v: np.array(v, u32)  # noqa: E731
    finfo = ml_dtypes.finfo(np.float32)
    clz = _bit_counts.clz(bits)
    hiclz, loclz, hi, lo = clz[0], clz[1], bits[0], bits[1]
    hi_is_zero = jnp.equal(hiclz, 32)
    low_part = jnp.where(
        hi_is_zero,
        _bits.shift_left(lo, loclz),
        _bits.shift_right_logical(lo, jnp.subtract(c(finfo.bits), hiclz)),
    )
    mantissa = lax.bitwise_or(_bits.shift_left(hi, hiclz), low_part)
    mantissa = _bits.shift_right_logical(mantissa, c(finfo.bits - finfo.nmant - 1))
    mantissa = lax.bitwise_and(mantissa, c((1 << finfo.nmant) - 1))
    lead = jnp.where(hi_is_zero, jnp.add(32, loclz), hiclz)
    exp = _bits.shift_left(jnp.subtract(-finfo.minexp, lead), c(finfo.nmant))
    exp = lax.bitwise_and(exp, c((1 << (finfo.bits - 2)) - (1 << (finfo.nmant - 1))))
    return _bits.bitcast_convert_type(lax.bitwise_or(exp, mantissa), np.dtype(np.float32))


def _gumbel_body(data: Any, shape: tuple[int, ...], dtype: Any, mode: str) -> Any:
    finfo = ml_dtypes.finfo(dtype)
    if dtype == np.float32 and mode == "highest":
        u32 = np.dtype(np.uint32)
        bits = _random_bits(data, finfo.bits, (2, *shape))
        neg = lax.bitwise_not(bits)
        carry = lax.convert_element_type(jnp.equal(neg[1], np.array(0xFFFFFFFF, u32)), u32)
        neg = jnp.add(neg, jnp.stack([carry, jnp.ones_like(neg[1])]))  # 1 - bits, u64 fixed point
        flip = jnp.less(bits[0], np.array(1 << (finfo.bits - 1), u32))
        x = _safe_int_to_float(jnp.where(flip, bits, neg))
        # log1p for (0, 0.5), log for [0.5, 1)
        return jnp.where(
            flip,
            jnp.negative(jnp.log(jnp.negative(jnp.log1p(jnp.negative(x))))),
            jnp.negative(jnp.log(jnp.negative(jnp.log(x)))),
        )
    if mode in ("high", "highest"):  # two uniforms: 2 * nmant random bits below 0.5
        high, low = _uniform(data, 0.0, 1.0, (2, *shape), dtype)
        small = jnp.add(jnp.add(high, jnp.multiply(2.0**-finfo.nmant, low)), finfo.tiny)
        x = jnp.where(jnp.greater_equal(high, 0.5), high, small)
        return jnp.negative(jnp.log(jnp.negative(jnp.log1p(jnp.negative(x)))))
    u = _uniform(data, finfo.tiny, 1.0, shape, dtype)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


_gumbel = _named_jit(_gumbel_body, "_gumbel", (1, 2, 3))


def gumbel(key: Any, shape: Sequence[int] = (), dtype: Any = None, mode: str | None = None) -> Any:
    """Standard Gumbel floats. Like `jax.random.gumbel` (mode "low" by default; "high" and
    "highest" spend more random bits on values near 0, as JAX's)."""
    data, _ = _key_data_of("gumbel", key)
    dtype = _float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel(data, shape_tuple(shape), dtype, mode)


def categorical(
    key: Any,
    logits: Any,
    axis: int = -1,
    shape: Sequence[int] | None = None,
    replace: bool = True,
    mode: str | None = None,
) -> Any:
    """Indices drawn from categorical distributions: Gumbel-max with replacement, Gumbel
    top-k without; `mode` is gumbel's. Like `jax.random.categorical`."""
    data, _ = _key_data_of("categorical", key)
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    logits = jnp.asarray(logits)
    dtype = core.get_aval(logits).dtype
    lshape = core.get_aval(logits).shape
    ndim = len(lshape)
    batch_shape = tuple(np.delete(lshape, axis))
    shape = batch_shape if shape is None else shape_tuple(shape)
    prefix = shape[: len(shape) - len(batch_shape)]
    if not replace:
        return _categorical_no_replace(data, logits, axis % ndim, shape, prefix, mode)
    if axis >= 0:
        axis -= ndim
    logits_shape = list(shape[len(shape) - len(batch_shape) :])
    logits_shape.insert(axis % ndim, lshape[axis])
    g = _gumbel(data, (*prefix, *logits_shape), dtype, mode)
    expanded = lax.expand_dims(logits, tuple(range(len(prefix)))) if prefix else logits
    return jnp.argmax(jnp.add(g, expanded), axis=axis)


def _categorical_no_replace(
    data: Any,
    logits: Any,
    axis: int,
    shape: tuple[int, ...],
    prefix: tuple[int, ...],
    mode: str,
) -> Any:
    aval = core.get_aval(logits)
    perturbed = lax.add(logits, _gumbel(data, aval.shape, aval.dtype, mode))
    k = math.prod(prefix)
    if k > aval.shape[axis]:
        raise ValueError(
            f"Number of samples without replacement ({k}) cannot exceed number of "
            f"categories ({aval.shape[axis]})."
        )
    # top-k along the last axis: a stable sort of the negated values, ties to the lower index
    perm = tuple(i for i in range(aval.ndim) if i != axis) + (axis,)
    moved = perturbed if perm == tuple(range(aval.ndim)) else lax.transpose(perturbed, perm)
    mshape = core.get_aval(moved).shape
    iota = lax.broadcasted_iota(dtypes.int32, mshape, len(mshape) - 1)
    _, order = _sort.sort_key_val(lax.neg(moved), iota, len(mshape) - 1)
    start, limit = [0] * len(mshape), list(mshape)
    limit[-1] = k
    indices = lax.slice(order, start, limit)
    nd = len(mshape)
    return lax.reshape(indices, shape, (nd - 1, *range(nd - 1)))


def _randint_span(minval: Any, maxval: Any, dtype: np.dtype) -> tuple[Any, Any]:
    info = np.iinfo(dtype)
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.is_int(core.get_aval(minval).dtype):
        minval = minval.astype(dtypes.int32)
    if not dtypes.is_int(core.get_aval(maxval).dtype):
        maxval = maxval.astype(dtypes.int32)
    return minval, maxval, info


def _clip_to(x: Any, dtype: np.dtype) -> Any:
    # convert integers, clipping to dtype's range instead of wrapping
    src = core.get_aval(x).dtype
    lo = max(int(np.iinfo(dtype).min), int(np.iinfo(src).min))
    hi = min(int(np.iinfo(dtype).max), int(np.iinfo(src).max))
    if not core.get_aval(x).weak_type:  # bounds of x's type: weak for a weak x, as JAX's
        lo, hi = np.array(lo, src), np.array(hi, src)
    return jnp.clip(x, lo, hi).astype(dtype)


def _randint_body(data: Any, minval: Any, maxval: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    # 2 x n random bits per value (n = 32, or 64 for int64), reduced modulo the span
    minval, maxval, info = _randint_span(minval, maxval, dtype)
    too_big = lax.gt(
        maxval, _clip_to(jnp.asarray(np.array(info.max, dtype)), core.get_aval(maxval).dtype)
    )
    minval, maxval = _clip_to(minval, dtype), _clip_to(maxval, dtype)
    minval, maxval = _broadcast_to_rank(minval, len(shape)), _broadcast_to_rank(maxval, len(shape))
    keys = split(data)
    k1, k2 = keys[0], keys[1]
    nbits = info.bits  # 32, or 64 under x64
    unsigned = _UINT[nbits]
    higher, lower = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    one = np.array(1, unsigned)
    # select_n(pred, on_false, on_true), as JAX's `lax.select`
    span = lax.select_n(
        lax.le(maxval, minval), span, lax.full(core.get_aval(span).shape, 1, unsigned)
    )
    span = lax.select_n(lax.bitwise_and(too_big, lax.gt(maxval, minval)), span, lax.add(span, one))
    multiplier = lax.rem(np.array(2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


_randint = _named_jit(_randint_body, "_randint", (3, 4))


def randint(key: Any, shape: Sequence[int], minval: Any, maxval: Any, dtype: Any = int) -> Any:
    """Uniform integers in [minval, maxval). Like `jax.random.randint` (int64 under x64)."""
    data, _ = _key_data_of("randint", key)
    shape = shape_tuple(shape)
    dtype = dtypes.canonicalize(dtype)
    if not dtypes.is_int(dtype):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    out_dtype = dtype
    info = np.iinfo(dtype)
    if info.bits < 32:  # sampled in 32 bits, as JAX does
        minval = jnp.clip(jnp.asarray(minval).astype(dtypes.int32), int(info.min), int(info.max))
        maxval = jnp.clip(
            jnp.asarray(maxval).astype(dtypes.int32), int(info.min), int(info.max) + 1
        )
        dtype = dtypes.int32
    out = _randint(data, minval, maxval, shape, dtype)
    return out if out_dtype == dtype else out.astype(out_dtype)


# ----------------------------------------------------------------------------- shuffles


def _shuffle_body(data: Any, x: Any, axis: int) -> Any:
    # Sort by fresh random 32-bit keys, enough rounds to make key collisions unlikely (JAX's
    # count)
    x_shape = core.get_aval(x).shape
    size = math.prod(x_shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        keys = split(data)
        data, subkey = keys[0], keys[1]
        sort_keys = _random_bits(subkey, 32, x_shape)
        _, x = _sort.sort_key_val(sort_keys, x, axis)
    return x


_shuffle = _named_jit(_shuffle_body, "_shuffle", (2,))


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Any:
    """A shuffled `arange(x)` or a shuffle of `x` along `axis`. Like `jax.random.permutation`."""
    data, _ = _key_data_of("permutation", key)
    if not np.ndim(x):
        if not dtypes.is_int(core.get_aval(x).dtype):
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = int(core.concrete_or_error(x, "argument x of jax.random.permutation()"))
        return _shuffle(data, jnp.arange(n), 0)
    x = jnp.asarray(x)
    ndim = core.get_aval(x).ndim
    axis = axis + ndim if axis < 0 else axis
    if independent or ndim == 1:
        return _shuffle(data, x, axis)
    ind = _shuffle(data, jnp.arange(core.get_aval(x).shape[axis]), 0)  # rows move whole
    return jnp.take(x, ind, axis, unique_indices=True)


def choice(
    key: Any,
    a: Any,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: Any = None,
    axis: int = 0,
    mode: str | None = None,
) -> Any:
    """A random sample of `a` (or `arange(a)`), uniform or with probabilities `p`. Like
    `jax.random.choice` (`mode` is gumbel's, for `p` without replacement)."""
    data, _ = _key_data_of("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    arr = jnp.asarray(a)
    aval = core.get_aval(arr)
    if aval.ndim == 0:
        n_inputs = int(core.concrete_or_error(a, "The error occurred in jax.random.choice()"))
    else:
        axis = axis + aval.ndim if axis < 0 else axis
        n_inputs = aval.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(tuple(shape), dtype=aval.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than "
            f"population (size {n_inputs}) when 'replace=False'"
        )
    if p is None and replace:
        ind = randint(data, shape, 0, n_inputs)
        result = ind if aval.ndim == 0 else jnp.take(arr, ind, axis)
    elif p is None:
        perm = permutation(data, n_inputs if aval.ndim == 0 else arr, axis)
        index = (slice(None),) * axis + (slice(0, n_draws),)
        result = perm[index]
    else:
        mode = "low" if mode is None else mode
        ind = _choice_p_indices(
            data, jnp.asarray(p), n_inputs, n_draws, tuple(shape), replace, mode
        )
        result = ind if aval.ndim == 0 else jnp.take(arr, ind, axis)
    out_shape = (
        tuple(shape)
        if aval.ndim == 0
        else aval.shape[:axis] + tuple(shape) + aval.shape[axis + 1 :]
    )
    return jnp.reshape(result, out_shape)


def _choice_p_indices(
    data: Any,
    p: Any,
    n_inputs: int,
    n_draws: int,
    shape: tuple[int, ...],
    replace: bool,
    mode: str,
) -> Any:
    p_aval = core.get_aval(p)
    if not dtypes.is_float(p_aval.dtype):
        p = lax.convert_element_type(p, dtypes.float32)
        p_aval = core.get_aval(p)
    if p_aval.shape != (n_inputs,):
        raise ValueError(
            "p must be None or a 1D vector with the same size as a.shape[axis]. "
            f"p has shape {p_aval.shape} and a.shape[axis] is {n_inputs}."
        )
    if replace:
        # inverse CDF: the first index whose running total reaches r
        _, p_cuml = control_flow_scan(
            lambda c, v: (lax.add(c, v), lax.add(c, v)), np.array(0, p_aval.dtype), p
        )
        total = p_cuml[n_inputs - 1]
        u = _uniform(data, 0.0, 1.0, shape, p_aval.dtype)
        r = lax.mul(total, lax.sub(np.array(1, p_aval.dtype), u))
        r = lax.broadcast_in_dim(r, (*shape, n_inputs), tuple(range(len(shape))))
        below = lax.lt(lax.broadcast_in_dim(p_cuml, (*shape, n_inputs), (len(shape),)), r)
        return jnp.sum(lax.convert_element_type(below, dtypes.int32), axis=-1)
    # Gumbel top-k: the n_draws largest of gumbel + log p (ties: the lower index first)
    g = lax.add(_gumbel(data, (n_inputs,), p_aval.dtype, mode), lax.log(p))
    _, order = _sort.sort_key_val(lax.neg(g), lax.iota(dtypes.int32, n_inputs))
    return lax.slice(order, (0,), (n_draws,))


# ----------------------------------------------------------------------------- gamma, dirichlet


def _gamma_one(data: Any, alpha: Any, log_space: bool) -> Any:
    # Marsaglia & Tsang, "A simple method for generating gamma variables" (2000), drawn as
    # JAX draws it (same key splits, same loops), so the samples are JAX's
    dtype = core.get_aval(alpha).dtype

    def const(v: float) -> Any:
        return np.array(v, dtype)

    zero, one, minus_one = const(0), const(1), const(-1)
    # alpha < 1 is boosted to alpha + 1: Gamma(alpha) ~ Gamma(alpha + 1) * U^(1 / alpha)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select_n(boost_mask, lax.add(alpha, one), alpha)
    d = lax.sub(alpha, const(1.0 / 3.0))
    c = lax.div(const(1.0 / 3.0), lax.sqrt(d))

    def cond_fn(state: tuple) -> Any:
        _, x, v, u = state
        squeeze = lax.ge(u, lax.sub(one, lax.mul(const(0.0331), lax.mul(x, x))))
        log_test = lax.ge(
            lax.log(u),
            lax.add(lax.mul(x, const(0.5)), lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))),
        )
        return lax.bitwise_and(squeeze, log_test)

    def next_xv(state: tuple) -> tuple:
        keys = split(state[0])
        x = _normal(keys[1], (), dtype)
        return keys[0], x, lax.add(one, lax.mul(x, c))

    def body_fn(state: tuple) -> tuple:
        keys = split(state[0], 3)
        _, x, v = lax.while_loop(lambda s: lax.le(s[2], zero), next_xv, (keys[1], zero, minus_one))
        u = _uniform(keys[2], 0.0, 1.0, (), dtype)
        return keys[0], lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    keys = split(data)
    _, _, v, _ = lax.while_loop(cond_fn, body_fn, (keys[0], zero, one, const(2)))
    subkey = keys[1]
    if log_space:
        log_samples = lax.neg(_exponential(subkey, (), dtype))
        skip = lax.bitwise_or(boost_mask, lax.eq(log_samples, zero))
        log_boost = lax.select_n(skip, lax.mul(log_samples, lax.div(one, alpha_orig)), zero)
        return lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
    samples = lax.sub(one, _uniform(subkey, 0.0, 1.0, (), dtype))
    boost = lax.select_n(boost_mask, lax.pow(samples, lax.div(one, alpha_orig)), one)
    return lax.mul(lax.mul(d, v), boost)


def _gamma_body(
    data: Any, a: Any, shape: tuple[int, ...] | None, dtype: Any, log_space: bool
) -> Any:
    shape = core.get_aval(a).shape if shape is None else shape
    a = lax.convert_element_type(a, dtype)
    if core.get_aval(a).shape != shape:
        a = jnp.broadcast_to(a, shape)
    # one key per sample, split from the key as JAX's `random_gamma` does
    keys = jnp.reshape(split(data, math.prod(shape)), (-1, 2))
    alphas = jnp.reshape(a, (-1,))
    samples = didax_vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, alphas)
    return jnp.reshape(samples, shape)


_gamma = _named_jit(_gamma_body, "_gamma", (2, 3, 4))


def gamma(key: Any, a: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Gamma(a) floats. Like `jax.random.gamma`."""
    data, _ = _key_data_of("gamma", key)
    dtype = _float_dtype("gamma", dtype)
    return _gamma(data, a, None if shape is None else shape_tuple(shape), dtype, False)


def loggamma(key: Any, a: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """The log of Gamma(a) floats, computed in log space. Like `jax.random.loggamma`."""
    data, _ = _key_data_of("loggamma", key)
    dtype = _float_dtype("loggamma", dtype)
    return _gamma(data, a, None if shape is None else shape_tuple(shape), dtype, True)


def _dirichlet_body(data: Any, alpha: Any, shape: tuple[int, ...] | None, dtype: Any) -> Any:
    alpha_shape = core.get_aval(alpha).shape
    if not alpha_shape:
        raise ValueError(
            f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(alpha_shape)}"
        )
    shape = alpha_shape[:-1] if shape is None else shape
    alpha = lax.convert_element_type(alpha, dtype)
    # in log space: small alphas would underflow
    log_samples = _gamma(data, alpha, (*shape, alpha_shape[-1]), dtype, True)
    return stable.softmax(log_samples, -1)


_dirichlet = _named_jit(_dirichlet_body, "_dirichlet", (2, 3))


def dirichlet(key: Any, alpha: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Dirichlet(alpha) vectors along the last axis. Like `jax.random.dirichlet`."""
    data, _ = _key_data_of("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    return _dirichlet(data, alpha, None if shape is None else shape_tuple(shape), dtype)


def _beta_body(data: Any, a: Any, b: Any, shape: tuple[int, ...] | None, dtype: Any) -> Any:
    if shape is None:
        shape = np.broadcast_shapes(core.get_aval(a).shape, core.get_aval(b).shape)
    a = lax.convert_element_type(a, dtype)
    b = lax.convert_element_type(b, dtype)
    keys = split(data)
    a, b = jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape)
    log_gamma_a = _gamma(keys[0], a, shape, dtype, True)
    log_gamma_b = _gamma(keys[1], b, shape, dtype, True)
    # gamma_a / (gamma_a + gamma_b), scaled by the larger so nothing underflows
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = jnp.exp(jnp.subtract(log_gamma_a, log_max))
    gamma_b_scaled = jnp.exp(jnp.subtract(log_gamma_b, log_max))
    return jnp.divide(gamma_a_scaled, jnp.add(gamma_a_scaled, gamma_b_scaled))


_beta = _named_jit(_beta_body, "_beta", (3, 4))


def beta(key: Any, a: Any, b: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Beta(a, b) floats. Like `jax.random.beta`."""
    data, _ = _key_data_of("beta", key)
    dtype = _float_dtype("beta", dtype)
    return _beta(data, a, b, None if shape is None else shape_tuple(shape), dtype)
