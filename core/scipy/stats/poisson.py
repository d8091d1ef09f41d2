"""The Poisson distribution. Like `jax.scipy.stats.poisson` (`logpmf`, `pmf`, `cdf`: the
regularized upper incomplete gamma function, `didax.scipy.special.gammaincc`). Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import gammaincc, gammaln, promote_args_inexact, xlogy


def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """Log of the Poisson mass (-inf off the non-negative integers). Like
    `jax.scipy.stats.poisson.logpmf`."""
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = k - loc
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where((x < 0) | (jnp.round(x) != x), -jnp.inf, log_probs)


def pmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """The Poisson mass. Like `jax.scipy.stats.poisson.pmf`."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """The Poisson CDF, P(K <= k) = Q(floor(k - loc) + 1, mu) (0 below `loc`). Like
    `jax.scipy.stats.poisson.cdf`."""
    k, mu, loc = promote_args_inexact("poisson.cdf", k, mu, loc)
    x = k - loc
    return jnp.where(x < 0, 0, gammaincc(jnp.floor(1 + x), mu))
