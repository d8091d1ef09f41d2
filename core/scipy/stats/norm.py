"""The normal distribution. Like `jax.scipy.stats.norm`. Layer 5, over
`didax.scipy.special` (`ndtr`, `log_ndtr`, `ndtri`)."""

from __future__ import annotations

import math
from typing import Any

from didax import numpy as jnp
from didax.scipy.special import log_ndtr, ndtr, ndtri, promote_args_inexact


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the normal density. Like `jax.scipy.stats.norm.logpdf`."""
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    log_normalizer = jnp.log(2 * math.pi * jnp.square(scale))
    quadratic = jnp.square(x - loc) / jnp.square(scale)
    return (log_normalizer + quadratic) / -2


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal density. Like `jax.scipy.stats.norm.pdf`."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal CDF. Like `jax.scipy.stats.norm.cdf`."""
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return ndtr((x - loc) / scale)


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the normal CDF. Like `jax.scipy.stats.norm.logcdf`."""
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return log_ndtr((x - loc) / scale)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function `1 - cdf`. Like `jax.scipy.stats.norm.sf`."""
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function. Like `jax.scipy.stats.norm.logsf`."""
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function, the inverse of `cdf`. Like `jax.scipy.stats.norm.ppf`."""
    q, loc, scale = promote_args_inexact("norm.ppf", q, loc, scale)
    return ndtri(q) * scale + loc


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The inverse of `sf`. Like `jax.scipy.stats.norm.isf`."""
    q, loc, scale = promote_args_inexact("norm.isf", q, loc, scale)
    return ppf(1 - q, loc, scale)
