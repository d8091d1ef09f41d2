"""The right-skewed Gumbel distribution (of a maximum): CDF exp(-exp(-z)), z = (x - loc) /
scale. Like `jax.scipy.stats.gumbel_r`; NaN wherever `scale` is not positive. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.nn import log1mexp
from didax.scipy.special import promote_args_inexact


def standardized(name: str, x: Any, loc: Any, scale: Any) -> tuple[Any, Any, Any]:
    """(z = (x - loc) / scale, scale, whether scale > 0), of one inexact dtype (`name`'s
    errors): what both Gumbel distributions compute from."""
    x, loc, scale = promote_args_inexact(name, x, loc, scale)
    return (x - loc) / scale, scale, scale > 0


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the density, -log(scale) - z - exp(-z). Like `jax.scipy.stats.gumbel_r.logpdf`."""
    z, scale, ok = standardized("gumbel_r.logpdf", x, loc, scale)
    return jnp.where(ok, -jnp.log(scale) - (z + jnp.exp(-z)), jnp.nan)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density. Like `jax.scipy.stats.gumbel_r.pdf`."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the CDF, -exp(-z). Like `jax.scipy.stats.gumbel_r.logcdf`."""
    z, _, ok = standardized("gumbel_r.logcdf", x, loc, scale)
    return jnp.where(ok, -jnp.exp(-z), jnp.nan)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The CDF. Like `jax.scipy.stats.gumbel_r.cdf`."""
    return jnp.exp(logcdf(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function, 1 - exp(-exp(-z)) (as an `expm1`, exact in the right tail).
    Like `jax.scipy.stats.gumbel_r.sf`."""
    z, _, ok = standardized("gumbel_r.sf", x, loc, scale)
    return jnp.where(ok, -jnp.expm1(-jnp.exp(-z)), jnp.nan)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function. Like `jax.scipy.stats.gumbel_r.logsf`."""
    z, _, ok = standardized("gumbel_r.logsf", x, loc, scale)
    return jnp.where(ok, log1mexp(jnp.exp(-z)), jnp.nan)


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile at `p`, loc - scale log(-log p) (NaN outside (0, 1)). Like
    `jax.scipy.stats.gumbel_r.ppf`."""
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    return jnp.where((p > 0) & (p < 1), loc - scale * jnp.log(-jnp.log(p)), jnp.nan)
