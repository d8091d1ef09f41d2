"""The Bernoulli distribution. Like `jax.scipy.stats.bernoulli`. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import promote_args_inexact, xlog1py, xlogy


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """Log of the Bernoulli mass (-inf off {0, 1}). Like
    `jax.scipy.stats.bernoulli.logpmf`."""
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    x = k - loc
    log_probs = xlogy(x, p) + xlog1py(1 - x, -p)
    return jnp.where((x != 0) & (x != 1), -jnp.inf, log_probs)


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """The Bernoulli mass. Like `jax.scipy.stats.bernoulli.pmf`."""
    return jnp.exp(logpmf(k, p, loc))


def cdf(k: Any, p: Any) -> Any:
    """The Bernoulli CDF (NaN for p outside [0, 1]). Like `jax.scipy.stats.bernoulli.cdf`."""
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    inside = jnp.where(k < 0, 0.0, jnp.where(k >= 1, 1.0, 1 - p))
    return jnp.where(jnp.isnan(k) | jnp.isnan(p) | (p < 0) | (p > 1), jnp.nan, inside)


def ppf(q: Any, p: Any) -> Any:
    """The quantile function (NaN outside the domain). Like
    `jax.scipy.stats.bernoulli.ppf`."""
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    bad = jnp.isnan(q) | jnp.isnan(p) | (p < 0) | (p > 1) | (q < 0) | (q > 1)
    zero, one = jnp.zeros_like(q), jnp.ones_like(q)  # as strong as q
    return jnp.where(bad, jnp.nan, jnp.where(q <= 1 - p, zero, one))
