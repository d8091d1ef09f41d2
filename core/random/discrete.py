"""The counting samplers of `jax.random`: `poisson` (Knuth's product of uniforms below
lambda 10, the PTRS transformed rejection above), `binomial` (geometric inversion for small
means, BTRS rejection otherwise) and `multinomial` (a `scan` of binomials over the
categories).

Layer 5 (`didax.random`, after `distributions`). JAX 0.10.2's algorithms step for step: the
same `while_loop`s, the same key splits in their bodies, the same uniforms, so the same key
gives JAX's counts (Hörmann, "The transformed rejection method for generating Poisson random
variables", 1993; Kachitvichyanukul and Schmeiser, "Binomial random variate generation",
1988).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, dtypes, lax
from didax import numpy as jnp
from didax.control_flow.scan import scan
from didax.control_flow.while_loop import while_loop
from didax.numpy.axis_args import shape_tuple
from didax.random.prng import _eager_jit, _key_data_of, _named_jit, split
from didax.random.samplers import _uniform

__all__ = ["binomial", "multinomial", "poisson"]

_F32 = np.dtype(np.float32)


def _isnan(x: Any) -> Any:
    return lax.ne(x, x)


# ----------------------------------------------------------------------------- poisson


def _poisson_knuth_body(data, lam, shape, dtype, max_iters):  # noqa: ANN001, ANN202
    def body(carry):  # noqa: ANN001, ANN202
        i, k, rng, log_prod = carry
        rng, subkey = split(rng)
        k = lax.select(jnp.greater(log_prod, jnp.negative(lam)), jnp.add(k, 1), k)
        u = _uniform(subkey, 0.0, 1.0, shape, _F32)
        return jnp.add(i, 1), k, rng, jnp.add(log_prod, jnp.log(u))

    def cond(carry):  # noqa: ANN001, ANN202
        i, log_prod = carry[0], carry[3]
        going = jnp.any(jnp.greater(log_prod, jnp.negative(lam)))
        return jnp.logical_and(going, jnp.less(i, max_iters))

    k_init = lax.full_like(lam, 0, dtype, shape)
    log_rate_init = lax.full_like(lam, 0, _F32, shape)
    k = while_loop(cond, body, (0, k_init, data, log_rate_init))[1]
    return lax.convert_element_type(jnp.subtract(k, 1), dtype)


_poisson_knuth = _named_jit(_poisson_knuth_body, "_poisson_knuth", (2, 3, 4))


def _poisson_rejection_body(data, lam, shape, dtype, max_iters):  # noqa: ANN001, ANN202
    m, a_, s_, d = jnp.multiply, jnp.add, jnp.subtract, jnp.divide
    log_lam = lax.log(lam)
    b = a_(0.931, m(2.53, lax.sqrt(lam)))
    a = a_(-0.059, m(0.02483, b))
    inv_alpha = a_(1.1239, d(1.1328, s_(b, 3.4)))
    v_r = s_(0.9277, d(3.6224, s_(b, 2)))
    ldtype = core.get_aval(lam).dtype

    def body(carry):  # noqa: ANN001, ANN202
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split(key, 3)
        u = s_(_uniform(subkey_0, 0.0, 1.0, shape, ldtype), 0.5)
        v = _uniform(subkey_1, 0.0, 1.0, shape, ldtype)
        u_shifted = s_(0.5, jnp.abs(u))
        k = lax.floor(a_(a_(m(a_(d(m(2, a), u_shifted), b), u), lam), 0.43))
        s = lax.log(d(m(v, inv_alpha), a_(d(a, m(u_shifted, u_shifted)), b)))
        t = s_(a_(jnp.negative(lam), m(k, log_lam)), lax.lgamma(a_(k, 1)))
        accept1 = jnp.logical_and(jnp.greater_equal(u_shifted, 0.07), jnp.less_equal(v, v_r))
        reject = jnp.logical_or(
            jnp.less(k, 0), jnp.logical_and(jnp.less(u_shifted, 0.013), jnp.greater(v, u_shifted))
        )
        accept2 = jnp.less_equal(s, t)
        accept = jnp.logical_or(accept1, jnp.logical_and(jnp.logical_not(reject), accept2))
        k_out = lax.select(accept, k, k_out)
        return jnp.add(i, 1), k_out, jnp.logical_or(accepted, accept), key

    def cond(carry):  # noqa: ANN001, ANN202
        i, _, accepted, _ = carry
        return jnp.logical_and(jnp.any(jnp.logical_not(accepted)), jnp.less(i, max_iters))

    k_init = lax.full_like(lam, -1, ldtype, shape)
    accepted = lax.full_like(lam, False, np.dtype(bool), shape)
    k = while_loop(cond, body, (0, k_init, accepted, data))[1]
    return lax.convert_element_type(k, dtype)


_poisson_rejection = _named_jit(_poisson_rejection_body, "_poisson_rejection", (2, 3, 4))


def _poisson_body(data: Any, lam: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    use_knuth = jnp.logical_or(_isnan(lam), jnp.less(lam, 10))
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = dtype.type(np.iinfo(dtype).max)  # as JAX: never reached
    result = lax.select(
        use_knuth,
        _poisson_knuth(data, lam_knuth, shape, dtype, max_iters),
        _poisson_rejection(data, lam_rejection, shape, dtype, max_iters),
    )
    return lax.select(jnp.equal(lam, 0), jnp.zeros_like(result), result)


_poisson = _named_jit(_poisson_body, "_poisson", (2, 3))


def poisson(key: Any, lam: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Poisson(lam) counts. Like `jax.random.poisson`."""
    data, _ = _key_data_of("poisson", key)
    dtype = dtypes.canonicalize(np.dtype(int) if dtype is None else dtype)
    shape = np.shape(lam) if shape is None else shape_tuple(shape)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), _F32)
    return _poisson(data, lam, shape, dtype)


