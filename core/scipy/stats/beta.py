"""The beta distribution. Like `jax.scipy.stats.beta`; its CDF is the regularized incomplete
beta function (`didax.scipy.special.betainc`). Layer 5."""

from __future__ import annotations

from typing import Any

from didax import lax
from didax import numpy as jnp
from didax.scipy.special import betainc, betaln, promote_args_inexact, xlog1py, xlogy


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the beta density on [loc, loc + scale]. Like `jax.scipy.stats.beta.logpdf`."""
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    log_probs = xlogy(a - 1, y) + xlog1py(b - 1, -y) - betaln(a, b) - jnp.log(scale)
    return jnp.where((y < 0) | (y > 1), -jnp.inf, log_probs)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The beta density. Like `jax.scipy.stats.beta.pdf`."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The beta CDF (0 below `loc`, 1 above `loc + scale`). Like
    `jax.scipy.stats.beta.cdf`."""
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, lax.clamp(0.0, (x - loc) / scale, 1.0))


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the beta CDF. Like `jax.scipy.stats.beta.logcdf`."""
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function `1 - cdf`, as the CDF of the mirrored distribution (exact near
    1). Like `jax.scipy.stats.beta.sf`."""
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - lax.clamp(0.0, (x - loc) / scale, 1.0))


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function. Like `jax.scipy.stats.beta.logsf`."""
    return jnp.log(sf(x, a, b, loc, scale))
