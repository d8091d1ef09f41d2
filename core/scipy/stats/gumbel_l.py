"""The left-skewed Gumbel distribution (of a minimum): the mirror image of `gumbel_r`, CDF
1 - exp(-exp(z)), z = (x - loc) / scale. Like `jax.scipy.stats.gumbel_l`; NaN wherever
`scale` is not positive. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import promote_args_inexact
from didax.scipy.stats.gumbel_r import standardized


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the density, -log(scale) + z - exp(z). Like `jax.scipy.stats.gumbel_l.logpdf`."""
    z, scale, ok = standardized("gumbel_l.logpdf", x, loc, scale)
    return jnp.where(ok, -jnp.log(scale) + (z - jnp.exp(z)), jnp.nan)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density. Like `jax.scipy.stats.gumbel_l.pdf`."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the CDF, log(1 - exp(-exp(z))). Like `jax.scipy.stats.gumbel_l.logcdf`."""
    z, _, ok = standardized("gumbel_l.logcdf", x, loc, scale)
    return jnp.where(ok, jnp.log(-jnp.expm1(-jnp.exp(z))), jnp.nan)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The CDF. Like `jax.scipy.stats.gumbel_l.cdf`."""
    return jnp.exp(logcdf(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function, -exp(z). Like `jax.scipy.stats.gumbel_l.logsf`."""
    z, _, ok = standardized("gumbel_l.logsf", x, loc, scale)
    return jnp.where(ok, -jnp.exp(z), jnp.nan)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function. Like `jax.scipy.stats.gumbel_l.sf`."""
    return jnp.exp(logsf(x, loc, scale))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile at `p`, loc + scale log(-log(1 - p)) (NaN outside (0, 1)). Like
    `jax.scipy.stats.gumbel_l.ppf`."""
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    return jnp.where((p > 0) & (p < 1), loc + scale * jnp.log(-jnp.log1p(-p)), jnp.nan)
