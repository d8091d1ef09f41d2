"""The Pareto distribution with shape `b`, from `loc + scale` up. Like
`jax.scipy.stats.pareto`. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import promote_args_inexact


def _scaled(name: str, x: Any, b: Any, loc: Any, scale: Any) -> tuple[Any, Any, Any, Any]:
    # (x scaled, b, whether x is below the support, scale), of one inexact dtype
    x, b, loc, scale = promote_args_inexact(name, x, b, loc, scale)
    return (x - loc) / scale, b, x < loc + scale, scale


def logpdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the density, log(b / scale) - (b + 1) log y (-inf below the support). Like
    `jax.scipy.stats.pareto.logpdf`."""
    y, b, below, scale = _scaled("pareto.logpdf", x, b, loc, scale)
    return jnp.where(below, -jnp.inf, -(jnp.log(scale / b) + (b + 1) * jnp.log(y)))


def pdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density. Like `jax.scipy.stats.pareto.pdf`."""
    return jnp.exp(logpdf(x, b, loc, scale))


def cdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The CDF, 1 - y^-b (0 below the support). Like `jax.scipy.stats.pareto.cdf`."""
    y, b, below, _ = _scaled("pareto.cdf", x, b, loc, scale)
    return jnp.where(below, 0, 1 - y ** (-b))


def logcdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the CDF. Like `jax.scipy.stats.pareto.logcdf`."""
    y, b, below, _ = _scaled("pareto.logcdf", x, b, loc, scale)
    return jnp.where(below, -jnp.inf, jnp.log1p(-(y ** (-b))))


def logsf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function, -b log y (0 below the support). Like
    `jax.scipy.stats.pareto.logsf`."""
    y, b, below, _ = _scaled("pareto.logsf", x, b, loc, scale)
    return jnp.where(below, 0, -(b * jnp.log(y)))


def sf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function. Like `jax.scipy.stats.pareto.sf`."""
    return jnp.exp(logsf(x, b, loc, scale))


def ppf(q: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile at `q` (NaN outside [0, 1]). Like `jax.scipy.stats.pareto.ppf`."""
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    quantile = loc + scale * (1 - q) ** (-(1 / b))
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), jnp.nan, quantile)
