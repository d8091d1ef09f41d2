"""The stable log-sum-exp family: `logsumexp`, `softmax`, `log_softmax`. Like `jax.nn`'s.

Layer 5, after `didax.numpy`, of which it is no part: `didax.nn` exports these functions,
`didax.scipy.special` builds on them, and `didax.random` (below `didax.nn`, whose initializers
draw random numbers) needs `softmax` for `dirichlet`. No primitives of its own.
"""

from __future__ import annotations

from typing import Any

from didax import core, lax
from didax import numpy as jnp
from didax.numpy.axis_args import canonical_axes, expand_reduced
from didax.numpy.inner_jit import inner_jit
from didax.numpy.promotion import to_inexact


def _max_from_minus_inf(x: Any, axes: tuple[int, ...]) -> Any:
    # jnp.max(x, axes, initial=-inf) as JAX's nn functions write it: `max -inf (reduce_max x)`
    return jnp.maximum(-jnp.inf, lax.reduce_max(x, axes))


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """`log(sum(exp(x)))`, computed stably. Like `jax.nn.logsumexp`."""
    x = to_inexact("logsumexp", x)
    axes = canonical_axes("logsumexp", x, axis)
    amax = _max_from_minus_inf(x, axes)
    if keepdims:
        amax = expand_reduced(amax, x, axes)
    amax = lax.stop_gradient(
        lax.select_n(
            lax.is_finite(amax),
            lax.full(core.get_aval(amax).shape, 0.0, core.get_aval(amax).dtype),
            amax,
        )
    )
    expanded = amax if keepdims else expand_reduced(amax, x, axes)
    sumexp = jnp.sum(jnp.exp(x - expanded), axis=axes, keepdims=keepdims)
    lax.sign(sumexp)  # JAX computes the sign too (for return_sign); it stays in the jaxpr
    return jnp.log(jnp.abs(sumexp)) + amax


def _log_softmax(x: Any, axis: Any) -> Any:
    """`x - logsumexp(x)`. Like `jax.nn.log_softmax`."""
    axes = canonical_axes("log_softmax", x, axis)
    peak = lax.stop_gradient(expand_reduced(_max_from_minus_inf(x, axes), x, axes))
    shifted = x - peak
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axes, keepdims=True))


_log_softmax_jit = inner_jit(_log_softmax, "log_softmax", static_argnums=(1,))


def log_softmax(x: Any, axis: Any = -1) -> Any:
    """`x - logsumexp(x)`, computed stably. Like `jax.nn.log_softmax` (an inner jit)."""
    return _log_softmax_jit(to_inexact("log_softmax", x), axis)


def softmax(x: Any, axis: Any = -1) -> Any:
    """`exp(x) / sum(exp(x))`. Like `jax.nn.softmax`."""
    x = to_inexact("softmax", x)
    axes = canonical_axes("softmax", x, axis)
    peak = lax.stop_gradient(expand_reduced(_max_from_minus_inf(x, axes), x, axes))
    unnormalized = jnp.exp(x - peak)
    return unnormalized / jnp.sum(unnormalized, axis=axes, keepdims=True)
