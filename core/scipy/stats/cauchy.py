"""The Cauchy distribution. Like `jax.scipy.stats.cauchy`. Layer 5."""

from __future__ import annotations

import math
from typing import Any

from didax import numpy as jnp
from didax.scipy.special import promote_args_inexact


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Cauchy density. Like `jax.scipy.stats.cauchy.logpdf`."""
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    y = (x - loc) / scale
    return -math.log(math.pi) - jnp.log(scale) - jnp.log1p(jnp.square(y))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Cauchy density. Like `jax.scipy.stats.cauchy.pdf`."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Cauchy CDF `1/2 + atan(y) / pi`. Like `jax.scipy.stats.cauchy.cdf`."""
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    return 0.5 + jnp.arctan2((x - loc) / scale, 1.0) / math.pi


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Cauchy CDF. Like `jax.scipy.stats.cauchy.logcdf`."""
    return jnp.log(cdf(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function. Like `jax.scipy.stats.cauchy.sf`."""
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function. Like `jax.scipy.stats.cauchy.logsf`."""
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function `loc + scale tan(pi (q - 1/2))`. Like
    `jax.scipy.stats.cauchy.ppf`."""
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    return loc + scale * jnp.tan(math.pi * (q - 0.5))


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The inverse of `sf`. Like `jax.scipy.stats.cauchy.isf`."""
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    return loc + scale * jnp.tan(math.pi * (0.5 - q))
