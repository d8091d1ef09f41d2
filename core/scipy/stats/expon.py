"""The exponential distribution. Like `jax.scipy.stats.expon`. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import promote_args_inexact


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the exponential density (-inf below `loc`). Like
    `jax.scipy.stats.expon.logpdf`."""
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    log_probs = -(jnp.log(scale) + (x - loc) / scale)
    return jnp.where(x < loc, -jnp.inf, log_probs)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The exponential density. Like `jax.scipy.stats.expon.pdf`."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The exponential CDF. Like `jax.scipy.stats.expon.cdf`."""
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    return jnp.where(x < loc, 0.0, -jnp.expm1(-(x - loc) / scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the exponential CDF. Like `jax.scipy.stats.expon.logcdf`."""
    x, loc, scale = promote_args_inexact("expon.logcdf", x, loc, scale)
    return jnp.where(x < loc, -jnp.inf, jnp.log(-jnp.expm1(-(x - loc) / scale)))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function. Like `jax.scipy.stats.expon.logsf`."""
    x, loc, scale = promote_args_inexact("expon.logsf", x, loc, scale)
    return jnp.where(x < loc, 0.0, -(x - loc) / scale)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function. Like `jax.scipy.stats.expon.sf`."""
    return jnp.exp(logsf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function (NaN outside [0, 1]). Like `jax.scipy.stats.expon.ppf`."""
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    return jnp.where((q < 0) | (q > 1), jnp.nan, -jnp.log1p(-q) * scale + loc)
