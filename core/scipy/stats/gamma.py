"""The gamma distribution with shape `a`. Like `jax.scipy.stats.gamma`; its CDF is the
regularized incomplete gamma function (`didax.scipy.special.gammainc`). Layer 5."""

from __future__ import annotations

from typing import Any

from didax import lax
from didax import numpy as jnp
from didax.scipy.special import gammainc, gammaincc, gammaln, promote_args_inexact, xlogy


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the gamma density (-inf below `loc`). Like `jax.scipy.stats.gamma.logpdf`."""
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    y = (x - loc) / scale
    log_probs = xlogy(a - 1, y) - y - gammaln(a) - jnp.log(scale)
    return jnp.where(x < loc, -jnp.inf, log_probs)


def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The gamma density. Like `jax.scipy.stats.gamma.pdf`."""
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The gamma CDF (0 below `loc`). Like `jax.scipy.stats.gamma.cdf`."""
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return gammainc(a, lax.clamp(0.0, (x - loc) / scale, jnp.inf))


def logcdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the gamma CDF. Like `jax.scipy.stats.gamma.logcdf`."""
    return jnp.log(cdf(x, a, loc, scale))


def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function `1 - cdf` (1 below `loc`). Like `jax.scipy.stats.gamma.sf`."""
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, 1, gammaincc(a, y))


def logsf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function. Like `jax.scipy.stats.gamma.logsf`."""
    return jnp.log(sf(x, a, loc, scale))
