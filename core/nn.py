"""`didax.nn`: activation functions written with didax.numpy. Like `jax.nn`.

Layer 5. No primitives of its own: each function composes `didax.numpy` and `didax.lax`
(`relu` carries a custom_jvp rule, as JAX's does).
"""

from __future__ import annotations

from typing import Any

from didax import core, lax
from didax.control_flow.custom_derivatives import custom_jvp
from didax.numpy import lax_numpy as jnp  # the module: its private helpers are used here


def _relu(x: Any) -> Any:
    """`max(x, 0)`. Like `jax.nn.relu`, whose derivative at 0 is 0 (not max's 0.5)."""
    return jnp.maximum(x, 0)  # a weak 0 keeps integer inputs integer, as in JAX


# As JAX's: a custom_jvp around an inner jit, with one jvp rule per argument.
relu = custom_jvp(jnp._inner_jit(_relu, "relu"))  # noqa: SLF001
relu.defjvps(
    lambda g, ans, x: lax.select_n(
        x > 0, lax.full(core.get_aval(g).shape, 0, core.get_aval(g).dtype), g
    )
)


def sigmoid(x: Any) -> Any:
    """`1 / (1 + exp(-x))`. Like `jax.nn.sigmoid`."""
    return lax.logistic(x)  # as in JAX, integer inputs are a TypeError


def _max_from_minus_inf(x: Any, axes: tuple[int, ...]) -> Any:
    # jnp.max(x, axes, initial=-inf) as JAX's nn functions write it: `max -inf (reduce_max x)`
    return jnp.maximum(-jnp.inf, lax.reduce_max(x, axes))


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """`log(sum(exp(x)))`, computed stably. Like `jax.nn.logsumexp`."""
    x = jnp._to_inexact("logsumexp", x)  # noqa: SLF001
    axes = jnp._axes("logsumexp", x, axis)  # noqa: SLF001
    amax = _max_from_minus_inf(x, axes)
    if keepdims:
        amax = jnp._keepdims(amax, x, axes)  # noqa: SLF001
    amax = lax.stop_gradient(
        lax.select_n(
            lax.is_finite(amax),
            lax.full(core.get_aval(amax).shape, 0.0, core.get_aval(amax).dtype),
            amax,
        )
    )
    expanded = amax if keepdims else jnp._keepdims(amax, x, axes)  # noqa: SLF001
    sumexp = jnp.sum(jnp.exp(x - expanded), axis=axes, keepdims=keepdims)
    lax.sign(sumexp)  # JAX computes the sign too (for return_sign); it stays in the jaxpr
    return jnp.log(jnp.abs(sumexp)) + amax


def _log_softmax(x: Any, axis: Any) -> Any:
    """`x - logsumexp(x)`. Like `jax.nn.log_softmax`."""
    axes = jnp._axes("log_softmax", x, axis)  # noqa: SLF001
    peak = lax.stop_gradient(jnp._keepdims(_max_from_minus_inf(x, axes), x, axes))  # noqa: SLF001
    shifted = x - peak
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axes, keepdims=True))


_log_softmax_jit = jnp._inner_jit(  # noqa: SLF001
    _log_softmax, "log_softmax", static_argnums=(1,)
)


def log_softmax(x: Any, axis: Any = -1) -> Any:
    """`x - logsumexp(x)`, computed stably. Like `jax.nn.log_softmax` (an inner jit)."""
    return _log_softmax_jit(jnp._to_inexact("log_softmax", x), axis)  # noqa: SLF001


def softmax(x: Any, axis: Any = -1) -> Any:
    """`exp(x) / sum(exp(x))`. Like `jax.nn.softmax`."""
    x = jnp._to_inexact("softmax", x)  # noqa: SLF001
    axes = jnp._axes("softmax", x, axis)  # noqa: SLF001
    peak = lax.stop_gradient(jnp._keepdims(_max_from_minus_inf(x, axes), x, axes))  # noqa: SLF001
    unnormalized = jnp.exp(x - peak)
    return unnormalized / jnp.sum(unnormalized, axis=axes, keepdims=True)
