"""The chi-squared distribution with `df` degrees of freedom: a gamma distribution of shape
`df / 2` and scale `2 * scale`. Like `jax.scipy.stats.chi2`. Layer 5."""

from __future__ import annotations

import math
from typing import Any

from didax import lax
from didax import numpy as jnp
from didax.scipy.special import gammainc, gammaincc, gammaln, promote_args_inexact


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the chi-squared density (-inf below `loc`). Like
    `jax.scipy.stats.chi2.logpdf`."""
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    half = df / 2
    log_normalizer = -(gammaln(half) + half * math.log(2)) - jnp.log(scale)
    log_probs = log_normalizer + ((half - 1) * jnp.log(y) - y / 2)
    return jnp.where(x < loc, -jnp.inf, log_probs)


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The chi-squared density. Like `jax.scipy.stats.chi2.pdf`."""
    return jnp.exp(logpdf(x, df, loc, scale))


def _half_scaled(name: str, x: Any, df: Any, loc: Any, scale: Any) -> tuple[Any, Any]:
    # (df / 2, (x - loc) / (2 scale) clipped at 0): the gamma function's arguments
    x, df, loc, scale = promote_args_inexact(name, x, df, loc, scale)
    return df / 2, lax.clamp(0.0, (x - loc) / (scale * 2), jnp.inf)


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The chi-squared CDF. Like `jax.scipy.stats.chi2.cdf`."""
    return gammainc(*_half_scaled("chi2.cdf", x, df, loc, scale))


def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the CDF. Like `jax.scipy.stats.chi2.logcdf`."""
    return jnp.log(cdf(x, df, loc, scale))


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function `1 - cdf`. Like `jax.scipy.stats.chi2.sf`."""
    return gammaincc(*_half_scaled("chi2.sf", x, df, loc, scale))


def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function. Like `jax.scipy.stats.chi2.logsf`."""
    return jnp.log(sf(x, df, loc, scale))
