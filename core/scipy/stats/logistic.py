"""The logistic distribution. Like `jax.scipy.stats.logistic`. Layer 5, over
`didax.scipy.special` (`expit`, `logit`)."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.nn import softplus
from didax.scipy.special import expit, logit, promote_args_inexact


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the logistic density. Like `jax.scipy.stats.logistic.logpdf`."""
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    y = (x - loc) / scale
    return -y - 2 * softplus(-y) - jnp.log(scale)  # log(e^-y / (1 + e^-y)^2) - log scale


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The logistic density. Like `jax.scipy.stats.logistic.pdf`."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The logistic CDF. Like `jax.scipy.stats.logistic.cdf`."""
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return expit((x - loc) / scale)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function. Like `jax.scipy.stats.logistic.sf`."""
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return expit(-(x - loc) / scale)


def ppf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function. Like `jax.scipy.stats.logistic.ppf`."""
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return logit(x) * scale + loc


def isf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The inverse of `sf`. Like `jax.scipy.stats.logistic.isf`."""
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return -logit(x) * scale + loc