# ----------------------------------------------------------------------------- binomial

_STIRLING_TAIL = np.array(
    [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ]
)


def _stirling_approx_tail(k: Any) -> Any:
    dtype = core.get_aval(k).dtype
    tail = jnp.array(_STIRLING_TAIL, dtype=dtype)
    use_tail = jnp.less_equal(k, 9)
    k = lax.clamp(np.array(0.0, dtype), k, np.array(9.0, dtype))
    kp1sq = jnp.multiply(jnp.add(k, 1), jnp.add(k, 1))
    inner = jnp.subtract(1.0 / 360, jnp.divide(1.0 / 1260, kp1sq))
    approx = jnp.divide(jnp.subtract(1.0 / 12, jnp.divide(inner, kp1sq)), jnp.add(k, 1))
    k = jnp.floor(k)
    return lax.select(use_tail, tail[jnp.asarray(k, dtype="int32")], approx)


def _binomial_inversion_body(data, count, prob, shape, dtype, max_iters):  # noqa: ANN001, ANN202
    log1minusprob = jnp.log1p(jnp.negative(prob))
    pdtype = core.get_aval(prob).dtype

    def body(carry):  # noqa: ANN001, ANN202
        i, num_geom, geom_sum, key = carry
        subkey, key = split(key)
        num_geom_out = lax.select(jnp.less_equal(geom_sum, count), jnp.add(num_geom, 1), num_geom)
        u = _uniform(subkey, 0.0, 1.0, shape, pdtype)
        geom = jnp.ceil(jnp.divide(jnp.log(u), log1minusprob))
        return jnp.add(i, 1), num_geom_out, jnp.add(geom_sum, geom), key

    def cond(carry):  # noqa: ANN001, ANN202
        i, geom_sum = carry[0], carry[2]
        going = jnp.any(jnp.less_equal(geom_sum, count))
        return jnp.logical_and(going, jnp.less(i, max_iters))

    num_geom_init = lax.full_like(prob, 0, pdtype, shape)
    geom_sum_init = lax.full_like(prob, 0, pdtype, shape)
    k = while_loop(cond, body, (0, num_geom_init, geom_sum_init, data))[1]
    return lax.convert_element_type(jnp.subtract(k, 1), dtype)


