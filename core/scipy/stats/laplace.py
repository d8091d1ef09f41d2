"""The Laplace distribution. Like `jax.scipy.stats.laplace`. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import promote_args_inexact


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Laplace density. Like `jax.scipy.stats.laplace.logpdf`."""
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    return -jnp.log(2 * scale) - jnp.abs(x - loc) / scale


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Laplace density. Like `jax.scipy.stats.laplace.pdf`."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Laplace CDF. Like `jax.scipy.stats.laplace.cdf`."""
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, 0.5 * jnp.exp(y), 1 - 0.5 * jnp.exp(-y))
