"""The uniform distribution on [loc, loc + scale]. Like `jax.scipy.stats.uniform`. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import promote_args_inexact


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the uniform density. Like `jax.scipy.stats.uniform.logpdf`."""
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    outside = (x < loc) | (x > loc + scale)
    return jnp.where(outside, -jnp.inf, -jnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The uniform density. Like `jax.scipy.stats.uniform.pdf`."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The uniform CDF. Like `jax.scipy.stats.uniform.cdf`."""
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    # the linear piece includes both ends: its slope, 1 / scale, is the gradient there
    inside = (x - loc) / scale
    return jnp.where(x < loc, jnp.zeros_like(inside), jnp.where(x > loc + scale, 1.0, inside))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function (NaN outside [0, 1]). Like `jax.scipy.stats.uniform.ppf`."""
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    return jnp.where((q < 0) | (q > 1), jnp.nan, loc + q * scale)
