"""`didax.nn`: activation functions written with didax.numpy. Like `jax.nn`.

Layer 5. No primitives of its own: each function composes `didax.numpy` and `didax.lax`
(`relu` carries a custom_jvp rule, as JAX's does).
"""

from __future__ import annotations

from typing import Any

from didax import lax
from didax.control_flow.custom_derivatives import custom_jvp
from didax.numpy import lax_numpy as jnp  # the module: its private helpers are used here


@custom_jvp
def relu(x: Any) -> Any:
    """`max(x, 0)`. Like `jax.nn.relu`, whose derivative at 0 is 0 (not max's 0.5)."""
    return jnp.maximum(x, 0)  # a weak 0 keeps integer inputs integer, as in JAX


@relu.defjvp
def _relu_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (x_dot,) = primals, tangents
    out = relu(x)
    return out, jnp.where(x > 0, x_dot, jnp.zeros_like(x_dot))


def sigmoid(x: Any) -> Any:
    """`1 / (1 + exp(-x))`. Like `jax.nn.sigmoid`."""
    return lax.logistic(x)  # as in JAX, integer inputs are a TypeError


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """`log(sum(exp(x)))`, computed stably. Like `jax.nn.logsumexp`."""
    x = jnp._to_inexact("logsumexp", x)  # noqa: SLF001
    axes = jnp._axes("logsumexp", x, axis)  # noqa: SLF001
    amax = jnp.max(x, axis=axes, keepdims=True)
    amax = lax.stop_gradient(jnp.where(jnp.isfinite(amax), amax, 0.0))
    out = jnp.log(jnp.sum(jnp.exp(x - amax), axis=axes, keepdims=True)) + amax
    return out if keepdims else jnp.squeeze(out, axes)


def log_softmax(x: Any, axis: int = -1) -> Any:
    """`x - logsumexp(x)`. Like `jax.nn.log_softmax`."""
    x = jnp._to_inexact("log_softmax", x)  # noqa: SLF001
    shifted = x - lax.stop_gradient(jnp.max(x, axis=axis, keepdims=True))
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True))


def softmax(x: Any, axis: int = -1) -> Any:
    """`exp(x) / sum(exp(x))`. Like `jax.nn.softmax`."""
    x = jnp._to_inexact("softmax", x)  # noqa: SLF001
    unnormalized = jnp.exp(x - lax.stop_gradient(jnp.max(x, axis=axis, keepdims=True)))
    return unnormalized / jnp.sum(unnormalized, axis=axis, keepdims=True)
