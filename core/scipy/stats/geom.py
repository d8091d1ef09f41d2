"""The geometric distribution: the number of Bernoulli(`p`) trials up to the first success,
from 1. Like `jax.scipy.stats.geom`. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import promote_args_inexact, xlog1py


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """Log of the mass, (k - 1) log(1 - p) + log p (-inf at or below `loc`). Like
    `jax.scipy.stats.geom.logpmf`."""
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    x = k - loc
    return jnp.where(x <= 0, -jnp.inf, xlog1py(x - 1, -p) + jnp.log(p))


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """The mass. Like `jax.scipy.stats.geom.pmf`."""
    return jnp.exp(logpmf(k, p, loc))
