"""The beta distribution. Like `jax.scipy.stats.beta` (`logpdf`, `pdf`; the CDFs need the
incomplete beta function, which didax does not have yet). Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import betaln, promote_args_inexact, xlog1py, xlogy


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the beta density on [loc, loc + scale]. Like `jax.scipy.stats.beta.logpdf`."""
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    log_probs = xlogy(a - 1, y) + xlog1py(b - 1, -y) - betaln(a, b) - jnp.log(scale)
    return jnp.where((y < 0) | (y > 1), -jnp.inf, log_probs)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The beta density. Like `jax.scipy.stats.beta.pdf`."""
    return jnp.exp(logpdf(x, a, b, loc, scale))
