"""The normal distribution truncated to `[a, b]` (in units of `scale` from `loc`). Like
`jax.scipy.stats.truncnorm`. Layer 5, over `norm` and `didax.scipy.special`.

The normal mass between two points is computed where it is accurate: in the tail they share
(both below 0, or both above: the difference of two log CDFs) or, straddling 0, as one minus
the two tails (`_log_mass`), as SciPy and JAX compute it."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import log_ndtr, ndtr, promote_args_inexact
from didax.scipy.stats import norm


def _log_sub(p: Any, q: Any) -> Any:
    """log(exp(p) - exp(q)): -inf where both are -inf, NaN where q > p (a negative
    difference). Those two come from a `where` over a stand-in, not from the formula, so the
    gradient stays finite there: a branch that `logcdf`'s select does not take still gets a
    zero cotangent, and a zero times a NaN derivative would be NaN."""
    ok = (p > -jnp.inf) & (q <= p)
    p_, q_ = jnp.where(ok, p, 0.0), jnp.where(ok, q, -1.0)
    return jnp.where(ok, p_ + jnp.log1p(-jnp.exp(q_ - p_)), jnp.where(q > p, jnp.nan, -jnp.inf))


def _log_mass(lo: Any, hi: Any) -> Any:
    """log(P(lo < Z < hi)) for a standard normal Z."""
    lo, hi = jnp.broadcast_arrays(lo, hi)
    right = lo > 0  # both in the right tail: mirror them into the left one
    left_lo, left_hi = jnp.where(right, -hi, lo), jnp.where(right, -lo, hi)
    tail = _log_sub(log_ndtr(left_hi), log_ndtr(left_lo))
    central = jnp.log1p(-ndtr(lo) - ndtr(-hi))
    return jnp.where(~(right | (hi <= 0)), central, tail)


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the density: -inf outside [a, b], NaN where a >= b. Like
    `jax.scipy.stats.truncnorm.logpdf`."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    out = jnp.where((y < a) | (y > b), -jnp.inf, norm.logpdf(x, loc, scale) - _log_mass(a, b))
    return jnp.where(a >= b, jnp.nan, out)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density. Like `jax.scipy.stats.truncnorm.pdf`."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the CDF: the mass from `a` to `x` over the mass from `a` to `b` (near 1, one
    minus the mass beyond `x`, more accurate there). Like `jax.scipy.stats.truncnorm.logcdf`."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = jnp.broadcast_arrays(x, a, b)
    y = (x - loc) / scale
    total = _log_mass(a, b)
    below, above = _log_mass(a, y) - total, _log_mass(y, b) - total
    out = jnp.select(
        [y >= b, y <= a, below > -0.1, y > a],
        [0, -jnp.inf, jnp.log1p(-jnp.exp(above)), below],
    )
    return jnp.where(a >= b, jnp.nan, out)


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The CDF. Like `jax.scipy.stats.truncnorm.cdf`."""
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function: the log CDF of the mirrored distribution. Like
    `jax.scipy.stats.truncnorm.logsf`."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function `1 - cdf`. Like `jax.scipy.stats.truncnorm.sf`."""
    return jnp.exp(logsf(x, a, b, loc, scale))
