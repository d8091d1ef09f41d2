"""Gamma draws and the samplers built on them: `random_gamma_p` (JAX's primitive,
`random_gamma[log_space=...]` in jaxprs, inside `jit[name=_gamma]`), `gamma`, `loggamma`,
`dirichlet`, `beta`.

Layer 5 (`didax.random`, after `samplers`, whose uniform and normal draws the rejection
loop takes). `random_gamma_p`'s operands are the key data (uint32[..., 2], one key per
leading axis of `a` it covers) and the shapes `a`; its impl and lowering are one function,
`_gamma_impl` (split a key per sample, then Marsaglia-Tsang's loop for each), compiled for
eager calls and lowered in place under `jit`, as JAX lowers it with `lower_fun`; vmap moves
both batch axes to the front. Its jvp in the shapes is JAX's: the tangent times
`lax.random_gamma_grad(a, sample)`, mapped over the elements.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from didax import core, lax
from didax import numpy as jnp
from didax.api import vmap
from didax.compile.jit import jit
from didax.interpreters import staging
from didax.numpy import stable
from didax.numpy.axis_args import shape_tuple
from didax.primitives import shape as shape_ops
from didax.random.prng import _key_data_of, _named_jit, split
from didax.random.samplers import _exponential, _float_dtype, _normal, _uniform

random_gamma_p = core.Primitive("random_gamma")


def _gamma_impl(key: Any, a: Any, log_space: bool) -> Any:
    a_shape = core.get_aval(a).shape
    key_batch = core.get_aval(key).ndim - 1
    count = math.prod(a_shape[key_batch:])
    keys = jnp.reshape(key, (-1, 2))
    keys = jnp.reshape(vmap(lambda k: split(k, count))(keys), (-1, 2))
    alphas = jnp.reshape(a, (-1,))
    samples = vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, alphas)
    return jnp.reshape(samples, a_shape)


_gamma_compiled = jit(_gamma_impl, static_argnums=(2,))
core.impl_rules.register(
    random_gamma_p, lambda key, a, *, log_space: [_gamma_compiled(key, a, log_space)]
)


@core.abstract_eval_rules.register(random_gamma_p)
def _random_gamma_abstract_eval(key, a, *, log_space):
    return [a]


@core.jvp_rules.register(random_gamma_p)
def _random_gamma_jvp(primals, tangents, *, log_space):
    out = random_gamma_p.bind(*primals, log_space=log_space)
    a_dot = tangents[1]
    if isinstance(a_dot, core.Zero):
        return [out], [core.Zero.like(out)]
    return [out], [lax.mul(a_dot, _gamma_grad(out, primals[1], log_space))]


def _gamma_grad(sample: Any, a: Any, log_space: bool) -> Any:
    # d sample / d a, one element at a time (`lax.map`, as JAX does on CPU)
    samples, alphas = jnp.reshape(sample, (-1,)), jnp.reshape(a, (-1,))
    grad = lax.random_gamma_grad
    if log_space:  # d log(sample) = d sample / sample; exp(log_sample) may round to 0
        samples = lax.exp(samples)
        tiny = lax.full_like(samples, np.finfo(core.get_aval(samples).dtype).tiny)
        samples = lax.select(lax.eq(samples, np.array(0, samples.dtype)), tiny, samples)
        grad = lambda alpha, x: lax.div(lax.random_gamma_grad(alpha, x), x)  # noqa: E731
    grads = lax.map(lambda args: grad(*args), (alphas, samples))
    return jnp.reshape(grads, core.get_aval(a).shape)


@core.vmap_rules.register(random_gamma_p)
def _random_gamma_vmap(axis_size, vals, dims, *, log_space):
    key, a = (shape_ops.move_axis(v, d, 0, axis_size) for v, d in zip(vals, dims, strict=True))
    return [random_gamma_p.bind(key, a, log_space=log_space)], [0]


@core.lowering_rules.register(random_gamma_p)
def _random_gamma_lowering(ctx, key, a, *, log_space):
    closed = staging.trace_to_jaxpr(lambda k, al: [_gamma_impl(k, al, log_space)], ctx.avals_in)
    return ctx.lower_jaxpr(closed, [key, a])


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
    return random_gamma_p.bind(data, a, log_space=log_space)


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
