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


def _masked(x: Any, where: Any, fill: float) -> Any:
    return x if where is None else jnp.where(where, x, fill)


def _logsumexp(x: Any, axis: Any = None, keepdims: bool = False, where: Any = None) -> Any:
    x = to_inexact("logsumexp", x)
    axes = canonical_axes("logsumexp", x, axis)
    amax = _max_from_minus_inf(_masked(x, where, -jnp.inf), axes)
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
    terms = _masked(jnp.exp(x - expanded), where, 0.0)
    sumexp = jnp.sum(terms, axis=axes, keepdims=keepdims)
    lax.sign(sumexp)  # JAX computes the sign too (for return_sign); it stays in the jaxpr
    return jnp.log(jnp.abs(sumexp)) + amax


def logsumexp(
    a: Any,
    axis: Any = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: Any = None,
) -> Any:
    """`log(sum(b * exp(a)))` over `axis`, computed stably; with `return_sign`, also the
    sign of the sum (b may be negative). Like `jax.nn.logsumexp` and
    `jax.scipy.special.logsumexp`."""
    if b is None and not return_sign:
        return _logsumexp(a, axis, keepdims, where)
    a = to_inexact("logsumexp", jnp.asarray(a))
    axes = canonical_axes("logsumexp", a, axis)
    peak = lax.stop_gradient(_max_from_minus_inf(_masked(a, where, -jnp.inf), axes))
    peak = expand_reduced(jnp.where(jnp.isfinite(peak), peak, 0.0), a, axes)
    terms = jnp.exp(a - peak)
    if b is not None:
        terms = terms * b
    total = jnp.sum(_masked(terms, where, 0.0), axis=axes, keepdims=True)
    sign = lax.sign(total)
    out = jnp.log(jnp.abs(total)) + peak
    if not return_sign:  # the log of a negative sum
        out = jnp.where(sign < 0, jnp.nan, out)
    if not keepdims:
        out, sign = (jnp.squeeze(v, axis=axes) for v in (out, sign))
    return (out, sign) if return_sign else out


def _log_softmax(x: Any, axis: Any, where: Any) -> Any:
    """`x - logsumexp(x)`. Like `jax.nn.log_softmax`."""
    axes = canonical_axes("log_softmax", x, axis)
    x_safe = _masked(x, where, -jnp.inf)
    peak = lax.stop_gradient(expand_reduced(_max_from_minus_inf(x_safe, axes), x, axes))
    shifted = x_safe - peak
    total = jnp.sum(_masked(jnp.exp(shifted), where, 0.0), axis=axes, keepdims=True)
    return _masked(shifted - jnp.log(total), where, -jnp.inf)


_log_softmax_jit = inner_jit(_log_softmax, "log_softmax", static_argnums=(1,))


def log_softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """`x - logsumexp(x)`, computed stably (over the `where` entries: -inf elsewhere). Like
    `jax.nn.log_softmax` (an inner jit)."""
    return _log_softmax_jit(to_inexact("log_softmax", x), axis, where)


def softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """`exp(x) / sum(exp(x))` (over the `where` entries: 0 elsewhere). Like
    `jax.nn.softmax`."""
    x = to_inexact("softmax", x)
    axes = canonical_axes("softmax", x, axis)
    x_safe = _masked(x, where, -jnp.inf)
    peak = lax.stop_gradient(expand_reduced(_max_from_minus_inf(x_safe, axes), x, axes))
    unnormalized = jnp.exp(x_safe - peak)
    total = jnp.sum(_masked(unnormalized, where, 0.0), axis=axes, keepdims=True)
    return _masked(unnormalized / total, where, 0)
