"""The gamma distribution with shape `a`. Like `jax.scipy.stats.gamma` (`logpdf`, `pdf`; the
CDFs need the incomplete gamma function, which didax does not have yet). Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import gammaln, promote_args_inexact, xlogy


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the gamma density (-inf below `loc`). Like `jax.scipy.stats.gamma.logpdf`."""
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    y = (x - loc) / scale
    log_probs = xlogy(a - 1, y) - y - gammaln(a) - jnp.log(scale)
    return jnp.where(x < loc, -jnp.inf, log_probs)


def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The gamma density. Like `jax.scipy.stats.gamma.pdf`."""
    return jnp.exp(logpdf(x, a, loc, scale))