_binomial_inversion = _eager_jit(_binomial_inversion_body, "_binomial_inversion", (3, 4, 5))


def _btrs_body(data, count, prob, shape, dtype, max_iters):  # noqa: ANN001, ANN202
    m_, a_, s_, d_ = jnp.multiply, jnp.add, jnp.subtract, jnp.divide
    log = jnp.log
    pdtype = core.get_aval(prob).dtype
    stddev = jnp.sqrt(m_(m_(count, prob), s_(1, prob)))
    b = a_(1.15, m_(2.53, stddev))
    a = a_(a_(-0.0873, m_(0.0248, b)), m_(0.01, prob))
    c = a_(m_(count, prob), 0.5)
    v_r = s_(0.92, d_(4.2, b))
    r = d_(prob, s_(1, prob))
    alpha = m_(a_(2.83, d_(5.1, b)), stddev)
    m = jnp.floor(m_(a_(count, 1), prob))

    def body(carry):  # noqa: ANN001, ANN202
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split(key, 3)
        u = _uniform(subkey_0, 0.0, 1.0, shape, pdtype)
        v = _uniform(subkey_1, 0.0, 1.0, shape, pdtype)
        u = s_(u, 0.5)
        us = s_(0.5, jnp.abs(u))
        accept1 = jnp.logical_and(jnp.greater_equal(us, 0.07), jnp.less_equal(v, v_r))
        k = jnp.floor(a_(m_(a_(d_(m_(2, a), us), b), u), c))
        reject = jnp.logical_or(jnp.less(k, 0), jnp.greater(k, count))
        v = log(d_(m_(v, alpha), a_(d_(a, m_(us, us)), b)))
        ub = a_(
            a_(
                a_(
                    m_(a_(m, 0.5), log(d_(a_(m, 1), m_(r, a_(s_(count, m), 1))))),
                    m_(a_(count, 1), log(d_(a_(s_(count, m), 1), a_(s_(count, k), 1)))),
                ),
                m_(a_(k, 0.5), log(d_(m_(r, a_(s_(count, k), 1)), a_(k, 1)))),
            ),
            s_(
                a_(_stirling_approx_tail(m), _stirling_approx_tail(s_(count, m))),
                a_(_stirling_approx_tail(k), _stirling_approx_tail(s_(count, k))),
            ),
        )
        accept2 = jnp.less_equal(v, ub)
        accept = jnp.logical_or(accept1, jnp.logical_and(jnp.logical_not(reject), accept2))
        k_out = lax.select(accept, k, k_out)
        return jnp.add(i, 1), k_out, jnp.logical_or(accepted, accept), key

    def cond(carry):  # noqa: ANN001, ANN202
        i, accepted = carry[0], carry[2]
        return jnp.logical_and(jnp.any(jnp.logical_not(accepted)), jnp.less(i, max_iters))

    k_init = lax.full_like(prob, -1, pdtype, shape)
    carry = (0, k_init, jnp.full(shape, False, bool), data)
    return lax.convert_element_type(while_loop(cond, body, carry)[1], dtype)


_btrs = _eager_jit(_btrs_body, "_btrs", (3, 4, 5))


