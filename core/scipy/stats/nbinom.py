"""The negative binomial distribution: the number of failures before the `n`-th success of
Bernoulli(`p`) trials. Like `jax.scipy.stats.nbinom`. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import gammaln, promote_args_inexact, xlogy


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """Log of the mass, log C(y + n - 1, y) + n log p + y log(1 - p) for y = k - loc (-inf
    below `loc`). Like `jax.scipy.stats.nbinom.logpmf`."""
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    log_choose = gammaln(y + n) - gammaln(n) - gammaln(y + 1)
    return jnp.where(k < loc, -jnp.inf, log_choose + (xlogy(n, p) + xlogy(y, 1 - p)))


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """The mass. Like `jax.scipy.stats.nbinom.pmf`."""
    return jnp.exp(logpmf(k, n, p, loc))
