"""The Dirichlet distribution over the simplex, with concentrations `alpha` (one axis).
Like `jax.scipy.stats.dirichlet`. Layer 5."""

from __future__ import annotations

from typing import Any

from didax import numpy as jnp
from didax.scipy.special import gammaln, promote_args_inexact, xlogy


def logpdf(x: Any, alpha: Any) -> Any:
    """Log of the Dirichlet density at `x`, whose first axis runs over the categories: as
    many entries as `alpha`, or one fewer (the last is then one minus their sum). -inf off
    the simplex (an entry not positive, or a sum 1e-6 away from 1). Like
    `jax.scipy.stats.dirichlet.logpdf`."""
    x, alpha = promote_args_inexact("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x.shape}, alpha.shape={alpha.shape}"
        )
    if x.shape[0] != alpha.shape[0]:  # the last category: what the others leave
        x = jnp.concatenate([x, 1 - x.sum(0, keepdims=True)], axis=0)
    log_beta = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    alpha = alpha.reshape(alpha.shape + (1,) * (x.ndim - 1))  # against each point of x
    log_probs = jnp.sum(xlogy(alpha - 1, x), axis=0) - log_beta
    on_simplex = jnp.all(x > 0, axis=0) & (abs(jnp.sum(x, axis=0) - 1) < 1e-6)
    return jnp.where(on_simplex, log_probs, -jnp.inf)


def pdf(x: Any, alpha: Any) -> Any:
    """The Dirichlet density. Like `jax.scipy.stats.dirichlet.pdf`."""
    return jnp.exp(logpdf(x, alpha))