def _binomial_body(data, count, prob, shape, dtype):  # noqa: ANN001, ANN202
    if shape is None:
        shape = np.broadcast_shapes(np.shape(count), np.shape(prob))
    prob = jnp.asarray(prob)
    if not dtypes.is_float(core.get_aval(prob).dtype):
        prob = lax.convert_element_type(prob, dtypes.default_float())
    pdtype = core.get_aval(prob).dtype
    count = jnp.broadcast_to(lax.convert_element_type(count, pdtype), shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = jnp.less(prob, 0.5)
    q = lax.select(p_lt_half, prob, jnp.subtract(1.0, prob))
    count_nan_or_neg = jnp.logical_or(_isnan(count), jnp.less(count, 0.0))
    count_inf = jnp.isinf(count)
    q_is_nan = _isnan(q)
    q_l_0 = jnp.less(q, 0.0)
    q = lax.select(jnp.logical_or(q_is_nan, q_l_0), lax.full_like(q, 0.01), q)
    use_inversion = jnp.logical_or(count_nan_or_neg, jnp.less_equal(jnp.multiply(count, q), 10.0))
    count = jnp.floor(count)
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(np.finfo(dtype).max)
    samples = lax.select(
        use_inversion,
        _binomial_inversion(data, count_inv, q, shape, dtype, max_iters),
        _btrs(data, count_btrs, q_btrs, shape, dtype, max_iters),
    )
    invalid = jnp.logical_or(jnp.logical_or(q_l_0, q_is_nan), count_nan_or_neg)
    samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(
        jnp.logical_and(count_inf, jnp.logical_not(invalid)),
        jnp.full_like(samples, np.inf, dtype),
        samples,
    )
    keep = jnp.logical_or(
        jnp.logical_or(p_lt_half, count_nan_or_neg), jnp.logical_or(q_is_nan, count_inf)
    )
    return lax.select(keep, samples, jnp.subtract(lax.convert_element_type(count, dtype), samples))


_binomial = _eager_jit(_binomial_body, "_binomial", (3, 4))


def binomial(
    key: Any, n: Any, p: Any, shape: Sequence[int] | None = None, dtype: Any = None
) -> Any:
    """Binomial(n, p) counts, as floats. Like `jax.random.binomial`."""
    data, _ = _key_data_of("binomial", key)
    jnp.asarray(n), jnp.asarray(p)  # array-like, as JAX checks
    dtype = dtypes.canonicalize(np.dtype(float) if dtype is None else dtype)
    if not dtypes.is_real_float(dtype):
        raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {dtype}")
    return _binomial(data, n, p, None if shape is None else shape_tuple(shape), dtype)


def multinomial(
    key: Any,
    n: Any,
    p: Any,
    *,
    shape: Sequence[int] | None = None,
    dtype: Any = None,
    unroll: int | bool = 1,
) -> Any:
    """Counts of `n` draws over the categories of `p` (last axis). Like
    `jax.random.multinomial`."""
    data, _ = _key_data_of("multinomial", key)
    n, p = jnp.asarray(n), jnp.asarray(p)
    common = np.result_type(core.get_aval(n).dtype, core.get_aval(p).dtype)
    common = common if dtypes.is_float(common) else dtypes.default_float()
    n = lax.convert_element_type(n, dtypes.canonicalize(common))
    p = lax.convert_element_type(p, dtypes.canonicalize(common))
    shape = core.get_aval(p).shape if shape is None else shape_tuple(shape)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.broadcast_to(p, shape)
    ndtype = core.get_aval(n).dtype

    def step(remainder: Any, ratio_key: Any) -> tuple[Any, Any]:
        ratio, k = ratio_key
        count = _binomial(k, remainder, jnp.clip(ratio, 0, 1), None, ndtype)
        return jnp.subtract(remainder, count), count

    p = jnp.moveaxis(p, -1, 0)
    remaining = lax.cumsum(p, 0, reverse=True)
    ratios = jnp.divide(p, jnp.where(jnp.equal(remaining, 0), 1, remaining))
    keys = split(data, core.get_aval(ratios).shape[0])
    _, counts = scan(step, n, (ratios, keys), unroll=unroll)
    out = jnp.moveaxis(counts, 0, -1)
    dtype = ndtype if dtype is None else dtypes.canonicalize(dtype)
    return lax.convert_element_type(out, dtype)
